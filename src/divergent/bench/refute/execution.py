"""The one place REFUTE runs code: whole programs built and run in the sandbox, their outputs
compared, and divergent's search over stdin inputs. Everything here goes through the whole-program
machinery (``StdinProgram``, the build cache, the process runner, the text comparisons,
``divergent.check(..., stdin=True)``); the rest of the harness sees only :class:`CodeRunner`.

Nothing the programs print is trusted: outputs come back as bounded text, and a program that
crashes, loops, exhausts memory or floods stdout is a :class:`CodeRun` kind, never an exception.
"""

from __future__ import annotations

import atexit
import enum
import hashlib
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from divergent.bench.refute.dataset import Build

__all__ = [
    "CodeRun",
    "CodeRunner",
    "RunKind",
    "SandboxRunner",
    "SearchResult",
    "Source",
    "open_code_runner",
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
class CodeRun:
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
    #: inputs run, and how many were never run because the validator rejected them (``Report.rejected``)
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
    ) -> CodeRun:
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
    ) -> list[CodeRun]:
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
        statement: str | None = None,
    ) -> SearchResult:
        """divergent's search for a stdin input on which ``wrong`` and ``correct`` differ: the
        examples as seeds, the validator as precondition (rejected inputs are never claimed),
        structure-aware mutation, inputs drawn from the input format (inferred from the examples,
        the ``statement``'s input section and the programs), and ``generator`` (a program
        printing one input, seed in argv[1]) as one more engine when given."""
        ...

    def close(self) -> None: ...


# -- the sandbox -------------------------------------------------------------------------------------
#
# Everything below talks to the whole-program machinery; it is imported lazily so that the rest of
# the harness loads (and is tested with a scripted runner) on its own. The API used:
#   divergent.load.whole_programs.load_program_source(source, language, label=, build=) -> StdinProgram
#   divergent.programs.BuildOptions(cxxflags=, cflags=, cache_dir=), Language
#   divergent.sandbox.isolation.choose_level(isolation) -> Isolation
#   divergent.sandbox.launch.Job(stdin=bytes, args=tuple), ProgramLimits(time_limit=, memory_mb=, output_bytes=)
#   divergent.sandbox.process_runner.ProgramService(program, limits=, level=).run(jobs) -> [launch.ProgramRun | None]
#   divergent.text_comparison.OutputComparison().outputs_equal(a, b)
#   divergent.search.check.check([StdinProgram, StdinProgram], shrink=False, stdin=True, examples=[TextInput], validator=PATH,
#       generator=PATH, budget=, seed=, time_limit=, memory_limit=, isolation=) -> Report

#: helper services kept alive at once (each is one sandboxed launcher process)
MAX_SERVICES = 24


