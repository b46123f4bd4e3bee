"""Webhook validators over real HTTP: pass, fail, critical, and timeouts."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2

from tests.lifecycle_helpers import ACTIVE, PENDING, REJECTED, propose

# Words a webhook may answer with that PostgreSQL text cannot hold (a NUL, a lone
# surrogate, which JSON can spell as escapes) or that have no bound.
_ODD_MESSAGES = {
    "/nul": "held\u0000back",
    "/surrogate": "held \ud800 back",
    "/long": "held back " + "x" * 100_000,
}


class _Validator(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        content = body["proposal"]["content"]
        if self.path == "/slow":
            time.sleep(1.0)
        verdict = {"valid": "forbidden" not in content, "message": "mentions a forbidden word"}
        if self.path in _ODD_MESSAGES:
            verdict = {"valid": False, "message": _ODD_MESSAGES[self.path]}
        if self.path == "/broken":
            self.send_response(500)
            self.end_headers()
            return
        payload = json.dumps(verdict).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def validator_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Validator)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


async def _policy(t: Any, space: str, *hooks: lifecycle_pb2.WebhookValidator) -> None:
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name=f"spaces/{space}/policy", webhooks=list(hooks))
        )
    )


async def test_webhook_verdicts(make_tenant: Any, validator_url: str) -> None:
    t = await make_tenant()
    await _policy(
        t,
        "soft",
        lifecycle_pb2.WebhookValidator(
            name="words", url=f"{validator_url}/check", timeout_ms=2000, critical=False
        ),
    )
    await _policy(
        t,
        "hard",
        lifecycle_pb2.WebhookValidator(
            name="words", url=f"{validator_url}/check", timeout_ms=2000, critical=True
        ),
    )
    assert (await propose(t.lifecycle, "soft", "a fine fact")).memory.status == ACTIVE
    held = await propose(t.lifecycle, "soft", "a forbidden fact")
    assert held.memory.status == PENDING
    assert held.failures[0].validator == "words"
    assert "forbidden word" in held.failures[0].message
    assert (await propose(t.lifecycle, "hard", "a forbidden fact")).memory.status == REJECTED


async def test_webhook_timeout_and_errors_count_as_failures(
    make_tenant: Any, validator_url: str
) -> None:
    t = await make_tenant()
    await _policy(
        t,
        "slow",
        lifecycle_pb2.WebhookValidator(
            name="slow", url=f"{validator_url}/slow", timeout_ms=200, critical=True
        ),
    )
    await _policy(
        t,
        "broken",
        lifecycle_pb2.WebhookValidator(
            name="broken", url=f"{validator_url}/broken", timeout_ms=2000, critical=False
        ),
    )
    started = time.monotonic()
    slow = await propose(t.lifecycle, "slow", "anything")
    assert time.monotonic() - started < 0.9, "the validator's timeout bounds the wait"
    assert slow.memory.status == REJECTED and "timed out" in slow.failures[0].message
    broken = await propose(t.lifecycle, "broken", "anything")
    assert broken.memory.status == PENDING and "HTTP 500" in broken.failures[0].message


@pytest.mark.parametrize("path", sorted(_ODD_MESSAGES))
async def test_a_webhook_message_is_stored_as_text_postgresql_holds(
    make_tenant: Any, validator_url: str, path: str
) -> None:
    t = await make_tenant()
    await _policy(
        t,
        "odd",
        lifecycle_pb2.WebhookValidator(
            name="odd", url=f"{validator_url}{path}", timeout_ms=2000, critical=False
        ),
    )
    held = await propose(t.lifecycle, "odd", "anything")
    assert held.memory.status == PENDING
    message = held.failures[0].message
    assert message.startswith("held") and "\x00" not in message
    assert len(message) <= 1024
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=held.memory.name))
    assert got.status == PENDING
