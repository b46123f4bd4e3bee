"""Trust falls for publications contradicted soon after publishing: conflicts opened
by the corroboration assessor (its deterministic judge) against published memories."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from engram.v1 import evidence_pb2, evidence_pb2_grpc, lifecycle_pb2, pool_pb2, types_pb2
from engram_server.pools.model import trust_score
from google.protobuf import duration_pb2

from tests.pool_helpers import READER, WRITER, Agent, make_agent

OFFICIAL = types_pb2.EVIDENCE_LEVEL_OFFICIAL


async def _trusts(agent: Agent, pool: str) -> dict[str, Any]:
    listed = await agent.pool.ListAgentTrusts(pool_pb2.ListAgentTrustsRequest(parent=pool))
    return {t.principal: t for t in listed.agent_trusts}


async def _trust(agent: Agent, pool: str, principal: str) -> Any:
    members = await agent.pool.ListPoolMembers(
        pool_pb2.ListPoolMembersRequest(parent=pool, principal=principal)
    )
    return await agent.pool.GetAgentTrust(
        pool_pb2.GetAgentTrustRequest(name=members.members[0].name + "/trust")
    )


async def _assess_and_apply(agent: Agent, memory: str) -> Any:
    evidence = evidence_pb2_grpc.EvidenceServiceStub(agent.channel)
    return await evidence.AssessMemory(evidence_pb2.AssessMemoryRequest(name=memory, apply=True))


async def _team(make_tenant: Any, **pool: Any) -> tuple[Any, Agent, Agent, Agent, Agent]:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    alice = await make_agent(t, "alice")
    bob = await make_agent(t, "bob")
    reader = await make_agent(t, "reader")
    await owner.create_pool("p", **pool)
    await owner.add("pools/p", "alice", WRITER)
    await owner.add("pools/p", "bob", WRITER)
    await owner.add("pools/p", "reader", READER)
    return t, owner, alice, bob, reader


async def test_a_conflict_soon_after_publishing_lowers_the_publishers_trust(
    make_tenant: Any,
) -> None:
    _t, _owner, alice, bob, reader = await _team(make_tenant)
    up = await alice.remember("ops", "The staging server is online", source="probe")
    assert (await alice.publish("pools/p", up.name)).outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED
    before = await _trust(reader, "pools/p", "alice")
    assert before.quickly_invalidated_count == 0 and before.score == pytest.approx(0.5)

    # Bob's note says the opposite; his assessment opens a conflict with Alice's.
    down = await bob.remember("ops", "The staging server is offline", source="pager")
    assessed = await _assess_and_apply(bob, down.name)
    assert sorted(assessed.conflict.memories) == sorted([up.name, down.name])

    after = await _trust(reader, "pools/p", "alice")
    assert after.quickly_invalidated_count == 1 and after.contradicted_count == 1
    assert after.score == pytest.approx(trust_score(0.5, 1, 0, 0, 1))
    assert after.score < before.score
    listed = await _trusts(reader, "pools/p")
    assert listed["alice"].contradicted_count == 1
    assert "bob" not in listed  # his memory is not published here

    # A retraction of the same publication is not counted a second time.
    await alice.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=up.name, reason="it was down after all")
    )
    again = await _trust(reader, "pools/p", "alice")
    assert again.quickly_invalidated_count == 1 and again.contradicted_count == 1


async def test_both_published_sides_count_but_an_official_memory_does_not(
    make_tenant: Any,
) -> None:
    owner_tenant, owner, alice, bob, reader = await _team(make_tenant)
    mine = await alice.remember("ops", "The build queue holds 100 jobs", source="dash")
    theirs = await bob.remember("ops", "The build queue holds 900 jobs", source="ci")
    await alice.publish("pools/p", mine.name)
    await bob.publish("pools/p", theirs.name)
    await _assess_and_apply(bob, theirs.name)
    trusts = await _trusts(reader, "pools/p")
    assert trusts["alice"].contradicted_count == 1
    assert trusts["bob"].contradicted_count == 1

    # Against an OFFICIAL memory, only the claim that contradicts it is counted.
    docs = await make_agent(owner_tenant, "docs", ("read", "write", "admin"))
    await owner.add("pools/p", "docs", WRITER)
    official = await docs.remember(
        "docs",
        "The API rate limit is 100 requests per minute",
        source="docs",
        evidence_level=OFFICIAL,
    )
    await docs.publish("pools/p", official.name)
    claim = await alice.remember(
        "docs", "The API rate limit is 500 requests per minute", source="forum"
    )
    await alice.publish("pools/p", claim.name)
    pinned = await _assess_and_apply(alice, claim.name)
    assert pinned.conflict.detector == "official_pin"
    trusts = await _trusts(reader, "pools/p")
    assert trusts["alice"].contradicted_count == 2
    assert trusts["docs"].contradicted_count == 0
    assert trusts["docs"].quickly_invalidated_count == 0


async def test_a_conflict_after_the_window_does_not_count(make_tenant: Any) -> None:
    _t, _owner, alice, bob, reader = await _team(
        make_tenant, quick_invalidation_window=duration_pb2.Duration(seconds=1)
    )
    up = await alice.remember("ops", "The staging server is online", source="probe")
    await alice.publish("pools/p", up.name)
    await asyncio.sleep(1.5)  # past the pool's one-second window
    down = await bob.remember("ops", "The staging server is offline", source="pager")
    assessed = await _assess_and_apply(bob, down.name)
    assert sorted(assessed.conflict.memories) == sorted([up.name, down.name])
    trust = await _trust(reader, "pools/p", "alice")
    assert trust.quickly_invalidated_count == 0 and trust.contradicted_count == 0
    assert trust.score == pytest.approx(0.5)
