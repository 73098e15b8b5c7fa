"""The loop every command shares: engines propose, the sandbox runs, the policy compares.

::

    portfolio ──▶ inputs ──▶ preconditions ──▶ sandbox ──▶ outcomes ──▶ policy ──▶ observation
        ▲                                                                        │
        └──────────────────────── observe (all engines) ◀────────────────────────┤
                                                                                 ▼ divergent?
                                     confirm on fresh workers ──▶ shrink ──▶ confirm ──▶ Report

:func:`check` stops at the first confirmed divergence. :class:`Search` is the reusable engine room
that ``cluster`` (and later ``incoherence``) drive differently.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypedDict, Unpack

from divergent import load
from divergent.engines.base import Engine, EngineContext
from divergent.engines.constants import Constants
from divergent.engines.portfolio import Portfolio
from divergent.engines.registry import ENGINES, NEEDS_MODEL, engine_class, parse_engine_list
from divergent.errors import EngineCannotProceed, InvalidArgument, MissingExtra
from divergent.llm.chat import ChatModel
from divergent.model import (
    Budget,
    Counterexample,
    ExitReason,
    FilterDecision,
    FilterVerdict,
    Implementation,
    Input,
    Observation,
    Outcome,
    OutcomeKind,
    Report,
    Signature,
    Split,
    Verdict,
)
from divergent.policy import DEFAULT_POLICY, EqualityPolicy, behaviour_fingerprint
from divergent.preconditions import conforms, make_requirement
from divergent.sandbox import GUARANTEES, Isolation, Limits, WorkerPool
from divergent.shrink import shrink as shrink_input
from divergent.spurious import SpuriousFilter

#: differences that do not hold on fresh workers cost a fresh pool each; past this many, stop trying
MAX_FAILED_CONFIRMATIONS = 20
#: each difference the spurious-counterexample filter judges costs a model call; past this many
#: judged irrelevant in one run, later differences are taken unjudged (kept, never dropped)
MAX_FILTERED_OUT = 20

ImplementationSpec = str | Implementation | Callable[..., Any]
SeedSpec = str | Path | Input | tuple


@dataclass(frozen=True)
class Progress:
    """A snapshot for live displays, passed to the ``progress`` callback after every batch."""

    seconds: float
    budget_seconds: float | None
    executions: int
    inputs: int
    engines: tuple
    phase: str = "searching"


def resolve_implementations(specs: Sequence[ImplementationSpec], *, function: str | None) -> list[Implementation]:
    """Load every implementation from a spec string, a live function, or an Implementation."""
    impls = []
    for spec in specs:
        if isinstance(spec, Implementation):
            impls.append(spec)
        elif isinstance(spec, str | Path):
            impls.append(load.load_implementation(str(spec), function=function))
        elif callable(spec):
            impls.append(load.load_callable(spec))
        else:
            raise InvalidArgument(f"implementation {spec!r}: expected a spec string, a function or an Implementation")
    labels = [impl.label for impl in impls]
    if len(set(labels)) != len(labels):
        # Two specs may name the same label (e.g. a.py and ./a.py); keep them apart in reports.
        seen: dict[str, int] = {}
        renamed = []
        for impl in impls:
            seen[impl.label] = seen.get(impl.label, 0) + 1
            if labels.count(impl.label) > 1:
                impl = replace(impl, label=f"{impl.label}#{seen[impl.label]}")
            renamed.append(impl)
        impls = renamed
    return impls


def gather_seeds(
    impls: Sequence[Implementation], signature: Signature, seeds: Iterable[SeedSpec] | SeedSpec | None
) -> tuple[list[Input], list[str]]:
    """Seeds from the caller (files, inputs, argument tuples), doctests and assert lines."""
    notes: list[str] = []
    found: list[Input] = []
    if seeds is None:
        given: list[SeedSpec] = []
    elif isinstance(seeds, str | Path | Input):
        given = [seeds]
    else:
        given = list(seeds)
    for item in given:
        if isinstance(item, Input):
            found.append(item)
        elif isinstance(item, tuple):
            found.append(Input(args=item, how_generated="seeds"))
        else:
            found.extend(load.seeds_from_file(Path(item), signature))
    for impl in impls:
        found.extend(load.seeds_from_docstring(impl))
        found.extend(load.seeds_from_asserts(impl.source, impl.entry_point))
    unique: dict[str, Input] = {}
    dropped = 0
    for item in found:
        if not conforms(item, signature):
            dropped += 1
            continue
        unique.setdefault(item.key, item)
    if dropped:
        notes.append(f"{dropped} seed input(s) did not fit the signature {signature} and were dropped")
    return list(unique.values()), notes


def _requirement(require: str | Callable[..., bool] | None, signature: Signature) -> Callable[[Input], bool] | None:
    if require is None:
        return None
    if isinstance(require, str):
        return make_requirement(require, signature)

    def predicate(item: Input) -> bool:
        try:
            return bool(require(*item.args, **item.kwargs))
        except Exception:  # noqa: BLE001 - a predicate that raises rejects the input
            return False

    return predicate


@dataclass
class Search:
    """The shared machinery: engines, sandbox, policy, budget. Close it when done."""

    implementations: tuple[Implementation, ...]
    signature: Signature
    policy: EqualityPolicy
    limits: Limits
    budget: Budget
    engine_names: tuple[str, ...]
    seeds: tuple[Input, ...]
    requirement: Callable[[Input], bool] | None
    isolation: str | None
    seed: int
    notes: list[str] = field(default_factory=list)
    progress: Callable[[Progress], None] | None = None
    #: whether the caller chose the engines (then one that cannot start is an error, not a note)
    engines_requested: bool = False
    #: judges every confirmed difference before it counts (None: every difference counts)
    spurious_filter: SpuriousFilter | None = None
    #: the language model of the LLM engines (None: no model configured)
    llm: ChatModel | None = None
    #: the task description, for the LLM engines
    spec: str | None = None
    #: ProbeGen's tree search: {"strategy": "decreasing", "k": 3, "d": 4} (defaults when absent)
    probegen: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.started = time.monotonic()
        self.pool = WorkerPool(
            self.implementations,
            limits=self.limits,
            isolation=self.isolation,
            compare_mutation=self.policy.compare_mutation,
        )
        level = self.pool.level
        if level is not Isolation.BUBBLEWRAP:
            self.notes.append(f"sandbox: {level.value} only — {GUARANTEES[level]}")
        self.context = EngineContext(
            implementations=self.implementations,
            signature=self.signature,
            seeds=self.seeds,
            constants=Constants.harvest(impl.source for impl in self.implementations).with_values(
                self.pool.runtime_constants
            ),
            seed=self.seed,
            require=self.requirement,
            limits=self.limits,
            isolation=level.value,
            seconds=self.budget.seconds,
            extras={
                "chat": self.llm,
                "spec": self.spec,
                "policy": self.policy,
                "spurious_filter": self.spurious_filter,
                "probegen": self.probegen or {},
            },
        )
        self.engines = self._start_engines()
        self.portfolio = Portfolio(self.engines)
        self.seen: set[str] = set()
        self.fingerprints: set[str] = set()
        self.inputs_run = 0
        self.rejected = 0
        #: inputs where only timeouts set implementations apart (see EqualityPolicy.timeouts)
        self.inconclusive = 0

    def _start_engines(self) -> list[Engine]:
        engines: list[Engine] = []
        for name in self.engine_names:
            try:
                engines.append(engine_class(name)(self.context))
            except (EngineCannotProceed, MissingExtra, ImportError) as error:
                if self.engines_requested:
                    # The caller named this engine: going on without it would answer another question.
                    raise InvalidArgument(f"engine {name!r} cannot run: {error}") from error
                self.notes.append(f"engine {name} not used: {error}")
        if not engines:
            raise InvalidArgument(
                "no engine can run: " + "; ".join(self.notes) if self.notes else "no engines selected"
            )
        return engines

    # -- budget -----------------------------------------------------------------------------------

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def executions(self) -> int:
        return self.pool.executions

    def out_of_budget(self) -> ExitReason | None:
        if self.budget.seconds is not None and self.elapsed >= self.budget.seconds:
            return ExitReason.BUDGET_SECONDS
        if self.budget.executions is not None and self.executions >= self.budget.executions:
            return ExitReason.BUDGET_EXECUTIONS
        return None

    def acceptable(self, item: Input) -> bool:
        """The preconditions: annotations (typeguard) and the user's requirement."""
        if not conforms(item, self.signature):
            return False
        return self.requirement is None or self.requirement(item)

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
                    self.rejected += 1
                    continue
                fresh.append(item)
            if self.budget.executions is not None:
                room = max(0, (self.budget.executions - self.executions) // max(1, len(self.implementations)))
                fresh = fresh[:room]
            started = time.monotonic()
            results = self.pool.run(fresh, deadline=self.deadline)
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
        self._report_progress()
        return observations

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
            call = observation.input.call(self.implementations[0].entry_point, max_length=60)
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

    def run_fresh(self, item: Input, *, timeout_factor: float = 1.0) -> tuple[Outcome, ...]:
        """Run one input on brand-new workers (no state left over from earlier calls)."""
        limits = self.limits
        if timeout_factor != 1.0:
            limits = replace(limits, timeout=limits.timeout * timeout_factor)
        with WorkerPool(
            self.implementations, limits=limits, isolation=self.pool.level,
            compare_mutation=self.policy.compare_mutation,
        ) as fresh:
            outcomes = fresh.run([item])[0]
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
        values_only = self.policy.with_(compare_mutation=False, compare_stdout=False)
        keep_values_apart = values_only.partition(observation.outcomes) == target
        deadline = time.monotonic() + seconds

        def same_difference(item: Input, outcomes: tuple[Outcome, ...] | None) -> bool:
            if outcomes is None:
                return False
            if self.policy.partition(outcomes) != target or not self.policy.observe(item, outcomes).divergent:
                return False
            return not keep_values_apart or values_only.partition(outcomes) == target

        kept: dict[str, tuple[Outcome, ...]] = {}

        def still_divergent(batch: Sequence[Input]) -> list[bool]:
            results = self.pool.run(batch, deadline=deadline)
            verdicts = []
            for item, outcomes in zip(batch, results, strict=True):
                verdicts.append(same_difference(item, outcomes))
                if verdicts[-1]:
                    kept[item.key] = outcomes  # type: ignore[assignment]
            return verdicts

        smaller = shrink_input(
            observation.input, still_divergent=still_divergent, acceptable=self.acceptable, seconds=seconds
        )
        if smaller.key == observation.input.key:
            return observation
        confirmed, _ = self.confirm(self.policy.observe(smaller, kept[smaller.key]))
        if confirmed is None or not same_difference(smaller, confirmed.outcomes):
            return observation
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
            isolation=self.pool.level.value,
            policy=self.policy.describe(),
            seed=self.seed,
            notes=tuple(self.notes) + self._model_engine_notes(),
            nondeterministic=tuple(partition.nondeterministic),
            filtered_out=tuple(partition.filtered_out),
            llm=self.llm_usage(),
        )

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
        self.pool.close()


