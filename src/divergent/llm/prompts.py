"""The prompts every language-model feature sends: one template syntax, one way to show sources.

Templates are files (data, not code), all in :class:`string.Template` syntax, loaded through
:class:`Templates`: the language-model features' in ``llm/prompts/*.txt``, each benchmark's with its
harness (``bench/<name>/templates/*.txt``).
``$name`` or ``${name}`` is a placeholder and ``$$`` a dollar sign, so the Python code and JSON the
prompts show keep their braces as written. :func:`render` fills one in and names a placeholder the
caller did not give; values are inserted as they are (a ``$`` or ``{`` in a value stays literal).

:func:`show_sources` is how a prompt shows the implementations (ProbeGen, RandSearch, the spurious
filter): each under its heading in a ``python`` fence, cut at :data:`MAX_SOURCE_CHARS` with a marker
saying how much was left out.

What a call cost is :meth:`divergent.llm.chat.Completion.usage` (one accounting for every feature).
"""

from __future__ import annotations

import importlib.resources
import threading
from collections.abc import Callable, Sequence
from string import Template
from typing import TYPE_CHECKING

from divergent.errors import InvalidArgument

if TYPE_CHECKING:
    from divergent.programs import Program

__all__ = [
    "LLM_TEMPLATES",
    "MAX_SOURCE_CHARS",
    "Templates",
    "render",
    "show_source",
    "show_sources",
    "template",
    "version_heading",
]

#: longest source text shown per implementation (a whole module can be large; the function is
#: usually near its imports, and a prompt past the context window helps no one)
MAX_SOURCE_CHARS = 12_000


class Templates:
    """A directory of prompt templates inside a package: ``<package>/<directory>/<name>.txt``.

    The one way every prompt is loaded: the language-model features' own templates are
    :data:`LLM_TEMPLATES` (``llm/prompts/``), and each benchmark's live with its harness
    (``bench/<name>/templates/``, through its own :class:`Templates`). A template is read once."""

    def __init__(self, package: str, directory: str = "templates") -> None:
        self.package = package
        self.directory = directory
        self._read: dict[str, Template] = {}
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return f"{self.package.removeprefix('divergent.').replace('.', '/')}/{self.directory}"

    def names(self) -> list[str]:
        """The templates it holds, by name."""
        folder = importlib.resources.files(self.package) / self.directory
        return sorted(entry.name.removesuffix(".txt") for entry in folder.iterdir() if entry.name.endswith(".txt"))

    def files(self) -> list[tuple[str, bytes]]:
        """(name, bytes) of every template, by name (what a digest of the wording reads)."""
        folder = importlib.resources.files(self.package) / self.directory
        return [(name, (folder / f"{name}.txt").read_bytes()) for name in self.names()]

    def template(self, name: str) -> Template:
        """The template ``<name>.txt`` (read once)."""
        with self._lock:
            found = self._read.get(name)
        if found is not None:
            return found
        resource = importlib.resources.files(self.package) / self.directory / f"{name}.txt"
        try:
            text = resource.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InvalidArgument(f"no prompt template {name!r} ({self.where}/{name}.txt)") from None
        with self._lock:
            return self._read.setdefault(name, Template(text))

    def render(self, name: str, /, **values: object) -> str:
        """The template ``name`` with its placeholders filled from ``values``.

        Raises InvalidArgument naming the placeholder when the template uses one that ``values``
        lacks, or when a ``$`` in the template starts no placeholder (write ``$$`` for a dollar sign).
        """
        try:
            return self.template(name).substitute(values)
        except KeyError as error:
            given = ", ".join(sorted(values)) or "none"
            raise InvalidArgument(
                f"prompt template {name!r} needs ${error.args[0]}, which was not given (given: {given})"
            ) from None
        except ValueError as error:  # "Invalid placeholder in string: line 3, col 5"
            raise InvalidArgument(f"prompt template {name!r}: {error} (write $$ for a dollar sign)") from None


#: the templates of the language-model features (ProbeGen, RandSearch, the filter, live sampling)
LLM_TEMPLATES = Templates("divergent.llm", "prompts")


def template(name: str) -> Template:
    """The template ``llm/prompts/<name>.txt`` (read once)."""
    return LLM_TEMPLATES.template(name)


def render(name: str, /, **values: object) -> str:
    """``llm/prompts/<name>.txt`` filled in (:meth:`Templates.render`)."""
    return LLM_TEMPLATES.render(name, **values)


#: the fence of each language of whole programs (``divergent.programs.Language``)
_FENCES = {"python": "python", "c": "c", "cpp": "cpp", "java": "java"}


def show_source(source: str, language: str = "python") -> str:
    """One source in a fence of its language, cut at :data:`MAX_SOURCE_CHARS` with a marker saying
    how many characters of it are not shown."""
    shown = source.rstrip()
    if not shown and language not in _FENCES:
        return "(an executable: no source to show)"
    if len(shown) > MAX_SOURCE_CHARS:
        comment = "#" if language == "python" else "//"
        shown = shown[:MAX_SOURCE_CHARS] + f"\n{comment} ... ({len(source) - MAX_SOURCE_CHARS} more characters)"
    return f"```{_FENCES.get(language, '')}\n{shown}\n```"


def version_heading(index: int, implementation: Program) -> str:
    """``**Version 1** (`label`)``: how ProbeGen and RandSearch name the implementations (``index``
    counts from 0)."""
    return f"**Version {index + 1}** (`{implementation.label}`)"


def show_sources(
    implementations: Sequence[Program],
    *,
    heading: Callable[[int, Program], str] = version_heading,
) -> str:
    """Every implementation's source under its heading (``heading(index, implementation)``), each
    as :func:`show_source` shows it, separated by blank lines."""
    return "\n\n".join(
        f"{heading(index, implementation)}\n\n{show_source(implementation.source, str(implementation.language))}"
        for index, implementation in enumerate(implementations)
    )
