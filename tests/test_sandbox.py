"""The sandbox: every misbehaviour becomes an outcome, the host stays responsive, others' results stand."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest

from divergent.errors import LoadError
from divergent.programs import PythonFunction, Signature
from divergent.records import Input, OutcomeKind
from divergent.sandbox.isolation import Isolation, available_levels
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool

LEVELS = available_levels()
needs_bwrap = pytest.mark.skipif(Isolation.BUBBLEWRAP not in LEVELS, reason="bubblewrap not available")
needs_namespaces = pytest.mark.skipif(
    not ({Isolation.BUBBLEWRAP, Isolation.UNSHARE} & set(LEVELS)), reason="no Linux namespaces here"
)

GOOD = "def f(x):\n    return x * 2\n"


def impl(source: str, label: str = "bad", entry: str = "f") -> PythonFunction:
    return PythonFunction(label=label, entry_point=entry, source=textwrap.dedent(source), signature=Signature())


def run_pair(bad_source: str, inputs: list, *, limits: Limits = Limits(timeout=1.0), isolation: str | None = None):
    with WorkerPool([impl(GOOD, "good"), impl(bad_source)], limits=limits, isolation=isolation) as pool:
        return pool.run([Input(args=(x,)) for x in inputs]), pool


MISBEHAVIOURS = {
    "never returns": ("def f(x):\n    while True:\n        pass\n", OutcomeKind.TIMEOUT),
    "swallows the timer": (
        "def f(x):\n    while True:\n        try:\n            while True: pass\n        except BaseException: pass\n",
        OutcomeKind.TIMEOUT,
    ),
    "os._exit": ("import os\ndef f(x):\n    os._exit(3)\n", OutcomeKind.CRASH),
    "segfault": ("import ctypes\ndef f(x):\n    return ctypes.string_at(0)\n", OutcomeKind.CRASH),
    "allocates 10 GB": ("def f(x):\n    return len(bytearray(10 * 1024**3))\n", OutcomeKind.RAISED),
    "recurses forever": ("def f(x):\n    return f(x) + 1\n", OutcomeKind.RAISED),
    "sys.exit": ("import sys\ndef f(x):\n    sys.exit(4)\n", OutcomeKind.RAISED),
    "C-level hang": ("def f(x):\n    return 10 ** 10 ** 10\n", OutcomeKind.TIMEOUT),
}


@pytest.mark.parametrize("name", list(MISBEHAVIOURS))
def test_misbehaviour_is_an_outcome_and_the_run_goes_on(name: str) -> None:
    source, expected = MISBEHAVIOURS[name]
    started = time.monotonic()
    results, _pool = run_pair(source, [1, 2])
    assert time.monotonic() - started < 20
    for good, bad in results:
        assert good.kind is OutcomeKind.RETURNED  # the other implementation's results stand
        assert bad.kind is expected, (name, bad)
    assert [r[0].value for r in results] == [2, 4]


def test_crash_detail_names_signal_or_exit_code() -> None:
    results, _ = run_pair("import ctypes, os\ndef f(x):\n    if x: ctypes.string_at(0)\n    os._exit(3)\n", [0, 1])
    assert "exit code 3" in results[0][1].detail
    assert "SIGSEGV" in results[1][1].detail


def test_worker_is_replaced_and_later_inputs_still_run() -> None:
    source = "import os\ndef f(x):\n    if x == 2:\n        os._exit(1)\n    return x * 2\n"
    results, pool = run_pair(source, list(range(6)))
    kinds = [r[1].kind for r in results]
    assert kinds == [OutcomeKind.RETURNED] * 2 + [OutcomeKind.CRASH] + [OutcomeKind.RETURNED] * 3
    assert [r[1].value for r in results if r[1].kind is OutcomeKind.RETURNED] == [0, 2, 6, 8, 10]
    assert pool.restarts >= 1


def test_printing_100_megabytes_is_capped() -> None:
    source = "def f(x):\n    for _ in range(100):\n        print('y' * 1_000_000)\n    return x\n"
    results, _ = run_pair(source, [1], limits=Limits(timeout=10.0))
    outcome = results[0][1]
    assert outcome.kind is OutcomeKind.RETURNED
    assert len(outcome.stdout) < 100_000
    assert "more characters" in outcome.stdout


def test_writing_to_fd_1_does_not_break_the_protocol() -> None:
    source = "import os\ndef f(x):\n    os.write(1, b'garbage' * 1000)\n    os.write(2, b'noise')\n    return x\n"
    results, _ = run_pair(source, [5])
    assert results[0][1].kind is OutcomeKind.RETURNED and results[0][1].value == 5


def test_overwriting_builtins_keeps_the_worker_sane() -> None:
    source = "import builtins\nbuiltins.len = lambda x: 42\nbuiltins.isinstance = None\ndef f(x):\n    return len([x])\n"
    results, _ = run_pair(source, [1, 2])
    assert [r[1].value for r in results] == [42, 42]


def test_forking_repeatedly_is_contained() -> None:
    source = textwrap.dedent(
        """
        import os
        def f(x):
            pids = []
            try:
                for _ in range(500):
                    pid = os.fork()
                    if pid == 0:
                        import time
                        time.sleep(60)
                        os._exit(0)
                    pids.append(pid)
            except OSError as error:
                return ('limited', len(pids))
            return ('unlimited', len(pids))
        """
    )
    started = time.monotonic()
    results, _ = run_pair(source, [1], limits=Limits(timeout=5.0))
    assert time.monotonic() - started < 30
    outcome = results[0][1]
    assert outcome.kind in (OutcomeKind.RETURNED, OutcomeKind.RAISED, OutcomeKind.TIMEOUT, OutcomeKind.CRASH)
    if os.access("/sys/fs/cgroup/pids", os.W_OK):
        assert outcome.kind is OutcomeKind.RETURNED and outcome.value[1][0] == "limited"


def test_environment_is_scrubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    source = "import os\ndef f(x):\n    return sorted(k for k in os.environ if 'KEY' in k or 'TOKEN' in k)\n"
    results, _ = run_pair(source, [1])
    assert results[0][1].value == ["list", []]


def test_deterministic_hash_and_random() -> None:
    source = "import random\ndef f(x):\n    return (hash('abc'), random.random(), list({'a', 'b', 'c', 'd'}))\n"
    first, _ = run_pair(source, [1, 2])
    second, _ = run_pair(source, [1])
    assert first[0][1].value == first[1][1].value == second[0][1].value


def test_random_is_reset_for_every_program_that_may_use_it_in_a_matrix() -> None:
    """Programs that draw random numbers get the same state on every call, whatever their
    neighbours in the matrix drew; programs that cannot reach the generators skip the reset."""
    from divergent.sandbox.child.worker import may_use_global_random
    from divergent.sandbox.matrix import ImplementationMatrix

    sources = [
        "import random\ndef f(x):\n    return random.random()\n",
        "from random import randint as r\ndef f(x):\n    return [r(0, 9) for _ in range(x + 3)]\n",
        "import math\nfrom typing import List\ndef f(x):\n    return math.sqrt(x)\n",
    ]
    assert [may_use_global_random(source) for source in sources] == [True, True, False]
    with ImplementationMatrix([impl(source, f"r{i}") for i, source in enumerate(sources)]) as matrix:
        rows = matrix.run([Input(args=(x,)) for x in range(4)])
    assert len({row[0].value for row in rows}) == 1
    assert len({str(row[1].value[1][:3]) for row in rows}) == 1  # the first three draws always equal


@pytest.mark.parametrize(
    ("source", "reaches"),
    [
        ("def f(x):\n    return x\n", False),
        ("from collections import Counter\nimport itertools, functools as ft\ndef f(x):\n    return x\n", False),
        ("from typing import (\n    List,\n)\ndef f(x):\n    return x\n", False),
        ("import numpy as np\ndef f(x):\n    return x\n", True),
        ("import secrets\ndef f(x):\n    return x\n", True),  # not on the known list: reset
        ("def f(x):\n    import statistics\n    return x\n", True),  # NormalDist.samples draws
        ("from . import helper\ndef f(x):\n    return x\n", True),
        ("def f(x):\n    return __import__('ran' + 'dom').random()\n", True),
        ("import os.path\ndef f(x):\n    return x\n", True),
    ],
)
def test_may_use_global_random(source: str, reaches: bool) -> None:
    from divergent.sandbox.child.worker import may_use_global_random

    assert may_use_global_random(source) is reaches


def test_a_call_timer_left_running_between_batches_does_no_harm() -> None:
    """A call's timer is not cancelled when the call returns: it must not interrupt the worker
    while it waits for the next batch, nor the next call."""
    from divergent.sandbox.matrix import ImplementationMatrix

    with ImplementationMatrix([impl("def f(x):\n    return x\n", "quick")], limits=Limits(timeout=0.05)) as matrix:
        first = matrix.run([Input(args=(x,)) for x in range(3)])
        time.sleep(0.3)  # several timer periods with no call running
        second = matrix.run([Input(args=(x,)) for x in range(3)])
        assert matrix.restarts == 0
    assert [row[0].value for row in first + second] == [0, 1, 2, 0, 1, 2]


def test_argument_mutation_is_reported() -> None:
    with WorkerPool([impl("def f(xs):\n    xs.sort()\n    return None\n")]) as pool:
        (outcome,) = pool.run([Input(args=([3, 1, 2],))])[0]
    assert outcome.args_after == ["list", [["list", [["list", [1, 2, 3]]]], ["dict", []]]]


def test_load_errors_are_clear() -> None:
    with pytest.raises(LoadError, match="line 1"):
        WorkerPool([impl("def f(x) return x\n")])
    with pytest.raises(LoadError, match="no 'f'"):
        WorkerPool([impl("def g(x):\n    return x\n")])
    with pytest.raises(LoadError, match="ZeroDivisionError"):
        WorkerPool([impl("1 / 0\ndef f(x):\n    return x\n")])
    with pytest.raises(LoadError, match=r"loading did not finish|longer than"):
        WorkerPool([impl("while True: pass\n")], limits=Limits(load_timeout=1.0))


@needs_bwrap
def test_bubblewrap_confines_writes_and_cuts_the_network(tmp_path: Path) -> None:
    target = tmp_path / "escaped.txt"
    source = textwrap.dedent(
        f"""
        import os, socket
        def f(x):
            results = []
            try:
                open({str(target)!r}, "w").write("x")
                results.append("wrote outside")
            except OSError:
                results.append("outside blocked")
            open("inside.txt", "w").write("ok")
            results.append("wrote inside")
            try:
                socket.create_connection(("127.0.0.1", 22), timeout=1)
                results.append("network")
            except OSError:
                results.append("no network")
            return results
        """
    )
    results, _ = run_pair(source, [1], isolation="bubblewrap", limits=Limits(timeout=5.0))
    assert results[0][1].value == ["list", ["outside blocked", "wrote inside", "no network"]]
    assert not target.exists()


@needs_namespaces
def test_processes_that_start_a_new_session_die_with_the_worker(tmp_path: Path) -> None:
    marker = f"divergent-orphan-{os.getpid()}"
    source = textwrap.dedent(
        f"""
        import subprocess
        def f(x):
            subprocess.Popen(["/bin/sh", "-c", "exec -a {marker} sleep 300"], start_new_session=True)
            return x
        """
    )
    results, _pool = run_pair(source, [1])
    assert results[0][1].kind is OutcomeKind.RETURNED
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        alive = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _cmdline(p).startswith(marker)]
        if not alive:
            break
        time.sleep(0.1)
    assert not alive, "a process started by the implementation outlived its worker"


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.parametrize("level", [level.value for level in LEVELS])
def test_every_available_level_runs_calls(level: str) -> None:
    results, pool = run_pair("def f(x):\n    return x + x\n", [1, 2, 3], isolation=level)
    assert pool.level.value == level
    assert [r[1].value for r in results] == [2, 4, 6]


def test_matrix_runs_many_implementations_in_one_worker() -> None:
    from divergent.sandbox.matrix import ImplementationMatrix

    sources = [
        "def f(x):\n    return x * 2\n",
        "import os\ndef f(x):\n    if x == 3:\n        os._exit(1)\n    return x * 2\n",
        "def f(x):\n    while True:\n        pass\n",
        "def f(x) oops",
        "counter = []\ndef f(x):\n    counter.append(x)\n    return len(counter)\n",
    ]
    impls = [impl(source, f"s{i}") for i, source in enumerate(sources)]
    with ImplementationMatrix(impls, limits=Limits(timeout=0.3), max_timeouts=2) as matrix:
        assert matrix.load_errors[3] is not None and matrix.load_errors[:3] == [None, None, None]
        results = matrix.run([Input(args=(x,)) for x in range(6)])
    assert [row[0].value for row in results] == [0, 2, 4, 6, 8, 10]
    assert results[3][1].kind is OutcomeKind.CRASH and "exit code 1" in results[3][1].detail
    assert [row[1].value for row in results if row[1].kind is OutcomeKind.RETURNED] == [0, 2, 4, 8, 10]
    assert all(row[2].kind is OutcomeKind.TIMEOUT for row in results)
    assert "not run" in results[5][2].detail  # the breaker: no timeout is waited for after two
    assert all(row[3].kind is OutcomeKind.CRASH for row in results)
    assert results[0][4].kind is OutcomeKind.RETURNED


def test_matrix_shares_equal_outcomes_on_one_input() -> None:
    """Equal outcomes on one input arrive once (the rest as references) and are one object;
    different ones stay apart, also after the worker was replaced in the middle of the run."""
    from divergent.sandbox.matrix import ImplementationMatrix

    sources = [
        "def f(x):\n    return x * 2\n",
        "def f(x):\n    return x + x\n",
        "import os\ndef f(x):\n    if x == 2:\n        os._exit(3)\n    return x + x\n",
        "def f(x):\n    return 2 * x if x != 1 else -1\n",
        "def f(x):\n    raise ValueError(str(x))\n",
        "def f(x):\n    raise ValueError(str(x))\n",
    ]
    impls = [impl(source, f"s{i}") for i, source in enumerate(sources)]
    with ImplementationMatrix(impls, limits=Limits(timeout=2.0)) as matrix:
        results = matrix.run([Input(args=(x,)) for x in range(4)])
        assert matrix.restarts == 1
    for x, row in enumerate(results):
        assert [o.value for o in row[:2]] == [2 * x, 2 * x]
        assert row[0] is row[1]  # one object for equal outcomes
        assert row[4] is row[5] and row[4].exception.message == str(x)
        assert row[4] is not row[0]
    assert results[2][2].kind is OutcomeKind.CRASH
    assert [results[x][2] is results[x][0] for x in (0, 1, 3)] == [True, True, True]
    assert results[1][3].value == -1 and results[1][3] is not results[1][0]
    assert results[0][3] is results[0][0]


def test_matrix_survives_a_forged_reference_on_the_result_channel() -> None:
    """A program that writes a frame with a reference to an outcome that was never sent: the
    parent treats it as a broken worker (CRASH verdicts, a new worker), never as a failure of its
    own. Programs in one matrix share a worker, so its neighbours' cells may be lost with it
    (docs/sandbox.md), but never given a wrong value."""
    from divergent.sandbox.matrix import ImplementationMatrix

    forger = (
        "import json, os, struct\n"
        "def f(x):\n"
        "    body = json.dumps({'results': [{'same': 99}], 'done': False}).encode()\n"
        "    for fd in range(3, 12):\n"
        "        try:\n"
        "            os.write(fd, struct.pack('>I', len(body)) + body)\n"
        "        except OSError:\n"
        "            pass\n"
        "    return x\n"
    )
    impls = [impl("def f(x):\n    return x\n", "honest"), impl(forger, "forger")]
    with ImplementationMatrix(impls, limits=Limits(timeout=2.0), max_timeouts=5) as matrix:
        results = matrix.run([Input(args=(x,)) for x in range(3)])
    assert all(row[1].kind is OutcomeKind.CRASH for row in results)
    for x, row in enumerate(results):
        assert row[0].kind is OutcomeKind.CRASH or (row[0].kind is OutcomeKind.RETURNED and row[0].value == x)


def test_matrix_gives_each_input_its_own_time_limit() -> None:
    from divergent.sandbox.matrix import ImplementationMatrix

    sleeper = impl("import time\ndef f(x):\n    time.sleep(x)\n    return x\n", "sleeper")
    inputs = [Input(args=(0.4,)), Input(args=(0.4,)), Input(args=(0.0,))]
    with ImplementationMatrix([sleeper], limits=Limits(timeout=5.0), max_timeouts=5) as matrix:
        # the first input's limit is below its sleep; the second's is capped by the limits' 5 s
        results = matrix.run(inputs, timeouts=[0.05, 60.0, 0.05])
    assert results[0][0].kind is OutcomeKind.TIMEOUT and "0.05" in results[0][0].detail
    assert results[1][0].kind is OutcomeKind.RETURNED and results[1][0].value == 0.4
    assert results[2][0].kind is OutcomeKind.RETURNED


def test_arguments_a_call_leaves_alone_come_back_as_they_went() -> None:
    """The call child says only "unchanged"; divergent encodes the arguments itself (once per
    input), exactly as a mutation would have been encoded."""
    from divergent.values import encode

    sources = ["def f(xs, k=None):\n    return len(xs)\n", "def f(xs, k=None):\n    xs.append(0)\n    return len(xs)\n"]
    impls = [impl(source, f"s{i}") for i, source in enumerate(sources)]
    arguments = ([3, {"a": (1, 2.5)}, {4, 5}], )
    with WorkerPool(impls) as pool:
        ((left, right),) = pool.run([Input(args=arguments, kwargs={"k": b"x"})])
    assert left.args_after == encode([list(arguments), {"k": b"x"}])
    assert right.args_after == encode([[[3, {"a": (1, 2.5)}, {4, 5}, 0]], {"k": b"x"}])
