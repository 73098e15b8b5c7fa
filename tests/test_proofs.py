"""Proven equivalent: when CrossHair's exploration of every path counts as a proof, and how it is reported."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import divergent
from divergent.engines.calls.proofs import proof_problem
from divergent.policy import DEFAULT_POLICY
from divergent.programs import Parameter, PythonFunction, Signature
from divergent.records import Budget, ExitReason, Verdict

ROOT = Path(__file__).resolve().parents[1]

SIGN_A = "def sign(x: int) -> int:\n    return (x > 0) - (x < 0)\n"
SIGN_B = "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    if x < 0:\n        return -1\n    return 0\n"


def write(directory: Path, name: str, source: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def impl(source: str) -> PythonFunction:
    return PythonFunction(label="a.py", entry_point="f", source=textwrap.dedent(source),
                          signature=Signature(parameters=()), path=None, module_name="a", sys_path=())


def signature(annotation: object) -> Signature:
    return Signature(parameters=(Parameter(name="x", annotation_source="t", annotation=annotation),))


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("def f(x: int) -> int:\n    return x // 2\n", None),
        ("MOD = 10 ** 9 + 7\ndef g(v):\n    return v % MOD\ndef f(x: int) -> int:\n    return max(g(x), 0) ** 2\n", None),
        ("from typing import Optional\ndef f(x: Optional[int]) -> int:\n    return 0 if x is None else x.bit_length()\n",
         None),
        ("def f(x: int) -> int:\n    seen = {}\n    for i in range(3):\n        seen[i] = seen.get(i, 0) + x\n"
         "    return sum(seen.values())\n", None),
        ("from functools import lru_cache\n@lru_cache\ndef f(x: int) -> int:\n    return x ** 2\n", "imports functools"),
        ("def f(x: int) -> int:\n    return x ** 2\ndef g(x: int) -> int:\n    return f(x)\nf = g\n", "not a constant"),
        ("def f(x: int) -> float:\n    return x / 2\n", "divides"),
        ("def f(x: int) -> float:\n    return x * 0.5\n", "0.5"),
        ("def f(x: int) -> int:\n    return 2 ** x\n", "power"),
        ("import math\ndef f(x: int) -> int:\n    return math.isqrt(x)\n", "imports math"),
        ("def f(x: int) -> int:\n    return len(str(x))\n", "uses str"),
        ("def f(x: int) -> str:\n    return f'{x}'\n", "formats"),
        ("CACHE = {}\ndef f(x: int) -> int:\n    return CACHE.get(x, x)\n", "module-level value"),
        ("def f(x: int) -> int:\n    try:\n        return 1 // x\n    except Exception:\n        return 0\n", "broad except"),
        ("def f(x: int) -> int:\n    global n\n    return x\n", "state"),
        ("def f(x: int) -> int:\n    return hash(x)\n", "uses hash"),
        # what reaches the runner's process: imports anywhere, attributes, frames, dunders, annotations
        ("def f(x: int) -> int:\n    import os as o\n    return x\n", "imports a module inside a function"),
        ("def g(x):\n    import sys\n    return x\ndef f(x: int) -> int:\n    return g(x)\n", "imports"),
        ("def f(x: int) -> int:\n    return (i for i in range(x)).gi_frame\n", "attribute .gi_frame"),
        ("def f(x: int) -> int:\n    return x.real\n", "attribute .real"),
        ("def f(x: int) -> int:\n    return [0 for open in open('x')][0]\n", "uses open"),
        ("def f(x: int) -> int:\n    return __builtins__\n", "__builtins__"),
        ("def f(x: \"__import__('os')\") -> int:\n    return x\n", "annotation"),
        ("def f(x: int, y=print) -> int:\n    return x\n", "default value"),
        ("def f(x: int) -> int:\n    return (lambda: x)()\n", "lambda"),
        ("class A:\n    pass\ndef f(x: int) -> int:\n    return x\n", "class"),
        ("def f(x: int) -> bool:\n    return x is 5\n", "`is`"),
        ("def f(x: int) -> int:\n    return x\nf.__code__ = None\n", "assignment to something other than a name"),
        ("def f(x: int) -> int:\n    try:\n        return 1 // x\n    except ZeroDivisionError as e:\n"
         "        return e.__traceback__\n", "attribute .__traceback__"),
        ("def f(x: int) -> int:\n    try:\n        return 1 // x\n    except ZeroDivisionError:\n        import os\n"
         "        return 0\n", "imports"),
        ("def f(x: int) -> int:\n    try:\n        return x\n    except (ValueError, __import__('os').error):\n"
         "        return 0\n", "named exception"),
        ("def f(x: int) -> int:\n    return sorted([x], key=print)[0]\n", "uses print"),
        ("import typing\ndef f(x: typing.Optional[int]) -> int:\n    return typing.sys\n", "attribute .sys"),
        ("def f(x: int) -> int:\n    return globals()['__builtins__']\n", "uses globals"),
    ],
)
def test_which_sources_are_modelled_exactly(source: str, problem: str | None) -> None:
    found = proof_problem([impl(source)], signature(int), DEFAULT_POLICY)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


EVERY_ADMITTED_CONSTRUCT = """\
'''A docstring.'''
from __future__ import annotations
from typing import Optional as O
import typing
A, B = 1, (2, "x")
C: int = A + 3 * 10 ** 9


