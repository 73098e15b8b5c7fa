"""Email addresses: plain, with tags and dots, quoted local parts with escapes and spaces, display
names in angle brackets (closed or not), IP literals, internationalised parts, and the broken
forms validators must refuse (two ``@``, empty parts, doubled dots).
"""

from __future__ import annotations

from random import Random

__all__ = ["EXAMPLES", "generate", "looks_like"]

EXAMPLES: tuple[str, ...] = (
    "me@example.com", "first.last+tag@sub.example.co.uk", '"me"@example.com', '"me\\"x"@example.com',
    '"a b"@example.com', '"a@b"@example.com', "Name <me@example.com>", '"Last, First" <me@example.com>',
    "<me@example.com>", "<me@example.com", "me@example.com>", "Name <me@example.com", "me@[127.0.0.1]",
    "me@[IPv6:::1]", "üñí@example.com", "me@bücher.example", "me@xn--bcher-kva.example", "ME@EXAMPLE.COM",
    "me@", "@example.com", "me@@example.com", "a@b@example.com", "a..b@example.com", ".a@example.com",
    "a.@example.com", "me@example", "me@example..com", "me@-example.com", "me @example.com", "me@example.com.",
    '"unclosed@example.com', "me＠example.com", "me﹫example.com", "x" * 65 + "@example.com", "",
)  # fmt: skip
_LOCALS = ("me", "a.b", "a+b", '"a b"', '"a\\"b"', "ü", "A", "a..b", "", "x" * 65)
_DOMAINS = ("example.com", "sub.example.co.uk", "[127.0.0.1]", "bücher.example", "example", "", "-a.com", "a..com")


def generate(rng: Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(EXAMPLES)
    address = f"{rng.choice(_LOCALS)}@{rng.choice(_DOMAINS)}"
    roll = rng.random()
    if roll < 0.2:
        return f"Name <{address}>"
    if roll < 0.3:
        return f"<{address}"
    return address


def looks_like(value: str) -> bool:
    return "@" in value and " " not in value.strip()