def refine(
    classes: Sequence[tuple[int, ...]], observation: Observation, policy: EqualityPolicy
) -> tuple[tuple[int, ...], ...]:
    """Split each class whose members behaved differently on this observation.

    Members whose outcome is inconclusive (a timeout, by default) cannot be told apart from the
    others by it: they stay with the first class of their old class."""
    refined: list[tuple[int, ...]] = []
    for members in classes:
        conclusive = [i for i in members if i not in observation.inconclusive]
        undecided = [i for i in members if i in observation.inconclusive]
        if not conclusive:
            refined.append(tuple(members))
            continue
        subclasses = [
            [conclusive[j] for j in sub] for sub in policy.partition([observation.outcomes[i] for i in conclusive])
        ]
        subclasses[0] = sorted(subclasses[0] + undecided)
        refined.extend(tuple(sub) for sub in subclasses)
    return tuple(refined)


@dataclass
class Partition:
    """Behaviour classes found so far, with the confirmed input behind each split."""

    classes: tuple[tuple[int, ...], ...]
    splits: list[Split] = field(default_factory=list)
    nondeterministic: list[Input] = field(default_factory=list)
    failed_confirmations: int = 0
    #: confirmed differences the spurious-counterexample filter judged irrelevant
    filtered_out: list[Counterexample] = field(default_factory=list)


