"""The scheduler that shares one budget among the engines: by time, cheapest first.

Every engine gets a quick first turn (a small batch each, in registry order, so the cheap engines
speak first; an engine is only built, and its libraries imported, when its first turn comes). After
that, turns share the *time*: each engine is owed a share of the seconds spent so far, and the turn
goes to the engine furthest behind its share. An engine's share is a floor (every engine keeps
getting turns, however unproductive, because a bug may sit behind the next rare input) plus a part
proportional to what it finds per second: behaviours not seen before (a new tuple of outcomes
across the implementations) and divergences, in recent turns. A fast engine that finds as much per
input as a slow one therefore gets more inputs through, and an engine whose inputs are slow (a
quadratic implementation on large values) gets less of the time, never all of it.

A turn's batch is sized to take about :data:`TURN_SECONDS` at the engine's measured cost per input
(the search cuts a batch that runs long at the end of its slice, and gives the rest back at the
engine's next turn). Before each turn the engine is told when the turn should end and when the
search does (:attr:`Engine.turn_deadline`, :attr:`Engine.deadline`): an engine whose proposals can
be slow stops at the first and starts nothing past the second.

Background engines (symbolic execution in its own process, a language model on its own thread) are
not scheduled: they are polled on every turn and whatever they found runs in the next batch.

An engine's library can take longer to import than a quick answer takes (Hypothesis: about 150 ms).
So once the first engine has had its first turn, the libraries of the engines still to come are
imported on a background thread (``warm``), and an engine whose import is still under way is passed
over while others can take turns: the cheap engines go on searching meanwhile instead of waiting.

An engine whose finds depend on where its random walk went (``Engine.restartable``: mutation,
Hypothesis) can get stuck there: its inputs keep showing behaviours already seen while another seed
would have found the bug in a second. Once such an engine has revealed nothing new to the search in
its last :data:`RESTART_INPUTS` inputs, in twice as many as it needed for its last find, and in
:data:`RESTART_SECONDS` of its turns, it is restarted: a fresh instance with a fresh random stream
(``EngineContext.restart``), its parents the seeds and a random sample of the inputs that first
showed each behaviour of the search (``parents``), and another schedule of value sizes. The engines
table says how diverse each engine's inputs were and how long it went without a find, so a report
shows when the search was stuck.

Because turns follow measured seconds, the order in which engines' inputs run depends on the
machine's speed; each engine's own sequence of inputs is reproducible for a seed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from divergent.engines.base import Engine, EngineContext
from divergent.engines.registry import NEEDS_MODEL
from divergent.errors import EngineCannotProceed, InvalidArgument, MissingExtra
from divergent.records import EngineStats, Input, Observation

#: inputs of an engine's first turn: enough to see its cost, few enough to answer fast
FIRST_TURN_BATCH = 16
MAX_BATCH = 4096
#: seconds one turn aims at (a batch is sized to take about this long)
TURN_SECONDS = 0.1
#: every live engine is owed at least this share of the time, divided among them
_FLOOR = 0.2
#: how much the last turns count against earlier ones in an engine's finds per second
_DECAY = 0.7
#: a restartable engine is restarted after at least this many inputs with nothing new to the search...
RESTART_INPUTS = 2000
#: ... and this many times the inputs it needed for its last find...
RESTART_FACTOR = 2.0
#: ... and at least this many seconds of its turns since then
RESTART_SECONDS = 1.0
#: observations a restarted engine is given as parents (a sample of the search's behaviours)
RESTART_PARENTS = 256


@dataclass
class _Arm:
    name: str
    #: builds the engine when its first turn comes (None once built)
    start: Callable[[], Engine] | None
    engine: Engine | None = None
    #: builds a fresh instance for a restart (its argument: the restart's number), if it may restart
    restart: Callable[[int], Engine] | None = None
    inputs: int = 0
    executions: int = 0
    #: its inputs a precondition or the validator rejected (never run)
    rejected: int = 0
    #: seconds of its turns: proposing, running and judging its inputs
    seconds: float = 0.0
    novel: int = 0
    divergences: int = 0
    turns: int = 0
    stopped: str = ""
    #: decayed finds and seconds of recent turns (finds per second = their ratio)
    recent_finds: float = 0.0
    recent_seconds: float = 0.0
    #: the distinct behaviours of its own inputs (hashes of their fingerprints)
    behaviours: set[int] = field(default_factory=set)
    #: its inputs since it last revealed a behaviour new to the search (and its seconds then), the
    #: longest such run
    since_novel: int = 0
    seconds_at_novel: float = 0.0
    longest_stale: int = 0
    longest_stale_seconds: float = 0.0
    restarts: int = 0
    #: the current instance's inputs, and how many it had run at its last find
    instance_inputs: int = 0
    instance_found_at: int = 0

    @property
    def background(self) -> bool:
        return self.engine is not None and self.engine.background

    @property
    def since_novel_seconds(self) -> float:
        """Seconds of its turns since it last revealed a behaviour new to the search."""
        return self.seconds - self.seconds_at_novel

    def stats(self) -> EngineStats:
        return EngineStats(
            name=self.name,
            inputs=self.inputs,
            executions=self.executions,
            seconds=round(self.seconds, 3),
            rejected=self.rejected,
            novel=self.novel,
            divergences=self.divergences,
            stopped=self.stopped,
            explored=self.engine.explored if self.engine is not None else "",
            behaviours=len(self.behaviours),
            since_novel=self.since_novel,
            longest_stale=self.longest_stale,
            longest_stale_seconds=round(self.longest_stale_seconds, 3),
            restarts=self.restarts,
        )

    def stuck(self) -> bool:
        """Whether it should be restarted: see the module's docstring."""
        if self.restart is None or self.engine is None or not self.engine.restartable or self.stopped:
            return False
        stale = self.instance_inputs - self.instance_found_at
        return (stale >= RESTART_INPUTS and stale >= RESTART_FACTOR * self.instance_found_at
                and self.since_novel_seconds >= RESTART_SECONDS)

    def batch_size(self, seconds_left: float | None = None) -> int:
        if self.inputs == 0:
            return FIRST_TURN_BATCH
        per_input = max(self.seconds / self.inputs, 1e-6)
        seconds = TURN_SECONDS if seconds_left is None else max(0.0, min(TURN_SECONDS, seconds_left))
        return max(1, min(MAX_BATCH, int(seconds / per_input)))

    def finds_per_second(self) -> float:
        return (self.recent_finds + 1.0) / (self.recent_seconds + 0.05)


