"""A CETBench run: pairs → a judge → stored items → the paper's metrics.

Prompts (ours, written from the paper's description; ``bench/cetbench/templates/<basic|cot>.txt``):
``basic`` asks for one word (Yes/No); ``cot`` asks for reasoning that ends with the marker
``FINAL_ANSWER_IS_YES`` or ``FINAL_ANSWER_IS_NO``. Answers are read as in
:mod:`divergent.bench.answers` (``samples`` > 1: majority vote).

Judges: ``llm``; ``execution`` (``divergent.check`` on the two functions, seeded with the calls in
the pair's ``tests``: a witness is NO, none found within the budget YES; pairs whose functions
cannot be called alike, that carry no entry points, or give divergent nothing to generate inputs
from, are not executable); ``hybrid`` (the model only where execution found no witness).

Metrics (:func:`summarize`): accuracy by category and flag (the paper's id/fe/ne/di × np/sp table),
Avg (accuracy), W-Avg (class-balanced accuracy), macro, micro, positive and negative F1, accuracy by
number of perturbations ``k`` and by perturbation type, and with ``originals`` the same on the
unperturbed original pairs (the paper's "before" rows).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from divergent.bench.answers import AnswerFormat, judge
from divergent.bench.benchmark import Benchmark, Workbench, Worked
from divergent.bench.binary import Confusion
from divergent.bench.cetbench.pairs import CetPair, read_pairs
from divergent.bench.common import Item, RunPlan, results_envelope, run_plan, stored_results
from divergent.bench.equibench.run import JudgeKind
from divergent.bench.equibench.verdicts import ExecutionResult, ExecutionVerdict, from_report, not_executable
from divergent.errors import DivergentError, InvalidArgument, LLMError, SignatureMismatch
from divergent.llm.chat import ChatModel, Usage
from divergent.llm.prompts import Templates
from divergent.records import Budget
from divergent.sandbox.limits import Limits
from divergent.store import RunRecord, Store

__all__ = ["CETBENCH", "KIND", "CetConfig", "CetJudge", "CetPrompt", "run_cetbench", "summarize", "summary_json"]

KIND = "bench-cetbench"
#: divergent's CETBench prompts
TEMPLATES = Templates("divergent.bench.cetbench")
BASIC_FORMAT = AnswerFormat(yes=("YES",), no=("NO",))
COT_FORMAT = AnswerFormat(yes=("FINAL_ANSWER_IS_YES",), no=("FINAL_ANSWER_IS_NO",))
CATEGORY_ORDER = ("id", "fe", "ne", "di")


class CetPrompt(StrEnum):
    BASIC = "basic"
    COT = "cot"

    @property
    def answer_format(self) -> AnswerFormat:
        return BASIC_FORMAT if self is CetPrompt.BASIC else COT_FORMAT

    @classmethod
    def parse(cls, text: str) -> CetPrompt:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InvalidArgument(f"--prompt {text!r}: choose basic or cot") from None


@dataclass(frozen=True)
class CetConfig:
    pairs: str
    judge: JudgeKind = JudgeKind.LLM
    prompt: CetPrompt = CetPrompt.BASIC
    samples: int = 1
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int = 0
    limit: int | None = None
    #: judge the unperturbed original pairs too
    originals: bool = False
    #: execution: seconds of search per pair
    budget: float = 5.0
    isolation: str | None = None
    digest: str = field(default="")

    @property
    def sampling_temperature(self) -> float:
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.samples == 1 else 1.0

    def parameters(self, model: str | None) -> dict[str, Any]:
        parameters: dict[str, Any] = {
            "pairs": str(Path(self.pairs).resolve()), "pairs_sha256": self.digest, "judge": self.judge.value,
            "seed": self.seed, "limit": self.limit, "originals": self.originals,
        }
        if self.judge.needs_model:
            parameters.update(model=model, prompt=self.prompt.value, samples=self.samples,
                              temperature=self.sampling_temperature, max_tokens=self.max_tokens)
        if self.judge is not JudgeKind.LLM:
            parameters["budget"] = self.budget
        return parameters


def _fenced(code: str) -> str:
    return f"```python\n{code.strip(chr(10))}\n```"


def cet_messages(pair: CetPair, prompt: CetPrompt) -> list[dict[str, str]]:
    content = TEMPLATES.render(prompt.value, program_1=_fenced(pair.program_1), program_2=_fenced(pair.program_2))
    return [{"role": "user", "content": content}]


def execute_cet_pair(pair: CetPair, budget: float, seed: int, isolation: str | None) -> ExecutionResult:
    """divergent.check on the pair's two functions (see the module docstring)."""
    import time

    from divergent.kinds.options import SearchOptions
    from divergent.load import fit_seeds, load_source, seeds_from_asserts
    from divergent.search import check

    if not all(pair.entry_points):
        return not_executable("no entry points recorded (stdin programs need the whole-program runner)")
    started = time.monotonic()
    try:
        implementations = [load_source(source, function=entry, label=f"program {n}")
                           for n, (source, entry) in enumerate(zip((pair.program_1, pair.program_2),
                                                                   pair.entry_points, strict=True), start=1)]
        seeds = fit_seeds(seeds_from_asserts(pair.tests, pair.entry_points[0]), implementations[0].signature) \
            if pair.tests and pair.entry_points[0] == pair.entry_points[1] else []
        options = SearchOptions(budget=Budget(seconds=budget), engines=("seeds", "mutation", "hypothesis"),
                                seeds=tuple(seeds), limits=Limits(), isolation=isolation, seed=seed)
        report = check(implementations, options, shrink=True)
    except SignatureMismatch as error:
        return not_executable(f"the functions cannot be called alike: {error}")
    except DivergentError as error:
        return not_executable(f"{type(error).__name__}: {error}")
    cx = report.counterexample
    witness = None if cx is None else {"input": cx.call, "outputs": [o.describe() for o in cx.outcomes]}
    return from_report(report, time.monotonic() - started, witness)


