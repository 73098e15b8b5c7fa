"""What a search has seen and what it counts, apart from the loop that runs it
(:class:`~divergent.search.loop.Search` holds one of each).

:class:`History`: the inputs proposed (each runs once), the behaviours seen (novelty), the first input
of each behaviour (a bounded sample: the parents of a restarted engine), the keys of the inputs run
(a small input space seen whole), when the search last saw something new, and the engines' counts
over time (the report's timeline).

:class:`Tally`: the counts a verdict rests on: the inputs run and those that do not back it, the
precondition failures, the inconclusive inputs, per program the inputs it was not judged on, and
whether the main runner still runs the programs warm.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from divergent.comparison import behaviour_fingerprint
from divergent.engines.portfolio import RESTART_PARENTS
from divergent.records import EngineStats, Observation, TimelinePoint

#: about how many points of the engines' history a report keeps (between this and twice this)
TIMELINE_POINTS = 150
#: first inputs of behaviours kept as parents for restarted engines (a uniform sample of them all)
FIRSTS_KEPT = 4096
#: the keys of the first inputs run are kept, up to this many (a small input space seen whole)
KEEP_RAN = 10_000


class History:
    """What one search has seen (not thread-safe: the search's thread keeps it)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        #: when the search began (``time.monotonic()``)
        self.began = time.monotonic()
        #: the keys of the inputs proposed so far (each input runs once)
        self.proposed: set[str] = set()
        #: the behaviours seen (:func:`~divergent.comparison.behaviour_fingerprint`)
        self.fingerprints: set[str] = set()
        #: the keys of the inputs run (small ones: a small input space run whole is told by them)
        self.ran: set[str] = set()
        #: when the search last saw a behaviour new to it, and how many inputs it had run then
        self.last_novel = self.began
        self.inputs_at_last_novel = 0
        #: the engines' counts after every round, thinned (Report.timeline)
        self.timeline: list[TimelinePoint] = []
        self._firsts: list[Observation] = []
        self._firsts_seen = 0
        self._rng = random.Random(f"{seed}:firsts")

    def fresh(self, key: str) -> bool:
        """Whether the input ``key`` was never proposed before (it is from now on)."""
        if key in self.proposed:
            return False
        self.proposed.add(key)
        return True

    def forget(self, keys: Iterable[str]) -> None:
        """Inputs that did not run after all (the slice or the budget ran out): they may come again."""
        self.proposed.difference_update(keys)

    def behaviour(self, observation: Observation) -> tuple[str, bool]:
        """The fingerprint of ``observation``'s behaviour, and whether it is new to the search (its
        input is then kept among the first inputs of behaviours)."""
        fingerprint = behaviour_fingerprint(observation)
        if fingerprint in self.fingerprints:
            return fingerprint, False
        self.fingerprints.add(fingerprint)
        self._keep_first(observation)
        return fingerprint, True

    def ran_inputs(self, keys: Sequence[str], inputs_run: int, novel: int) -> None:
        """A batch ran (``keys``: its inputs that ran everywhere; ``inputs_run``: the search's count
        after it; ``novel``: the new behaviours it showed)."""
        if inputs_run <= KEEP_RAN:  # (past it, no space small enough to matter is left to see)
            self.ran.update(keys)
        if novel:
            self.last_novel = time.monotonic()
            self.inputs_at_last_novel = inputs_run

    def _keep_first(self, observation: Observation) -> None:
        """Keep the first input of a new behaviour in a bounded uniform sample (reservoir sampling)."""
        self._firsts_seen += 1
        if len(self._firsts) < FIRSTS_KEPT:
            self._firsts.append(observation)
            return
        slot = self._rng.randrange(self._firsts_seen)
        if slot < FIRSTS_KEPT:
            self._firsts[slot] = observation

    def parents(self, restart: int) -> list[Observation]:
        """Parents for an engine's restart number ``restart``: a random sample of the inputs that
        first showed a behaviour, drawn afresh for each restart (reproducible for the seed)."""
        rng = random.Random(f"{self.seed}:parents:{restart}")
        return rng.sample(self._firsts, min(RESTART_PARENTS, len(self._firsts)))

    def point(self, seconds: float, engines: tuple[EngineStats, ...]) -> None:
        """One point of the engines-over-time chart; past ``2 * TIMELINE_POINTS`` every other point
        goes, so a long run keeps an even sample of its history in bounded memory."""
        self.timeline.append(TimelinePoint(seconds=round(seconds, 3), engines=engines))
        if len(self.timeline) > 2 * TIMELINE_POINTS:
            self.timeline = [*self.timeline[:-1:2], self.timeline[-1]]


@dataclass
class Tally:
    """The counts behind a search's verdict."""

    #: programs compared (the length of :attr:`unjudged_by`)
    programs: int
    #: whether the main runner runs the programs otherwise than the reference mode (until it is
    #: replaced); None: it proved unfaithful and the budget left no time to replace it
    running_warm: bool | None = False
    inputs_run: int = 0
    #: inputs run that do not back a verdict: differences the warm mode showed that the reference
    #: mode never settled, and every input the warm mode judged once it proved unfaithful
    discounted: int = 0
    #: differences the warm mode showed and a fresh process did not (a warm mode that keeps
    #: showing them is left for the reference mode)
    warm_only: int = 0
    #: inputs that failed a precondition (the validator counts its own rejections)
    failed_preconditions: int = 0
    #: inputs where only timeouts set implementations apart (see Comparison.timeouts)
    inconclusive: int = 0
    #: executions of runners the search no longer uses (its warm runner, once it left it)
    executions_before: int = 0
    #: per implementation, the inputs judged on which its outcome was inconclusive (it ran past the
    #: limit where others answered, not yet re-run longer): it was not told apart from others on them
    unjudged_by: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.unjudged_by:
            self.unjudged_by = [0] * self.programs

    @property
    def judged(self) -> int:
        """The inputs that back a verdict (:attr:`discounted` ones aside; none once the warm mode proved
        unfaithful and the budget left no time for the reference mode)."""
        return 0 if self.running_warm is None else max(0, self.inputs_run - self.discounted)