class Portfolio:
    """Engines (built, or to be built at their first turn) and their shares of the time."""

    def __init__(
        self,
        engines: Sequence[Engine] = (),
        *,
        pending: Sequence[tuple[str, Callable[[], Engine]]] = (),
        on_start_failure: Callable[[str, Exception], None] | None = None,
        order: Sequence[str] = (),
        restarts: dict[str, Callable[[int], Engine]] | None = None,
        parents: Callable[[int], Sequence[Observation]] | None = None,
        warm: Callable[[str], object] | None = None,
    ) -> None:
        """``engines`` are running already; ``pending`` are (name, factory) pairs built at their first
        turn, in order. A factory that raises (an optional library missing, say) stops that engine;
        ``on_start_failure`` hears about it. ``order``: the engines' order in turns and statistics
        (default: running ones first, then pending ones). ``restarts``: by engine name, what builds
        its restart number N (engines without one are never restarted); ``parents(N)``: the
        observations a restarted engine is given as parents. ``warm(name)``: imports what a pending
        engine needs, on a background thread once the first turn is over (see the module's
        docstring); whatever it raises is raised again by the factory, on the search's thread."""
        arms = [_Arm(engine.name, None, engine) for engine in engines]
        arms += [_Arm(name, factory) for name, factory in pending]
        for arm in arms:
            arm.restart = (restarts or {}).get(arm.name)
        rank = {name: position for position, name in enumerate(order)}
        arms.sort(key=lambda arm: rank.get(arm.name, len(rank)))
        self._arms: dict[str, _Arm] = {arm.name: arm for arm in arms}
        self._on_start_failure = on_start_failure
        self._parents = parents
        self._warm = warm
        #: pending engines whose libraries are being imported in the background, until done
        self._warming: dict[str, threading.Event] = {}

    @property
    def engines(self) -> list[Engine]:
        """The engines built so far."""
        return [arm.engine for arm in self._arms.values() if arm.engine is not None]

    def engine(self, name: str) -> Engine | None:
        arm = self._arms.get(name)
        return arm.engine if arm is not None else None

    @property
    def active(self) -> bool:
        """Whether any engine can still propose inputs."""
        return any(not arm.stopped for arm in self._arms.values())

    @property
    def waiting_on_background(self) -> bool:
        """Only background engines are left (the loop should poll them, not spin)."""
        live = [arm for arm in self._arms.values() if not arm.stopped]
        return bool(live) and all(arm.background for arm in live)

    def stats(self) -> tuple[EngineStats, ...]:
        return tuple(arm.stats() for arm in self._arms.values())

    def stop(self, name: str, reason: str) -> None:
        self._arms[name].stopped = reason

    def poll_background(self) -> list[tuple[Engine, list[Input]]]:
        """What the background engines found since the last poll (non-blocking)."""
        batches = []
        for arm in self._arms.values():
            if arm.background and not arm.stopped:
                assert arm.engine is not None
                proposed = self._propose(arm, MAX_BATCH)
                if proposed:
                    batches.append((arm.engine, proposed))
        return batches

    def next_turn(
        self, extra: Callable[[str], list[Input]] | None = None, *, seconds_left: float | None = None
    ) -> tuple[Engine, list[Input]] | None:
        """The engine whose turn it is and its batch (``extra(name)``, inputs owed to it from an
        earlier turn, come first); None when no scheduled engine has anything to propose.
        ``seconds_left``: the time the search has left (a turn near the end is made shorter)."""
        tried: set[str] = set()
        self._start_warming()
        while True:
            arm = self._choose(tried)
            if arm is None:
                return None
            tried.add(arm.name)
            if arm.engine is None and not self._build(arm):
                continue
            if arm.background:
                continue  # it turned out to work on its own: polled from now on
            if arm.stuck():
                self._restart(arm)
            assert arm.engine is not None
            size = arm.batch_size(seconds_left)
            owed = extra(arm.name) if extra is not None else []
            started = time.monotonic()
            left = math.inf if seconds_left is None else max(0.0, seconds_left)
            arm.engine.turn_deadline = started + min(TURN_SECONDS, left)
            arm.engine.deadline = None if math.isinf(left) else started + left
            proposed = owed + (self._propose(arm, size - len(owed)) if len(owed) < size else [])
            spent = time.monotonic() - started
            arm.seconds += spent
            arm.recent_seconds += spent
            arm.turns += 1
            if proposed:
                return arm.engine, proposed

    def next_is_first_turn(self) -> bool:
        """Whether the next turn goes to an engine not built yet (building may import a library)."""
        arm = self._choose(set())
        return arm is not None and arm.engine is None

    def _start_warming(self) -> None:
        """Import the pending engines' libraries on a background thread, once some engine has had
        its first turn (a quick answer, found by the first batches, is not slowed by it)."""
        if self._warm is None or not any(arm.turns for arm in self._arms.values()):
            return
        warm, self._warm = self._warm, None
        pending = [arm.name for arm in self._arms.values() if arm.start is not None and not arm.stopped]
        self._warming = {name: threading.Event() for name in pending}

        def import_all() -> None:
            for name in pending:
                with contextlib.suppress(Exception):  # the factory raises it again, where it is reported
                    warm(name)
                self._warming[name].set()

        threading.Thread(target=import_all, name="divergent-engine-imports", daemon=True).start()

    def _importing(self, arm: _Arm) -> bool:
        """Whether ``arm``'s library is still being imported in the background."""
        event = self._warming.get(arm.name)
        return event is not None and not event.is_set()

    def _build(self, arm: _Arm) -> bool:
        assert arm.start is not None
        factory, arm.start = arm.start, None
        started = time.monotonic()
        try:
            arm.engine = factory()
        except (EngineCannotProceed, MissingExtra, ImportError) as error:
            arm.stopped = f"unsupported: {error}" if not isinstance(error, EngineCannotProceed) else str(error)
            if self._on_start_failure is not None:
                self._on_start_failure(arm.name, error)
            return False
        finally:
            arm.seconds += time.monotonic() - started
        return True

    def _restart(self, arm: _Arm) -> None:
        """Replace a stuck engine by a fresh instance (see the module's docstring); when it cannot
        be built, the old one goes on."""
        assert arm.restart is not None and arm.engine is not None
        number = arm.restarts + 1
        started = time.monotonic()
        try:
            fresh = arm.restart(number)
            parents = list(self._parents(number)) if self._parents is not None else []
            if parents:
                fresh.observe(parents)
        except Exception:  # noqa: BLE001 - a restart is an attempt: the engine it would replace goes on
            arm.restart = None
            return
        finally:
            arm.seconds += time.monotonic() - started
        old, arm.engine = arm.engine, fresh
        with contextlib.suppress(Exception):  # the old instance is dropped either way
            old.close()
        arm.restarts = number
        arm.instance_inputs = arm.instance_found_at = 0

    def _propose(self, arm: _Arm, n: int) -> list[Input]:
        assert arm.engine is not None
        try:
            return arm.engine.propose(n)
        except EngineCannotProceed as stop:
            arm.stopped = str(stop)
        except Exception as error:  # noqa: BLE001 - a broken engine must not end the run
            arm.stopped = f"failed: {type(error).__name__}: {error}"
        return []

    def _choose(self, tried: set[str]) -> _Arm | None:
        live = [arm for arm in self._arms.values() if not arm.stopped and not arm.background and arm.name not in tried]
        if not live:
            return None
        fresh = [arm for arm in live if arm.turns == 0]
        ready = [arm for arm in fresh if not self._importing(arm)]
        if ready:
            return ready[0]
        if fresh and all(arm.turns == 0 for arm in live):
            return fresh[0]  # nobody else can take a turn: wait for its import
        live = [arm for arm in live if arm.turns > 0]
        rates = {arm.name: arm.finds_per_second() for arm in live}
        total = sum(rates.values())
        floor = _FLOOR / len(live)

        def behind(arm: _Arm) -> float:
            share = floor + (1.0 - _FLOOR) * rates[arm.name] / total
            return arm.seconds / (share * (arm.engine.share if arm.engine is not None else 1.0))

        return min(live, key=behind)

    def rejected(self, engine: Engine, count: int) -> None:
        """``count`` of ``engine``'s inputs were rejected (never run). Their validation time is not
        charged to it: an engine whose few valid inputs are the ones that matter (a pattern the
        validator takes once in fifty) would lose its turns; measured on real contest problems,
        charging it cost refuted submissions."""
        arm = self._arms.get(engine.name)
        if arm is not None:
            arm.rejected += count

    def record(self, engine: Engine, *, inputs: int, executions: int, seconds: float, novel: int,
               divergences: int, behaviours: Iterable[str] = ()) -> None:
        """What one batch of ``engine``'s inputs gave, and the seconds it took to run and judge;
        ``behaviours``: the fingerprints of its inputs' behaviours (for the engine's diversity)."""
        arm = self._arms[engine.name]
        arm.inputs += inputs
        arm.executions += executions
        arm.seconds += seconds
        arm.novel += novel
        arm.divergences += divergences
        arm.recent_finds = arm.recent_finds * _DECAY + novel + 10 * divergences
        arm.recent_seconds = arm.recent_seconds * _DECAY + seconds
        arm.behaviours.update(hash(behaviour) for behaviour in behaviours)
        arm.instance_inputs += inputs
        if novel:
            arm.since_novel, arm.seconds_at_novel = 0, arm.seconds
            arm.instance_found_at = arm.instance_inputs
        else:
            arm.since_novel += inputs
            if arm.since_novel > arm.longest_stale:
                arm.longest_stale, arm.longest_stale_seconds = arm.since_novel, arm.since_novel_seconds


