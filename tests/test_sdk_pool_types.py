"""The SDK's pool calls return the dataclasses of `engram.pool_types`, converted
from what a real server sends: enums as StrEnums, times as aware datetimes, nested
memories as `engram.Memory`, streams yielding `SyncEvent` / `TopicEvent`, and every
result JSON-ready through `engram.to_dict`."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, timedelta
from typing import Any

import engram
import pytest
from engram.v1 import pool_pb2


def _json(value: Any) -> dict[str, Any]:
    data = engram.to_dict(value)
    assert "raw" not in data
    json.dumps(data)  # JSON-ready: no datetime, enum or message left
    return data  # type: ignore[no-any-return]


async def test_sync_pool_calls_return_pool_dataclasses(server: Any, make_tenant: Any) -> None:
    t = await make_tenant()
    owner_secret = await t.new_key(scopes=("read", "write"), agent="typed/owner")
    reader_secret = await t.new_key(scopes=("read", "write"), agent="typed/reader")

    def walk() -> None:
        with (
            engram.Client(server.address, owner_secret) as c,
            engram.Client(server.address, reader_secret) as r,
        ):
            gate = engram.pool.gate(allowed_kinds=["semantic"], review_below_trust=0.1)
            assert gate.allowed_kinds == (engram.MemoryKind.SEMANTIC,)
            pool = c.pools.create(
                "Typed",
                pool_id="typed",
                gate=gate,
                default_visibility="pool",
                quick_invalidation_window=timedelta(hours=2),
                labels={"team": "blue"},
            )
            assert isinstance(pool, engram.Pool)
            assert (pool.name, pool.id, pool.labels) == ("pools/typed", "typed", {"team": "blue"})
            assert pool.gate.allowed_kinds == (engram.MemoryKind.SEMANTIC,)
            assert pool.gate.review_below_trust == pytest.approx(0.1)
            assert isinstance(pool.gate.review_below_evidence_level, engram.EvidenceLevel)
            assert pool.default_visibility is engram.PublicationVisibility.POOL
            assert pool.quick_invalidation_window == timedelta(hours=2)
            assert pool.create_time is not None and pool.create_time.tzinfo == UTC
            assert isinstance(pool.raw, pool_pb2.Pool)
            data = _json(pool)
            assert data["default_visibility"] == "POOL"
            assert data["gate"]["allowed_kinds"] == ["SEMANTIC"]
            assert data["quick_invalidation_window"] == 7200.0

            member = c.pools.add_member("typed", "typed/reader", engram.PoolRole.READER)
            assert isinstance(member, engram.PoolMember)
            assert member.role is engram.PoolRole.READER
            assert _json(member)["role"] == "READER"
            roles = {m.principal: m.role for m in c.pools.members("typed")}
            assert roles == {"typed/owner": engram.PoolRole.OWNER, "typed/reader": "READER"}

            memory = c.propose("typed/space", "Typed pools share typed memories").memory
            published = c.pools.publish("typed", memory.name, topic="news")
            assert isinstance(published, engram.PublishResult)
            assert published.published and not published.held and not published.refused
            assert published.outcome is engram.PublishOutcome.PUBLISHED
            publication = published.publication
            assert isinstance(publication, engram.Publication)
            assert publication.state is engram.PublicationState.PUBLISHED
            assert publication.memory == memory.name and publication.topic == "news"
            assert _json(published)["publication"]["state"] == "PUBLISHED"
            assert r.pools.get_publication(publication.name) == publication

            episode = c.propose("typed/space", "An episode", kind="episodic").memory
            refused = c.pools.publish("typed", episode.name)
            assert refused.refused and refused.publication is None
            assert refused.findings and all(
                isinstance(f, engram.GateFinding) for f in refused.findings
            )
            assert any(f.refuses for f in refused.findings)

            (topic,) = r.pools.topics("typed")
            assert isinstance(topic, engram.Topic) and topic.topic == "news"
            assert topic.publication_count == 1 and topic.last_publish_time is not None

            trust = r.pools.trust(
                next(m.name for m in c.pools.members("typed", principal="typed/owner"))
            )
            assert isinstance(trust, engram.AgentTrust) and trust.published_count == 1
            assert [x.principal for x in r.pools.trusts("typed")] == ["typed/owner"]

            # The sync stream: a typed delta carrying an engram.Memory, then caught up.
            events = list(r.pools.sync("typed"))
            assert all(isinstance(e, engram.SyncEvent) for e in events)
            assert events[-1].caught_up and events[-1].delta is None
            delta = events[0].delta
            assert isinstance(delta, engram.SlotDelta)
            assert delta.op is engram.SlotDeltaOp.ADD and delta.old_memory is None
            assert isinstance(delta.new_memory, engram.Memory)
            assert delta.new_memory.content == memory.content
            assert delta.publication == publication.name
            assert _json(events[0])["delta"]["op"] == "ADD"

            # The topic channel from its first event.
            stream = r.pools.subscribe("typed", "news", cursor="0")
            first = next(stream)
            stream.close()  # type: ignore[attr-defined]
            assert isinstance(first, engram.TopicEvent)
            assert first.event_type is engram.TopicEventType.PUBLISHED
            assert first.publication == publication
            assert isinstance(first.memory, engram.Memory) and first.memory.name == memory.name
            assert _json(first)["event_type"] == "PUBLISHED"

            withdrawn = c.pools.unpublish(publication.name, "done")
            assert withdrawn.state is engram.PublicationState.WITHDRAWN
            assert withdrawn.withdraw_reason == "done"
            listed = list(c.pools.publications("typed", states=[engram.PublicationState.WITHDRAWN]))
            assert [p.name for p in listed] == [publication.name]

            updated = c.pools.update("typed", gate=engram.pool.gate(require_review=True))
            assert updated.gate.require_review and updated.gate.allowed_kinds == ()
            other = c.propose("typed/space", "Held for a human to look at").memory
            held = c.pools.publish("typed", other.name)
            assert held.held and held.publication is not None
            assert held.publication.state is engram.PublicationState.PENDING_REVIEW
            rejected = c.pools.review(held.publication.name, approve=False, note="no")
            assert rejected.state is engram.PublicationState.REJECTED
            assert [p.name for p in c.pools.list()] == ["pools/typed"]
            answer = r.pools.recall("typed memories", ["typed"], read_your_writes=True)
            assert isinstance(answer, engram.RecallResult)

    await asyncio.to_thread(walk)


async def test_async_pool_calls_return_pool_dataclasses(server: Any, make_tenant: Any) -> None:
    t = await make_tenant()
    secret = await t.new_key(scopes=("read", "write"), agent="typed/async")
    async with engram.AsyncClient(server.address, secret) as c:
        pool = await c.create_pool("Async typed", pool_id="atyped")
        assert isinstance(pool, engram.Pool) and pool.quick_invalidation_window is not None
        memory = (await c.propose("typed/async", "Async pools are typed")).memory
        published = await c.publish_memory("atyped", memory.name, topic="t")
        assert published.published and published.publication is not None
        assert [type(p) async for p in c.list_publications("atyped")] == [engram.Publication]
        assert [type(p) async for p in c.list_pools()] == [engram.Pool]
        events = [e async for e in c.sync_pool("atyped")]
        assert [type(e) for e in events] == [engram.SyncEvent, engram.SyncEvent]
        assert events[0].delta is not None and events[0].delta.new_memory is not None
        assert events[0].delta.new_memory.name == memory.name
        stream = c.subscribe_topic("atyped", "t", cursor="0")
        first = await anext(stream)
        await stream.aclose()  # type: ignore[attr-defined]
        assert isinstance(first, engram.TopicEvent) and first.publication is not None
        assert first.publication.name == published.publication.name


def test_a_bad_gate_is_refused_before_sending() -> None:
    with pytest.raises(engram.InvalidArgument) as caught:
        engram.pool.gate(allowed_kinds=["gossip"])
    assert caught.value.fields == ["gate.allowed_kinds[0]"]
    with engram.Client("127.0.0.1:1") as c, pytest.raises(engram.InvalidArgument) as caught:
        c.create_pool("x", gate={"min_utility": 1})  # type: ignore[arg-type]
    assert caught.value.fields == ["pool.gate"]
