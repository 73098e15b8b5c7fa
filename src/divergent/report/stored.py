"""``check`` and ``cluster`` reports kept in the store, so ``divergent report RUN`` can draw them again.

A stored report is a run of kind "check" or "cluster" with one unit, ``report``: the ``--json``
document (which the HTML page is built from), and the reproducing test when one was made. Nothing
is stored unless asked (``--store``, or ``--db PATH``): a check is often one step of a script or a
test suite, and should not fill a file in the user's home on every call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from divergent.errors import InvalidArgument
from divergent.store import RunRecord, Store

#: the kinds of report this module stores
REPORT_KINDS = ("check", "cluster")
REPORT_UNIT = "report"


@dataclass(frozen=True)
class StoredReport:
    run: RunRecord
    kind: str
    document: dict[str, Any]
    #: the reproducing pytest module made with the run (None when none was)
    test: str | None = None


def save_report(store: Store, kind: str, document: Mapping[str, Any], *, test: str | None = None,
                status: str = "finished", command: Mapping[str, Any] | None = None) -> RunRecord:
    """Keep a report as a run in ``status`` ("finished", or "interrupted" after Ctrl-C: its partial
    report); returns the run (its ``id`` names it to ``divergent report``). ``command`` says what
    ran (the programs and the options): a run interrupted with the same command is resumed, its
    record completed with this report instead of a new one made."""
    if kind not in REPORT_KINDS:
        raise InvalidArgument(f"cannot store a {kind!r} report; kinds: {', '.join(REPORT_KINDS)}")
    counterexample = document.get("counterexample") or {}
    parameters = {
        "implementations": list(document.get("implementations") or []),
        "verdict": document.get("verdict"),
        "call": counterexample.get("call"),
        "classes": len(document.get("classes") or []),
        "seed": document.get("seed"),
    }
    interrupted = interrupted_run(store, kind, command) if command is not None else None
    if command is not None:
        parameters["command"] = dict(command)
    if interrupted is not None:
        run = store.set_parameters(store.resume_run(interrupted.id).id, parameters)
    else:
        run = store.create_run(kind, parameters)
    store.save_unit(run.id, REPORT_UNIT, {"document": dict(document), "test": test},
                    float(document.get("seconds") or 0.0))
    return store.finish_run(run.id, status)


def interrupted_run(store: Store, kind: str, command: Mapping[str, Any]) -> RunRecord | None:
    """The latest run of ``kind`` interrupted while running ``command``, if there is one."""
    wanted = dict(command)
    for run in store.list_runs(kind):  # (newest first)
        if run.status == "interrupted" and run.parameters.get("command") == wanted:
            return run
    return None


def load_report(store: Store, run: RunRecord) -> StoredReport:
    """The stored report of a "check" or "cluster" run."""
    if run.kind not in REPORT_KINDS:
        raise InvalidArgument(f"run {run.short_id} is a {run.kind!r} run, not a stored report")
    for unit in store.units(run.id):
        if unit.key == REPORT_UNIT:
            return StoredReport(run=run, kind=run.kind, document=unit.result["document"], test=unit.result.get("test"))
    raise InvalidArgument(f"run {run.short_id} has no stored report (it may have been interrupted)")


def summary_lines(kind: str, document: Mapping[str, Any]) -> list[str]:
    """A stored check's or cluster's result as plain lines for the terminal (``divergent report
    RUN``): the input on which the programs differ and what each did (a call's outcome, a whole
    program's status and output), the classes, the commands that reproduce it, the notes."""
    lines: list[str] = []
    cx = document.get("counterexample") or {}
    if cx:
        if "stdin" in cx:
            text = str(cx.get("stdin", ""))
            lines.append(f"input ({len(text.splitlines())} line(s), {len(text):,} characters):")
            lines.extend(f"    {line}" for line in text.splitlines()[:20])
            if len(text.splitlines()) > 20:
                lines.append(f"    … (the whole input: {cx.get('input_file') or '--json'})")
        else:
            lines.append(f"on {cx.get('call')}")
        outcomes = list(cx.get("outcomes") or [])
        width = max((len(str(o.get("impl", ""))) for o in outcomes), default=0)
        for outcome in outcomes:
            shown = f"{outcome.get('kind')} {outcome.get('value')}"
            lines.append(f"  {str(outcome.get('impl', '')).ljust(width)}  class {outcome.get('class')}: {shown}")
            if "stdin" in cx and outcome.get("stdout"):
                stdout = " ⏎ ".join(str(outcome["stdout"]).splitlines())
                lines.append(f"  {''.ljust(width)}  stdout: {stdout[:200]}{'…' if len(stdout) > 200 else ''}")
        if cx.get("original_call") and cx.get("original_call") != cx.get("call"):
            lines.append(f"shrunk from {str(cx['original_call'])[:200]}")
        if cx.get("reproduce"):
            lines.append("reproduce:")
            lines.extend(f"  {command}" for command in cx["reproduce"])
    classes = document.get("classes") or []
    if kind == "cluster" or len(classes) > 2:
        for number, entry in enumerate(classes, 1):
            members = entry.get("members") if isinstance(entry, Mapping) else entry
            lines.append(f"class {number}: {' = '.join(map(str, members or []))}")
        if document.get("pick"):
            lines.append(f"pick: {document['pick']}")
    lines.extend(f"note: {note}" for note in document.get("notes") or [])
    return lines
