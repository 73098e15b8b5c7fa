"""The one client that talks to an OpenAI-compatible endpoint, through the official ``openai`` SDK.

What it adds to the SDK:

* a **concurrency limit** (a semaphore held only while a request is in flight, not while
  backing off), so many threads can call :meth:`LLMClient.complete` at once;
* **retries** counted in :attr:`Usage.retries`: on 429 (honouring ``Retry-After``, capped), 408,
  409, 5xx, timeouts, connection errors and malformed or empty answers, with exponential backoff
  and jitter. The SDK's own retries are off so that every retry is seen and counted here.
  A 401/403 fails at once; other 4xx fail at once too (retrying cannot fix the request);
* a **persistent response cache** in the store (table ``llm_responses``), keyed by the sha256 of
  the canonical JSON of model, messages, temperature, max_tokens and sample index: a rerun costs
  nothing and returns the same :class:`Completion` (``cached=True``). The key is never part of it;
* an **offline replay mode**: a cache miss raises :class:`LLMCacheMiss`;
* **usage and cost** totals per client, thread-safe.

The API key is read from the environment variable named in the settings when the first request
is sent (a rerun answered from the cache needs no key), and it is scrubbed from every message this
module raises or logs. Sandboxed workers never see it: their environment is an allow-list
(:func:`divergent.sandbox.isolation.scrubbed_environment`).
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import logging
import os
import random
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import openai

from divergent.errors import InvalidArgument, LLMCacheMiss, LLMError, LLMUnavailable
from divergent.llm.chat import Completion, Message, Usage
from divergent.llm.config import LLMSettings
from divergent.llm.costs import completion_cost, price_for
from divergent.store import Store, default_store_path
from divergent.store.schema import canonical_json

__all__ = ["CACHE_FORMAT", "LLMClient", "request_key"]

log = logging.getLogger("divergent.llm")

#: part of every cache key: bump it when the meaning of a cached answer changes
CACHE_FORMAT = 1
#: sent when the key variable is unset but a base URL is given (local servers ignore the key)
_NO_KEY_PLACEHOLDER = "no-key"
#: statuses worth retrying besides 5xx (the SDK's own choice: timeout, conflict, rate limit)
_RETRYABLE_STATUSES = frozenset({408, 409, 429})
#: shapes of API keys, in case a server echoes a (partly masked) key back in an error
_KEY_SHAPED = re.compile(r"\b(sk|key|api)[-_][A-Za-z0-9_\-*.]{8,}", re.IGNORECASE)
_PREVIEW_CHARS = 80


def request_key(request: dict[str, Any]) -> str:
    """The cache key of a request: sha256 of its canonical JSON."""
    return hashlib.sha256(canonical_json(request, what="an LLM request").encode()).hexdigest()


class _RetryableAnswer(Exception):
    """A failure worth another attempt; ``unavailable`` says which error to raise when none is left."""

    def __init__(self, message: str, *, unavailable: bool, wait: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.unavailable = unavailable
        #: seconds the server asked us to wait (Retry-After), if it did
        self.wait = wait


class LLMClient:
    """A :class:`~divergent.llm.chat.ChatModel` backed by an OpenAI-compatible endpoint.

    ``store`` is the store holding the response cache: a :class:`Store` (used in the thread that
    made this client; other threads open their own on the same path, as a store belongs to its
    thread), a path, or None for the default store.
    """

    def __init__(self, settings: LLMSettings, store: Store | Path | str | None = None) -> None:
        self.settings = settings
        self._given_store = store if isinstance(store, Store) else None
        self._given_store_thread = threading.get_ident()
        if isinstance(store, Store):
            self._store_path: Path | None = store.path
        elif store is not None:
            self._store_path = Path(store)
        else:
            self._store_path = None
        # one store per thread (a Store belongs to its thread); a thread's store closes when the thread
        # ends and its local storage goes, or in close() for the calling thread
        self._local = threading.local()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(settings.concurrency)
        self._sdk: openai.OpenAI | None = None
        self._api_key: str | None = None
        self._usage = Usage()
        self._random = random.Random()
        self._closed = False
        self._price_known = price_for(settings.model, settings.prices) is not None

    # ---------------------------------------------------------------------------------------
    # ChatModel

    @property
    def model(self) -> str:
        return self.settings.model

    @property
    def store_path(self) -> Path:
        """The store holding this client's response cache (where another process's client must look
        to share it)."""
        return self._store_path if self._store_path is not None else default_store_path()

    @property
    def price_known(self) -> bool:
        """Whether costs are real figures (False: no price is known for the model, costs are 0)."""
        return self._price_known

    def usage(self) -> Usage:
        with self._lock:
            return self._usage

    def complete(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        sample_index: int = 0,
    ) -> Completion:
        """One answer: from the cache when it holds the request, else from the endpoint."""
        if self._closed:
            raise LLMError("this LLM client is closed")
        request = self._request(messages, temperature, max_tokens, sample_index)
        key = request_key(request)
        if self.settings.cache:
            stored = self._store().cached_response(key)
            if stored is not None:
                completion = self._from_stored(stored, cached=True)
                self._count(Usage(cached_calls=1))
                return completion
        if self.settings.replay:
            last = str(request["messages"][-1]["content"]) if request["messages"] else ""
            preview = " ".join(last.split())[:_PREVIEW_CHARS]
            raise LLMCacheMiss(
                f"replay mode: the response cache has no answer of model {self.model!r} to this request "
                f"({len(request['messages'])} messages, temperature {temperature:g}, sample {sample_index}; "
                f"last message starts {preview!r}); run once without --replay to record it"
            )
        completion = self._call_endpoint(request)
        if self.settings.cache:
            store = self._store()
            store.save_response(key, model=self.model, request=request, response=self._to_stored(completion))
            # Two threads may have asked the same request at once: the first saved answer is the
            # one a rerun will replay, so it is the one both callers get.
            winner = store.cached_response(key)
            if winner is not None and winner.get("text") != completion.text:
                completion = self._from_stored(winner, cached=False)
        return completion

    # ---------------------------------------------------------------------------------------
    # Lifecycle

    def close(self) -> None:
        """Refuse further calls; close the HTTP client and the calling thread's store if this client
        opened it (other threads' stores close with their threads)."""
        self._closed = True
        with self._lock:
            sdk, self._sdk = self._sdk, None
        store = getattr(self._local, "store", None)
        if store is not None and store is not self._given_store:
            store.close()
        self._local.store = None
        if sdk is not None:
            sdk.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    # ---------------------------------------------------------------------------------------
    # Requests and the cache

    def _request(
        self, messages: Sequence[Message], temperature: float, max_tokens: int | None, sample_index: int
    ) -> dict[str, Any]:
        plain = []
        for number, message in enumerate(messages):
            role, content = message.get("role"), message.get("content")
            if role not in ("system", "user", "assistant") or not isinstance(content, str):
                raise InvalidArgument(
                    f"message {number} must be {{'role': 'system'|'user'|'assistant', 'content': str}}"
                )
            plain.append({"role": role, "content": content})
        if not plain:
            raise InvalidArgument("a chat request needs at least one message")
        if not 0.0 <= temperature <= 2.0:
            raise InvalidArgument(f"temperature={temperature!r} must be between 0 and 2")
        if max_tokens is not None and max_tokens < 1:
            raise InvalidArgument(f"max_tokens={max_tokens!r} must be >= 1")
        if sample_index < 0:
            raise InvalidArgument(f"sample_index={sample_index!r} must be >= 0")
        return {
            "format": CACHE_FORMAT,
            "model": self.model,
            "messages": plain,
            "temperature": float(temperature),
            "max_tokens": max_tokens,
            "sample_index": sample_index,
        }

    def _store(self) -> Store:
        store = getattr(self._local, "store", None)
        if store is not None:
            return store
        if self._given_store is not None and threading.get_ident() == self._given_store_thread:
            store = self._given_store
        else:
            store = Store(self._store_path)
        self._local.store = store
        return store

    @staticmethod
    def _to_stored(completion: Completion) -> dict[str, Any]:
        return {
            "text": completion.text,
            "model": completion.model,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "cost": completion.cost,
            "seconds": completion.seconds,
            "finish_reason": completion.finish_reason,
        }

    def _from_stored(self, stored: dict[str, Any], *, cached: bool) -> Completion:
        try:
            return Completion(
                text=str(stored["text"]),
                model=str(stored.get("model") or self.model),
                prompt_tokens=int(stored.get("prompt_tokens", 0)),
                completion_tokens=int(stored.get("completion_tokens", 0)),
                cost=float(stored.get("cost", 0.0)),
                cached=cached,
                seconds=0.0 if cached else float(stored.get("seconds", 0.0)),
                finish_reason=stored.get("finish_reason"),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise LLMError(f"a cached response of model {self.model!r} is damaged: {error}") from None

    def _count(self, usage: Usage) -> None:
        with self._lock:
            self._usage = self._usage + usage

    # ---------------------------------------------------------------------------------------
    # The endpoint

    def _client(self) -> openai.OpenAI:
        with self._lock:
            if self._sdk is None:
                key = os.environ.get(self.settings.api_key_env, "").strip()
                if not key:
                    if self.settings.base_url is None:
                        raise LLMUnavailable(
                            f"no API key: set the environment variable {self.settings.api_key_env} "
                            "(or name another with --api-key-env)"
                        )
                    key = _NO_KEY_PLACEHOLDER
                self._api_key = key
                # max_retries=0: this client retries itself, so every retry is counted
                self._sdk = openai.OpenAI(
                    api_key=key, base_url=self.settings.base_url, timeout=self.settings.timeout, max_retries=0
                )
            return self._sdk

    def _redact(self, text: str) -> str:
        """The text with the API key (and anything shaped like a key) removed."""
        if self._api_key and self._api_key != _NO_KEY_PLACEHOLDER:
            text = text.replace(self._api_key, "[redacted]")
        return _KEY_SHAPED.sub("[redacted]", text)

    def _call_endpoint(self, request: dict[str, Any]) -> Completion:
        sdk = self._client()
        settings = self.settings
        started = time.monotonic()
        retries = 0
        for attempt in range(settings.max_retries + 1):
            try:
                with self._slots:
                    completion = self._attempt(sdk, request, started)
            except _RetryableAnswer as failure:
                if attempt == settings.max_retries:
                    self._count(Usage(retries=retries, seconds=time.monotonic() - started))
                    attempts = settings.max_retries + 1
                    summary = (
                        f"model {self.model!r} at {settings.endpoint}: {failure.message} "
                        f"(gave up after {attempts} attempt{'s' if attempts > 1 else ''})"
                    )
                    raise (LLMUnavailable if failure.unavailable else LLMError)(summary) from None
                wait = self._backoff(attempt, failure.wait)
                log.info("LLM call failed (%s); retry %d of %d in %.2f s", failure.message, attempt + 1,
                         settings.max_retries, wait)
                retries += 1
                time.sleep(wait)
                continue
            except LLMError:
                self._count(Usage(retries=retries, seconds=time.monotonic() - started))
                raise
            self._count(
                Usage(
                    calls=1,
                    prompt_tokens=completion.prompt_tokens,
                    completion_tokens=completion.completion_tokens,
                    cost=completion.cost,
                    seconds=completion.seconds,
                    retries=retries,
                )
            )
            return completion
        raise AssertionError("unreachable: the retry loop returns or raises")

    def _backoff(self, attempt: int, server_wait: float | None) -> float:
        settings = self.settings
        if server_wait is not None:
            return min(max(server_wait, 0.0), settings.retry_after_max)
        ceiling = min(settings.backoff_max, settings.backoff_base * 2**attempt)
        # jitter spreads out the retries of many threads that failed together
        return ceiling * self._random.uniform(0.5, 1.0)

    def _attempt(self, sdk: openai.OpenAI, request: dict[str, Any], started: float) -> Completion:
        """One request; raises _RetryableAnswer for what another attempt may fix, LLMError otherwise."""
        settings = self.settings
        parameters: dict[str, Any] = {"temperature": request["temperature"]}
        if request["max_tokens"] is not None:
            parameters["max_tokens"] = request["max_tokens"]
        try:
            response = sdk.chat.completions.create(model=self.model, messages=request["messages"], **parameters)
        except openai.APITimeoutError:
            raise _RetryableAnswer(f"no answer within {settings.timeout:g} s", unavailable=True) from None
        except openai.APIConnectionError as error:
            raise _RetryableAnswer(
                f"cannot connect ({self._redact(str(error.__cause__ or error))})", unavailable=True
            ) from None
        except (openai.AuthenticationError, openai.PermissionDeniedError) as error:
            advice = (
                f"set the environment variable {settings.api_key_env} (it is not set)"
                if self._api_key == _NO_KEY_PLACEHOLDER
                else f"check the key in the environment variable {settings.api_key_env}"
            )
            raise LLMUnavailable(
                f"{settings.endpoint} refused the API key (HTTP {error.status_code}: "
                f"{self._redact(error.message)}); {advice}"
            ) from None
        except openai.APIStatusError as error:
            status = error.status_code
            detail = f"HTTP {status}: {self._redact(error.message)}"
            if status >= 500 or status in _RETRYABLE_STATUSES:
                raise _RetryableAnswer(
                    "rate limited, " + detail if status == 429 else detail,
                    unavailable=True,
                    wait=_retry_after(error.response.headers),
                ) from None
            if status == 404:
                raise LLMUnavailable(
                    f"{settings.endpoint} has no model {self.model!r} or no chat-completions API ({detail})"
                ) from None
            raise LLMError(f"model {self.model!r} at {settings.endpoint} rejected the request ({detail})") from None
        except (ValueError, openai.APIResponseValidationError) as error:
            # a body that is not JSON (json.JSONDecodeError is a ValueError) or not a completion
            raise _RetryableAnswer(
                f"malformed answer body ({self._redact(str(error))[:200]})", unavailable=False
            ) from None
        return self._parse(response, started)

    def _parse(self, response: Any, started: float) -> Completion:
        choices = getattr(response, "choices", None)
        if not choices:
            raise _RetryableAnswer("malformed answer: no choices in the response body", unavailable=False)
        choice = choices[0]
        message = getattr(choice, "message", None)
        text = getattr(message, "content", None)
        finish_reason = getattr(choice, "finish_reason", None)
        if not isinstance(text, str) or not text.strip():
            refusal = getattr(message, "refusal", None)
            why = f"the model refused: {refusal}" if refusal else f"finish reason {finish_reason!r}"
            raise _RetryableAnswer(f"the answer has no text ({why})", unavailable=False)
        usage = getattr(response, "usage", None)
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        return Completion(
            text=text,
            model=str(getattr(response, "model", None) or self.model),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=completion_cost(self.model, prompt_tokens, completion_tokens, self.settings.prices),
            cached=False,
            seconds=time.monotonic() - started,
            finish_reason=finish_reason,
        )


def _retry_after(headers: Any) -> float | None:
    """Seconds from ``Retry-After-Ms`` or ``Retry-After`` (seconds or an HTTP date), if present."""
    with contextlib.suppress(TypeError, ValueError):
        milliseconds = headers.get("retry-after-ms")
        if milliseconds is not None:
            return float(milliseconds) / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