class SandboxRunner:
    """The :class:`CodeRunner` on the sandbox: each source is built once (the build cache) and
    served by a sandboxed launcher kept warm for later runs of the same source and limits.

    It travels (to a Ray worker) as its settings: unpickled, it is a new runner that starts its own
    sandboxes in the process it lands in."""

    def __reduce__(self) -> tuple[Any, tuple[str | None, str | None]]:
        return open_code_runner_with, (self.isolation, self.build_cache)

    def __init__(self, *, isolation: str | None = None, build_cache: str | None = None) -> None:
        from divergent.sandbox.isolation import choose_level

        self.isolation = isolation
        self.level = choose_level(isolation)
        self.build_cache = build_cache
        self._services: OrderedDict[tuple[object, ...], tuple[threading.Lock, object]] = OrderedDict()
        self._lock = threading.Lock()
        self._comparison: object | None = None

    def _program(self, source: Source, label: str | None = None) -> object:
        from divergent.load.whole_programs import load_program_source
        from divergent.programs import BuildOptions

        build = BuildOptions(cache_dir=self.build_cache)
        if source.build.language == "cpp":
            build = replace(build, cxxflags=source.build.flags)
        elif source.build.language == "c":
            build = replace(build, cflags=tuple(f for f in source.build.flags if f != "-lm"))
        suffix = {"python": "py", "cpp": "cpp", "c": "c", "java": "java"}[source.build.language]
        return load_program_source(source.code, source.build.language, label=label or f"{source.role}.{suffix}",
                                   build=build)

    def _service(self, source: Source, timeout: float, memory_mb: int, output_bytes: int) -> tuple[threading.Lock, object]:
        from divergent.sandbox.launch import ProgramLimits
        from divergent.sandbox.process_runner import ProgramService

        digest = hashlib.sha256(source.code.encode("utf-8", "surrogateescape")).hexdigest()
        key = (digest, source.build, timeout, memory_mb, output_bytes)
        with self._lock:
            if key in self._services:
                self._services.move_to_end(key)
                return self._services[key]
        limits = ProgramLimits(time_limit=timeout, memory_mb=memory_mb, output_bytes=output_bytes)
        service = ProgramService(self._program(source), limits=limits, level=self.level)  # builds: LoadError
        entry = (threading.Lock(), service)
        with self._lock:
            self._services[key] = entry
            while len(self._services) > MAX_SERVICES:
                _, (lock, old) = self._services.popitem(last=False)
                with lock:
                    old.close()  # type: ignore[attr-defined]
        return entry

    def run(self, source: Source, stdin: str, *, timeout: float, memory_mb: int,
            output_bytes: int = 64 * 1024 * 1024, args: Sequence[str] = ()) -> CodeRun:
        return self.run_many(source, [stdin], timeout=timeout, memory_mb=memory_mb, output_bytes=output_bytes,
                             args=[args])[0]

    def run_many(self, source: Source, stdins: Sequence[str], *, timeout: float, memory_mb: int,
                 output_bytes: int = 64 * 1024 * 1024, args: Sequence[Sequence[str]] | None = None) -> list[CodeRun]:
        from divergent.errors import LoadError
        from divergent.sandbox.launch import Job

        try:
            lock, service = self._service(source, timeout, memory_mb, output_bytes)
        except LoadError as error:
            return [CodeRun(RunKind.BUILD_ERROR, stderr=str(error))] * len(stdins)
        jobs = [Job(stdin=text.encode("utf-8", "surrogateescape"), args=tuple(args[i]) if args else ())
                for i, text in enumerate(stdins)]
        with lock:
            results = list(service.run(jobs))  # type: ignore[attr-defined]
            # a launcher that died under a run (the machine's trouble, not the program's, as far as
            # anyone can tell) gets one more try on a fresh launcher before it counts
            again = [i for i, found in enumerate(results) if found is None or _crashed(found)]
            if again:
                for i, found in zip(again, service.run([jobs[i] for i in again]), strict=True):  # type: ignore[attr-defined]
                    results[i] = found
        return [_result(found) for found in results]

    def outputs_match(self, expected: str, actual: str) -> bool:
        if self._comparison is None:
            from divergent.text_comparison import OutputComparison

            self._comparison = OutputComparison()
        return bool(self._comparison.outputs_equal(expected, actual))  # type: ignore[attr-defined]

    def search(self, wrong: Source, correct: Source, *, examples: Sequence[str], validator: Source | None,
               generator: Source | None = None, seconds: float, timeout: float, memory_mb: int,
               seed: int = 0, statement: str | None = None) -> SearchResult:
        from divergent.records import TextInput
        from divergent.search.check import check

        with tempfile.TemporaryDirectory(prefix="divergent-refute-") as directory:
            helpers: dict[str, str] = {}
            for name, helper in (("validator", validator), ("generator", generator)):
                if helper is not None:
                    suffix = {"python": "py", "cpp": "cpp", "c": "c", "java": "java"}[helper.build.language]
                    path = Path(directory) / f"{name}.{suffix}"
                    path.write_text(helper.code, encoding="utf-8", errors="surrogateescape")
                    helpers[name] = str(path)
            if statement:
                path = Path(directory) / "statement.txt"
                path.write_text(statement, encoding="utf-8", errors="surrogateescape")
                helpers["statement"] = str(path)
            # not shrunk: the success rule takes any valid input, and the budget is better spent searching
            report = check(
                [self._program(wrong, "wrong"), self._program(correct, "correct")],
                shrink=False,
                stdin=True,
                examples=[TextInput(text) for text in examples],
                budget=seconds,
                seed=seed,
                time_limit=timeout,
                memory_limit=memory_mb,
                isolation=self.isolation,
                build_cache=self.build_cache,
                **helpers,
            )
        found = report.counterexample
        return SearchResult(
            # a whole program's input is its stdin text (REFUTE runs whole programs only)
            input=found.input.text if found is not None else None,  # type: ignore[union-attr]
            inputs=report.inputs,
            rejected=report.rejected,
            seconds=report.seconds,
            engine=found.engine if found is not None else "",
            notes=tuple(report.notes),
        )

    def close(self) -> None:
        with self._lock:
            services, self._services = list(self._services.values()), OrderedDict()
        for lock, service in services:
            with lock:
                service.close()  # type: ignore[attr-defined]


def _crashed(found: object) -> bool:
    kind = getattr(found, "kind", None)
    return getattr(kind, "value", kind) == "crash"


def _result(found: object) -> CodeRun:
    """One of D's run results as this harness's (a run not made, or a crashed launcher, is a
    runtime error)."""
    if found is None:
        return CodeRun(RunKind.RUNTIME_ERROR, stderr="the run was not made (the sandbox gave up on it)")
    kind = getattr(found, "kind", None)
    value = getattr(kind, "value", str(kind))
    try:
        run_kind = RunKind(value)
    except ValueError:  # "crash": the launcher died under the run
        run_kind = RunKind.RUNTIME_ERROR
    return CodeRun(
        kind=run_kind,
        stdout=getattr(found, "stdout", "") or "",
        stderr=(getattr(found, "stderr", "") or getattr(found, "detail", "") or ""),
        exit_code=getattr(found, "exit_code", None),
        signal=getattr(found, "signal", None),
        seconds=float(getattr(found, "seconds", 0.0) or 0.0),
    )


def open_code_runner(*, isolation: str | None = None, build_cache: str | None = None) -> CodeRunner:
    """The sandboxed runner of whole programs."""
    return SandboxRunner(isolation=isolation, build_cache=build_cache)


#: the runners made again from their settings in this process (one per settings), closed at its exit
_TRAVELLED: dict[tuple[str | None, str | None], SandboxRunner] = {}
_TRAVELLED_LOCK = threading.Lock()


def open_code_runner_with(isolation: str | None, build_cache: str | None) -> SandboxRunner:
    """How a pickled runner is made again: in a process that receives it (a Ray worker, once per
    item), one runner per settings, shared by every item that lands there (its warm launchers
    too), and closed when the process exits."""
    key = (isolation, build_cache)
    with _TRAVELLED_LOCK:
        runner = _TRAVELLED.get(key)
        if runner is None:
            if not _TRAVELLED:
                atexit.register(_close_travelled)
            runner = _TRAVELLED[key] = SandboxRunner(isolation=isolation, build_cache=build_cache)
    return runner


def _close_travelled() -> None:
    with _TRAVELLED_LOCK:
        runners = list(_TRAVELLED.values())
        _TRAVELLED.clear()
    for runner in runners:
        runner.close()
