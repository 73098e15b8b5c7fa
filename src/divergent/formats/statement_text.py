"""A problem statement read for its input: plain text out of HTML (EquiBench's OJ pages, AIZU's and
AtCoder's), the section that describes the input, its mathematics written one way (``$$$n$$$``,
``\\le``, ``≤``, ``2 \\cdot 10^5`` all become ``n``, ``<=``, ``2*10^5``), and the constraints on each
variable (``1 <= n <= 2*10^5``, ``-10^9 <= a_i <= 10^9``, ``1 <= k <= n <= 50``, ``|x| <= 10^9``,
``a_ij is 0 or 1``, ``1 <= length of s <= 100``). Only the standard library's HTML tokenizer reads
the pages; nothing is fetched or run.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from divergent.formats.model import Expr
from divergent.formats.syntax import FormatSyntaxError, parse_expr

__all__ = ["Bounds", "constraints", "html_blocks", "input_section", "looks_like_html", "normalise", "statement_text"]

_BLOCK_TAGS = frozenset({
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "h1", "h2", "h3", "h4", "h5", "h6",
    "pre", "blockquote", "dl", "dt", "dd", "hr",
})
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "strong", "b", "dt"})
_SKIPPED_TAGS = frozenset({"script", "style"})
def looks_like_html(text: str) -> bool:
    return re.search(r"<\s*(p|div|pre|h\d|br|span|var|section|ul|table)\b", text, re.IGNORECASE) is not None


class _Reader(HTMLParser):
    """Text with block structure, and (heading, <pre> text) pairs in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.blocks: list[tuple[str, str]] = []
        self._heading: list[str] | None = None
        self._last_heading = ""
        self._pre: list[str] | None = None
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping += 1
        elif tag == "pre":
            self._pre = []
            self.parts.append("\n")
        elif tag == "sup":
            self.handle_data("^")  # 10<sup>5</sup> reads 10^5
        elif tag in _HEADING_TAGS and self._pre is None:
            self._heading = []
        if tag in _BLOCK_TAGS and tag != "pre":
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "pre" and self._pre is not None:
            self.blocks.append((self._last_heading, "".join(self._pre)))
            self._pre = None
            self.parts.append("\n")
        elif tag in _HEADING_TAGS and self._heading is not None:
            heading = " ".join("".join(self._heading).split())
            if heading:
                self._last_heading = heading
            self._heading = None
        if tag in _BLOCK_TAGS and tag != "pre":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        self.parts.append(data)
        if self._pre is not None:
            self._pre.append(data)
        elif self._heading is not None:
            self._heading.append(data)


def _read(text: str) -> _Reader:
    reader = _Reader()
    reader.feed(text)
    reader.close()
    return reader


def statement_text(statement: str) -> str:
    """The statement as plain text (HTML tags dropped, blocks on their own lines, <pre> kept)."""
    if not looks_like_html(statement):
        return statement.strip()
    text = "".join(_read(statement).parts)
    lines = [line.rstrip() for line in text.splitlines()]
    collapsed: list[str] = []
    for line in lines:
        if line.strip() or (collapsed and collapsed[-1].strip()):
            collapsed.append(line)
    return "\n".join(collapsed).strip()


def html_blocks(statement: str) -> list[tuple[str, str]]:
    """The page's ``<pre>`` blocks, each with the heading before it (samples, AtCoder's formats)."""
    return _read(statement).blocks


# -- mathematics written one way -------------------------------------------------------------

