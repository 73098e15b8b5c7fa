"""REFUTE on the shipped corpus (examples/refute/corpus.jsonl): divergent without a model, and every
model strategy driven through the loopback OpenAI-compatible server with scripted answers.

What it measures, honestly:

* ``divergent`` (no model): the share of the corpus's wrong solutions its search refutes (a valid
  input, judged by the same success rule as every strategy) within ``--budget`` seconds per
  problem, and the time per problem. The paper's best model refuted under 9% of REFUTE's 324 rows;
  this corpus is ours (24 problems in the style of Codeforces Div. 2 B-D, some easy for a fuzzer),
  so the figures are not comparable row for row: they say what the search does on bugs of the
  kinds REFUTE holds (overflow, off-by-one, state not reset, wrong greedy, precision, missing edge
  case), and which kinds it misses.
* the model strategies with two scripts: **right** answers (each answer holds the problem's known
  counterexample in the strategy's own format: a printer, a generator, a brute-force solver...)
  and **naive** answers (the sample input printed back). These do not measure a model: they check
  that the harness credits every strategy's right answer (expected 100%), never credits the sample
  (expected 0%), and show its overhead per problem (sandboxed builds, validator, repeats, stress
  loops). Real model figures need ``divergent bench refute --model M``.

Every run is stored (a private store under ``--home``); ``--fresh`` starts over. Run::

    PYTHONPATH=src .venv/bin/python benchmarks/refute.py --budget 30 --jobs 1
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))  # the loopback server

from divergent.bench.refute.dataset import RefuteData, RefuteTask, load_refute  # noqa: E402
from divergent.bench.refute.execution import open_code_runner  # noqa: E402
from divergent.bench.refute.report import results_document  # noqa: E402
from divergent.bench.refute.run import run_refute  # noqa: E402
from divergent.bench.refute.strategies import Context, parse_strategies  # noqa: E402
from divergent.llm.client import LLMClient  # noqa: E402
from divergent.llm.config import LLMSettings  # noqa: E402
from divergent.store import Store  # noqa: E402
from scripted_openai import Received, ScriptedOpenAI  # noqa: E402

CORPUS = HERE.parent / "examples" / "refute" / "corpus.jsonl"
MODEL_STRATEGIES = ("zero-shot", "few-shot", "zero-shot-oracle", "agent", "randsearch", "randsearch-oracle", "hybrid")


def action(name: str, code: str, lang: str = "Python 3") -> str:
    return f"<action>\n<name>{name}</name>\n<code>\n{code}\n</code>\n<lang>{lang}</lang>\n</action>"


def printer_of(text: str) -> str:
    return f"import sys\nsys.stdout.write({text!r})\n"


def answers(tasks: list[RefuteTask], right: bool) -> Callable[[Received], str]:
    """A responder that finds the task in the prompt and answers for the strategy the prompt is of."""
    by_statement = {task.statement.strip(): task for task in tasks}

    def respond(request: Received) -> str:
        prompt = request.prompt
        task = next((t for s, t in by_statement.items() if s in prompt), None)
        if task is None:
            return "I cannot tell which problem this is."
        printer = task.metadata["fail_printer"] if right else printer_of(task.example_input)
        system = request.messages[0]["content"]
        if "solve_brute" in system:  # randsearch: the correct code stands in for a brute-force solver
            language = "C++ 23" if task.correct_language == "C++" else "Python 3"
            return action("solve_brute", task.correct_code or "", language) + "\n" + action("generate_tc", printer)
        if "generate_tc" in system:  # randsearch-oracle, hybrid
            return action("generate_tc", printer)
        if "run_code" in system and len(request.messages) == 2:  # the agent runs code once first
            return action("run_code", "print(len(input()))") + "\n" + action("input_print", printer)
        return "<reason>scripted</reason>\n" + action("print_fail_case", printer)

    return respond


def summarize(document: dict, tasks: list[RefuteTask]) -> list[dict]:
    rows = []
    for entry in document["summary"]["strategies"]:
        units = [a for a in document["items"] if a["strategy"] == entry["name"]]
        rows.append({
            "strategy": entry["name"],
            "solved": len(entry["solved"]),
            "problems": entry["problems"],
            "success": entry["success_rate"],
            "statuses": {k: v for k, v in entry["statuses"].items() if v},
            "median_seconds": statistics.median(u["seconds"] for u in units) if units else None,
            "mean_seconds": entry["seconds_per_problem"],
            "missed": sorted({t.problem_id for t in tasks} - set(entry["solved"])),
        })
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=CORPUS)
    parser.add_argument("--budget", type=float, default=30.0, help="divergent's search per problem (s)")
    parser.add_argument("--loop-seconds", type=float, default=10.0, help="RandSearch's stress loop (s)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--strategies", default="divergent," + ",".join(MODEL_STRATEGIES))
    parser.add_argument("--home", type=Path, default=HERE / "results" / "refute-home")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "refute.json")
    options = parser.parse_args()
    if options.fresh and options.home.exists():
        shutil.rmtree(options.home)
    options.home.mkdir(parents=True, exist_ok=True)
    os.environ["DIVERGENT_HOME"] = str(options.home)
    os.environ.setdefault("OPENAI_API_KEY", "sk-scripted-not-a-key")
    data = load_refute(options.data)
    tasks = data.select(None, options.limit)
    chosen = parse_strategies(options.strategies)
    runner = open_code_runner()
    results: dict[str, list[dict]] = {}
    started = time.monotonic()
    try:
        with Store(options.home / "runs.sqlite3") as store:
            offline = [s for s in chosen if not s.needs_model]
            if offline:
                context = Context(runner=runner, search_seconds=options.budget, loop_seconds=options.loop_seconds)
                result = run_refute(store, RefuteData(tasks=tasks), offline, context, digest="corpus",
                                    jobs=options.jobs)
                document = results_document(store, result, model=None, parameters={})
                results["no model"] = summarize(document, tasks)
            scripted = [s for s in chosen if s.needs_model]
            for script in ("right", "naive") if scripted else ():
                with ScriptedOpenAI(answers(tasks, script == "right")) as server, tempfile.TemporaryDirectory() as cache:
                    settings = LLMSettings(model=f"scripted-{script}", base_url=server.base_url, max_retries=0,
                                           cache=True)
                    with LLMClient(settings, store=Path(cache) / "cache.db") as chat:
                        context = Context(runner=runner, chat=chat, search_seconds=options.budget,
                                          loop_seconds=options.loop_seconds)
                        result = run_refute(store, RefuteData(tasks=tasks), scripted, context,
                                            digest=f"corpus-{script}", jobs=options.jobs)
                        document = results_document(store, result, model=settings.model, parameters={})
                results[f"scripted {script}"] = summarize(document, tasks)
    finally:
        runner.close()
    elapsed = time.monotonic() - started
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps({"budget": options.budget, "problems": len(tasks), "seconds": elapsed,
                                       "results": results}, indent=2) + "\n")
    print(f"REFUTE harness on {options.data.name}: {len(tasks)} problems, search budget {options.budget:g} s, "
          f"{elapsed:.0f} s in all\n")
    print(f"{'answers':<16} {'strategy':<18} {'refuted':>9} {'median s':>9} {'mean s':>8}  statuses / missed")
    for label, rows in results.items():
        for row in rows:
            median = "—" if row["median_seconds"] is None else f"{row['median_seconds']:.1f}"
            mean = "—" if row["mean_seconds"] is None else f"{row['mean_seconds']:.1f}"
            print(f"{label:<16} {row['strategy']:<18} {row['solved']:>4}/{row['problems']:<4} {median:>9} {mean:>8}  "
                  f"{row['statuses']}" + (f" missed: {' '.join(row['missed'])}" if label == "no model" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
