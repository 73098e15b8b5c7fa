"""The scheduler that shares one budget among the engines.

Every engine gets a quick first round (a small batch each, in registry order, so cheap engines
speak first). After that, each turn goes to the engine with the best upper confidence bound on its
*novelty rate*: the share of its inputs that revealed a behaviour not seen before (a new tuple of
outcomes across the implementations). Engines that keep finding new behaviours get more turns;
engines that only repeat themselves still get an occasional turn, because a bug may sit behind
the next rare input. Batch sizes grow while an engine stays unproductive (cheaper per input) and
reset when it finds something.

Background engines (symbolic execution in its own process) are not scheduled: they are polled on
every turn and whatever they found runs in the next batch.

The score counts inputs, not seconds, so a run is reproducible for a given seed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from divergent.engines.base import Engine
from divergent.errors import EngineCannotProceed
from divergent.model import EngineStats, Input

FIRST_ROUND_BATCH = 32
MAX_BATCH = 512


@dataclass
class _Arm:
    engine: Engine
    inputs: int = 0
    executions: int = 0
    seconds: float = 0.0
    novel: int = 0
    divergences: int = 0
    turns: int = 0
    batch: int = FIRST_ROUND_BATCH
    stopped: str = ""

    def stats(self) -> EngineStats:
        return EngineStats(
            name=self.engine.name,
            inputs=self.inputs,
            executions=self.executions,
            seconds=round(self.seconds, 3),
            novel=self.novel,
            divergences=self.divergences,
            stopped=self.stopped,
        )


class Portfolio:
    def __init__(self, engines: Sequence[Engine]) -> None:
        self._arms = {engine.name: _Arm(engine) for engine in engines}

    @property
    def active(self) -> bool:
        """Whether any engine can still propose inputs."""
        return any(not arm.stopped for arm in self._arms.values())

    @property
    def waiting_on_background(self) -> bool:
        """Only background engines are left (the loop should poll them, not spin)."""
        live = [arm for arm in self._arms.values() if not arm.stopped]
        return bool(live) and all(arm.engine.background for arm in live)

    def stats(self) -> tuple[EngineStats, ...]:
        return tuple(arm.stats() for arm in self._arms.values())

    def stop(self, name: str, reason: str) -> None:
        self._arms[name].stopped = reason

    def next_batches(self) -> list[tuple[Engine, list[Input]]]:
        """Inputs from the background engines (non-blocking) and from the scheduled engine."""
        batches = []
        for arm in self._arms.values():
            if arm.engine.background and not arm.stopped:
                proposed = self._propose(arm, MAX_BATCH)
                if proposed:
                    batches.append((arm.engine, proposed))
        while True:
            arm = self._choose()
            if arm is None:
                break
            proposed = self._propose(arm, arm.batch)
            arm.turns += 1
            if proposed:
                batches.append((arm.engine, proposed))
                break
            if arm.stopped:
                continue
            break
        return batches

    def _propose(self, arm: _Arm, n: int) -> list[Input]:
        try:
            return arm.engine.propose(n)
        except EngineCannotProceed as stop:
            arm.stopped = str(stop)
        except Exception as error:  # noqa: BLE001 - a broken engine must not end the run
            arm.stopped = f"failed: {type(error).__name__}: {error}"
        return []

    def _choose(self) -> _Arm | None:
        live = [arm for arm in self._arms.values() if not arm.stopped and not arm.engine.background]
        if not live:
            return None
        fresh = [arm for arm in live if arm.turns == 0]
        if fresh:
            return fresh[0]
        total = sum(arm.inputs for arm in live) + 1

        def bound(arm: _Arm) -> float:
            rate = (arm.novel + arm.divergences + 1) / (arm.inputs + 2)
            return rate + math.sqrt(2 * math.log(total) / (arm.inputs + 1))

        return max(live, key=bound)

    def record(self, engine: Engine, *, inputs: int, executions: int, seconds: float, novel: int,
               divergences: int) -> None:
        arm = self._arms[engine.name]
        arm.inputs += inputs
        arm.executions += executions
        arm.seconds += seconds
        arm.novel += novel
        arm.divergences += divergences
        if engine.background:
            return
        arm.batch = FIRST_ROUND_BATCH if novel or divergences else min(MAX_BATCH, arm.batch * 2)
