"""An EquiBench run: pairs → a judge (a model, divergent's execution, or both) → stored items → metrics.

:func:`run_equibench` finds (or creates) the stored run of the same parameters, judges the pairs
not judged yet (on the workbench's executor) and saves each as it is done (:mod:`divergent.bench.common`);
:func:`summarize` computes every metric from the stored items alone, so a stored run can be
reported again without a model or a sandbox.

Judges:

* ``llm``: the model, with the chosen prompt style; answers parsed as :mod:`divergent.bench.answers`
  says; ``samples`` > 1 is self-consistency (majority vote);
* ``execution``: :mod:`divergent.bench.equibench.execution` (no model);
* ``hybrid``: execution first; the model is asked only where execution found no witness (no
  difference found, or not executable); a witness decides NO without a model call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from divergent.bench.answers import YES_NO, AnswerFormat, judge
from divergent.bench.benchmark import Benchmark, Workbench, Worked
from divergent.bench.binary import Confusion
from divergent.bench.common import Item, RunPlan, results_envelope, run_plan, stored_results
from divergent.bench.equibench.data import Category, EquiBenchData, Pair, load_equibench
from divergent.bench.equibench.execution import ExecutionSettings, ExecutionVerdict, execute_pair
from divergent.bench.equibench.prompts import (
    EquiBenchAuthorsPrompts,
    PromptStyle,
    build_messages,
    describe_prompts,
)
from divergent.errors import InvalidArgument, LLMError
from divergent.llm.chat import ChatModel, Usage
from divergent.store import RunRecord, Store

__all__ = ["EQUIBENCH", "KIND", "PAPER_BEST", "EquiBenchConfig", "JudgeKind", "PairJudge", "run_equibench", "summarize",
           "summary_json"]

KIND = "bench-equibench"

#: the best accuracy any model reached per category in the EquiBench paper (Table 2, 0-shot), in %
PAPER_BEST = {"DCE": "68.8", "CUDA": "59.0-62.3", "x86-64": "84.5", "OJ_A": "84.2", "OJ_V": "91.5", "OJ_VA": "83.2",
              "overall": "78.0"}


class JudgeKind(StrEnum):
    LLM = "llm"
    EXECUTION = "execution"
    HYBRID = "hybrid"

    @property
    def needs_model(self) -> bool:
        return self is not JudgeKind.EXECUTION

    @classmethod
    def parse(cls, text: str) -> JudgeKind:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InvalidArgument(f"--judge {text!r}: choose llm, execution or hybrid") from None


@dataclass(frozen=True)
class EquiBenchConfig:
    data: str
    categories: tuple[Category, ...] = tuple(Category)
    judge: JudgeKind = JudgeKind.LLM
    prompt: PromptStyle = PromptStyle.ZERO_SHOT
    samples: int = 1
    #: None: 0 for one sample, 1 for self-consistency
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int = 0
    #: only the first N pairs of each category
    limit: int | None = None
    execution: ExecutionSettings = field(default_factory=ExecutionSettings)
    #: the authors' prompts file (``--prompts``), read; None: divergent's prompts
    authors: EquiBenchAuthorsPrompts | None = None

    def __post_init__(self) -> None:
        if self.samples < 1:
            raise InvalidArgument(f"--samples {self.samples}: need at least 1")
        if self.limit is not None and self.limit < 1:
            raise InvalidArgument(f"--limit {self.limit}: need at least 1")

    @property
    def sampling_temperature(self) -> float:
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.samples == 1 else 1.0

    def parameters(self, model: str | None) -> dict[str, Any]:
        """What identifies a run (a rerun with the same parameters resumes it)."""
        parameters: dict[str, Any] = {
            "data": str(Path(self.data).resolve()),
            "categories": [c.value for c in self.categories],
            "judge": self.judge.value,
            "seed": self.seed,
            "limit": self.limit,
        }
        if self.judge.needs_model:
            parameters.update(
                model=model, prompt=self.prompt.value, samples=self.samples,
                temperature=self.sampling_temperature, max_tokens=self.max_tokens, **describe_prompts(self.authors),
            )
        if self.judge is not JudgeKind.LLM:
            parameters["execution"] = self.execution.as_dict()
        return parameters


def select_pairs(data: EquiBenchData, config: EquiBenchConfig) -> list[Pair]:
    chosen: list[Pair] = []
    for category in config.categories:
        pairs = data.by_category().get(category, [])
        chosen.extend(pairs[: config.limit] if config.limit is not None else pairs)
    return chosen


def solve_pair(pair: Pair, config: EquiBenchConfig, *, chat: ChatModel | None,
               extractor: ChatModel | None) -> dict[str, Any]:
    """One pair's stored result: truth, prediction (None: no prediction), and what decided it."""
    result: dict[str, Any] = {"category": pair.category.value, "pair_id": pair.pair_id, "truth": pair.equivalent}
    prediction: bool | None = None
    decided_by = config.judge.value
    ask_model = config.judge is JudgeKind.LLM
    if config.judge is not JudgeKind.LLM:
        executed = execute_pair(pair, config.execution)
        result["execution"] = executed.as_dict()
        prediction = executed.prediction
        decided_by = "execution"
        if config.judge is JudgeKind.HYBRID and executed.verdict is not ExecutionVerdict.INEQUIVALENT:
            ask_model = True
    if ask_model:
        if chat is None:
            raise InvalidArgument(f"--judge {config.judge.value} needs a model (--model)")
        authors = config.authors
        answer_format: AnswerFormat = authors.answer_format if authors is not None else YES_NO
        judgement = judge(
            chat, build_messages(pair, config.prompt, authors), answer_format,
            samples=config.samples, temperature=config.sampling_temperature, max_tokens=config.max_tokens,
            extractor=extractor, seed=config.seed, key=pair.key,
        )
        result["llm"] = judgement.as_dict()
        prediction = judgement.equivalent
        decided_by = "llm"
    result["prediction"] = prediction
    result["decided_by"] = decided_by
    return result


