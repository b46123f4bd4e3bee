"""LLM providers behind one interface: OpenAI-compatible chat and Anthropic.

Callers ask `LLMRegistry.for_tenant(tenant_id)` for a `ChatModel` (None when no LLM
is configured, so every caller keeps a deterministic path) and call
`complete_json`, which screens every outgoing message through the privacy
boundary, retries with backoff, validates the JSON reply against a pydantic model
and records token usage per tenant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class LLMConfig:
    """Where one tenant's (or the whole server's) LLM calls go."""

    provider: str  # "openai" (any OpenAI-compatible chat API) or "anthropic"
    base_url: str  # e.g. "https://api.openai.com/v1", "http://127.0.0.1:8000/v1"
    model: str
    api_key: str = ""
    timeout_seconds: float = 30.0


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system", "user" or "assistant"
    content: str


class LLMError(Exception):
    """The provider failed after retries, timed out, or replied with invalid output.

    The message is safe to show to the caller (it never echoes prompt content).
    """


class ChatModel(Protocol):
    provider: str  # "openai" or "anthropic"
    model: str

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: type[T],
        tenant_id: str,
        purpose: str,
        timeout_seconds: float | None = None,
    ) -> T:
        """One chat completion whose reply must be a JSON object valid for `schema`."""
        ...
