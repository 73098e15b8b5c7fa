"""The symbolic engine: CrossHair in a sandboxed runner, polled without blocking, killable at once."""

from __future__ import annotations

import math
import os
import textwrap
import time
from pathlib import Path

import pytest

from divergent.engines.base import CallContext
from divergent.engines.calls import symbolic as symbolic_module
from divergent.engines.calls.symbolic import SymbolicEngine
from divergent.engines.constants import Constants
from divergent.engines.settings import EngineSettings
from divergent.errors import EngineCannotProceed
from divergent.programs import Parameter, ParameterKind, PythonFunction, Signature
from divergent.records import Input
from divergent.sandbox.child.symbolic_search import literal_from_repr

pytest.importorskip("crosshair", reason="the symbolic engine needs crosshair-tool")

X_INT = Signature(parameters=(Parameter(name="x", annotation_source="int", annotation=int),))

RARE_CONSTANT = """
def f(x: int) -> int:
    if x == 123456:
        return 0
    return x
"""
IDENTITY = """
def f(x: int) -> int:
    return x
"""
LOOPS = """
def f(x: int) -> int:
    while True:
        pass
"""


def write_impl(tmp_path: Path, name: str, source: str, signature: Signature = X_INT) -> PythonFunction:
    file = tmp_path / f"{name}.py"
    file.write_text(textwrap.dedent(source))
    return PythonFunction(
        label=name,
        entry_point="f",
        source=file.read_text(),
        signature=signature,
        path=str(file),
        module_name=name,
        sys_path=(str(tmp_path),),
    )


def make_engine(
    *implementations: PythonFunction, seconds: float, signature: Signature = X_INT, settings: EngineSettings | None = None
) -> SymbolicEngine:
    context = CallContext(
        implementations=implementations,
        signature=signature,
        seeds=(),
        constants=Constants(),
        seconds=seconds,
        settings=settings or EngineSettings(),
    )
    return SymbolicEngine(context)


def poll(engine: SymbolicEngine, *, until: float) -> tuple[list[Input], EngineCannotProceed | None]:
    """Everything the engine proposes until it stops or ``until`` seconds pass (each call timed)."""
    found: list[Input] = []
    deadline = time.monotonic() + until
    while time.monotonic() < deadline:
        starting = engine.runner_pid is None  # the first call starts the runner: not timed
        started = time.monotonic()
        try:
            batch = engine.propose(10)
        except EngineCannotProceed as stop:
            return found, stop
        assert starting or time.monotonic() - started < 2.0, "propose must not wait for the runner"
        found.extend(batch)
        time.sleep(0.05)
    return found, None


