"""What is under test: a program, of one of a few kinds.

The search, the engines, the sandbox's runners, the comparisons and the reports meet programs through
this seam. Every kind has a ``label`` (shown to users), its ``source`` text (displayed, harvested for
constants, shown to a model; never run in the divergent process), an ``origin`` (provenance), a
``kind`` and a ``display_name`` (what an input is shown with).

Kinds today:

* :class:`PythonFunction`: a function in a Python module, called with arguments (:class:`Signature`);
  run by a warm sandbox worker per implementation (:mod:`divergent.sandbox.pool`).

Whole programs that read stdin and write stdout are the next kind (they take text inputs and are run
by a process runner that builds each once).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar


class ProgramKind(enum.StrEnum):
    PYTHON_FUNCTION = "python-function"


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

    kind: ClassVar[ProgramKind] = ProgramKind.PYTHON_FUNCTION

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


#: any program under test (a union as kinds are added)
Program = PythonFunction
#: the public name of the Python-function kind in divergent 0.1 (``divergent.Implementation``)
Implementation = PythonFunction
