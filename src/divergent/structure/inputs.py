"""Values shaped like the code expects, per parameter, for every engine to draw from.

:class:`ShapedInputs` turns a :class:`~divergent.structure.findings.CodeStructure` into a bank of
values for each parameter, built the first time an engine asks (and kept): strings drawn from the
regular expressions applied to it (full, partial and near-miss matches, matches glued together),
dates in its formats and their neighbours, strings built around its literals (a prefix it tests, a
separator it splits on), examples of the grammars it points to, and dicts with the keys it reads.
The bank interleaves these sources, most telling first, so that the first few dozen values cover
each of them; :meth:`ShapedInputs.draw` picks by source with fixed weights. :meth:`ShapedInputs.edit`
changes a string by its parts (:func:`divergent.grammars.edits.reshape`).
"""

from __future__ import annotations

import threading
import time
import zlib
from collections.abc import Sequence
from random import Random
from typing import TYPE_CHECKING, Any

from divergent.structure.findings import UNTARGETED, CodeStructure, ParameterStructure, RegexUse

if TYPE_CHECKING:
    from divergent.grammars.catalog import Grammar

# The grammars (their catalog compiles many patterns) are imported where a text parameter needs
# them: a search over numbers never loads them.

__all__ = ["ShapedInputs"]

#: how often each source is drawn from, relative to the others (when it has values)
SOURCE_WEIGHTS = {
    "given": 5.0, "regex": 3.0, "format": 3.0, "dict": 3.0, "literal": 2.0, "regex-near": 1.5, "grammar": 1.5,
    "regex-partial": 1.0, "regex-glued": 0.7, "elsewhere": 0.7, "elsewhere-regex": 0.7,
}  # fmt: skip
#: seconds all regular expressions of one search may take to sample (Hypothesis draws a few ms each)
SAMPLING_SECONDS = 1.5
#: regular expressions sampled per parameter at most (the user's, then the mined ones, then the rest)
_MAX_PATTERNS = 12
_MAX_ELSEWHERE_PATTERNS = 4
#: values of one source kept at most
_MAX_PER_SOURCE = 120
_DICT_VALUES: tuple[Any, ...] = (0, 1, -1, 42, 1000, 2.5, "", "x", "abc", None, True, False, [], "10", {}, "a b")


def literal_strings(literals: Sequence[tuple[str, str]]) -> list[str]:
    """Strings built around the literals the code uses, as each use suggests: a prefix before a
    word, a separator between pieces (doubled, leading, trailing), characters around a word..."""
    found: dict[str, None] = {}
    for literal, how in literals:
        if how in ("==", "one-of"):
            variants = (literal, literal.upper(), literal.lower(), f" {literal}", f"{literal} ", literal + literal[-1:])
        elif how in ("startswith", "removeprefix"):
            variants = (literal, f"{literal}abc", f"{literal}/x/y", f"x{literal}", literal[:-1], f"{literal}{literal}")
        elif how in ("endswith", "removesuffix"):
            variants = (literal, f"abc{literal}", f"a.b{literal}", f"{literal}x", literal[1:], f"{literal}{literal}")
        elif how in ("split", "rsplit", "partition", "rpartition"):
            variants = (f"a{literal}b", f"a{literal}b{literal}c", f"{literal}a", f"a{literal}", f"a{literal}{literal}b",
                        literal, "ab", f" a {literal} b ")  # fmt: skip
        elif how in ("strip", "lstrip", "rstrip"):
            variants = (f"{literal}a{literal}", f"{literal}{literal}a b", literal, f"a{literal}b", f" {literal}a ")
        else:  # replace, find, count, in: the literal inside a text, at its ends, twice
            variants = (literal, f"a{literal}b", f"{literal}x", f"x{literal}", f"{literal}{literal}", f"x{literal}y{literal}z")
        found.update(dict.fromkeys(v for v in variants if v is not None))
    return list(found)


