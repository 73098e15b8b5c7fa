"""The option group that only Python functions read: which function, preconditions on its inputs,
and how Python values compare (:class:`~divergent.policy.EqualityPolicy`'s rules). Given for
programs of a kind that does not accept the group ``functions``, these flags are an input error
(:mod:`divergent.cli.option_groups`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from divergent.cli.option_groups import OptionGroup
from divergent.errors import InvalidArgument
from divergent.policy import DEFAULT_POLICY

__all__ = ["FunctionGroup", "load_comparison"]

@dataclass(frozen=True)
class FunctionGroup(OptionGroup):
    """What a search over Python functions may be told besides the shared groups."""

    panel = "Python functions"
    name = "functions"

    function: Annotated[str | None, typer.Option(
        "--function", "-f", metavar="NAME", help="The function to compare, for specs that name none.")] = None
    require: Annotated[str | None, typer.Option(
        "--require", metavar="EXPR",
        help="A precondition on inputs, a Python expression over the parameters, e.g. 'n >= 0'.")] = None
    input_regex: Annotated[list[str] | None, typer.Option(
        "--input-regex", metavar="ARG=PATTERN",
        help="Inputs of parameter ARG follow this regular expression (repeatable).")] = None
    exceptions: Annotated[str, typer.Option(
        "--exceptions", metavar="RULE",
        help="When exceptions are equal: type, any, or type-and-message.")] = DEFAULT_POLICY.exceptions.value
    nan_equal: Annotated[bool, typer.Option(
        "--nan-equal/--nan-unequal", help="Whether NaN equals NaN.")] = DEFAULT_POLICY.nan_equal
    unordered: Annotated[bool, typer.Option(
        "--unordered", help="Compare lists and tuples ignoring order.")] = DEFAULT_POLICY.unordered
    compare_mutation: Annotated[bool, typer.Option(
        "--compare-mutation/--ignore-mutation",
        help="Compare the arguments' state after the call.")] = DEFAULT_POLICY.compare_mutation
    compare_stdout: Annotated[bool, typer.Option(
        "--compare-stdout", help="Also compare what the calls print.")] = DEFAULT_POLICY.compare_stdout
    iterable_limit: Annotated[int, typer.Option(
        "--iterable-limit", min=0, metavar="N",
        help="Compare this many items of iterators and generators.")] = DEFAULT_POLICY.iterable_limit
    list_equals_tuple: Annotated[bool, typer.Option(
        "--list-equals-tuple", help="Treat [1, 2] and (1, 2) as equal.")] = DEFAULT_POLICY.list_equals_tuple
    compare: Annotated[str | None, typer.Option(
        "--compare", metavar="FILE.py:FUNCTION",
        help="Your own comparison of return values: file.py:function or module:function.")] = None

    def apply(self, options: Any, flags: Any) -> Any:
        """The function, the preconditions and the value rules on top of the shared comparison."""
        from divergent.policy import ExceptionEquality

        try:
            exception_rule = ExceptionEquality(self.exceptions)
        except ValueError:
            raise InvalidArgument(
                f"--exceptions {self.exceptions!r}: choose from {', '.join(e.value for e in ExceptionEquality)}"
            ) from None
        comparison = options.comparison.with_(
            nan_equal=self.nan_equal, exceptions=exception_rule, unordered=self.unordered,
            compare_mutation=self.compare_mutation, compare_stdout=self.compare_stdout,
            iterable_limit=self.iterable_limit, list_equals_tuple=self.list_equals_tuple,
            compare=load_comparison(self.compare) if self.compare else None,
        )
        return options.with_(function=self.function, require=self.require,
                             input_regexes=tuple(self.input_regex or ()), comparison=comparison)


def load_comparison(spec: str) -> Callable[[Any, Any], bool]:
    """The user's own comparison function (trusted: the user's code, like --require), which gets
    the two return values as rebuilt builtins (or their safe encoding for other types)."""
    import importlib
    import importlib.util

    target, _, name = spec.rpartition(":")
    if not target or not name:
        raise InvalidArgument(f"--compare {spec!r}: expected file.py:function or module:function")
    try:
        if target.endswith(".py"):
            module_spec = importlib.util.spec_from_file_location("divergent_user_compare", target)
            if module_spec is None or module_spec.loader is None:
                raise InvalidArgument(f"--compare {spec!r}: cannot load {target}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except (OSError, ImportError, SyntaxError) as error:
        raise InvalidArgument(f"--compare {spec!r}: {error}") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise InvalidArgument(f"--compare {spec!r}: {target} has no function {name!r}")
    return function
