# Copied verbatim from https://github.com/pypa/packaging at c39b6da9ab11f649f5497a11628f9dfc98380bb2; see meta.json and ../NOTICE.
from __future__ import annotations
import re


_normalized_regex = re.compile(r"^([a-z0-9]|[a-z0-9]([a-z0-9-](?!--))*[a-z0-9])$")


def is_normalized_name(name: str) -> bool:
    return _normalized_regex.match(name) is not None
