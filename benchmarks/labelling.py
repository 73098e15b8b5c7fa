"""Speed of the equality policy on incoherence-shaped rows: values_equal, outcomes_equal, class labels.

The rows look like a HumanEval reproduction's (``benchmarks/reproduce_difftrust.py``): per input,
the ground truth and 3 models x 10 samples (31 outcomes), a few behaviours per input, the equal
outcomes of one input one shared object (as the implementation matrix hands them out) except the
ground truth's, which runs separately. Values are of the kinds HumanEval returns: ints, floats,
bools, strings, lists, tuples, dicts, with exceptions and timeouts among them. Everything is drawn
from a fixed seed, so two versions of divergent time the same work.

Prints the best CPU milliseconds of several repeats, for the default policy and the DiffTrust one:
``values_equal`` on every (ground truth, other behaviour) pair of values, ``outcomes_equal`` on the
same pairs as outcomes, and :func:`~divergent.incoherence.run.class_labels` on the rows.

Usage: ``python benchmarks/labelling.py [--inputs 20000] [--repeat 7]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from divergent.incoherence.difftrust import DIFFTRUST_POLICY
from divergent.incoherence.run import class_labels
from divergent.policy import DEFAULT_POLICY
from divergent.records import ExceptionInfo, Outcome, OutcomeKind
from divergent.values import encode

CANDIDATES = 30


def value_of_kind(rng: random.Random, kind: int) -> Any:
    size = rng.randrange(0, 12)
    if kind == 0:
        return rng.randrange(-1000, 1000)
    if kind == 1:
        return rng.uniform(-100, 100)
    if kind == 2:
        return rng.random() < 0.5
    if kind == 3:
        return "".join(rng.choice("abcdef ") for _ in range(size))
    if kind == 4:
        return [rng.randrange(-50, 50) for _ in range(size)]
    if kind == 5:
        return (rng.randrange(10), rng.uniform(0, 1))
    if kind == 6:
        return {str(i): [rng.randrange(5)] for i in range(size)}
    return [[rng.randrange(9) for _ in range(3)] for _ in range(size)]


def returned(value: Any) -> Outcome:
    return Outcome(kind=OutcomeKind.RETURNED, value=encode(value), args_after=encode([[value], {}]))


def make_rows(inputs: int, seed: int = 0) -> list[list[Outcome]]:
    rng = random.Random(seed)
    rows = []
    for _ in range(inputs):
        kind = rng.randrange(8)
        truth = value_of_kind(rng, kind)
        behaviours = [returned(truth)]  # the candidates' right answer: equal to the truth, another object
        for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
            behaviours.append(returned(value_of_kind(rng, kind)))
        if rng.random() < 0.1:
            behaviours.append(Outcome(kind=OutcomeKind.RAISED, exception=ExceptionInfo("IndexError", "list index")))
        if rng.random() < 0.02:
            behaviours.append(Outcome(kind=OutcomeKind.TIMEOUT, detail="exceeded 0.5 s"))
        weights = [8.0] + [1.0] * (len(behaviours) - 1)
        rows.append([returned(truth), *rng.choices(behaviours, weights=weights, k=CANDIDATES)])
    return rows


def best_ms(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return 1000 * min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=7)
    options = parser.parse_args()
    rows = make_rows(options.inputs)
    pairs = []
    for row in rows:
        distinct = {id(outcome): outcome for outcome in row[1:]}
        pairs.extend((row[0], outcome) for outcome in distinct.values())
    values = [(a.value, b.value) for a, b in pairs if b.kind is OutcomeKind.RETURNED]
    print(f"{len(rows):,} rows of {CANDIDATES + 1} outcomes; {len(pairs):,} outcome pairs, {len(values):,} value pairs")
    print(f"{'policy':10} {'values_equal':>14} {'outcomes_equal':>16} {'class_labels':>14}   (best CPU ms of {options.repeat})")
    for name, policy in (("default", DEFAULT_POLICY), ("difftrust", DIFFTRUST_POLICY)):
        values_ms = best_ms(lambda p=policy: [p.values_equal(a, b) for a, b in values], options.repeat)
        outcomes_ms = best_ms(lambda p=policy: [p.outcomes_equal(a, b) for a, b in pairs], options.repeat)
        labels_ms = best_ms(lambda p=policy: class_labels(rows, p), options.repeat)
        print(f"{name:10} {values_ms:14.1f} {outcomes_ms:16.1f} {labels_ms:14.1f}")


if __name__ == "__main__":
    main()
