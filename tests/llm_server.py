"""A real local chat server for tests: OpenAI-compatible and Anthropic Messages.

`LocalChatServer(responder)` listens on 127.0.0.1 (a free port) in a background
thread and serves

- ``POST /v1/chat/completions`` (OpenAI format, with ``usage``), and
- ``POST /v1/messages`` (Anthropic format, with ``usage``).

The responder receives the request's messages as role/content dicts (for
Anthropic the ``system`` prompt comes first as a ``{"role": "system"}`` entry) and
returns the assistant's text. Every JSON body received is kept in ``requests``
(with the request path and headers under ``"_path"`` and ``"_headers"``) so a test
can check what reached the wire. ``fail_next(n, status)`` makes the next ``n``
requests fail with ``status``; ``delay_seconds`` delays every reply.

    with LocalChatServer(lambda messages: '{"ok": true}') as server:
        config = LLMConfig("openai", server.url, "test-model")
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

Responder = Callable[[list[dict[str, str]]], str]


def _text_of(content: Any) -> str:
    """Message content is a string or (Anthropic/OpenAI parts) a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _rough_tokens(text: str) -> int:
    return max(1, len(text.split())) if text else 0


class LocalChatServer:
    """OpenAI- and Anthropic-shaped chat endpoints backed by a Python callable."""

    def __init__(self, responder: Responder) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.delay_seconds: float = 0.0
        self.retry_after: str | None = None  # sent with injected failures when set
        self._failures: list[int] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    # -- control ---------------------------------------------------------------
    def fail_next(self, n: int, status: int = 503) -> None:
        """The next `n` requests answer `status` with an error body."""
        with self._lock:
            self._failures.extend([status] * n)

    def _take_failure(self) -> int | None:
        with self._lock:
            return self._failures.pop(0) if self._failures else None

    def start(self) -> LocalChatServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return  # keep test output quiet

            def _reply(
                self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None
            ) -> None:
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    self._reply(400, {"error": {"message": "invalid JSON body"}})
                    return
                record = dict(body)
                record["_path"] = self.path
                record["_headers"] = {k.lower(): v for k, v in self.headers.items()}
                with server._lock:
                    server.requests.append(record)
                if server.delay_seconds:
                    time.sleep(server.delay_seconds)
                failure = server._take_failure()
                if failure is not None:
                    extra = {"Retry-After": server.retry_after} if server.retry_after else {}
                    self._reply(
                        failure,
                        {"error": {"message": f"injected failure {failure}"}},
                        extra,
                    )
                    return
                if self.path.rstrip("/").endswith("/chat/completions"):
                    self._openai(body)
                elif self.path.rstrip("/").endswith("/messages"):
                    self._anthropic(body)
                else:
                    self._reply(404, {"error": {"message": "not found"}})

            def _openai(self, body: dict[str, Any]) -> None:
                messages = [
                    {"role": str(m.get("role", "")), "content": _text_of(m.get("content"))}
                    for m in body.get("messages", [])
                ]
                text = server.responder(messages)
                prompt_tokens = sum(_rough_tokens(m["content"]) for m in messages)
                completion_tokens = _rough_tokens(text)
                self._reply(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt_tokens,
                            "completion_tokens": completion_tokens,
                            "total_tokens": prompt_tokens + completion_tokens,
                        },
                    },
                )

            def _anthropic(self, body: dict[str, Any]) -> None:
                messages: list[dict[str, str]] = []
                system = _text_of(body.get("system"))
                if system:
                    messages.append({"role": "system", "content": system})
                messages.extend(
                    {"role": str(m.get("role", "")), "content": _text_of(m.get("content"))}
                    for m in body.get("messages", [])
                )
                text = server.responder(messages)
                input_tokens = sum(_rough_tokens(m["content"]) for m in messages)
                output_tokens = _rough_tokens(text)
                self._reply(
                    200,
                    {
                        "id": f"msg_{len(server.requests)}",
                        "type": "message",
                        "role": "assistant",
                        "model": body.get("model", ""),
                        "content": [{"type": "text", "text": text}],
                        "stop_reason": "end_turn",
                        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
                    },
                )

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="local-chat-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> LocalChatServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
