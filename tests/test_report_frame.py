"""One report frame for every kind (issue 33): a kind supplies its rows, the frame says the rest the
same way for all: the differences set apart (the spurious filter's), the model's usage, the
comparison, the notes; the whole-program report used to drop the first two."""

from __future__ import annotations

import dataclasses

from rich.console import Console

from divergent.kinds.reports import plain_report, render_report
from divergent.records import (
    Counterexample,
    ExitReason,
    FilterDecision,
    FilterVerdict,
    Input,
    Outcome,
    OutcomeKind,
    Report,
    TextInput,
    Verdict,
)

DROPPED = FilterVerdict(relevant=False, rationale="only the trailing blank differs", differences=FilterDecision.IRRELEVANT,
                        model="scripted")
USAGE = {"model": "scripted", "requests": 3, "prompt_tokens": 1200, "completion_tokens": 300, "cost_usd": 0.0}


def no_difference(kind: str) -> Report:
    """A no-difference report of ``kind`` whose one difference the model's filter dropped."""
    if kind == "python-function":
        item, outcomes = Input(args=(3,)), (Outcome(OutcomeKind.RETURNED, value=6), Outcome(OutcomeKind.RETURNED, value=7))
    else:
        item, outcomes = TextInput("3\n"), (Outcome(OutcomeKind.OK, stdout="6\n"), Outcome(OutcomeKind.OK, stdout="6 \n"))
    dropped = Counterexample(input=item, outcomes=outcomes, classes=((0,), (1,)), engine="mutation", original=item,
                             filter=DROPPED)
    return Report(verdict=Verdict.NO_DIFFERENCE_FOUND, implementations=("a", "b"), counterexample=None,
                  classes=((0, 1),), splits=(), seconds=2.0, executions=400, inputs=200, engines=(),
                  exit_reason=ExitReason.BUDGET_SECONDS, isolation="bubblewrap", policy="tokens", seed=0,
                  filtered_out=(dropped,), llm=USAGE, kind=kind, min_inputs=100, notes=("a note",))


def test_every_kind_lists_the_dropped_differences_and_the_models_usage_the_same_way() -> None:
    for kind in ("python-function", "stdin-program", "command"):
        report = no_difference(kind)
        plain = plain_report(report)
        assert plain.startswith("no relevant difference found among 2 "), (kind, plain)
        assert "set apart, not claimed (1):" in plain and "only the trailing blank differs" in plain, kind
        assert "scripted" in plain and "note: a note" in plain, kind
        console = Console(width=120, record=True, color_system=None)
        render_report(report, console)
        shown = console.export_text()
        assert "No relevant difference found" in shown, kind
        assert "1 difference(s) set apart, not claimed" in shown and "only the trailing blank differs" in shown, kind
        assert "comparison: tokens" in shown and "policy:" not in shown, kind
        assert "scripted" in shown, kind


def test_the_frames_headlines_name_each_kinds_programs() -> None:
    functions, programs = no_difference("python-function"), no_difference("stdin-program")
    calls = dataclasses.replace(functions, filtered_out=())
    runs = dataclasses.replace(programs, filtered_out=())
    assert plain_report(calls).startswith("no difference found among 2 implementations (200 inputs, 400 executions")
    assert plain_report(runs).startswith("no difference found among 2 programs (200 inputs, 400 runs")
