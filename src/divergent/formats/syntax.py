"""The language of input formats (``--input-format FILE``; a report shows an inferred format in it).

One line of the file per line of the input; ``#`` starts a comment; blank lines are ignored::

    # t test cases, each: n and k, then n numbers, then a bit string of length n
    t:int[1,10^4]
    repeat t:
        n:int[1,2*10^5] k:int[0,n]
        a:int[-10^9,10^9]*n
        s:word[n]{01}

A line lists its tokens, separated by spaces. A token is ``[NAME:]TYPE[*COUNT]``:

* ``int[LOW,HIGH]``, ``float[LOW,HIGH]`` (``.D``: D digits after the point), ``word[LOW,HIGH]{ALPHABET}``
  (the range is a word's length; ``word[n]``: exactly ``n`` characters; the alphabet lists characters
  and ranges: ``{a-z}``, ``{01}``, ``{.#}``), or choices ``(L|R)``, ``(YES|NO)``;
* a bound is a number (``200000``, ``2*10^5``, ``1e9``, ``-10^9``), a variable read before (``n``,
  ``n-1``, ``2*n``), or empty (open: ``int[1,]``); ``~`` before a bound marks it as a guess (seen in
  examples): engines go past it now and then, never past a bound without ``~``;
* ``*COUNT``: a list of COUNT tokens on the line (``int*n``); ``*`` alone: as many as the line holds.

``repeat COUNT:`` repeats the lines indented under it (``repeat *:``: up to the end of the input);
``empty`` is a line with nothing on it. A name is given to a token to use it as a count or a bound.
"""

from __future__ import annotations

import re

from divergent.errors import InvalidArgument
from divergent.formats.model import ANY, Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType

__all__ = ["parse_expr", "parse_format"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_REPEAT = re.compile(r"repeat\s+(.+?)\s*:$")
_RESERVED = {"int", "float", "word", "repeat", "empty"}


class FormatSyntaxError(ValueError):
    pass


def _number(text: str) -> int | None:
    """``200000``, ``2*10^5``, ``10^9``, ``2^63``, ``1e9``, ``2e5`` (no variable)."""
    text = text.replace(" ", "")
    if re.fullmatch(r"\d+", text):
        return int(text)
    match = re.fullmatch(r"(?:(\d+)\*)?(\d+)\^\{?(\d+)\}?", text)
    if match and int(match.group(3)) <= 64:  # 10^9, 2*10^5, 2^63
        return int(match.group(1) or 1) * int(match.group(2)) ** int(match.group(3))
    match = re.fullmatch(r"(\d+)[eE](\d+)", text)
    if match:
        return int(match.group(1)) * 10 ** int(match.group(2))
    return None


def parse_expr(text: str) -> Expr:
    """A bound or a count: ``2*10^5``, ``n``, ``n-1``, ``2*n+1``, ``-10^9``; ``*`` is :data:`ANY`."""
    text = text.strip()
    if text == "*":
        return ANY
    if not text:
        raise FormatSyntaxError("an empty number")
    # split into signed terms, keeping the ^ exponents and products whole
    terms = re.findall(r"([+-]?)([^+-]+)", text.replace(" ", ""))
    if "".join(sign + body for sign, body in terms) != text.replace(" ", ""):
        raise FormatSyntaxError(f"cannot read {text!r} as a number or a variable")
    constant = 0
    variable: str | None = None
    scale = 1
    for sign, body in terms:
        factor = -1 if sign == "-" else 1
        value = _number(body)
        if value is not None:
            constant += factor * value
            continue
        match = re.fullmatch(r"(?:(\d+)\*)?([A-Za-z_][A-Za-z0-9_]*)", body)
        if match is None or variable is not None:
            raise FormatSyntaxError(f"cannot read {text!r}: a bound is a number, or one variable scaled and shifted")
        variable = match.group(2)
        scale = factor * int(match.group(1) or 1)
    return Expr(constant=constant, variable=variable, scale=scale)


def _alphabet(text: str) -> str:
    chars: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\" and i + 1 < len(text):
            chars.append(text[i + 1])
            i += 2
            continue
        if i + 2 < len(text) and text[i + 1] == "-":
            low, high = char, text[i + 2]
            if ord(high) < ord(low):
                raise FormatSyntaxError(f"the range {low}-{high} runs backwards")
            chars.extend(chr(c) for c in range(ord(low), ord(high) + 1))
            i += 3
            continue
        chars.append(char)
        i += 1
    if not chars or any(c.isspace() for c in chars):
        raise FormatSyntaxError("an alphabet needs characters, and no spaces")
    return "".join(sorted(set(chars)))


def _bound(text: str) -> tuple[Expr | None, bool]:
    text = text.strip()
    soft = text.startswith("~")
    text = text.lstrip("~").strip()
    if not text:
        return None, soft
    return parse_expr(text), soft


_TYPE = re.compile(r"(?P<kind>int|float|word)(?:\[(?P<range>[^\]]*)\])?(?:\{(?P<alphabet>(?:\\.|[^}])*)\})?"
                   r"(?:\.(?P<decimals>\d+))?$")


def _token(text: str) -> Token:
    name = None
    match = _NAME.match(text)
    if match and text[match.end():match.end() + 1] == ":" and match.group(0) not in _RESERVED:
        name = match.group(0)
        text = text[match.end() + 1:]
    count = None
    star = _top_level_star(text)
    if star is not None:
        count = parse_expr(text[star + 1:] or "*")
        text = text[:star]
    if text.startswith("(") and text.endswith(")"):
        choices = tuple(choice.strip() for choice in text[1:-1].split("|"))
        if not all(choices) or any(" " in c for c in choices):
            raise FormatSyntaxError(f"choices {text!r}: words separated by |")
        kind = Kind.INT if all(re.fullmatch(r"-?\d+", c) for c in choices) else Kind.WORD
        return Token(TokenType(kind, choices=choices), name=name, count=count)
    match = _TYPE.match(text)
    if match is None:
        raise FormatSyntaxError(f"cannot read the token {text!r}: expected int[..], float[..], word[..]{{..}} or (A|B)")
    kind = Kind(match["kind"])
    low = high = None
    soft_low = soft_high = False
    if match["range"] is not None:
        parts = match["range"].split(",")
        if len(parts) == 1:
            low, soft_low = _bound(parts[0])
            high, soft_high = low, soft_low
        elif len(parts) == 2:
            low, soft_low = _bound(parts[0])
            high, soft_high = _bound(parts[1])
        else:
            raise FormatSyntaxError(f"the range [{match['range']}]: expected [LOW,HIGH] or [N]")
    if match["alphabet"] is not None and kind is not Kind.WORD:
        raise FormatSyntaxError("only words have an alphabet")
    if match["decimals"] is not None and kind is not Kind.FLOAT:
        raise FormatSyntaxError("only floats have digits after the point")
    if kind is Kind.WORD:
        for bound in (low, high):
            if bound is not None and bound.variable is None and bound.constant < 0:
                raise FormatSyntaxError("a word's length cannot be negative")
    token_type = TokenType(kind, low=low, high=high, soft_low=soft_low, soft_high=soft_high,
                           alphabet=_alphabet(match["alphabet"]) if match["alphabet"] is not None else "",
                           decimals=int(match["decimals"]) if match["decimals"] is not None else None)
    return Token(token_type, name=name, count=count)


def _unescaped(text: str) -> list[tuple[int, str]]:
    """The characters of ``text`` with their positions, escaped ones (``\\x``) left out."""
    chars = []
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        chars.append((index, text[index]))
        index += 1
    return chars


def _top_level(text: str) -> list[tuple[int, str]]:
    """The unescaped characters of ``text`` outside brackets, with their positions (brackets left out)."""
    chars = []
    depth = 0
    for index, char in _unescaped(text):
        if char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif depth == 0:
            chars.append((index, char))
    return chars


def _top_level_star(text: str) -> int | None:
    return next((index for index, char in _top_level(text) if char == "*"), None)


def _items(text: str) -> list[str]:
    """The tokens of a line: split on spaces outside brackets."""
    items: list[str] = []
    start = 0
    for index, char in _top_level(text):
        if char.isspace():
            if text[start:index]:
                items.append(text[start:index])
            start = index + 1
    if text[start:].strip():
        items.append(text[start:].strip())
    return items


def parse_format(text: str, *, what: str = "input format") -> InputFormat:
    """An input format from its text (see the module's docstring); InvalidArgument names the line
    of the first mistake."""
    rows: list[tuple[int, int, str]] = []  # (line number, indentation, text)
    for number, raw in enumerate(text.splitlines(), start=1):
        content = re.split(r"(?:^|(?<=\s))#", raw, maxsplit=1)[0].rstrip()
        if not content.strip():
            continue
        expanded = content.expandtabs(4)
        rows.append((number, len(expanded) - len(expanded.lstrip()), expanded.strip()))
    if not rows:
        raise InvalidArgument(f"{what}: it describes no line")
    position = 0

    def block(indent: int, defined: set[str]) -> tuple[Node, ...]:
        nonlocal position
        nodes: list[Node] = []
        scope = set(defined)
        while position < len(rows):
            number, depth, content = rows[position]
            if depth < indent:
                break
            if depth > indent:
                raise InvalidArgument(f"{what} line {number}: indented, but no repeat opens a block here")
            position += 1
            try:
                repeat = _REPEAT.match(content)
                if repeat:
                    count = parse_expr(repeat.group(1))
                    _check_defined(count, scope)
                    if position >= len(rows) or rows[position][1] <= indent:
                        raise FormatSyntaxError("a repeat needs the lines it repeats indented under it")
                    body = block(rows[position][1], scope)
                    nodes.append(Repeat(count, body))
                    continue
                tokens: tuple[Token, ...] = ()
                if content != "empty":
                    tokens = tuple(_token(item) for item in _items(content))
                for token in tokens:
                    for expr in (token.count, token.type.low, token.type.high):
                        if expr is not None:
                            _check_defined(expr, scope)
                    if token.name is not None:
                        if token.count is not None:
                            scope.add(token.name + "[]")  # a list's name says what it holds; not a number
                        else:
                            scope.add(token.name)
                nodes.append(Line(tokens))
            except FormatSyntaxError as error:
                raise InvalidArgument(f"{what} line {number}: {error}") from None
        return tuple(nodes)

    body = block(rows[0][1], set())
    if position < len(rows):
        raise InvalidArgument(f"{what} line {rows[position][0]}: indented less than the first line")
    return InputFormat(body, origin="user")


def _check_defined(expr: Expr, scope: set[str]) -> None:
    if expr.variable is not None and not expr.is_any and expr.variable not in scope:
        raise FormatSyntaxError(f"{expr.variable!r} is used before a token of that name is read")