@dataclass(frozen=True)
class PairJudge:
    """The solver: one pair → its stored result (:func:`solve_pair`); picklable, so that a Ray
    worker can judge pairs (its model is then the executor's stand-in for the driver's)."""

    config: EquiBenchConfig
    chat: ChatModel | None = None
    extractor: ChatModel | None = None

    def __call__(self, pair: Pair) -> dict[str, Any]:
        return solve_pair(pair, self.config, chat=self.chat, extractor=self.extractor)


def run_equibench(config: EquiBenchConfig, bench: Workbench, *, data: EquiBenchData | None = None) -> Worked:
    """Run (or resume) the benchmark; every judged pair is in the store when this returns or is killed.

    The workbench's extractor reads verdicts the parser could not (default: the judge model itself);
    ``data``: the pairs, already loaded (default: read from ``config.data``)."""
    if config.judge.needs_model and bench.chat is None:
        raise InvalidArgument(f"--judge {config.judge.value} needs a model: give --model (or use --judge execution)")
    loaded = data if data is not None else load_equibench(config.data, config.categories)
    pairs = select_pairs(loaded, config)
    if not pairs:
        raise InvalidArgument(f"{config.data}: no pairs in the categories asked for")
    chat, extractor = bench.served()
    plan = RunPlan(KIND, config.parameters(bench.chat.model if bench.chat is not None else None),
                   [Item(pair.key, pair) for pair in pairs], PairJudge(config, chat, extractor), fatal=(LLMError,))
    return Worked(*run_plan(bench.store, plan, executor=bench.executor, on_progress=bench.on_progress))


# -- metrics from the stored items ---------------------------------------------------------------


@dataclass(frozen=True)
class CategorySummary:
    category: str
    pairs: int
    #: over the pairs that got a prediction
    confusion: Confusion
    #: pairs with a prediction / pairs
    coverage: float
    #: samples whose verdict could not be read (a coin decided) / samples
    unparseable: int
    samples: int
    usage: Usage
    #: execution verdicts counted (execution and hybrid judges)
    execution: dict[str, int]
    #: witnesses found on pairs labelled equivalent (should be none: a sign of a weaker definition
    #: or of nondeterminism)
    false_witnesses: int
    #: hybrid: pairs decided by execution alone
    decided_by_execution: int
    failed: int = 0


def _usage_of(data: dict[str, Any]) -> Usage:
    return Usage(**{k: v for k, v in data.items() if k in Usage.__dataclass_fields__})


