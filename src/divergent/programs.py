"""What is under test: a program, of one of a few kinds.

The search, the engines, the sandbox's runners, the comparisons and the reports meet programs through
this seam (:class:`Program`). Every program has a ``label`` (shown to users), its ``source`` text
(displayed, harvested for constants, shown to a model; never run in the divergent process), an
``origin`` (provenance), a ``path`` (its file, if it has one), a ``display_name`` (what an input is
shown with) and ``kind``, the name of its kind (:mod:`divergent.kinds.registry`), which owns
everything else about it: how it loads, runs, compares, shrinks and is reported.

The records of the kinds:

* :class:`PythonFunction`: a function in a Python module, called with arguments (:class:`Signature`);
  run by a warm sandbox worker per implementation (:mod:`divergent.sandbox.pool`).
* :class:`StdinProgram`: a whole program (C, C++, Java, a Python script, or any executable) that
  reads its input on stdin and writes its answer on stdout; it takes text inputs
  (:class:`~divergent.records.TextInput`), is built once per source (:mod:`divergent.sandbox.builds`)
  and run by the process runner (:mod:`divergent.sandbox.process_runner`), one process per input.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Protocol


class Program(Protocol):
    """Any program under test, of any kind: what the search, the engines and the reports may ask of it."""

    #: the name of its kind in :data:`divergent.kinds.registry.KINDS`
    kind: ClassVar[str]

    @property
    def label(self) -> str:
        """The short name shown to users (unique within a search)."""
        ...

    @property
    def source(self) -> str:
        """Its source text (shown, harvested for constants; never run in the divergent process)."""
        ...

    @property
    def origin(self) -> str:
        """Where it came from, for provenance."""
        ...

    @property
    def path(self) -> str | None:
        """Its file, when it has one."""
        ...

    @property
    def language(self) -> str:
        """The language of its source, for showing it (``python``, ``cpp``, ``sh``...)."""
        ...

    @property
    def display_name(self) -> str:
        """What an input is shown with (``f`` in ``f(1, 2)``; ``stdin`` for a program reading it)."""
        ...


class Language(enum.StrEnum):
    """The languages of whole programs (``exec`` is a ready executable, run as it is)."""

    PYTHON = "python"
    C = "c"
    CPP = "cpp"
    JAVA = "java"
    EXEC = "exec"


class ParameterKind(enum.StrEnum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "var-positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "var-keyword"


@dataclass(frozen=True)
class Parameter:
    """One parameter, read from source without running it."""

    name: str
    kind: ParameterKind = ParameterKind.POSITIONAL_OR_KEYWORD
    #: the annotation as written in the source, or None when unannotated
    annotation_source: str | None = None
    #: the annotation resolved to a typing object by a safe resolver (no eval), or None when
    #: unannotated; unknown names resolve to ``typing.Any``
    annotation: Any = None
    has_default: bool = False
    default_source: str | None = None

    @property
    def annotated(self) -> bool:
        return self.annotation_source is not None


@dataclass(frozen=True)
class Signature:
    parameters: tuple[Parameter, ...] = ()
    return_annotation_source: str | None = None

    @property
    def required(self) -> tuple[Parameter, ...]:
        """Parameters a call must supply (no default, not ``*args``/``**kwargs``)."""
        return tuple(
            p
            for p in self.parameters
            if not p.has_default and p.kind not in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)
        )

    @property
    def positional(self) -> tuple[Parameter, ...]:
        return tuple(
            p
            for p in self.parameters
            if p.kind in (ParameterKind.POSITIONAL_ONLY, ParameterKind.POSITIONAL_OR_KEYWORD)
        )

    def __str__(self) -> str:
        parts = []
        for p in self.parameters:
            prefix = {"var-positional": "*", "var-keyword": "**"}.get(p.kind.value, "")
            text = prefix + p.name
            if p.annotation_source:
                text += f": {p.annotation_source}"
            if p.has_default:
                text += f" = {p.default_source}"
            parts.append(text)
        tail = f" -> {self.return_annotation_source}" if self.return_annotation_source else ""
        return f"({', '.join(parts)}){tail}"


@dataclass(frozen=True)
class PythonFunction:
    """A function in a Python module, called with arguments; its outcome is what it returns or raises."""

    kind: ClassVar[str] = "python-function"

    #: short name shown to the user, e.g. ``old.py:normalize`` or ``HEAD~1:pkg/util.py:slugify``
    label: str
    #: the function's name inside its module (``Class.method`` is not supported: functions only)
    entry_point: str
    #: the whole module's source text (used for display and constant harvesting; never run in-process)
    source: str
    signature: Signature
    #: file the worker imports; None means the worker executes ``source`` as a fresh module
    path: str | None = None
    #: the module name to import the file under (dotted when it lives in a package)
    module_name: str = "divergent_impl"
    #: directories the worker puts first on ``sys.path`` so the module's own imports resolve
    sys_path: tuple[str, ...] = ()
    #: code run in the module's namespace before the entry point is looked up (MBPP's test_setup_code)
    setup_code: str = ""
    language: str = "python"
    #: where it came from, for provenance: a path, ``module:function``, or ``REV:path``
    origin: str = ""

    @property
    def display_name(self) -> str:
        """The name an input is shown with: ``f(1, 2)``."""
        return self.entry_point


@dataclass(frozen=True)
class BuildOptions:
    """How whole programs are built: compiler flags (each a tuple of arguments) and the build cache.

    The defaults are an online judge's: ``gcc -O2 -std=c17 ... -lm``, ``g++ -O2 -std=c++17
    -DONLINE_JUDGE``, linked with ``-static`` where the toolchain has the static libraries;
    ``javac`` as it is. A flag set replaces the default one whole."""

    cflags: tuple[str, ...] = ("-O2", "-std=c17", "-DONLINE_JUDGE")
    #: libraries linked after the C sources
    clibs: tuple[str, ...] = ("-lm",)
    cxxflags: tuple[str, ...] = ("-O2", "-std=c++17", "-DONLINE_JUDGE")
    cxxlibs: tuple[str, ...] = ()
    javacflags: tuple[str, ...] = ("-encoding", "UTF-8")
    #: where built programs are kept (None: the ``builds`` cache of
    #: :func:`divergent.paths.cache_dir`)
    cache_dir: str | None = None
    #: wall seconds one build may take (a template bomb is a build error, not a hang)
    seconds: float = 60.0
    #: MiB of address space one compiler process may use
    memory_mb: int = 2048
    #: link C and C++ programs statically where the toolchain can (a run then starts about three
    #: times faster: no dynamic loading of libstdc++; judges link statically too)
    static: bool = True
    #: run Python scripts in a fresh interpreter each time, Java programs in a JVM of their own each
    #: time (else a fork of a warm interpreter, a warm JVM with a class loader per run: faster, and
    #: each run still starts from a clean state)
    fresh_interpreter: bool = False
    #: files (or directories) a program may see besides its own source, each given to the
    #: programs whose directory holds it, at its path relative to that directory: a script's
    #: helper modules, a Java program's other classes, headers (``--with-file``). A program sees
    #: nothing else of its directory (``divergent.sandbox.staging``)
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class StdinProgram:
    """A whole program: reads an input on stdin, writes its answer on stdout; its outcome is what it
    printed and how it ended (exit code, signal, time and memory limits)."""

    kind: ClassVar[str] = "stdin-program"

    #: short name shown to the user: the path as given, e.g. ``wrong.cpp``
    label: str
    #: the source text (a compiled language or a Python script); "" for an ``exec:`` program
    source: str
    language: Language
    #: the absolute path of the source file (or of the executable, for ``exec:``); None for a
    #: program given as text (its source is written into the build cache)
    path: str | None = None
    #: the Java class with ``main`` (read from the source); "" for other languages
    main_class: str = ""
    build: BuildOptions = BuildOptions()
    origin: str = ""

    @property
    def display_name(self) -> str:
        """What an input is shown with: programs read stdin."""
        return "stdin"

    @property
    def directory(self) -> str | None:
        """The program's own directory (a Python script may import its neighbours)."""
        return os.path.dirname(self.path) if self.path else None


def with_distinct_labels(programs: Sequence[Program]) -> list[Program]:
    """The programs, those sharing a label numbered apart (``a.py#1``, ``a.py#2``: two specs such as
    ``a.py`` and ``./a.py`` may name the same label), so reports can tell them apart."""
    labels = [program.label for program in programs]
    if len(set(labels)) == len(labels):
        return list(programs)
    seen: dict[str, int] = {}
    renamed = []
    for program in programs:
        seen[program.label] = seen.get(program.label, 0) + 1
        if labels.count(program.label) > 1:
            program = replace(program, label=f"{program.label}#{seen[program.label]}")
        renamed.append(program)
    return renamed


#: the public name of the Python-function kind in divergent 0.1 (``divergent.Implementation``)
Implementation = PythonFunction
