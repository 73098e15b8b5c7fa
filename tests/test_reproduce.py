"""The reproducing test (``--emit-test``): it fails while the implementations differ, passes once they
agree, and names them by paths relative to itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import divergent
from divergent.policy import EqualityPolicy, TimeoutRule
from divergent.records import Budget
from divergent.report.reproduce import call_reproduction
from divergent.search import load_programs

ROOT = Path(__file__).resolve().parents[1]
FAST = {"engines": "seeds,mutation", "budget": Budget(seconds=10)}


def write(path: Path, source: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return str(path)


def emitted(tmp_path: Path, specs: list[str], policy: EqualityPolicy | None = None, **options: object) -> Path:
    """Run check, write the reproducing test under tmp_path/tests, and return its path."""
    implementations = load_programs(specs, function=None)
    report = divergent.check(implementations, **({**FAST, **options} | ({"policy": policy} if policy else {})))
    assert report.counterexample is not None, report
    test = tmp_path / "tests" / "test_reproduce_it.py"
    test.parent.mkdir(exist_ok=True)
    test.write_text(call_reproduction(report.counterexample, implementations, test_dir=test.parent, policy=policy))
    return test


def pytest_on(test: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    # from another directory: the test must find the implementations relative to itself
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          cwd="/", capture_output=True, text=True, env=env, timeout=300)


def test_the_emitted_test_fails_with_the_counterexample_and_passes_once_they_agree(tmp_path: Path) -> None:
    old = write(tmp_path / "src" / "old.py", (ROOT / "examples/old.py").read_text())
    new = write(tmp_path / "src" / "new.py", (ROOT / "examples/new.py").read_text())
    test = emitted(tmp_path, [f"{old}:normalize", f"{new}:normalize"])
    text = test.read_text()
    assert str(tmp_path) not in text, "no absolute path in the test"
    assert "'../src/old.py'" in text and "'../src/new.py'" in text
    failing = pytest_on(test)
    assert failing.returncode == 1, failing.stdout
    # (the shrunk input is a lone line-ending character, which new.py keeps and old.py strips)
    assert re.search(r"new\.py:normalize did \('returned', '\\[rn]'", failing.stdout), failing.stdout
    # swap in an implementation that agrees with old.py
    Path(new).write_text(Path(old).read_text())
    passing = pytest_on(test)
    assert passing.returncode == 0, passing.stdout


def test_exceptions_and_argument_mutation_are_reproduced(tmp_path: Path) -> None:
    a = write(tmp_path / "a.py", """\
        def head(xs: list[int]) -> int:
            xs.sort()
            return xs[0]
        """)
    b = write(tmp_path / "b.py", """\
        def head(xs: list[int]) -> int:
            return sorted(xs)[0]
        """)
    test = emitted(tmp_path, [a, b])
    failing = pytest_on(test)
    assert failing.returncode == 1, failing.stdout
    write(tmp_path / "b.py", """\
        def head(xs: list[int]) -> int:
            xs.sort()
            return xs[0]
        """)
    assert pytest_on(test).returncode == 0
    write(tmp_path / "b.py", """\
        def head(xs: list[int]) -> int:
            xs.sort()
            if not xs:
                raise ValueError("empty")
            return xs[0]
        """)
    # a.py raises IndexError on [], b.py now ValueError: the test must see it (a new input, a new test)
    test = emitted(tmp_path, [a, str(tmp_path / "b.py")], seeds=[([],)])
    assert "IndexError" in pytest_on(test).stdout


def test_a_module_in_a_package_is_imported_by_its_dotted_name(tmp_path: Path) -> None:
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "helpers.py", "LIMIT = 100\n")
    a = write(tmp_path / "pkg" / "clamp.py", """\
        from .helpers import LIMIT

        def clamp(n: int) -> int:
            return min(max(n, 0), LIMIT)
        """)
    b = write(tmp_path / "other" / "clamp2.py", """\
        def clamp(n: int) -> int:
            return max(min(n, 100), 0) if n != 55 else 56
        """)
    test = emitted(tmp_path, [a, b], seeds=[(55,)])
    assert "module='pkg.clamp'" in test.read_text()
    assert pytest_on(test).returncode == 1
    write(tmp_path / "other" / "clamp2.py", "def clamp(n: int) -> int:\n    return max(min(n, 100), 0)\n")
    assert pytest_on(test).returncode == 0


def test_a_timeout_is_reproduced_through_the_sandbox(tmp_path: Path) -> None:
    a = write(tmp_path / "a.py", "def f(n: int) -> int:\n    return n\n")
    b = write(tmp_path / "b.py", """\
        def f(n: int) -> int:
            while n == 3:
                pass
            return n
        """)
    policy = EqualityPolicy(timeouts=TimeoutRule.DIFFER)
    test = emitted(tmp_path, [a, b], policy=policy, seeds=[(3,)], limits=divergent.Limits(timeout=0.5))
    text = test.read_text()
    assert "outcomes_on(" in text and "timeouts='differ'" in text
    failing = pytest_on(test)
    assert failing.returncode == 1 and "timeout" in failing.stdout
    write(tmp_path / "b.py", "def f(n: int) -> int:\n    return n\n")
    assert pytest_on(test).returncode == 0
