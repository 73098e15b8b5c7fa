"""How one request reaches an endpoint and comes back, whatever the endpoint does meanwhile.

The official ``openai`` SDK builds each request (its URL, headers and JSON body) and sends it with
the HTTP client divergent gives it, configured so that:

* **the request ends when its time does**: each attempt runs on a private event loop (one daemon
  thread per client) under :func:`asyncio.timeout`, so it is cancelled wherever it is at its
  deadline (connecting, waiting for the headers, reading a body that drips one byte a second);
  the SDK's own timeout is per read, which a dripping answer never trips;
* **the user's code goes only where the user sent it**: redirects are not followed, and every
  request the HTTP client would send is checked against the endpoint's origin first (a redirect
  to another host would re-send the prompt, the user's source code, there);
* **what comes back goes through the boundary** (:mod:`divergent.llm.boundary`): an error status
  becomes a :class:`StatusAnswer` with its body cut to a few kilobytes before anyone parses it,
  and an answer's body is read with its byte cap.

``openai`` (and ``asyncio``) are imported when the first request is made: 330-380 ms of imports
that a run answered from the cache, or by ``--replay``, never pays.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from divergent.llm import boundary

__all__ = ["Endpoint", "OutOfTime", "Refused", "StatusAnswer", "origin_of"]

_T = TypeVar("_T")
#: how long past an attempt's time the calling thread waits for the loop to deliver the cancellation
_CANCEL_GRACE = 2.0
#: how long closing waits for the HTTP client to close its connections
_CLOSE_WAIT = 2.0


class OutOfTime(Exception):
    """An attempt was cancelled at the end of the seconds it was given."""


class Refused(Exception):
    """divergent refused to send a request or to take a response (the message says why)."""


class StatusAnswer(Exception):
    """The endpoint answered with an error status (or a redirect, which is not followed)."""

    def __init__(self, status: int, headers: Mapping[str, str], message: str) -> None:
        super().__init__(f"HTTP {status}" + (f": {message}" if message else ""))
        self.status = status
        #: the headers divergent reads (Retry-After, Location), lower-cased
        self.headers = {name: headers[name] for name in ("retry-after", "retry-after-ms", "location") if name in headers}
        self.message = message


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, the default port left out."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    default = {"http": 80, "https": 443}.get(scheme)
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != default else "")


class Endpoint:
    """One endpoint's HTTP side: the SDK's async client on a private event loop.

    :meth:`post` sends one chat-completions request and returns its body (at most the answer cap),
    or raises :class:`OutOfTime`, :class:`StatusAnswer`, :class:`Refused`, :class:`boundary.BadAnswer`,
    or the SDK's connection and timeout errors. Thread-safe: many threads may post at once.
    """

    def __init__(self, *, base_url: str, api_key: str, timeout: float) -> None:
        import asyncio

        import openai  # the SDK: only once a request is made

        self._asyncio = asyncio
        self.base_url = base_url
        self.origin = origin_of(base_url)
        self._openai = openai
        self._closed = False
        #: the requests in flight: closing cancels them, so no caller waits on a stopped loop
        self._pending: set[Any] = set()
        self._lock = threading.Lock()
        http = openai.DefaultAsyncHttpxClient(
            follow_redirects=False,
            event_hooks={"request": [self._pinned], "response": [self._screened]},
        )
        self._sdk = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            # this client retries itself, counting every retry, and ends each attempt at its deadline;
            # the SDK's per-read timeout is only a backstop past it
            max_retries=0,
            timeout=timeout + 2 * _CANCEL_GRACE,
            http_client=http,
            default_headers={"Accept-Encoding": "identity"},
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="divergent-llm-http", daemon=True)
        self._thread.start()

    @property
    def sdk_errors(self) -> Any:
        """The SDK module, for its exception classes."""
        return self._openai

    def post(self, request: dict[str, Any], seconds: float) -> bytes:
        """The body of the answer to one chat-completions request, within ``seconds``."""
        parameters: dict[str, Any] = {"temperature": request["temperature"]}
        if request["max_tokens"] is not None:
            parameters["max_tokens"] = request["max_tokens"]
        return self._run(self._post(request["model"], request["messages"], parameters), seconds)

    async def _post(self, model: str, messages: list[dict[str, str]], parameters: dict[str, Any]) -> bytes:
        completions = self._sdk.chat.completions.with_streaming_response
        async with completions.create(model=model, messages=messages, **parameters) as response:  # type: ignore[arg-type]
            return await boundary.read_body(response.http_response)

    def _run(self, work: Awaitable[_T], seconds: float) -> _T:
        import concurrent.futures

        with self._lock:
            if self._closed:
                getattr(work, "close", lambda: None)()  # never started: no "never awaited" warning
                raise Refused("the client is closed")
            future = self._asyncio.run_coroutine_threadsafe(_within(work, seconds), self._loop)
            self._pending.add(future)
        try:
            return future.result(seconds + _CANCEL_GRACE)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise OutOfTime() from None
        except concurrent.futures.CancelledError:
            raise Refused("the client was closed while the request was in flight") from None
        except BaseException:
            future.cancel()  # an interrupt in the calling thread ends the request too
            raise
        finally:
            with self._lock:
                self._pending.discard(future)

    # -- the HTTP client's hooks (on the loop) --------------------------------------------------

    async def _pinned(self, request: Any) -> None:
        """Every request goes to the endpoint's origin (redirects are not followed either)."""
        target = origin_of(str(request.url))
        if target != self.origin:
            raise Refused(f"a request to {target} was not sent: only {self.origin} is asked")

    async def _screened(self, response: Any) -> None:
        """An error status or a redirect ends the request here, its body cut before it is parsed."""
        status = response.status_code
        if 200 <= status < 300:
            return
        message = ""
        if 300 <= status < 400:
            location = response.headers.get("location", "")
            message = f"redirected to {boundary.clean_text(location)[:200]!r}" if location else "a redirect"
        else:
            with contextlib.suppress(Exception):  # a body that cannot be read leaves the status to speak
                body = await boundary.read_body(response, limit=boundary.MAX_ERROR_BYTES, cut=True)
                message = boundary.error_message(body)
        raise StatusAnswer(status, response.headers, message)

    # -- lifecycle -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connections and stop the loop (a request in flight is cancelled)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pending, self._pending = self._pending, set()
        for future in pending:
            future.cancel()
        with contextlib.suppress(Exception):
            self._asyncio.run_coroutine_threadsafe(self._sdk.close(), self._loop).result(_CLOSE_WAIT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_CLOSE_WAIT)
        if not self._thread.is_alive():
            self._loop.close()


async def _within(work: Awaitable[_T], seconds: float) -> _T:
    """``work``, cancelled when ``seconds`` are up (then :class:`OutOfTime`)."""
    import asyncio

    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await work
    except TimeoutError:
        if scope.expired():
            raise OutOfTime() from None
        raise
