"""Building whole programs once, in the sandbox, and keeping what was built.

C (``gcc``), C++ (``g++``) and Java (``javac``) sources are compiled once per *build key*: the
source's content, the language, the flags and the compiler's version (and path). The result is kept
in a per-user cache directory (``builds/KEY/`` in :func:`divergent.paths.cache_dir`, or the one
:class:`~divergent.programs.BuildOptions` names), so a second run, a confirmation on fresh
launchers, or another search on the same file pays nothing. Sources are untrusted (a template bomb
is a real thing): the compiler runs in the sandbox, under a launcher, with a CPU-time, wall-clock
and memory limit; its output is copied into the cache (regular files only, bounded) by the parent.

Python scripts need no build (their syntax is checked here with :func:`compile`, which runs
nothing); ``exec:`` programs are run as they are. Neither a compiler nor a program ever sees the
directory the program lives in: only its own source and the files declared for it, staged
(:mod:`divergent.sandbox.staging`). A compile error is a :class:`LoadError` naming the file and the
compiler's first lines; a missing compiler names the Debian package to install.

A build is bounded by :attr:`BuildOptions.seconds` of wall clock (and as much CPU time), and by
the caller's ``deadline`` (the end of ``--budget``): a build that cannot finish before it is a
build error, and the cache keeps nothing of a build that did not finish.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from divergent import paths
from divergent.errors import BudgetSpent, LoadError, SandboxUnavailable
from divergent.load.whole_programs import java_main_class
from divergent.programs import BuildOptions, Language, Program, StdinProgram
from divergent.records import OutcomeKind
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.launch import Job, LauncherProcess, ProgramLimits
from divergent.sandbox.staging import StagedFile, declared_files, files_key, main_file, staged_entry

#: the command of each compiler, and the Debian package that provides it
TOOLCHAINS: dict[Language, tuple[str, str]] = {
    Language.C: ("gcc", "gcc"),
    Language.CPP: ("g++", "g++"),
    Language.JAVA: ("javac", "default-jdk-headless"),
}
#: the Java runtime (same package as javac)
JAVA = ("java", "default-jdk-headless")
#: flags of the JVM for every run: a deep stack (judges give one), a single-threaded collector
#: (no GC threads to count against the process cap), no perf-data file in /tmp
JAVA_RUN_FLAGS = ("-Xss256m", "-XX:+UseSerialGC", "-XX:-UsePerfData")
#: lines of the compiler's output kept for a compile error (the first: the first error matters most),
#: and characters of each
_ERROR_LINES = 30
_ERROR_WIDTH = 300
#: what a build may leave in the cache at most
_MAX_ARTIFACT_BYTES = 512 * 1024 * 1024
_BINARY = "prog"
_CLASSES = "classes"
#: seconds kept back from a deadline for what follows a build (publishing it, starting the search)
_BUILD_RESERVE = 0.2
#: a build given less than this is not started (it could not finish): a build error at once
_SHORTEST_BUILD = 0.1


@dataclass(frozen=True)
class BuiltProgram:
    """A program ready to run: how the launcher starts it, and where its build lives."""

    program: Program
    #: "exec" (a binary, the JVM), "python" (a script run from a fork of a warm interpreter) or
    #: "java" (``argv`` is a JVM per run; ``java`` the warm JVM that runs them where it can)
    mode: str
    argv: tuple[str, ...] = ()
    script: str = ""
    #: the build cache entry (None for scripts and exec: programs)
    cache_entry: str | None = None
    #: the build key (a hash of source, language, flags and compiler)
    key: str = ""
    #: the compiler command as a person would type it (to rebuild by hand)
    build_command: str = ""
    #: whether the launcher limits the run's address space (not for the JVM: -Xmx limits its heap)
    address_space: bool = True
    #: what the sandboxed launcher must be able to read to run it (its bind list)
    read_only: tuple[str, ...] = ()
    #: the spawn helper the launcher starts runs with ("": none, runs are forked;
    #: :mod:`divergent.sandbox.accelerators`)
    spawner: str = ""
    #: a Java program's warm JVM (mode "java"): ``java`` (the runtime), ``flags`` (a cold run's),
    #: ``classes``, ``main`` and ``harness`` (the harness's classes); None: a JVM per run
    java: dict | None = None

    @property
    def run_command(self) -> str:
        """How to run it by hand (with the input on stdin): the user's own file, not its staged copy."""
        language = self.program.language
        if language is Language.PYTHON:
            return f"python3 {_quote(self.program.path or self.script)}"
        if language is Language.EXEC:
            return _quote(self.program.path or self.argv[0])
        return " ".join(_quote(part) for part in self.argv)


