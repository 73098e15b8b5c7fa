"""Implementation specs: what a command-line spec names, worked out before anything is read.

Specs understood by :func:`parse_target`::

    path.py                 a file (its only function, or --function NAME)
    path.py:function        a function in a file
    module.sub:function     a module importable from the current directory or sys.path
    REV:path.py:function    a file at a git revision, e.g. HEAD~1:pkg/util.py:slugify
    REV:path.py             idem, with --function NAME or a single function
"""

from __future__ import annotations

import keyword
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from divergent.errors import InvalidArgument, LoadError

__all__ = ["Target", "TargetKind", "parse_target"]


TargetKind = Literal["path", "module", "git"]


@dataclass(frozen=True)
class Target:
    """What a spec names, before anything is read."""

    #: the spec as the user wrote it
    spec: str
    kind: TargetKind
    #: "path": the file as written (relative to cwd); "git": the path inside the revision
    path: str | None = None
    #: "module": the dotted module name
    module: str | None = None
    #: "git": the revision, e.g. ``HEAD~1``
    revision: str | None = None
    #: the function named by the spec or by ``--function``; None means "the only one"
    function: str | None = None


def _looks_like_path(text: str) -> bool:
    return text.endswith(".py") or "/" in text or os.sep in text


def _is_dotted_identifier(text: str) -> bool:
    return bool(text) and all(part.isidentifier() for part in text.split("."))


def _checked_function_name(name: str, spec: str) -> str:
    if "." in name and _is_dotted_identifier(name):
        raise LoadError(
            f"{spec}: {name!r} is a method or nested name; divergent compares top-level functions"
        )
    if not name.isidentifier() or keyword.iskeyword(name):
        raise LoadError(f"{spec}: {name!r} is not a function name")
    return name


def parse_target(spec: str, *, function: str | None = None, cwd: Path | None = None) -> Target:
    """Work out what ``spec`` names: a file, a module, or a file at a git revision.

    A path that exists on disk always wins (so odd file names still load); then the number of
    colons and the shape of each part decide. ``function`` (``--function``) applies when the spec
    names none; naming two different functions is an error.
    """
    text = spec.strip()
    if not text:
        raise InvalidArgument(
            "empty implementation spec: expected path.py[:function], module:function or REV:path.py[:function]"
        )
    base = Path(cwd) if cwd is not None else Path.cwd()

    def is_file(candidate: str) -> bool:
        return (base / candidate).is_file()

    def finish(target: Target) -> Target:
        named = target.function
        if named is not None and function is not None and named != function:
            raise InvalidArgument(
                f"{spec} names function {named!r} but --function {function!r} was also given"
            )
        chosen = named if named is not None else function
        if chosen is not None:
            chosen = _checked_function_name(chosen, spec)
        return replace(target, function=chosen)

    if is_file(text):
        return finish(Target(spec, "path", path=text))
    parts = text.split(":")
    if len(parts) == 1:
        if _looks_like_path(text) or not _is_dotted_identifier(text):
            return finish(Target(spec, "path", path=text))
        return finish(Target(spec, "module", module=text))
    if len(parts) == 2:
        head, tail = parts
        if is_file(head) or (head.endswith(".py") and not _looks_like_path(tail)):
            return finish(Target(spec, "path", path=head, function=tail or None))
        if _looks_like_path(tail):
            return finish(Target(spec, "git", revision=head, path=tail))
        if _looks_like_path(head):
            return finish(Target(spec, "path", path=head, function=tail or None))
        if _is_dotted_identifier(head):
            return finish(Target(spec, "module", module=head, function=tail or None))
        raise LoadError(
            f"cannot understand {spec!r}: expected path.py[:function], module:function or REV:path.py[:function]"
        )
    # two or more colons: a path containing a colon that exists, else REV:path:function
    # (rsplit keeps revisions that contain a colon themselves, such as ':/fix typo')
    head, name = text.rsplit(":", 1)
    if is_file(head):
        return finish(Target(spec, "path", path=head, function=name or None))
    revision, path, name = text.rsplit(":", 2)
    if not revision or not path:
        raise LoadError(f"cannot understand {spec!r}: expected REV:path.py:function")
    return finish(Target(spec, "git", revision=revision, path=path, function=name or None))