def refine_partition(
    search: Search,
    partition: Partition,
    *,
    deadline: float | None = None,
    pending: Sequence[tuple[str, Observation]] = (),
) -> ExitReason:
    """Run the search loop, splitting classes on confirmed differences, until nothing is left to
    split, the budget or ``deadline`` (a ``time.monotonic()`` value) runs out, or the engines stop.

    ``pending`` are observations already made and not yet looked at (they are looked at first)."""
    count = len(search.implementations)
    try:
        while len(partition.classes) < count:
            if pending:
                observations, pending = list(pending), ()
            else:
                observations = search.next_round(deadline)
                if isinstance(observations, ExitReason):
                    return observations
            for engine_name, observation in observations:
                if len(refine(partition.classes, observation, search.policy)) == len(partition.classes):
                    continue
                if partition.failed_confirmations >= MAX_FAILED_CONFIRMATIONS:
                    continue
                confirmed, why = search.confirm(observation)
                if confirmed is None:
                    _note_unconfirmed(search, partition, observation, why)
                    continue
                refined = refine(partition.classes, confirmed, search.policy)
                if len(refined) == len(partition.classes):
                    continue
                # A split the filter judges irrelevant does not split the classes (ProbeGen, Sec. 5).
                verdict = _assess_relevance(search, partition, engine_name, confirmed)
                if verdict is not None and not verdict.relevant:
                    continue
                partition.classes = refined
                partition.splits.append(
                    Split(input=confirmed.input, classes=refined, outcomes=confirmed.outcomes, engine=engine_name,
                          filter=verdict)
                )
    except KeyboardInterrupt:
        return ExitReason.INTERRUPTED
    return ExitReason.FOUND


