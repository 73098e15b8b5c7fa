"""What the programs' reads settle where the examples cannot: the count of a list, and the layout
of repeated items.

Examples leave two things open. A count that is an expression: ``n`` then three integers fits
``n+1`` and ``2n-1`` alike when the only example has n = 2. And the layout of n items when every
example has n = 1: one item on a line is a list of n on one line as much as n lines of one item.
A program that reads ``for (i = 0; i < 2*n-1; i++) cin >> a[i]``, or one ``input()`` per item in
``for _ in range(n)``, says which: its format (:mod:`divergent.formats.reading`) replaces the
examples' guess wherever every example still fits the programs' version, line by line.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from divergent.formats.instances import Misfit, generate, named_values
from divergent.formats.model import Expr, InputFormat, Line, Node, Repeat, Token
from divergent.formats.text_structure import render

__all__ = ["explanations", "judged_explanation", "programs_refined"]


def _renamed(expr: Expr, names: dict[str, str]) -> Expr | None:
    if expr.variable is None or expr.is_any:
        return expr
    if expr.variable not in names:
        return None
    return Expr(expr.constant, names[expr.variable], expr.scale)


def _scalars(node: Node) -> list[Token] | None:
    if isinstance(node, Line) and all(token.count is None for token in node.tokens):
        return list(node.tokens)
    return None


def _refine(base: tuple[Node, ...], read: tuple[Node, ...], names: dict[str, str],
            changes: list[str]) -> tuple[Node, ...] | None:
    """``base`` with the programs' counts and layouts where the two line up (None: they do not)."""
    if len(base) != len(read):
        return None
    out: list[Node] = []
    for ours, theirs in zip(base, read, strict=True):
        mine, others = _scalars(ours), _scalars(theirs)
        if mine is not None and others is not None:
            if len(mine) != len(others):
                return None
            names.update({b.name: a.name for a, b in zip(mine, others, strict=True) if a.name and b.name})
            out.append(ours)
            continue
        # a list on one line: the programs may read it with another count, or one item a line
        if isinstance(ours, Line) and len(ours.tokens) == 1 and ours.tokens[0].count is not None:
            token = ours.tokens[0]
            if isinstance(theirs, Line) and len(theirs.tokens) == 1 and theirs.tokens[0].count is not None:
                count = _renamed(theirs.tokens[0].count, names)
                if count is not None and not count.is_any and count != token.count:
                    out.append(Line((Token(token.type, name=token.name, count=count),)))
                    changes.append(f"the count {count} of a list")
                    continue
            if (isinstance(theirs, Repeat) and len(theirs.body) == 1 and isinstance(theirs.body[0], Line)
                    and len(theirs.body[0].tokens) == 1 and theirs.body[0].tokens[0].count is None):
                count = _renamed(theirs.count, names)
                if count is not None and not count.is_any:
                    out.append(Repeat(count, (Line((Token(token.type, name=token.name),)),)))
                    changes.append(f"{count} lines of one item each")
                    continue
        if isinstance(ours, Repeat) and isinstance(theirs, Repeat):
            inner = _refine(ours.body, theirs.body, names, changes)
            if inner is None:
                return None
            out.append(Repeat(ours.count, inner))
            continue
        out.append(ours)
    return tuple(out)


def programs_refined(base: InputFormat, from_programs: InputFormat, examples: Sequence[str]) -> tuple[InputFormat, str] | None:
    """``base`` (from the examples) with the counts and layouts the programs read, when the two
    line up and every example fits the result line by line; with a note. None: nothing to change."""
    changes: list[str] = []
    body = _refine(base.body, from_programs.body, {}, changes)
    if body is None or not changes:
        return None
    refined = InputFormat(body, origin=base.origin, notes=base.notes)
    if any(isinstance(named_values(refined, text, strict=False), str) for text in examples):
        return None
    return refined, "from the programs' reads: " + ", ".join(changes)


# -- other explanations of the examples, judged by the validator ---------------------------------

#: inputs drawn from each explanation of the format for the validator to judge
_DRAWS = 12


def _count_variants(token: Token, examples_fit: list[tuple[int, int]]) -> list[Expr]:
    """Other expressions ``a*v + b`` of the same variable that the (value, length) pairs fit."""
    count = token.count
    if count is None or count.variable is None or count.is_any:
        return []
    return [Expr(b, count.variable, a) for a in (1, 2, 3, 4) for b in range(-3, 4)
            if Expr(b, count.variable, a) != count and examples_fit
            and all(length == a * value + b for value, length in examples_fit)]


