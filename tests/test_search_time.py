"""Search that never stalls: small per-call limits, the escalation lane, time-shared turns, pre-started
runners, and the budget (small budgets only: speed itself is measured in benchmarks/)."""

from __future__ import annotations

import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import divergent
from divergent.engines.base import Engine
from divergent.engines.portfolio import FIRST_TURN_BATCH, Portfolio
from divergent.errors import EngineCannotProceed
from divergent.policy import DEFAULT_POLICY
from divergent.programs import PythonFunction, Signature
from divergent.records import Budget, EngineStats, Input, Observation, Outcome, OutcomeKind, Verdict
from divergent.report.text import engines_table
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool
from divergent.search.escalation import AdaptiveLimit, Escalator, Pending
from divergent.search.fresh import Prestarted, SpareRunners
from divergent.search.notes import stuck_note


def write(directory: Path, name: str, source: str) -> str:
    path = directory / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def impl(source: str, label: str) -> PythonFunction:
    return PythonFunction(label=label, entry_point="f", source=textwrap.dedent(source), signature=Signature())


RETURNS = "def f(x):\n    return x\n"
HANGS_BELOW_ZERO = "def f(x):\n    while x < 0:\n        pass\n    return x\n"
SLOW_BELOW_ZERO = "import time\ndef f(x):\n    if x < 0:\n        time.sleep(0.3)\n    return x\n"


def returned(seconds: float, value: int = 1) -> Outcome:
    return Outcome(kind=OutcomeKind.RETURNED, value=value, seconds=seconds)


def timed_out(seconds: float) -> Outcome:
    return Outcome(kind=OutcomeKind.TIMEOUT, detail="exceeded", seconds=seconds)


# -- the adaptive per-call limit ------------------------------------------------------------------


def test_the_call_limit_starts_small_and_follows_the_calls() -> None:
    limits = Limits(timeout=2.0, first_timeout=0.05)
    limit = AdaptiveLimit(limits)
    assert limit.current == 0.05
    limit.record([(returned(1e-5), returned(2e-5))] * 10)
    assert limit.current == 0.05  # fast calls: the first limit stands
    limit.record([(returned(0.01), returned(0.02))] * 50)
    assert limit.current == pytest.approx(20 * 0.02)  # typical calls of 20 ms: 20 times that
    limit.record([(timed_out(1.0), timed_out(1.0))] * 500)
    assert limit.current <= limits.timeout
    assert AdaptiveLimit(limits, adaptive=False).current == 2.0  # --timeouts differ: the full limit


def test_batches_run_past_the_limit_everywhere_raise_it() -> None:
    limit = AdaptiveLimit(Limits(timeout=2.0, first_timeout=0.05))
    limit.record([(timed_out(0.05), timed_out(0.05))] * 8)
    assert limit.current == pytest.approx(0.2)


def test_the_hang_limit() -> None:
    limits = Limits(timeout=2.0)
    assert limits.hang_limit(0.001) == 2.0  # at least the timeout
    assert limits.hang_limit(0.05) == pytest.approx(5.0)  # 100 times the slowest other


def test_a_batch_carries_its_own_call_limit() -> None:
    with WorkerPool([impl(RETURNS, "a"), impl(SLOW_BELOW_ZERO, "b")], limits=Limits(timeout=2.0)) as pool:
        quick = pool.run([Input(args=(-1,)), Input(args=(1,))], timeout=0.05)
        assert quick[0] is not None and quick[0][1].kind is OutcomeKind.TIMEOUT and "0.05" in quick[0][1].detail
        assert quick[1] is not None and quick[1][1].kind is OutcomeKind.RETURNED
        patient = pool.run([Input(args=(-1,))])
        assert patient[0] is not None and patient[0][1].kind is OutcomeKind.RETURNED


# -- the escalation lane --------------------------------------------------------------------------


def escalate(second: str, *, hangs_count: bool = True) -> object:
    impls = [impl(RETURNS, "a"), impl(second, "b")]
    limits = Limits(timeout=0.5, first_timeout=0.05)
    escalator = Escalator(
        limits=limits, comparison=DEFAULT_POLICY.with_(timeouts="hang" if hangs_count else "inconclusive"),
        fresh_runner=lambda: WorkerPool(impls, limits=limits), deadline=time.monotonic() + 20,
    )
    first = Observation(Input(args=(-1,)), (returned(1e-5, -1), timed_out(0.05)), ((0,), (1,)), inconclusive=(1,))
    try:
        escalator.submit(Pending(first, "mutation", 1e-5))
        for _ in range(200):
            results = escalator.results()
            if results:
                return results[0]
            time.sleep(0.05)
        raise AssertionError("the escalation lane said nothing")
    finally:
        escalator.close()


