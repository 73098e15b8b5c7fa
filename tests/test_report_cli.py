"""The reports a person reads: the terminal report at 80 columns with a copyable test, and the report
files the command line writes (--html, --emit-test, --store, divergent report)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from divergent.kinds.reports import render_report, report_json
from divergent.programs import PythonFunction, Signature
from divergent.records import (
    Counterexample,
    EngineStats,
    ExitReason,
    Input,
    Outcome,
    OutcomeKind,
    Report,
    TimelinePoint,
    Verdict,
)
from divergent.report.presentation import ReportExtras
from divergent.report.reproduce import call_reproduction

ROOT = Path(__file__).resolve().parents[1]


def a_report() -> tuple[Report, list[PythonFunction]]:
    outcomes = (Outcome(OutcomeKind.RETURNED, value=""), Outcome(OutcomeKind.RETURNED, value="\r"))
    cx = Counterexample(input=Input(args=("\r",)), outcomes=outcomes, classes=((0,), (1,)), engine="mutation",
                        original=Input(args=("  h +elHo  \r world ",)), function_name="normalize",
                        shrink_steps=(Input(args=("\r world ",)), Input(args=("\r",))))
    engines = (
        EngineStats("seeds", inputs=3, stopped="exhausted: all 3 seed inputs used (3 proposed, 0 not meeting the "
                                               "preconditions, the rest duplicates)"),
        EngineStats("mutation", inputs=123_456, executions=246_912, seconds=12.5, novel=1_234, divergences=2),
        EngineStats("hypothesis", inputs=9_876, seconds=3.25, novel=17),
        EngineStats("symbolic", stopped="unsupported: CrossHair is not installed (pip install 'divergent[symbolic]')"),
    )
    report = Report(
        verdict=Verdict.DIVERGENT, implementations=("examples/old.py", "examples/new.py"), counterexample=cx,
        classes=((0,), (1,)), splits=(), seconds=16.0, executions=246_918, inputs=133_335, engines=engines,
        exit_reason=ExitReason.FOUND, isolation="bubblewrap", policy="default", seed=0,
        timeline=(TimelinePoint(1.0, engines), TimelinePoint(16.0, engines)),
    )
    programs = [PythonFunction(label=label, entry_point="normalize", source="", signature=Signature(),
                               path=str(ROOT / label), module_name=label.split("/")[-1].removesuffix(".py"))
                for label in report.implementations]
    return report, programs


def test_the_terminal_report_fits_80_columns_and_its_test_can_be_pasted(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)
    report, programs = a_report()
    console = Console(width=80, record=True, color_system=None)
    assert report.counterexample is not None
    test = call_reproduction(report.counterexample, programs)
    render_report(report, console, extras=ReportExtras(test=test))
    text = console.export_text()
    lines = text.splitlines()
    heading = next(i for i, line in enumerate(lines) if line.startswith("Reproduce with pytest"))
    end = next(i for i in range(heading + 1, len(lines)) if lines[i].startswith("engines"))
    snippet = "\n".join(lines[heading + 1:end])
    ast.parse(snippet)  # plain Python: no borders, no wrapping
    assert "│" not in snippet and "'examples/old.py'" in snippet and str(ROOT) not in snippet
    table = lines[end:]
    assert all(len(line) <= 80 for line in lines[:heading] + table), [line for line in lines if len(line) > 80]
    header = next(line.split() for line in table if line.split()[:1] == ["engine"])
    rows = {line.split()[0]: line.split() for line in table
            if len(line.split()) > 1 and line.split()[1].replace(",", "").isdigit()}
    # at 80 columns the table keeps the seconds and the inputs since a new behaviour (is it stuck?)
    assert header[:3] == ["engine", "inputs", "novel"] and "seconds" in header and "since" in header
    mutation = dict(zip([h for h in header if h != "new"], rows["mutation"], strict=False))  # "stopped" empty
    assert mutation == {"engine": "mutation", "inputs": "123,456", "novel": "1,234", "since": "0",
                        "divergent": "2", "seconds": "12.50"}
    assert rows["seeds"][-1] == "exhausted" and rows["symbolic"][-1] == "unsupported"
    below = " ".join(line.strip() for line in table)
    assert "seeds stopped: exhausted: all 3 seed inputs used (3 proposed," in below
    assert "symbolic stopped: unsupported: CrossHair is not installed" in below


def test_the_json_keeps_the_timeline_and_the_shrinking_steps() -> None:
    report, _ = a_report()
    data = report_json(report)
    assert data["counterexample"]["shrink_steps"] == ["normalize('\\r world ')", "normalize('\\r')"]
    assert [o["class"] for o in data["counterexample"]["outcomes"]] == [1, 2]
    assert data["timeline"][-1]["seconds"] == 16.0
    assert data["timeline"][-1]["engines"]["mutation"] == {"inputs": 123_456, "novel": 1_234, "divergences": 2,
                                                                "behaviours": 0, "restarts": 0}
    stuck = dataclasses.replace(report.engines[1], behaviours=7, since_novel=9000, longest_stale=9000,
                                longest_stale_seconds=2.5, restarts=3)
    engine = report_json(dataclasses.replace(report, engines=(report.engines[0], stuck)))["engines"][1]
    assert {k: engine[k] for k in ("name", "behaviours", "since_novel", "longest_stale", "longest_stale_seconds",
                                   "restarts")} == {"name": stuck.name, "behaviours": 7, "since_novel": 9000,
                                                    "longest_stale": 9000, "longest_stale_seconds": 2.5, "restarts": 3}


def divergent(*args: str, home: Path, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "DIVERGENT_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "divergent", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300)


def test_check_writes_html_and_test_and_keeps_the_report(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = divergent("check", "examples/old.py", "examples/new.py", "-f", "normalize", "--budget", "10",
                       "--engines", "seeds,mutation", "--json", "--html", str(out / "r.html"),
                       "--emit-test", str(out / "test_r.py"), "--store", home=tmp_path)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)  # stdout stays one JSON object
    assert document["counterexample"]["shrink_steps"] or document["counterexample"]["call"]
    page = (out / "r.html").read_text()
    assert "Implementations differ" in page and "<svg" in page and "def test_normalize_implementations_agree" in page
    emitted = (out / "test_r.py").read_text()
    assert "_load('/" not in emitted and "examples/old.py'" in emitted  # relative to the test's directory
    run_id = result.stderr.split("stored as run ")[1].split(":")[0]
    listed = divergent("report", home=tmp_path)
    assert run_id in listed.stdout and "check" in listed.stdout
    shown = divergent("report", run_id, home=tmp_path)
    assert "Implementations differ" in shown.stdout
    again = divergent("report", run_id, "--html", str(out / "again.html"), home=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (out / "again.html").read_text() == page
    stored = json.loads(divergent("report", run_id, "--json", home=tmp_path).stdout)
    assert stored["counterexample"]["call"] == document["counterexample"]["call"]


def test_output_files_are_checked_before_the_search(tmp_path: Path) -> None:
    result = divergent("check", "examples/old.py", "examples/new.py", "-f", "normalize",
                       "--html", str(tmp_path / "missing" / "r.html"), home=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith("divergent: error: --html") and len(result.stderr.splitlines()) == 1
    unknown = divergent("report", "feedface", home=tmp_path)
    assert unknown.returncode == 2 and "no run" in unknown.stderr


def test_cluster_and_incoherence_write_html(tmp_path: Path) -> None:
    for i, body in enumerate(["return x * 2", "return x + x", "return x * 3"]):
        (tmp_path / f"s{i}.py").write_text(f"def f(x: int) -> int:\n    {body}\n")
    result = divergent("cluster", *[str(tmp_path / f"s{i}.py") for i in range(3)], "--budget", "3",
                       "--engines", "seeds,mutation", "--html", str(tmp_path / "c.html"), "--db",
                       str(tmp_path / "s.db"), home=tmp_path)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "c.html").read_text()
    assert "2 behaviour classes among 3 implementations" in page and "<svg" in page
    assert "cluster" in divergent("report", "--db", str(tmp_path / "s.db"), home=tmp_path).stdout
