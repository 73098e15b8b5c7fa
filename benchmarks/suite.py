"""The "engine power" suite: pairs of functions that should be equivalent, some of which are not.

Each pair lives in ``pairs/NAME/`` as ``a.py`` and ``b.py`` (both define ``meta["function"]``) and
``meta.json``::

    {"function": "clamp", "equivalent": false, "category": "float_special",
     "note": "where they differ", "witness": "clamp(float('nan'), 0.0, 1.0)"}

``witness`` is one input on which the sides behave differently, as a call expression (``null`` for
equivalent pairs). Used by ``baselines.py`` and ``engine_power.py``; run it to check the suite::

    python benchmarks/suite.py list [--suite pairs|heldout|realbugs|all]
    python benchmarks/suite.py verify [--suite pairs|heldout|realbugs|all] [--pairs NAME,...] [--fuzz-examples 3000]
    python benchmarks/suite.py materialize --suite realbugs [--mirrors /work/.mirror]

``realbugs/`` keeps no code in this repository: its ``a.py``/``b.py`` are copies of the projects' own
code, so each ``meta.json`` records where they come from (repository, commits, paths, the top-level
names copied) and ``materialize`` re-extracts them from git clones of the projects
(``MIRRORS/owner+name/repo``, read with ``git show``; see ``realbugs_extract.py``) into the pair
directories, where they are gitignored. Run it once per checkout before anything reads the pairs.

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

from realbugs_extract import build_side, mirror_of

BENCHMARKS_DIR = Path(__file__).resolve().parent
PAIRS_DIR = BENCHMARKS_DIR / "pairs"
#: pairs written after the engines were tuned on ``pairs/``, for the generation classes the portfolio used to miss
#: (runs of one element, values near powers, negative arguments to recursion, hangs, slowness on
#: large values) and equivalent pairs CrossHair can prove
HELDOUT_DIR = BENCHMARKS_DIR / "heldout"
#: real bugs and real refactorings of well-known pure-Python libraries, copied verbatim from their
#: history (unannotated functions keep no annotations; see ``realbugs/CANDIDATES.md``)
REALBUGS_DIR = BENCHMARKS_DIR / "realbugs"
SUITES = {"pairs": PAIRS_DIR, "heldout": HELDOUT_DIR, "realbugs": REALBUGS_DIR}
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
    #: parameter -> type (as source text) of the arguments the witness passes, for tools that need
    #: types and get no annotations from the code (``realbugs/``); None where the annotations serve
    arg_types: dict[str, str] | None = None

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
        arg_types=meta.get("arg_types"),
    )


def load_pairs(names: list[str] | None = None, suites: tuple[str, ...] = ("pairs",)) -> list[Pair]:
    """All pairs of the suites (``pairs``, ``heldout``, ``realbugs``) in name order, or the named ones (unknown
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


def missing_sides(pairs: list[Pair]) -> list[Path]:
    """The ``a.py``/``b.py`` files of ``pairs`` that are not there (``realbugs/`` before ``materialize``)."""
    return [side for pair in pairs for side in (pair.directory / "a.py", pair.directory / "b.py") if not side.is_file()]


def require_sides(pairs: list[Pair]) -> None:
    """Stop with the command to run when some pair's code has not been materialized."""
    missing = missing_sides(pairs)
    if missing:
        raise SystemExit(
            f"{len(missing)} side file(s) not materialized (first: {missing[0].relative_to(BENCHMARKS_DIR)}); the "
            "realbugs/ code is not committed: run `python benchmarks/suite.py materialize --suite realbugs "
            "--mirrors /work/.mirror` first (git clones of the projects as MIRRORS/owner+name/repo)"
        )


def materialize(pairs: list[Pair], mirrors: Path) -> int:
    """Write every ``realbugs/`` pair's ``a.py``/``b.py`` from the git clones under ``mirrors``."""
    problems = written = 0
    for pair in pairs:
        meta = json.loads((pair.directory / "meta.json").read_text(encoding="utf-8"))
        if "provenance" not in meta:
            continue  # a pair written for these suites: its code is committed
        written += 1
        git_dir = mirror_of(mirrors, meta)
        try:
            for side in ("a", "b"):
                (pair.directory / f"{side}.py").write_text(build_side(str(git_dir), meta, side), encoding="utf-8")
        except (subprocess.CalledProcessError, OSError) as error:
            problems += 1
            written -= 1
            detail = error.stderr.strip() if isinstance(error, subprocess.CalledProcessError) else str(error)
            print(f"FAIL {pair.name}: {git_dir}: {detail}", file=sys.stderr)
    print(f"materialized {written} of {written + problems} pairs from {mirrors}")
    if problems:
        print("a missing clone: fetch github:owner/name with the search tool, then rerun", file=sys.stderr)
    return 1 if problems else 0


def parse_pair_names(text: str | None) -> list[str] | None:
    if not text:
        return None
    return [name.strip() for name in text.split(",") if name.strip()]


def stage_pair(pair: Pair, destination: Path) -> None:
    """Copy the two sides into ``destination`` as importable ``pair_a.py`` and ``pair_b.py``."""
    require_sides([pair])
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
    types = ["--types", json.dumps(pair.arg_types)] if pair.arg_types else []
    return _run_compare_child(pair, ["--fuzz", str(examples), "--seed", str(seed), *types], timeout)


def verify(pairs: list[Pair], fuzz_examples: int) -> int:
    require_sides(pairs)
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
    parser = argparse.ArgumentParser(description="List, verify or materialize the pair suites.")
    parser.add_argument("command", choices=["list", "verify", "materialize"])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"),
                        help="git clones as DIR/owner+name/repo (materialize)")
    parser.add_argument("--pairs", help="comma-separated pair names (default: all)")
    parser.add_argument("--fuzz-examples", type=int, default=3000, help="random inputs per equivalent pair")
    parser.add_argument("--suite", choices=[*SUITES, "all"],
                        help="which pairs (default: pairs/, realbugs/ for materialize)")
    options = parser.parse_args()
    options.suite = options.suite or ("realbugs" if options.command == "materialize" else "pairs")
    suites = tuple(SUITES) if options.suite == "all" else (options.suite,)
    pairs = load_pairs(parse_pair_names(options.pairs), suites)
    if options.command == "list":
        for pair in pairs:
            verdict = "equivalent" if pair.equivalent else "differs"
            print(f"{pair.name:32} {verdict:10} {pair.category:22} {pair.function}")
        inequivalent = sum(not pair.equivalent for pair in pairs)
        print(f"{len(pairs)} pairs: {inequivalent} inequivalent, {len(pairs) - inequivalent} equivalent")
        return 0
    if options.command == "materialize":
        return materialize(pairs, options.mirrors)
    return verify(pairs, options.fuzz_examples)


if __name__ == "__main__":
    sys.exit(main())
