"""What every language-model feature sees of a model: a chat that answers, and what it cost.

The engines (ProbeGen, RandSearch), the spurious-counterexample filter, semantic clustering and
live sampling depend on :class:`ChatModel` only; :class:`divergent.llm.client.LLMClient` is the
implementation that talks to an OpenAI-compatible endpoint (with retries, the response cache and
cost accounting). Keeping the protocol this small lets every feature be tested through the real
client against a scripted HTTP server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

#: one chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``
Message = Mapping[str, str]


@dataclass(frozen=True)
class Completion:
    """One answer of the model, with what it cost."""

    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: US dollars, from the configured prices (0.0 when the model has no price)
    cost: float = 0.0
    #: served from the response cache (then it cost nothing now: ``cost`` is what it cost once)
    cached: bool = False
    #: wall seconds of the call, retries included (0.0 when cached)
    seconds: float = 0.0
    #: the endpoint's finish reason ("stop", "length", ...), when it gave one
    finish_reason: str | None = None

    def usage(self) -> Usage:
        """This answer as one call's usage: its tokens and price as they were when it was made (a
        cached answer keeps them, so a record read back from the cache shows the same costs),
        counted as a call, or as a cached call when it came from the cache.

        A total of what a run spent now counts a cached answer as ``Usage(cached_calls=1)`` alone,
        as :meth:`ChatModel.usage` does.
        """
        return Usage(
            calls=0 if self.cached else 1,
            cached_calls=1 if self.cached else 0,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost=self.cost,
            seconds=self.seconds,
        )


@dataclass(frozen=True)
class Usage:
    """Totals over the calls a client made (cached answers are counted apart: they cost nothing)."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    retries: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            calls=self.calls + other.calls,
            cached_calls=self.cached_calls + other.cached_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost=self.cost + other.cost,
            seconds=self.seconds + other.seconds,
            retries=self.retries + other.retries,
        )

    def as_dict(self) -> dict[str, float | int]:
        return {
            "calls": self.calls,
            "cached_calls": self.cached_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost": round(self.cost, 6),
            "seconds": round(self.seconds, 3),
            "retries": self.retries,
        }


@runtime_checkable
class ChatModel(Protocol):
    """A chat model. ``sample_index`` tells apart the samples of one prompt at temperature > 0
    (the cache key includes it, so sample 3 of a rerun is sample 3 of the first run).
    ``deadline`` (a ``time.monotonic()`` value, None: none) is when the caller stops waiting: the
    call returns or raises :class:`~divergent.errors.LLMOutOfTime` by then."""

    @property
    def model(self) -> str: ...

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        sample_index: int = 0,
        deadline: float | None = None,
    ) -> Completion: ...

    def usage(self) -> Usage: ...


def with_deadline(deadline: float | None) -> dict[str, float]:
    """The keyword arguments that pass ``deadline`` to :meth:`ChatModel.complete`: none without one,
    so a chat model written before deadlines (no ``deadline`` parameter) still serves calls that
    have none."""
    return {} if deadline is None else {"deadline": deadline}


def earlier(first: float | None, second: float | None) -> float | None:
    """The earlier of two deadlines (None: no deadline)."""
    if first is None:
        return second
    return first if second is None else min(first, second)


class BoundedChat:
    """A chat model whose every call ends by ``deadline`` (a search's: what its budget allows), over
    the same client (its cache, its usage, its concurrency)."""

    def __init__(self, chat: ChatModel, deadline: float | None) -> None:
        self.chat = chat
        self.deadline = deadline

    @property
    def model(self) -> str:
        return self.chat.model

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        sample_index: int = 0,
        deadline: float | None = None,
    ) -> Completion:
        return self.chat.complete(messages, temperature=temperature, max_tokens=max_tokens,
                                  sample_index=sample_index, **with_deadline(earlier(deadline, self.deadline)))

    def usage(self) -> Usage:
        return self.chat.usage()


def bounded(chat: ChatModel, deadline: float | None) -> ChatModel:
    """``chat`` with every call ending by ``deadline`` (``chat`` itself when there is none)."""
    if deadline is None:
        return chat
    return BoundedChat(chat, deadline)
