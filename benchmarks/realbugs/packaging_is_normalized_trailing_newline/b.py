# Copied verbatim from https://github.com/pypa/packaging at 8a805e3baac2d71958ec0d0beffbe4d51fd5795f; see meta.json and ../NOTICE.
from __future__ import annotations
import re


_normalized_regex = re.compile(r"[a-z0-9]|[a-z0-9]([a-z0-9-](?!--))*[a-z0-9]")


def is_normalized_name(name: str) -> bool:
    return _normalized_regex.fullmatch(name) is not None
