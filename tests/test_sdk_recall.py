"""RecallService through the SDK against the real server: recall, build_context,
snapshots and the index status, on both clients; admin methods on the client itself;
the key sent on every call.

The server runs on the session's event loop, so the blocking `engram.Client` is
driven from a worker thread.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any, TypeVar

import engram
import pytest

_T = TypeVar("_T")
SPACE = "team-a/agent-7"


async def in_thread(fn: Callable[[], _T]) -> _T:
    return await asyncio.to_thread(fn)


async def test_sync_client_recalls_builds_context_and_snapshots(
    server: Any, make_tenant: Any
) -> None:
    tenant = await make_tenant()
    with engram.Client(server.address, tenant.secret) as client:
        results = await in_thread(
            lambda: client.batch_propose(
                [
                    {"space": SPACE, "content": "Alice prefers Go for backend services"},
                    {"space": SPACE, "content": "Bob writes his tools in Rust", "tags": ["bob"]},
                    {"space": SPACE, "content": "Deploys happen on Tuesdays", "kind": "procedural"},
                ]
            )
        )
        alice = results[0].memory
        assert alice is not None

        found = await in_thread(
            lambda: client.recall(
                "which language does Alice like?", SPACE, k=2, read_your_writes=True
            )
        )
        assert isinstance(found, engram.RecallResult) and len(found) >= 1
        best = next(iter(found))
        assert best.memory.name == alice.name
        assert best.breakdown is not None and best.breakdown.base_score > 0
        assert found.embedding_model and found.pending_index_items == 0

        only_bob = await in_thread(
            lambda: client.recall("who writes tools?", [SPACE], tags=["bob"], read_your_writes=True)
        )
        assert [h.memory.content for h in only_bob] == ["Bob writes his tools in Rust"]

        block = await in_thread(
            lambda: client.build_context(
                "what language for the backend?", SPACE, token_budget=200, read_your_writes=True
            )
        )
        assert "Alice prefers Go" in str(block) and block.token_count <= 200
        assert alice.name in block.cited_memories and block.tokenizer

        named = await in_thread(
            lambda: client.build_context(memories=[alice.id], format="plain", token_budget=100)
        )
        assert named.cited_memories == (alice.name,) and "Alice prefers Go" in named.text

        snapshot = await in_thread(
            lambda: client.create_snapshot(
                SPACE, snapshot_id="before", description="three facts", labels={"k": "v"}
            )
        )
        assert snapshot.name == "snapshots/before" and snapshot.memory_count == 3
        assert (await in_thread(lambda: client.get_snapshot("before"))) == snapshot
        listed = await in_thread(lambda: list(client.list_snapshots(SPACE)))
        assert [s.name for s in listed] == ["snapshots/before"]

        await in_thread(lambda: client.propose(SPACE, "Carol joined the team"))
        diff = await in_thread(lambda: client.diff_snapshots("before"))
        assert (diff.added_count, diff.removed_count, diff.changed_count) == (1, 0, 0)
        assert diff.changes[0].change_type is engram.SnapshotChangeType.ADDED
        assert diff.changes[0].after is not None
        assert diff.changes[0].after.content == "Carol joined the team"

        dry = await in_thread(lambda: client.restore_snapshot("before", validate_only=True))
        assert dry.validate_only and dry.retracted_count == 1
        restored = await in_thread(lambda: client.restore_snapshot("before", reason="undo"))
        assert restored.retracted_count == 1 and restored.unchanged_count == 3

        status = await in_thread(client.index_status)
        assert status.embedding_model and status.embedding_dimension > 0

        await in_thread(lambda: client.delete_snapshot("before"))
        with pytest.raises(engram.NotFound):
            await in_thread(lambda: client.get_snapshot("before"))


async def test_async_client_recalls_and_snapshots(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        await client.propose(SPACE, "The staging database is Postgres 16")
        found = await client.recall("which database in staging?", SPACE, read_your_writes=True)
        assert [h.memory.content for h in found][:1] == ["The staging database is Postgres 16"]
        block = await client.build_context(
            "staging database", SPACE, token_budget=100, format=engram.ContextFormat.XML
        )
        assert "<memories" in block.text
        snapshot = await client.create_snapshot(SPACE)
        assert [s.name async for s in client.list_snapshots()] == [snapshot.name]
        diff = await client.diff_snapshots(snapshot.id)
        assert diff.changes == ()
        assert (await client.restore_snapshot(snapshot.name)).unchanged_count == 1
        await client.delete_snapshot(snapshot.name)
        assert (await client.index_status()).embedding_dimension > 0


async def test_snapshots_of_another_tenant_are_not_found(server: Any, make_tenant: Any) -> None:
    owner, other = await make_tenant(), await make_tenant()
    async with (
        engram.AsyncClient(server.address, owner.secret) as mine,
        engram.AsyncClient(server.address, other.secret) as theirs,
    ):
        await mine.propose(SPACE, "a private fact")
        snapshot = await mine.create_snapshot(SPACE)
        with pytest.raises(engram.NotFound):
            await theirs.get_snapshot(snapshot.name)
        with pytest.raises(engram.NotFound):
            await theirs.diff_snapshots(snapshot.name)
        found = await theirs.recall("private fact", SPACE, read_your_writes=True)
        assert found.hits == ()


async def test_the_key_goes_with_every_call(
    server: Any, make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, api_key=None) as anonymous:
        with pytest.raises(engram.Unauthenticated):
            await anonymous.recall("anything", SPACE)
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        assert (await client.recall("anything", SPACE)).hits == ()


async def test_admin_methods_are_on_the_client_itself(server: Any, platform_key: str) -> None:
    tenant_id = f"t-{secrets.token_hex(5)}"
    with engram.Client(server.address, platform_key) as platform:
        created = await in_thread(lambda: platform.create_tenant(tenant_id, "SDK tenant"))
        assert created.tenant_id == tenant_id
        key = await in_thread(lambda: platform.create_api_key(tenant_id, ["read", "write"]))
        assert (await in_thread(lambda: platform.admin.get_tenant(tenant_id))) == created
        usage = await in_thread(lambda: platform.get_usage(tenant_id))
        assert usage.active_api_keys == 1
        await in_thread(lambda: platform.delete_tenant(tenant_id))
    assert key.secret


async def test_groups_through_both_clients(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    with engram.Client(server.address, tenant.secret) as client:
        group = await in_thread(
            lambda: client.create_group("reviewers", "Reviewers", members=["agent-a"])
        )
        assert isinstance(group, engram.Group) and group.name == "groups/reviewers"
        assert group.members == ("agent-a",)
        grown = await in_thread(lambda: client.add_group_member("reviewers", "agent-b"))
        assert set(grown.members) == {"agent-a", "agent-b"}
    async with engram.AsyncClient(server.address, tenant.secret) as aclient:
        assert [g.id async for g in aclient.list_groups()] == ["reviewers"]
        shrunk = await aclient.remove_group_member("groups/reviewers", "agent-a")
        assert shrunk.members == ("agent-b",)
        assert (await aclient.get_group("reviewers")).display_name == "Reviewers"
        await aclient.delete_group("reviewers")
        with pytest.raises(engram.NotFound):
            await aclient.get_group("reviewers")
