"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions API and replays a script.

Tests of every LLM feature start one (fixture ``openai_server`` in conftest.py) and point the real
client at ``server.base_url``, so the whole client path runs: the SDK, HTTP, retries, timeouts,
the cache. Answers come from a queue (:meth:`ScriptedOpenAI.script`), then from a ``responder``
function that sees the request (to answer by prompt content), else a fixed fallback.

A :class:`Reply` can be a normal answer, an HTTP error (429 with Retry-After, 500, 401...), a slow
answer (``delay``), or a raw body (malformed JSON).
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
        self._queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

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
                    self._send(reply.status, reply.raw, reply.headers)
                    return
                if reply.status != 200:
                    error = {"error": {"message": reply.text or f"scripted error {reply.status}",
                                       "type": "server_error" if reply.status >= 500 else "rate_limit_error",
                                       "code": None}}
                    headers = dict(reply.headers)
                    if reply.status == 429:
                        headers.setdefault("Retry-After", "0")
                    self._send(reply.status, json.dumps(error).encode(), headers)
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
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": completion_tokens,
                        "total_tokens": prompt_tokens + completion_tokens,
                    },
                }
                self._send(200, json.dumps(answer).encode(), reply.headers)

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
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> ScriptedOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
