# Copied verbatim from https://github.com/pypa/packaging at 52e57f20037ff6fc40c72fffbd7905ed81c7d390; see meta.json and ../NOTICE.
from __future__ import annotations
import re
from typing import NewType, Tuple, Union, cast


NormalizedName = NewType("NormalizedName", str)


class InvalidName(ValueError):
    """
    An invalid distribution name; users should refer to the packaging user guide.
    """


_validate_regex = re.compile(r"[A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9]", re.IGNORECASE)


_canonicalize_regex = re.compile(r"[-_.]+")


def canonicalize_name(name: str, *, validate: bool = False) -> NormalizedName:
    if validate and not _validate_regex.fullmatch(name):
        raise InvalidName(f"name is invalid: {name!r}")
    # This is taken from PEP 503.
    value = _canonicalize_regex.sub("-", name).lower()
    return cast("NormalizedName", value)
