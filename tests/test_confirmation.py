"""Confirming a difference on fresh workers: a program seen to be nondeterministic earns its
difference more re-runs (a copy of a coin flip against itself must not be a claim)."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

from divergent import TextInput
from divergent.records import Outcome, OutcomeKind
from divergent.sandbox.limits import Limits
from divergent.search.confirmation import UNSTABLE_RERUNS, WARM_ONLY, Confirmer
from divergent.search.notes import Journal
from divergent.text_comparison import OutputComparison


def printed(*texts: str) -> tuple[Outcome, ...]:
    return tuple(Outcome(kind=OutcomeKind.OK, stdout=text) for text in texts)


class ScriptedRunner:
    """A fresh runner whose one run gives the next scripted outcomes."""

    def __init__(self, script: Iterator[tuple[Outcome, ...]], started: list[int]) -> None:
        self.script = script
        started.append(1)

    def run(self, items: list, timeout: float | None = None, deadline: float | None = None) -> list:
        return [next(self.script) for _ in items]

    def close(self) -> None:
        pass


def confirmer(script: list[tuple[Outcome, ...]], started: list[int]) -> Confirmer:
    outcomes = iter(script)
    subjects = SimpleNamespace(programs=[SimpleNamespace(label="a"), SimpleNamespace(label="b")],
                               comparison=OutputComparison(), adaptive_limits=True, warm=True)
    return Confirmer(subjects=subjects, limits=Limits(), fresh_runner=lambda: ScriptedRunner(outcomes, started),
                     runner=None, acceptable=lambda item: True, admit=list, journal=Journal([]))  # type: ignore[arg-type]


def test_a_difference_that_holds_once_is_confirmed_on_one_fresh_run() -> None:
    started: list[int] = []
    seen = OutputComparison().observe(TextInput("1\n"), printed("0\n", "1\n"))
    confirmed, why = confirmer([printed("0\n", "1\n")], started).confirm(seen)
    assert confirmed is not None and why == "" and len(started) == 1


def test_once_a_program_was_nondeterministic_a_difference_needs_more_fresh_runs_to_hold() -> None:
    started: list[int] = []
    comparison = OutputComparison()
    # the first input: b printed 1, then 0 and 1 on two re-runs in the reference mode (a coin flip)
    script = [printed("0\n", "0\n"), printed("0\n", "1\n"),
              # the second input: the same pair on the first re-run (lucky), another on the second
              printed("0\n", "1\n"), printed("1\n", "1\n")]
    checker = confirmer(script, started)
    first, why = checker.confirm(comparison.observe(TextInput("1\n"), printed("0\n", "1\n")))
    assert first is None and "not deterministic: b" in why
    second, why = checker.confirm(comparison.observe(TextInput("2\n"), printed("0\n", "1\n")))
    assert second is None and "not deterministic: a behaved" in why
    assert len(started) == 4 <= 2 + UNSTABLE_RERUNS


def test_once_a_program_was_nondeterministic_a_stable_difference_is_still_confirmed() -> None:
    started: list[int] = []
    comparison = OutputComparison()
    script = [printed("0\n", "0\n"), printed("0\n", "1\n")] + [printed("0\n", "1\n")] * UNSTABLE_RERUNS
    checker = confirmer(script, started)
    assert checker.confirm(comparison.observe(TextInput("1\n"), printed("0\n", "1\n")))[0] is None
    confirmed, why = checker.confirm(comparison.observe(TextInput("2\n"), printed("0\n", "1\n")))
    assert confirmed is not None and why == "" and len(started) == 2 + UNSTABLE_RERUNS


def test_a_difference_only_the_warm_mode_shows_is_no_difference_nor_nondeterminism() -> None:
    """The warm run saw b print 1; a fresh process per run (the reference mode) prints 0 twice, as a
    does: the difference is the warm mode's, reported as such, and b is not called nondeterministic."""
    started: list[int] = []
    comparison = OutputComparison()
    checker = confirmer([printed("0\n", "0\n"), printed("0\n", "0\n")], started)
    confirmed, why = checker.confirm(comparison.observe(TextInput("1\n"), printed("0\n", "1\n")))
    assert confirmed is None and why.startswith(WARM_ONLY) and "b behaved otherwise" in why
    assert checker.unstable == 0 and len(started) == 2


def test_a_difference_the_reference_mode_shows_otherwise_is_reported_as_it_shows_it() -> None:
    """The warm run saw b print 1; the reference mode shows b printing 2, twice: still a difference,
    with the reference mode's outcomes (those the reproducing command prints)."""
    started: list[int] = []
    comparison = OutputComparison()
    checker = confirmer([printed("0\n", "2\n"), printed("0\n", "2\n")], started)
    confirmed, why = checker.confirm(comparison.observe(TextInput("1\n"), printed("0\n", "1\n")))
    assert confirmed is not None and why == "" and confirmed.outcomes == printed("0\n", "2\n")
