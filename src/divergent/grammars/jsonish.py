"""JSON and JavaScript object literals: nested values, escapes, and what JavaScript allows and JSON
does not (unquoted and single-quoted keys, trailing commas, comments, hex numbers, ``undefined``,
``!0``); and :func:`mutate`, which rewrites one piece of such a text in the other dialect.
"""

from __future__ import annotations

import re
from random import Random

__all__ = ["EXAMPLES", "generate", "looks_like", "mutate"]

EXAMPLES: tuple[str, ...] = (
    "{}", "[]", "null", "true", "1", '"s"', '{"a": 1}', '{"a": [1, 2.5, "x", true, false, null]}',
    '{"a": {"b": {"c": []}}}', '{"u": "\\u00e9\\n\\"q\\""}', '[1, [2, [3, [4]]]]', '{"a": 1, "a": 2}',
    '{"big": 12345678901234567890, "exp": 1e400, "neg": -0}', "{a: 1}", "{'a': 'b'}", "{a: 0x1F, b: .5, c: +1}",
    "[1, 2,]", '{"a": 1,}', "{a: /* c */ 1}", "// comment\n{}", "{a: undefined}", "{a: void 0}", "{a: !0, b: !1}",
    "{\"a\": 'mixed\"quotes'}", "{a: \"line\\\nbreak\"}", "{1: 'numeric key'}", "{'a': {'b': [\"c\", 'd']}}",
    "callback({\"a\": 1});", "window.data = {a: 1};", "{a: NaN, b: Infinity}", "[,1]", "{", '{"a": }', "",
)  # fmt: skip
_VALUES = ("1", "-2.5", "0x1F", "'s'", '"s"', "true", "null", "undefined", "[]", "{}", "!0", "1e3", '"\\u00e9"')
_KEYS = ('"a"', "'a'", "a", "$a", "_a", "1", '"a b"', '"\\u0061"')


def generate(rng: Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(EXAMPLES)
    entries = [f"{rng.choice(_KEYS)}: {rng.choice(_VALUES)}" for _ in range(rng.randint(0, 3))]
    text = "{" + ", ".join(entries) + rng.choice(("", "", ",")) + "}"
    return text if rng.random() < 0.7 else "[" + text + "]"


def looks_like(value: str) -> bool:
    stripped = value.strip()
    return stripped[:1] in ("{", "[") or bool(re.match(r"^\w+\(\s*[{\[]", stripped))


def mutate(value: str, rng: Random) -> str | None:
    """A key's quotes changed, a trailing comma or comment added, a value rewritten; None if no JSON."""
    if not looks_like(value):
        return None
    choice = rng.randrange(6)
    keys = list(re.finditer(r"""(["']?)([A-Za-z_$][\w$]*)\1\s*:""", value))
    if choice == 0 and keys:
        key = rng.choice(keys)
        quote = rng.choice(("", "'", '"'))
        return value[: key.start()] + f"{quote}{key.group(2)}{quote}:" + value[key.end() :]
    if choice == 1:
        closing = max(value.rfind("}"), value.rfind("]"))
        if closing > 0:
            return value[:closing] + "," + value[closing:]
    if choice == 2:
        return rng.choice(("/* c */ ", "// c\n")) + value
    values = list(re.finditer(r":\s*([^,}\]]+)", value))
    if choice == 3 and values:
        match = rng.choice(values)
        return value[: match.start(1)] + rng.choice(_VALUES) + value[match.end(1) :]
    if choice == 4:
        return value.replace('"', "'") if '"' in value else value.replace("'", '"')
    opening = value.find("{")
    if opening >= 0:
        return value[: opening + 1] + f"{rng.choice(_KEYS)}: {rng.choice(_VALUES)}, " + value[opening + 1 :]
    return None
