"""A scripted code runner for the REFUTE harness's tests: programs are known by their source text
and behave as the test says (a Python function of stdin and argv), so every strategy's control flow
and every status can be checked without building anything. The real runner (issue D's sandbox) is
exercised by the acceptance tests that build the corpus.

Nothing here runs the code it is given: unknown code is a build error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from divergent.bench.refute.execution import CodeRun, RunKind, SearchResult, Source

Behaviour = Callable[[str, Sequence[str]], "CodeRun | str"]


def prints(text: str) -> Behaviour:
    return lambda stdin, args: text


def fails(kind: RunKind, stderr: str = "", exit_code: int | None = 1) -> Behaviour:
    return lambda stdin, args: CodeRun(kind, stderr=stderr, exit_code=exit_code)


LOOPS = fails(RunKind.TIMEOUT, exit_code=None)


@dataclass
class FakeRunner:
    """Programs by source text (stripped); ``search`` answers divergent's search."""

    programs: dict[str, Behaviour] = field(default_factory=dict)
    search_answer: Callable[..., SearchResult] | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    searches: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, code: str, behaviour: Behaviour) -> FakeRunner:
        self.programs[code.strip()] = behaviour
        return self

    def run(self, source: Source, stdin: str, *, timeout: float, memory_mb: int,
            output_bytes: int = 64 * 1024 * 1024, args: Sequence[str] = ()) -> CodeRun:
        with self._lock:
            self.calls.append((source.role, stdin))
        behaviour = self.programs.get(source.code.strip())
        if behaviour is None:
            return CodeRun(RunKind.BUILD_ERROR, stderr=f"{source.role}: unknown program (error: expected ';')")
        answer = behaviour(stdin, list(args))
        return CodeRun(RunKind.OK, stdout=answer, exit_code=0) if isinstance(answer, str) else answer

    def run_many(self, source: Source, stdins: Sequence[str], *, timeout: float, memory_mb: int,
                 output_bytes: int = 64 * 1024 * 1024, args: Sequence[Sequence[str]] | None = None) -> list[CodeRun]:
        return [self.run(source, stdin, timeout=timeout, memory_mb=memory_mb, args=(args[i] if args else ()))
                for i, stdin in enumerate(stdins)]

    def outputs_match(self, expected: str, actual: str) -> bool:
        return expected.split() == actual.split()

    def search(self, wrong: Source, correct: Source, **options: object) -> SearchResult:
        self.searches.append(dict(options))
        assert self.search_answer is not None, "no search scripted"
        return self.search_answer(wrong, correct, **options)

    def close(self) -> None:
        pass

    def ran(self, role: str) -> int:
        return sum(1 for r, _ in self.calls if r == role)
