"""Everything an endpoint sends, checked at one boundary before the rest of divergent sees it.

A model's answers are as untrusted as the code under test: a compromised model, a prompt-injected
one or a hostile proxy controls every byte of them. So every byte an endpoint sends (an answer, an
error body, a header) and every answer read back from the response cache passes through here, and
comes out as plain, bounded values or as a :class:`BadAnswer`:

* **size**: a body is read with a byte cap (:data:`MAX_ANSWER_BYTES`, :data:`MAX_ERROR_BYTES` for
  error bodies, which are cut rather than refused) before anything parses it; a declared length
  over the cap is refused before the first byte is read, and a compressed body is refused (the
  request asks for none: a small compressed body can unpack to gigabytes);
* **shape**: JSON nesting is bounded (:data:`MAX_NESTING`) before the parser runs, so no answer
  reaches a recursion limit; only the fields divergent uses are read;
* **numbers**: usage counts must be plain integers in ``[0, MAX_TOKEN_COUNT]`` (not ``10**400``,
  not ``"lots"``); a ``Retry-After`` must be a finite, non-negative number of seconds;
* **text**: lone surrogates, control characters (but tab and newline) and bidirectional overrides
  become U+FFFD before a text is cached, shown, fed back to the model or run, so nothing
  downstream can fail to encode it or be fooled by it; a model name or a finish reason is also cut
  to a short line; an error message from the endpoint is cut to :data:`MAX_MESSAGE_CHARS`.

Everything else about a response is a :class:`BadAnswer`, which the client turns into an
:class:`~divergent.errors.LLMError` (the docs' threat table, docs/llm.md, maps each threat to its
check here).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "MAX_ANSWER_BYTES",
    "MAX_ERROR_BYTES",
    "MAX_MESSAGE_CHARS",
    "MAX_NESTING",
    "MAX_TOKEN_COUNT",
    "Answer",
    "BadAnswer",
    "TooLarge",
    "answer_from_body",
    "answer_from_stored",
    "clean_text",
    "error_message",
    "read_body",
    "retry_after",
]

#: the largest answer body read: about a million tokens of text, where models write at most tens of
#: thousands (a call adds at most this to the response cache, and as much to a ProbeGen tree's node)
MAX_ANSWER_BYTES = 4 * 1024 * 1024
#: how much of an error body is read (the rest is not: only its message is shown)
MAX_ERROR_BYTES = 64 * 1024
#: the deepest JSON nesting of a body (an answer's own is 4: the body, choices, a choice, its message)
MAX_NESTING = 64
#: the largest token count taken from ``usage`` (no call spends a billion tokens)
MAX_TOKEN_COUNT = 10**9
#: the longest error message of an endpoint kept (in errors, notes and reports)
MAX_MESSAGE_CHARS = 300
#: the longest model name or finish reason kept
_MAX_NAME_CHARS = 120

# C0 and C1 controls but tab and newline, DEL, bidirectional embeddings, overrides and isolates
# (which reorder what a terminal or an editor shows: "Trojan Source"), and lone surrogates
# (which no encoder accepts).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_ONE_KIND_OF_BRACKET = bytes.maketrans(b"{}", b"[]")


class BadAnswer(Exception):
    """What an endpoint sent is not an answer divergent takes (the message says why, in a line)."""


class TooLarge(BadAnswer):
    """A body over its byte cap: refused unread (its declared length) or as soon as the cap is passed."""


@dataclass(frozen=True)
class Answer:
    """The checked content of one answer: the only fields divergent reads from a response."""

    text: str
    #: the model the endpoint says answered ("" when it did not say)
    model: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None


# -- text ---------------------------------------------------------------------------------------------


def clean_text(text: str) -> str:
    """``text`` with what no terminal, encoder or reader should get replaced by U+FFFD; Windows and
    old-Mac line ends become newlines."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _UNSAFE.sub("\ufffd", text)


def _line(value: object, limit: int) -> str:
    """A short, clean, one-line text of a value (for names and messages)."""
    text = clean_text(value if isinstance(value, str) else _shown(value))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(value: object) -> str:
    """A bounded description of a value (a huge integer is not printed: its digits alone could be
    megabytes, and Python refuses to print more than 4300 of them)."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return repr(value) if abs(value) < 10**18 else f"an integer of {value.bit_length()} bits"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return repr(value[:40] + ("…" if len(value) > 40 else ""))
    return f"a {type(value).__name__}"


# -- bodies -------------------------------------------------------------------------------------------


class _Response(Protocol):
    """What :func:`read_body` needs of an HTTP response (an ``httpx`` one)."""

    headers: Mapping[str, str]

    def aiter_raw(self) -> AsyncIterator[bytes]: ...


async def read_body(response: _Response, *, limit: int = MAX_ANSWER_BYTES, cut: bool = False) -> bytes:
    """The body of ``response``, at most ``limit`` bytes of it: over the cap, :class:`TooLarge`
    (``cut``: the first ``limit`` bytes, the rest unread). A declared length over the cap is
    refused before reading; a compressed body is refused (what it would unpack to is unbounded)."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("", "identity"):
        raise BadAnswer(f"a compressed body ({_line(encoding, 40)}) although none was asked for")
    declared = response.headers.get("content-length")
    if declared is not None and not cut and declared.strip().isdigit() and int(declared) > limit:
        raise TooLarge(f"a body of {int(declared):,} bytes, over the cap of {limit:,}")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_raw():
        if size + len(chunk) > limit:
            if cut:
                chunks.append(chunk[: limit - size])
                break
            raise TooLarge(f"a body over the cap of {limit:,} bytes (stopped reading there)")
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def parse_json(body: bytes) -> Any:
    """The JSON document of a body whose nesting is at most :data:`MAX_NESTING` deep.

    The depth is measured before the parser runs, without recursion: strings removed, the
    brackets left are peeled one level per pass (what cannot be peeled is unbalanced: the parser
    says where)."""
    brackets = _STRING.sub(b"", body).translate(_ONE_KIND_OF_BRACKET, _NOT_BRACKETS)
    for _ in range(MAX_NESTING):
        if b"[]" not in brackets:
            break
        brackets = brackets.replace(b"[]", b"")
    if b"[]" in brackets:
        raise BadAnswer(f"JSON nested deeper than {MAX_NESTING} levels")
    try:
        return json.loads(body)
    except RecursionError:  # unreachable after the measure above; kept so no body can crash a run
        raise BadAnswer(f"JSON nested deeper than {MAX_NESTING} levels") from None
    except (UnicodeDecodeError, ValueError) as error:
        # not JSON, not UTF-8, or an integer of more than 4300 digits
        raise BadAnswer(f"the body is not JSON ({_line(str(error), 120)})") from None


