"""The generator engine: the user's generator program (``--generator``), run with many seeds.

A generator prints one input and takes its seed as ``argv[1]`` (testlib's generators do). It is
untrusted like every program: it runs under its own sandboxed launcher
(:class:`~divergent.sandbox.process_runner.ProgramService`), one run per seed, seeds 1, 2, 3, ...
offset by the run's seed, so a run is reproducible. A run that fails (an exit code, a signal, a
timeout) gives no input; a generator that fails on every seed of its first batch, or keeps giving
only inputs seen before, stops.
"""

from __future__ import annotations

from divergent.engines.base import Engine, TextContext
from divergent.errors import EngineCannotProceed
from divergent.records import AnyInput, TextInput
from divergent.sandbox.launch import Job

__all__ = ["GeneratorEngine"]

#: batches in a row that bring no new input before the generator counts as exhausted
_MAX_STALE_BATCHES = 4
#: runs of one batch at most (each is a process)
_MAX_BATCH = 256


class GeneratorEngine(Engine):
    """Inputs printed by the generator program, one per seed."""

    name = "generator"
    #: the user's generator knows the problem: it is owed four times the time of another engine
    share = 4.0

    def __init__(self, context: TextContext) -> None:
        super().__init__(context)
        services = context.services
        if services.generator is None:
            raise EngineCannotProceed("unsupported", "no generator program: pass --generator PROG")
        self.service = services.generator
        self._next_seed = 1 + 1_000_000 * context.seed
        self._seen: set[str] = set()
        self._stale = 0
        self.runs = 0
        self.failures = 0
        self._first_failure = ""

    def propose(self, n: int) -> list[AnyInput]:
        count = max(1, min(n, _MAX_BATCH))
        seeds = range(self._next_seed, self._next_seed + count)
        self._next_seed += count
        results = self.service.run([Job(args=(str(seed),)) for seed in seeds])
        batch: list[AnyInput] = []
        for result in results:
            if result is None:
                continue
            self.runs += 1
            if not result.ok:
                self.failures += 1
                if not self._first_failure:
                    why = (result.stderr.strip().splitlines() or [result.detail])[0][:200]
                    self._first_failure = f"{result.kind.value}: {why}"
                continue
            item = TextInput(result.stdout, how_generated=self.name)
            if item.key in self._seen:
                continue
            self._seen.add(item.key)
            batch.append(item)
        if not batch:
            if self.runs and self.failures == self.runs:
                raise EngineCannotProceed(
                    "failed", f"the generator {self.service.label} failed on all {self.runs} seeds ({self._first_failure})"
                )
            self._stale += 1
            if self._stale >= _MAX_STALE_BATCHES:
                raise EngineCannotProceed(
                    "exhausted", f"{self._stale} batches of seeds in a row gave only inputs seen before "
                    f"({len(self._seen)} distinct inputs from {self.runs} runs)"
                )
        else:
            self._stale = 0
        return batch