def _solve(pair: CetPair, original: bool, config: CetConfig, chat: ChatModel | None,
           extractor: ChatModel | None) -> dict[str, Any]:
    result: dict[str, Any] = {"pair_id": pair.pair_id, "original": original, "category": pair.category,
                              "flag": pair.flag, "k": pair.k, "kinds": list(pair.kinds), "truth": pair.equivalent}
    prediction: bool | None = None
    ask = config.judge is JudgeKind.LLM
    decided_by = config.judge.value
    if config.judge is not JudgeKind.LLM:
        executed = execute_cet_pair(pair, config.budget, config.seed, config.isolation)
        result["execution"] = executed.as_dict()
        prediction, decided_by = executed.prediction, "execution"
        ask = config.judge is JudgeKind.HYBRID and executed.verdict is not ExecutionVerdict.INEQUIVALENT
    if ask:
        if chat is None:
            raise InvalidArgument(f"--judge {config.judge.value} needs a model (--model)")
        judgement = judge(chat, cet_messages(pair, config.prompt), config.prompt.answer_format,
                          samples=config.samples, temperature=config.sampling_temperature,
                          max_tokens=config.max_tokens, extractor=extractor, seed=config.seed,
                          key=("original/" if original else "") + pair.pair_id)
        result["llm"] = judgement.as_dict()
        prediction, decided_by = judgement.equivalent, "llm"
    result["prediction"] = prediction
    result["decided_by"] = decided_by
    return result


def _original_of(pair: CetPair) -> CetPair:
    """The pair before its perturbations, labelled by its category (id and fe equivalent)."""
    return replace(pair, program_1=pair.original_1, program_2=pair.original_2,
                   equivalent=pair.category in ("id", "fe"), flag="", k=0, steps=())


@dataclass(frozen=True)
class CetJudge:
    """The solver: one (pair, is it the original) → its stored result; picklable for a Ray worker."""

    config: CetConfig
    chat: ChatModel | None = None
    extractor: ChatModel | None = None

    def __call__(self, item: tuple[CetPair, bool]) -> dict[str, Any]:
        return _solve(item[0], item[1], self.config, self.chat, self.extractor)


def run_cetbench(config: CetConfig, bench: Workbench) -> Worked:
    """Judge the pairs (resuming the stored run of the same parameters) on the workbench; its notes
    say how many lines of the pairs file could not be used."""
    if config.judge.needs_model and bench.chat is None:
        raise InvalidArgument(f"--judge {config.judge.value} needs a model: give --model (or use --judge execution)")
    pairs, problems = read_pairs(config.pairs)
    digest = hashlib.sha256(Path(config.pairs).read_bytes()).hexdigest()[:16]
    config = replace(config, digest=digest)
    chosen = pairs[: config.limit] if config.limit is not None else pairs
    dataset: list[Item[tuple[CetPair, bool]]] = [Item(p.pair_id, (p, False)) for p in chosen]
    if config.originals:
        usable = [p for p in chosen if p.original_1 and p.original_2]
        dataset += [Item(f"original/{p.pair_id}", (_original_of(p), True)) for p in usable]
    plan = RunPlan(KIND, config.parameters(bench.chat.model if bench.chat is not None else None), dataset,
                   CetJudge(config, *bench.served()), fatal=(LLMError,))
    worked = Worked(*run_plan(bench.store, plan, executor=bench.executor, on_progress=bench.on_progress))
    if problems:
        worked.notes.append(f"{len(problems)} line(s) of {config.pairs} could not be used")
    return worked


