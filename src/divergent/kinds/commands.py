"""Commands: a command line, as a shell runs it, reading its input on stdin; its outcome is what it
printed and its exit status, and both are compared (a tool's exit status is part of its answer:
``grep`` says "no match" with 1 and "error" with 2).

Specs: ``cmd:COMMAND``, e.g. ``cmd:sort -n``, ``cmd:python3 old_tool.py --fast``, ``cmd:tr -s ' ' |
cut -d' ' -f2``. The command runs under ``/bin/sh -c`` in the sandbox like any whole program (one
sandboxed launcher per command, one process per input, the judge's limits), from the directory
divergent was started in (bound read-only at the bubblewrap level, unless it is a shared one such
as a home directory: then from a private one, and only absolute paths reach files). It needs no
build. Comparing a tool with its rewrite, a pipeline with a script, two versions of a CLI, or GNU
``sort`` with busybox's is then one call::

    divergent check 'cmd:sort -n' 'cmd:sort -g' --example sample.txt

Everything else is what programs reading a text share (:mod:`divergent.kinds.texts`): the engines
of texts, the examples and test files, a validator, a generator, text shrinking, the reports.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from divergent.comparison import Comparison
from divergent.errors import InvalidArgument, LoadError
from divergent.kinds.base import records_of
from divergent.kinds.options import SearchOptions
from divergent.kinds.texts import TextKind
from divergent.programs import Program, StdinProgram, with_distinct_labels
from divergent.records import Outcome, OutcomeKind
from divergent.sandbox.bubblewrap import program_paths
from divergent.sandbox.isolation import Isolation
from divergent.sandbox.launch import ProgramLimits
from divergent.sandbox.runner import Runner
from divergent.text_comparison import OutputComparison

if TYPE_CHECKING:
    # (imported where used: choosing the kind of a check of functions imports this module)
    from divergent.sandbox.builds import BuiltProgram

#: what a spec starts with to name a command
PREFIX = "cmd:"
#: the shell that runs a command (POSIX ``sh``, as ``system(3)`` does)
SHELL = "/bin/sh"
#: the exit status when the command's directory cannot be entered (as a shell's "cannot execute")
_NO_DIRECTORY = 126


@dataclass(frozen=True)
class Command:
    """A command line run by ``/bin/sh -c`` with its input on stdin (the program record of the
    ``command`` kind)."""

    kind: ClassVar[str] = "command"

    #: the spec as given, e.g. ``cmd:sort -n``
    label: str
    #: the command line, e.g. ``sort -n``
    line: str
    #: the directory it runs from (where divergent was started)
    directory: str
    origin: str = ""

    @property
    def source(self) -> str:
        """The command line (what engines harvest constants from and a model is shown)."""
        return self.line

    @property
    def path(self) -> str | None:
        return None

    @property
    def language(self) -> str:
        return "sh"

    @property
    def display_name(self) -> str:
        return "stdin"


@dataclass(frozen=True)
class CommandComparison(OutputComparison):
    """Outputs compared as for whole programs (``--output``, a checker), and the exit status too:
    two runs that ended with different exit codes (or signals) differ, whatever they printed; two
    that failed alike are compared on their output as well."""

    def outcomes_equal(self, a: Outcome, b: Outcome) -> bool:
        if a.kind is OutcomeKind.RUNTIME_ERROR and b.kind is OutcomeKind.RUNTIME_ERROR:
            return a.status == b.status and self.outputs_equal(a.stdout, b.stdout)
        return super().outcomes_equal(a, b)

    def essential(self) -> CommandComparison:
        return self

    def describe(self) -> str:
        return f"exit status, {super().describe()}"


class Commands(TextKind):
    name = "command"
    noun = "command"
    test_comparison = (
        "from divergent.kinds.commands import CommandComparison",
        'CommandComparison(mode=OPTIONS["output"], rel_tol=OPTIONS["rel_tol"], abs_tol=OPTIONS["abs_tol"], '
        'checker={checker})',
    )

    def claims(self, spec: object) -> bool:
        return isinstance(spec, Command) or (isinstance(spec, str) and spec.startswith(PREFIX))

    def load(self, specs: Sequence[object], options: SearchOptions) -> tuple[Program, ...]:
        directory = os.getcwd()
        commands: list[Program] = []
        for spec in specs:
            if isinstance(spec, Command):
                commands.append(spec)
            elif isinstance(spec, str) and spec.startswith(PREFIX):
                line = spec[len(PREFIX):].strip()
                if not line:
                    raise LoadError(f"{spec!r}: no command after {PREFIX}")
                commands.append(Command(label=spec, line=line, directory=directory, origin=spec))
            else:
                raise InvalidArgument(f"{spec!r} is not a command: give every command as cmd:COMMAND")
        return tuple(with_distinct_labels(commands))

    def prepare(self, programs: Sequence[Program], helpers: Sequence[StdinProgram], *, level: Isolation,
                limits: ProgramLimits, deadline: float | None = None) -> None:
        if not os.access(SHELL, os.X_OK):
            raise LoadError(f"{SHELL} is missing: commands run under a POSIX shell")
        from divergent.sandbox.process_runner import build_all

        build_all(helpers, level=level, limits=limits, deadline=deadline)

    def start_runner(self, programs: Sequence[Program], *, limits: ProgramLimits, level: Isolation,
                     checker: StdinProgram | None) -> Runner:
        from divergent.sandbox.process_runner import ProcessRunner

        commands = _commands(programs)
        return ProcessRunner(commands, limits=limits, isolation=level, checker=checker,
                             built=[_ready(command, level) for command in commands])

    def comparison(self, options: SearchOptions, checker: StdinProgram | None) -> Comparison:
        if isinstance(options.comparison, CommandComparison):
            return options.comparison
        return CommandComparison(mode=options.programs.output, rel_tol=options.programs.rel_tol,
                                 abs_tol=options.programs.abs_tol, checker=checker.label if checker else None, timeouts=options.comparison.timeouts)

    def workdir(self, programs: Sequence[Program]) -> str | None:
        directories = {command.directory for command in _commands(programs)}
        return directories.pop() if len(directories) == 1 else None

    def run_commands(self, programs: Sequence[Program], options: SearchOptions, input_file: str) -> list[str]:
        return [f"(cd {shlex.quote(command.directory)} && {SHELL} -c {shlex.quote(command.line)}) "
                f"< {shlex.quote(input_file)}" for command in _commands(programs)]


def _commands(programs: Sequence[Program]) -> list[Command]:
    return records_of(programs, Command, Commands.noun)


def _ready(command: Command, level: Isolation) -> BuiltProgram:
    """How the launcher runs the command: the shell, from the command's directory when the sandbox
    can see it (bound read-only at the bubblewrap level; a shared directory is never bound)."""
    from divergent.sandbox.builds import BuiltProgram

    bound = program_paths([command.directory], [])
    script = command.line
    if bound or level is not Isolation.BUBBLEWRAP:
        script = f"cd {shlex.quote(command.directory)} || exit {_NO_DIRECTORY}\n{command.line}"
    return BuiltProgram(program=command, mode="exec", argv=(SHELL, "-c", script), read_only=tuple(bound))


#: the kind, as :data:`divergent.kinds.registry.KINDS` names it
COMMANDS = Commands()
