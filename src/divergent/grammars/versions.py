"""Version strings: release segments of any length, pre-, post- and dev-releases, local parts,
epochs, leading ``v``, and the spellings version parsers normalise (``1.0-RC1``, ``1.0.post-1``).
"""

from __future__ import annotations

from random import Random

__all__ = ["EXAMPLES", "generate"]

EXAMPLES: tuple[str, ...] = (
    "0", "1", "1.0", "1.0.0", "1.2.3.4.5", "01.002", "v1.2", "V1.2.3", "1.0a1", "1.0b2", "1.0rc1", "1.0c1",
    "1.0-RC1", "1.0.dev0", "1.0.post1", "1.0-1", "1.0.post-1", "1!2.0", "1.0+local.7", "1.0+ubuntu-1",
    "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-0.3.7", "1.0.0+20130313144700", "2.0.0-rc.1+build.123", "1.0a",
    "1..0", "1.0.", ".1", "1.x", "latest", "1.0-SNAPSHOT", "10.0.19041", "2021.03.1", "1.0.0.0.0.0.0.0.0.0",
)  # fmt: skip


def generate(rng: Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(EXAMPLES)
    release = ".".join(str(rng.choice((0, 1, 2, 9, 10, 99, 2021))) for _ in range(rng.randint(1, 4)))
    suffix = rng.choice(("", "", "a1", "b2", "rc1", ".dev3", ".post1", "-1", "+local", "-alpha.1"))
    return rng.choice(("", "", "v")) + release + suffix
