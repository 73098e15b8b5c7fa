"""Quantities with units: durations (``1:02:03.5``, ``1h30m``, ``2 mins``, ``PT1H2M3S``) and file
sizes (``1.5 MiB``, ``2GB``, ``1,024 KB``, ``10 bytes``); and numbers glued to the unit words the
code itself names (:func:`with_units`), which is how a ``parse_filesize`` meets its own table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from random import Random

__all__ = ["DURATIONS", "FILESIZES", "generate_duration", "generate_filesize", "with_units"]

DURATIONS: tuple[str, ...] = (
    "0", "90", "1:30", "01:02:03", "1:02:03.5", "0:00", "59:59", "60:00", "1:60", "100:00:00", "1:2:3:4", "-1:00",
    "90s", "1h", "1h30m", "1h 30m 10s", "1 hour 2 minutes", "2 mins", "3.5 hours", "1.5h", "500ms", "10 sec",
    "10 secs.", "1d 2h", "1 day", "2 days, 3:04:05", "PT1H2M3S", "PT30S", "P1DT2H", "PT1.5S", "P0D", "1m", "1M",
    "5 min 3 s", "3 minutes, 4 seconds", "00:00:00,500", "1h2m3s4ms", "1:00 PM", "T1H", "8 min", "15s", ".5s",
)  # fmt: skip
FILESIZES: tuple[str, ...] = (
    "0", "1", "1 B", "10 bytes", "1 byte", "1 KB", "1KB", "1 kB", "1 KiB", "1KiB", "1.5 MB", "1.5MiB", "2GB",
    "2 GiB", "3 TiB", "3 TB", "7 PB", "1 EiB", "1 ZB", "1 YiB", "1,024 KB", "1.024,5 MB", "1 000 KB", "100k",
    "1.5M", "5 megabytes", "2 gigabytes", "1 kilobyte", "0.5 kb", ".5 MB", "1.2 gb", "512 kbit", "1e3 KB", "-1 MB",
    "1.5 MBytes", "10 Kb", "1MB/s",
)  # fmt: skip
_UNITS_FOR_NUMBERS = ("0", "1", "1.5", "10", "1,024", "1.000,5", "0.5", ".5", "5.", "100", "1e3")


def generate_duration(rng: Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(DURATIONS)
    hours, minutes, seconds = rng.randint(0, 30), rng.randint(0, 75), rng.randint(0, 75)
    return rng.choice((
        f"{hours}:{minutes:02d}:{seconds:02d}", f"{minutes}:{seconds:02d}", f"{hours}h{minutes}m{seconds}s",
        f"{hours} hours {minutes} minutes", f"PT{hours}H{minutes}M{seconds}S", f"{minutes}m {seconds}s",
    ))  # fmt: skip


def generate_filesize(rng: Random) -> str:
    if rng.random() < 0.6:
        return rng.choice(FILESIZES)
    number = rng.choice(_UNITS_FOR_NUMBERS)
    unit = rng.choice(("B", "KB", "KiB", "kB", "MB", "MiB", "GB", "GiB", "TB", "bytes", "kb", "mb", "Mb"))
    return number + rng.choice(("", " ")) + unit


_UNIT_WORD = re.compile(r"^[A-Za-zµμ]{1,12}\.?$")


def with_units(units: Sequence[str], limit: int = 60) -> list[str]:
    """Numbers in several notations glued to each unit-like word of ``units`` (short alphabetic
    literals the code names: a table of units, the alternatives of a regex)."""
    words = [u for u in dict.fromkeys(units) if _UNIT_WORD.match(u)]
    found: dict[str, None] = {}
    for i, unit in enumerate(words):
        for j, number in enumerate(_UNITS_FOR_NUMBERS[:6]):
            separator = " " if (i + j) % 2 else ""
            found[f"{number}{separator}{unit}"] = None
        if len(found) >= limit:
            break
    return list(found)[:limit]
