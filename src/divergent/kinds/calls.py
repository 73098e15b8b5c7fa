"""What the kinds whose input is a call share (Python functions, or programs of any kind that take a
call's arguments): the calls' presentation in reports, call shrinking, and :class:`CallSubjects`,
whose signature, precondition and shaped values are what the engines of calls see
(:class:`divergent.engines.base.CallContext`).

A kind of calls subclasses :class:`CallKind` (and, for its runs, :class:`CallSubjects`) and says how
its specs load, which engines make its inputs and how a runner of its programs starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from divergent.comparison import Comparison
from divergent.engines.base import CallContext
from divergent.errors import InvalidArgument
from divergent.kinds.base import ProgramKind, Subjects
from divergent.kinds.call_shrink import shrink as shrink_call
from divergent.kinds.options import SearchOptions
from divergent.preconditions import conforms, make_requirement
from divergent.programs import Program, Signature
from divergent.records import AnyInput, Input
from divergent.report.calls import CALLS
from divergent.structure.inputs import ShapedInputs


class CallKind(ProgramKind):
    """A kind whose input is a call (arguments) and whose outcome is what the call returned or
    raised. Subclasses load their specs, set up their subjects and start their runner."""

    presentation = CALLS

    def input_of(self, item: object) -> AnyInput:
        if isinstance(item, Input):
            return item
        if isinstance(item, tuple | list):
            return Input(args=tuple(item))
        raise InvalidArgument(f"input {item!r}: a call's input is an Input or a tuple of arguments")

    def shrink(
        self, item: AnyInput, *, still_divergent: Callable[[Sequence[AnyInput]], list[bool]],
        acceptable: Callable[[AnyInput], bool], seconds: float, on_step: Callable[[AnyInput], None],
    ) -> AnyInput:
        assert isinstance(item, Input)
        return shrink_call(item, still_divergent=still_divergent, acceptable=acceptable, seconds=seconds,
                           on_step=on_step)


class CallSubjects(Subjects):
    """Programs called with arguments: the parameters they share (the engines of calls build values
    for them), the user's precondition, and the values shaped like the code expects."""

    def __init__(self, kind: ProgramKind, programs: Sequence[Program], options: SearchOptions, *,
                 comparison: Comparison, signature: Signature,
                 requirement: Callable[[Input], bool] | None = None, notes: Sequence[str] = ()) -> None:
        super().__init__(kind, programs, options, comparison=comparison, notes=notes)
        #: the parameters every program takes (what the engines of calls build values for)
        self.signature = signature
        #: the user's precondition on inputs (the engines of calls respect it)
        self.requirement = requirement
        #: values shaped like the code expects, per parameter (a kind that mines its programs'
        #: structure sets them: :mod:`divergent.structure`); None otherwise
        self.shaped: ShapedInputs | None = None

    def acceptable(self, item: AnyInput) -> bool:
        """The annotations (typeguard) and the user's requirement."""
        assert isinstance(item, Input)
        return conforms(item, self.signature) and (self.requirement is None or self.requirement(item))

    def engine_context(self, **shared: Any) -> CallContext:
        return CallContext(**shared, signature=self.signature, require=self.requirement, shaped=self.shaped)

    def inferred_inputs(self) -> Mapping[str, Any] | None:
        return self.shaped.summary() if self.shaped is not None else None


def requirement_predicate(
    require: str | Callable[..., bool] | None, signature: Signature
) -> Callable[[Input], bool] | None:
    """The user's precondition as a predicate on inputs: an expression over the parameters, or a
    function called with the arguments (one that raises rejects the input)."""
    if require is None:
        return None
    if isinstance(require, str):
        return make_requirement(require, signature)

    def predicate(item: Input) -> bool:
        try:
            return bool(require(*item.args, **item.kwargs))
        except Exception:  # noqa: BLE001 - a predicate that raises rejects the input
            return False

    return predicate
