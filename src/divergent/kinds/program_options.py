"""The options of a search over whole programs (stdin to stdout): :class:`ProgramOptions`.

They live in :class:`~divergent.kinds.options.SearchOptions` as its ``programs`` field; the Python
API takes them as keywords too (``divergent.check(["a.cpp", "b.py"], stdin=True,
examples=["sample.txt"], validator="v.py")``), and the CLI reads its option defaults from here.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from divergent.errors import InvalidArgument
from divergent.programs import BuildOptions
from divergent.records import AnyInput, TextInput
from divergent.sandbox.launch import ProgramLimits
from divergent.text_comparison import OutputMode

#: an example: a file holding one input, or the input itself
ExampleSpec = str | Path | TextInput
_DEFAULT_BUILD = BuildOptions()


@dataclass(frozen=True)
class ProgramOptions:
    """What a search over whole programs may be told besides the programs."""

    #: compare whole programs that read stdin (implied when a spec is a .c, .cc, .cpp, .cxx,
    #: .java file or exec:PATH); a .py file is then a script, not a function
    stdin: bool = False
    #: inputs to start from: files each holding one input (statement samples), or TextInputs
    examples: tuple[ExampleSpec, ...] = ()
    #: a directory of test files: every regular file in it is one input
    inputs_dir: str | None = None
    #: a program that prints one input; it gets a seed as argv[1] (sandboxed)
    generator: str | None = None
    #: a program that reads an input on stdin and exits 0 when it is valid (sandboxed)
    validator: str | None = None
    #: a checker program, testlib's convention ``checker input output answer``, exit 0 = accepted
    checker: str | None = None
    #: how outputs compare: tokens, exact, lines, float
    output: str = OutputMode.TOKENS.value
    #: ``float`` mode: numbers are equal within the relative or the absolute tolerance
    #: (``math.isclose``; with both 1e-6, testlib's "absolute or relative error")
    rel_tol: float = 1e-6
    abs_tol: float = 1e-6
    #: the older name of one tolerance for both (``rel_tol`` and ``abs_tol``); None once read
    float_tol: float | None = None
    #: CPU seconds per run (the wall clock gets twice as much); None: ``SearchOptions.limits.timeout``
    time_limit: float | None = None
    #: MiB of memory per run
    memory_limit: int = ProgramLimits().memory_mb
    #: bytes a run may print before it is ``output-limit``
    output_limit: int = ProgramLimits().output_bytes
    #: C compiler flags, replacing the defaults whole (a string is split like a shell would); None:
    #: ``-O2 -std=c17 -DONLINE_JUDGE`` (the command line's ``--cflags`` adds to them instead)
    cflags: tuple[str, ...] | None = None
    #: C++ compiler flags; None: ``-O2 -std=c++17 -DONLINE_JUDGE``
    cxxflags: tuple[str, ...] | None = None
    #: javac's flags; None: ``-encoding UTF-8``
    javacflags: tuple[str, ...] | None = None
    #: the C++ standard (``c++20``), replacing the default flags' ``-std=``
    std: str | None = None
    #: the build cache directory; None: the ``builds`` cache (:func:`divergent.paths.cache_dir`)
    build_cache: str | None = None
    #: run every Python script in a fresh interpreter (no state can pass between runs; slower)
    fresh_interpreter: bool = False
    #: files or directories a program may see besides its own source (a program sees nothing
    #: else of its directory): each goes to the programs whose directory holds it, at its path
    #: relative to that directory (helper modules, other classes, headers)
    with_files: tuple[str, ...] = ()
    #: what an input is made of, in the language of docs/programs.md ("Input formats"): a file
    #: holding it, or an ``InputFormat``; None: inferred from the examples, the statement and the
    #: programs
    input_format: Any = None
    #: the problem statement (a file, text or HTML): its input section and constraints shape the
    #: inputs when no format is given
    statement: str | None = None

    def __post_init__(self) -> None:
        examples: Any = self.examples
        if examples is None:
            examples = ()
        elif isinstance(examples, str | Path | AnyInput):
            examples = (examples,)
        object.__setattr__(self, "examples", tuple(examples))
        for name in ("cflags", "cxxflags", "javacflags"):
            value: Any = getattr(self, name)
            if isinstance(value, str):
                object.__setattr__(self, name, tuple(shlex.split(value)))
            elif value is not None:
                object.__setattr__(self, name, tuple(str(v) for v in value))
        with_files: Any = self.with_files
        if isinstance(with_files, str | Path):
            with_files = (with_files,)
        object.__setattr__(self, "with_files", tuple(str(Path(f).expanduser().absolute()) for f in with_files or ()))
        if isinstance(self.input_format, Path):
            object.__setattr__(self, "input_format", str(self.input_format))
        if isinstance(self.statement, Path):
            object.__setattr__(self, "statement", str(self.statement))
        for name in ("inputs_dir", "generator", "validator", "checker", "build_cache"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, str(value))
        try:
            OutputMode(self.output)
        except ValueError:
            raise InvalidArgument(
                f"output={self.output!r}: choose from {', '.join(m.value for m in OutputMode)}"
            ) from None
        if self.float_tol is not None:
            object.__setattr__(self, "rel_tol", self.float_tol)
            object.__setattr__(self, "abs_tol", self.float_tol)
            object.__setattr__(self, "float_tol", None)
        for name in ("rel_tol", "abs_tol"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise InvalidArgument(f"{name}={value!r} must be a finite number >= 0")
        if self.time_limit is not None and not (math.isfinite(self.time_limit) and self.time_limit > 0):
            raise InvalidArgument(f"time_limit={self.time_limit!r} must be > 0 seconds")
        if self.memory_limit < 8:
            raise InvalidArgument(f"memory_limit={self.memory_limit!r} MiB must be at least 8")
        if self.output_limit < 1:
            raise InvalidArgument(f"output_limit={self.output_limit!r} must be at least 1 byte")
        if self.std is not None and not self.std.replace("+", "").replace("c", "").replace("gnu", "").isalnum():
            raise InvalidArgument(f"std={self.std!r}: expected a standard such as c++20 or gnu++17")

    @property
    def used(self) -> bool:
        """Whether anything here asks for whole programs."""
        return self.stdin or bool(self.examples or self.inputs_dir or self.generator or self.validator or self.checker
                                  or self.input_format is not None or self.statement)

    def build_options(self) -> BuildOptions:
        cxxflags = self.cxxflags if self.cxxflags is not None else _DEFAULT_BUILD.cxxflags
        if self.std is not None:
            std = self.std if self.std.startswith(("c++", "gnu++")) else f"c++{self.std}"
            cxxflags = (*(f for f in cxxflags if not f.startswith("-std=")), f"-std={std}")
        return replace(
            _DEFAULT_BUILD,
            cflags=self.cflags if self.cflags is not None else _DEFAULT_BUILD.cflags,
            cxxflags=cxxflags,
            javacflags=self.javacflags if self.javacflags is not None else _DEFAULT_BUILD.javacflags,
            cache_dir=self.build_cache,
            fresh_interpreter=self.fresh_interpreter,
            files=self.with_files,
        )

    def limits(self, default_time: float) -> ProgramLimits:
        return ProgramLimits(
            time_limit=self.time_limit if self.time_limit is not None else default_time,
            memory_mb=self.memory_limit,
            output_bytes=self.output_limit,
        )


#: the names :meth:`SearchOptions.of` accepts as shortcuts for ``programs=ProgramOptions(...)``
PROGRAM_OPTION_NAMES = frozenset(f.name for f in fields(ProgramOptions))
DEFAULT_PROGRAM_OPTIONS = ProgramOptions()
