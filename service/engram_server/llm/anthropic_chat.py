"""The Anthropic Messages API: `POST {base_url}/messages`.

Differences from the OpenAI shape that matter here: system prompts go in a
top-level `system` field, the conversation must start with a user turn and
alternate roles (consecutive turns of one role are merged), `max_tokens` is
required, and the key travels in `x-api-key` with a pinned `anthropic-version`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from engram_server.llm import ChatMessage, LLMError
from engram_server.llm.base import HTTPChatModel, ProviderReply, token_count

ANTHROPIC_VERSION = "2023-06-01"


class AnthropicChatModel(HTTPChatModel):
    provider: str = "anthropic"
    default_base_url: ClassVar[str] = "https://api.anthropic.com/v1"

    def _endpoint(self) -> str:
        return f"{self.base_url}/messages"

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if self.config.api_key:
            headers["x-api-key"] = self.config.api_key
        return headers

    def _request_body(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        turns: list[dict[str, str]] = []
        for message in messages:
            if message.role == "system":
                continue
            role = "assistant" if message.role == "assistant" else "user"
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"] += "\n\n" + message.content
            else:
                turns.append({"role": role, "content": message.content})
        if turns and turns[0]["role"] != "user":
            turns.insert(0, {"role": "user", "content": "(conversation follows)"})
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_output_tokens,
            "messages": turns,
        }
        if system:
            body["system"] = system
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    def _parse(self, payload: Any) -> ProviderReply:
        blocks = payload.get("content") if isinstance(payload, dict) else None
        if not isinstance(blocks, list):
            raise LLMError("anthropic reply has no content blocks")
        text = "".join(
            str(block.get("text", ""))
            for block in blocks
            if isinstance(block, dict) and block.get("type") == "text"
        )
        usage = payload.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return ProviderReply(
            text,
            token_count(usage.get("input_tokens")),
            token_count(usage.get("output_tokens")),
        )
