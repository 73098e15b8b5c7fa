"""The input format of a search over whole programs: given (``--input-format``), or inferred from
what there is: the examples, a problem statement, and how the programs read their input.

* A statement's format that every example fits is taken, its vague parts (a word's alphabet, a
  number nobody bounded) learnt from the examples.
* Else the examples' shape, with names and stated bounds from the statement when the two line up
  token for token.
* Without examples: the statement's format, else the one most programs read (bounded by the
  statement's constraints when there is one).
* Where the programs read a token as a string that the examples show as digits (a row of seats
  ``101``), it is a word.

:func:`infer_format` says what it used in the format's ``notes`` (the report shows them, with the
format in the language of ``--input-format``, so a wrong guess can be corrected by hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from divergent.errors import InvalidArgument
from divergent.formats.examples import format_from_examples, observations, retyped, value_type
from divergent.formats.format_blocks import block_format
from divergent.formats.instances import read
from divergent.formats.layouts import programs_refined
from divergent.formats.model import Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType
from divergent.formats.reading import format_from_programs
from divergent.formats.statement_text import constraints
from divergent.formats.statements import bounded, statement_format
from divergent.formats.syntax import parse_format

__all__ = ["infer_format", "load_format"]


def load_format(path: str | Path) -> InputFormat:
    """The format in a file (``--input-format FILE``); InvalidArgument names the mistake."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidArgument(f"--input-format {path}: cannot read it ({error.strerror or error})") from None
    return parse_format(text, what=f"--input-format {path}")


def infer_format(examples: Sequence[str], *, statement: str | None = None,
                 programs: Sequence[tuple[str, str]] = ()) -> InputFormat | None:
    """The format the examples, the statement (its text or HTML) and the programs ((source,
    language) pairs) say inputs have; None when none of them says anything readable."""
    examples = [text for text in examples if text.strip()]
    from_statement = (block_format(statement) or statement_format(statement)) if statement else None
    from_programs = format_from_programs(programs) if programs else None
    base: InputFormat | None = None
    notes: list[str] = []
    if from_statement is not None and examples:
        trees = [read(from_statement, text) for text in examples]
        if all(tree is not None for tree in trees):
            base = _refined(from_statement, observations([t for t in trees if t is not None]))
            notes.append(f"read from the statement; every one of {len(examples)} example(s) fits it")
    if base is None and examples:
        from_examples = format_from_examples(examples)
        if from_examples is not None:
            base = from_examples
            notes.extend(from_examples.notes)
            if from_statement is not None:
                named = _named_after(from_examples, from_statement)
                if named is not None:
                    base = bounded(named, constraints(statement or ""))
                    notes.append("names and bounds from the statement")
                else:
                    notes.append("the statement's description of the input did not match the examples")
    if base is None and from_statement is not None:
        base = from_statement
        notes.append("read from the statement; no example to check it against")
    if base is None and from_programs is not None:
        base = bounded(from_programs, constraints(statement)) if statement else from_programs
        notes.extend(from_programs.notes)
        if statement:
            notes.append("bounds from the statement's constraints")
    if base is None:
        return None
    if from_programs is not None and base is not from_programs and not any("statement" in n for n in notes):
        refined = programs_refined(base, from_programs, examples)
        if refined is not None:
            base = refined[0]
            notes.append(refined[1])
    if from_programs is not None and base is not from_programs:
        words = _words_from_programs(base, from_programs, examples)
        if words is not None:
            base = words
            notes.append("tokens the programs read as strings are words")
    origin = "+".join(dict.fromkeys(part for part in (
        "statement" if from_statement is not None and any("statement" in n for n in notes) else "",
        "examples" if examples and any("example" in n for n in notes) else "",
        "programs" if from_programs is not None and any("program" in n for n in notes) else "") if part))
    return InputFormat(base.body, origin=origin or base.origin, notes=tuple(notes))


# -- lining formats up token by token -------------------------------------------------------


def _flat(body: tuple[Node, ...]) -> list[tuple[str, Token | None]]:
    out: list[tuple[str, Token | None]] = []
    for node in body:
        if isinstance(node, Repeat):
            out.append(("repeat", None))
            out.extend(_flat(node.body))
            out.append(("end", None))
        else:
            out.append(("line", None))
            out.extend(("list" if token.count is not None else "token", token) for token in node.tokens)
    return out


def _lined_up(a: InputFormat, b: InputFormat) -> list[tuple[Token, Token]] | None:
    """The tokens of two formats of one shape, pair by pair (None: not one shape)."""
    left, right = _flat(a.body), _flat(b.body)
    if [tag for tag, _ in left] != [tag for tag, _ in right]:
        return None
    return [(x, y) for (_, x), (_, y) in zip(left, right, strict=True) if x is not None and y is not None]