def default_cache_dir() -> Path:
    return paths.cache_dir("builds")


def cache_dir(options: BuildOptions) -> Path:
    return Path(options.cache_dir) if options.cache_dir else default_cache_dir()


@functools.cache
def toolchain(command: str, package: str) -> tuple[str, str]:
    """The compiler's resolved path and version text; a LoadError naming the package when missing."""
    found = shutil.which(command)
    if found is None:
        raise LoadError(
            f"{command} is not installed: install the Debian package {package} (apt-get install {package})"
        )
    path = os.path.realpath(found)
    flag = "-version" if command in ("javac", "java") else "-dumpfullversion"
    try:
        done = subprocess.run([path, flag], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as error:
        raise LoadError(f"{command} ({path}) does not run: {error}") from None
    version = (done.stdout + done.stderr).decode("utf-8", "replace").strip()
    return path, version


def build_key(program: StdinProgram, extra: list[StagedFile] | None = None) -> str:
    """What decides a build: language, source, the declared files, flags and the compiler (path
    and version)."""
    command, package = TOOLCHAINS[program.language]
    compiler, version = toolchain(command, package)
    flags = _flags(program)
    digest = hashlib.sha256()
    for part in (program.language.value, compiler, version, "\0".join(flags), program.source):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0\1\0")
    files = declared_files(program) if extra is None else extra
    if files:
        digest.update(files_key(files).encode())
    return digest.hexdigest()[:32]


def _flags(program: StdinProgram) -> tuple[str, ...]:
    build = program.build
    if program.language is Language.C:
        return (*build.cflags, "\0libs", *build.clibs, *_static(program))
    if program.language is Language.CPP:
        return (*build.cxxflags, "\0libs", *build.cxxlibs, *_static(program))
    return build.javacflags


def _static(program: StdinProgram) -> tuple[str, ...]:
    """``-static`` when asked for, the flags allow it (sanitizers do not) and the toolchain can."""
    build = program.build
    flags = build.cflags if program.language is Language.C else build.cxxflags
    if not build.static or any(f.startswith(("-fsanitize", "-shared", "-static")) for f in flags):
        return ()
    command, package = TOOLCHAINS[program.language]
    compiler, _ = toolchain(command, package)
    return ("-static",) if links_statically(compiler) else ()


@functools.cache
def links_statically(compiler: str) -> bool:
    """Whether ``compiler`` has the static libraries (tried once on a program of our own)."""
    with tempfile.TemporaryDirectory(prefix="divergent-static-") as scratch:
        source = Path(scratch) / "probe.c"
        source.write_text("int main(void) { return 0; }\n")
        language = ["-x", "c++"] if "++" in os.path.basename(compiler) else []
        try:
            done = subprocess.run([compiler, *language, str(source), "-static", "-o", str(Path(scratch) / "probe")],
                                  capture_output=True, timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            return False
        return done.returncode == 0


def build(program: StdinProgram, *, level: Isolation, limits: ProgramLimits,
          deadline: float | None = None) -> BuiltProgram:
    """The program, built (or found in the cache) and ready to run. ``limits`` are the runs' limits
    (the JVM's heap is set from them); ``deadline`` (a ``time.monotonic()`` value): a compile that
    cannot finish before it is a build error."""
    extra = declared_files(program)
    if program.language is Language.PYTHON:
        return _python(program, extra)
    if program.language is Language.EXEC:
        path = program.path or ""
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            raise LoadError(f"{program.label}: {path} is not an executable file")
        name = os.path.basename(path)
        entry = staged_entry(cache_dir(program.build), [main_file(program, name), *_without(extra, name)],
                             executable=name)
        return BuiltProgram(program=program, mode="exec", argv=(str(entry / name),), read_only=_paths(str(entry)))
    key = build_key(program, extra)
    entry = cache_dir(program.build) / key
    if not _complete(entry):
        _compile(program, entry, level, extra, deadline)
    return _runnable(program, entry, key, limits)


def _without(files: list[StagedFile], name: str) -> list[StagedFile]:
    """The declared files but the one staged as the program itself."""
    return [file for file in files if file[0] != name]


def planned(program: StdinProgram, limits: ProgramLimits) -> BuiltProgram:
    """How ``program`` runs once built (its place in the build cache), without building it: for
    the commands a report shows."""
    if program.language in (Language.PYTHON, Language.EXEC):
        script = program.path or "main.py"
        if program.language is Language.EXEC:
            return BuiltProgram(program=program, mode="exec", argv=(program.path or program.label,))
        return BuiltProgram(program=program, mode="python", script=script)
    key = build_key(program)
    return _runnable(program, cache_dir(program.build) / key, key, limits)


def reproduction(built: BuiltProgram, input_file: str) -> list[str]:
    """The command that runs the program on ``input_file`` by hand (and how it was built)."""
    lines = [f"{built.run_command} < {_quote(input_file)}"]
    if built.build_command:
        lines.append(f"    # {built.program.label} was built by: {built.build_command}  (in {built.cache_entry})")
    return lines


def _python(program: StdinProgram, extra: list[StagedFile]) -> BuiltProgram:
    try:
        compile(program.source, program.path or program.label, "exec", dont_inherit=True)
    except SyntaxError as error:
        where = f"line {error.lineno}" if error.lineno else "somewhere"
        text = (error.text or "").rstrip()
        raise LoadError(f"{program.label}: syntax error at {where}: {error.msg}" + (f": {text.strip()}" if text else "")) from None
    except (ValueError, MemoryError, RecursionError) as error:
        raise LoadError(f"{program.label}: cannot compile: {error}") from None
    # The script runs from a staged copy (with its declared files) in the cache, never from the
    # directory it lives in.
    name = os.path.basename(program.path) if program.path else "main.py"
    entry = staged_entry(cache_dir(program.build), [main_file(program, name), *_without(extra, name)])
    script = str(entry / name)
    paths = _paths(str(entry), sys.prefix, sys.base_prefix)
    if program.build.fresh_interpreter:
        return BuiltProgram(program=program, mode="exec", argv=(sys.executable, "-s", script), read_only=paths)
    return BuiltProgram(program=program, mode="python", script=script, read_only=paths)


def _runnable(program: StdinProgram, entry: Path, key: str, limits: ProgramLimits) -> BuiltProgram:
    command, package = TOOLCHAINS[program.language]
    compiler, _ = toolchain(command, package)
    shown = _build_command(program, compiler)
    if program.language is Language.JAVA:
        java, _ = toolchain(*JAVA)
        main = program.main_class or java_main_class(program)
        argv = (java, *JAVA_RUN_FLAGS, f"-Xmx{limits.memory_mb}m", "-cp", str(entry / _CLASSES), main)
        return BuiltProgram(program=program, mode="exec", argv=argv, cache_entry=str(entry), key=key,
                            build_command=shown, address_space=False,
                            read_only=_paths(str(entry), *jdk_paths(java)))
    return BuiltProgram(program=program, mode="exec", argv=(str(entry / _BINARY),), cache_entry=str(entry),
                        key=key, build_command=shown, read_only=_paths(str(entry)))


def jdk_paths(tool: str) -> tuple[str, ...]:
    """What a JDK tool (``java``, ``javac``) reads: the JDK's home and the directories its
    configuration links point into (Debian keeps ``conf/`` in ``/etc/java-NN-openjdk``)."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(tool)))
    found = [home]
    for root, _, files in os.walk(os.path.join(home, "conf")):
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if not target.startswith(home + os.sep):
                    found.append(os.path.dirname(target))
    # the top of each linked tree (e.g. /etc/java-17-openjdk), not every subdirectory
    tops = sorted(set(found), key=len)
    return tuple(path for i, path in enumerate(tops) if not any(path.startswith(t + os.sep) for t in tops[:i]))


def _paths(*more: str) -> tuple[str, ...]:
    """The sandbox's bind list for a program or its compiler: the toolchains' and the
    interpreter's trees and ``more`` (its build or staged copy, the JDK...); never the directory
    the program lives in."""
    paths = ["/usr", "/lib", "/lib64", "/bin", "/etc/ld.so.cache", "/etc/alternatives", *more]
    return tuple(dict.fromkeys(p for p in paths if p))


def _source_name(program: StdinProgram) -> str:
    if program.language is Language.JAVA:
        return f"{program.main_class or java_main_class(program)}.java"
    suffix = ".c" if program.language is Language.C else ".cpp"
    base = os.path.basename(program.path or program.label)
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", os.path.splitext(base)[0]) or "main"
    return stem + suffix


def _compiler_argv(program: StdinProgram, compiler: str, extra: Sequence[StagedFile] = ()) -> list[str]:
    source = _source_name(program)
    build = program.build
    # declared sources of the same language are compiled and linked too (headers are only found)
    suffixes = (".c",) if program.language is Language.C else (".cc", ".cpp", ".cxx", ".c++")
    more = [name for name, _ in extra if name.lower().endswith(suffixes) and name != source]
    if program.language is Language.C:
        return [compiler, *build.cflags, source, *more, "-o", _BINARY, *build.clibs, *_static(program)]
    if program.language is Language.CPP:
        return [compiler, *build.cxxflags, source, *more, "-o", _BINARY, *build.cxxlibs, *_static(program)]
    # javac itself runs on a JVM: its heap is bounded by -J-Xmx, not by the address space
    return [compiler, f"-J-Xmx{max(256, build.memory_mb // 2)}m", "-J-XX:-UsePerfData",
            *build.javacflags, "-d", _CLASSES, source]


def _build_command(program: StdinProgram, compiler: str) -> str:
    argv = _compiler_argv(program, os.path.basename(compiler), declared_files(program))
    source = program.path or _source_name(program)
    return " ".join(_quote(source if part == _source_name(program) else part) for part in argv)


def _compile(program: StdinProgram, entry: Path, level: Isolation, extra: list[StagedFile],
             deadline: float | None) -> None:
    command, package = TOOLCHAINS[program.language]
    compiler, _ = toolchain(command, package)
    build = program.build
    # BuildOptions.seconds of wall clock (and as much CPU time), never past the deadline
    seconds = build.seconds
    if deadline is not None:
        seconds = min(seconds, deadline - time.monotonic() - _BUILD_RESERVE)
        if seconds < _SHORTEST_BUILD:
            raise BudgetSpent(f"the budget ended while {program.label} was built: raise --budget", programs=(program.label,))
    limits = ProgramLimits(
        time_limit=seconds, wall_factor=1.0, memory_mb=build.memory_mb, stack_mb=64,
        output_bytes=1 << 20, file_bytes=_MAX_ARTIFACT_BYTES, processes=256, stderr_bytes=32 * 1024,
    )
    source_name = _source_name(program)
    # The compiler writes into a fresh directory of ours, bound writable into its sandbox; what it
    # leaves there is copied into the cache as untrusted files (regular files only, bounded).
    output = tempfile.mkdtemp(prefix="divergent-build-")
    try:
        launcher = LauncherProcess(
            mode="exec", argv=_compiler_argv(program, compiler, extra), limits=limits, level=level,
            address_space=program.language is not Language.JAVA,
            read_only=_paths(*(jdk_paths(compiler) if program.language is Language.JAVA
                               else (os.path.dirname(os.path.dirname(compiler)),))),
            work_dir=output,
        )
    except SandboxUnavailable as error:
        shutil.rmtree(output, ignore_errors=True)
        raise LoadError(f"{program.label}: cannot start a sandboxed build: {error}") from None
    try:
        launcher.ready()
        # the compiler sees the source and the declared files, in its private build directory
        files = (main_file(program, source_name), *_without(extra, source_name))
        (result,) = launcher.run([Job(files=files, keep=True)], deadline=deadline)
        if result is None:
            raise BudgetSpent(f"the budget ended while {program.label} was built: raise --budget", programs=(program.label,))
        if result.kind is OutcomeKind.TIMEOUT and deadline is not None and seconds < build.seconds:
            # cut by the budget, not by the build's own limit: no verdict about the program
            raise BudgetSpent(f"the budget ended while {program.label} was built: raise --budget",
                              programs=(program.label,))
        if result.kind is not OutcomeKind.OK:
            raise LoadError(_compile_error(program, result.kind, result.stderr or result.stdout, result.detail,
                                           command=_build_command(program, compiler)))
        run_dir = Path(output) / "run"
        if program.language is Language.JAVA:
            _publish_tree(run_dir / _CLASSES, entry, program)
        else:
            _publish_file(run_dir / _BINARY, entry, program)
    finally:
        launcher.close()
        shutil.rmtree(output, ignore_errors=True)


def _compile_error(program: StdinProgram, kind: OutcomeKind, messages: str, detail: str, *, command: str = "") -> str:
    """The text of a build that failed: a first line that says it (with the compiler's first error),
    then the compiler's output as it printed it (its first lines, indented) and the command that
    rebuilds it by hand."""
    if kind is OutcomeKind.TIMEOUT:
        return f"{program.label}: the build took too long ({detail}); raise BuildOptions.seconds if it is real"
    if kind is OutcomeKind.MEMORY_LIMIT:
        return f"{program.label}: the build ran out of memory ({detail})"
    lines = messages.rstrip().splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    first = next((line.strip() for line in lines if "error" in line.lower() and not line.startswith("collect2:")),
                 lines[0].strip() if lines else detail)
    shown = [line.rstrip() if len(line) <= _ERROR_WIDTH else line[:_ERROR_WIDTH] + "..." for line in lines[:_ERROR_LINES]]
    if len(lines) > _ERROR_LINES:
        shown.append(f"... ({len(lines) - _ERROR_LINES} more lines)")
    text = f"{program.label}: compile error: {first}"
    if shown:
        text += "\n" + "\n".join("    " + line for line in shown)
    if command:
        text += f"\n  built with: {command}"
    return text


def build_failures(failures: Sequence[tuple[Program, LoadError]]) -> LoadError:
    """One error for the programs that did not build: a first line naming them, then each one's own
    message (for a compile error, the compiler's output)."""
    spent = [error for _, error in failures if isinstance(error, BudgetSpent)]
    if spent:
        return spent[0]  # the budget ended, whatever else failed: no verdict about the programs
    if len(failures) == 1:
        program, error = failures[0]
        error.programs = error.programs or (program.label,)
        return error
    labels = ", ".join(program.label for program, _ in failures)
    return LoadError(f"{len(failures)} programs do not build: {labels}\n"
                     + "\n".join(str(error) for _, error in failures),
                     programs=tuple(program.label for program, _ in failures))


def _complete(entry: Path) -> bool:
    return (entry / ".complete").is_file()


def _publish_file(built: Path, entry: Path, program: StdinProgram) -> None:
    """Copy the compiler's binary into the cache (a regular file, bounded), then mark the entry."""
    staging = _staging(entry)
    try:
        _copy_regular(built, staging / _BINARY, program)
        os.chmod(staging / _BINARY, 0o755)
        _finish(staging, entry)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _publish_tree(built: Path, entry: Path, program: StdinProgram) -> None:
    """Copy the ``.class`` files javac wrote (regular files only, bounded) into the cache."""
    staging = _staging(entry)
    total = 0
    try:
        for root, directories, files in os.walk(built, followlinks=False):
            relative = Path(root).relative_to(built)
            directories[:] = [d for d in directories if not os.path.islink(os.path.join(root, d))]
            for name in files:
                if not name.endswith(".class"):
                    continue
                target = staging / _CLASSES / relative / name
                target.parent.mkdir(parents=True, exist_ok=True)
                total += _copy_regular(Path(root) / name, target, program)
                if total > _MAX_ARTIFACT_BYTES:
                    raise LoadError(f"{program.label}: the build wrote more than {_MAX_ARTIFACT_BYTES:,} bytes")
        if not (staging / _CLASSES).is_dir():
            raise LoadError(f"{program.label}: javac wrote no class file")
        _finish(staging, entry)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _staging(entry: Path) -> Path:
    entry.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{entry.name}-", dir=entry.parent))


def _finish(staging: Path, entry: Path) -> None:
    (staging / ".complete").write_text("")
    os.chmod(staging, 0o755)
    try:
        os.rename(staging, entry)
    except OSError:
        # Another process published the same build first: theirs is as good as ours.
        if not _complete(entry):
            raise


def _copy_regular(source: Path, target: Path, program: StdinProgram) -> int:
    """Copy a file the sandbox wrote, refusing anything but a regular file of bounded size."""
    try:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as error:
        raise LoadError(f"{program.label}: the build produced no program ({error.strerror})") from None
    with os.fdopen(fd, "rb") as reader:
        info = os.fstat(reader.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_ARTIFACT_BYTES:
            raise LoadError(f"{program.label}: the build produced something that is not a program file")
        with open(target, "wb") as writer:
            shutil.copyfileobj(reader, writer, 1 << 20)
    return info.st_size


def _quote(text: str) -> str:
    return shlex.quote(text)

