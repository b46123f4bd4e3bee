"""HTTP webhook validators: POST the proposal, read `{"valid": bool, "message": str}`."""

from __future__ import annotations

from typing import Any

import httpx

from engram_server.lifecycle.policy import WebhookSpec
from engram_server.lifecycle.validators import WebhookVerdict
from engram_server.platform.egress import EgressPolicy, GuardedTransport


class HttpWebhookCaller:
    """One shared HTTP client; the per-hook timeout is applied per request.

    Webhook URLs come from tenants: every request goes through the egress guard,
    and redirects are never followed (a redirect is a non-200 answer, so the
    validator fails).
    """

    def __init__(self, egress: EgressPolicy) -> None:
        self._client = httpx.AsyncClient(follow_redirects=False, transport=GuardedTransport(egress))

    async def __call__(self, hook: WebhookSpec, payload: dict[str, Any]) -> WebhookVerdict:
        response = await self._client.post(
            hook.url,
            json=payload,
            timeout=hook.timeout_ms / 1000.0,
            headers={"user-agent": "engram-validator/1"},
        )
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code}")
        body = response.json()
        if not isinstance(body, dict) or not isinstance(body.get("valid"), bool):
            raise RuntimeError('response must be JSON {"valid": bool, "message": str}')
        return WebhookVerdict(valid=body["valid"], message=str(body.get("message", "")))

    async def close(self) -> None:
        await self._client.aclose()
