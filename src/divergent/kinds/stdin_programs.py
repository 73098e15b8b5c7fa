"""Whole programs: a C, C++ or Java source, a Python script or any executable that reads its input
on stdin and writes its answer on stdout; its outcome is what it printed and how it ended (exit
code, signal, time and memory limits), compared as a judge would (``--output``, a checker).

Specs: ``path.c``, ``path.cpp`` (``.cc``, ``.cxx``), ``path.java``, ``exec:PATH`` (these can only be
whole programs), and ``path.py`` with ``--stdin`` (then a script, not a function). Each program is
built once per source and flags (:mod:`divergent.sandbox.builds`, in the sandbox, cached) and run by
the :class:`~divergent.sandbox.process_runner.ProcessRunner`: one sandboxed launcher per program,
one process per input, under the judge's limits (fixed when the runner starts). See
docs/programs.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from divergent.errors import DivergentError, InvalidArgument
from divergent.kinds.base import records_of
from divergent.kinds.options import SearchOptions
from divergent.kinds.texts import TextKind
from divergent.load.whole_programs import load_program, names_whole_program
from divergent.programs import Language, Program, PythonFunction, StdinProgram, with_distinct_labels
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.launch import ProgramLimits
from divergent.sandbox.runner import Runner

#: the languages whose programs the search runs warm (a fork of a warm interpreter, a warm JVM)
_WARM = (Language.PYTHON, Language.JAVA)


class StdinPrograms(TextKind):
    name = "stdin-program"
    noun = "whole program"

    def claims(self, spec: object) -> bool:
        return isinstance(spec, StdinProgram) or names_whole_program(spec)

    def asked(self, options: SearchOptions) -> bool:
        return options.programs.stdin

    def load(self, specs: Sequence[object], options: SearchOptions) -> tuple[Program, ...]:
        """Every spec as a whole program with the options' build flags (a .py file is a script);
        a program loaded before keeps its own."""
        build = options.programs.build_options()
        programs: list[Program] = []
        for spec in specs:
            if isinstance(spec, StdinProgram):
                programs.append(spec)
            elif isinstance(spec, PythonFunction) or callable(spec):
                label = spec.label if isinstance(spec, PythonFunction) else repr(spec)
                raise InvalidArgument(
                    f"{label} is a function: functions and whole programs cannot be compared "
                    "(give a script with --stdin, or compare functions without it)"
                )
            elif isinstance(spec, str | os.PathLike):
                programs.append(load_program(spec, build=build))
            else:
                raise InvalidArgument(f"implementation {spec!r}: expected a path, exec:PATH or a StdinProgram")
        return tuple(with_distinct_labels(programs))

    def reference(self, programs: Sequence[Program]) -> tuple[Program, ...]:
        """Python scripts in a fresh interpreter per run, Java programs in a JVM of their own per
        run (``--fresh-interpreter``): the way ``reproduce`` runs them."""
        return tuple(
            replace(program, build=replace(program.build, fresh_interpreter=True))
            if isinstance(program, StdinProgram) and program.language in _WARM and not program.build.fresh_interpreter
            else program
            for program in programs
        )

    def prepare(self, programs: Sequence[Program], helpers: Sequence[StdinProgram], *, level: Isolation,
                limits: ProgramLimits, deadline: float | None = None) -> None:
        from divergent.sandbox.process_runner import build_all

        build_all([*_programs(programs), *helpers], level=level, limits=limits, deadline=deadline)

    def start_runner(self, programs: Sequence[Program], *, limits: ProgramLimits, level: Isolation,
                     checker: StdinProgram | None) -> Runner:
        from divergent.sandbox.process_runner import ProcessRunner

        return ProcessRunner(_programs(programs), limits=limits, isolation=level, checker=checker)

    def run_commands(self, programs: Sequence[Program], options: SearchOptions, input_file: str) -> list[str]:
        """How each program runs on the input by hand (its place in the build cache, and how it was
        built)."""
        from divergent.sandbox.builds import planned, reproduction

        limits = options.programs.limits(options.limits.timeout)
        commands: list[str] = []
        for program in _programs(programs):
            try:
                commands.extend(reproduction(planned(program, limits), input_file))
            except DivergentError:
                continue
        return commands


def _programs(programs: Sequence[Program]) -> list[StdinProgram]:
    return records_of(programs, StdinProgram, StdinPrograms.noun)


#: the kind, as :data:`divergent.kinds.registry.KINDS` names it
STDIN_PROGRAMS = StdinPrograms()