def _named_after(fmt: InputFormat, named: InputFormat) -> InputFormat | None:
    """``fmt`` with the names of ``named`` (a format of the same shape), its counts renamed."""
    pairs = _lined_up(fmt, named)
    if pairs is None:
        return None
    renames = {a.name: b.name for a, b in pairs if a.name and b.name and a.count is None}
    by_token = {id(a): b.name for a, b in pairs}
    return InputFormat(_renamed(fmt.body, renames, by_token), origin=fmt.origin, notes=fmt.notes)


def _rename(expr: Expr | None, renames: dict[str, str]) -> Expr | None:
    if expr is None or expr.variable is None or expr.variable not in renames:
        return expr
    return Expr(expr.constant, renames[expr.variable], expr.scale)


def _renamed(body: tuple[Node, ...], renames: dict[str, str], by_token: dict[int, str | None]) -> tuple[Node, ...]:
    nodes: list[Node] = []
    for node in body:
        if isinstance(node, Repeat):
            nodes.append(Repeat(_rename(node.count, renames) or node.count, _renamed(node.body, renames, by_token)))
            continue
        tokens = []
        for token in node.tokens:
            kind = token.type
            renamed_type = TokenType(kind.kind, low=_rename(kind.low, renames), high=_rename(kind.high, renames),
                                     soft_low=kind.soft_low, soft_high=kind.soft_high, alphabet=kind.alphabet,
                                     choices=kind.choices, decimals=kind.decimals)
            tokens.append(Token(renamed_type, name=by_token.get(id(token)) or token.name,
                                count=_rename(token.count, renames)))
        nodes.append(Line(tuple(tokens)))
    return tuple(nodes)


# -- what the examples add to a stated format ----------------------------------------------------


def _refined(fmt: InputFormat, seen: dict[str, list[str]]) -> InputFormat:
    return retyped(fmt, seen, lambda token, values: _merged(token.type, values))


def _merged(stated: TokenType, values: list[str]) -> TokenType:
    """A stated type, its gaps filled from the values the examples show (a bound nobody stated
    becomes a soft one; a word's alphabet covers the characters seen)."""
    if not values or stated.choices:
        return stated
    seen = value_type(values)
    if stated.kind is Kind.INT and seen.kind is not Kind.INT:
        return seen  # the statement was misread: the examples hold something else here
    if stated.kind is Kind.WORD:
        chars = set("".join(values))
        alphabet = stated.alphabet
        if not alphabet or not chars <= set(alphabet):
            alphabet = "".join(sorted(set(alphabet) | set(seen.alphabet) | chars))
        low, high = stated.low, stated.high
        soft_low, soft_high = stated.soft_low, stated.soft_high
        if low is None:
            low, soft_low = seen.low, True
        if high is None:
            high, soft_high = seen.high, True
        return TokenType(Kind.WORD, low=low, high=high, soft_low=soft_low, soft_high=soft_high, alphabet=alphabet)
    if stated.low is None or stated.high is None:
        low, high = stated.low, stated.high
        soft_low, soft_high = stated.soft_low, stated.soft_high
        if low is None and seen.low is not None:
            low, soft_low = seen.low, True
        if high is None and seen.high is not None:
            high, soft_high = seen.high, True
        return TokenType(stated.kind, low=low, high=high, soft_low=soft_low, soft_high=soft_high,
                         decimals=stated.decimals if stated.decimals is not None else seen.decimals)
    return stated


def _words_from_programs(fmt: InputFormat, from_programs: InputFormat, examples: Sequence[str]) -> InputFormat | None:
    """``fmt`` with the tokens the programs read as strings made words, when the two line up and
    the format thought them numbers (from the digits the examples show)."""
    pairs = _lined_up(fmt, from_programs)
    if pairs is None:
        return None
    changed = {id(a) for a, b in pairs if a.type.kind is Kind.INT and b.type.kind is Kind.WORD and a.count is None
               and not a.name}
    if not changed:
        return None
    trees = [tree for text in examples if (tree := read(fmt, text)) is not None]

    def word_type(token: Token, values: list[str]) -> TokenType:
        if id(token) not in changed:
            return token.type
        lengths = [len(v) for v in values] or [1]
        alphabet = "01" if values and all(set(v) <= {"0", "1"} for v in values) else "0123456789"
        same = len(set(lengths)) == 1
        return TokenType(Kind.WORD, low=Expr(min(lengths)), high=Expr(max(lengths)), soft_low=not same,
                         soft_high=not same, alphabet=alphabet)

    return retyped(fmt, observations(trees), word_type)