def g(v: O[int] = None, *args: int, k: typing.Tuple[int, ...] = (), **kw: int) -> "int":
    return 0 if v is None else v


def f(x: int) -> int:
    d = {i: i * i for i in range(3) if i}
    s = {x, C}
    t = [y for y in (x, B[0]) for _ in range(2)]
    del t[0]
    assert x or True, "message"
    try:
        q = divmod(x, 0)
    except (ZeroDivisionError, ValueError) as error:
        q = (0, 0)
    finally:
        pass
    while x > 10:
        x //= 2
        if x == 5:
            break
    for i, j in enumerate(t):
        d.setdefault(i, j)
    *rest, last = t or [0]
    t.sort(key=abs, reverse=True)
    if x < -(2 ** 40):
        raise ValueError("too small")
    return (g(x, k=(1,)) + sum(d.values()) + len(s) + last + (n := 2) + q[0] + int(x > 0) + max(x, 0, key=abs)
            - (-x if x else ~x) + x.bit_length() + t[1:2:1][0] + (x << 2 >> 1 & 7 | 1 ^ 3) % 5)
"""


def test_code_using_every_admitted_construct_qualifies() -> None:
    assert proof_problem([impl(EVERY_ADMITTED_CONSTRUCT)], signature(int), DEFAULT_POLICY) is None


@pytest.mark.parametrize(
    ("annotation", "exact"),
    [(int, True), (bool, True), (int | None, True), (tuple[int, bool], True), (float, False), (str, False),
     (list[int], False), (tuple[int, ...], False)],
)
def test_which_types_are_modelled_exactly(annotation: object, exact: bool) -> None:
    found = proof_problem([impl("def f(x):\n    return x\n")], signature(annotation), DEFAULT_POLICY)
    assert (found is None) is exact, found


def test_a_user_comparison_or_printed_output_is_no_proof() -> None:
    source = [impl("def f(x: int) -> int:\n    return x\n")]
    assert "user comparison" in proof_problem(source, signature(int), DEFAULT_POLICY.with_(compare=lambda a, b: True))
    assert "printed output" in proof_problem(source, signature(int), DEFAULT_POLICY.with_(compare_stdout=True))


pytest.importorskip("crosshair", reason="proofs come from the symbolic engine (crosshair-tool)")


def test_every_path_of_integer_code_explored_is_a_proof(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a.py", SIGN_A), write(tmp_path, "b.py", SIGN_B)
    report = divergent.check([a, b], budget=Budget(seconds=20))
    assert report.verdict is Verdict.PROVEN_EQUIVALENT and report.proven and not report.divergent
    assert report.exit_reason is ExitReason.PROVEN
    assert report.proof is not None and report.proof.engine == "symbolic" and report.proof.paths > 0
    assert any("x: int" in limit for limit in report.proof.limits)
    assert any("nothing but compute" in limit for limit in report.proof.limits)  # which code qualifies
    assert report.seconds < 15  # it stops early, not at the end of the budget

    from divergent.kinds.reports import plain_report

    assert plain_report(report).startswith(f"proven equivalent (symbolic, {report.proof.paths} paths)")


def test_float_code_explored_to_the_end_is_no_proof(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def half(x: float) -> float:\n    return x / 2 if x > 0 else 0.0\n")
    b = write(tmp_path, "b.py", "def half(x: float) -> float:\n    return x * 0.5 if x > 0 else 0.0\n")
    report = divergent.check([a, b], budget=Budget(seconds=6), engines="seeds,mutation,symbolic")
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND
    assert report.proof is None


def test_the_cli_reports_a_proof_in_json_and_exits_0(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a.py", SIGN_A), write(tmp_path, "b.py", SIGN_B)
    result = subprocess.run(
        [sys.executable, "-m", "divergent", "check", a, b, "--budget", "20", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["verdict"] == "proven-equivalent" and data["exit_reason"] == "proven"
    assert data["proof"]["engine"] == "symbolic" and data["proof"]["paths"] > 0 and data["proof"]["limits"]
    text = subprocess.run(
        [sys.executable, "-m", "divergent", "check", a, b, "--budget", "20"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin", "COLUMNS": "200"},
    )
    assert text.returncode == 0 and "Proven equivalent (symbolic," in text.stdout