def process_tree(root: int) -> set[int]:
    """``root`` and its living descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":
            children.setdefault(int(parent), []).append(int(entry))
    tree, frontier = set(), [root]
    while frontier:
        pid = frontier.pop()
        if pid in tree or not Path(f"/proc/{pid}").exists():
            continue
        tree.add(pid)
        frontier.extend(children.get(pid, []))
    return tree


def living(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


@pytest.mark.slow
def test_finds_a_rare_constant_and_returns_its_real_value(tmp_path: Path) -> None:
    engine = make_engine(
        write_impl(tmp_path, "mod_a", RARE_CONSTANT), write_impl(tmp_path, "mod_b", IDENTITY), seconds=15
    )
    started = time.monotonic()
    try:
        found: list[Input] = []
        while time.monotonic() - started < 15 and not any(i.args == (123456,) for i in found):
            batch, stop = poll(engine, until=0.2)
            found.extend(batch)
            if stop is not None:
                break
        elapsed = time.monotonic() - started
    finally:
        engine.close()
    hit = [i for i in found if i.args == (123456,)]
    assert hit, f"not found in {elapsed:.1f} s: {found}"
    assert hit[0].how_generated == "symbolic" and type(hit[0].args[0]) is int and dict(hit[0].kwargs) == {}
    assert elapsed < 15


@pytest.mark.slow
def test_close_kills_a_looping_runner_promptly_and_its_whole_tree(tmp_path: Path) -> None:
    engine = make_engine(
        write_impl(tmp_path, "mod_a", IDENTITY), write_impl(tmp_path, "mod_b", LOOPS), seconds=60
    )
    found, stop = poll(engine, until=2.0)  # long enough for CrossHair to be inside the loop
    assert stop is None and found == []
    assert engine.runner_pid is not None
    tree = process_tree(engine.runner_pid)
    assert tree, "the runner should be running"
    started = time.monotonic()
    engine.close()
    assert time.monotonic() - started < 5.0
    deadline = time.monotonic() + 2.0
    while living(tree) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not living(tree), f"left behind: {living(tree)}"
    engine.close()  # a second close is harmless


@pytest.mark.slow
def test_the_runner_stops_itself_when_its_time_is_up(tmp_path: Path) -> None:
    engine = make_engine(
        write_impl(tmp_path, "mod_a", IDENTITY), write_impl(tmp_path, "mod_b", LOOPS), seconds=2
    )
    try:
        found, stop = poll(engine, until=10)
    finally:
        engine.close()
    assert found == []
    assert stop is not None and stop.reason == "exhausted", stop


def test_unannotated_parameters_are_unsupported(tmp_path: Path) -> None:
    bare = Signature(parameters=(Parameter(name="x"),))
    a = write_impl(tmp_path, "mod_a", "def f(x):\n    return x\n", bare)
    b = write_impl(tmp_path, "mod_b", "def f(x):\n    return x + 0\n", bare)
    engine = make_engine(a, b, seconds=5, signature=bare)
    with pytest.raises(EngineCannotProceed) as stop:
        engine.propose(10)
    assert stop.value.reason == "unsupported"
    assert engine.runner_pid is None  # decided before starting anything
    with pytest.raises(EngineCannotProceed):
        engine.propose(10)  # and it stays stopped


@pytest.mark.slow
def test_the_runner_reports_unannotated_functions_as_unsupported(tmp_path: Path) -> None:
    # The merged signature claims annotations the functions themselves do not have.
    a = write_impl(tmp_path, "mod_a", "def f(x):\n    return x\n")
    b = write_impl(tmp_path, "mod_b", "def f(x):\n    return x + 0\n")
    engine = make_engine(a, b, seconds=10)
    try:
        _, stop = poll(engine, until=10)
    finally:
        engine.close()
    assert stop is not None and stop.reason == "unsupported" and "annotat" in stop.message


def test_without_crosshair_the_engine_is_unsupported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = symbolic_module.importlib.util.find_spec
    monkeypatch.setattr(
        symbolic_module.importlib.util,
        "find_spec",
        lambda name, *rest: None if name == "crosshair" else real_find_spec(name, *rest),
    )
    engine = make_engine(
        write_impl(tmp_path, "mod_a", IDENTITY), write_impl(tmp_path, "mod_b", IDENTITY), seconds=5
    )
    with pytest.raises(EngineCannotProceed) as stop:
        engine.propose(1)
    assert stop.value.reason == "unsupported" and "pip install 'divergent[symbolic]'" in stop.value.message


@pytest.mark.slow
def test_keyword_arguments_and_source_only_modules(tmp_path: Path) -> None:
    signature = Signature(
        parameters=(
            Parameter(name="x", annotation_source="int", annotation=int),
            Parameter(
                name="flag",
                kind=ParameterKind.KEYWORD_ONLY,
                annotation_source="bool",
                annotation=bool,
                has_default=True,
                default_source="False",
            ),
        )
    )
    plain = "def f(x: int, *, flag: bool = False) -> int:\n    return x\n"
    flagged = "def f(x: int, *, flag: bool = False) -> int:\n    if flag and x == 7:\n        return -1\n    return x\n"
    a = PythonFunction(
        label="a", entry_point="f", source=plain, signature=signature
    )  # no file: run from source
    b = PythonFunction(label="b", entry_point="f", source=flagged, signature=signature)
    engine = make_engine(a, b, seconds=10, signature=signature)
    try:
        found: list[Input] = []
        started = time.monotonic()
        while time.monotonic() - started < 10 and not found:
            batch, stop = poll(engine, until=0.2)
            found.extend(batch)
            if stop is not None:
                break
    finally:
        engine.close()
    assert found, "no diff found"
    assert found[0].args == (7,) and dict(found[0].kwargs) == {"flag": True}


@pytest.mark.slow
def test_the_diff_behavior_strategy_reads_arguments_back_from_reprs(tmp_path: Path) -> None:
    engine = make_engine(
        write_impl(tmp_path, "mod_a", RARE_CONSTANT),
        write_impl(tmp_path, "mod_b", IDENTITY),
        seconds=8,
        settings=EngineSettings(symbolic_strategy="diff_behavior"),
    )
    try:
        found: list[Input] = []
        started = time.monotonic()
        while time.monotonic() - started < 10 and not any(i.args == (123456,) for i in found):
            batch, stop = poll(engine, until=0.2)
            found.extend(batch)
            if stop is not None:
                break
    finally:
        engine.close()
    assert any(i.args == (123456,) for i in found), found


def test_reprs_are_read_back_as_literals() -> None:
    assert literal_from_repr("[1, 'a', (2.5, None)]") == [1, "a", (2.5, None)]
    assert literal_from_repr("{1: b'x'}") == {1: b"x"}
    assert literal_from_repr("set()") == set()
    assert math.isnan(literal_from_repr("nan"))
    assert literal_from_repr("[-inf, inf]") == [-math.inf, math.inf]
    with pytest.raises(ValueError):
        literal_from_repr("<object at 0x1234>")
    with pytest.raises(ValueError):
        literal_from_repr("__import__('os').system('true')")


# -- what the engine explored, and when it stops by itself ----------------------------------------

LENGTH = """
def f(s: str) -> int:
    return len(s)
