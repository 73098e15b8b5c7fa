"""A problem's validator or generator as one program: the suite's shared part, then the problem's own.

The contest suite (``contest/``) keeps what every validator and every generator starts with once:
``contest/strict_input.py`` (the strict reader a validator calls) and ``contest/random_input.py``
(a generator's seeded ``rng`` and ``pick``); each ``contest/<problem>/validator.py`` and ``gen.py``
holds only that problem's part. A search stages such a program alone (it sees no file beside it),
so what runs is the two joined into one file. A suite without the shared file (``program_pairs/``)
has whole programs, used as they are.

    python benchmarks/validators.py benchmarks/contest/cf104A [gen.py]   # the path to give --validator
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

#: each program of a problem, and the shared part before it (in the directory holding the problems)
SHARED = {"validator.py": "strict_input.py", "gen.py": "random_input.py"}
#: the suites whose problems use the contest suite's shared part (``atcoder/``, the second suite)
SHARING = ("atcoder",)
_JOINED = Path(tempfile.gettempdir()) / "divergent-benchmark-programs"


def program_text(problem: Path, name: str = "validator.py") -> str:
    """The whole program ``name`` of the problem directory ``problem``."""
    own = (problem / name).read_text(encoding="utf-8")
    shared = problem.parent / SHARED[name]
    if not shared.is_file() and problem.parent.name in SHARING:
        # a second suite of contest problems (atcoder/) shares the contest suite's reader and drawing
        shared = Path(__file__).resolve().parent / "contest" / SHARED[name]
    if not shared.is_file():
        return own
    return shared.read_text(encoding="utf-8") + "\n\n# -- " + problem.name + " --\n" + own


def standalone_program(problem: Path, name: str = "validator.py") -> Path:
    """A file holding :func:`program_text` (the problem's own file where it is whole)."""
    text = program_text(problem, name)
    own = problem / name
    if text == own.read_text(encoding="utf-8"):
        return own
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = _JOINED / problem.name / digest / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")  # two runs at once each write their own
        scratch.write_text(text, encoding="utf-8")
        scratch.replace(path)
    return path


def standalone_validator(problem: Path) -> Path:
    return standalone_program(problem, "validator.py")


if __name__ == "__main__":
    print(standalone_program(Path(sys.argv[1]).resolve(), sys.argv[2] if len(sys.argv) > 2 else "validator.py"))