_REWRITES = (
    (r"\$\$\$|\$", ""),
    (r"\\leq?slant(?![a-zA-Z])|\\leq?(?![a-zA-Z])|≤|≦|⩽", "<="),
    (r"\\geq?slant(?![a-zA-Z])|\\geq?(?![a-zA-Z])|≥|≧|⩾", ">="),
    (r"\\neq?(?![a-zA-Z])|≠", "!="),
    (r"\\lt(?![a-zA-Z])|＜", "<"),
    (r"\\gt(?![a-zA-Z])|＞", ">"),
    (r"\\cdot(?![a-zA-Z])|\\times(?![a-zA-Z])|×|·|⋅", "*"),
    (r"\\[lcv]?dots(?![a-zA-Z])|…|\.\.\.+|(?<=\w)\s*\.\.\s*(?=\w)", " ... "),
    (r"\\[,;! ]", " "),
    (r"[−–]", "-"),
    (r"\\(?:mathrm|text|mathit|mathbf|operatorname)\{([^}]*)\}", r"\1"),
    (r"\^\s*\{\s*([^}]*?)\s*\}", r"^\1"),
    (r"_\s*\{\s*([^}]*?)\s*\}", lambda m: "_" + re.sub(r"[\s,]", "", m.group(1))),
    (r"\\(?=[a-zA-Z])", ""),
    (r"10\s*\^\s*(\d+)", r"10^\1"),
    (r"(?<![\w.])(\d+)\s*[xX]\s*10\^", r"\1*10^"),  # 2 x 10^5
    (r"(?<![\w.^])2\s*\^\s*(\d+)", r"2^\1"),
)


def normalise(text: str) -> str:
    """The text with its mathematics written one way: no ``$``, ``<=`` for every "less or equal",
    ``*`` for products, ``...`` for every ellipsis, ``10^18`` for ``10^{18}``."""
    text = html.unescape(text)
    for pattern, replacement in _REWRITES:
        text = re.sub(pattern, replacement, text)
    return text


_HEADING = r"^\s*(?:#+\s*)?(?:\*\*)?{}(?:\*\*)?\s*(?:format|specification|description)?\s*:?\s*$"
_INPUT = re.compile(_HEADING.format(r"(?:input|入力)"), re.IGNORECASE | re.MULTILINE)
_AFTER_INPUT = re.compile(_HEADING.format(r"(?:output|出力|constraints?|制約|notes?|examples?|samples?|sample input.*|"
                                          r"入力例.*|interaction|scoring)"), re.IGNORECASE | re.MULTILINE)
_OUTPUT = re.compile(_HEADING.format(r"(?:output|出力)"), re.IGNORECASE | re.MULTILINE)


def input_section(statement: str) -> str:
    """What the statement says about the input (its "Input" section, normalised), or the whole
    statement when it has no such heading."""
    text = normalise(statement_text(statement))
    match = _INPUT.search(text)
    if match is None:
        return text
    rest = text[match.end():]
    end = _AFTER_INPUT.search(rest)
    return rest[:end.start()] if end is not None else rest


_CONSTRAINTS = re.compile(_HEADING.format(r"(?:constraints?|制約)"), re.IGNORECASE | re.MULTILINE)


def constraint_text(statement: str) -> str:
    """The statement without its output section (where a bound is on the answer); with a section
    of constraints (AtCoder's), that section and the input's only (the task's text may name
    bounds of its own: "print Yes when -2^31 <= N < 2^31")."""
    text = normalise(statement_text(statement))
    heading = _CONSTRAINTS.search(text)
    if heading is not None:
        rest = text[heading.end():]
        end = _AFTER_INPUT.search(rest)
        return input_section(statement) + "\n" + (rest[:end.start()] if end is not None else rest)
    match = _OUTPUT.search(text)
    if match is None:
        return text
    rest = text[match.end():]
    following = re.search(r"^\s*(?:#+\s*)?(?:\*\*)?[A-Z\u3000-\u9fff][^\n]{0,40}$", rest, re.MULTILINE)
    return text[:match.start()] + (rest[following.start():] if following is not None else "")


# -- constraints ------------------------------------------------------------------------------


@dataclass
class Bounds:
    """What the statement says one variable may be: lower and upper bounds, nearest first (a bound
    may be another variable: ``k <= n``), or a few choices (``a_ij is 0 or 1``)."""

    lows: list[Expr] = field(default_factory=list)
    highs: list[Expr] = field(default_factory=list)
    choices: tuple[str, ...] = ()