def _assess_relevance(search: Search, partition: Partition, engine_name: str, observation: Observation) -> FilterVerdict | None:
    """The spurious-counterexample filter's verdict on a confirmed difference (None without a filter).

    One judged irrelevant is kept in ``partition.filtered_out``, with its verdict, for the report."""
    spurious_filter = search.spurious_filter
    if spurious_filter is None:
        return None
    if len(partition.filtered_out) >= MAX_FILTERED_OUT:
        return FilterVerdict(
            relevant=True,
            rationale=f"not judged: {MAX_FILTERED_OUT} differences were already judged irrelevant in this run",
            differences=FilterDecision.UNJUDGED,
            model=spurious_filter.model,
        )
    search._report_progress("judging")
    verdict = spurious_filter.assess(search.implementations, observation.input, observation.outcomes)
    if verdict.differences is FilterDecision.UNJUDGED and not any(n.startswith("filter:") for n in search.notes):
        search.notes.append(f"filter: {verdict.rationale}; differences are kept unjudged")
    if not verdict.relevant:
        partition.filtered_out.append(
            Counterexample(
                input=observation.input,
                outcomes=observation.outcomes,
                classes=observation.classes,
                engine=engine_name,
                original=observation.input,
                function_name=search.implementations[0].entry_point,
                filter=verdict,
            )
        )
        if len(partition.filtered_out) == MAX_FILTERED_OUT:
            search.notes.append(
                f"filter: {MAX_FILTERED_OUT} differences judged irrelevant; later ones are kept unjudged"
            )
    return verdict


def _note_unconfirmed(search: Search, partition: Partition, observation: Observation, why: str) -> None:
    partition.failed_confirmations += 1
    if why.startswith("not deterministic"):
        partition.nondeterministic.append(observation.input)
    if partition.failed_confirmations <= 5:
        search.notes.append(f"{observation.input.call(search.implementations[0].entry_point, max_length=60)}: {why}")
    if partition.failed_confirmations == MAX_FAILED_CONFIRMATIONS:
        search.notes.append(f"stopped confirming after {MAX_FAILED_CONFIRMATIONS} differences that did not hold")


