"""What was mined from the code, per parameter: the records the input generators read and the
report shows.

A :class:`ParameterStructure` gathers what the code does with one parameter: the regular expressions
applied to it, the date formats it is parsed with, the literals it is compared with, split on,
stripped of or searched for, the keys it is subscripted with, the attributes read from it, the
well-known grammars all this points to, and the kind of value the uses suggest (``str``, ``dict``...).
Uses the miner could not tie to a parameter are kept under the name ``""``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["UNTARGETED", "CodeStructure", "FormatUse", "ParameterStructure", "RegexUse"]

#: the name under which uses tied to no parameter are kept
UNTARGETED = ""
#: uses of one sort kept per parameter at most (the first found: the entry point's own come first)
MAX_USES = 64
_FLAG_NAMES = (("I", re.IGNORECASE), ("M", re.MULTILINE), ("S", re.DOTALL), ("X", re.VERBOSE), ("A", re.ASCII))


@dataclass(frozen=True)
class RegexUse:
    """A regular expression the code applies (``how``: the ``re`` function, or ``constant``)."""

    pattern: str | bytes
    flags: int = 0
    how: str = "match"
    #: given by the user (``--input-regex``), not mined
    user: bool = False

    def describe(self) -> str:
        pattern = self.pattern if isinstance(self.pattern, str) else self.pattern.decode("latin-1")
        flags = "".join(letter for letter, flag in _FLAG_NAMES if self.flags & flag)
        shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
        return f"{'(?' + flags.lower() + ')' if flags else ''}{shown!r}"


@dataclass(frozen=True)
class FormatUse:
    """A ``strptime``/``strftime`` format (``group``: the list of formats it was tried among)."""

    format: str
    how: str = "strptime"
    group: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParameterStructure:
    """Everything mined about one parameter (``name == ""``: uses tied to no parameter)."""

    name: str
    regexes: tuple[RegexUse, ...] = ()
    formats: tuple[FormatUse, ...] = ()
    #: (literal, how the code uses it: ``==``, ``in``, ``contains``, ``startswith``, ``split``...)
    literals: tuple[tuple[str, str], ...] = ()
    #: keys the code subscripts the parameter with, ``.get``s or tests with ``in``
    keys: tuple[Any, ...] = ()
    attributes: tuple[str, ...] = ()
    #: well-known grammars the uses point to (``url``, ``markup``, ``number``, ``date``...)
    grammars: tuple[str, ...] = ()
    #: the kinds of value the uses suggest, most votes first (``str``, ``dict``, ``bytes``, ``list``, ``number``)
    kinds: tuple[str, ...] = ()

    @property
    def kind(self) -> str | None:
        """The kind of value the uses suggest (most votes), text when only patterns or literals
        say anything, a dict when only keys do; None when nothing does."""
        if self.kinds:
            return self.kinds[0]
        if self.regexes or self.formats or self.literals:
            return "str"
        return "dict" if self.keys else None

    @property
    def empty(self) -> bool:
        return not (self.regexes or self.formats or self.literals or self.keys or self.attributes or self.grammars)

    def merged(self, other: ParameterStructure) -> ParameterStructure:
        def union(a: Iterable[Any], b: Iterable[Any]) -> tuple[Any, ...]:
            return tuple(dict.fromkeys((*a, *b)))[:MAX_USES]

        return ParameterStructure(
            name=self.name,
            regexes=union(self.regexes, other.regexes),
            formats=union(self.formats, other.formats),
            literals=union(self.literals, other.literals),
            keys=union(self.keys, other.keys),
            attributes=union(self.attributes, other.attributes),
            grammars=union(self.grammars, other.grammars),
            kinds=union(self.kinds, other.kinds),
        )

    def to_json(self) -> dict[str, Any]:
        def text(value: Any) -> Any:
            return value.decode("latin-1") if isinstance(value, bytes) else value

        return {
            "kind": self.kind,
            "regexes": [
                {"pattern": text(r.pattern), "flags": r.flags, "how": r.how, **({"given": True} if r.user else {})}
                for r in self.regexes
            ],
            "formats": sorted({f.format for f in self.formats}),
            "literals": [{"value": value, "how": how} for value, how in self.literals],
            "keys": [text(k) if isinstance(k, str | bytes) else repr(k) for k in self.keys],
            "attributes": list(self.attributes),
            "grammars": list(self.grammars),
        }


@dataclass(frozen=True)
class CodeStructure:
    """What was mined from the implementations, by parameter name."""

    parameters: Mapping[str, ParameterStructure] = field(default_factory=dict)

    def of(self, name: str) -> ParameterStructure:
        return self.parameters.get(name) or ParameterStructure(name)

    @property
    def empty(self) -> bool:
        return all(p.empty for p in self.parameters.values())

    def merged(self, other: CodeStructure) -> CodeStructure:
        names = dict.fromkeys((*self.parameters, *other.parameters))
        return CodeStructure({name: self.of(name).merged(other.of(name)) for name in names})

    def to_json(self) -> dict[str, Any]:
        """The ``inferred_inputs`` of ``--json``: per parameter (``""``: tied to none), what was inferred."""
        return {
            (name or "(no parameter)"): parameter.to_json()
            for name, parameter in self.parameters.items()
            if not parameter.empty
        }

    def notes(self) -> list[str]:
        """One line per parameter for the text report: what its inputs were shaped from."""
        lines = []
        for name, parameter in self.parameters.items():
            if parameter.empty:
                continue
            parts = []
            given = [r for r in parameter.regexes if r.user]
            mined = [r for r in parameter.regexes if not r.user]
            if given:
                parts.append("given regex " + ", ".join(r.describe() for r in given[:2]))
            if mined:
                more = f" (+{len(mined) - 2} more)" if len(mined) > 2 else ""
                parts.append(f"{len(mined)} regex{'es' if len(mined) > 1 else ''} " + ", ".join(r.describe() for r in mined[:2]) + more)
            formats = sorted({f.format for f in parameter.formats})
            if formats:
                shown = ", ".join(repr(f) for f in formats[:3]) + (f" (+{len(formats) - 3} more)" if len(formats) > 3 else "")
                parts.append(f"{len(formats)} date format{'s' if len(formats) > 1 else ''} {shown}")
            literals = list(dict.fromkeys(v for v, _ in parameter.literals))
            if literals:
                shown = ", ".join(repr(v) for v in literals[:4])
                more = f" (+{len(literals) - 4} more)" if len(literals) > 4 else ""
                parts.append(f"literals {shown}{more}")
            if parameter.keys and parameter.kind == "dict":
                parts.append("keys " + ", ".join(repr(k) for k in parameter.keys[:4]))
            if parameter.attributes:
                parts.append("attributes " + ", ".join(parameter.attributes[:4]))
            if parameter.grammars:
                parts.append("grammars " + ", ".join(parameter.grammars))
            who = f"parameter {name}" if name else "no parameter in particular"
            kind = f" ({parameter.kind})" if parameter.kind else ""
            lines.append(f"inputs shaped from the code for {who}{kind}: " + "; ".join(parts))
        return lines
