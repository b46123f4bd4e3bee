"""docs/llm.md runs as written: a tenant's own LLM (the suite's local
OpenAI-compatible server) serves the tenant's Learn call, the key stays write-only,
usage counts the tokens, and clearing the settings removes them."""

from __future__ import annotations

import asyncio
import json

import pytest

from tests.conftest import Stack
from tests.docs_examples import delete_tenant_if_left, run_page
from tests.llm_server import LocalChatServer

ACME_KEY = "sk-acme-docs-0123456789abcdef"
FACTS = {
    "facts": [
        {
            "content": "The user moved to Lisbon last month.",
            "kind": "semantic",
            "importance": 0.8,
            "slot_key": "user::location",
            "source_turns": [0],
        }
    ]
}


async def test_the_llm_page_runs(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    address = stack.server.address
    monkeypatch.setenv("ENGRAM_ADDRESS", address)
    monkeypatch.setenv("ENGRAM_BOOTSTRAP_TOKEN", stack.platform_key)
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    monkeypatch.setenv("ACME_LLM_KEY", ACME_KEY)
    with LocalChatServer(lambda messages: json.dumps(FACTS)) as chat:
        monkeypatch.setenv("ACME_LLM_URL", chat.url)
        try:
            namespace = await asyncio.to_thread(run_page, "llm.md")
        finally:
            await asyncio.to_thread(delete_tenant_if_left, address, stack.platform_key, "acme")
    llm = namespace["tenant"].llm
    assert (llm.provider, llm.base_url, llm.model) == ("openai", chat.url, "Qwen2.5-7B-Instruct")
    assert llm.api_key_set and llm.api_key == "" and ACME_KEY not in repr(namespace["tenant"])
    # The Learn call went to acme's model, with acme's key.
    assert chat.requests, "the tenant's LLM was never called"
    assert {r["_headers"]["authorization"] for r in chat.requests} == {f"Bearer {ACME_KEY}"}
    assert {r["model"] for r in chat.requests} == {"Qwen2.5-7B-Instruct"}
    assert [r.memory.attributes["learned_by"] for r in namespace["learned"].results] == ["llm"]
    assert list(namespace["usage"].llm_tokens) == ["openai"]
    assert namespace["usage"].llm_tokens["openai"] > 0
    assert namespace["cleared"].llm is None
