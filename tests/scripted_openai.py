"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API and replays a script.

Tests of every LLM feature start one (fixture ``openai_server`` in conftest.py) and point the real
client at ``server.base_url``, so the whole client path runs: the SDK, HTTP, retries, timeouts,
the cache. Answers come from a queue (:meth:`ScriptedOpenAI.script`), then from a ``responder``
function that sees the request (to answer by prompt content), else a fixed fallback.

A :class:`Reply` can be a normal answer, an HTTP error (429 with Retry-After, 500, 401...), a slow
answer (``delay``), or a raw body (malformed JSON). The hostile ones of docs/llm.md's threat table
too: a body that drips (``drip`` seconds a byte, ``endless``: never done), a huge body streamed
without being held (``padding`` bytes of answer text), any ``usage`` object, a redirect
(``status=307`` with a ``Location`` header). ``bytes_sent`` counts what the server wrote, so a
test can tell whether the client stopped reading.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PADDING = "<<padding>>"


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    #: seconds to wait before answering (a slow model, or one that times out)
    delay: float = 0.0
    #: a raw body sent as is (for malformed answers)
    raw: bytes | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    #: seconds between the body's bytes (after the headers): an answer that drips
    drip: float = 0.0
    #: with ``drip``: a body that never ends (one byte at a time until the client goes)
    endless: bool = False
    #: bytes of padding appended to the answer text, streamed in chunks (a huge answer)
    padding: int = 0
    #: the ``usage`` object sent as is (bad counts, strings), instead of the scripted token counts
    usage: Any = None
    #: no Content-Length: the body ends when the server closes the connection (a client cannot know
    #: its size before reading it)
    unannounced: bool = False


@dataclass
class Received:
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def messages(self) -> list[dict[str, str]]:
        return self.body.get("messages", [])

    @property
    def last_user(self) -> str:
        users = [m["content"] for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages)


Responder = Callable[[Received], Reply | str]


class ScriptedOpenAI:
    def __init__(self, responder: Responder | None = None, *, api_key: str | None = None) -> None:
        self.responder = responder
        #: when set, requests without ``Authorization: Bearer <api_key>`` get a 401
        self.api_key = api_key
        self.received: list[Received] = []
        #: bytes of response bodies written so far (a client that stops reading stops it growing)
        self.bytes_sent = 0
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None,
                      reply: Reply | None = None, tail: bytes = b"") -> None:
                """The body, then ``reply.padding`` bytes of padding and ``tail`` (streamed), at the
                reply's drip rate."""
                padding = reply.padding if reply is not None else 0
                drip = reply.drip if reply is not None else 0.0
                endless = reply is not None and reply.endless
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                # an endless body announces a plausible length, and never gets there
                length = len(body) + padding + len(tail) + (100_000 if endless else 0)
                if reply is not None and reply.unannounced:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                else:
                    self.send_header("Content-Length", str(length))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    if drip:
                        self.wfile.flush()
                        sent = 0
                        while (endless or sent < len(body)) and not server._stopped.is_set():
                            self._write(body[sent:sent + 1] or b" ")
                            self.wfile.flush()
                            sent += 1
                            time.sleep(drip)
                        return
                    self._write(body)
                    chunk = b"a" * 65536
                    while padding > 0:
                        self._write(chunk[:padding])
                        padding -= len(chunk)
                    self._write(tail)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _write(self, data: bytes) -> None:
                self.wfile.write(data)
                with server._lock:
                    server.bytes_sent += len(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    body = {"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": "tests"}]}
                    self._send(200, json.dumps(body).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                received = Received(body=body, headers={k.lower(): v for k, v in self.headers.items()})
                with server._lock:
                    server.received.append(received)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                if server.api_key is not None and received.headers.get("authorization") != f"Bearer {server.api_key}":
                    error = {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                       "code": "invalid_api_key"}}
                    self._send(401, json.dumps(error).encode())
                    return
                reply = server._next_reply(received)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw is not None:
                    self._send(reply.status, reply.raw, reply.headers, reply)
                    return
                if reply.status != 200:
                    error = {"error": {"message": reply.text or f"scripted error {reply.status}",
                                       "type": "server_error" if reply.status >= 500 else "rate_limit_error",
                                       "code": None}}
                    headers = dict(reply.headers)
                    if reply.status == 429:
                        headers.setdefault("Retry-After", "0")
                    self._send(reply.status, json.dumps(error).encode(), headers, reply)
                    return
                prompt_tokens = reply.prompt_tokens
                if prompt_tokens is None:
                    prompt_tokens = max(1, len(received.prompt) // 4)
                completion_tokens = reply.completion_tokens
                if completion_tokens is None:
                    completion_tokens = max(1, len(reply.text) // 4)
                answer = {
                    "id": f"chatcmpl-scripted-{len(server.received)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "scripted"),
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.text},
                        "finish_reason": reply.finish_reason,
                    }],
                    "usage": reply.usage if reply.usage is not None else {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                }
                if reply.padding:
                    # the padding is streamed where this marker is, inside the answer's text
                    answer["choices"][0]["message"]["content"] = reply.text + _PADDING
                    head, tail = json.dumps(answer).encode().split(_PADDING.encode(), 1)
                    self._send(200, head, reply.headers, reply, tail=tail)
                    return
                self._send(200, json.dumps(answer).encode(), reply.headers, reply)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    # -------------------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def script(self, *replies: Reply | str) -> ScriptedOpenAI:
        """Queue answers, served in order before the responder is asked."""
        with self._lock:
            self._queue.extend(r if isinstance(r, Reply) else Reply(text=r) for r in replies)
        return self

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.received if r.body.get("messages") is not None]

    def _next_reply(self, received: Received) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            answer = self.responder(received)
            return answer if isinstance(answer, Reply) else Reply(text=answer)
        return Reply(text="I have nothing scripted to say.")

    def start(self) -> ScriptedOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
