"""An input format read from a problem statement's words: which line holds what ("The first line
contains n and k", "The second line contains a_1, ..., a_n", "Each of the next m lines contains an
edge u v", "Each test case consists of two lines: ...", "One line: a string of lowercase letters"),
then every token bounded by the statement's constraints (:func:`bounded`).

It is a reading of English as contest statements write it (Codeforces, REFUTE, AtCoder and AIZU
pages once their tags are gone), not a parser of every sentence: a statement it cannot read gives no
format, and the examples or the programs are asked instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from divergent.errors import InvalidArgument
from divergent.formats.model import ANY, Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType
from divergent.formats.statement_text import Bounds, constraints, input_section
from divergent.formats.syntax import FormatSyntaxError, parse_expr, parse_format

__all__ = ["bounded", "statement_format", "word_type"]

_ORDINAL = r"(?:first|second|third|fourth|fifth|sixth|next|last|only|following)"
_COUNT = r"[A-Za-z](?:_\w+)?(?:\s*[-+]\s*\d+)?|\d+"
_LINE_MARK = re.compile(
    rf"(?:\bthe\s+)?\b{_ORDINAL}\s+line(?:\s+of\s+(?:each|the|every)\s+test(?:\s+case)?)?"
    rf"|\bthe\s+(?:first|second|third|fourth|fifth|next|last)\b(?!\s+(?:test|case|integer|number))"
    rf"|\ba\s+line\s+(?:with|containing|of)\b|^\s*one\s+line\b|^\s*(?:one|two|three|four|a\s+single)\s+"
    rf"(?:integers?|numbers?|strings?|words?)\b|^\s*(?:an?\s+)?(?:single\s+)?(?:integer|string|word)\b",
    re.IGNORECASE)
_REPEAT = re.compile(
    rf"each\s+of\s+the\s+(?:next|following|remaining)\s+({_COUNT})\s+lines"
    rf"|(?:then|next|followed\s+by|the\s+next|the\s+following)\s+({_COUNT})\s+lines"
    rf"|({_COUNT})\s+lines\s+follow"
    rf"|(?:in\s+)?each\s+of\s+(?:them|these)\b", re.IGNORECASE)
_TEST_CASES = re.compile(r"\beach\s+test\s+case\b|\btest\s+cases?\s+follows?\b|\bdescriptions?\s+of\s+the\s+test\s+cases",
                         re.IGNORECASE)
_TEST_COUNT = re.compile(r"number\s+of\s+(?:test\s+cases|tests|queries\s+sets|datasets)|test\s+cases", re.IGNORECASE)
_SEPARATOR = r"\s*(?:,|<=?|>=?)?\s*"
_LIST = re.compile(rf"\b([A-Za-z])_(\w+)(?:{_SEPARATOR}\1_\w+)*{_SEPARATOR}\.\.\.{_SEPARATOR}"
                   r"\1_((?:[A-Za-z]|\d+)(?:\s*[-+]\s*\d+)?)\b")
_N_THINGS = re.compile(r"(?<![\w_])([A-Za-z](?:\s*[-+]\s*\d+)?)\s+(?:space-separated\s+|distinct\s+|non-negative\s+|"
                       r"positive\s+)?(integers|numbers|real\s+numbers|values|elements|indices|indexes)(?:\s+([A-Za-z])_\w+)?")
_STRING = re.compile(r"\b(?:a|the|one|non-empty)?\s*(string|word|sequence|pattern|text|line)\b(?:\s+([A-Za-z]\w?)\b)?",
                     re.IGNORECASE)
_CHOICES = re.compile(r"\bis\s+(?:either\s+)?([A-Z]{1,5}|\d+|[a-z])\s+(?:\([^)]*\)\s+)?or\s+([A-Z]{1,5}|\d+|[a-z])\b")
_VARIABLE = re.compile(r"(?<![\w|^*])([A-Za-z][0-9]*(?:_[A-Za-z0-9]+)?|[A-Z]{2,3}(?:_\w+)?)(?![\w(])")
_NOT_VARIABLES = {"a", "A", "I", "an", "or", "of", "is", "to", "in", "on", "if", "it", "be", "by", "at", "as", "no",
                  "and", "the", "AND", "OR", "ASCII", "YES", "NO"}


@dataclass
class _Description:
    text: str
    repeat: str | None = None  # the count of lines it stands for ("n", "n-1", "*")
    test_case: bool = False


@dataclass
class _Reading:
    descriptions: list[_Description] = field(default_factory=list)
    test_cases: bool = False


def _clauses(section: str) -> list[str]:
    # paragraphs and list items end a clause; a line broken inside a sentence does not
    text = re.sub(r"\n\s*\n|\n\s*[-*\u2022]\s", " . ", section)
    text = re.sub(r"\s+", " ", text)
    parts = re.split(r"(?<![.])[.;](?!\.)\s*|:\s+(?=the\s+first)|,\s+(?=the\s+(?:second|third|fourth|last)\b)", text)
    return [part.strip() for part in parts if part.strip() and part.strip() != "."]


def _descriptions(section: str) -> _Reading:
    reading = _Reading()
    for clause in _clauses(section):
        if _TEST_CASES.search(clause):
            reading.test_cases = True
        repeat = _REPEAT.search(clause)
        marks = list(_LINE_MARK.finditer(clause))
        if repeat is not None:
            count = next((g for g in repeat.groups() if g), None)
            body = clause[repeat.end():]
            reading.descriptions.append(_Description(body, repeat=(count or "*").replace(" ", ""),
                                                     test_case=reading.test_cases))
            continue
        if not marks:
            continue
        for index, mark in enumerate(marks):
            end = marks[index + 1].start() if index + 1 < len(marks) else len(clause)
            text = clause[mark.end():end] if mark.group(0).lower().strip().startswith(("the", "a line")) else \
                clause[mark.start():end]
            if not reading.descriptions and not reading.test_cases and _TEST_COUNT.search(text):
                reading.descriptions.append(_Description(text))
                continue
            reading.descriptions.append(_Description(text, test_case=reading.test_cases))
    return reading


def _tokens(text: str, defined: set[str]) -> list[Token]:
    """The tokens a line's description names, in order."""
    found: list[tuple[int, Token]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    for match in _CHOICES.finditer(text):
        choices = (match.group(1), match.group(2))
        kind = Kind.INT if all(c.isdigit() for c in choices) else Kind.WORD
        found.append((match.start(), Token(TokenType(kind, choices=choices))))
        taken.append(match.span())
    text_no_notes = re.sub(r"\([^()]*\)", lambda m: " " * len(m.group(0)), text)
    for match in _LIST.finditer(text_no_notes):
        if free(*match.span()):
            # "b, then the b indices x_1, ..., x_b": a count read earlier on the same line counts too
            earlier = {m.group(1) for m in _VARIABLE.finditer(text_no_notes[:match.start()])} - _NOT_VARIABLES
            count = _count(match.group(3), defined | earlier)
            found.append((match.start(), Token(TokenType(Kind.INT), name=match.group(1), count=count)))
            taken.append(match.span())
    for match in _N_THINGS.finditer(text_no_notes):
        if not free(*match.span()):
            taken.append(match.span())  # "n integers a_1, ..., a_n": n is the list's count, not a token
            continue
        kind = Kind.FLOAT if "real" in match.group(2) else Kind.INT
        count = _count(match.group(1), defined)
        if count is None:
            continue
        found.append((match.start(), Token(TokenType(kind), name=match.group(3), count=count)))
        taken.append(match.span())
    for match in _STRING.finditer(text_no_notes):
        if not free(*match.span()) or (match.group(1).lower() == "line" and not re.search(r"letters|characters", text)):
            continue
        if match.group(1).lower() == "sequence" and re.search(r"integers|numbers", text):
            continue
        name = match.group(2) if match.group(2) and match.group(2) not in _NOT_VARIABLES else None
        found.append((match.start(), Token(word_type(text, defined), name=name)))
        taken.append((match.start(), len(text)))  # what follows describes the string ("of n letters B and G")
        break  # one string per line description
    characters = re.search(r"\b(?:characters|letters|symbols)\b", text) is not None and not any(
        token.type.kind is Kind.WORD for _, token in found)
    for match in _VARIABLE.finditer(text_no_notes):
        name = match.group(1)
        if not free(*match.span()) or (name in _NOT_VARIABLES and not _article_is_variable(text_no_notes, match)):
            continue
        if characters:  # "the program p, of characters with ASCII codes 33 to 126": p is a word
            found.append((match.start(), Token(word_type(text, defined), name=name)))
            taken.append((match.start(), len(text)))
            characters = False
            continue
        kind = Kind.FLOAT if re.search(r"\breal\b|\bfloat", text) and not re.search(r"\bintegers?\b", text) else Kind.INT
        found.append((match.start(), Token(TokenType(kind), name=name.split("_")[0])))
        taken.append(match.span())
    found.sort(key=lambda item: item[0])
    return [token for _, token in found]


def _article_is_variable(text: str, match: re.Match[str]) -> bool:
    """``a`` and ``A`` are variables in "two integers a and b", "a, b and c", not in "a string"."""
    before = text[:match.start()].rstrip()
    after = text[match.end():].lstrip()
    return match.group(1) in ("a", "A") and (before.endswith(("integers", "numbers", "integer", "number"))
                                             or after.startswith(("and ", ",")))


def _count(text: str, defined: set[str]) -> Expr | None:
    try:
        expr = parse_expr(text.replace(" ", ""))
    except FormatSyntaxError:
        return None
    if expr.variable is not None and expr.variable not in defined:
        return None
    return expr


def word_type(text: str, defined: set[str]) -> TokenType:
    alphabet = ""
    lowered = text.lower()
    if "lowercase" in lowered or "small" in lowered:
        alphabet += "abcdefghijklmnopqrstuvwxyz"
    if "uppercase" in lowered or "capital" in lowered:
        alphabet += "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if "digit" in lowered:
        alphabet += "0123456789"
    letters = re.search(r"letters\s+([A-Za-z])\s+and\s+([A-Za-z])\b|characters\s+'?(\S)'?\s+and\s+'?(\S)'?\s", text)
    if letters:
        alphabet = "".join(sorted({c for c in letters.groups() if c}))
    elif re.search(r"\b0\s+and\s+1\b|binary", lowered):
        alphabet = "01"
    ascii_range = re.search(r"ascii\s+codes?\s+(?:from\s+)?(\d+)\s+(?:to|and|-)\s+(\d+)", lowered)
    if ascii_range:
        alphabet = "".join(chr(c) for c in range(int(ascii_range.group(1)), int(ascii_range.group(2)) + 1))
    length = re.search(r"(?:of|with)\s+(?:length\s+)?([A-Za-z](?:\s*[-+]\s*\d+)?|\d+)\s+(?:letters|characters|digits|symbols)"
                       r"|of\s+length\s+([A-Za-z](?:\s*[-+]\s*\d+)?|\d+)\b", text)
    if length:
        count = _count(length.group(1) or length.group(2), defined)
        if count is not None:
            return TokenType(Kind.WORD, low=count, high=count, alphabet="".join(sorted(set(alphabet))))
    between = re.search(r"length\s+(?:is\s+)?(?:between|from)\s+(\d+)\s+(?:and|to)\s+(\d+)"
                        r"|(?:of\s+)?length\s+at\s+most\s+(\d+)|at\s+most\s+(\d+)\s+(?:letters|characters)", lowered)
    if between:
        low_text = between.group(1) or ("1" if re.search(r"non-?empty", lowered) else None)
        high_text = between.group(2) or between.group(3) or between.group(4)
        return TokenType(Kind.WORD, low=Expr(int(low_text)) if low_text else None, high=Expr(int(high_text)),
                         alphabet="".join(sorted(set(alphabet))))
    low = Expr(1) if re.search(r"non-?empty", lowered) else None
    return TokenType(Kind.WORD, low=low, alphabet="".join(sorted(set(alphabet))))


def statement_format(statement: str) -> InputFormat | None:
    """The format a statement's input section describes, bounded by its constraints; None when
    it names no line it can read (a format block, AtCoder's way, is read by
    :mod:`divergent.formats.format_blocks`)."""
    reading = _descriptions(input_section(statement))
    if not reading.descriptions:
        return None
    defined: set[str] = set()
    top: list[Node] = []
    case_body: list[Node] = []
    test_count: str | None = None
    for description in reading.descriptions:
        into = case_body if description.test_case and test_count is not None else top
        scope = set(defined)
        tokens = _tokens(description.text, scope)
        if not tokens:
            continue
        for token in tokens:
            if token.name and token.count is None:
                defined.add(token.name)
        if not top and len(tokens) == 1 and tokens[0].name and reading.test_cases and _TEST_COUNT.search(description.text):
            test_count = tokens[0].name
        elif not top and len(tokens) == 1 and tokens[0].name == "t" and reading.test_cases:
            test_count = "t"
        line = Line(tuple(tokens))
        if description.repeat is not None:
            count = ANY if description.repeat == "*" else _count(description.repeat, defined)
            into.append(Repeat(count or ANY, (line,)))
        else:
            into.append(line)
    if test_count is not None and case_body:
        top.append(Repeat(Expr(variable=test_count), tuple(case_body)))
    if not top:
        return None
    fmt = InputFormat(tuple(top), origin="statement")
    try:  # names used before they are read make no format
        parse_format(fmt.text())
    except InvalidArgument:
        return None
    return bounded(fmt, constraints(statement))


# -- bounds from constraints ------------------------------------------------------------------


def bounded(fmt: InputFormat, found: dict[str, Bounds]) -> InputFormat:
    """``fmt`` with each named token bounded by the constraints on its name (a bound that names
    a variable is kept when that variable is read before the token), words by their lengths'."""
    words = [token for token in fmt.tokens() if token.type.kind is Kind.WORD and not token.type.choices]
    return InputFormat(_bounded_body(fmt.body, found, set(), len(words) == 1), origin=fmt.origin, notes=fmt.notes)


def _bounded_body(body: tuple[Node, ...], found: dict[str, Bounds], scope: set[str], one_word: bool) -> tuple[Node, ...]:
    nodes: list[Node] = []
    scope = set(scope)
    for node in body:
        if isinstance(node, Repeat):
            nodes.append(Repeat(node.count, _bounded_body(node.body, found, scope, one_word)))
            continue
        tokens = []
        for token in node.tokens:
            tokens.append(Token(_bounded_type(token, found, scope, one_word), name=token.name, count=token.count))
            if token.name and token.count is None:
                scope.add(token.name)
        nodes.append(Line(tuple(tokens)))
    return tuple(nodes)


def _pick(candidates: list[Expr], scope: set[str], name: str | None) -> Expr | None:
    # ``L1 R1 L2 R2`` read as ``L_1 R_1 L_2 R_2``: "L_i < R_i" bounds R1 by L1, R2 by L2
    suffix = name[len(name.rstrip("0123456789")):] if name else ""
    for expr in candidates:
        if expr.variable is None or (expr.variable in scope and expr.variable != name):
            return expr
        if suffix and expr.variable + suffix in scope and expr.variable + suffix != name:
            return Expr(expr.constant, expr.variable + suffix, expr.scale)
    return None


def _bounded_type(token: Token, found: dict[str, Bounds], scope: set[str], one_word: bool) -> TokenType:
    current = token.type
    if current.choices:
        return current
    if current.kind is Kind.WORD:
        bounds = found.get(f"|{token.name}|") if token.name else None
        if bounds is None and one_word:
            bounds = found.get("|*|")
        if bounds is None or current.fixed_length() is not None:
            return current
        low = _pick(bounds.lows, scope, None) or current.low
        high = _pick(bounds.highs, scope, None) or current.high
        return TokenType(Kind.WORD, low=low, high=high, alphabet=current.alphabet)
    bounds = found.get(token.name) if token.name else None
    if bounds is None and token.name and token.name.rstrip("0123456789") != token.name:
        bounds = found.get(token.name.rstrip("0123456789"))  # c1, c2 and "0 <= c_i <= 100"
    if bounds is None:
        return current
    if bounds.choices and all(re.fullmatch(r"-?\d+", c) for c in bounds.choices):
        values = sorted(int(c) for c in bounds.choices)
        if values == list(range(values[0], values[-1] + 1)):
            return TokenType(Kind.INT, low=Expr(values[0]), high=Expr(values[-1]))
        return TokenType(Kind.INT, choices=bounds.choices)
    if bounds.choices:
        return TokenType(Kind.WORD, choices=bounds.choices)
    low = _pick(bounds.lows, scope, token.name)
    high = _pick(bounds.highs, scope, token.name)
    if low is None and high is None:
        return current
    return TokenType(current.kind, low=low if low is not None else current.low,
                     high=high if high is not None else current.high,
                     soft_low=current.soft_low if low is None else False,
                     soft_high=current.soft_high if high is None else False, decimals=current.decimals)
