"""The engine room of every search: :class:`Search` asks the portfolio for inputs, runs them in the
sandbox, compares the outcomes, feeds the observations back, and confirms and shrinks what differs.
It holds the programs' :class:`~divergent.kinds.base.Subjects` (what their kind set up: the
comparison, the seeds, the preconditions, the runner) and never asks which kind they are.

::

    portfolio ──▶ inputs ──▶ preconditions ──▶ sandbox (small, adaptive per-call limit) ──▶ outcomes
        ▲                                                             │                      │
        │                              slow on some: escalation lane ◀┘ (fresh workers,      ▼
        │                              escalated limit, on its own thread) ──────▶ comparison ──▶ observation
        └──────────────────────── observe (all engines) ◀────────────────────────────────────┤
                                                                                             ▼ divergent?
                               confirm on pre-started fresh workers ──▶ shrink ──▶ confirm ──▶ Report

The budget's seconds count from ``SearchOptions.started`` (the CLI passes its own start, so start-up
counts) and bound everything: the engines' turns, the re-runs of slow inputs, confirmation and
shrinking (a phase the budget cut short says so in the notes).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from divergent.comparison import Comparison, TimeoutRule
from divergent.engines.base import Engine
from divergent.engines.constants import Constants
from divergent.engines.portfolio import TURN_SECONDS, requested_classes, start_portfolio
from divergent.engines.settings import ModelAccess
from divergent.errors import BudgetSpent
from divergent.kinds.base import ProgramKind, Subjects
from divergent.kinds.options import Progress, SearchOptions
from divergent.llm.chat import bounded
from divergent.programs import Program
from divergent.records import AnyInput, ExitReason, Observation, Outcome, OutcomeKind, Proof
from divergent.sandbox.isolation import GUARANTEES, Isolation
from divergent.sandbox.runner import Runner
from divergent.search.confirmation import REFERENCE_AFTER, WARM_ONLY, Confirmer
from divergent.search.escalation import AdaptiveLimit, Escalated, Escalator, Pending
from divergent.search.fresh import Prestarted, SpareRunners
from divergent.search.history import History, Tally
from divergent.search.notes import Journal, inconclusive_note
from divergent.search.pipeline import Batch, ExclusiveRunner, Pipeline
from divergent.search.spaces import space_judged
from divergent.trace import mark

#: a batch may run this many times its turn's target before the rest waits for the engine's next turn
_SLICE_SLACK = 3.0
#: seconds kept at the end of the budget for confirming, shrinking and reporting a difference
RESERVE_SECONDS = 0.3
#: seconds before the end of the budget at which a search that found nothing stops: the report, the
#: clean-up (killing the workers) and the interpreter's exit take about this long
EXIT_RESERVE_SECONDS = 0.1
#: ... and this much more per program (each sandboxed process is killed and its cgroup and files
#: removed: about 10 ms on a loaded machine, 2 s for 200 functions)
CLOSE_SECONDS_PER_PROGRAM = 0.01
#: seconds of searching after which a second spare runner is kept ready (a quick answer needs one)
SECOND_SPARE_AFTER = 0.5


class Search:
    """The shared machinery: engines, sandbox, comparison, budget. Close it when done.

    Built by :func:`divergent.search.prepare` from the programs' :class:`Subjects` (which carry the
    options and build the engines' context); ``runner``: the main runner, started early (default:
    started here); ``spares_now``: start a fresh runner for confirmation beside it (else when first
    needed). Progress and notes go through :attr:`journal`; what it has seen through
    :attr:`history`, what it counts through :attr:`tally`."""

    def __init__(self, subjects: Subjects, *, runner: Prestarted | None = None, spares_now: bool = True) -> None:
        self.subjects = subjects
        options: SearchOptions = subjects.options
        self.options = options
        self.started = options.started if options.started is not None else time.monotonic()
        #: what the search tells as it goes: its phase (to ``options.progress``) and its notes
        self.journal = Journal(subjects.notes, progress=options.progress, snapshot=self._progress_now)
        prestarted = runner if runner is not None else Prestarted(subjects.open_runner)
        #: fresh runners for confirmation and re-runs, the first starting beside the main one
        self.spares = SpareRunners(lambda: subjects.open_runner(reference=True), start_now=spares_now,
                                   more_after=SECOND_SPARE_AFTER)
        self.history = History(options.seed)
        self.tally = Tally(len(subjects.programs), running_warm=subjects.warm)
        # Engines named by the caller are imported now (a missing one is an input error); the
        # default portfolio's are imported when their first turn comes.
        kind = subjects.kind
        classes = requested_classes(subjects.engine_names, kind.engine_class) if options.engines_requested else {}
        try:
            raw_runner = prestarted.get(None if self.deadline is None else self.remaining())
        except BaseException:
            prestarted.discard()
            self.spares.close()
            raise
        mark("runner ready")
        #: runs one batch in the background while the search proposes and judges (see step)
        self.pipeline = Pipeline(raw_runner)
        #: the runner for everyone else: its ``run`` first settles the batch in flight
        self.runner: Runner = ExclusiveRunner(raw_runner, self.settle)  # type: ignore[assignment]
        #: observations of a batch settled outside a step, handed out by the next step
        self._settled: list[tuple[str, Observation]] = []
        try:
            self._set_up(classes)
        except BaseException:
            self.spares.close()
            self.pipeline.close()
            self.runner.close()
            raise

    def _set_up(self, classes: dict[str, type[Engine]]) -> None:
        options, subjects = self.options, self.subjects
        level = self.runner.level
        if level is not Isolation.BUBBLEWRAP:
            self.journal.note(f"sandbox: {level.value} only — {GUARANTEES[level]}")
        model = None
        # the model and the filter (SpuriousFilter.within) as this search asks them: every call ends
        # by its deadline, and a difference not judged by then is kept unjudged
        within = getattr(options.spurious_filter, "within", None)
        self._spurious_filter = within(self.deadline) if within is not None else options.spurious_filter
        if options.llm is not None:
            model = ModelAccess(chat=bounded(options.llm, self.deadline), spec=options.spec,
                                spurious_filter=self._spurious_filter)
        constants = Constants.harvest(program.source for program in self.implementations)
        # the kind's engines get the kind's context: what every engine may know, and their own needs
        context = subjects.engine_context(
            implementations=self.implementations, seeds=subjects.seeds,
            constants=constants.with_values(self.runner.runtime_constants), seed=options.seed,
            limits=options.limits, isolation=level.value, seconds=options.budget.seconds,
            comparison=self.comparison, model=model, settings=options.engine_settings,
        )
        self.portfolio = start_portfolio(subjects.engine_names, subjects.kind.engine_class, context,
                                         requested=classes, note=self.journal.note, parents=self.history.parents)
        # Runs whose limit is fixed when their runner starts (a judge's time limit) are not given
        # smaller, adaptive limits, and their timeouts are not re-run longer.
        self.call_limit = AdaptiveLimit(
            options.limits, adaptive=self.comparison.timeouts is not TimeoutRule.DIFFER and subjects.adaptive_limits
        )
        self.escalator = Escalator(
            limits=options.limits, comparison=self.comparison, fresh_runner=self._fresh, deadline=self.deadline,
            reserve=RESERVE_SECONDS,
        )
        self.confirmer = Confirmer(
            subjects=subjects, limits=options.limits, fresh_runner=self._fresh, runner=self.runner,
            acceptable=self.acceptable, admit=self.admit, journal=self.journal,
        )
        #: inputs of an engine's turn that the slice did not leave time for, run at its next turn
        self._owed: dict[str, list[AnyInput]] = {}
        #: the proof of equivalence, once the symbolic engine has one
        self.proof: Proof | None = None

    # -- what the subjects hold, by name ----------------------------------------------------------

    @property
    def kind(self) -> ProgramKind:
        return self.subjects.kind

    @property
    def implementations(self) -> tuple[Program, ...]:
        return self.subjects.programs

    @property
    def comparison(self) -> Comparison:
        return self.subjects.comparison

    @property
    def spurious_filter(self) -> Any:
        return self._spurious_filter

    @property
    def engines(self) -> list[Engine]:
        """The engines started so far."""
        return self.portfolio.engines

    @property
    def rejected(self) -> int:
        """Inputs never run: a precondition or the validator rejected them (the validator's count
        includes the inputs that model engines and shrinking asked it about)."""
        return self.tally.failed_preconditions + self.subjects.rejected()

    # -- budget -----------------------------------------------------------------------------------

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def executions(self) -> int:
        return self.tally.executions_before + self.runner.executions

    @property
    def judged(self) -> int:
        """The inputs that back a verdict (:attr:`Tally.judged`)."""
        return self.tally.judged

    @property
    def deadline(self) -> float | None:
        """When the search's time budget ends (``time.monotonic()``), if it has one: a moment
        before the budget itself, left for the report and the clean-up."""
        seconds = self.options.budget.seconds
        if seconds is None:
            return None
        reserve = EXIT_RESERVE_SECONDS + CLOSE_SECONDS_PER_PROGRAM * len(self.implementations)
        return self.started + max(seconds - reserve, 0.5 * seconds)

    def _fresh(self) -> Runner:
        """A fresh runner in the reference mode, waited for no longer than the budget (BudgetSpent)."""
        remaining = self.remaining()
        return self.spares.take(None if remaining == float("inf") else remaining)

    def remaining(self) -> float:
        """Seconds left in the budget (infinite without a time budget)."""
        deadline = self.deadline
        return float("inf") if deadline is None else deadline - time.monotonic()

    def out_of_budget(self) -> ExitReason | None:
        deadline = self.deadline
        if deadline is not None and time.monotonic() >= deadline:
            return ExitReason.BUDGET_SECONDS
        executions = self.options.budget.executions
        if executions is not None and self.executions >= executions:
            return ExitReason.BUDGET_EXECUTIONS
        return None

    def acceptable(self, item: AnyInput) -> bool:
        """The preconditions the programs' kind checks on each input (a function's annotations and
        the user's requirement; none for a whole program, whose validator judges batches: :meth:`admit`)."""
        return self.subjects.acceptable(item)

    def admit(self, items: Sequence[AnyInput]) -> list[AnyInput]:
        """The inputs of a batch the validator accepts (all of them without one); the rest are
        counted as rejected and never run."""
        if not items:
            return []
        verdicts = self.subjects.admit(items)
        return [item for item, valid in zip(items, verdicts, strict=True) if valid]

    # -- one round --------------------------------------------------------------------------------

    def step(self) -> list[tuple[str, Observation]]:
        """Collect the re-runs, poll the background engines, give one engine its turn and run its
        inputs, and share the results. Empty when idle.

        The batch of one turn runs in the background (:class:`~divergent.search.pipeline.Pipeline`)
        while the next engine proposes and the last batch is judged, so a step returns the
        observations of the batch before its own (and :meth:`settle` those of the one in flight)."""
        observations: list[tuple[str, Observation]] = self._settled
        self._settled = []
        self.spares.tick()
        for result in self.escalator.results():
            self._take_escalated(result, observations)
        background = self.portfolio.poll_background()
        if background:
            self.settle(observations)
            for engine, proposed in background:
                self._start_batch(engine, proposed)
                self.settle(observations)
        if self.pipeline.done or (self.pipeline.busy and self.portfolio.next_is_first_turn()):
            # Ran already (or the next turn builds an engine, importing its library): judged first,
            # so a difference is acted upon before anyone proposes more.
            self.settle(observations)
            if any(observation.divergent for _, observation in observations):
                return self._stepped(observations)
        turn = self.portfolio.next_turn(extra=self._take_owed, seconds_left=self.remaining())
        finished = self.pipeline.take()
        if turn is not None:
            self._start_batch(*turn)
        if finished is not None:
            self._judge_batch(*finished, observations)
        return self._stepped(observations)

    def _stepped(self, observations: list[tuple[str, Observation]]) -> list[tuple[str, Observation]]:
        self._look_for_proof()
        if observations:
            self.history.point(self.elapsed, self.portfolio.stats())
        self.journal.phase()
        return observations

    def settle(self, observations: list[tuple[str, Observation]] | None = None) -> None:
        """Wait for the batch in flight and judge it; its observations go to ``observations``, or
        to the next step."""
        finished = self.pipeline.take()
        if finished is not None:
            self._judge_batch(*finished, self._settled if observations is None else observations)

    def _take_owed(self, name: str) -> list[AnyInput]:
        owed = self._owed.pop(name, [])
        self.history.forget(item.key for item in owed)
        return owed

    def _start_batch(self, engine: Engine, proposed: list[AnyInput]) -> None:
        checked = engine.checks_preconditions
        fresh = []
        failed = 0
        for item in proposed:
            if not self.history.fresh(item.key):
                continue
            if not checked and not self.acceptable(item):
                failed += 1
                continue
            fresh.append(item)
        self.tally.failed_preconditions += failed
        judged, fresh = len(fresh), self.admit(fresh)
        self.portfolio.rejected(engine, judged - len(fresh) + failed)
        executions = self.options.budget.executions
        if executions is not None:
            fresh = fresh[:max(0, (executions - self.executions) // max(1, len(self.implementations)))]
        limit = self.call_limit.current
        deadline = time.monotonic() + max(_SLICE_SLACK * TURN_SECONDS, 4 * limit)
        if self.deadline is not None:
            deadline = min(deadline, self.deadline)
            # A call started just before the end of the budget must not run far past it.
            limit = min(limit, max(0.01, self.deadline - time.monotonic()))
        mark(f"batch {engine.name}")
        self.pipeline.start(engine, fresh, deadline=deadline, limit=limit)

    def _judge_batch(
        self, batch: Batch, results: list[tuple[Outcome, ...] | None], waited: float,
        observations: list[tuple[str, Observation]],
    ) -> None:
        started = time.monotonic()
        engine = batch.engine
        novel = divergences = 0
        batch_observations = []
        behaviours: list[str] = []
        finished: list[tuple[Outcome, ...]] = []
        owed = []
        for item, outcomes in zip(batch.inputs, results, strict=True):
            if outcomes is None:
                owed.append(item)  # the slice (or the budget) ran out before it ran everywhere
                continue
            finished.append(outcomes)
            observation = self.comparison.observe(item, outcomes)
            fingerprint, new = self.history.behaviour(observation)
            behaviours.append(fingerprint)
            novel += new
            if observation.divergent and not divergences:
                mark(f"difference seen {engine.name}")
            divergences += observation.divergent
            if observation.inconclusive:
                if self.subjects.adaptive_limits:
                    self._pend(engine.name, observation)
                elif len(observation.classes) > 1 and not observation.divergent:
                    self._note_inconclusive(observation, self.subjects.time_limit)
            for index in observation.inconclusive:
                self.tally.unjudged_by[index] += 1
            batch_observations.append(observation)
            observations.append((engine.name, observation))
        if owed and self.out_of_budget() is None:
            self._owed.setdefault(engine.name, []).extend(owed)
        else:
            self.history.forget(item.key for item in owed)
        self.tally.inputs_run += len(finished)
        self.history.ran_inputs([item.key for item, outcomes in zip(batch.inputs, results, strict=True)
                                 if outcomes is not None], self.tally.inputs_run, novel)
        self.call_limit.record(finished)
        for other in self.engines:
            with contextlib.suppress(Exception):
                other.observe(batch_observations)
        # The engine's time: waiting for its batch and judging it (the run itself overlapped
        # other work, counted where it was done).
        self.portfolio.record(
            engine,
            inputs=len(finished),
            executions=len(finished) * len(self.implementations),
            seconds=waited + time.monotonic() - started,
            novel=novel,
            divergences=divergences,
            behaviours=behaviours,
        )

    def _pend(self, engine: str, observation: Observation) -> None:
        """An input some implementation ran past the per-call limit on: re-run it at the escalated
        limit (where another finished) or at the full limit (where none did)."""
        outcomes = observation.outcomes
        finished = [o.seconds for o in outcomes if o.kind is not OutcomeKind.TIMEOUT]
        self.escalator.submit(Pending(observation, engine, max(finished) if finished else 0.0))

    def _take_escalated(self, result: Escalated, observations: list[tuple[str, Observation]]) -> None:
        observation = result.observation
        if result.confirmed or result.why:
            self.confirmer.escalated[observation.input.key] = result
        if result.why:
            self.confirmer.unstable += 1
        if observation.inconclusive and len(observation.classes) > 1 and not observation.divergent:
            self._note_inconclusive(observation, result.limit)
        for index in set(result.pending.observation.inconclusive) - set(observation.inconclusive):
            self.tally.unjudged_by[index] -= 1  # settled by the longer re-run
        observations.append((result.pending.engine, observation))
        for engine in self.engines:
            with contextlib.suppress(Exception):
                engine.observe([observation])

    def next_round(self, deadline: float | None = None) -> list[tuple[str, Observation]] | ExitReason:
        """One :meth:`step`, or why the search must stop (budget, ``deadline``, a proof, engines
        exhausted); the batch in flight is judged first (its observations come before the reason)."""
        reason = self._stop_reason(deadline)
        if reason is not None:
            self.settle()
            if self._settled:
                observations, self._settled = self._settled, []
                return observations
            return reason
        observations = self.step()
        if not observations and (self.portfolio.waiting_on_background or not self.portfolio.active):
            time.sleep(0.02)  # only a background engine or the re-run lane is left: poll, do not spin
        return observations

    def _stop_reason(self, deadline: float | None) -> ExitReason | None:
        if self.proof is not None:
            return ExitReason.PROVEN
        reason = self.out_of_budget()
        if reason is not None:
            return reason
        if deadline is not None and time.monotonic() >= deadline:
            return ExitReason.BUDGET_SECONDS
        if not self.portfolio.active and not self.escalator.busy and not self.pipeline.busy:
            return ExitReason.EXHAUSTED
        if space_judged(self) is not None:
            return ExitReason.EXHAUSTED  # every valid input there is was judged
        return None

    def _note_inconclusive(self, observation: Observation, limit: float) -> None:
        self.tally.inconclusive += 1
        if self.tally.inconclusive == 1:
            self.journal.note(inconclusive_note(self.implementations, observation, limit, self.subjects.adaptive_limits))

    def _look_for_proof(self) -> None:
        """Stop with the symbolic engine's proof of equivalence, once it has one (and nothing the
        search saw contradicts it: a difference ends the search first; an input still being re-run,
        or a program that behaved differently on a re-run, holds the proof back)."""
        if self.proof is not None:
            return
        for engine in self.engines:
            found = engine.proof()
            if engine.not_a_proof:
                self.journal.note(engine.not_a_proof, once=True)
            if found is not None and not self.escalator.waiting() and not self.confirmer.unstable:
                self.proof = found
                return

    def _progress_now(self, phase: str) -> Progress:
        """A snapshot for the live display (the journal's phases)."""
        return Progress(seconds=self.elapsed, budget_seconds=self.options.budget.seconds, executions=self.executions,
                        inputs=self.tally.inputs_run, engines=self.portfolio.stats(), phase=phase)

    # -- confirmation and shrinking -----------------------------------------------------------

    def confirm(self, observation: Observation) -> tuple[Observation | None, str]:
        """Re-run a divergent input in the reference mode; None (with why) if it does not hold
        (:meth:`Confirmer.confirm`). A warm runner that keeps showing differences the reference
        mode does not is replaced by a runner in the reference mode."""
        confirmed, why = self.confirmer.confirm(observation)
        tally = self.tally
        if why.startswith(WARM_ONLY):
            tally.warm_only += 1
            if tally.warm_only == REFERENCE_AFTER and self.subjects.warm:
                self._to_reference_mode()
        elif confirmed is None:
            tally.discounted += 1  # no verdict on it either way
        return confirmed, why

    def _to_reference_mode(self) -> None:
        """Go on with a runner in the reference mode: what the warm one judged no longer counts."""
        self.settle()
        # what the warm runner saw and nobody looked at yet is the warm mode's: never confirmed now
        self._settled = [(name, seen) for name, seen in self._settled if not seen.divergent]
        tally = self.tally
        tally.discounted = tally.inputs_run
        try:
            fresh = self._fresh()
        except BudgetSpent:
            tally.running_warm = None  # no time left to go on in the reference mode: nothing more counts
            return
        warm = self.runner.swap(fresh)  # type: ignore[attr-defined]
        self.pipeline.runner = fresh
        tally.executions_before += warm.executions
        with contextlib.suppress(Exception):
            warm.close()
        tally.running_warm = False
        self.journal.note(f"the warm mode showed {tally.warm_only} difference(s) that a fresh process per run does not: "
                          "the search went on in the reference mode (a fresh process per run, slower); only the "
                          "inputs judged there back the verdict")

    def shrink(self, observation: Observation, seconds: float, *, confirm: bool = True) -> Observation:
        """A simpler input with the same classes and the same kind of difference
        (:meth:`Confirmer.shrink`), run under the search's current per-call limit at least."""
        ends_budget = seconds >= self.remaining() - RESERVE_SECONDS - 0.05
        return self.confirmer.shrink(observation, seconds, limit=self.call_limit.current, confirm=confirm,
                                     cut="by the budget" if ends_budget else "at its share of the budget")

    @property
    def shrink_steps(self) -> tuple[AnyInput, ...]:
        """The inputs the last successful :meth:`shrink` moved through (Counterexample.shrink_steps)."""
        return self.confirmer.shrink_steps

    def close(self) -> None:
        mark("closing")
        self.escalator.close()
        self.pipeline.close()
        for engine in self.engines:
            with contextlib.suppress(Exception):
                engine.close()
        self.spares.close()
        self.runner.close()
        self.subjects.close()
        mark("closed")
