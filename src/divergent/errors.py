"""The one exception tree of divergent.

::

    DivergentError                  base of everything divergent raises on purpose
    ├── InvalidArgument             a wrong option or value passed by the caller (CLI exit code 2)
    ├── LoadError                   an implementation cannot be loaded: missing file, syntax error,
    │   │                           missing or ambiguous function, bad git revision
    │   ├── SignatureMismatch       implementations whose signatures cannot be called alike
    │   └── BudgetSpent             the budget ended before the programs were built or their workers
    │                               started: no verdict about them (``too-few-inputs``, never exit 2)
    ├── MissingSeeds                unannotated parameters and no seed inputs: nothing to generate from
    ├── MissingExtra                an optional dependency is not installed (the message says what to install)
    ├── SandboxUnavailable          the sandbox itself cannot start (never a verdict about a program)
    ├── EngineCannotProceed         raised by an engine that stops; ``reason`` is one of
    │                               "exhausted", "unsupported", "failed"
    └── LLMError                    a language-model call failed for good (after retries)
        ├── LLMUnavailable          the endpoint cannot be reached, refuses the key, or keeps failing
        ├── LLMOutOfTime            the time the caller gave (a search's budget) ran out before an answer
        └── LLMCacheMiss            replay mode asked for a call that is not in the cache

A program that raises, loops or crashes is never an exception here: it is an
:class:`~divergent.records.Outcome`.
"""

from __future__ import annotations

from typing import Literal


class DivergentError(Exception):
    """Base class for every error divergent raises on purpose."""


class InvalidArgument(DivergentError, ValueError):
    """A wrong option or value was passed by the caller."""


class LoadError(DivergentError):
    """An implementation cannot be loaded.

    ``programs``: the labels of the programs that did not load, when the raiser knows them (a
    sandbox's workers: a caller working many untrusted samples can set those aside and go on)."""

    def __init__(self, *args: object, programs: tuple[str, ...] = ()) -> None:
        super().__init__(*args)
        self.programs = tuple(programs)


class SignatureMismatch(LoadError):
    """Implementations whose signatures cannot be called with the same arguments."""


class BudgetSpent(LoadError):
    """The budget ended before the programs could run at all (a build, the sandboxed workers still
    starting): nothing was judged, which the verdict says (``too-few-inputs``); not a fault of the
    programs nor of the caller's input. ``report``: the report of the search that never ran, once
    the search's preparation knows it (``divergent.records.Report``)."""

    def __init__(self, *args: object, programs: tuple[str, ...] = ()) -> None:
        super().__init__(*args, programs=programs)
        self.report: object = None


class MissingSeeds(DivergentError):
    """Parameters without annotations and no seed inputs to learn their shapes from."""


class MissingExtra(DivergentError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


class SandboxUnavailable(DivergentError):
    """The sandbox cannot start worker processes at all."""


StopReason = Literal["exhausted", "unsupported", "failed"]


class EngineCannotProceed(DivergentError):
    """An engine stops for good; the portfolio goes on without it."""

    def __init__(self, reason: StopReason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason: StopReason = reason
        self.message = message


class LLMError(DivergentError):
    """A language-model call failed for good. The message never contains the API key."""


class LLMUnavailable(LLMError):
    """The endpoint cannot be reached, refuses the key, or keeps failing after the retries."""


class LLMOutOfTime(LLMError):
    """The time the caller gave a call (what a search's budget had left) ran out before an answer: a
    call may be tried again with more time (the endpoint is not known to be down)."""


class LLMCacheMiss(LLMError):
    """Replay (offline) mode was asked for a call that the response cache does not hold."""