def _interleave(sources: dict[str, list[Any]]) -> list[Any]:
    """The sources' values taken in turns, heavier sources more often, duplicates removed."""
    order: list[Any] = []
    seen: set[str] = set()
    positions = dict.fromkeys(sources, 0)
    credit = dict.fromkeys(sources, 0.0)
    while any(positions[s] < len(v) for s, v in sources.items()):
        for source, values in sources.items():
            credit[source] += SOURCE_WEIGHTS.get(source, 1.0)
            while credit[source] >= 1.0 and positions[source] < len(values):
                credit[source] -= 1.0
                value = values[positions[source]]
                positions[source] += 1
                key = repr(value)
                if key not in seen:
                    seen.add(key)
                    order.append(value)
    return order


class ShapedInputs:
    """Per-parameter banks of values shaped by the code (built on first use, thread-safe)."""

    def __init__(self, structure: CodeStructure, *, seed: int = 0, sampling_seconds: float = SAMPLING_SECONDS) -> None:
        self.structure = structure
        self.seed = seed
        self._lock = threading.RLock()
        self._sources: dict[str, dict[str, list[Any]]] = {}
        self._banks: dict[str, tuple[Any, ...]] = {}
        self._sampling_seconds = sampling_seconds
        #: when sampling must stop (set when it starts: Hypothesis' import counts too)
        self._deadline: float | None = None
        #: parameters whose regexes were sampled (or are being)
        self._sampled: set[str] = set()
        self._background: threading.Thread | None = None
        #: patterns Hypothesis could not draw from, and why
        self.problems: dict[str, str] = {}
        #: the patterns Hypothesis drew full matches from
        self._drawable: set[tuple[Any, int]] = set()

    # -- what the engines ask --------------------------------------------------------------------

    def parameter(self, name: str) -> ParameterStructure:
        return self.structure.of(name)

    def kind(self, name: str) -> str | None:
        """The kind of value the code's uses suggest (``str``, ``bytes``, ``dict``...), or None."""
        return self.structure.of(name).kind

    def values(self, name: str) -> tuple[Any, ...]:
        """The bank of ``name``: its shaped values, the sources interleaved, most telling first.

        While a background build runs (:meth:`build_in_background`) the bank holds what needs no
        sampling (formats, literals, grammars, dicts) and grows once the regexes are sampled;
        without one, the regexes are sampled here, on first use."""
        with self._lock:
            if name not in self._sources:
                self._sources[name] = self._guarded(name, self._unsampled)
                self._banks[name] = tuple(_interleave(self._sources[name]))
            if self._background is None and name not in self._sampled:
                self._add_sampled(name)
            return self._banks[name]

    @property
    def complete(self) -> bool:
        """Whether every bank is final (no background build still sampling regexes)."""
        return self._background is None or not self._background.is_alive()

    def build_in_background(self, names: Sequence[str]) -> threading.Thread:
        """Sample the regexes of ``names`` on a thread (while the sandboxed workers start); the
        banks serve their other values meanwhile."""

        def build() -> None:
            for name in names:
                self.values(name)
                self._add_sampled(name)

        self._background = threading.Thread(target=build, name="divergent-shaped", daemon=True)
        self._background.start()
        return self._background

    def _add_sampled(self, name: str) -> None:
        if name in self._sampled:
            return
        self._sampled.add(name)
        sampled = self._guarded(name, self._regex_sources)
        with self._lock:
            self._sources[name] = {**sampled, **self._sources.get(name, {})}
            self._banks[name] = tuple(_interleave(self._sources[name]))

    def _guarded(self, name: str, build: Any) -> dict[str, list[Any]]:
        try:
            sources = build(name)
            return {s: _distinct(vs)[:_MAX_PER_SOURCE] for s, vs in sources.items() if vs}
        except Exception as error:  # noqa: BLE001 - a bank that cannot be built is empty, the search goes on
            self.problems[f"parameter {name}"] = f"{type(error).__name__}: {error}"
            return {}

    def draw(self, name: str, rng: Random) -> tuple[Any, str] | None:
        """(a value of ``name``'s bank, its source), the source picked by weight; None if empty."""
        if not self.values(name):
            return None
        sources = [(s, v) for s, v in self._sources[name].items() if v]
        total = sum(SOURCE_WEIGHTS.get(s, 1.0) for s, _ in sources)
        roll = rng.random() * total
        for source, values in sources:
            roll -= SOURCE_WEIGHTS.get(source, 1.0)
            if roll <= 0:
                return rng.choice(values), source
        source, values = sources[-1]
        return rng.choice(values), source

    def regexes(self, name: str) -> tuple[RegexUse, ...]:
        """The patterns applied to ``name`` (the user's first), for generators that sample regexes themselves."""
        return self.structure.of(name).regexes

    def sampled_regexes(self, name: str) -> tuple[RegexUse, ...]:
        """The patterns applied to ``name`` that Hypothesis drew matches from (the bank is built first)."""
        self.values(name)
        return tuple(r for r in self.structure.of(name).regexes if (r.pattern, r.flags) in self._drawable)

    def grammars(self, name: str) -> list[Grammar]:
        from divergent.grammars.catalog import grammar

        return [g for g in (grammar(n) for n in self.structure.of(name).grammars) if g is not None]

    def edit(self, value: str, name: str, rng: Random) -> tuple[str, str]:
        """(``value`` changed by one of its parts, the edit's name)."""
        bank = [v for v in self.values(name) if isinstance(v, str)]
        words = tuple(literal for literal, _ in self.structure.of(name).literals if literal.strip())
        from divergent.grammars.edits import reshape

        return reshape(value, rng, grammars=self.grammars(name), donors=bank[:64], words=words)

    def summary(self) -> dict[str, Any]:
        """What was inferred, for ``--json`` (``inferred_inputs``)."""
        summary = self.structure.to_json()
        if self.problems:
            summary["(regexes not sampled)"] = dict(self.problems)
        return summary

    # -- building a bank -----------------------------------------------------------------------

    def _text_kind(self, name: str) -> str | None:
        """``str`` or ``bytes`` when ``name`` takes text (or nothing says otherwise), else None."""
        kind = self.kind(name)
        return "str" if kind is None else kind if kind in ("str", "bytes") else None

    def _unsampled(self, name: str) -> dict[str, list[Any]]:
        """The sources that need no sampling: dicts, dates, literals, grammars."""
        parameter = self.structure.of(name)
        elsewhere = self.structure.of(UNTARGETED)
        if self.kind(name) == "dict":
            return {"dict": self._dicts(parameter)}
        text = self._text_kind(name)
        if text is None:
            return {}
        from divergent.grammars.dates import date_strings

        formats = list(dict.fromkeys(f for use in parameter.formats for f in (use.group or (use.format,))))
        if not formats and "date" in parameter.grammars and elsewhere.formats:
            formats = list(dict.fromkeys(f.format for f in elsewhere.formats))[:24]
        sources = {
            "format": date_strings(formats) if formats else [],
            "literal": literal_strings(parameter.literals),
            "grammar": self._grammar_values(parameter),
        }
        if not formats and elsewhere.formats and self.kind(name) == "str":
            sources["elsewhere"] = date_strings([f.format for f in elsewhere.formats][:12], neighbours=False)[:40]
        return _as_kind(sources, text)

    def _regex_sources(self, name: str) -> dict[str, list[Any]]:
        """The sources drawn from regular expressions: the user's, the mined ones (full, partial,
        near-miss and glued matches), and (fewer) those applied to no parameter in particular."""
        parameter = self.structure.of(name)
        text = self._text_kind(name)
        if text is None:
            return {}
        sources: dict[str, list[Any]] = {}
        for use in (r for r in parameter.regexes if r.user):
            samples = self._sample(use, 24)
            if samples is not None:
                sources.setdefault("given", []).extend((*samples.full, *samples.partial, *samples.near))
        fulls: list[list[Any]] = []
        for use in [r for r in parameter.regexes if not r.user][:_MAX_PATTERNS]:
            samples = self._sample(use, 12)
            if samples is None:
                continue
            fulls.append(list(samples.full))
            sources.setdefault("regex", []).extend(samples.full)
            sources.setdefault("regex-partial", []).extend(samples.partial)
            sources.setdefault("regex-near", []).extend(samples.near)
        sources["regex-glued"] = _glued(fulls, Random(f"{self.seed}:glue:{name}"))
        if self.kind(name) == "str" or parameter.regexes or parameter.formats:
            for use in self.structure.of(UNTARGETED).regexes[:_MAX_ELSEWHERE_PATTERNS]:
                samples = self._sample(use, 6)
                if samples is not None:
                    sources.setdefault("elsewhere-regex", []).extend(samples.full)
        return _as_kind(sources, text)

    def _sample(self, use: RegexUse, count: int):
        if self._deadline is None:
            self._deadline = time.monotonic() + self._sampling_seconds
        if time.monotonic() >= self._deadline:
            self.problems[use.describe()] = "the time for sampling regular expressions was spent"
            return None
        from divergent.grammars.regex import sample_regex

        seed = zlib.crc32(f"{self.seed}:{use.pattern!r}".encode())
        samples = sample_regex(use.pattern, use.flags, count=count, seed=seed, deadline=self._deadline)
        if samples.problem and not samples.full:
            self.problems[use.describe()] = samples.problem
        if samples.ascii_drawable:
            self._drawable.add((use.pattern, use.flags))
        return samples

    def _grammar_values(self, parameter: ParameterStructure) -> list[Any]:
        from divergent.grammars.catalog import grammar
        from divergent.grammars.units import with_units

        values: list[Any] = []
        rng = Random(f"{self.seed}:grammar:{parameter.name}")
        for name in parameter.grammars:
            found = grammar(name)
            if found is None:
                continue
            values.extend(found.examples[:40])
            values.extend(found.generate(rng) for _ in range(10))
        units = [literal for literal, _ in parameter.literals]
        for use in parameter.regexes:
            pattern = use.pattern if isinstance(use.pattern, str) else use.pattern.decode("latin-1")
            units.extend(part for part in pattern.replace("(", "|").replace(")", "|").split("|") if part.isalpha())
        if "filesize" in parameter.grammars or "duration" in parameter.grammars:
            values.extend(with_units(units))
        return values

    def _dicts(self, parameter: ParameterStructure) -> list[Any]:
        keys = [k for k in parameter.keys if isinstance(k, str | int | bytes | tuple)]
        dicts: list[Any] = [{}]
        pool = _DICT_VALUES + tuple(literal for literal, _ in parameter.literals[:6])
        for i, key in enumerate(keys):
            dicts.append({key: pool[i % len(pool)]})
        for rotation in range(len(pool)):
            dicts.append({key: pool[(rotation + i) % len(pool)] for i, key in enumerate(keys)})
        if keys:
            dicts.append(dict.fromkeys(keys))
            dicts.append({key: str(key) for key in keys})
            dicts.append({**dict.fromkeys(keys[1:], 1), "extra": 1})
        return dicts