def requested_classes(names: Sequence[str], engine_class: Callable[[str], type[Engine]]) -> dict[str, type[Engine]]:
    """The classes of the engines a caller named, imported now: one that cannot run is an input
    error (going on without it would answer another question)."""
    classes = {}
    for name in names:
        try:
            classes[name] = engine_class(name)
        except (EngineCannotProceed, MissingExtra, ImportError) as error:
            raise InvalidArgument(f"engine {name!r} cannot run: {error}") from error
    return classes


def start_portfolio(
    names: Sequence[str], engine_class: Callable[[str], type[Engine]], context: EngineContext, *,
    requested: dict[str, type[Engine]] | None = None, note: Callable[[str], None],
    parents: Callable[[int], Sequence[Observation]] | None = None,
) -> Portfolio:
    """The portfolio of engines ``names`` (their classes from ``engine_class``). Engines the caller
    named (``requested``, imported already) are built now, and one that cannot start is an input
    error; of the default portfolio, the engines that drive a model start at once (they work on
    their own thread, mostly waiting on the network) and the others at their first turn, cheapest
    first, an engine that cannot start being a ``note``. Restartable engines are restarted with
    ``parents`` when they get stuck (see the module's docstring)."""

    def restart(cls: type[Engine]) -> Callable[[int], Engine]:
        return lambda number: cls(dataclasses.replace(context, restart=number))

    if requested:
        engines: list[Engine] = []
        for name, cls in requested.items():
            try:
                engines.append(cls(context))
            except (EngineCannotProceed, MissingExtra, ImportError) as error:
                raise InvalidArgument(f"engine {name!r} cannot run: {error}") from error
        return Portfolio(engines, restarts={name: restart(cls) for name, cls in requested.items()}, parents=parents)
    if not names:
        raise InvalidArgument("no engines selected")

    def factory(name: str) -> Callable[[], Engine]:
        return lambda: engine_class(name)(context)

    def failed(name: str, error: Exception) -> None:
        note(f"engine {name} not used: {error}")

    at_once = []
    for name in names:
        if name in NEEDS_MODEL:
            try:
                at_once.append(engine_class(name)(context))
            except (EngineCannotProceed, MissingExtra, ImportError) as error:
                failed(name, error)
    later = [(name, factory(name)) for name in names if name not in NEEDS_MODEL]
    restarts = {name: (lambda number, name=name: engine_class(name)(dataclasses.replace(context, restart=number)))
                for name, _ in later}
    return Portfolio(at_once, pending=later, on_start_failure=failed, order=names, restarts=restarts, parents=parents,
                     warm=engine_class)
