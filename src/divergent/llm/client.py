"""The one client that talks to an OpenAI-compatible endpoint, through the official ``openai`` SDK.

What it adds to the SDK:

* a **concurrency limit** (a semaphore held only while a request is in flight, not while
  backing off), so many threads can call :meth:`LLMClient.complete` at once;
* **time**: every attempt ends when its time does (``timeout``, and the caller's ``deadline``:
  what a search's budget has left), wherever the request is (:mod:`divergent.llm.transport`);
  back-off and a server's ``Retry-After`` wait only as long as that time allows, else the call
  ends at once with :class:`~divergent.errors.LLMOutOfTime`;
* **retries** counted in :attr:`Usage.retries`: on 429 (honouring ``Retry-After``, capped), 408,
  409, 5xx, timeouts, dropped connections and malformed or empty answers, with exponential
  backoff and jitter. The SDK's own retries are off so that every retry is seen and counted here.
  A refused connection or a host that does not resolve fails at once (a dead endpoint must not
  hold a search); so do 401/403, other 4xx, a redirect (not followed: the prompt carries the
  user's code) and an answer over the size cap;
* **the boundary** (:mod:`divergent.llm.boundary`): what an endpoint sends is read with a byte
  cap, parsed with bounded nesting, its counts checked and its text cleaned before it is cached,
  shown or returned; anything else is an :class:`~divergent.errors.LLMError`;
* a **persistent response cache** in the store (table ``llm_responses``), keyed by the sha256 of
  the canonical JSON of the endpoint (its URL without credentials), model, messages,
  temperature, max_tokens and sample index: a rerun costs nothing and returns the same
  :class:`Completion` (``cached=True``), and another endpoint serving the same model name is
  asked. The key is never part of it;
* an **offline replay mode**: a cache miss raises :class:`LLMCacheMiss`;
* **usage and cost** totals per client, thread-safe.

The API key is read from the environment variable named in the settings when the first request
is sent (a rerun answered from the cache needs no key, and does not import the SDK), and it is
scrubbed from every message this module raises or logs. Sandboxed workers never see it: their
environment is an allow-list (:func:`divergent.sandbox.isolation.scrubbed_environment`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import random
import re
import socket
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from divergent.errors import InvalidArgument, LLMCacheMiss, LLMError, LLMOutOfTime, LLMUnavailable
from divergent.llm import boundary
from divergent.llm.chat import Completion, Message, Usage
from divergent.llm.config import LLMSettings
from divergent.llm.costs import completion_cost, price_for
from divergent.llm.transport import Endpoint, OutOfTime, Refused, StatusAnswer, origin_of
from divergent.store import Store, default_store_path
from divergent.store.schema import canonical_json

__all__ = ["CACHE_FORMAT", "LLMClient", "endpoint_key", "request_key"]

log = logging.getLogger("divergent.llm")

#: part of every cache key: bump it when the meaning of a cached answer changes (2: the endpoint
#: joined the key)
CACHE_FORMAT = 2
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


def endpoint_key(url: str) -> str:
    """The endpoint as the cache knows it: its origin and path, without credentials, query or a
    trailing slash (``https://api.openai.com/v1``)."""
    path = urlsplit(url).path.rstrip("/")
    return origin_of(url) + path


class _Failure(Exception):
    """One attempt failed: ``retry`` says whether another may help, ``error`` what to raise when
    none is left (``wait``: the seconds the server asked for, if it did)."""

    def __init__(self, message: str, error: type[LLMError], *, retry: bool, wait: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.error = error
        self.retry = retry
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
        self._endpoint: Endpoint | None = None
        self._api_key: str | None = None
        self._usage = Usage()
        #: requests handed to the endpoint, and those its host refused or that never found it (they
        #: carried nothing away): what the report may say left the machine
        self._posted = 0
        self._refused = 0
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

    @property
    def requests_out(self) -> int:
        """Requests that may have reached the endpoint: handed to it, and not refused by its host
        nor lost for want of one (a refused connection carries nothing away)."""
        with self._lock:
            return self._posted - self._refused

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
        deadline: float | None = None,
    ) -> Completion:
        """One answer: from the cache when it holds the request, else from the endpoint.

        ``deadline`` (a ``time.monotonic()`` value) is when the caller stops waiting: the request,
        its retries and its back-off end by then (:class:`LLMOutOfTime`); the settings' ``timeout``
        bounds each attempt either way. An answer in the cache is returned however late it is.
        """
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
        completion = self._call_endpoint(request, deadline)
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
            endpoint, self._endpoint = self._endpoint, None
        store = getattr(self._local, "store", None)
        if store is not None and store is not self._given_store:
            store.close()
        self._local.store = None
        if endpoint is not None:
            endpoint.close()

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
            "endpoint": endpoint_key(self.settings.endpoint),
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
            answer, cost, seconds = boundary.answer_from_stored(stored)
        except boundary.BadAnswer as error:
            raise LLMError(f"a cached response of model {self.model!r} is damaged: {error}") from None
        return Completion(
            text=answer.text,
            model=answer.model or self.model,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
            cost=cost,
            cached=cached,
            seconds=0.0 if cached else seconds,
            finish_reason=answer.finish_reason,
        )

    def _count(self, usage: Usage) -> None:
        with self._lock:
            self._usage = self._usage + usage

    # ---------------------------------------------------------------------------------------
    # The endpoint

    def _connect(self) -> Endpoint:
        with self._lock:
            if self._endpoint is None:
                if self._closed:
                    raise LLMError("this LLM client is closed")
                key = os.environ.get(self.settings.api_key_env, "").strip()
                if not key:
                    if self.settings.base_url is None:
                        raise LLMUnavailable(
                            f"no API key: set the environment variable {self.settings.api_key_env} "
                            "(or name another with --api-key-env)"
                        )
                    key = _NO_KEY_PLACEHOLDER
                self._api_key = key
                try:
                    self._endpoint = Endpoint(base_url=self.settings.endpoint, api_key=key,
                                              timeout=self.settings.timeout)
                except Exception as error:  # noqa: BLE001 - the SDK that cannot start is an LLM error, not a crash
                    what = self._redact(f"{type(error).__name__}: {error}")[: boundary.MAX_MESSAGE_CHARS]
                    raise LLMUnavailable(f"cannot set up the client of {self.settings.endpoint} ({what})") from None
            return self._endpoint

    def _redact(self, text: str) -> str:
        """The text with the API key (and anything shaped like a key) removed."""
        if self._api_key and self._api_key != _NO_KEY_PLACEHOLDER:
            text = text.replace(self._api_key, "[redacted]")
        return _KEY_SHAPED.sub("[redacted]", text)

    def _call_endpoint(self, request: dict[str, Any], deadline: float | None) -> Completion:
        endpoint = self._connect()
        settings = self.settings
        started = time.monotonic()
        retries = 0
        where = f"model {self.model!r} at {settings.endpoint}"
        try:
            for attempt in range(settings.max_retries + 1):
                left = _seconds_left(deadline)
                if left <= 0:
                    raise LLMOutOfTime(f"{where}: no time left for {'another try' if attempt else 'a call'}")
                seconds = min(settings.timeout, left)
                # the slot is waited for within the time too: other calls may hold every one
                if not self._slots.acquire(timeout=min(left, 1e6)):
                    raise LLMOutOfTime(f"{where}: all {settings.concurrency} connections stayed busy until the "
                                       "time ran out")
                try:
                    completion = self._attempt(endpoint, request, seconds, started, cut=seconds < settings.timeout)
                    self._count(Usage(calls=1, prompt_tokens=completion.prompt_tokens,
                                      completion_tokens=completion.completion_tokens, cost=completion.cost,
                                      seconds=completion.seconds, retries=retries))
                    return completion
                except _Failure as failure:
                    if not failure.retry or attempt == settings.max_retries:
                        attempts = f" (gave up after {attempt + 1} attempts)" if attempt else ""
                        raise failure.error(f"{where}: {failure.message}{attempts}") from None
                    wait = self._backoff(attempt, failure.wait)
                    left = _seconds_left(deadline)
                    if wait >= left:
                        asked = "the endpoint asked to wait" if failure.wait is not None else "the back-off is"
                        raise LLMOutOfTime(f"{where}: {failure.message}; {asked} {wait:.3g} s before another try, "
                                           f"more than the {max(left, 0.0):.3g} s left") from None
                    message = failure.message
                finally:
                    self._slots.release()
                log.info("LLM call failed (%s); retry %d of %d in %.2f s", message, attempt + 1,
                         settings.max_retries, wait)
                retries += 1
                time.sleep(wait)
        except LLMError:
            self._count(Usage(retries=retries, seconds=time.monotonic() - started))
            raise
        raise AssertionError("unreachable: the retry loop returns or raises")

    def _backoff(self, attempt: int, server_wait: float | None) -> float:
        settings = self.settings
        if server_wait is not None:
            return min(max(server_wait, 0.0), settings.retry_after_max)
        ceiling = min(settings.backoff_max, settings.backoff_base * 2**attempt)
        # jitter spreads out the retries of many threads that failed together
        return ceiling * self._random.uniform(0.5, 1.0)

    def _attempt(
        self, endpoint: Endpoint, request: dict[str, Any], seconds: float, started: float, *, cut: bool
    ) -> Completion:
        """One request within ``seconds`` (``cut``: the caller's deadline set them); raises
        :class:`_Failure` saying whether another attempt may help."""
        with self._lock:
            self._posted += 1
        try:
            body = endpoint.post(request, seconds)
            answer = boundary.answer_from_body(body)
        except OutOfTime:
            if cut:
                raise _Failure(f"no answer before the time given ran out ({seconds:.3g} s)", LLMOutOfTime,
                               retry=False) from None
            raise _Failure(f"no answer within {self.settings.timeout:g} s", LLMUnavailable, retry=True) from None
        except StatusAnswer as answer_status:
            raise self._status_failure(answer_status) from None
        except Refused as refusal:
            with self._lock:
                self._refused += 1
            raise _Failure(f"refused: {refusal}", LLMUnavailable, retry=False) from None
        except boundary.TooLarge as error:
            raise _Failure(f"answer refused: {error}", LLMError, retry=False) from None
        except boundary.BadAnswer as error:
            raise _Failure(f"malformed answer: {self._redact(str(error))}", LLMError, retry=True) from None
        except Exception as error:  # noqa: BLE001 - the SDK's and the network's errors, whatever they are
            raise self._sdk_failure(endpoint, error, seconds) from None
        return Completion(
            text=answer.text,
            model=answer.model or self.model,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
            cost=completion_cost(self.model, answer.prompt_tokens, answer.completion_tokens, self.settings.prices),
            cached=False,
            seconds=time.monotonic() - started,
            finish_reason=answer.finish_reason,
        )

    def _status_failure(self, answer: StatusAnswer) -> _Failure:
        settings = self.settings
        status = answer.status
        detail = self._redact(str(answer))
        if 300 <= status < 400:
            return _Failure(
                f"{detail}: not followed (the prompt carries your code, and goes only to the base URL; if the "
                "endpoint moved, change --base-url)", LLMUnavailable, retry=False)
        if status in (401, 403):
            advice = (
                f"set the environment variable {settings.api_key_env} (it is not set)"
                if self._api_key == _NO_KEY_PLACEHOLDER
                else f"check the key in the environment variable {settings.api_key_env}"
            )
            return _Failure(f"the endpoint refused the API key ({detail}); {advice}", LLMUnavailable, retry=False)
        if 500 <= status < 600 or status in _RETRYABLE_STATUSES:
            return _Failure("rate limited, " + detail if status == 429 else detail, LLMUnavailable, retry=True,
                            wait=boundary.retry_after(answer.headers))
        if status == 404:
            return _Failure(f"the endpoint has no model {self.model!r} or no chat-completions API ({detail})",
                            LLMUnavailable, retry=False)
        return _Failure(f"the request was rejected ({detail})", LLMError, retry=False)

    def _sdk_failure(self, endpoint: Endpoint, error: Exception, seconds: float) -> _Failure:
        sdk = endpoint.sdk_errors
        if isinstance(error, sdk.APITimeoutError):
            return _Failure(f"no answer within {seconds:.3g} s", LLMUnavailable, retry=True)
        if isinstance(error, sdk.APIConnectionError):
            cause = _root_cause(error)
            why = boundary.clean_text(self._redact(str(cause)))[:200]
            # nobody listens, or no such host: another try in a second will not change that
            if isinstance(cause, ConnectionRefusedError | socket.gaierror):
                with self._lock:
                    self._refused += 1  # no connection was made: nothing left the machine
            if isinstance(cause, ConnectionRefusedError):
                return _Failure(f"cannot connect: connection refused ({why})", LLMUnavailable, retry=False)
            if isinstance(cause, socket.gaierror):
                return _Failure(f"cannot connect: the host name does not resolve ({why})", LLMUnavailable,
                                retry=False)
            return _Failure(f"cannot connect ({why})", LLMUnavailable, retry=True)
        what = boundary.clean_text(self._redact(f"{type(error).__name__}: {error}"))[:boundary.MAX_MESSAGE_CHARS]
        return _Failure(f"the request failed ({what})", LLMError, retry=False)


def _seconds_left(deadline: float | None) -> float:
    return float("inf") if deadline is None else deadline - time.monotonic()


def _root_cause(error: BaseException) -> BaseException:
    """The first refused connection or name-resolution failure behind an error, else its last cause."""
    seen: set[int] = set()
    current: BaseException | None = error
    last = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError | socket.gaierror):
            return current
        last = current
        current = current.__cause__ or current.__context__
    return last