def test_a_call_that_runs_past_the_escalated_limit_is_a_hang() -> None:
    result = escalate(HANGS_BELOW_ZERO)
    outcome = result.observation.outcomes[1]
    assert outcome.kind is OutcomeKind.TIMEOUT and outcome.hang and "0.5 s" in outcome.detail
    assert result.observation.divergent and result.confirmed


def test_a_call_that_finishes_when_given_longer_was_only_slow() -> None:
    result = escalate(SLOW_BELOW_ZERO)
    assert result.observation.outcomes[1].kind is OutcomeKind.RETURNED
    assert not result.observation.divergent


def test_with_timeouts_inconclusive_a_hang_is_not_a_difference() -> None:
    result = escalate(HANGS_BELOW_ZERO, hangs_count=False)
    assert result.observation.outcomes[1].kind is OutcomeKind.TIMEOUT and not result.observation.divergent


# -- the portfolio --------------------------------------------------------------------------------


class Counting(Engine):
    """Proposes fresh ints, taking ``cost`` seconds per input to do so."""

    name = "counting"

    def __init__(self, name: str, cost: float) -> None:
        self.name = name  # type: ignore[misc]
        self.cost = cost
        self.next = 0
        self.asked: list[int] = []

    def propose(self, n: int) -> list[Input]:
        self.asked.append(n)
        time.sleep(self.cost * n)
        self.next += n
        return [Input(args=(self.next - i,)) for i in range(n)]


def test_engines_are_built_at_their_first_turn_cheapest_first() -> None:
    built: list[str] = []

    def factory(name: str, cost: float):
        def build() -> Engine:
            built.append(name)
            return Counting(name, cost)

        return build

    def broken() -> Engine:
        raise ImportError("no such library")

    failures: list[str] = []
    portfolio = Portfolio(
        pending=[("cheap", factory("cheap", 0.0)), ("broken", broken), ("slow", factory("slow", 0.0))],
        on_start_failure=lambda name, error: failures.append(name),
    )
    assert built == []
    engine, batch = portfolio.next_turn()
    assert engine.name == "cheap" and len(batch) == FIRST_TURN_BATCH and built == ["cheap"]
    engine, _ = portfolio.next_turn()
    assert engine.name == "slow" and failures == ["broken"]
    assert next(s for s in portfolio.stats() if s.name == "broken").stopped.startswith("unsupported")


def test_an_engine_whose_library_is_still_importing_is_passed_over_while_others_search() -> None:
    """The pending engines' libraries are imported on a background thread after the first turn; the
    cheap engine keeps its turns until the slow import is done, then the other gets its first turn."""
    release = threading.Event()
    warmed: list[tuple[str, str]] = []

    def warm(name: str) -> None:
        warmed.append((name, threading.current_thread().name))
        if name == "heavy":
            release.wait(10)

    portfolio = Portfolio(
        pending=[("cheap", lambda: Counting("cheap", 0.0)), ("heavy", lambda: Counting("heavy", 0.0))], warm=warm,
    )
    engine, _ = portfolio.next_turn()
    assert engine.name == "cheap" and warmed == []  # nothing imported before the first turn
    for _ in range(5):
        engine, batch = portfolio.next_turn()
        assert engine.name == "cheap"
        portfolio.record(engine, inputs=len(batch), executions=len(batch), seconds=0.001, novel=0, divergences=0)
    assert warmed == [("heavy", "divergent-engine-imports")]
    release.set()
    deadline = time.monotonic() + 10
    while engine.name == "cheap" and time.monotonic() < deadline:
        engine, batch = portfolio.next_turn()
        portfolio.record(engine, inputs=len(batch), executions=len(batch), seconds=0.001, novel=0, divergences=0)
        time.sleep(0.005)
    assert engine.name == "heavy"


def test_when_only_importing_engines_are_left_the_search_waits_for_the_import() -> None:
    release = threading.Event()

    def warm(name: str) -> None:
        release.wait(0.3)

    portfolio = Portfolio(
        pending=[("first", lambda: Counting("first", 0.0)), ("second", lambda: Counting("second", 0.0))], warm=warm,
    )
    engine, _ = portfolio.next_turn()
    assert engine.name == "first"
    portfolio.stop("first", "exhausted")
    engine, _ = portfolio.next_turn()  # builds "second" at once (its import takes the lock), no None
    assert engine.name == "second"


def _take_turns(portfolio: Portfolio, turns: int) -> dict[str, Any]:
    """Each engine's figures after ``turns`` turns, each batch recorded as new behaviours."""
    for _ in range(turns):
        turn = portfolio.next_turn()
        assert turn is not None
        engine, batch = turn
        portfolio.record(engine, inputs=len(batch), executions=2 * len(batch), seconds=0.0001 * len(batch),
                         novel=len(batch), divergences=0)
    return {s.name: s for s in portfolio.stats()}


