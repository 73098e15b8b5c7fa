"""The strict reader every validator of the suite calls (``line``, ``ints``, ``integer``, ``word``,
``end``, ``fail``): a problem's ``validator.py`` holds only its own checks, and runs after this
file (``benchmarks/validators.py: standalone_validator`` joins the two into one program, which is
what a search stages). A validator reads the input on stdin; exit 0 when it is valid, else 1 with
the reason on stderr. Lenient only about line endings (CRLF) and a missing or extra
final newline; strict about everything else: single spaces between tokens, no spaces at either end
of a line, integers written plainly (no sign on 0, no leading zeros, no '+')."""

import re
import sys


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


try:
    _text = sys.stdin.buffer.read().decode("ascii")
except UnicodeDecodeError:
    fail("the input is not ASCII")
_lines = _text.replace("\r\n", "\n").split("\n")
while _lines and _lines[-1] == "":
    _lines.pop()
_position = 0
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")


def line():
    """The next line, checked for stray spaces."""
    global _position
    if _position >= len(_lines):
        fail(f"line {_position + 1}: missing")
    text = _lines[_position]
    _position += 1
    if text != text.strip(" ") or "  " in text or "\t" in text or "\r" in text:
        fail(f"line {_position}: stray whitespace")
    return text


def integer(token, low, high, what):
    if not _INTEGER.fullmatch(token) or token == "-0":
        fail(f"line {_position}: {token[:20]!r} is not an integer ({what})")
    value = int(token)
    if not low <= value <= high:
        fail(f"line {_position}: {what} = {value} is out of [{low}, {high}]")
    return value


def ints(count, low, high, what):
    """A line of exactly ``count`` integers in [low, high]."""
    text = line()
    parts = text.split(" ") if text else []
    if len(parts) != count:
        fail(f"line {_position}: expected {count} integer(s) ({what}), got {len(parts)}")
    return [integer(part, low, high, what) for part in parts]


def word(pattern, what):
    """A line that is one token fully matching ``pattern``."""
    text = line()
    if not re.fullmatch(pattern, text):
        fail(f"line {_position}: {text[:30]!r} is not {what}")
    return text


def end():
    if _position != len(_lines):
        fail(f"line {_position + 1}: unexpected extra input")