_S = r"[ \t]*"  # spaces within a line (a constraint never runs over a line's end)
_NUM = (rf"-?\d+\^\d+(?:{_S}[+-]{_S}\d+(?![\w^]))?|-?\d+{_S}\*{_S}10\^-?\d+|-?\d+(?:\.\d+)?(?:[eE]\d+)?"
        rf"(?:{_S}[+-]{_S}\d+(?![\w^.]))?")
_NAME = r"(?:[A-Za-z][0-9]*(?:_[A-Za-z0-9]+)?|[A-Z]{2,3}(?:_[A-Za-z0-9]+)?)(?![A-Za-z])"
_VAR = rf"\|?{_NAME}\|?(?:{_S}[+-]{_S}\d+(?![\w^]))?"
_LENGTH = rf"(?:the{_S})?length(?:{_S}of{_S}(?:the{_S}|each{_S}|a{_S})?(?:string{_S}|word{_S})?[A-Za-z][A-Za-z0-9_]*)?"
_ITEM = rf"(?:{_LENGTH}|{_VAR})"
_ITEMS = rf"{_ITEM}(?:{_S},{_S}{_ITEM})*"
_TERM = rf"(?:{_NUM}|{_ITEMS})"
_OP = r"<=|<|>=|>"
_CHAIN = re.compile(rf"(?<![\w|^*])({_TERM}){_S}({_OP}){_S}({_TERM})((?:{_S}(?:{_OP}){_S}(?:{_TERM}))*)")
_CHAIN_REST = re.compile(rf"{_S}({_OP}){_S}({_TERM})")
_AT_MOST = re.compile(rf"(?<![\w|])({_ITEMS}){_S}(?:is|are){_S}(?:at{_S}most|not{_S}greater{_S}than|no{_S}more{_S}than)"
                      rf"{_S}({_NUM})|(?<![\w|])({_ITEM}){_S}does{_S}not{_S}exceed{_S}({_NUM})")
_AT_LEAST = re.compile(rf"(?<![\w|])({_ITEMS}){_S}(?:is|are){_S}(?:at{_S}least|not{_S}less{_S}than){_S}({_NUM})")
_BETWEEN = re.compile(rf"(?<![\w|])({_ITEMS}){_S}(?:is|are){_S}(?:between|from){_S}({_NUM}){_S}(?:and|to){_S}({_NUM})")
_LENGTH_BETWEEN = re.compile(rf"length{_S}(?:is{_S})?(?:between|from){_S}({_NUM}){_S}(?:and|to){_S}({_NUM})")
_CHOICE = r"(?:\d+|[A-Z]{1,5}|[a-z]|[.#*])"
_EITHER = re.compile(rf"(?<![\w|])({_ITEMS}){_S}(?:is|are){_S}(?:either{_S})?({_CHOICE}){_S}or{_S}({_CHOICE})(?![\w])")
_WORDS = {"a", "an", "the", "is", "are", "and", "or", "of", "to", "in", "on", "it", "be", "by", "at", "as", "if", "i"}


def variable_name(item: str) -> tuple[str, bool]:
    """``a_i`` -> (``a``, True: indexed); ``n`` -> (``n``, False); ``length of s`` -> ``|s|``."""
    item = item.strip()
    length = re.fullmatch(r"(?:the\s+)?length(?:\s+of\s+(?:the\s+|each\s+|a\s+)?(?:string\s+|word\s+)?"
                          r"([A-Za-z][A-Za-z0-9_]*))?", item)
    if length is not None:
        name = length.group(1)
        return (f"|{name}|" if name and re.fullmatch(_NAME, name) else "|*|"), False
    item = re.sub(r"\s*[+-]\s*\d+$", "", item).strip("|")
    base, _, index = item.partition("_")
    return base, bool(index)