def test_turns_share_time_so_a_slow_engine_never_takes_it_all() -> None:
    portfolio = Portfolio([Counting("fast", 0.0), Counting("slow", 0.002)])
    stats = _take_turns(portfolio, 40)
    assert stats["slow"].inputs > 0 and stats["fast"].inputs > 5 * stats["slow"].inputs
    assert stats["slow"].seconds < 0.8 * (stats["fast"].seconds + stats["slow"].seconds)


class Walker(Counting):
    """A restartable engine that remembers how it was made (its restart, the parents it was given)."""

    restartable = True

    def __init__(self, name: str, restart: int = 0) -> None:
        super().__init__(name, 0.0)
        self.restart = restart
        self.parents: list[Observation] = []

    def observe(self, observations) -> None:
        self.parents.extend(observations)


def test_an_engine_that_finds_nothing_new_is_restarted_with_a_fresh_seed_and_parents() -> None:
    made: list[Walker] = []

    def restart(number: int) -> Engine:
        made.append(Walker("walker", number))
        return made[-1]

    parents = [Observation(input=Input(args=(i,)), outcomes=(returned(0.0, i),), classes=((0,),)) for i in range(3)]
    portfolio = Portfolio([Walker("walker"), Counting("other", 0.0)], restarts={"walker": restart},
                          parents=lambda number: parents[:number])
    found_at = 0
    for turn in range(400):
        engine, batch = portfolio.next_turn()
        # the walker finds new behaviours in its first 100 inputs, then nothing
        novel = len(batch) if engine.name == "walker" and found_at < 100 else 0
        found_at += len(batch) if engine.name == "walker" else 0
        portfolio.record(engine, inputs=len(batch), executions=len(batch), seconds=0.01 * len(batch) / 16,
                         novel=novel, divergences=0, behaviours=[f"{engine.name}:{turn % 7}"] * len(batch))
    stats = {s.name: s for s in portfolio.stats()}
    walker = stats["walker"]
    assert walker.restarts >= 1 and made[0].restart == 1 and made[0].parents == parents[:1]
    assert portfolio.engine("walker") is made[-1] and made[-1].restart == walker.restarts
    # the engines table's diversity: its distinct behaviours, its inputs since it last found one
    assert walker.behaviours == 7 and walker.since_novel > 2000 and walker.longest_stale >= walker.since_novel
    assert stats["other"].restarts == 0  # not restartable


def test_an_engine_still_finding_new_behaviours_is_never_restarted() -> None:
    portfolio = Portfolio([Walker("walker")], restarts={"walker": lambda number: Walker("walker", number)})
    for _ in range(300):
        engine, batch = portfolio.next_turn()
        portfolio.record(engine, inputs=len(batch), executions=len(batch), seconds=0.05, novel=1, divergences=0)
    assert portfolio.stats()[0].restarts == 0 and portfolio.stats()[0].since_novel == 0


def test_a_search_stuck_for_most_of_its_time_says_so_and_names_its_restarts() -> None:
    stats = [EngineStats("mutation", 9000, 18000, 3.0, novel=2, since_novel=8000, restarts=3),
             EngineStats("hypothesis", 300, 600, 2.0, since_novel=300)]
    (note,) = stuck_note(6.0, 8.0, 8300, stats)
    assert "last 6.0 s (8,300 inputs; restarted with fresh seeds: mutation 3x)" in note
    assert stuck_note(1.5, 2.0, 100, stats) == ()  # too short to tell
    assert stuck_note(3.0, 8.0, 100, stats) == ()  # new behaviours in most of its time


def test_the_engines_table_shows_diversity_and_restarts_and_keeps_seconds_at_80_columns() -> None:
    stats = [EngineStats("mutation", 8132, 16264, 2.75, novel=2, behaviours=2, since_novel=8116, restarts=3),
             EngineStats("symbolic", 0, 0, 0.0, stopped="exhausted: nothing new to try")]
    for width, dropped in ((120, set()), (80, {"distinct"})):
        table, _ = engines_table(stats, width)
        headers = [str(column.header) for column in table.columns]
        assert set(headers) == {"engine", "inputs", "novel", "distinct", "since new", "divergent", "restarts",
                                "seconds", "stopped"} - dropped
    table, _ = engines_table(stats[1:], 80)
    assert "restarts" not in [str(column.header) for column in table.columns]  # none restarted
    assert engines_table([], 40)[0].columns  # no engine ran: the table still has its columns


