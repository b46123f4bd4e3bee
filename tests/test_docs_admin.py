"""docs/admin.md runs as written: the bootstrap token (the platform-admin key)
creates a tenant and a key, the key writes, usage counts it, deletion purges it."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import Stack
from tests.docs_examples import delete_tenant_if_left, run_page


async def test_the_admin_page_runs(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    address = stack.server.address
    monkeypatch.setenv("ENGRAM_ADDRESS", address)
    monkeypatch.setenv("ENGRAM_BOOTSTRAP_TOKEN", stack.platform_key)
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    try:
        namespace = await asyncio.to_thread(run_page, "admin.md")
    finally:
        await asyncio.to_thread(delete_tenant_if_left, address, stack.platform_key, "acme")
    assert (namespace["tenant"].name, namespace["tenant"].display_name) == (
        "tenants/acme",
        "Acme Corp",
    )
    created = namespace["created"]
    assert created.secret.startswith("egk_")
    assert (created.api_key.scopes, created.api_key.agent) == (("read", "write"), "planner-1")
    usage = namespace["usage"]
    assert (usage.live_memories, usage.active_api_keys) == (1, 1)
    deleted = namespace["deleted"].deleted_rows
    assert (deleted["memories"], deleted["api_keys"]) == (1, 1)