def explanations(fmt: InputFormat, examples: Sequence[str]) -> list[tuple[InputFormat, str]]:
    """``fmt`` and the other formats every example fits as well: a list on one line as one item a
    line and back, a list's count as another expression of the same number. Each with what changed."""
    found: list[tuple[InputFormat, str]] = [(fmt, "as inferred")]
    for index, node in enumerate(fmt.body):
        variants: list[tuple[Node, str]] = []
        if isinstance(node, Line) and len(node.tokens) == 1 and node.tokens[0].count is not None:
            token = node.tokens[0]
            if not token.count.is_any:  # type: ignore[union-attr]
                variants.append((Repeat(token.count, (Line((Token(token.type, name=token.name),)),)),  # type: ignore[arg-type]
                                 f"{token.count} lines of one item"))
            pairs = _value_length_pairs(fmt, index, examples)
            variants.extend((Line((Token(token.type, name=token.name, count=expr),)), f"a list of {expr}")
                            for expr in _count_variants(token, pairs))
        elif (isinstance(node, Repeat) and len(node.body) == 1 and isinstance(node.body[0], Line)
              and len(node.body[0].tokens) == 1 and node.body[0].tokens[0].count is None and not node.count.is_any):
            token = node.body[0].tokens[0]
            variants.append((Line((Token(token.type, name=token.name, count=node.count),)), f"{node.count} items on one line"))
        for replacement, what in variants:
            body = (*fmt.body[:index], replacement, *fmt.body[index + 1:])
            candidate = InputFormat(body, origin=fmt.origin, notes=fmt.notes)
            if all(not isinstance(named_values(candidate, text, strict=False), str) for text in examples):
                found.append((candidate, what))
    return found


def _value_length_pairs(fmt: InputFormat, index: int, examples: Sequence[str]) -> list[tuple[int, int]]:
    """(the count's value, the list's length) in each example, for the list on line ``index``."""
    node = fmt.body[index]
    assert isinstance(node, Line)
    count = node.tokens[0].count
    pairs = []
    for text in examples:
        found = named_values(fmt, text, strict=False)
        lines = text.strip("\n").split("\n")
        if isinstance(found, str) or count is None or count.variable is None or index >= len(lines):
            continue
        values = found[1].get(count.variable)
        if values and values[0] and values[0][0].lstrip("-").isdigit():
            pairs.append((int(values[0][0]), len(lines[index].split())))
    return pairs


def judged_explanation(fmt: InputFormat, examples: Sequence[str], judge: Callable[[list[str]], list[bool]],
                       seed: int = 0) -> tuple[InputFormat, str] | None:
    """Among ``fmt`` and its other explanations (:func:`explanations`), the one whose drawn inputs
    the validator (``judge``) accepts most, when it is not ``fmt``; with a note. A count or a layout
    the examples leave open is settled by what the validator takes, before any lesson narrows it."""
    candidates = explanations(fmt, examples)
    if len(candidates) < 2:
        return None
    rng = random.Random(seed)
    scores = []
    for candidate, _ in candidates:
        texts = []
        counts = candidate.count_variables()
        opened = InputFormat(_opened(candidate.body, counts), origin=candidate.origin)
        for _ in range(_DRAWS):
            try:
                texts.append(render(generate(opened, rng, cap=8)))
            except Misfit:
                continue
        accepted = sum(judge(texts)) if texts else 0
        scores.append(accepted / max(1, len(texts)))
    best = max(range(len(candidates)), key=lambda i: (scores[i], i == 0))
    if best == 0 or scores[best] <= scores[0]:
        return None
    shown = ", ".join(f"{what}: {score:.0%}" for (_, what), score in zip(candidates, scores, strict=True))
    return candidates[best][0], f"the validator took the inputs of {candidates[best][1]} ({shown} of drawn inputs valid)"


def _opened(body: tuple[Node, ...], counts: set[str]) -> tuple[Node, ...]:
    """``body`` with the soft upper bounds of its counts taken away: every example may have n = 1,
    and only other values of n tell one explanation from another."""
    out: list[Node] = []
    for node in body:
        if isinstance(node, Repeat):
            out.append(Repeat(node.count, _opened(node.body, counts)))
            continue
        tokens = []
        for token in node.tokens:
            kind = token.type
            if token.name in counts and kind.soft_high:
                kind = replace(kind, high=None, soft_high=False)
            tokens.append(Token(kind, name=token.name, count=token.count))
        out.append(Line(tuple(tokens)))
    return tuple(out)
