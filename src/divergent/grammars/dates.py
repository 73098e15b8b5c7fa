"""Date strings written in ``strptime``/``strftime`` formats: valid dates in each format, edge
dates (leap days, the last second of a year, single-digit fields), impossible ones (month 13, day
32, hour 24, 29 February of a common year), time zones, and the same dates in neighbouring formats
(day and month swapped, a two-digit year, the month spelled out, a ``T`` or a space before the time,
fractional seconds, a zone suffix) that one format of a list accepts and the next does not.

Dates are rendered here by a small renderer of the format directives (not ``strftime``), so fields
``strftime`` would refuse (month 13, hour 24) can be written too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["COMMON_FORMATS", "DateFields", "date_strings", "neighbour_formats", "render"]

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: formats common enough to try when code parses dates without naming a format
COMMON_FORMATS = (
    "%Y-%m-%d", "%Y%m%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y", "%Y/%m/%d", "%B %d, %Y", "%d %B %Y", "%b %d %Y",
    "%d %b %Y", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S.%f%z",
    "%a, %d %b %Y %H:%M:%S %z", "%H:%M", "%H:%M:%S", "%I:%M %p",
)  # fmt: skip
_DIRECTIVE = re.compile(r"%([-#]?)([a-zA-Z%])")


@dataclass(frozen=True)
class DateFields:
    """The fields a date string shows (not checked: month 13 or hour 24 are allowed on purpose)."""

    year: int = 2020
    month: int = 1
    day: int = 1
    hour: int = 0
    minute: int = 0
    second: int = 0
    microsecond: int = 0
    #: minutes east of UTC, or None for no zone
    offset: int | None = None
    weekday: int = 0  # Monday
    zone_name: str = "UTC"


def render(format: str, fields: DateFields) -> str | None:
    """``format`` written with ``fields``; None for a directive this renderer does not know."""
    out: list[str] = []
    position = 0
    for match in _DIRECTIVE.finditer(format):
        out.append(format[position : match.start()])
        position = match.end()
        flag, directive = match.groups()
        text = _field(directive, fields)
        if text is None:
            return None
        if flag == "-" and text.isdigit():
            text = str(int(text))
        out.append(text)
    out.append(format[position:])
    return "".join(out)


def _field(directive: str, f: DateFields) -> str | None:
    month_name = _MONTHS[(f.month - 1) % 12]
    day_name = _DAYS[f.weekday % 7]
    hour12 = f.hour % 12 or 12
    simple = {
        "Y": f"{f.year:04d}", "y": f"{f.year % 100:02d}", "m": f"{f.month:02d}", "d": f"{f.day:02d}",
        "e": f"{f.day:2d}", "H": f"{f.hour:02d}", "I": f"{hour12:02d}", "M": f"{f.minute:02d}",
        "S": f"{f.second:02d}", "f": f"{f.microsecond:06d}", "p": "AM" if f.hour < 12 else "PM",
        "b": month_name[:3], "h": month_name[:3], "B": month_name, "a": day_name[:3], "A": day_name,
        "j": f"{min(366, (f.month - 1) * 30 + f.day):03d}", "%": "%", "w": str((f.weekday + 1) % 7),
        "u": str(f.weekday + 1), "U": "00", "W": "00", "G": f"{f.year:04d}", "V": "01",
        "C": f"{f.year // 100:02d}", "n": "\n", "t": "\t",
    }  # fmt: skip
    if directive in simple:
        return simple[directive]
    if directive == "z":
        if f.offset is None:
            return ""
        sign = "+" if f.offset >= 0 else "-"
        return f"{sign}{abs(f.offset) // 60:02d}{abs(f.offset) % 60:02d}"
    if directive == "Z":
        return f.zone_name if f.offset is not None else ""
    if directive == "T":
        return f"{f.hour:02d}:{f.minute:02d}:{f.second:02d}"
    if directive == "D":
        return f"{f.month:02d}/{f.day:02d}/{f.year % 100:02d}"
    if directive == "F":
        return f"{f.year:04d}-{f.month:02d}-{f.day:02d}"
    if directive in ("c", "x", "X"):
        return {"c": f"{day_name[:3]} {month_name[:3]} {f.day:2d} {f.hour:02d}:{f.minute:02d}:{f.second:02d} {f.year}",
                "x": f"{f.month:02d}/{f.day:02d}/{f.year % 100:02d}",
                "X": f"{f.hour:02d}:{f.minute:02d}:{f.second:02d}"}[directive]  # fmt: skip
    return None


#: valid dates: ordinary, single-digit fields, a leap day, the last second of a year, noon, day > 12
_VALID = (
    DateFields(2021, 3, 14, 15, 9, 26, 535897, None, 6),
    DateFields(2004, 2, 29, 12, 0, 0, 0, 0, 6),
    DateFields(1999, 12, 31, 23, 59, 59, 999999, 60, 4),
    DateFields(2000, 1, 2, 1, 2, 3, 4, -300, 6),
    DateFields(1970, 1, 1, 0, 0, 0, 0, 0, 3),
    DateFields(2023, 7, 4, 9, 5, 0, 0, 330, 1),
    DateFields(2012, 11, 25, 18, 30, 0, 0, None, 6),
    DateFields(1900, 2, 28, 0, 0, 0, 0, None, 2),
)
#: impossible or borderline fields: month 13, day 32, hour 24, minute 60, leap second, 29 Feb 2023, day 0
_EDGE = (
    DateFields(2021, 13, 1),
    DateFields(2021, 1, 32),
    DateFields(2023, 2, 29),
    DateFields(2021, 6, 15, 24, 0, 0),
    DateFields(2021, 6, 15, 12, 60, 0),
    DateFields(2016, 12, 31, 23, 59, 60),
    DateFields(2021, 0, 0),
    DateFields(2021, 4, 31),
    DateFields(1, 1, 1),
    DateFields(9999, 12, 31, 23, 59, 59, 999999, -720),
    DateFields(2000, 12, 12, 12, 12, 12, 0, 840),
)

#: directives and what a neighbouring format writes instead
_SWAPS = (("%Y", "%y"), ("%y", "%Y"), ("%b", "%B"), ("%B", "%b"), ("%d", "%-d"), ("%m", "%-m"), ("%H", "%I"),
          ("%d/%m", "%m/%d"), ("%m/%d", "%d/%m"), ("%d.%m", "%m.%d"), ("%d-%m", "%m-%d"), ("%m-%d", "%d-%m"),
          ("T", " "), (" %H", "T%H"), ("-", "/"), ("/", "-"), ("%S", "%S.%f"), (".%f", ""), ("%z", ""),
          ("%Z", ""), (", ", " "), ("%b %d", "%d %b"), ("%B %d", "%d %B"))  # fmt: skip
_SUFFIXES = ("Z", "+00:00", "+0000", " UTC", " GMT", "-05:00", " EST", ".123", ".123456", " PM", "am")


def neighbour_formats(format: str) -> list[str]:
    """Formats one edit away from ``format``: a directive swapped for its neighbour, a part dropped,
    a zone or fraction added."""
    found: dict[str, None] = {}
    for old, new in _SWAPS:
        if old in format:
            found[format.replace(old, new, 1)] = None
    if "%H" in format and "%p" not in format:
        found[format.replace("%H", "%I") + " %p"] = None
    for cut in (" %H", "T%H", "%H"):
        if cut in format:
            found[format[: format.index(cut)]] = None
            break
    if "%z" not in format and "%Z" not in format and "%H" in format:
        found[format + "%z"] = None
    found.pop(format, None)
    return [f for f in found if f]


def date_strings(formats: Sequence[str], *, neighbours: bool = True) -> list[str]:
    """Strings for a list of formats: valid dates in each, edge dates, a zone or fraction added,
    and (``neighbours``) the same dates in neighbouring formats; duplicates removed, in order."""
    found: dict[str, None] = {}

    def add(texts: Iterable[str | None]) -> None:
        for text in texts:
            if text:
                found[text] = None

    for format in formats:
        add(render(format, fields) for fields in _VALID)
    for format in formats:
        add(render(format, fields) for fields in _EDGE)
        base = render(format, _VALID[0])
        if base:
            add(base + suffix for suffix in _SUFFIXES[:6])
            add((base.lower(), base.upper(), " " + base + " "))
    if neighbours:
        for format in formats:
            for neighbour in neighbour_formats(format):
                add(render(neighbour, fields) for fields in _VALID[:3])
    return list(found)