"""
COUNTED = """
def f(s: str) -> int:
    count = 0
    for _ in s:
        count += 1
    return count
"""


@pytest.mark.slow
def test_the_runner_stops_when_crosshair_has_nothing_new_to_try(tmp_path: Path) -> None:
    text = Signature(parameters=(Parameter(name="s", annotation_source="str", annotation=str),))
    engine = make_engine(write_impl(tmp_path, "mod_a", LENGTH, text), write_impl(tmp_path, "mod_b", COUNTED, text),
                         seconds=60, signature=text)
    started = time.monotonic()
    try:
        found, stop = poll(engine, until=50)
    finally:
        engine.close()
    # strings have no end of paths: only CrossHair's own sense that it has seen everything stops it
    assert found == [] and stop is not None and stop.reason == "exhausted", stop
    assert "nothing new to try" in stop.message, stop.message
    assert time.monotonic() - started < 45
    paths = int(engine.explored.split()[1])
    assert paths >= 10 and engine.explored.startswith("CrossHair: ") and "still exploring" not in engine.explored


@pytest.mark.slow
def test_the_engines_row_says_what_crosshair_explored_and_why_it_stopped(tmp_path: Path) -> None:
    import divergent
    from divergent.kinds.reports import report_json
    from divergent.records import Budget
    from divergent.report.pages import engines_section
    from divergent.report.text import engines_table

    for name, source in (("a", RARE_CONSTANT), ("b", IDENTITY)):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    report = divergent.check([str(tmp_path / "a.py"), str(tmp_path / "b.py")], budget=Budget(seconds=20),
                             engines="symbolic", shrink=False)
    assert report.divergent and report.counterexample is not None and report.counterexample.engine == "symbolic"
    (row,) = report.engines
    assert row.inputs >= 1 and row.explored.startswith("CrossHair: ") and " paths in " in row.explored
    assert int(row.explored.split()[1]) > 0
    _, lines = engines_table(report.engines)
    assert f"symbolic explored: {row.explored}" in lines
    document = report_json(report)
    assert document["engines"][0]["explored"] == row.explored
    # the HTML page: the table holds numbers; what it explored is said in full below it
    reasons = engines_section(document).blocks[1]
    assert ("symbolic", "explored on its own", row.explored) in reasons.rows, reasons  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_vetted_runner_runs_the_source_text_never_the_file_or_its_pyc(tmp_path: Path) -> None:
    """A stale or planted ``.pyc`` beside a file (its header matching the source's time and size)
    is what a plain import would run; the runner of vetted code runs the text divergent read."""
    import importlib.util
    from importlib import _bootstrap_external

    from divergent.sandbox.isolation import choose_level
    from divergent.sandbox.limits import Limits
    from divergent.sandbox.symbolic_process import SymbolicProcess

    honest, twin = write_impl(tmp_path, "mod_a", IDENTITY), write_impl(tmp_path, "mod_b", IDENTITY)
    source = Path(twin.path)
    stat = source.stat()
    planted = compile("def f(x: int) -> int:\n    return 0\n", str(source), "exec")
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(_bootstrap_external._code_to_timestamp_pyc(planted, stat.st_mtime, stat.st_size))

    def run(vetted: bool) -> tuple[SymbolicProcess, list[dict]]:
        process = SymbolicProcess([honest, twin], limits=Limits(), level=choose_level(None), seconds=20, vetted=vetted)
        diffs = []
        while not process.finished():
            diffs += process.poll()
            time.sleep(0.02)
        diffs += process.stop()
        process.close()
        return process, diffs

    _, diffs = run(vetted=False)
    assert diffs, "a plain import runs the planted .pyc, which differs"
    vetted, diffs = run(vetted=True)
    assert diffs == [] and vetted.summary is not None and vetted.summary["complete"], vetted.summary
