"""Confirming and shrinking a difference: it counts only when it holds on brand-new workers, and is
reported in the simplest form that still differs the same way."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from divergent.errors import BudgetSpent
from divergent.kinds.base import Subjects
from divergent.records import AnyInput, Observation, Outcome, OutcomeKind
from divergent.sandbox.limits import Limits
from divergent.sandbox.runner import Runner
from divergent.search.escalation import Escalated
from divergent.search.notes import Journal
from divergent.trace import mark

#: how a confirmation that the reference mode refutes begins its "why": the warm mode (a warm
#: interpreter or JVM, or a worker after earlier calls) showed a difference a fresh process per run
#: does not, twice alike (a note, never a difference)
WARM_ONLY = "seen only in the warm mode"
#: how a confirmation the budget left no time for begins its "why"
NO_TIME = "the budget ended before the reference mode could run it"
#: after this many such differences, a search whose runner is warm goes on in the reference mode
REFERENCE_AFTER = 2
#: re-runs of a divergent input on workers of their own once some program of the search behaved
#: differently on a re-run (one otherwise): a program that returns one of two values at random repeats
#: a pair of outcomes on one re-run one time in four, so its difference with a copy of itself would be
#: confirmed that often
UNSTABLE_RERUNS = 3


class Confirmer:
    """Confirmation on fresh runners and shrinking on the search's runner, for one search."""

    def __init__(
        self,
        *,
        subjects: Subjects,
        limits: Limits,
        fresh_runner: Callable[[], Runner],
        runner: Runner,
        acceptable: Callable[[AnyInput], bool],
        admit: Callable[[Sequence[AnyInput]], list[AnyInput]],
        journal: Journal,
    ) -> None:
        """``fresh_runner``: a brand-new runner (the search's spares); ``runner``: the search's own;
        ``acceptable``: the preconditions; ``admit``: the inputs of a batch the validator accepts."""
        self.subjects = subjects
        self.implementations = subjects.programs
        self.comparison = subjects.comparison
        self.limits = limits
        self._fresh_runner = fresh_runner
        self.runner = runner
        self.acceptable = acceptable
        self.admit = admit
        self.journal = journal
        #: the inputs the last successful :meth:`shrink` moved through (Counterexample.shrink_steps)
        self.shrink_steps: tuple[AnyInput, ...] = ()
        #: inputs the escalation lane settled on fresh workers, by key (confirmation is then done)
        self.escalated: dict[str, Escalated] = {}
        #: inputs on which a program behaved differently when re-run
        self.unstable = 0

    def run_fresh(self, item: AnyInput, *, timeout: float | None = None) -> tuple[Outcome, ...]:
        """Run one input on brand-new workers (no state left over from earlier calls). A longer limit
        than the usual is sent with the batch, or, for runners whose limit is fixed when they start
        (a judge's), given to a runner started with it."""
        if not self.subjects.adaptive_limits and timeout is not None and timeout > self.limits.timeout:
            fresh = self.subjects.open_runner(timeout / self.limits.timeout, reference=True)
        else:
            fresh = self._fresh_runner()
        try:
            outcomes = fresh.run([item], timeout=timeout)[0]
        finally:
            fresh.close()
        assert outcomes is not None  # no deadline: every implementation ran
        return outcomes

    def confirm(self, observation: Observation) -> tuple[Observation | None, str]:
        """Re-run a divergent input in the reference mode (a fresh process per run: the mode the
        printed ``reproduce`` commands and the reproducing test use), up to :data:`UNSTABLE_RERUNS`
        times, each on workers of its own, once a program of the search was seen to be
        nondeterministic; None (with why) if it does not hold there.

        A program whose outcome there differs from the search's is run there once more: the same
        outcome twice is the reference mode's answer (a difference seen only warm, :data:`WARM_ONLY`,
        when the programs agree there; the reference mode's difference when they do not), two
        outcomes is nondeterminism.

        An input the escalation lane re-ran on fresh workers is confirmed already. When a timeout
        takes part in the difference (``--timeouts differ``), the re-run gives three times the
        timeout, so a call that is merely slow on a loaded machine is not reported."""
        mark("confirm")
        settled = self.escalated.get(observation.input.key)
        if settled is not None and settled.observation is observation:
            return (observation, "") if settled.confirmed else (None, settled.why)
        timed_out = any(
            o.kind is OutcomeKind.TIMEOUT for i, o in enumerate(observation.outcomes) if i not in observation.inconclusive
        )
        timeout = self.limits.timeout * (3.0 if timed_out else 1.0)
        # Each re-run on workers of its own: a second call in the same process could differ by the
        # state the first left (a cache, a mutated default), which is no nondeterminism.
        try:
            return self._confirmed(observation, timeout)
        except BudgetSpent:
            return None, f"{NO_TIME} (raise --budget)"

    def _confirmed(self, observation: Observation, timeout: float) -> tuple[Observation | None, str]:
        outcomes = self.run_fresh(observation.input, timeout=timeout)
        reruns = [outcomes]
        while self.unstable and len(reruns) < UNSTABLE_RERUNS and not self._unstable(observation.outcomes, reruns):
            reruns.append(self.run_fresh(observation.input, timeout=timeout))
        moved = self._unstable(observation.outcomes, reruns)
        if moved:
            if len(reruns) == 1:
                reruns.append(self.run_fresh(observation.input, timeout=timeout))
            unstable = self._unstable(reruns[0], reruns[1:])
            if unstable:
                self.unstable += 1
                return None, f"not deterministic: {', '.join(unstable)} behaved differently on a re-run"
            if not self.comparison.observe(observation.input, outcomes).divergent:
                where = ("a warm interpreter or JVM" if self.subjects.warm else
                         "a worker after earlier calls (state they left: a cache, a mutated global or default)")
                return None, (f"{WARM_ONLY}: {', '.join(moved)} behaved otherwise in {where} than in a fresh process "
                              f"per run, the mode `reproduce` uses, where the programs agree")
        confirmed = self.comparison.observe(observation.input, outcomes)
        mark("confirmed")
        if not confirmed.divergent:
            return None, "the difference did not hold in a fresh process (a slow call or leftover state)"
        return confirmed, ""

    def _unstable(self, first: Sequence[Outcome], reruns: Sequence[Sequence[Outcome]]) -> list[str]:
        """The programs whose outcome on some re-run differs from ``first`` (timeouts aside)."""
        return [
            self.implementations[i].label
            for i, before in enumerate(first)
            if any(not self.comparison.outcomes_equal(before, rerun[i])
                   and OutcomeKind.TIMEOUT not in (before.kind, rerun[i].kind) for rerun in reruns)
        ]

    def shrink(self, observation: Observation, seconds: float, *, limit: float, confirm: bool = True,
               cut: str = "by the budget") -> Observation:
        """A simpler input with the same classes and the same kind of difference, confirmed (unless
        ``confirm`` is False: then as the search's workers saw it); the original if none is found
        (a note says so when the time ran out first). ``limit``: the least per-call limit.

        "The same kind": when the implementations differ in what they return or raise, a smaller
        input must too (not only in how they leave their arguments, or in what they print)."""
        mark("shrink")
        target = observation.classes
        values_only = self.comparison.essential()
        keep_values_apart = values_only.partition(observation.outcomes) == target
        deadline = time.monotonic() + seconds
        # A difference that needed a longer limit (a slow call) is shrunk under that limit.
        limit = min(max(limit, max(o.seconds for o in observation.outcomes) * 2), self.limits.timeout)

        def same_difference(item: AnyInput, outcomes: tuple[Outcome, ...] | None) -> bool:
            if outcomes is None or self.subjects.claimable(item) is not None:
                return False  # (a smaller input must stay where a claim may rest)
            if self.comparison.partition(outcomes) != target or not self.comparison.observe(item, outcomes).divergent:
                return False
            return not keep_values_apart or values_only.partition(outcomes) == target

        kept: dict[str, tuple[Outcome, ...]] = {}

        def still_divergent(batch: Sequence[AnyInput]) -> list[bool]:
            admitted = {item.key for item in self.admit(batch)}
            runnable = [item for item in batch if item.key in admitted]
            results = self.runner.run(runnable, deadline=deadline, timeout=limit) if runnable else []
            ran = dict(zip((item.key for item in runnable), results, strict=True))
            verdicts = []
            for item in batch:
                outcomes = ran.get(item.key)
                verdicts.append(same_difference(item, outcomes))
                if verdicts[-1]:
                    kept[item.key] = outcomes  # type: ignore[assignment]
            return verdicts

        steps: list[AnyInput] = []
        smaller = self.subjects.kind.shrink(observation.input, still_divergent=still_divergent,
                                            acceptable=self.acceptable, seconds=seconds, on_step=steps.append)
        self.shrink_steps = ()
        mark("shrunk")
        if time.monotonic() >= deadline:
            self.journal.note(f"shrinking was cut short {cut}: the counterexample may not be the simplest")
        if smaller.key == observation.input.key:
            return observation
        seen = self.comparison.observe(smaller, kept[smaller.key])
        if not confirm:
            self.shrink_steps = tuple(steps)
            return seen
        confirmed, _ = self.confirm(seen)
        if confirmed is None or not same_difference(smaller, confirmed.outcomes):
            return observation
        self.shrink_steps = tuple(steps)
        return confirmed