def _category_summary(category: str, results: Sequence[dict[str, Any]], failed: int) -> CategorySummary:
    decisions = [(r["truth"], r["prediction"]) for r in results if r.get("prediction") is not None]
    usage = Usage()
    unparseable = samples = 0
    execution: dict[str, int] = {}
    false_witnesses = decided = 0
    for r in results:
        llm = r.get("llm")
        if llm:
            usage += _usage_of(llm.get("usage", {}))
            unparseable += int(llm.get("unparseable", 0))
            samples += len(llm.get("votes", []))
        executed = r.get("execution")
        if executed:
            verdict = executed.get("verdict", "")
            execution[verdict] = execution.get(verdict, 0) + 1
            if verdict == ExecutionVerdict.INEQUIVALENT.value and r["truth"]:
                false_witnesses += 1
        if r.get("decided_by") == "execution":
            decided += 1
    total = len(results) + failed
    return CategorySummary(
        category=category, pairs=total, confusion=Confusion.of(decisions),
        coverage=len(decisions) / total if total else 0.0, unparseable=unparseable, samples=samples,
        usage=usage, execution=execution, false_witnesses=false_witnesses, decided_by_execution=decided,
        failed=failed,
    )


@dataclass(frozen=True)
class EquiBenchSummary:
    run: RunRecord
    categories: tuple[CategorySummary, ...]
    overall: CategorySummary
    #: the mean of the categories' accuracies (the paper's "Overall": its categories are equal in size)
    mean_category_accuracy: float | None
    results: tuple[dict[str, Any], ...]
    errors: dict[str, str]


def summarize(store: Store, run: RunRecord) -> EquiBenchSummary:
    """Every metric, from the stored items alone (nothing runs)."""
    stored, errors = stored_results(store, run)
    order = run.parameters.get("categories") or [c.value for c in Category]
    by_category: dict[str, list[dict[str, Any]]] = {name: [] for name in order}
    for result in stored.values():
        by_category.setdefault(result["category"], []).append(result)
    failed_by_category: dict[str, int] = {}
    for key in errors:
        name = key.split("/", 1)[0]
        failed_by_category[name] = failed_by_category.get(name, 0) + 1
    categories = tuple(
        _category_summary(name, results, failed_by_category.get(name, 0))
        for name, results in by_category.items() if results or failed_by_category.get(name)
    )
    overall = _category_summary("overall", list(stored.values()), len(errors))
    accuracies = [c.confusion.accuracy for c in categories if c.confusion.accuracy is not None]
    mean = sum(accuracies) / len(accuracies) if accuracies else None
    ordered = tuple(sorted(stored.values(), key=lambda r: (order.index(r["category"]) if r["category"] in order
                                                           else len(order), _natural(r["pair_id"]))))
    return EquiBenchSummary(run, categories, overall, mean, ordered, errors)


def _natural(identifier: str) -> tuple[int, str]:
    return (int(identifier), "") if identifier.isdigit() else (1 << 62, identifier)


def _category_json(summary: CategorySummary) -> dict[str, Any]:
    return {
        "category": summary.category,
        **summary.confusion.as_dict(),
        "pairs": summary.pairs,
        "coverage": round(summary.coverage, 6),
        "unparseable": summary.unparseable,
        "unparseable_rate": round(summary.unparseable / summary.samples, 6) if summary.samples else None,
        "samples": summary.samples,
        "execution": summary.execution,
        "false_witnesses": summary.false_witnesses,
        "decided_by_execution": summary.decided_by_execution,
        "failed": summary.failed,
        "usage": summary.usage.as_dict(),
    }


def summary_json(summary: EquiBenchSummary) -> dict[str, Any]:
    """The ``--json`` document (:func:`divergent.bench.common.results_envelope`)."""
    return results_envelope(
        "equibench",
        summary.run,
        summary={
            "categories": [_category_json(c) for c in summary.categories],
            "overall": _category_json(summary.overall),
            "mean_category_accuracy": (round(summary.mean_category_accuracy, 6)
                                       if summary.mean_category_accuracy is not None else None),
            "errors": summary.errors,
        },
        usage=summary.overall.usage.as_dict(),
        items=[{"key": f"{r['category']}/{r['pair_id']}", **r} for r in summary.results],
    )



EQUIBENCH: Benchmark[EquiBenchConfig, EquiBenchSummary] = Benchmark(
    name="equibench", title="EquiBench", kinds=(KIND,), options=EquiBenchConfig, work=run_equibench,
    summarize=summarize, document=summary_json, page="divergent.bench.equibench.html:equibench_page",
)
