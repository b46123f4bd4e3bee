"""Recall, BuildContext and Engage over pools; automatic trust."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, pool_pb2, recall_pb2

from tests.pool_helpers import READER, RYW, WRITER, eventually, expect, make_agent

# Against the embedded engine, and a real Qdrant server when ENGRAM_TEST_QDRANT_URL is set.
pytestmark = pytest.mark.vector_backends


async def _setup(make_tenant: Any) -> tuple[Any, Any, Any, Any]:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writer = await make_agent(t, "writer")
    reader = await make_agent(t, "reader")
    for pool in ("p", "q"):
        await owner.create_pool(pool)
        await owner.add(f"pools/{pool}", "writer", WRITER)
        await owner.add(f"pools/{pool}", "reader", READER)
    return t, owner, writer, reader


async def test_pool_recall_one_ranking_with_trust(make_tenant: Any) -> None:
    _t, _owner, writer, reader = await _setup(make_tenant)
    shared = await writer.remember(
        "w", "The staging cluster restarts every night at 2am", importance=0.9, topic="ops"
    )
    private = await writer.remember("w", "The staging password rotates weekly", importance=0.9)
    mine = await reader.remember("r", "I restart staging by hand when it hangs", importance=0.9)
    await writer.publish("pools/p", shared.name)
    await writer.publish("pools/q", shared.name)  # in two pools: appears once
    hits = (
        await reader.recall.Recall(
            recall_pb2.RecallRequest(
                query="when does staging restart",
                spaces=["r"],
                pools=["pools/p", "pools/q"],
                k=10,
                consistency=RYW,
            )
        )
    ).hits
    names = [h.memory.name for h in hits]
    assert shared.name in names and mine.name in names and private.name not in names
    assert names.count(shared.name) == 1
    by = {h.memory.name: h for h in hits}
    assert by[shared.name].pool in ("pools/p", "pools/q")
    assert abs(by[shared.name].breakdown.trust - 0.5) < 1e-9
    assert by[mine.name].pool == "" and by[mine.name].breakdown.trust == 1.0
    # The topic filter works across pools.
    only_ops = await reader.recall.Recall(
        recall_pb2.RecallRequest(
            query="staging",
            pools=["pools/p"],
            filter=recall_pb2.RecallFilter(topic="ops"),
            consistency=RYW,
        )
    )
    assert [h.memory.name for h in only_ops.hits] == [shared.name]
    # BuildContext and Engage take pools too.
    ctx = await reader.recall.BuildContext(
        recall_pb2.BuildContextRequest(
            query="staging restart",
            pools=["pools/p"],
            options=recall_pb2.ContextOptions(token_budget=500),
        )
    )
    assert "2am" in ctx.text
    # A retraction in the home space is gone from pool recall at once.
    await writer.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=shared.name, reason="cron changed")
    )
    hits = (await reader.recall_pools("when does staging restart", ["pools/p", "pools/q"])).hits
    assert shared.name not in [h.memory.name for h in hits]


async def test_pool_recall_authorisation(make_tenant: Any) -> None:
    t, owner, writer, reader = await _setup(make_tenant)
    outsider = await make_agent(t, "outsider")
    draft = await writer.remember("w", "Draft plan: move billing to Postgres 18", importance=0.9)
    note = await owner.remember("o", "Announcement: billing freeze in December", importance=0.9)
    await writer.publish(
        "pools/p", draft.name, visibility=pool_pb2.PUBLICATION_VISIBILITY_CONTRIBUTORS
    )
    await owner.publish("pools/p", note.name, visibility=pool_pb2.PUBLICATION_VISIBILITY_TENANT)

    async def seen(agent: Any) -> set[str]:
        hits = (await agent.recall_pools("billing plans", ["pools/p"])).hits
        return {h.memory.name for h in hits}

    assert await seen(writer) == {draft.name, note.name}
    assert await seen(reader) == {note.name}
    assert await seen(outsider) == {note.name}  # TENANT visibility only
    # An unknown pool is no error (recall never tells whether a pool exists).
    assert (await reader.recall_pools("billing", ["pools/nope"])).hits == []
    await expect(grpc.StatusCode.INVALID_ARGUMENT, reader.recall_pools("billing", ["nope"]))
    # Removed: its recall sees only TENANT publications from then on.
    member = (
        await owner.pool.ListPoolMembers(
            pool_pb2.ListPoolMembersRequest(parent="pools/p", principal="writer")
        )
    ).members[0]
    await owner.pool.RemovePoolMember(pool_pb2.RemovePoolMemberRequest(name=member.name))
    assert await seen(writer) == {note.name}


async def test_trust_rises_with_use_and_falls_with_quick_retractions(make_tenant: Any) -> None:
    t, owner, writer, reader = await _setup(make_tenant)
    sloppy = await make_agent(t, "sloppy")
    await owner.add("pools/p", "sloppy", WRITER)
    good = await writer.remember("w", "Incident reviews happen on Thursdays", importance=0.9)
    await writer.publish("pools/p", good.name)
    for _ in range(3):
        hits = (await reader.recall_pools("when are incident reviews", ["pools/p"], k=3)).hits
        assert hits and hits[0].memory.name == good.name
    trust_name = (
        await owner.pool.ListPoolMembers(
            pool_pb2.ListPoolMembersRequest(parent="pools/p", principal="writer")
        )
    ).members[0].name + "/trust"

    async def raised() -> Any:
        got = await reader.pool.GetAgentTrust(pool_pb2.GetAgentTrustRequest(name=trust_name))
        return got if got.used_count >= 1 else None

    trust = await eventually(raised)
    assert trust.principal == "writer" and trust.published_count == 1
    assert trust.score > 0.5
    # The publisher's own recalls do not count.
    before = trust.used_count
    await writer.recall_pools("when are incident reviews", ["pools/p"])
    bad = await sloppy.remember("s", "The VPN is down for good", importance=0.9)
    await sloppy.publish("pools/p", bad.name)
    await sloppy.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=bad.name, reason="it was not")
    )
    listed = await reader.pool.ListAgentTrusts(pool_pb2.ListAgentTrustsRequest(parent="pools/p"))
    by = {a.principal: a for a in listed.agent_trusts}
    assert by["sloppy"].quickly_invalidated_count == 1 and by["sloppy"].score < 0.5
    assert listed.agent_trusts[0].principal == "writer"
    # Low-trust publishers are held for review by a pool that asks for it.
    from google.protobuf import field_mask_pb2

    await owner.pool.UpdatePool(
        pool_pb2.UpdatePoolRequest(
            pool=pool_pb2.Pool(name="pools/p", gate=pool_pb2.PublishGate(review_below_trust=0.4)),
            update_mask=field_mask_pb2.FieldMask(paths=["gate"]),
        )
    )
    again = await sloppy.remember("s", "The VPN is up again", importance=0.9)
    held = await sloppy.publish("pools/p", again.name)
    assert held.outcome == pool_pb2.PUBLISH_OUTCOME_HELD_FOR_REVIEW
    assert [f.rule for f in held.findings] == ["review_below_trust"]
    after = await reader.pool.GetAgentTrust(pool_pb2.GetAgentTrustRequest(name=trust_name))
    assert after.used_count == before
