"""A quick answer: workers started before the command line is parsed, taken only by a pool that would
start exactly the same sandbox; the program leaving once its output is out (speed itself is measured
in benchmarks/first_answer.py, not here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from divergent.load import load_implementation
from divergent.records import Input
from divergent.sandbox import pool as pool_module
from divergent.sandbox.early import python_files, readable_paths
from divergent.sandbox.frames import implementation_paths
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import StartedAs, WorkerPool, prestart_workers

ROOT = Path(__file__).resolve().parents[1]


def write(directory: Path, name: str, source: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def test_the_early_start_reads_only_plain_python_files_before_any_option(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    a, b = write(tmp_path, "a.py", "def f(x): return x\n"), write(tmp_path, "b.py", "def f(x): return x\n")
    assert python_files(["check", "a.py", "b.py", "-f", "f"]) == [a, b]
    assert python_files(["check", "a.py:f", "b.py:f", "--json"]) == [a, b]
    assert python_files(["cluster", "a.py", "b.py"]) == [a, b]
    # options that change the workers' sandbox, other kinds, other commands, things that are not files
    assert python_files(["check", "a.py", "b.py", "--timeout", "5"]) == []
    assert python_files(["check", "a.py", "b.py", "--isolation=rlimits"]) == []
    assert python_files(["check", "a.py", "b.py", "--stdin"]) == []
    assert python_files(["report", "a.py", "b.py"]) == []
    assert python_files(["check", "a.py", "missing.py"]) == []
    assert python_files(["check", "HEAD~1:a.py:f", "a.py:f"]) == []
    assert python_files(["check", "a.py"]) == []  # one implementation: nothing to compare, the CLI says so


def test_the_early_paths_are_the_ones_a_pool_asks_for(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for file in (write(package, "mod.py", "def f(x):\n    return x\n"), write(tmp_path, "plain.py", "def f(x):\n    return x\n")):
        assert readable_paths(file) == implementation_paths([load_implementation(file, function="f")])


@pytest.fixture
def empty_stock():
    pool_module._STOCK.clear()
    yield pool_module._STOCK
    pool_module._STOCK.clear()


def test_a_pool_takes_a_blank_worker_started_with_its_exact_settings(tmp_path: Path, empty_stock) -> None:
    file = write(tmp_path, "a.py", "N = []\ndef f(x):\n    N.append(x)\n    return len(N)\n")
    impl = load_implementation(file, function="f")
    assert prestart_workers([implementation_paths([impl])], copies=1) == 1
    with WorkerPool([impl]) as pool:
        assert empty_stock._workers[pool._workers[0].started_as] == []  # taken
        assert pool.run([Input(args=(1,))])[0][0].value == 1  # it had run nothing before
    # other limits: another sandbox, so the blank worker is not used
    prestart_workers([implementation_paths([impl])], copies=1)
    with WorkerPool([impl], limits=Limits(timeout=3.0)) as pool:
        assert pool.run([Input(args=(1,))])[0][0].value == 1
        assert pool._workers[0].started_as.limits == Limits(timeout=3.0)
    waiting = [w for ws in empty_stock._workers.values() for w in ws]
    assert len(waiting) == 1 and waiting[0].started_as == StartedAs(waiting[0].started_as.level, Limits(),
                                                                      tuple(implementation_paths([impl])))


def test_a_blank_worker_that_died_is_not_handed_out(tmp_path: Path, empty_stock) -> None:
    impl = load_implementation(write(tmp_path, "a.py", "def f(x):\n    return -x\n"), function="f")
    prestart_workers([implementation_paths([impl])], copies=1)
    (dead,) = [w for ws in empty_stock._workers.values() for w in ws]
    dead.kill()
    with WorkerPool([impl]) as pool:
        assert pool._workers[0] is not dead and pool.run([Input(args=(2,))])[0][0].value == -2


def test_the_program_answers_with_workers_started_early_and_leaves_cleanly(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "def f(x: int) -> int:\n    return abs(x)\n")
    write(tmp_path, "b.py", "def f(x: int) -> int:\n    return x\n")
    trace = tmp_path / "trace.jsonl"
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_TRACE": str(trace)}
    process = subprocess.Popen([sys.executable, "-m", "divergent", "check", "a.py", "b.py", "-f", "f", "--json"],
                               cwd=tmp_path, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 1, err
    report = json.loads(out)
    assert report["verdict"] == "divergent" and report["counterexample"]["call"] == "f(-1)"
    marks = [json.loads(line)["mark"] for line in trace.read_text().splitlines()]
    # the workers were started before the command line was imported; every exit handler ran
    assert marks.index("spawn") < marks.index("cli imported") and marks[-1] == "exit"
    # and removed the sandboxes' cgroups (where this machine has them)
    assert not list(Path("/sys/fs/cgroup/pids").glob(f"divergent-{process.pid}-*"))
