# Copied verbatim from https://github.com/Python-Markdown/markdown at 9edba85fc14f034b7109534220702bf60178ff15; see meta.json and ../NOTICE.
from __future__ import annotations
import re


def _handle_double_quote(s, t):
    k, v = t.split('=', 1)
    return k, v.strip('"')


def _handle_single_quote(s, t):
    k, v = t.split('=', 1)
    return k, v.strip("'")


def _handle_key_value(s, t):
    return t.split('=', 1)


def _handle_word(s, t):
    if t.startswith('.'):
        return '.', t[1:]
    if t.startswith('#'):
        return 'id', t[1:]
    return t, t


_scanner = re.Scanner([
    (r'[^ =]+=".*?"', _handle_double_quote),
    (r"[^ =]+='.*?'", _handle_single_quote),
    (r'[^ =]+=[^ =]+', _handle_key_value),
    (r'[^ =]+', _handle_word),
    (r' ', None)
])


def get_attrs(str: str) -> list[tuple[str, str]]:
    """ Parse attribute list and return a list of attribute tuples. """
    return _scanner.scan(str)[0]
