"""The one place REFUTE runs code: whole programs built and run in the sandbox, their outputs
compared, and divergent's search over stdin inputs. Everything here goes through issue D's
machinery (``StdinProgram``, the build cache, the process runner, the text comparisons,
``divergent.check(..., stdin=True)``); the rest of the harness sees only :class:`CodeRunner`.

Nothing the programs print is trusted: outputs come back as bounded text, and a program that
crashes, loops, exhausts memory or floods stdout is a :class:`RunResult` kind, never an exception.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from divergent.bench.refute.dataset import Build

__all__ = [
    "CodeRunner",
    "RunKind",
    "RunResult",
    "SearchResult",
    "Source",
]


class RunKind(enum.StrEnum):
    """How one run ended (the first five are the whole-program outcome kinds of the runner)."""

    OK = "ok"
    RUNTIME_ERROR = "runtime-error"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory-limit"
    OUTPUT_LIMIT = "output-limit"
    #: the source did not build (the compiler's message is in ``stderr``)
    BUILD_ERROR = "build-error"


@dataclass(frozen=True)
class Source:
    """A program given as text, with how to build it; ``role`` names it in messages
    ("printer", "wrong", "correct", "validator", "brute", "generator", "code")."""

    code: str
    build: Build
    role: str


@dataclass(frozen=True)
class RunResult:
    kind: RunKind
    #: what it printed (bounded by the runner's output cap)
    stdout: str = ""
    #: the end of what it wrote on stderr, or the compiler's message for a build error (bounded)
    stderr: str = ""
    exit_code: int | None = None
    #: the signal that ended it ("SIGSEGV"), if one did
    signal: str | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.kind is RunKind.OK

    def describe(self) -> str:
        """One line: "ok", "runtime-error (exit 3)", "runtime-error (signal SIGSEGV)", "timeout"."""
        if self.signal:
            return f"{self.kind.value} (signal {self.signal})"
        if self.kind is RunKind.RUNTIME_ERROR and self.exit_code is not None:
            return f"{self.kind.value} (exit {self.exit_code})"
        return self.kind.value


@dataclass(frozen=True)
class SearchResult:
    """What divergent's search found: a valid input on which the programs differ, or None."""

    input: str | None
    #: inputs tried, and how many of them the validator rejected
    inputs: int = 0
    rejected: int = 0
    seconds: float = 0.0
    #: the engine that found it, and the search's notes (one line each)
    engine: str = ""
    notes: tuple[str, ...] = ()


class CodeRunner(Protocol):
    """Builds and runs whole programs in the sandbox; compares outputs; searches for differences.

    Implementations are thread-safe (a run's ``--jobs`` share one)."""

    def run(
        self,
        source: Source,
        stdin: str,
        *,
        timeout: float,
        memory_mb: int,
        output_bytes: int = 64 * 1024 * 1024,
        args: Sequence[str] = (),
    ) -> RunResult:
        """One run of ``source`` (built first, once per source text) with ``stdin``."""
        ...

    def run_many(
        self,
        source: Source,
        stdins: Sequence[str],
        *,
        timeout: float,
        memory_mb: int,
        output_bytes: int = 64 * 1024 * 1024,
        args: Sequence[Sequence[str]] | None = None,
    ) -> list[RunResult]:
        """Several runs of one source, in order (the runner may run them side by side)."""
        ...

    def outputs_match(self, expected: str, actual: str) -> bool:
        """REFUTE's comparison: tokens, blank lines dropped, YES/NO in any case when every
        expected token is yes or no."""
        ...

    def search(
        self,
        wrong: Source,
        correct: Source,
        *,
        examples: Sequence[str],
        validator: Source | None,
        generator: Source | None = None,
        seconds: float,
        timeout: float,
        memory_mb: int,
        seed: int = 0,
    ) -> SearchResult:
        """divergent's search for a stdin input on which ``wrong`` and ``correct`` differ: the
        examples as seeds, the validator as precondition (rejected inputs are never claimed),
        structure-aware mutation, and ``generator`` (a program printing one input, seed in
        argv[1]) as one more engine when given."""
        ...

    def close(self) -> None: ...