# -- metrics -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CetBreakdown:
    """Metrics of one set of pairs (the perturbed pairs, or their originals)."""

    overall: Confusion
    #: (category, flag) -> confusion, e.g. ("fe", "np")
    cells: dict[tuple[str, str], Confusion]
    by_k: dict[int, Confusion]
    by_kind: dict[str, Confusion]
    pairs: int
    coverage: float
    unparseable: int
    samples: int
    usage: Usage
    execution: dict[str, int]


def breakdown(results: Sequence[dict[str, Any]]) -> CetBreakdown:
    def decision(r: dict[str, Any]) -> tuple[bool, bool]:
        return (r["truth"], r["prediction"])

    decided = [r for r in results if r.get("prediction") is not None]
    cells: dict[tuple[str, str], Confusion] = {}
    by_k: dict[int, Confusion] = {}
    by_kind: dict[str, Confusion] = {}
    for r in decided:
        one = Confusion.of([decision(r)])
        key = (r["category"], r.get("flag") or "")
        cells[key] = cells.get(key, Confusion()) + one
        by_k[int(r.get("k", 0))] = by_k.get(int(r.get("k", 0)), Confusion()) + one
        for kind in r.get("kinds", []):
            by_kind[kind] = by_kind.get(kind, Confusion()) + one
    usage = Usage()
    unparseable = samples = 0
    execution: dict[str, int] = {}
    for r in results:
        llm = r.get("llm")
        if llm:
            usage += Usage(**{k: v for k, v in llm.get("usage", {}).items() if k in Usage.__dataclass_fields__})
            unparseable += int(llm.get("unparseable", 0))
            samples += len(llm.get("votes", []))
        if r.get("execution"):
            verdict = r["execution"].get("verdict", "")
            execution[verdict] = execution.get(verdict, 0) + 1
    return CetBreakdown(
        overall=Confusion.of([decision(r) for r in decided]), cells=cells, by_k=dict(sorted(by_k.items())),
        by_kind=dict(sorted(by_kind.items())), pairs=len(results),
        coverage=len(decided) / len(results) if results else 0.0, unparseable=unparseable, samples=samples,
        usage=usage, execution=execution,
    )


@dataclass(frozen=True)
class CetSummary:
    run: RunRecord
    perturbed: CetBreakdown
    originals: CetBreakdown | None
    results: tuple[dict[str, Any], ...]
    errors: dict[str, str]


def summarize(store: Store, run: RunRecord) -> CetSummary:
    """Every metric, from the stored items alone."""
    stored, errors = stored_results(store, run)
    perturbed = [r for r in stored.values() if not r.get("original")]
    originals = [r for r in stored.values() if r.get("original")]
    ordered = tuple(sorted(stored.values(), key=lambda r: (bool(r.get("original")), r["pair_id"])))
    return CetSummary(run, breakdown(perturbed), breakdown(originals) if originals else None, ordered, errors)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def breakdown_json(breakdown: CetBreakdown) -> dict[str, Any]:
    return {
        **breakdown.overall.as_dict(),
        "pairs": breakdown.pairs,
        "coverage": round(breakdown.coverage, 6),
        "cells": {f"{c}/{f}" if f else c: {"pairs": m.total, "accuracy": _rounded(m.accuracy)}
                  for (c, f), m in sorted(breakdown.cells.items(),
                                          key=lambda item: (CATEGORY_ORDER.index(item[0][0])
                                                            if item[0][0] in CATEGORY_ORDER else 9, item[0][1]))},
        "by_k": {str(k): {"pairs": m.total, "accuracy": _rounded(m.accuracy), "w_avg": _rounded(m.balanced_accuracy)}
                 for k, m in breakdown.by_k.items()},
        "by_type": {kind: {"pairs": m.total, "accuracy": _rounded(m.accuracy), "w_avg": _rounded(m.balanced_accuracy)}
                    for kind, m in breakdown.by_kind.items()},
        "unparseable": breakdown.unparseable,
        "samples": breakdown.samples,
        "execution": breakdown.execution,
        "usage": breakdown.usage.as_dict(),
    }


def summary_json(summary: CetSummary) -> dict[str, Any]:
    usage = summary.perturbed.usage + (summary.originals.usage if summary.originals else Usage())
    return results_envelope(
        "cetbench", summary.run,
        summary={"perturbed": breakdown_json(summary.perturbed),
                 "originals": breakdown_json(summary.originals) if summary.originals else None,
                 "errors": summary.errors},
        usage=usage.as_dict(),
        items=[{"key": ("original/" if r.get("original") else "") + r["pair_id"], **r} for r in summary.results],
    )



CETBENCH: Benchmark[CetConfig, CetSummary] = Benchmark(
    name="cetbench", title="CETBench", kinds=(KIND,), options=CetConfig, work=run_cetbench, summarize=summarize,
    document=summary_json, page="divergent.bench.cetbench.html:cetbench_page",
)
