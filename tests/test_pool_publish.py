"""Publishing through the gate, review, withdrawal, visibility, and the home space
reaching every pool at once."""

from __future__ import annotations

from typing import Any

import grpc
from engram.v1 import lifecycle_pb2, pool_pb2, types_pb2

from tests.pool_helpers import OWNER, READER, WRITER, expect, make_agent

NF = grpc.StatusCode.NOT_FOUND
PD = grpc.StatusCode.PERMISSION_DENIED


async def _team(make_tenant: Any, **pool: Any) -> tuple[Any, Any, Any, Any]:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writer = await make_agent(t, "writer")
    reader = await make_agent(t, "reader")
    await owner.create_pool("p", **pool)
    await owner.add("pools/p", "writer", WRITER)
    await owner.add("pools/p", "reader", READER)
    return t, owner, writer, reader


async def test_gate_publishes_holds_and_refuses(make_tenant: Any) -> None:
    gate = pool_pb2.PublishGate(
        min_utility=0.3,
        allowed_kinds=[types_pb2.MEMORY_KIND_SEMANTIC, types_pb2.MEMORY_KIND_PROCEDURAL],
        review_below_trust=0.4,
    )
    _, _owner, writer, reader = await _team(make_tenant, gate=gate)
    good = await writer.remember("w", "Deploys need two approvals", importance=0.8)
    low = await writer.remember("w", "Maybe the cache is warm", confidence=0.2, importance=0.5)
    episode = await writer.remember(
        "w", "We met on Tuesday", kind=types_pb2.MEMORY_KIND_EPISODIC, importance=0.9
    )
    published = await writer.publish("pools/p", good.name, topic="ops")
    assert published.outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED
    pub = published.publication
    assert pub.state == pool_pb2.PUBLICATION_STATE_PUBLISHED and pub.topic == "ops"
    assert pub.publisher == "writer" and abs(pub.utility - 0.9 * 0.8) < 1e-9
    again = await writer.publish("pools/p", good.name)
    assert again.outcome == pool_pb2.PUBLISH_OUTCOME_ALREADY_PUBLISHED
    assert again.publication.name == pub.name
    refused = await writer.publish("pools/p", low.name)
    assert refused.outcome == pool_pb2.PUBLISH_OUTCOME_REFUSED
    assert [f.rule for f in refused.findings] == ["min_utility"]
    assert refused.findings[0].refuses and not refused.HasField("publication")
    kinds = await writer.publish("pools/p", episode.name)
    assert [f.rule for f in kinds.findings] == ["allowed_kinds"]
    # Readers cannot publish; the gate never sees their offer.
    mine = await reader.remember("r", "Readers know things too", importance=0.9)
    await expect(PD, reader.publish("pools/p", mine.name))
    # A retracted memory is refused by the gate.
    gone = await writer.remember("w", "Short lived fact", importance=0.9)
    await writer.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=gone.name, reason="wrong")
    )
    status = await writer.publish("pools/p", gone.name)
    assert [f.rule for f in status.findings] == ["memory_status"]


async def test_review_held_publications(make_tenant: Any) -> None:
    _, owner, writer, reader = await _team(
        make_tenant, gate=pool_pb2.PublishGate(require_review=True)
    )
    memory = await writer.remember("w", "The on-call rota changes on Mondays", importance=0.9)
    held = await writer.publish("pools/p", memory.name)
    assert held.outcome == pool_pb2.PUBLISH_OUTCOME_HELD_FOR_REVIEW
    assert [f.rule for f in held.findings] == ["require_review"]
    name = held.publication.name
    # Not readable by readers while held; the publisher and owners see it.
    await expect(NF, reader.pool.GetPublication(pool_pb2.GetPublicationRequest(name=name)))
    assert (
        await writer.pool.GetPublication(pool_pb2.GetPublicationRequest(name=name))
    ).name == name
    listed = await reader.pool.ListPublications(pool_pb2.ListPublicationsRequest(parent="pools/p"))
    assert list(listed.publications) == []
    # Only owners review.
    await expect(
        PD,
        writer.pool.ReviewPublication(
            pool_pb2.ReviewPublicationRequest(name=name, decision=pool_pb2.REVIEW_DECISION_APPROVE)
        ),
    )
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        owner.pool.ReviewPublication(
            pool_pb2.ReviewPublicationRequest(name=name, decision=pool_pb2.REVIEW_DECISION_REJECT)
        ),
    )
    approved = await owner.pool.ReviewPublication(
        pool_pb2.ReviewPublicationRequest(
            name=name, decision=pool_pb2.REVIEW_DECISION_APPROVE, note="checked"
        )
    )
    assert approved.state == pool_pb2.PUBLICATION_STATE_PUBLISHED and approved.reviewer == "owner"
    # Reviewing what is not held: FAILED_PRECONDITION.
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        owner.pool.ReviewPublication(
            pool_pb2.ReviewPublicationRequest(name=name, decision=pool_pb2.REVIEW_DECISION_APPROVE)
        ),
    )
    got = await reader.pool.GetPublication(pool_pb2.GetPublicationRequest(name=name))
    assert got.state == pool_pb2.PUBLICATION_STATE_PUBLISHED
    # The reader cannot withdraw another's publication; its publisher can.
    await expect(PD, reader.pool.UnpublishMemory(pool_pb2.UnpublishMemoryRequest(name=name)))
    withdrawn = await writer.pool.UnpublishMemory(
        pool_pb2.UnpublishMemoryRequest(name=name, reason="outdated")
    )
    assert withdrawn.state == pool_pb2.PUBLICATION_STATE_WITHDRAWN
    assert withdrawn.withdraw_reason == "outdated"
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        writer.pool.UnpublishMemory(pool_pb2.UnpublishMemoryRequest(name=name)),
    )


