# Copied verbatim from https://github.com/pypa/packaging at c39b6da9ab11f649f5497a11628f9dfc98380bb2; see meta.json and ../NOTICE.
from __future__ import annotations
import re
from typing import NewType, Tuple, Union, cast


NormalizedName = NewType("NormalizedName", str)


class InvalidName(ValueError):
    """
    An invalid distribution name; users should refer to the packaging user guide.
    """


_validate_regex = re.compile(
    r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])\Z", re.IGNORECASE
)


_canonicalize_regex = re.compile(r"[-_.]+")


def canonicalize_name(name: str, *, validate: bool = False) -> NormalizedName:
    if validate and not _validate_regex.match(name):
        raise InvalidName(f"name is invalid: {name!r}")
    # This is taken from PEP 503.
    value = _canonicalize_regex.sub("-", name).lower()
    return cast("NormalizedName", value)
