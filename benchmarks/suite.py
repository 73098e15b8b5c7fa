"""The "engine power" suite: pairs of functions that should be equivalent, some of which are not.

Each pair lives in ``pairs/NAME/`` as ``a.py`` and ``b.py`` (both define ``meta["function"]``) and
``meta.json``::

    {"function": "clamp", "equivalent": false, "category": "float_special",
     "note": "where they differ", "witness": "clamp(float('nan'), 0.0, 1.0)"}

``witness`` is one input on which the sides behave differently, as a call expression (``null`` for
equivalent pairs). Used by ``baselines.py`` and ``engine_power.py``; run it to check the suite::

    python benchmarks/suite.py list [--suite pairs|heldout|all]
    python benchmarks/suite.py verify [--suite pairs|heldout|all] [--pairs NAME,...] [--fuzz-examples 3000]

``verify`` runs every witness on both sides in a child process and requires a difference, and throws
random inputs (biased towards NaN, -0.0, huge ints, unicode case traps, empty containers) at every
equivalent pair and requires none.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCHMARKS_DIR = Path(__file__).resolve().parent
PAIRS_DIR = BENCHMARKS_DIR / "pairs"
#: pairs written after the engines were tuned on ``pairs/``, for the generation classes the portfolio used to miss
#: (runs of one element, values near powers, negative arguments to recursion, hangs, slowness on
#: large values) and equivalent pairs CrossHair can prove
HELDOUT_DIR = BENCHMARKS_DIR / "heldout"
SUITES = {"pairs": PAIRS_DIR, "heldout": HELDOUT_DIR}
COMPARE_CALL_SCRIPT = BENCHMARKS_DIR / "compare_call.py"
STAGED_MODULE_A = "pair_a"
STAGED_MODULE_B = "pair_b"


@dataclass(frozen=True)
class Pair:
    name: str
    directory: Path
    function: str
    equivalent: bool
    category: str
    note: str
    witness: str | None

    @property
    def qualified_a(self) -> str:
        return f"{STAGED_MODULE_A}.{self.function}"

    @property
    def qualified_b(self) -> str:
        return f"{STAGED_MODULE_B}.{self.function}"


def load_pair(directory: Path) -> Pair:
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    return Pair(
        name=directory.name,
        directory=directory,
        function=meta["function"],
        equivalent=bool(meta["equivalent"]),
        category=meta["category"],
        note=meta.get("note", ""),
        witness=meta.get("witness"),
    )


def load_pairs(names: list[str] | None = None, suites: tuple[str, ...] = ("pairs",)) -> list[Pair]:
    """All pairs of the suites (``pairs``, ``heldout``) in name order, or the named ones (unknown
    names are an error)."""
    available = {
        path.name: path
        for suite in suites
        for path in sorted(SUITES[suite].iterdir())
        if (path / "meta.json").is_file()
    }
    if names is None:
        return [load_pair(path) for path in available.values()]
    unknown = [name for name in names if name not in available]
    if unknown:
        raise SystemExit(f"unknown pair(s): {', '.join(unknown)}")
    return [load_pair(available[name]) for name in names]


def parse_pair_names(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [name.strip() for name in text.split(",") if name.strip()]


def stage_pair(pair: Pair, destination: Path) -> None:
    """Copy the two sides into ``destination`` as importable ``pair_a.py`` and ``pair_b.py``."""
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(pair.directory / "a.py", destination / f"{STAGED_MODULE_A}.py")
    shutil.copyfile(pair.directory / "b.py", destination / f"{STAGED_MODULE_B}.py")


def _run_compare_child(pair: Pair, extra_args: list[str], timeout: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"divergent-pair-{pair.name}-") as staged:
        stage_pair(pair, Path(staged))
        command = [sys.executable, str(COMPARE_CALL_SCRIPT), staged, pair.function, *extra_args]
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=staged)
        except subprocess.TimeoutExpired:
            return {"differs": None, "error": f"no answer within {timeout:g} s"}
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        return {"differs": None, "error": f"exit {completed.returncode}: {completed.stderr.strip()[-500:]}"}
    return json.loads(lines[-1])


def compare_on_call(pair: Pair, call: str, timeout: float = 60.0) -> dict[str, Any]:
    """Run both sides on the input written as ``call``: ``{"differs": bool | None, "a": ..., "b": ...}``."""
    return _run_compare_child(pair, ["--call", call], timeout)


def fuzz_pair(pair: Pair, examples: int, seed: int = 0, timeout: float = 600.0) -> dict[str, Any]:
    return _run_compare_child(pair, ["--fuzz", str(examples), "--seed", str(seed)], timeout)


def verify(pairs: list[Pair], fuzz_examples: int) -> int:
    problems = 0
    for pair in pairs:
        if pair.equivalent:
            answer = fuzz_pair(pair, fuzz_examples)
            ok = answer.get("differs") is False
            detail = f"no difference in {answer.get('examples')} random inputs" if ok else json.dumps(answer)
        elif pair.witness is None:
            ok, detail = False, "inequivalent pair without a witness"
        else:
            answer = compare_on_call(pair, pair.witness)
            ok = answer.get("differs") is True
            detail = (
                f"{pair.witness}: a {answer.get('a')} | b {answer.get('b')}" if ok else json.dumps(answer)
            )
        problems += not ok
        kind = "equivalent  " if pair.equivalent else "inequivalent"
        print(f"{'ok  ' if ok else 'FAIL'} {kind} {pair.name}: {detail}", flush=True)
    print(f"{len(pairs) - problems} of {len(pairs)} pairs verified")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description="List or verify the engine power suite.")
    parser.add_argument("command", choices=["list", "verify"])
    parser.add_argument("--pairs", help="comma-separated pair names (default: all)")
    parser.add_argument("--fuzz-examples", type=int, default=3000, help="random inputs per equivalent pair")
    parser.add_argument("--suite", choices=[*SUITES, "all"], default="pairs", help="which pairs (default: pairs/)")
    options = parser.parse_args()
    suites = tuple(SUITES) if options.suite == "all" else (options.suite,)
    pairs = load_pairs(parse_pair_names(options.pairs), suites)
    if options.command == "list":
        for pair in pairs:
            verdict = "equivalent" if pair.equivalent else "differs"
            print(f"{pair.name:32} {verdict:10} {pair.category:22} {pair.function}")
        inequivalent = sum(not pair.equivalent for pair in pairs)
        print(f"{len(pairs)} pairs: {inequivalent} inequivalent, {len(pairs) - inequivalent} equivalent")
        return 0
    return verify(pairs, options.fuzz_examples)


if __name__ == "__main__":
    sys.exit(main())
