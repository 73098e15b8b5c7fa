"""The prompts every language-model feature sends: one template syntax, one way to show sources.

Templates are files (data, not code) in ``llm/prompts/*.txt``, all in :class:`string.Template` syntax:
``$name`` or ``${name}`` is a placeholder and ``$$`` a dollar sign, so the Python code and JSON the
prompts show keep their braces as written. :func:`render` fills one in and names a placeholder the
caller did not give; values are inserted as they are (a ``$`` or ``{`` in a value stays literal).

:func:`show_sources` is how a prompt shows the implementations (ProbeGen, RandSearch, the spurious
filter): each under its heading in a ``python`` fence, cut at :data:`MAX_SOURCE_CHARS` with a marker
saying how much was left out.

What a call cost is :meth:`divergent.llm.chat.Completion.usage` (one accounting for every feature).
"""

from __future__ import annotations

import functools
import importlib.resources
from collections.abc import Callable, Sequence
from string import Template
from typing import TYPE_CHECKING

from divergent.errors import InvalidArgument

if TYPE_CHECKING:
    from divergent.programs import Program

__all__ = [
    "MAX_SOURCE_CHARS",
    "render",
    "show_source",
    "show_sources",
    "template",
    "version_heading",
]

#: longest source text shown per implementation (a whole module can be large; the function is
#: usually near its imports, and a prompt past the context window helps no one)
MAX_SOURCE_CHARS = 12_000


@functools.cache
def template(name: str) -> Template:
    """The template ``llm/prompts/<name>.txt`` (read once)."""
    resource = importlib.resources.files("divergent.llm") / "prompts" / f"{name}.txt"
    try:
        text = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InvalidArgument(f"no prompt template {name!r} (llm/prompts/{name}.txt)") from None
    return Template(text)


def render(name: str, **values: object) -> str:
    """The template ``name`` with its placeholders filled from ``values``.

    Raises InvalidArgument naming the placeholder when the template uses one that ``values`` lacks,
    or when a ``$`` in the template starts no placeholder (write ``$$`` for a dollar sign).
    """
    try:
        return template(name).substitute(values)
    except KeyError as error:
        given = ", ".join(sorted(values)) or "none"
        raise InvalidArgument(
            f"prompt template {name!r} needs ${error.args[0]}, which was not given (given: {given})"
        ) from None
    except ValueError as error:  # "Invalid placeholder in string: line 3, col 5"
        raise InvalidArgument(f"prompt template {name!r}: {error} (write $$ for a dollar sign)") from None


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
