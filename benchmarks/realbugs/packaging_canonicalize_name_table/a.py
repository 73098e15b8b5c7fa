# Copied verbatim from https://github.com/pypa/packaging at f34845a1076f51f5123b99d4f5ea8e814bb65119; see meta.json and ../NOTICE.
from __future__ import annotations
import re
from typing import NewType, Tuple, Union, cast


NormalizedName = NewType("NormalizedName", str)


class InvalidName(ValueError):
    """
    An invalid distribution name; users should refer to the packaging user guide.
    """


_validate_regex = re.compile(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", re.IGNORECASE)


_letters_translate = {c: c.lower() for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


_canonicalize_table = str.maketrans({"_": "-", ".": "-", **_letters_translate})


def canonicalize_name(name: str, *, validate: bool = False) -> NormalizedName:
    if validate and not _validate_regex.fullmatch(name):
        raise InvalidName(f"name is invalid: {name!r}")
    # Ensure all ``.`` and ``_`` are ``-``
    # Emulates ``re.sub(r"[-_.]+", "-", name).lower()`` from PEP 503
    # About 2x faster, safe since packages only support alphanumeric characters
    value = name.translate(_canonicalize_table)
    # Condense repeats (faster than regex)
    while "--" in value:
        value = value.replace("--", "-")
    return cast("NormalizedName", value)