def test_an_engine_owed_a_larger_share_gets_that_much_more_of_the_time() -> None:
    class Owed(Counting):
        share = 4.0  # as the user's own input generator is

    portfolio = Portfolio([Counting("other", 0.0), Owed("owed", 0.0)])
    stats = _take_turns(portfolio, 100)
    assert 3.0 < stats["owed"].seconds / stats["other"].seconds < 5.5

# -- pre-started runners --------------------------------------------------------------------------


def test_a_runner_started_on_a_thread_outlives_the_start() -> None:
    started = Prestarted(lambda: WorkerPool([impl(RETURNS, "a")], limits=Limits()))
    runner = started.get()
    time.sleep(0.3)  # the sandbox kills workers whose starting thread ended: it must not have
    try:
        result = runner.run([Input(args=(3,))])
        assert result[0] is not None and result[0][0].value == 3
    finally:
        runner.close()


def test_spare_runners_are_fresh_and_ready() -> None:
    spares = SpareRunners(lambda: WorkerPool([impl("N = []\ndef f(x):\n    N.append(x)\n    return len(N)\n", "a")],
                                             limits=Limits()))
    try:
        for _ in range(3):
            runner = spares.take()
            try:
                assert runner.run([Input(args=(1,))])[0][0].value == 1  # no call ran there before
            finally:
                runner.close()
    finally:
        spares.close()


def test_a_second_spare_runner_starts_only_when_asked_for() -> None:
    started: list[int] = []

    def start() -> WorkerPool:
        started.append(1)
        return WorkerPool([impl(RETURNS, "a")], limits=Limits())

    spares = SpareRunners(start)
    try:
        spares.take().close()
        time.sleep(0.5)
        assert len(started) == 1  # a quick answer takes one: no second one started for nothing
        spares.keep()
        deadline = time.monotonic() + 30
        while len(started) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(started) == 3  # once kept, two more (one after the other)
    finally:
        spares.close()


# -- end to end -----------------------------------------------------------------------------------

QUADRATIC = """
def f(n: int) -> list[int]:
    kept = list(range(n))
    for i in range(len(kept)):
        kept = [k for k in kept if k == i or k % (i + 2)]
    return kept[:3] if n != 9 else []
"""
QUADRATIC_OTHER = """
def f(n: int) -> list[int]:
    kept = list(range(n))
    for i in range(len(kept)):
        kept = [k for k in kept if k == i or k % (i + 2)]
    return kept[:3]
"""


def test_a_difference_at_small_values_is_found_though_large_ones_are_slow(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a.py", QUADRATIC), write(tmp_path, "b.py", QUADRATIC_OTHER)
    started = time.monotonic()
    report = divergent.check([a, b], engines="seeds,mutation,hypothesis", budget=Budget(seconds=8))
    assert report.divergent and report.counterexample is not None
    assert report.counterexample.call == "f(9)"
    assert time.monotonic() - started < 8 + 3  # (generous: timing is measured in benchmarks/)


def test_the_budget_bounds_the_whole_run(tmp_path: Path) -> None:
    slow = write(tmp_path, "slow.py", "def f(n: int) -> int:\n    total = 0\n    for i in range(n):\n        total += i\n"
                                      "    return total\n")
    fast = write(tmp_path, "fast.py", "def f(n: int) -> int:\n    return n * (n - 1) // 2 if n > 0 else 0\n")
    started = time.monotonic()
    report = divergent.check([slow, fast], engines="seeds,mutation", budget=Budget(seconds=1.5),
                             require="n < 10**6")
    assert not report.divergent
    assert report.seconds <= 1.5 + 0.5
    assert time.monotonic() - started < 1.5 + 3


def test_an_engine_that_cannot_propose_does_not_stop_the_others() -> None:
    class Stops(Counting):
        def propose(self, n: int) -> list[Input]:
            raise EngineCannotProceed("exhausted", "nothing more")

    portfolio = Portfolio([Stops("stops", 0.0), Counting("goes", 0.0)])
    engine, _ = portfolio.next_turn()
    assert engine.name == "goes"


def test_a_search_that_saw_nothing_new_for_most_of_its_time_says_so(tmp_path: Path) -> None:
    a = write(tmp_path, "a.py", "def even(x: int, s: str) -> bool:\n    return x % 2 == 0\n")
    b = write(tmp_path, "b.py", "def even(x: int, s: str) -> bool:\n    return x & 1 == 0\n")
    report = divergent.check([a, b], engines="mutation", budget=Budget(seconds=5))
    assert report.verdict is Verdict.NO_DIFFERENCE_FOUND
    (mutation,) = report.engines
    # two behaviours (True, False), seen in the first inputs; every later input showed nothing new
    assert mutation.behaviours == 2 and mutation.since_novel > 0 and mutation.longest_stale >= mutation.since_novel
    assert any("no input revealed a new behaviour" in note for note in report.notes)