def prepare(
    implementations: Sequence[ImplementationSpec],
    *,
    function: str | None = None,
    budget: Budget | float | int = Budget(),
    engines: Sequence[str] | str | None = None,
    seeds: Iterable[SeedSpec] | SeedSpec | None = None,
    require: str | Callable[..., bool] | None = None,
    policy: EqualityPolicy = DEFAULT_POLICY,
    limits: Limits = Limits(),
    isolation: str | None = None,
    seed: int = 0,
    progress: Callable[[Progress], None] | None = None,
    minimum: int = 2,
    spurious_filter: SpuriousFilter | None = None,
    llm: ChatModel | None = None,
    spec: str | None = None,
    probegen: dict[str, Any] | None = None,
) -> Search:
    """Load, validate and start a :class:`Search` (shared by check, cluster and the benchmarks)."""
    if isinstance(budget, int | float):
        budget = Budget(seconds=float(budget))
    engine_names = parse_engine_list(engines) if engines is None or isinstance(engines, str) else tuple(engines)
    if llm is None and (engines is None or engines == "all"):
        # Without a model the default portfolio is the offline one (no note about LLM engines).
        engine_names = tuple(name for name in engine_names if name not in NEEDS_MODEL)
    for name in engine_names:
        if name not in ENGINES:
            raise InvalidArgument(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
    impls = resolve_implementations(implementations, function=function)
    if len(impls) < minimum:
        raise InvalidArgument(f"need at least {minimum} implementations to compare, got {len(impls)}")
    signature = load.common_signature(impls)
    seed_inputs, notes = gather_seeds(impls, signature, seeds)
    load.check_generatable(signature, seed_inputs)
    return Search(
        implementations=tuple(impls),
        signature=signature,
        policy=policy,
        limits=limits,
        budget=budget,
        engine_names=engine_names,
        seeds=tuple(seed_inputs),
        requirement=_requirement(require, signature),
        isolation=isolation,
        seed=seed,
        notes=notes,
        progress=progress,
        engines_requested=engines is not None and engines != "all",
        spurious_filter=spurious_filter,
        llm=llm,
        spec=spec,
        probegen=probegen,
    )


class SearchOptions(TypedDict, total=False):
    """The keyword options :func:`check` and ``cluster`` share (see :func:`prepare`)."""

    function: str | None
    budget: Budget | float | int
    engines: Sequence[str] | str | None
    seeds: Iterable[SeedSpec] | SeedSpec | None
    require: str | Callable[..., bool] | None
    policy: EqualityPolicy
    limits: Limits
    isolation: str | None
    seed: int
    progress: Callable[[Progress], None] | None
    spurious_filter: SpuriousFilter | None
    #: the language model for the LLM engines (``divergent.llm.chat.ChatModel``)
    llm: ChatModel | None
    #: the task description given to the LLM engines (and to the filter, by its caller)
    spec: str | None
    #: ProbeGen settings: {"strategy": "decreasing", "k": 3, "d": 4}
    probegen: dict[str, Any] | None


def check(
    implementations: Sequence[ImplementationSpec], *, shrink: bool = True, **options: Unpack[SearchOptions]
) -> Report:
    """Search for an input on which the implementations differ; stop at the first confirmed one.

    ``implementations`` are spec strings (``a.py:f``, ``pkg.mod:f``, ``HEAD~1:a.py:f``), live
    functions, or :class:`Implementation` records; ``options`` are :func:`prepare`'s (budget,
    engines, seeds, require, policy, limits, isolation, seed, progress). Raises LoadError,
    SignatureMismatch, MissingSeeds or InvalidArgument for bad input; a program that misbehaves is
    an outcome.
    """
    search = prepare(implementations, **options)
    try:
        return run_check(search, shrink=shrink)
    finally:
        search.close()


def run_check(search: Search, *, shrink: bool = True) -> Report:
    count = len(search.implementations)
    partition = Partition(classes=(tuple(range(count)),))
    found: tuple[str, Observation] | None = None
    verdict: FilterVerdict | None = None
    leftover: list[tuple[str, Observation]] = []
    exit_reason = ExitReason.EXHAUSTED
    try:
        while found is None:
            observations = search.next_round()
            if isinstance(observations, ExitReason):
                exit_reason = observations
                break
            for position, (engine_name, observation) in enumerate(observations):
                if not observation.divergent or partition.failed_confirmations >= MAX_FAILED_CONFIRMATIONS:
                    continue
                confirmed, why = search.confirm(observation)
                if confirmed is None:
                    _note_unconfirmed(search, partition, observation, why)
                    continue
                # Judged before shrinking: a spurious difference costs no shrinking time, and the
                # found input is the one the engine meant (shrinking heads for edge cases such as
                # empty or negative values, which break implicit preconditions more often).
                verdict = _assess_relevance(search, partition, engine_name, confirmed)
                if verdict is not None and not verdict.relevant:
                    continue  # kept in partition.filtered_out; the search goes on
                found = (engine_name, confirmed)
                leftover = observations[position + 1 :]
                exit_reason = ExitReason.FOUND
                break
    except KeyboardInterrupt:
        exit_reason = ExitReason.INTERRUPTED
    counterexample = None
    if found is not None:
        engine_name, observation = found
        original = observation.input
        if shrink:
            search._report_progress("shrinking")
            try:
                shrunk = search.shrink(observation, max(3.0, 0.25 * (search.budget.seconds or 20.0)))
                if shrunk.input.key != observation.input.key:
                    observation, verdict = _judged_shrunk(search, partition, engine_name, observation, shrunk, verdict)
            except KeyboardInterrupt:
                pass
        partition.classes = observation.classes
        partition.splits.append(
            Split(input=observation.input, classes=observation.classes, outcomes=observation.outcomes,
                  engine=engine_name, filter=verdict)
        )
        counterexample = Counterexample(
            input=observation.input,
            outcomes=observation.outcomes,
            classes=observation.classes,
            engine=engine_name,
            original=original,
            function_name=search.implementations[0].entry_point,
            filter=verdict,
        )
        if count > 2 and len(partition.classes) < count and exit_reason is not ExitReason.INTERRUPTED:
            # With N implementations, spend a little more to find every class, not just the first split.
            search._report_progress("refining classes")
            extra = max(2.0, 0.25 * (search.budget.seconds or 20.0))
            refine_partition(search, partition, deadline=time.monotonic() + extra, pending=leftover)
    return search.report(
        verdict=Verdict.DIVERGENT if counterexample else Verdict.NO_DIFFERENCE_FOUND,
        counterexample=counterexample,
        partition=partition,
        exit_reason=exit_reason,
    )


def _judged_shrunk(
    search: Search,
    partition: Partition,
    engine_name: str,
    found: Observation,
    shrunk: Observation,
    verdict: FilterVerdict | None,
) -> tuple[Observation, FilterVerdict | None]:
    """The shrunk difference with its own verdict, or the found one when the filter judges the shrunk
    one irrelevant (a smaller input may break a precondition the found one kept)."""
    if search.spurious_filter is None:
        return shrunk, verdict
    shrunk_verdict = _assess_relevance(search, partition, engine_name, shrunk)
    if shrunk_verdict is not None and not shrunk_verdict.relevant:
        call = shrunk.input.call(search.implementations[0].entry_point, max_length=60)
        search.notes.append(f"not shrunk: the filter judged the smaller {call} irrelevant ({shrunk_verdict.rationale})")
        return found, verdict
    return shrunk, shrunk_verdict


def assert_equivalent(*functions: ImplementationSpec, budget: float = 5.0, **options: Any) -> Report:
    """For test suites: raise AssertionError showing the shrunk counterexample if any is found.

    ``options`` are those of :func:`check` (``engines``, ``seeds``, ``require``, ``policy``, ...).
    """
    if len(functions) == 1 and isinstance(functions[0], list | tuple):
        functions = tuple(functions[0])
    report = check(list(functions), budget=Budget(seconds=budget), **options)
    if report.divergent:
        from divergent.report.text import plain_report

        raise AssertionError(plain_report(report))
    return report
