"""What judges the inputs of programs reading a text, when a difference may be claimed on them:
a given input format (a precondition), the statement's format and constraints (a precondition when
there is no validator), the examples' shape (a difference outside it is reported apart), and the
small spaces listed whole for the exhaustive verdict (``divergent.formats.claims``,
``divergent.formats.spaces``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from divergent.records import TextInput

if TYPE_CHECKING:
    from divergent.formats.claims import ExampleShape
    from divergent.formats.model import InputFormat

__all__ = ["FormatCheck", "claim_checks", "claim_notes", "listed_space", "permutation_keys", "statement_format_check"]

#: rejection reasons remembered (by input)
_REASONS = 10_000


class FormatCheck:
    """A given input format (or the statement's, with its rules on lists: ``problem``) as a
    precondition: an input it does not describe is never run."""

    def __init__(self, fmt: InputFormat, problem: Callable[[str], str | None] | None = None,
                 permutations: Sequence[str] = ()) -> None:
        self.format = fmt
        self._problem = problem
        #: the lists the statement calls permutations of 1..n (listing a small space lists only those)
        self.permutations = tuple(permutations)
        #: whether it judges inputs (a precondition), or only lists a space for a validator to judge
        self.judges = True
        self.rejected = 0
        self.first_rejection: tuple[str, str] | None = None
        self._reasons: dict[str, str] = {}

    def verdicts(self, items: Sequence[TextInput]) -> list[bool]:

        verdicts = []
        for item in items:
            problem = self.problem(item.text)
            if problem is not None:
                self.rejected += 1
                if len(self._reasons) >= _REASONS:
                    self._reasons.clear()
                self._reasons[item.key] = problem
                if self.first_rejection is None:
                    self.first_rejection = (item.text, problem)
            verdicts.append(problem is None)
        return verdicts

    def reason(self, item: TextInput) -> str:
        return self._reasons.get(item.key, "")

    def problem(self, text: str) -> str | None:
        """What in ``text`` breaks the format (and the statement's rules), or None."""
        from divergent.formats.instances import violation

        return self._problem(text) if self._problem is not None else violation(self.format, text)


def claim_checks(fmt: InputFormat | None, seeds: Sequence[TextInput], validated: bool,
                 statement: str | None) -> tuple[FormatCheck | None, ExampleShape | None]:
    """What judges the inputs a difference may be claimed on: a given format (a precondition,
    with or without a validator); without a validator, the statement's format and constraints when
    the format was read from it (a precondition too), else the examples' shape (formats/claims.py)."""
    from divergent.formats.claims import ExampleShape

    if fmt is not None and fmt.stated:
        return FormatCheck(fmt), None
    if validated:
        return None, None
    statement_check = statement_format_check(fmt, statement)
    if statement_check is not None:
        return statement_check, None
    return None, ExampleShape.learn(fmt, [seed.text for seed in seeds])


def statement_format_check(fmt: InputFormat | None, statement: str | None) -> FormatCheck | None:
    """The statement's format and rules as a check, when the format was read from the statement."""
    from divergent.formats.claims import StatementCheck, statement_rules

    if fmt is None or not statement or not any(note.startswith("read from the statement") for note in fmt.notes):
        return None
    check = StatementCheck(fmt, statement_rules(statement, fmt))
    permutations = [rule.names[0] for rule in check.rules if rule.kind == "permutation"]
    return FormatCheck(fmt, problem=check.problem, permutations=permutations)


def listed_space(check: FormatCheck | None, shape: ExampleShape | None,
                 seeds: Sequence[TextInput]) -> tuple[str, list[TextInput], str] | None:
    """Every input of a small space whose edges are known for sure, for the exhaustive verdict:
    what a given format or the statement's allows (formats/spaces.py), or, within the examples'
    shape, every layout of their 0/1 cells with as many ones; with what judges them valid."""
    from divergent.formats.spaces import hot_cells, listed

    if check is not None:
        texts = listed(check.format, permutations=check.permutations)
        if texts is None:
            return None
        valid = [text for text in texts if check.problem(text) is None]
        judge = "the input format" if check.format.stated else "the statement's format and constraints"
        if not check.judges:  # the statement's format, with a validator judging: the candidates it lists
            judge = "the statement's format and the validator"
        what = f"all {len(valid):,} inputs {judge} allow(s) ({' | '.join(check.format.text().strip().splitlines())})"
    elif shape is not None and shape.ones is not None:
        hot = hot_cells([seed.text for seed in seeds])
        if hot is None:
            return None
        what, texts = hot
        valid = [text for text in texts if shape.problem(text) is None]
        judge = "the examples' shape"
    else:
        return None
    if not valid:
        return None
    return what, [TextInput(text, how_generated="seeds") for text in valid], judge


def permutation_keys(fmt: InputFormat | None, check: FormatCheck | None, shape: ExampleShape | None) -> set[str]:
    """The slot keys of the lists that must be permutations of 1..n: the statement's, else those
    every example shows as one (the engines keep them so)."""
    from divergent.formats.instances import slot_names

    if check is not None and check.permutations and fmt is not None:
        return {key for key, token in slot_names(fmt.body).items() if token.name in check.permutations}
    if shape is not None:
        return {key for key, slot in shape.slots.items() if slot.permutation and slot.long_list}
    return set()


def claim_notes(check: FormatCheck | None, shape: ExampleShape | None) -> list[str]:
    """What the report says of the inputs a difference may be claimed on, when no validator says."""
    if check is not None and not check.format.stated:
        return ["no validator: the statement's format and constraints judged every input (one they reject is "
                "never run nor claimed)"]
    if shape is not None:
        return ["no validator nor statement format: a difference is claimed only on an input within what every "
                f"example shows ({shape.describe()}); one outside it is reported apart, never claimed"]
    return []
