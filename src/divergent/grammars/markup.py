"""HTML and XML: tags with attributes with and without values (``<input disabled>``), in double,
single or no quotes, entities, comments, CDATA, self-closing tags, upper-case names, line breaks
inside a tag; and edits of one tag of a text (drop an attribute's value, change its quotes, add or
remove an attribute, escape a character as an entity).
"""

from __future__ import annotations

import html
import re
from random import Random

__all__ = ["EXAMPLES", "generate", "looks_like", "mutate"]

TAGS = ("div", "a", "span", "input", "img", "meta", "video", "source", "p", "br", "DIV", "x-custom", "svg:rect", "iframe")
NAMES = ("class", "id", "href", "src", "data-id", "data-video-id", "disabled", "checked", "content", "property",
         "name", "value", "type", "title", "CLASS", "aria-label", "xml:lang", "_x", "data-")  # fmt: skip
VALUES = ("x", "a b", "", "http://example.com/a?b=1&amp;c=2", "&quot;quoted&quot;", "caf&eacute;", "1", "a'b",
          'a"b', "a>b", "line\nbreak", "&#39;", "&#x27;", "é", " padded ")  # fmt: skip
ENTITIES = ("&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#39;", "&#x27;", "&nbsp;", "&#8212;", "&#x2014;", "&eacute;",
            "&unknown;", "&amp", "&#0;", "&#x110000;")  # fmt: skip
SPECIAL = ("<!-- comment -->", "<![CDATA[ a < b ]]>", "<!DOCTYPE html>", '<?xml version="1.0" encoding="UTF-8"?>',
           "<br>", "<br/>", "<br />", "</div>", "<>", "< div>", "<div", "div>", "<a href=x>link</a>",
           '<p class="x">text &amp; more</p>', "<ul><li>1</li><li>2</li></ul>", "<script>var a = '<b>';</script>",
           '<div data-foo="1" data-bar>', "<input type=checkbox checked disabled>", '<img src="a.png" alt="">',
           "<a\nhref='x'\n>", '<DIV CLASS="A">B</DIV>', '<meta property="og:title" content="T">',
           '<video src="v.mp4" controls autoplay muted></video>', "")  # fmt: skip
_TAG = re.compile(r"<([A-Za-z][\w:.-]*)((?:[^<>\"']|\"[^\"]*\"|'[^']*')*)(/?)>")
_ATTRIBUTE = re.compile(r"""\s+([^\s=/>"']+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>"']+))?""")


def _attribute(rng: Random) -> str:
    name = rng.choice(NAMES)
    style = rng.randrange(5)
    value = rng.choice(VALUES)
    if style == 0:
        return name  # valueless
    if style == 1:
        return f"{name}='{value}'"
    if style == 2 and value and not re.search(r"[\s\"'>=`<]", value):
        return f"{name}={value}"
    if style == 3:
        return f"{name}=\"\""
    return f'{name}="{value}"'


def generate(rng: Random) -> str:
    if rng.random() < 0.2:
        return rng.choice(SPECIAL)
    tag = rng.choice(TAGS)
    attributes = "".join(rng.choice((" ", " ", "  ", "\n", "\t")) + _attribute(rng) for _ in range(rng.choice((0, 1, 1, 2, 3))))
    close = rng.choice(("", "", "/", " /"))
    text = f"<{tag}{attributes}{close}>"
    if not close and rng.random() < 0.4:
        text += rng.choice(("", "text", rng.choice(ENTITIES), "a &amp; b")) + f"</{tag}>"
    return text


def _examples() -> tuple[str, ...]:
    found: dict[str, None] = dict.fromkeys(SPECIAL)
    for tag, name in zip(TAGS, NAMES, strict=False):
        found[f"<{tag} {name}>"] = None  # valueless
        found[f'<{tag} {name}="v">'] = None
        found[f"<{tag} {name}='v' {NAMES[-1 - TAGS.index(tag)]}>"] = None
    for value in VALUES:
        found[f'<a href="{value}">'] = None
    for entity in ENTITIES:
        found[f"a {entity} b"] = None
    return tuple(found)


EXAMPLES: tuple[str, ...] = _examples()


def looks_like(value: str) -> bool:
    return ("<" in value and ">" in value) or bool(re.search(r"&#?\w+;", value))


def mutate(value: str, rng: Random) -> str | None:
    """One tag of ``value`` edited (or an entity escaped); None when it has no tag or entity."""
    tags = list(_TAG.finditer(value))
    if not tags:
        if re.search(r"&#?\w+;", value):
            return html.unescape(value) if rng.random() < 0.5 else value.replace("&", "&amp;", 1)
        return None
    tag = rng.choice(tags)
    name, attributes, closing = tag.group(1), tag.group(2), tag.group(3)
    found = list(_ATTRIBUTE.finditer(attributes))
    choice = rng.randrange(8)
    if choice == 0 and found:  # the value dropped: a valueless attribute
        attribute = rng.choice(found)
        attributes = attributes[: attribute.start()] + " " + attribute.group(1) + attributes[attribute.end() :]
    elif choice == 1 and found:  # other quotes
        attribute = rng.choice(found)
        raw = attribute.group(2) or '""'
        inner = raw[1:-1] if raw[:1] in "\"'" else raw
        quoted = rng.choice((f"'{inner}'", f'"{inner}"', inner or "x", f" = \"{inner}\""))
        separator = "" if quoted.startswith(" ") else "="
        attributes = attributes[: attribute.start()] + f" {attribute.group(1)}{separator}{quoted}" + attributes[attribute.end() :]
    elif choice == 2:
        attributes += " " + _attribute(rng)
    elif choice == 3 and found:
        attribute = rng.choice(found)
        attributes = attributes[: attribute.start()] + attributes[attribute.end() :]
    elif choice == 4:
        name = name.upper() if name.islower() else name.lower()
    elif choice == 5:
        closing = "" if closing else "/"
    elif choice == 6 and found:  # attributes in another order, or broken over lines
        pieces = [a.group(0).strip() for a in found]
        rng.shuffle(pieces)
        attributes = "".join(rng.choice((" ", "\n", "  ")) + piece for piece in pieces)
    else:
        entity = rng.choice(ENTITIES)
        return value[: tag.end()] + entity + value[tag.end() :]
    return value[: tag.start()] + f"<{name}{attributes}{closing}>" + value[tag.end() :]
