"""Any OpenAI-compatible chat completions API: `POST {base_url}/chat/completions`.

OpenAI itself and the servers that copy its API (vLLM, Ollama, llama.cpp server,
LiteLLM, most hosted gateways). JSON mode (`response_format: json_object`) is
asked for by default; servers that do not know it can be used with
`json_mode=False`, since the reply is validated against the schema either way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from engram_server.llm import ChatMessage, LLMConfig, LLMError
from engram_server.llm.base import HTTPChatModel, ProviderReply, token_count


class OpenAIChatModel(HTTPChatModel):
    provider: str = "openai"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"

    def __init__(self, config: LLMConfig, *, json_mode: bool = True, **options: Any) -> None:
        super().__init__(config, **options)
        self.json_mode = json_mode

    def _endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}

    def _request_body(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        return body

    def _parse(self, payload: Any) -> ProviderReply:
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError("openai reply has no choices[0].message.content") from None
        if not isinstance(content, str):
            raise LLMError("openai reply content is not text")
        usage = payload.get("usage") if isinstance(payload, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        return ProviderReply(
            content,
            token_count(usage.get("prompt_tokens")),
            token_count(usage.get("completion_tokens")),
        )
