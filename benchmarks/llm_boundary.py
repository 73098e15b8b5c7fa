"""What the model layer costs a run that never asks the endpoint, and what the boundary holds against
a hostile one (issues 36 item 8 and 37).

    python benchmarks/llm_boundary.py [--runs 10] [--src DIR ...] [--json]

**Start-up** (each ``--src`` tree, alternating runs so each sees the same load; default: this
checkout's ``src``): in a fresh interpreter,

* ``import``: seconds to import ``divergent.llm.client`` (what a ``check --model`` loads), and
  whether that imported the ``openai`` SDK;
* ``cached call``: seconds to import it, build a client and answer one call from the response cache
  (what a rerun or a ``--replay`` pays for its model layer), and whether ``openai`` was imported.

Compare the code before and after a change with ``git archive <rev> src | tar -x -C /tmp/before``
and ``--src /tmp/before/src --src src``.

**Threats** (this checkout only): against the scripted loopback server of the tests, the wall
seconds of a call given 2 s when the answer drips a byte every 0.2 s and when the server answers
429 with ``Retry-After: 60``; the peak traced memory, the bytes the server managed to send and the
store's growth for a 300 MB answer announced by its length and for a 200 MB one that is not.
Medians over ``--runs``; results appended to ``results/llm_boundary.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

BENCHMARKS_DIR = Path(__file__).resolve().parent
ROOT = BENCHMARKS_DIR.parent
RESULTS = BENCHMARKS_DIR / "results" / "llm_boundary.jsonl"
sys.path.insert(0, str(ROOT / "tests"))

from scripted_openai import Reply, ScriptedOpenAI  # noqa: E402 - the tests' scripted server

QUESTION = [{"role": "user", "content": "Write a generator."}]

IMPORT = """
import sys, time
started = time.perf_counter()
import divergent.llm.client
print(time.perf_counter() - started, 'openai' in sys.modules)
"""

CACHED_CALL = f"""
import sys, time
started = time.perf_counter()
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
client = LLMClient(LLMSettings(model="scripted", base_url=sys.argv[1]))
assert client.complete({QUESTION!r}).cached
print(time.perf_counter() - started, 'openai' in sys.modules)
client.close()
"""

RECORD = f"""
import sys
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
with LLMClient(LLMSettings(model="scripted", base_url=sys.argv[1])) as client:
    client.complete({QUESTION!r})
"""


def run(src: Path, program: str, home: Path, *args: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(src), DIVERGENT_HOME=str(home), OPENAI_API_KEY="sk-benchmark")
    done = subprocess.run([sys.executable, "-c", program, *args], capture_output=True, text=True, env=env,
                          check=True, timeout=120)
    return done.stdout.split()


def startup(trees: list[Path], runs: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    with ScriptedOpenAI(lambda received: "an answer") as server, tempfile.TemporaryDirectory() as scratch:
        homes = {tree: Path(scratch) / f"home{index}" for index, tree in enumerate(trees)}
        for tree in trees:
            run(tree, RECORD, homes[tree], server.base_url)  # the cache the cached calls read
            run(tree, IMPORT, homes[tree])  # bytecode compiled before timing
        samples: dict[Path, dict[str, list[float]]] = {tree: {"import": [], "cached call": []} for tree in trees}
        sdk: dict[Path, dict[str, bool]] = {tree: {} for tree in trees}
        for _ in range(runs):
            for tree in trees:
                seconds, imported = run(tree, IMPORT, homes[tree])
                samples[tree]["import"].append(float(seconds))
                sdk[tree]["import"] = imported == "True"
                seconds, imported = run(tree, CACHED_CALL, homes[tree], server.base_url)
                samples[tree]["cached call"].append(float(seconds))
                sdk[tree]["cached call"] = imported == "True"
    for tree in trees:
        figures[str(tree)] = {
            name: {"median_seconds": round(statistics.median(values), 4), "min_seconds": round(min(values), 4),
                   "openai_imported": sdk[tree][name]}
            for name, values in samples[tree].items()
        }
    return figures


def threats(runs: int) -> dict[str, Any]:
    from divergent.errors import LLMError
    from divergent.llm.client import LLMClient
    from divergent.llm.config import LLMSettings
    from divergent.store import default_store_path

    figures: dict[str, Any] = {}
    cases = {
        "drip, 2 s given": Reply(text="x", drip=0.2, endless=True),
        "429 Retry-After 60, 2 s given": Reply(status=429, headers={"Retry-After": "60"}),
    }
    with tempfile.TemporaryDirectory() as home:
        os.environ.update(DIVERGENT_HOME=home, OPENAI_API_KEY="sk-benchmark")
        for name, reply in cases.items():
            walls = []
            for _ in range(runs):
                with ScriptedOpenAI(lambda received, reply=reply: reply) as server, \
                        LLMClient(LLMSettings(model="scripted", base_url=server.base_url)) as client:
                    server.script("warm")
                    client.complete([{"role": "user", "content": "warm up"}])
                    started = time.monotonic()
                    try:
                        client.complete(QUESTION, deadline=started + 2.0)
                    except LLMError:
                        pass
                    walls.append(time.monotonic() - started)
            figures[name] = {"median_seconds": round(statistics.median(walls), 3), "max_seconds": round(max(walls), 3)}
        for name, reply in {"300 MB answer, announced": Reply(text="x", padding=300_000_000),
                            "200 MB answer, unannounced": Reply(text="x", padding=200_000_000, unannounced=True)}.items():
            with ScriptedOpenAI(lambda received, reply=reply: reply) as server, \
                    LLMClient(LLMSettings(model="scripted", base_url=server.base_url)) as client:
                server.script("warm")
                client.complete([{"role": "user", "content": "warm up"}])
                store_before = default_store_path().stat().st_size
                tracemalloc.start()
                started = time.monotonic()
                try:
                    client.complete(QUESTION)
                    outcome = "answered"
                except LLMError as error:
                    outcome = str(error).split(": ", 2)[-1][:80]
                seconds = time.monotonic() - started
                peak = tracemalloc.get_traced_memory()[1]
                tracemalloc.stop()
                figures[name] = {
                    "outcome": outcome, "seconds": round(seconds, 3), "peak_traced_mib": round(peak / 2**20, 1),
                    "bytes_sent_mib": round(server.bytes_sent / 2**20, 1),
                    "store_growth_kib": round((default_store_path().stat().st_size - store_before) / 1024, 1),
                }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--src", type=Path, action="append", help="a source tree (repeatable); default: src")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    options = parser.parse_args()
    trees = [tree.resolve() for tree in (options.src or [ROOT / "src"])]
    figures = {"startup": startup(trees, options.runs), "threats": threats(max(1, options.runs // 3)),
               "runs": options.runs, "load": round(os.getloadavg()[0], 1), "when": time.strftime("%Y-%m-%d %H:%M")}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as results:
        results.write(json.dumps(figures) + "\n")
    if options.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"start-up (median of {options.runs} fresh interpreters, load {figures['load']}):")
    for tree, rows in figures["startup"].items():
        for name, row in rows.items():
            sdk = "imports openai" if row["openai_imported"] else "no openai"
            print(f"  {name:12s} {row['median_seconds'] * 1000:7.1f} ms (min {row['min_seconds'] * 1000:.1f})  "
                  f"{sdk:15s} {tree}")
    print("threats (this checkout):")
    for name, row in figures["threats"].items():
        print(f"  {name:32s} " + ", ".join(f"{key} {value}" for key, value in row.items()))


if __name__ == "__main__":
    main()
