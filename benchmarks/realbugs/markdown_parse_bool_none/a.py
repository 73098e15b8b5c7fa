# Copied verbatim from https://github.com/Python-Markdown/markdown at d7e0f99babd33700aa02edd4760deab800c8b5b1; see meta.json and ../NOTICE.
from __future__ import unicode_literals
import sys


PY3 = sys.version_info[0] == 3


if PY3: #pragma: no cover
    string_type = str
    text_type = str
    int2str = chr
else: #pragma: no cover
    string_type = basestring
    text_type = unicode
    int2str = unichr


def parseBoolValue(value, fail_on_errors=True, preserve_none=False):
    """Parses a string representing bool value. If parsing was successful,
       returns True or False. If preserve_none=True, returns True, False, 
       or None. If parsing was not successful, raises  ValueError, or, if 
       fail_on_errors=False, returns None."""
    if not isinstance(value, string_type):
        if preserve_none and value is None:
            return  value
        return bool(value)
    elif value.lower() in ('true', 'yes', 'y', 'on', '1'):
        return True
    elif value.lower() in ('false', 'no', 'n', 'off', '0'):
        return False
    elif preserve_none and value.lower() == 'none':
        return None
    elif fail_on_errors:
        raise ValueError('Cannot parse bool value: %r' % value)
