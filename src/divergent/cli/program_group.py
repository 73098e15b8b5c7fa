"""The option group ``programs``, which whole programs and commands read (the kinds that accept it:
``TextKind.option_groups``): the helper programs (validator, generator, checker), how outputs compare, how programs
are built. It builds :class:`~divergent.kinds.program_options.ProgramOptions`; given for
programs of a kind that does not accept it, these flags are an input error (:mod:`divergent.cli.option_groups`).

Compiler flags add to the judge-like defaults (``-O2 -std=c++17 -DONLINE_JUDGE`` ...): a later
``-std=``, ``-O`` or ``-U`` wins, as it does on a compiler's command line. The older spellings
(``--example``, ``--inputs``, ``--time-limit``, ``--memory-limit``, ``--float-tol``, ``--std``) are
hidden fields that keep the meaning they had.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from divergent.cli.option_groups import OptionGroup, older_spelling
from divergent.errors import InvalidArgument
from divergent.kinds.program_options import DEFAULT_PROGRAM_OPTIONS
from divergent.programs import BuildOptions

__all__ = ["ProgramGroup"]

_PROGRAMS = DEFAULT_PROGRAM_OPTIONS
_BUILD = BuildOptions()
_HIDDEN = {"hidden": True}


@dataclass(frozen=True)
class ProgramGroup(OptionGroup):
    """What a search over whole programs or commands may be told besides the shared groups."""

    panel = "Whole programs and commands"
    name = "programs"
    hint = "add --stdin to run .py files as scripts"

    stdin: Annotated[bool, typer.Option(
        "--stdin", help="Compare whole programs reading stdin: a .py file is then a script (implied by .c, .cc, "
        ".cpp, .cxx, .java and exec:PATH).")] = _PROGRAMS.stdin
    validator: Annotated[str | None, typer.Option(
        "--validator", metavar="PROG",
        help="A program reading an input on stdin: exit 0 = valid; rejected inputs are never counterexamples.")] = None
    generator: Annotated[str | None, typer.Option(
        "--generator", metavar="PROG", help="A program printing one input; its seed is argv[1].")] = None
    checker: Annotated[str | None, typer.Option(
        "--checker", metavar="PROG",
        help="testlib's checker: 'checker input output answer', exit 0 = accepted.")] = None
    output: Annotated[str, typer.Option(
        "--output", metavar="MODE",
        help="How outputs compare: tokens, exact, lines or float (numbers within --rel-tol/--abs-tol).")] = (
        _PROGRAMS.output)
    cflags: Annotated[list[str] | None, typer.Option(
        "--cflags", metavar="FLAGS",
        help=f"C compiler flags added after the defaults ({' '.join(_BUILD.cflags)}), e.g. --cflags=-m32; "
        "split like a shell would; repeatable.")] = None
    cxxflags: Annotated[list[str] | None, typer.Option(
        "--cxxflags", metavar="FLAGS",
        help=f"C++ compiler flags added after the defaults ({' '.join(_BUILD.cxxflags)}), e.g. "
        "--cxxflags=-std=c++20; repeatable.")] = None
    javacflags: Annotated[list[str] | None, typer.Option(
        "--javacflags", metavar="FLAGS",
        help=f"javac flags added after the defaults ({' '.join(_BUILD.javacflags)}); repeatable.")] = None
    build_cache: Annotated[str | None, typer.Option(
        "--build-cache", metavar="DIR",
        help="Where built programs are kept (default: $DIVERGENT_HOME/cache/builds, else $XDG_CACHE_HOME/divergent/builds).")] = _PROGRAMS.build_cache
    fresh_interpreter: Annotated[bool, typer.Option(
        "--fresh-interpreter", help="Run every Python script in a new interpreter and every Java program in a "
        "JVM of its own per run (slower).")] = (
        _PROGRAMS.fresh_interpreter)
    with_file: Annotated[list[str] | None, typer.Option(
        "--with-file", metavar="PATH",
        help="A file (or directory) the programs in its directory may read besides their own source: helper "
        "modules, other classes, headers (repeatable). A program sees nothing else of its directory.")] = None
    input_format: Annotated[str | None, typer.Option(
        "--input-format", metavar="FILE",
        help="A file describing what an input is made of (docs/programs.md, Input formats); default: inferred "
        "from the examples, --statement and the programs.")] = None
    statement: Annotated[str | None, typer.Option(
        "--statement", metavar="FILE",
        help="The problem statement (text, Markdown or HTML): its input section and constraints shape the "
        "inputs.")] = None
    # older spellings, hidden; each keeps the meaning it had
    example: Annotated[list[str] | None, typer.Option("--example", **_HIDDEN)] = None
    inputs: Annotated[str | None, typer.Option("--inputs", **_HIDDEN)] = None
    time_limit: Annotated[float | None, typer.Option("--time-limit", min=0.001, **_HIDDEN)] = None
    memory_limit: Annotated[int | None, typer.Option("--memory-limit", min=8, **_HIDDEN)] = None
    float_tol: Annotated[float | None, typer.Option("--float-tol", min=0.0, **_HIDDEN)] = None
    std: Annotated[str | None, typer.Option("--std", **_HIDDEN)] = None

    def __post_init__(self) -> None:
        for older, now in (("example", "--seeds FILE"), ("inputs", "--seeds DIR"), ("time_limit", "--timeout"),
                           ("memory_limit", "--memory"), ("float_tol", "--rel-tol and --abs-tol"),
                           ("std", "--cxxflags=-std=...")):
            if getattr(self, older) is not None:
                older_spelling("--" + older.replace("_", "-"), now)

    def apply(self, options: Any, flags: Any) -> Any:
        return options.with_(programs=self.build(flags))

    def choosing(self, options: Any) -> Any:
        """``--stdin`` asks for whole programs (a .py file is then a script)."""
        from dataclasses import replace

        return options.with_(programs=replace(options.programs, stdin=self.stdin))

    def build(self, flags: Any) -> Any:
        """The :class:`~divergent.kinds.program_options.ProgramOptions` the flags say, with the shared
        ``--rel-tol``/``--abs-tol`` as the tolerances of ``--output float`` (the shared ``--memory``
        is the kind's: ``TextKind.with_memory``)."""
        from divergent.kinds.program_options import ProgramOptions

        comparison = flags.comparison
        if self.float_tol is not None and (comparison.rel_tol is not None or comparison.abs_tol is not None):
            raise InvalidArgument("--float-tol is the older spelling of --rel-tol and --abs-tol: give one of them")
        rel_tol = _first(comparison.rel_tol, self.float_tol, _PROGRAMS.rel_tol)
        abs_tol = _first(comparison.abs_tol, self.float_tol, _PROGRAMS.abs_tol)
        return ProgramOptions(
            stdin=self.stdin, examples=tuple(self.example or ()), inputs_dir=self.inputs, generator=self.generator,
            validator=self.validator, checker=self.checker, output=self.output, rel_tol=rel_tol, abs_tol=abs_tol,
            time_limit=self.time_limit, memory_limit=_first(self.memory_limit, _PROGRAMS.memory_limit),
            cflags=_added(_BUILD.cflags, self.cflags, "--cflags"),
            cxxflags=_added(_BUILD.cxxflags, self.cxxflags, "--cxxflags"),
            javacflags=_added(_BUILD.javacflags, self.javacflags, "--javacflags"),
            std=self.std, build_cache=self.build_cache, fresh_interpreter=self.fresh_interpreter,
            with_files=tuple(self.with_file or ()), input_format=self.input_format, statement=self.statement,
        )


def _first(*values: Any) -> Any:
    return next(value for value in values if value is not None)


def _added(defaults: tuple[str, ...], given: list[str] | None, flag: str) -> tuple[str, ...] | None:
    """The default flags with the given ones after them (each given value split like a shell
    would); None when none were given (the defaults)."""
    if not given:
        return None
    added: list[str] = []
    for value in given:
        try:
            added.extend(shlex.split(value))
        except ValueError as error:
            raise InvalidArgument(f"{flag} {value!r}: {error}") from None
    return (*defaults, *added)