def _distinct(values: list[Any]) -> list[Any]:
    """``values`` without repeats (by their repr: dicts are not hashable), in order."""
    seen: set[str] = set()
    found = []
    for value in values:
        key = f"{type(value).__name__}:{value!r}"
        if key not in seen:
            seen.add(key)
            found.append(value)
    return found


def _as_kind(sources: dict[str, list[Any]], kind: str) -> dict[str, list[Any]]:
    if kind != "bytes":
        return sources
    return {s: [_encoded(v) if isinstance(v, str) else v for v in vs] for s, vs in sources.items()}


def _encoded(text: str) -> bytes:
    """Text as bytes: byte for byte when it came from bytes (Latin-1), else UTF-8."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return text.encode("utf-8")


def _glued(fulls: list[list[Any]], rng: Random) -> list[Any]:
    """Matches glued in sequence: two patterns' matches end to end, one pattern's match twice."""
    glued: list[Any] = []
    texts = [[v for v in values if isinstance(v, str)] for values in fulls]
    texts = [t for t in texts if t]
    for _ in range(24 if texts else 0):
        first = rng.choice(texts)
        second = rng.choice(texts)
        a, b = rng.choice(first), rng.choice(second)
        glued.append(a + rng.choice(("", " ", "", ",", "\n")) + b)
    return glued