def _expr(term: str) -> Expr | None:
    """A bound: a number (``2*10^5``) or a variable shifted (``n-1``)."""
    text = term.replace(" ", "")
    text = re.sub(r"^(\w+)_\w+", r"\1", text)  # a_i <= b_i: b
    try:
        return parse_expr(text.strip("|"))
    except FormatSyntaxError:
        return None


def _items(term: str) -> list[str]:
    return [item.strip() for item in re.split(r"\s*,\s*", term.strip()) if item.strip()]


def _is_number(term: str) -> bool:
    return re.fullmatch(_NUM, term.strip()) is not None


def constraints(statement: str) -> dict[str, Bounds]:
    """The bounds the statement puts on each variable (its output section left out), by name:
    ``a_i`` is ``a``, a string's length ``|s|`` (``|*|``: "the length" of the one string)."""
    found: dict[str, Bounds] = {}
    text = constraint_text(statement)
    for match in _CHAIN.finditer(text):
        terms = [match.group(1), match.group(3)]
        ops = [match.group(2)]
        for rest in _CHAIN_REST.finditer(match.group(4)):
            ops.append(rest.group(1))
            terms.append(rest.group(2))
        if ops[0] in (">", ">="):
            terms.reverse()
            ops = [{">": "<", ">=": "<="}.get(op, op) for op in reversed(ops)]
        if any(op in (">", ">=") for op in ops):
            continue  # a chain that turns around says nothing simple
        _chain(terms, ops, found)
    for match in _AT_MOST.finditer(text):
        names, bound = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        _bound(found, names, None, bound)
    for match in _AT_LEAST.finditer(text):
        _bound(found, match.group(1), match.group(2), None)
    for match in _BETWEEN.finditer(text):
        _bound(found, match.group(1), match.group(2), match.group(3))
    for match in _LENGTH_BETWEEN.finditer(text):
        found.setdefault("|*|", Bounds())
        _bound(found, "length", match.group(1), match.group(2))
    for match in _EITHER.finditer(text):
        choices = (match.group(2), match.group(3))
        for item in _items(match.group(1)):
            name, indexed = variable_name(item)
            if indexed or name.lower() not in _WORDS:
                found.setdefault(name, Bounds()).choices = choices
    return found


def _bound(found: dict[str, Bounds], names: str, low: str | None, high: str | None) -> None:
    for item in _items(names):
        name, indexed = variable_name(item)
        if name.lower() in _WORDS and not indexed:
            continue
        bounds = found.setdefault(name, Bounds())
        if low is not None and (expr := _expr(low)) is not None:
            bounds.lows.append(expr)
        if high is not None and (expr := _expr(high)) is not None:
            bounds.highs.append(expr)


def _chain(terms: list[str], ops: list[str], found: dict[str, Bounds]) -> None:
    for position, term in enumerate(terms):
        if _is_number(term):
            continue
        for item in _items(term):
            name, _ = variable_name(item)
            bounds = found.setdefault(name, Bounds())
            absolute = item.startswith("|") and not name.startswith("|")
            for left in range(position - 1, -1, -1):  # nearest first
                strict = any(op == "<" for op in ops[left:position])
                for expr in _side(terms[left], strict, +1):
                    bounds.lows.append(expr)
            for right in range(position + 1, len(terms)):
                strict = any(op == "<" for op in ops[position:right])
                for expr in _side(terms[right], strict, -1):
                    bounds.highs.append(expr)
                    if absolute and expr.variable is None:
                        bounds.lows.append(Expr(-expr.constant))


def _side(term: str, strict: bool, step: int) -> list[Expr]:
    """The bounds a term of a chain gives (a number, or each variable of a list), one step in when
    the comparison is strict."""
    items = [term] if _is_number(term) else _items(term)
    exprs = []
    for item in items:
        expr = _expr(item)
        if expr is None:
            continue
        if strict:
            expr = Expr(constant=expr.constant + step, variable=expr.variable, scale=expr.scale)
        exprs.append(expr)
    return exprs
