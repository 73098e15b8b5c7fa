"""The model's answers: XML actions, as in the paper, parsed leniently.

The format::

    <reason>...</reason>
    <action>
    <name>print_fail_case</name>
    <code>
    ...program...
    </code>
    <lang>Python 3</lang>
    </action>

Action names: ``print_fail_case`` (the submission: a program printing the counterexample),
``run_code`` + ``input_print`` (the agent's execution tool: a program and a printer of its input),
``solve_brute`` + ``generate_tc`` (RandSearch: a brute-force solver and a random generator).

What real answers do and this parser accepts: the XML inside a markdown fence; tags in any case
and with spaces; the code inside a ```cpp fence within ``<code>``; the code HTML-escaped
(``&lt;``); ``<lang>`` missing (the language is then guessed from the code: ``#include`` or
``int main`` is C++, else Python); a last action cut off by the token limit (no ``</action>``);
draft actions inside ``<think>`` blocks (ignored). Code is never parsed as XML: C++ is full of
``<`` and ``>``. Nothing here runs code.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from divergent.bench.refute.dataset import Build, build_for

__all__ = ["Action", "ActionError", "find_action", "parse_actions", "reason_of"]

_THINK = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.IGNORECASE | re.DOTALL)
_ACTION = re.compile(r"<action\s*>(?P<body>.*?)(?:</action\s*>|(?=<action\s*>)|\Z)", re.IGNORECASE | re.DOTALL)
_NAME = re.compile(r"<name\s*>\s*(?P<name>[\w\- ]+?)\s*</name\s*>", re.IGNORECASE)
_LANG = re.compile(r"<lang\s*>\s*(?P<lang>[^<]*?)\s*</lang\s*>", re.IGNORECASE)
_CODE_OPEN = re.compile(r"<code\s*>", re.IGNORECASE)
_CODE_CLOSE = re.compile(r"</code\s*>", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})[^\n]*\n(?P<body>.*?)\n?\s*\1\s*$", re.DOTALL)
_OPEN_FENCE = re.compile(r"^\s*(`{3,}|~{3,})[^\n]*\n(?P<body>.*)$", re.DOTALL)
_REASON = re.compile(r"<reason\s*>(?P<body>.*?)(?:</reason\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_CPP_HINTS = re.compile(r"#\s*include\b|\bint\s+main\s*\(|\bstd::|using\s+namespace\s+std")


class ActionError(Exception):
    """An answer holds no usable action of the kind wanted; the message says what was wrong."""


@dataclass(frozen=True)
class Action:
    """One ``<action>``: its name, its code, and the language it was given in (or guessed)."""

    name: str
    code: str
    #: the ``<lang>`` as written ("Python 3", "C++ 23"), or "" when missing
    lang: str

    @property
    def build(self) -> Build | None:
        """How to build and run the code (None: a language no build exists for)."""
        if self.lang:
            return build_for(self.lang)
        return build_for("C++" if _CPP_HINTS.search(self.code) else "Python 3")


def _strip_fence(code: str) -> str:
    fenced = _FENCE.match(code)
    if fenced:
        return fenced["body"]
    # a fence left open (the answer was cut off, or the model forgot to close it)
    opened = _OPEN_FENCE.match(code)
    return opened["body"] if opened else code


def _code_of(body: str) -> str | None:
    start = _CODE_OPEN.search(body)
    if start is None:
        return None
    closes = list(_CODE_CLOSE.finditer(body, start.end()))
    end = closes[-1].start() if closes else len(body)
    code = body[start.end() : end]
    if not closes:
        # cut off: the code runs into whatever tag follows (a <lang> after an unclosed <code>)
        code = re.split(r"<lang\s*>", code, flags=re.IGNORECASE)[0]
    code = _strip_fence(code.strip("\n"))
    if re.search(r"&(lt|gt|amp|quot|#\d+);", code):
        code = html.unescape(code)
    return code.strip("\n") + "\n" if code.strip() else None


def parse_actions(text: str) -> list[Action]:
    """Every action in an answer, in order (those inside ``<think>`` blocks left out)."""
    visible = _THINK.sub("", text)
    actions = []
    for match in _ACTION.finditer(visible):
        body = match["body"]
        code_start = _CODE_OPEN.search(body)
        # <name> and <lang> outside the code: a program may print "<name>" itself
        outside = body[: code_start.start()] if code_start else body
        code_end = list(_CODE_CLOSE.finditer(body))
        after = body[code_end[-1].end() :] if code_end else ""
        name = _NAME.search(outside) or _NAME.search(after)
        if name is None:
            continue
        code = _code_of(body)
        lang = _LANG.search(after) or _LANG.search(outside)
        actions.append(Action(
            name=name["name"].strip().lower().replace(" ", "_").replace("-", "_"),
            code=code or "",
            lang=lang["lang"].strip() if lang else "",
        ))
    return actions


def find_action(text: str, name: str) -> Action:
    """The last action called ``name`` in an answer (a model that revises itself means its last
    word); :class:`ActionError` when there is none, or its code is empty or in a language no build
    exists for."""
    actions = parse_actions(text)
    wanted = [action for action in actions if action.name == name]
    if not wanted:
        if not actions:
            raise ActionError(f"no <action> with a <name> in the answer (wanted {name})")
        named = ", ".join(dict.fromkeys(action.name for action in actions))
        raise ActionError(f"no {name} action in the answer (it has: {named})")
    action = wanted[-1]
    if not action.code.strip():
        raise ActionError(f"the {name} action has no <code>")
    if action.build is None:
        raise ActionError(f"the {name} action's language {action.lang!r} is not one of Python 3, C++")
    return action


def reason_of(text: str) -> str:
    """The ``<reason>`` of an answer (the last one), or "" when it gave none."""
    reasons = _REASON.findall(_THINK.sub("", text))
    return reasons[-1].strip() if reasons else ""
