"""What the LLM engine costs per disproof: model calls, tokens, wall time, and its own overhead.

Runs ProbeGen (Decreasing, K = 3, D = 4, the paper's choice) on every inequivalent pair of the
engine-power suite (``pairs/``, see ``suite.py``) against a **scripted** model: the real client
talks HTTP to the scripted OpenAI-compatible server of ``tests/scripted_openai.py``, which answers
like the paper's Appx. D trajectories:

* turn 1 (no feedback yet): a generator of *plausible* inputs, built from the signature alone
  (small ints, short ASCII words, short lists: what a model writes before it has looked hard);
* after feedback: a targeted generator yielding the pair's **witness** (``meta.json``), standing in
  for the model's second guess. So the figures say what the machinery costs when the model finds
  the difference on its second turn; they say nothing about how often a real model would.

Per pair it reports the calls and tokens until the first differentiating probe, the wall time of
the tree search, the model's own latency (tiny here: a local server), and the **overhead per
turn**: everything but the model — extracting the code, running the generator in the sandbox,
checking the inputs, running them on every implementation, writing the feedback and storing the
node. A second figure runs ``check(engines="llm")`` end to end (search loop, confirmation on fresh
workers, no shrinking). Results go to ``results/llm_engine.jsonl``::

    python benchmarks/llm_engine.py [--pairs NAME,...] [--limit N] [--no-check]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCHMARKS_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS_DIR))
sys.path.insert(0, str(BENCHMARKS_DIR.parent / "tests"))

from divergent.llm.client import LLMClient  # noqa: E402
from divergent.llm.config import LLMSettings  # noqa: E402
from divergent.load import load_implementation  # noqa: E402
from divergent.probegen.session import ProbeGenSession  # noqa: E402
from divergent.probegen.strategies import max_calls  # noqa: E402
from divergent.programs import Signature  # noqa: E402
from scripted_openai import Received, ScriptedOpenAI  # noqa: E402
from suite import Pair, load_pairs, parse_pair_names  # noqa: E402

RESULTS = BENCHMARKS_DIR / "results" / "llm_engine.jsonl"
STRATEGY, K, D = "decreasing", 3, 4

#: what a model proposes before it has looked hard: tame values per annotation
PLAUSIBLE: dict[str, list[str]] = {
    "int": ["3", "10"],
    "float": ["1.5", "2.0"],
    "str": ["'abc'", "'Hello world'"],
    "bytes": ["b'abc'", "b'hello'"],
    "bool": ["True", "False"],
    "list[int]": ["[3, 1, 2]", "[5, 5, 8, 13]"],
    "list[str]": ["['a', 'b']", "['hello', 'world']"],
    "list[float]": ["[1.5, 2.5]", "[0.5]"],
    "dict[str, int]": ["{'a': 1, 'b': 2}", "{'x': 10}"],
    "tuple[int, int]": ["(1, 2)", "(3, 4)"],
}


def plausible_generator(signature: Signature) -> str:
    """Turn 1: two calls made of tame values (the first and the second choice for every parameter)."""
    lines = ["def create_fn_inputs():"]
    for choice in (0, 1):
        args = []
        for parameter in signature.required:
            options = PLAUSIBLE.get((parameter.annotation_source or "").replace(" ", "").replace(",", ", "))
            args.append(options[choice] if options else ("1" if choice == 0 else "2"))
        lines.append(f"    yield {{'args': [{', '.join(args)}], 'kwargs': {{}}}}")
    return "\n".join(lines) + "\n"


def targeted_generator(pair: Pair) -> str:
    """After feedback: the witness call, rewritten as a generator (the model's "second guess")."""
    assert pair.witness is not None
    call = pair.witness.strip()
    inner = call[call.index("(") + 1 : call.rindex(")")]
    return (
        "def create_fn_inputs():\n"
        "    def call(*args, **kwargs):\n"
        "        return {'args': list(args), 'kwargs': kwargs}\n"
        f"    yield call({inner})\n"
    )


def fenced(prose: str, code: str) -> str:
    return f"{prose}\n\n```python\n{code}```\n"


def responder_for(pair: Pair, signature: Signature):
    first = fenced("The versions look alike; I start with ordinary inputs.", plausible_generator(signature))
    second = fenced(f"The feedback shows ordinary inputs agree. Looking closer: {pair.note}", targeted_generator(pair))

    def respond(received: Received) -> str:
        if "DIFFERENCES" in received.prompt:
            return "RATIONALE: a real difference\nDIFFERENCES: IMPORTANT"
        return first if len(received.messages) <= 2 else second

    return respond


def run_pair(pair: Pair, store_dir: Path, end_to_end: bool) -> dict[str, Any]:
    impls = [
        load_implementation(str(pair.directory / f"{side}.py"), function=pair.function) for side in ("a", "b")
    ]
    signature = impls[0].signature
    row: dict[str, Any] = {"pair": pair.name, "strategy": STRATEGY, "K": K, "D": D}
    with ScriptedOpenAI(responder_for(pair, signature)) as server:
        settings = LLMSettings(model="scripted-appx-d", base_url=server.base_url, cache=False, max_retries=0)
        with LLMClient(settings, store=store_dir / "cache.sqlite3") as chat:
            started = time.perf_counter()
            with ProbeGenSession(impls, chat=chat, store=store_dir / "runs.sqlite3") as session:
                result = session.search(strategy=STRATEGY, k=K, d=D)
                nodes = list(session.root.walk())[1:]
            wall = time.perf_counter() - started
            model_seconds = sum(node.usage.seconds for node in nodes)
            row.update(
                found=result.found is not None,
                found_at=result.found.path if result.found else None,
                calls=result.calls,
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                search_seconds=round(wall, 3),
                model_seconds=round(model_seconds, 3),
                overhead_per_turn=round((wall - model_seconds) / max(1, result.calls), 3),
                generator_seconds=round(
                    statistics.mean(n.generator["seconds"] for n in nodes if n.generator) if nodes else 0.0, 3
                ),
            )
        if end_to_end:
            from divergent.search import check

            with LLMClient(settings, store=store_dir / "cache.sqlite3") as chat:
                started = time.perf_counter()
                report = check(impls, engines="llm", llm=chat, budget=60.0, shrink=False)
                row.update(
                    check_found=report.divergent,
                    check_engine=report.counterexample.engine if report.counterexample else None,
                    check_seconds=round(time.perf_counter() - started, 3),
                    check_calls=(report.llm or {}).get("calls"),
                )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", help="comma-separated pair names (default: every inequivalent pair)")
    parser.add_argument("--limit", type=int, help="only the first N pairs")
    parser.add_argument("--no-check", action="store_true", help="skip the end-to-end check() figure")
    options = parser.parse_args()
    pairs = [p for p in load_pairs(parse_pair_names(options.pairs)) if not p.equivalent and p.witness]
    if options.limit:
        pairs = pairs[: options.limit]
    print(f"ProbeGen {STRATEGY} K={K} D={D} (at most {max_calls(STRATEGY, K, D)} calls) on {len(pairs)} pairs;")
    print("scripted model: turn 1 = plausible inputs from the signature, turn 2+ = the pair's witness "
          "(meta.json) as the model's second guess.\n")
    rows = []
    with tempfile.TemporaryDirectory(prefix="divergent-llm-bench-") as home:
        os.environ["DIVERGENT_HOME"] = home
        os.environ.setdefault("OPENAI_API_KEY", "sk-benchmark-not-a-key")
        header = f"{'pair':30} {'found':>6} {'calls':>5} {'tokens':>7} {'search s':>8} {'turn ovh s':>10} {'check s':>7}"
        print(header)
        print("-" * len(header))
        for pair in pairs:
            row = run_pair(pair, Path(home), not options.no_check)
            rows.append(row)
            tokens = row["prompt_tokens"] + row["completion_tokens"]
            check_seconds = f"{row['check_seconds']:7.2f}" if "check_seconds" in row else "      -"
            print(f"{pair.name:30} {row['found_at'] or 'no':>6} {row['calls']:5d} {tokens:7d} "
                  f"{row['search_seconds']:8.2f} {row['overhead_per_turn']:10.3f} {check_seconds}", flush=True)
    found = [r for r in rows if r["found"]]
    print()
    if found:
        print(f"disproved {len(found)}/{len(rows)}; per disproof: "
              f"calls mean {statistics.mean(r['calls'] for r in found):.2f}, "
              f"tokens mean {statistics.mean(r['prompt_tokens'] + r['completion_tokens'] for r in found):,.0f}, "
              f"search wall mean {statistics.mean(r['search_seconds'] for r in found):.2f} s")
        overheads = [r["overhead_per_turn"] for r in rows]
        print(f"engine overhead per turn (all but model latency): median {statistics.median(overheads):.3f} s, "
              f"max {max(overheads):.3f} s; generator run alone: median "
              f"{statistics.median(r['generator_seconds'] for r in rows):.3f} s")
        checks = [r["check_seconds"] for r in rows if r.get("check_found")]
        if checks:
            print(f"check(engines='llm') end to end (confirmation, no shrinking): found {len(checks)}/{len(rows)}, "
                  f"median {statistics.median(checks):.2f} s")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("w", encoding="utf-8") as stream:
        for row in rows:
            stream.write(json.dumps(row) + "\n")
    print(f"\nwrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
