"""Option groups: a command's flags in units that each declare their own flags and build their own
record.

The shape is pytest's plugins, each of which adds its own group of options and reads them back. A
group here is a frozen dataclass whose fields are its flags (typer options, shown in ``--help``
under the group's panel) and whose :meth:`OptionGroup.apply` puts what they say into the record the
Python API takes (:class:`~divergent.kinds.options.SearchOptions`). A group of its own name
(:attr:`OptionGroup.name`) is read only for the kinds of program that accept it (each kind declares
the groups it reads: ``ProgramKind.option_groups``; this module never lists kinds): its flags given
for programs of another kind are an input error naming the kinds that read them
(:meth:`OptionGroup.refuse_for`). After every group is applied, each may hand the kind what it
alone cannot measure (:meth:`OptionGroup.finish`: ``--memory`` the way the kind's runs take it).

A command takes groups as parameters typed with the group, or with a bundle of groups (a dataclass
whose fields are groups); :func:`with_option_groups` spreads their fields into the command's options
and hands the command the groups, built::

    @app.command()
    @with_option_groups
    def check(implementations: ..., flags: SearchFlags, shrink: ... = True) -> None:
        ...

An older spelling of a flag stays a hidden field of the group that reads it; the group folds it in
and :func:`older_spelling` says once, on a terminal, what the flag is called now.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import sys
import typing
from collections.abc import Callable
from typing import Any, ClassVar

from typer.models import OptionInfo

from divergent.cli.application import fail, option_names, stderr_is_terminal
from divergent.errors import DivergentError, InvalidArgument

__all__ = ["OptionGroup", "apply_groups", "older_spelling", "with_option_groups"]


class OptionGroup:
    """A group of flags (subclass as a frozen dataclass whose fields are the flags)."""

    #: the title of the group's section in ``--help``
    panel: ClassVar[str] = "Options"
    #: the name kinds accept the group by (``ProgramKind.option_groups``); empty: every kind reads it
    name: ClassVar[str] = ""
    #: what to do when the flags were given for another kind (said after the error)
    hint: ClassVar[str] = ""

    def apply(self, options: Any, flags: Any) -> Any:
        """``options`` (a :class:`~divergent.kinds.options.SearchOptions`) with what this group's flags
        say; ``flags`` holds the command's other groups (a group may read a shared flag such as
        ``--memory`` the way its kinds mean it)."""
        return options

    def choosing(self, options: Any) -> Any:
        """``options`` with what this group's flags say about the kind of the programs, before the
        kind is chosen (``ProgramKind.asked``); nothing by default."""
        return options

    def finish(self, options: Any, kind: Any) -> Any:
        """``options`` once every group was applied, with what the kind must take from this group
        its own way (``kind``: a :class:`~divergent.kinds.base.ProgramKind`)."""
        return options

    def read_by(self, kind: Any) -> bool:
        """Whether programs of ``kind`` read this group."""
        return not self.name or self.name in kind.option_groups

    def given(self) -> list[str]:
        """The flags of this group that were given on the command line (their value is not the
        default; a project's default from pyproject.toml is not given: it may hold settings of
        every kind)."""
        from divergent.cli.config import is_config_file, parameter_origin

        found = []
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            if getattr(self, field.name) != field.default and not is_config_file(parameter_origin(field.name)):
                found.append(flag_name(type(self), field.name))
        return found

    def refuse_for(self, kind: Any) -> None:
        """An input error when this group's flags were given for programs of a kind that does not
        read them (``kind``: a :class:`~divergent.kinds.base.ProgramKind`)."""
        if self.read_by(kind):
            return
        given = self.given()
        if given:
            from divergent.kinds.registry import all_kinds, nouns

            verb = "is" if len(given) == 1 else "are"
            hint = f" ({self.hint})" if self.hint else ""
            readers = nouns([other for other in all_kinds() if self.read_by(other)]) or "no kind of program"
            raise InvalidArgument(f"{', '.join(given)} {verb} for {readers}; these are {kind.noun}s{hint}")


def apply_groups(groups: Any, kind: Any, flags: Any, options: Any) -> Any:
    """``options`` with every group of ``groups`` that ``kind`` reads applied in order (a group it
    does not read, given, is an input error), then each group's :meth:`OptionGroup.finish`."""
    for group in groups:
        group.refuse_for(kind)
        if group.read_by(kind):
            options = group.apply(options, flags)
    for group in groups:
        if group.read_by(kind):
            options = group.finish(options, kind)
    return options