# -- answers --------------------------------------------------------------------------------------------


def token_count(value: object, name: str) -> int:
    """A usage count: a plain integer in ``[0, MAX_TOKEN_COUNT]`` (absent: 0)."""
    if value is None:
        return 0
    if type(value) is not int or not 0 <= value <= MAX_TOKEN_COUNT:
        raise BadAnswer(f"usage {name} is not a token count: {_shown(value)}")
    return value


def answer_from_body(body: bytes) -> Answer:
    """The answer in a chat-completions body; :class:`BadAnswer` when there is none or it is malformed."""
    document = parse_json(body)
    if not isinstance(document, dict):
        raise BadAnswer("the body is not a JSON object")
    choices = document.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadAnswer("no choices in the response body")
    choice = choices[0]
    message = choice.get("message")
    message = message if isinstance(message, dict) else {}
    finish = choice.get("finish_reason")
    finish_reason = _line(finish, _MAX_NAME_CHARS) if finish is not None else None
    text = message.get("content")
    if not isinstance(text, str) or not text.strip():
        refusal = message.get("refusal")
        why = (f"the model refused: {_line(refusal, MAX_MESSAGE_CHARS)}" if isinstance(refusal, str) and refusal
               else f"finish reason {finish_reason!r}")
        raise BadAnswer(f"the answer has no text ({why})")
    usage = document.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise BadAnswer(f"usage is not an object: {_shown(usage)}")
    usage = usage or {}
    model = document.get("model")
    return Answer(
        text=clean_text(text),
        model=_line(model, _MAX_NAME_CHARS) if isinstance(model, str) else "",
        prompt_tokens=token_count(usage.get("prompt_tokens"), "prompt_tokens"),
        completion_tokens=token_count(usage.get("completion_tokens"), "completion_tokens"),
        finish_reason=finish_reason,
    )


def answer_from_stored(stored: object) -> tuple[Answer, float, float]:
    """An answer read back from the response cache, checked as a fresh one is (a row may have been
    written by an older divergent, or edited): the answer, its cost and its seconds."""
    if not isinstance(stored, dict) or not isinstance(stored.get("text"), str):
        raise BadAnswer("the cached row has no answer text")
    cost, seconds = stored.get("cost", 0.0), stored.get("seconds", 0.0)
    for name, value in (("cost", cost), ("seconds", seconds)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < math.inf:
            raise BadAnswer(f"the cached {name} is not a non-negative number: {_shown(value)}")
    model, finish = stored.get("model"), stored.get("finish_reason")
    answer = Answer(
        text=clean_text(stored["text"]),
        model=_line(model, _MAX_NAME_CHARS) if isinstance(model, str) else "",
        prompt_tokens=token_count(stored.get("prompt_tokens"), "prompt_tokens"),
        completion_tokens=token_count(stored.get("completion_tokens"), "completion_tokens"),
        finish_reason=_line(finish, _MAX_NAME_CHARS) if finish is not None else None,
    )
    return answer, float(cost), float(seconds)


# -- errors and headers -----------------------------------------------------------------------------------


def error_message(body: bytes) -> str:
    """The message of an error body (its ``error.message``, else its text), clean, on one line, cut
    to :data:`MAX_MESSAGE_CHARS` ("" when there is none)."""
    message: object = None
    try:
        document = parse_json(body)
    except BadAnswer:
        document = None
    if isinstance(document, dict):
        error = document.get("error", document)
        message = error.get("message") if isinstance(error, dict) else error
    if not isinstance(message, str):
        message = body[: MAX_MESSAGE_CHARS * 4].decode("utf-8", errors="replace")
    return _line(message, MAX_MESSAGE_CHARS)


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``Retry-After-Ms`` or ``Retry-After`` (seconds or an HTTP date), when present and
    a finite, non-negative number; a larger wait than the caller can give is the caller's to cap."""
    seconds: float | None = None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        seconds = _seconds(milliseconds, scale=1000.0)
    value = headers.get("retry-after")
    if seconds is None and value is not None:
        seconds = _seconds(value)
        if seconds is None:
            import email.utils

            try:
                when = email.utils.parsedate_to_datetime(value)
            except (TypeError, ValueError, IndexError, OverflowError):
                return None
            seconds = max(0.0, when.timestamp() - time.time())
    return seconds


def _seconds(text: str, *, scale: float = 1.0) -> float | None:
    try:
        value = float(text.strip()[:40]) / scale
    except ValueError:
        return None
    return value if 0.0 <= value < math.inf else None
