"""The engine room of every search: :class:`Search` asks the portfolio for inputs, runs them in the
sandbox, compares the outcomes under the policy, feeds the observations back, and confirms and shrinks
what differs.

::

    portfolio ──▶ inputs ──▶ preconditions ──▶ sandbox ──▶ outcomes ──▶ policy ──▶ observation
        ▲                                                                        │
        └──────────────────────── observe (all engines) ◀────────────────────────┤
                                                                                 ▼ divergent?
                                     confirm on fresh workers ──▶ shrink ──▶ confirm ──▶ Report
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from divergent.comparison import Comparison, behaviour_fingerprint
from divergent.engines.base import Engine, EngineContext, WholePrograms
from divergent.engines.constants import Constants
from divergent.engines.portfolio import Portfolio
from divergent.engines.registry import NEEDS_MODEL, engine_class
from divergent.engines.settings import ModelAccess
from divergent.errors import EngineCannotProceed, InvalidArgument, MissingExtra
from divergent.llm.chat import ChatModel
from divergent.model import (
    AnyInput,
    Budget,
    Counterexample,
    ExitReason,
    Input,
    Observation,
    Outcome,
    OutcomeKind,
    Report,
    TextInput,
    TimelinePoint,
    Verdict,
)
from divergent.preconditions import conforms
from divergent.programs import Program, Signature
from divergent.sandbox.isolation import GUARANTEES, Isolation
from divergent.sandbox.limits import Limits
from divergent.sandbox.runner import Runner, open_runner
from divergent.search.options import Progress, SearchOptions
from divergent.search.partition import Partition
from divergent.search.shrink import shrink as shrink_input
from divergent.search.text_shrink import shrink_text

#: about how many points of the engines' history a report keeps (between this and twice this)
TIMELINE_POINTS = 150


class Search:
    """The shared machinery: engines, sandbox, policy, budget. Close it when done.

    Built by :func:`divergent.search.prepare` from loaded implementations and :class:`SearchOptions`."""

    def __init__(
        self,
        *,
        implementations: tuple[Program, ...],
        signature: Signature,
        options: SearchOptions,
        engine_names: tuple[str, ...],
        seeds: tuple[AnyInput, ...] = (),
        requirement: Callable[[Input], bool] | None = None,
        notes: Sequence[str] = (),
        programs: WholePrograms | None = None,
    ) -> None:
        self.implementations = implementations
        self.signature = signature
        self.options = options
        self.engine_names = engine_names
        self.seeds = seeds
        self.requirement = requirement
        self.notes: list[str] = list(notes)
        #: what whole programs add (validator, generator, checker, run limits); None for functions
        self.programs = programs
        self.started = time.monotonic()
        self.runner: Runner = self._open_runner(options.isolation)
        level = self.runner.level
        if level is not Isolation.BUBBLEWRAP:
            self.notes.append(f"sandbox: {level.value} only — {GUARANTEES[level]}")
        model = None
        if options.llm is not None:
            model = ModelAccess(chat=options.llm, spec=options.spec, spurious_filter=options.spurious_filter)
        self.context = EngineContext(
            implementations=self.implementations,
            signature=self.signature,
            seeds=self.seeds,
            constants=Constants.harvest(impl.source for impl in self.implementations).with_values(
                self.runner.runtime_constants
            ),
            seed=self.seed,
            require=self.requirement,
            limits=self.limits,
            isolation=level.value,
            seconds=self.budget.seconds,
            policy=self.policy,
            model=model,
            settings=options.engine_settings,
            programs=programs,
        )
        self.engines = self._start_engines()
        self.portfolio = Portfolio(self.engines)
        self.seen: set[str] = set()
        self.fingerprints: set[str] = set()
        self.inputs_run = 0
        #: inputs that failed a precondition (the validator counts its own rejections: :attr:`rejected`)
        self.failed_preconditions = 0
        #: inputs where only timeouts set implementations apart (see EqualityPolicy.timeouts)
        self.inconclusive = 0
        #: the engines' counts after every round, thinned (Report.timeline)
        self.timeline: list[TimelinePoint] = []
        #: the inputs the last successful :meth:`shrink` moved through (Counterexample.shrink_steps)
        self.shrink_steps: tuple[AnyInput, ...] = ()

    # -- the options, by name ---------------------------------------------------------------------

    @property
    def policy(self) -> Comparison:
        return self.options.policy

    @property
    def limits(self) -> Limits:
        return self.options.limits

    @property
    def budget(self) -> Budget:
        return self.options.budget

    @property
    def seed(self) -> int:
        return self.options.seed

    @property
    def llm(self) -> ChatModel | None:
        return self.options.llm

    @property
    def spurious_filter(self) -> Any:
        return self.options.spurious_filter

    @property
    def progress(self) -> Callable[[Progress], None] | None:
        return self.options.progress

    def _start_engines(self) -> list[Engine]:
        engines: list[Engine] = []
        for name in self.engine_names:
            try:
                engines.append(engine_class(name, text=self.programs is not None)(self.context))
            except (EngineCannotProceed, MissingExtra, ImportError) as error:
                if self.options.engines_requested:
                    # The caller named this engine: going on without it would answer another question.
                    raise InvalidArgument(f"engine {name!r} cannot run: {error}") from error
                self.notes.append(f"engine {name} not used: {error}")
        if not engines:
            raise InvalidArgument(
                "no engine can run: " + "; ".join(self.notes) if self.notes else "no engines selected"
            )
        return engines

    @property
    def rejected(self) -> int:
        """Inputs never run: a precondition or the validator rejected them (the validator's count
        includes the inputs that model engines and shrinking asked it about)."""
        return self.failed_preconditions + (self.programs.rejected() if self.programs is not None else 0)

    # -- budget -----------------------------------------------------------------------------------

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def executions(self) -> int:
        return self.runner.executions

    def out_of_budget(self) -> ExitReason | None:
        if self.budget.seconds is not None and self.elapsed >= self.budget.seconds:
            return ExitReason.BUDGET_SECONDS
        if self.budget.executions is not None and self.executions >= self.budget.executions:
            return ExitReason.BUDGET_EXECUTIONS
        return None

    def acceptable(self, item: AnyInput) -> bool:
        """The preconditions: annotations (typeguard) and the user's requirement (a whole program's
        text input has neither: its validator judges batches, :meth:`admit`)."""
        if isinstance(item, TextInput):
            return True
        if not conforms(item, self.signature):
            return False
        return self.requirement is None or self.requirement(item)

    def admit(self, items: Sequence[AnyInput]) -> list[AnyInput]:
        """The inputs of a batch the validator accepts (all of them without one); the rest are
        counted as rejected and never run."""
        if self.programs is None or not items:
            return list(items)
        verdicts = self.programs.admit(items)
        return [item for item, valid in zip(items, verdicts, strict=True) if valid]

    # -- one round --------------------------------------------------------------------------------

    def step(self) -> list[tuple[str, Observation]]:
        """Ask the engines for inputs, run the new ones, share the results. Empty when idle."""
        observations: list[tuple[str, Observation]] = []
        batches = self.portfolio.next_batches()
        for engine, proposed in batches:
            fresh = []
            for item in proposed:
                if item.key in self.seen:
                    continue
                self.seen.add(item.key)
                if not self.acceptable(item):
                    self.failed_preconditions += 1
                    continue
                fresh.append(item)
            fresh = self.admit(fresh)
            if self.budget.executions is not None:
                room = max(0, (self.budget.executions - self.executions) // max(1, len(self.implementations)))
                fresh = fresh[:room]
            started = time.monotonic()
            results = self.runner.run(fresh, deadline=self.deadline)
            novel = divergences = 0
            batch_observations = []
            ran = 0
            for item, outcomes in zip(fresh, results, strict=True):
                if outcomes is None:
                    self.seen.discard(item.key)  # the budget ran out before it ran everywhere
                    continue
                ran += 1
                observation = self.policy.observe(item, outcomes)
                fingerprint = behaviour_fingerprint(observation)
                if fingerprint not in self.fingerprints:
                    self.fingerprints.add(fingerprint)
                    novel += 1
                divergences += observation.divergent
                if observation.inconclusive and len(observation.classes) > 1 and not observation.divergent:
                    self._note_inconclusive(observation)
                batch_observations.append(observation)
                observations.append((engine.name, observation))
            self.inputs_run += ran
            self.portfolio.record(
                engine,
                inputs=ran,
                executions=ran * len(self.implementations),
                seconds=time.monotonic() - started,
                novel=novel,
                divergences=divergences,
            )
            for other in self.engines:
                with contextlib.suppress(Exception):
                    other.observe(batch_observations)
        if batches:
            self._record_timeline()
        self._report_progress()
        return observations

    def _record_timeline(self) -> None:
        """One point of the engines-over-time chart; past ``2 * TIMELINE_POINTS`` every other point
        goes, so a long run keeps an even sample of its history in bounded memory."""
        self.timeline.append(TimelinePoint(seconds=round(self.elapsed, 3), engines=self.portfolio.stats()))
        if len(self.timeline) > 2 * TIMELINE_POINTS:
            self.timeline = [*self.timeline[:-1:2], self.timeline[-1]]

    def next_round(self, deadline: float | None = None) -> list[tuple[str, Observation]] | ExitReason:
        """One :meth:`step`, or why the search must stop (budget, ``deadline``, engines exhausted)."""
        reason = self.out_of_budget()
        if reason is not None:
            return reason
        if deadline is not None and time.monotonic() >= deadline:
            return ExitReason.BUDGET_SECONDS
        if not self.portfolio.active:
            return ExitReason.EXHAUSTED
        observations = self.step()
        if not observations and self.portfolio.waiting_on_background:
            time.sleep(0.05)  # only a background engine is left: poll it, do not spin
        return observations

    def _note_inconclusive(self, observation: Observation) -> None:
        self.inconclusive += 1
        if self.inconclusive == 1:
            slow = ", ".join(self.implementations[i].label for i in observation.inconclusive)
            call = observation.input.call(self.implementations[0].display_name, max_length=60)
            self.notes.append(
                f"inconclusive: {slow} timed out on {call} where others finished (a slow implementation "
                "is not a different one; --timeouts differ counts this as a difference)"
            )

    @property
    def deadline(self) -> float | None:
        """When the search's time budget ends (``time.monotonic()``), if it has one."""
        return None if self.budget.seconds is None else self.started + self.budget.seconds

    def _report_progress(self, phase: str = "searching") -> None:
        if self.progress is not None:
            self.progress(
                Progress(
                    seconds=self.elapsed,
                    budget_seconds=self.budget.seconds,
                    executions=self.executions,
                    inputs=self.inputs_run,
                    engines=self.portfolio.stats(),
                    phase=phase,
                )
            )

    # -- confirmation and shrinking -----------------------------------------------------------

    def _open_runner(self, isolation: str | Isolation | None, timeout_factor: float = 1.0) -> Runner:
        limits = self.limits
        if timeout_factor != 1.0:
            limits = replace(limits, timeout=limits.timeout * timeout_factor)
        extra = self.programs.runner_options(timeout_factor) if self.programs is not None else {}
        return open_runner(
            self.implementations, limits=limits, isolation=isolation,
            record_arguments=self.policy.record_arguments, **extra,
        )

    def run_fresh(self, item: AnyInput, *, timeout_factor: float = 1.0) -> tuple[Outcome, ...]:
        """Run one input on brand-new workers (no state left over from earlier calls)."""
        fresh = self._open_runner(self.runner.level, timeout_factor)
        try:
            outcomes = fresh.run([item])[0]
        finally:
            fresh.close()
        assert outcomes is not None  # no deadline: every implementation ran
        return outcomes

    def confirm(self, observation: Observation) -> tuple[Observation | None, str]:
        """Re-run a divergent input on fresh workers; None (with why) if it does not hold.

        When a timeout takes part in the difference (``--timeouts differ``), the re-run gives three
        times the timeout, so a call that is merely slow on a loaded machine is not reported."""
        timed_out = any(
            o.kind is OutcomeKind.TIMEOUT for i, o in enumerate(observation.outcomes) if i not in observation.inconclusive
        )
        outcomes = self.run_fresh(observation.input, timeout_factor=3.0 if timed_out else 1.0)
        unstable = [
            self.implementations[i].label
            for i, (before, after) in enumerate(zip(observation.outcomes, outcomes, strict=True))
            if not self.policy.outcomes_equal(before, after)
            and OutcomeKind.TIMEOUT not in (before.kind, after.kind)
        ]
        if unstable:
            return None, f"not deterministic: {', '.join(unstable)} behaved differently on a re-run"
        confirmed = self.policy.observe(observation.input, outcomes)
        if not confirmed.divergent:
            return None, "the difference did not hold on fresh workers (a slow call or leftover state)"
        return confirmed, ""

    def shrink(self, observation: Observation, seconds: float) -> Observation:
        """A simpler input with the same classes and the same kind of difference, confirmed; the
        original if none is found.

        "The same kind": when the implementations differ in what they return or raise, a smaller
        input must too (not only in how they leave their arguments, or in what they print)."""
        target = observation.classes
        values_only = self.policy.essential()
        keep_values_apart = values_only.partition(observation.outcomes) == target
        deadline = time.monotonic() + seconds

        def same_difference(item: AnyInput, outcomes: tuple[Outcome, ...] | None) -> bool:
            if outcomes is None:
                return False
            if self.policy.partition(outcomes) != target or not self.policy.observe(item, outcomes).divergent:
                return False
            return not keep_values_apart or values_only.partition(outcomes) == target

        kept: dict[str, tuple[Outcome, ...]] = {}

        def still_divergent(batch: Sequence[AnyInput]) -> list[bool]:
            admitted = {item.key for item in self.admit(batch)}
            runnable = [item for item in batch if item.key in admitted]
            ran = dict(zip((item.key for item in runnable), self.runner.run(runnable, deadline=deadline), strict=True))
            verdicts = []
            for item in batch:
                outcomes = ran.get(item.key)
                verdicts.append(same_difference(item, outcomes))
                if verdicts[-1]:
                    kept[item.key] = outcomes  # type: ignore[assignment]
            return verdicts

        steps: list[AnyInput] = []
        if isinstance(observation.input, TextInput):
            smaller = shrink_text(observation.input, still_divergent=still_divergent, seconds=seconds,
                                  on_step=steps.append)
        else:
            smaller = shrink_input(
                observation.input, still_divergent=still_divergent, acceptable=self.acceptable, seconds=seconds,
                on_step=steps.append,
            )
        self.shrink_steps = ()
        if smaller.key == observation.input.key:
            return observation
        confirmed, _ = self.confirm(self.policy.observe(smaller, kept[smaller.key]))
        if confirmed is None or not same_difference(smaller, confirmed.outcomes):
            return observation
        self.shrink_steps = tuple(steps)
        return confirmed

    def report(
        self, *, verdict: Verdict, counterexample: Counterexample | None, partition: Partition,
        exit_reason: ExitReason,
    ) -> Report:
        return Report(
            verdict=verdict,
            implementations=tuple(impl.label for impl in self.implementations),
            counterexample=counterexample,
            classes=partition.classes,
            splits=tuple(partition.splits),
            seconds=round(self.elapsed, 3),
            executions=self.executions,
            inputs=self.inputs_run,
            engines=self.portfolio.stats(),
            exit_reason=exit_reason,
            isolation=self.runner.level.value,
            policy=self.policy.describe(),
            seed=self.seed,
            notes=tuple(self.notes) + self._model_engine_notes() + self._program_notes(),
            nondeterministic=tuple(partition.nondeterministic),
            filtered_out=tuple(partition.filtered_out),
            llm=self.llm_usage(),
            timeline=(*self.timeline, TimelinePoint(seconds=round(self.elapsed, 3), engines=self.portfolio.stats())),
            rejected=self.rejected,
        )

    def _program_notes(self) -> tuple[str, ...]:
        """What whole programs' helpers have to say (the validator's rejections, a failing checker)."""
        if self.programs is None:
            return ()
        return (*self.programs.notes(), *getattr(self.runner, "notes", ()))

    def _model_engine_notes(self) -> tuple[str, ...]:
        """A model engine that failed (endpoint down, no code...) is told apart from the run's result."""
        notes = []
        for engine in self.engines:
            if engine.name not in NEEDS_MODEL:
                continue
            stopped = next((s.stopped for s in self.portfolio.stats() if s.name == engine.name), "")
            if not stopped.startswith(("failed", "unsupported")):
                # It may have failed after the run's last poll of it.
                stopped = getattr(engine, "failure_note", lambda: None)() or ""
            if stopped:
                notes.append(f"engine {engine.name} stopped — {stopped}; the other engines' results stand")
        return tuple(notes)

    def llm_usage(self) -> dict[str, Any] | None:
        """The model's name and what its calls cost in this run (None without a model)."""
        if self.llm is None:
            return None
        return {"model": self.llm.model, **self.llm.usage().as_dict()}

    def close(self) -> None:
        for engine in self.engines:
            with contextlib.suppress(Exception):
                engine.close()
        self.runner.close()
        if self.programs is not None:
            self.programs.close()