def older_spelling(old: str, now: str) -> None:
    """Say (one line on stderr, only on a terminal: a script's stderr is left alone) that ``old``
    is an older spelling of ``now``; it keeps working."""
    if stderr_is_terminal():
        print(f"divergent: warning: {old} is deprecated: use {now}", file=sys.stderr)


def flag_name(group: type, field: str) -> str:
    """The first long spelling of a group's field on the command line (``--rel-tol``)."""
    info = _option_info(group, field)
    names = [name for name in option_names(info) if name.startswith("--")] if info is not None else []
    return names[0] if names else "--" + field.replace("_", "-")


def with_option_groups(command: Callable[..., None]) -> Callable[..., None]:
    """Give ``command`` the flags of the groups its parameters are typed with; it receives each
    group (or bundle of groups) built, under the parameter's name."""
    signature = inspect.signature(command, eval_str=True)
    own: list[inspect.Parameter] = []
    takes: dict[str, type] = {}
    for name, parameter in signature.parameters.items():
        if _groups_of(parameter.annotation):
            takes[name] = parameter.annotation
        else:
            own.append(parameter)
    flags: list[inspect.Parameter] = []
    names = {parameter.name for parameter in own}
    for holder in takes.values():
        for group in _groups_of(holder):
            for parameter in _parameters(group):
                if parameter.name in names:
                    raise TypeError(f"{command.__name__}: two options named {parameter.name!r}")
                names.add(parameter.name)
                flags.append(parameter)

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        as_json = bool(kwargs.get("as_json"))
        try:
            built = {name: _build(holder, kwargs) for name, holder in takes.items()}
        except DivergentError as error:
            raise fail(str(error), as_json=as_json) from None
        command(**kwargs, **built)

    # the command's arguments, the groups' options, then its own options (``--help`` shows the
    # groups' panels in that order, the command's own options first)
    arguments = [p for p in own if not _is_option(p)]
    options = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own if _is_option(p)]
    parameters = [*arguments, *flags, *options]
    wrapper.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    del wrapper.__wrapped__  # typer must see the merged signature, not the original
    return wrapper


def _groups_of(annotation: object) -> tuple[type, ...]:
    """The groups a parameter's type stands for: the group itself, or a bundle's groups."""
    if not isinstance(annotation, type):
        return ()
    if issubclass(annotation, OptionGroup):
        return (annotation,)
    if dataclasses.is_dataclass(annotation):
        hints = typing.get_type_hints(annotation)
        members = tuple(hints[field.name] for field in dataclasses.fields(annotation))
        if members and all(isinstance(m, type) and issubclass(m, OptionGroup) for m in members):
            return members
    return ()


def _build(holder: type, values: dict[str, Any]) -> Any:
    """The group (or bundle) from the flags' values (taken out of ``values``)."""
    if issubclass(holder, OptionGroup):
        return holder(**{field.name: values.pop(field.name) for field in dataclasses.fields(holder)})
    hints = typing.get_type_hints(holder)
    return holder(**{field.name: _build(hints[field.name], values) for field in dataclasses.fields(holder)})


def _is_option(parameter: inspect.Parameter) -> bool:
    return any(isinstance(extra, OptionInfo) for extra in getattr(parameter.annotation, "__metadata__", ()))


@functools.cache
def _hints(group: type) -> dict[str, Any]:
    return typing.get_type_hints(group, include_extras=True)


def _option_info(group: type, field: str) -> OptionInfo | None:
    for extra in getattr(_hints(group)[field], "__metadata__", ()):
        if isinstance(extra, OptionInfo):
            return extra
    return None


@functools.cache
def _parameters(group: type) -> tuple[inspect.Parameter, ...]:
    """The group's fields as a command's keyword parameters, each shown under the group's panel."""
    parameters = []
    for field in dataclasses.fields(group):
        info = _option_info(group, field.name)
        if info is not None and info.rich_help_panel is None:
            info.rich_help_panel = group.panel
        # (a field without a default is a required option)
        default = inspect.Parameter.empty if field.default is dataclasses.MISSING else field.default
        parameters.append(inspect.Parameter(field.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                            annotation=_hints(group)[field.name]))
    return tuple(parameters)
