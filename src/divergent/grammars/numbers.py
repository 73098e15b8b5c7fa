"""Numbers written every way code meets them: signs, leading zeros, decimal points at either end,
thousands separators (``1,000``, ``1 000``, ``1_000``, ``1.000,5``), exponents, hex, octal and
binary prefixes, ``inf``/``nan`` spellings, non-ASCII digits, fractions, suffixes (``4.2k``,
``1.5M``); and :func:`mutate`, which rewrites one number in a text in another notation.
"""

from __future__ import annotations

import re
from random import Random

__all__ = ["EXAMPLES", "generate", "looks_like", "mutate", "spellings"]

EXAMPLES: tuple[str, ...] = (
    "0", "1", "-1", "+1", "42", "007", "-0", "1.5", ".5", "5.", "-0.0", "1e3", "1E-3", "1.5e+10", "2e308", "1e-400",
    "1,000", "1,000,000", "12,34", "1.000,5", "1 000", "1\u00a0000", "1_000", "1,0", "1,", ",5", "0x1F", "0X1f",
    "0o17", "0b101", "017", "08", "inf", "-inf", "Infinity", "+INF", "nan", "NaN", "-nan", "١٢٣", "²", "½", "1/2",
    "3 1/2", "4.2k", "1.5M", "3B", "10%", "$1,234.56", "1.2.3", "--1", "1-", " 42 ", "4 2", "9" * 20, "-" + "9" * 20,
    "0.1", "0.30000000000000004", "1e", "e5", ".", "-", "",
)  # fmt: skip
_NUMBER = re.compile(r"[-+]?(?:\d[\d,_]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_LOOKS = re.compile(r"^\s*[-+]?(?:\d|\.\d|inf|nan|0x)", re.IGNORECASE)


def spellings(value: int | float) -> list[str]:
    """The same number in other notations."""
    found: dict[str, None] = {}
    if isinstance(value, float) and not value.is_integer():
        found[repr(value)] = None
        found[f"{value:.2e}"] = None
        found[f"{value:,}"] = None
        found[str(value).replace(".", ",")] = None
        found[f"{value:+}"] = None
        found[str(value).lstrip("0") or "0"] = None
        return list(found)
    number = int(value)
    found[f"{number:,}"] = None
    found[f"{number:_}"] = None
    found[f"{number:,}".replace(",", " ")] = None
    found[f"{number:,}".replace(",", ".")] = None
    found[f"{number:+d}"] = None
    found[f"{number}.0"] = None
    found[f"{number:e}"] = None
    found[f"{number:#x}"] = None
    found[f"0{number}" if number >= 0 else f"-0{-number}"] = None
    found[f"{number}."] = None
    if number and number % 1000 == 0:
        found[f"{number // 1000}k"] = None
    return list(found)


def generate(rng: Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(EXAMPLES)
    value: int | float = rng.choice((rng.randint(-10, 10), rng.randint(1000, 10**7), rng.uniform(-1000, 1000)))
    return rng.choice(spellings(value) or [str(value)])


def looks_like(value: str) -> bool:
    return bool(_LOOKS.match(value))


def mutate(value: str, rng: Random) -> str | None:
    """One number in ``value`` written in another notation; None when there is no number."""
    numbers = list(_NUMBER.finditer(value))
    if not numbers:
        return None
    match = rng.choice(numbers)
    text = match.group(0)
    plain = text.replace(",", "").replace("_", "")
    if len(plain) > 300:
        return None
    try:
        number: int | float = int(plain) if re.fullmatch(r"[-+]?\d+", plain) else float(plain)
    except ValueError:
        return None
    choice = rng.random()
    if choice < 0.6:
        replacement = rng.choice(spellings(number) or [text])
    elif choice < 0.8:
        replacement = rng.choice(EXAMPLES)
    else:
        replacement = rng.choice(("-", "+", "0", "")) + text + rng.choice(("", ".0", "e1", "0", ",000"))
    return value[: match.start()] + replacement + value[match.end() :]
