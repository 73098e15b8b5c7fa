"""Sizes that adapt to run time, for the engines of texts: when runs hit the time limit, the values
and sizes drawn after are smaller.

A wrong submission that loops up to an input's value (``for i in range(l, r)`` with r up to 10^9)
spends the judge's time limit on most inputs the engines make, and a search judges few of them.
:class:`Slowness` (shared by mutation and the grammar engine through their lessons) watches the
runs: once more than a tenth of the last ones hit the time limit, every integer drawn or written
afterwards is kept within a cap, a tenth of the largest value of the smallest slow input (within the
slot's stated bounds), and the count caps fall back with it; a later stretch with no timeout lets
the cap grow tenfold again. The report says so in a note.
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Sequence

from divergent.formats.text_structure import Block, Count, Line, Rep
from divergent.records import Observation, OutcomeKind

__all__ = ["Slowness"]

#: the runs watched, and the share of them past the time limit that lowers the cap
_WINDOW = 40
_SLOW_SHARE = 0.1
_FLOOR = 8
_INTEGER = re.compile(r"-?\d{1,19}")


class Slowness:
    """The cap on the integers the engines of texts write, once runs hit the time limit."""

    def __init__(self) -> None:
        #: the largest magnitude written (None: no cap)
        self.cap: int | None = None
        self.timeouts = 0
        self._window: deque[tuple[bool, int]] = deque(maxlen=_WINDOW)
        self._seen: set[str] = set()

    def observe(self, observations: Sequence[Observation]) -> None:
        """Count the runs past the time limit; lower the cap when they are many, raise it after a
        stretch without one."""
        for observation in observations:
            key = observation.input.key
            if key in self._seen:
                continue
            if len(self._seen) > 100_000:
                self._seen.clear()
            self._seen.add(key)
            slow = any(outcome.kind is OutcomeKind.TIMEOUT for outcome in observation.outcomes)
            self.timeouts += slow
            largest = max((abs(int(n)) for n in _INTEGER.findall(observation.input.text[:4096])), default=0)
            self._window.append((slow, largest))
        slow_runs = [largest for slow, largest in self._window if slow]
        # (a slow run costs the whole time limit: three of them are evidence enough)
        if len(slow_runs) >= 3 and len(slow_runs) > _SLOW_SHARE * len(self._window):
            cap = max(_FLOOR, min(slow_runs) // 10)  # a tenth of the smallest input that was slow
            if self.cap is None or cap < self.cap:
                self.cap = cap
            self._window.clear()
        elif not slow_runs and len(self._window) == _WINDOW and self.cap is not None:
            self.cap *= 10
            self._window.clear()

    def capped(self, tree: Block, rng: random.Random) -> Block:
        """``tree`` with each integer past the cap drawn again within it (and its slot's bounds)."""
        if self.cap is None:
            return tree
        _cap_block(tree, self.cap, rng)
        return tree

    def note(self) -> str | None:
        if self.cap is None:
            return None
        return (f"{self.timeouts} run(s) hit the time limit: the engines then kept integers within ±{self.cap:,} "
                "(sizes fell back to where runs are fast)")


def _cap_block(block: Block, cap: int, rng: random.Random) -> None:
    for node in block:
        if isinstance(node, Line):
            for index, part in enumerate(node.parts):
                spec = node.specs[index] if node.specs is not None and index < len(node.specs) else None
                if isinstance(part, str):
                    node.parts[index] = _capped(part, cap, spec, rng)
                elif isinstance(part, Rep) and part.inline and not part.characters:
                    part.items = [_capped(item, cap, spec, rng) if isinstance(item, str) else item for item in part.items]
                elif isinstance(part, Rep):
                    for item in part.items:
                        if isinstance(item, list):
                            _cap_block(item, cap, rng)
                elif isinstance(part, Count):
                    continue
        elif isinstance(node, Rep):
            for item in node.items:
                if isinstance(item, list):
                    _cap_block(item, cap, rng)


def _capped(token: str, cap: int, spec: object, rng: random.Random) -> str:
    if not _INTEGER.fullmatch(token) or abs(int(token)) <= cap or getattr(spec, "choices", ()):
        return token
    low = getattr(spec, "low", None)
    high = getattr(spec, "high", None)
    hard_low = low if getattr(spec, "hard_low", False) else None
    hard_high = high if getattr(spec, "hard_high", False) else None
    lo = max(-cap if int(token) < 0 else 0, hard_low if hard_low is not None else -cap)
    hi = min(cap, hard_high) if hard_high is not None else cap
    if lo > hi:
        return token  # the stated bounds leave nothing within the cap: kept as it is
    return str(rng.randint(lo, hi))