async def test_visibility(make_tenant: Any) -> None:
    t, owner, writer, reader = await _team(make_tenant)
    outsider = await make_agent(t, "outsider")
    m1 = await writer.remember("w", "Draft: the migration plan", importance=0.9)
    m2 = await owner.remember("o", "Announcement: office closed Friday", importance=0.9)
    draft = await writer.publish(
        "pools/p", m1.name, visibility=pool_pb2.PUBLICATION_VISIBILITY_CONTRIBUTORS
    )
    # TENANT visibility needs the OWNER role.
    await expect(
        PD,
        writer.publish("pools/p", m1.name, visibility=pool_pb2.PUBLICATION_VISIBILITY_TENANT),
    )
    announcement = await owner.publish(
        "pools/p", m2.name, visibility=pool_pb2.PUBLICATION_VISIBILITY_TENANT
    )
    d, a = draft.publication.name, announcement.publication.name
    await expect(NF, reader.pool.GetPublication(pool_pb2.GetPublicationRequest(name=d)))
    assert (await writer.pool.GetPublication(pool_pb2.GetPublicationRequest(name=d))).name == d
    # Anyone of the tenant reads a TENANT publication, but never lists the pool.
    assert (await outsider.pool.GetPublication(pool_pb2.GetPublicationRequest(name=a))).name == a
    await expect(NF, outsider.pool.GetPublication(pool_pb2.GetPublicationRequest(name=d)))
    await expect(
        NF, outsider.pool.ListPublications(pool_pb2.ListPublicationsRequest(parent="pools/p"))
    )
    seen = await reader.pool.ListPublications(pool_pb2.ListPublicationsRequest(parent="pools/p"))
    assert [p.name for p in seen.publications] == [a]
    seen = await writer.pool.ListPublications(pool_pb2.ListPublicationsRequest(parent="pools/p"))
    assert {p.name for p in seen.publications} == {a, d}


async def test_home_space_reaches_the_pool_at_once(make_tenant: Any) -> None:
    _, owner, writer, reader = await _team(make_tenant)
    m = await writer.remember(
        "w", "The API rate limit is 100/s", importance=0.9, slot_key="api::limit"
    )
    pub = (await writer.publish("pools/p", m.name)).publication
    # Superseded in its home space (a newer memory of the slot): withdrawn at once.
    newer = await writer.remember(
        "w", "The API rate limit is 200/s", importance=0.9, slot_key="api::limit"
    )
    got = await reader.pool.GetPublication(pool_pb2.GetPublicationRequest(name=pub.name))
    assert got.state == pool_pb2.PUBLICATION_STATE_WITHDRAWN
    assert got.withdraw_reason == "memory superseded"
    pub2 = (await writer.publish("pools/p", newer.name)).publication
    await writer.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=newer.name, reason="bad")
    )
    got = await reader.pool.GetPublication(pool_pb2.GetPublicationRequest(name=pub2.name))
    assert got.state == pool_pb2.PUBLICATION_STATE_WITHDRAWN
    assert got.withdraw_reason == "memory retracted"
    # The memory itself is untouched by publishing: the same revision, the same space.
    stored = await writer.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
    assert stored.space == "w" and stored.revision == m.revision
    # An owner may withdraw anyone's publication.
    m3 = await writer.remember("w", "Keep the runbook in the wiki", importance=0.9)
    pub3 = (await writer.publish("pools/p", m3.name)).publication
    out = await owner.pool.UnpublishMemory(pool_pb2.UnpublishMemoryRequest(name=pub3.name))
    assert out.state == pool_pb2.PUBLICATION_STATE_WITHDRAWN
    _ = OWNER


async def test_privacy_recheck_refuses(make_tenant: Any) -> None:
    t, _owner, writer, _reader = await _team(make_tenant)
    # The space allows e-mail addresses; the pool re-checks without that allowance.
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/w/policy", allowed_personal_data=["email"])
        )
    )
    m = await writer.remember("w", "Write to jane.doe@example.com for access", importance=0.9)
    assert "jane.doe@example.com" in m.content
    refused = await writer.publish("pools/p", m.name)
    assert refused.outcome == pool_pb2.PUBLISH_OUTCOME_REFUSED
    assert [f.rule for f in refused.findings] == ["privacy"]
