"""What makes runs of whole programs fast: divergent's own helpers, built once into the build cache.

* The **spawn helper** (``helper_sources/spawn.c``, a shared library): the launcher starts each run
  of a program through it, from a vfork-like clone, instead of forking its own Python process (a
  fork copies the launcher's page tables and makes its heap copy-on-write: about three times the
  cost of the run itself). Built wherever a C compiler is installed; without one, runs are forked.
* The **Java harness** (``helper_sources/DivergentHarness.java``): a warm JVM per launcher that runs
  each input in a fresh class loader (:mod:`divergent.sandbox.child.warm_jvm`). Built with the
  program's own ``javac``.

Both are compiled like the programs themselves (:func:`divergent.sandbox.builds.build`: in the
sandbox, keyed by their source and the compiler), so they cost a compile once per build cache. A
helper that cannot be built (no compiler, no time left in the budget) is simply not used: runs
then take the slower way, with the same outcomes.

:func:`prepare` is :func:`~divergent.sandbox.builds.build` plus the helpers the program can use.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from importlib import resources
from pathlib import Path

from divergent.errors import LoadError
from divergent.programs import BuildOptions, Language, StdinProgram
from divergent.sandbox.builds import BuiltProgram, build, cache_dir, toolchain
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.launch import ProgramLimits

_SOURCES = "helper_sources"
#: the flags of the spawn helper: a position-independent shared library of plain C
_SPAWN_FLAGS = ("-O2", "-shared", "-fPIC", "-std=gnu11")
#: a helper build given less than this is skipped (the runs take the slower way)
_SHORTEST = 2.0
_LOCK = threading.Lock()
#: per helper and build cache directory: the helper's path, or "" once it could not be built
_BUILT: dict[str, str] = {}


def helper_source(name: str) -> str:
    """The text of one of divergent's helper sources (package data)."""
    return resources.files("divergent.sandbox").joinpath(_SOURCES, name).read_text(encoding="utf-8")


def prepare(program: StdinProgram, *, level: Isolation, limits: ProgramLimits,
            deadline: float | None = None) -> BuiltProgram:
    """``program`` built (:func:`~divergent.sandbox.builds.build`), with the helpers that make its
    runs fast where they can be built: the spawn helper (for programs started by ``exec`` and for
    scripts, whose forks it prepares in one call), and for a Java program the harness of its warm
    JVM (unless ``BuildOptions.fresh_interpreter`` asks for a JVM per run)."""
    built = build(program, level=level, limits=limits, deadline=deadline)
    if built.mode not in ("exec", "python"):
        return built
    spawner = spawn_helper(program.build, level=level, deadline=deadline)
    if spawner is not None:
        built = replace(built, spawner=spawner, read_only=(*built.read_only, os.path.dirname(spawner)))
    if program.language is Language.JAVA and not program.build.fresh_interpreter:
        harness = java_harness(program.build, level=level, deadline=deadline)
        if harness is not None:
            java, *flags, _cp, classes, main = built.argv
            built = replace(built, mode="java", read_only=(*built.read_only, harness), java={
                "java": java, "flags": flags, "classes": classes, "main": main, "harness": harness})
    return built


def java_harness(options: BuildOptions, *, level: Isolation, deadline: float | None = None) -> str | None:
    """The Java harness's classes directory in the build cache (compiled now with the program's
    ``javac`` if they are not there yet), or None where it cannot be built."""
    key = "java:" + str(cache_dir(options))
    with _LOCK:
        known = _BUILT.get(key)
        if known is not None:
            return known or None
        if deadline is not None and deadline - time.monotonic() < _SHORTEST:
            return None  # not now: perhaps on a later run with more time
        harness = StdinProgram(
            label="DivergentHarness.java", source=helper_source("DivergentHarness.java"), language=Language.JAVA,
            main_class="DivergentHarness",
            build=BuildOptions(javacflags=("-encoding", "UTF-8", "-nowarn"), cache_dir=options.cache_dir,
                               seconds=min(options.seconds, 120.0), memory_mb=options.memory_mb),
        )
        try:
            built = build(harness, level=level, limits=ProgramLimits(), deadline=deadline)
        except LoadError:
            if deadline is None or time.monotonic() < deadline - _SHORTEST:
                _BUILT[key] = ""  # it cannot be built here (not just: not in time)
            return None
        classes = built.argv[built.argv.index("-cp") + 1]
        _BUILT[key] = classes if (Path(classes) / "DivergentHarness.class").is_file() else ""
        return _BUILT[key] or None


def spawn_helper(options: BuildOptions, *, level: Isolation, deadline: float | None = None) -> str | None:
    """The spawn helper's path in the build cache (built now if it is not there yet), or None
    where it cannot be built."""
    key = str(cache_dir(options))
    with _LOCK:
        known = _BUILT.get(key)
        if known is not None:
            return known or None
        try:
            toolchain("gcc", "gcc")
        except LoadError:
            _BUILT[key] = ""
            return None
        if deadline is not None and deadline - time.monotonic() < _SHORTEST:
            return None  # not now: perhaps on a later run with more time
        helper = StdinProgram(
            label="divergent-spawn", source=helper_source("spawn.c"), language=Language.C,
            build=BuildOptions(cflags=_SPAWN_FLAGS, clibs=(), static=False, cache_dir=options.cache_dir,
                               seconds=min(options.seconds, 60.0), memory_mb=options.memory_mb),
        )
        try:
            built = build(helper, level=level, limits=ProgramLimits(), deadline=deadline)
        except LoadError:
            if deadline is None or time.monotonic() < deadline - _SHORTEST:
                _BUILT[key] = ""  # it cannot be built here (not just: not in time)
            return None
        path = built.argv[0]
        _BUILT[key] = path if Path(path).is_file() else ""
        return _BUILT[key] or None
