"""The issue's scenario: three teams' agents (groups), two pools, publications through
the gate, recalls that raise one publisher's trust and retractions that lower
another's, and a follower kept in sync through a disconnect. Then the same walk
through the Python SDK and the CLI."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2, pool_pb2, types_pb2

from tests.pool_helpers import OWNER, READER, WRITER, eventually, make_admin, make_agent, make_group


async def test_three_teams_two_pools(make_tenant: Any) -> None:
    t = await make_tenant()
    admin = await make_admin(t)
    teams = {
        "red": ["red/ann", "red/arno"],
        "blue": ["blue/bea", "blue/ben"],
        "green": ["green/gus"],
    }
    agents = {n: await make_agent(t, n) for names in teams.values() for n in names}
    for team, names in teams.items():
        await make_group(admin, team, names)
    ann, bea, gus, ben = (
        agents["red/ann"],
        agents["blue/bea"],
        agents["green/gus"],
        agents["blue/ben"],
    )
    # "eng": red and blue write, green reads; "ops": red owns, green writes.
    await ann.create_pool("eng", gate=pool_pb2.PublishGate(min_utility=0.3, review_below_trust=0.3))
    await ann.add("pools/eng", "groups/red", OWNER)
    await ann.add("pools/eng", "groups/blue", WRITER)
    await ann.add("pools/eng", "groups/green", READER)
    await ann.create_pool(
        "ops", gate=pool_pb2.PublishGate(allowed_kinds=[types_pb2.MEMORY_KIND_PROCEDURAL])
    )
    await ann.add("pools/ops", "groups/green", WRITER)

    # A follower (green reads eng) syncs before anything is published.
    cursor = ""
    async for message in gus.pool.SyncPool(pool_pb2.SyncPoolRequest(pool="pools/eng")):
        cursor = message.cursor
        assert message.caught_up
        break

    good = await bea.remember(
        "blue",
        "Service X uses gRPC deadlines of 2s",
        importance=0.9,
        slot_key="service-x::deadline",
    )
    weak = await bea.remember("blue", "Service X might use Kafka", confidence=0.3, importance=0.5)
    assert (await bea.publish("pools/eng", good.name)).outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED
    assert (await bea.publish("pools/eng", weak.name)).outcome == pool_pb2.PUBLISH_OUTCOME_REFUSED
    steps = await gus.remember(
        "green",
        "Restart service X with `svc restart x`",
        importance=0.9,
        kind=types_pb2.MEMORY_KIND_PROCEDURAL,
    )
    fact = await gus.remember("green", "Service X runs three replicas", importance=0.9)
    assert (
        await gus.publish("pools/ops", steps.name)
    ).outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED
    assert (await gus.publish("pools/ops", fact.name)).outcome == pool_pb2.PUBLISH_OUTCOME_REFUSED

    # Ben publishes and retracts at once: his trust falls below the gate's review
    # threshold, so his next publication is held for an owner's review.
    m = await ben.remember("blue", "Service X is deprecated", importance=0.9)
    assert (await ben.publish("pools/eng", m.name)).outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED
    await ben.lifecycle.RetractMemory(lifecycle_pb2.RetractMemoryRequest(name=m.name, reason="no"))
    later = await ben.remember("blue", "Service X has an SLA", importance=0.9)
    held = await ben.publish("pools/eng", later.name)
    assert held.outcome == pool_pb2.PUBLISH_OUTCOME_HELD_FOR_REVIEW
    assert [f.rule for f in held.findings] == ["review_below_trust"]

    # Red and green recall the pools: Bea's publication is used, her trust rises.
    for agent in (ann, gus, agents["red/arno"]):
        hits = (
            await agent.recall_pools("what deadline does service X use", ["pools/eng", "pools/ops"])
        ).hits
        assert hits[0].memory.name == good.name and hits[0].pool == "pools/eng"

    async def trusts() -> dict[str, Any] | None:
        listed = await gus.pool.ListAgentTrusts(pool_pb2.ListAgentTrustsRequest(parent="pools/eng"))
        by = {a.principal: a for a in listed.agent_trusts}
        return by if by.get("blue/bea") and by["blue/bea"].used_count >= 3 else None

    by = await eventually(trusts)
    assert by["blue/bea"].score > 0.5 > by["blue/ben"].score
    assert by["blue/ben"].quickly_invalidated_count == 1

    # The follower was disconnected meanwhile; it resumes from its cursor.
    bea2 = await bea.remember(
        "blue",
        "Service X uses gRPC deadlines of 5s",
        importance=0.9,
        slot_key="service-x::deadline",
    )
    await bea.publish("pools/eng", bea2.name)
    deltas = []
    async for message in gus.pool.SyncPool(
        pool_pb2.SyncPoolRequest(pool="pools/eng", cursor=cursor)
    ):
        if message.caught_up:
            break
        deltas.append(message.delta)
    slots = {d.slot_key: d for d in deltas}
    assert slots["service-x::deadline"].op == pool_pb2.SLOT_DELTA_OP_ADD
    assert slots["service-x::deadline"].new_memory.content == bea2.content
    assert not any(d.new_memory.content.startswith("Service X is deprecated") for d in deltas)


async def test_sdk_and_cli_cover_every_pool_rpc(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import engram

    from tests.test_cli import json_lines, run

    t = await make_tenant()
    owner_secret = await t.new_key(scopes=("read", "write"), agent="sdk/owner")
    reader_secret = await t.new_key(scopes=("read", "write"), agent="sdk/reader")

    def walk() -> dict[str, Any]:
        with (
            engram.Client(server.address, owner_secret) as c,
            engram.Client(server.address, reader_secret) as r,
            engram.Client(server.address, t.secret) as admin,
        ):
            admin.pools.create_group("sdk-team", "SDK team", members=["sdk/reader"])
            assert [g.name for g in admin.pools.groups()] == ["groups/sdk-team"]
            pool = c.pools.create("Shared", pool_id="sdk")
            c.pools.update("sdk", etag=pool.etag, description="for the SDK test")
            c.pools.add_member("sdk", "groups/sdk-team", "writer")
            memory = c.propose("sdk/space", "The SDK publishes memories", confidence=0.9).memory
            published = c.pools.publish("sdk", memory.name, topic="news")
            assert published.outcome == engram.PublishOutcome.PUBLISHED
            name = published.publication.name
            assert r.pools.get_publication(name).memory == memory.name
            hits = r.pools.recall("what does the SDK publish", ["sdk"], read_your_writes=True).hits
            assert hits and hits[0].pool == "pools/sdk"
            assert [p.name for p in r.pools.publications("sdk")] == [name]
            assert [x.topic for x in r.pools.topics("sdk")] == ["news"]
            members = list(c.pools.members("sdk"))
            trust = r.pools.trust(next(m.name for m in members if m.principal == "sdk/owner"))
            assert trust.published_count == 1
            assert [x.principal for x in r.pools.trusts("sdk")] == ["sdk/owner"]
            synced = [m for m in r.pools.sync("sdk")]
            assert synced[-1].caught_up and synced[0].delta.new_memory.name == memory.name
            events = r.pools.subscribe("sdk", "news", cursor="0")
            first = next(events)
            events.close()  # type: ignore[attr-defined]
            assert first.publication.name == name
            c.pools.unpublish(name, "done")
            other = c.propose("sdk/space", "Held for review", confidence=0.9).memory
            c.pools.update("sdk", gate=engram.pool.gate(require_review=True))
            held = c.pools.publish("sdk", other.name)
            c.pools.review(held.publication.name, approve=False, note="not yet")
            assert [p.name for p in c.pools.list()] == ["pools/sdk"]
            assert c.pools.get("sdk").member_count == 2
            admin.pools.remove_group_member("sdk-team", "sdk/reader")
            admin.pools.add_group_member("sdk-team", "sdk/reader")
            assert admin.pools.get_group("sdk-team").members == ("sdk/reader",)
            group_member = next(
                m.name for m in c.pools.members("sdk") if m.principal.startswith("groups/")
            )
            c.pools.remove_member(group_member)
            c.pools.delete("sdk")
            admin.pools.delete_group("sdk-team")
            return {"memory": memory.name}

    await asyncio.to_thread(walk)

    conn = ("--address", server.address, "--api-key", owner_secret)
    code, out, err = await run(
        capsys, "pool", "create", "cli", "CLI pool", "--min-utility", "0.2", "--json", *conn
    )
    assert code == 0, err
    assert json.loads(out)["name"] == "pools/cli"
    code, out, err = await run(
        capsys, "memory", "propose", "cli/space", "The CLI shares too", "--confidence", "0.9", *conn
    )
    memory = out.split()[1]
    code, out, err = await run(
        capsys, "pool", "publish", "cli", memory, "--topic", "t", "--json", *conn
    )
    assert code == 0, err and json.loads(out)["outcome"] == "PUBLISH_OUTCOME_PUBLISHED"
    code, out, err = await run(capsys, "pool", "sync", "cli", *conn)
    assert code == 0 and "ADD" in out and "caught up" in out
    code, out, err = await run(capsys, "pool", "publications", "cli", *conn)
    assert code == 0 and "PUBLICATION_STATE_PUBLISHED" in out
    code, out, err = await run(capsys, "pool", "members", "cli", *conn)
    assert code == 0 and "sdk/owner" in out
    code, out, err = await run(capsys, "pool", "trusts", "cli", *conn)
    assert code == 0 and "sdk/owner" in out
    code, out, err = await run(capsys, "pool", "topics", "cli", *conn)
    assert code == 0 and out.startswith("t")
    code, out, err = await run(capsys, "pool", "get", "nope", *conn)
    assert code == 1 and "not found" in err.lower()
    # The rest of PoolService, one command each.
    code, out, err = await run(capsys, "pool", "list", *conn)
    assert code == 0 and "pools/cli" in out
    code, out, err = await run(capsys, "pool", "update", "cli", "--description", "d", *conn)
    assert code == 0, err
    code, out, err = await run(
        capsys, "pool", "add-member", "cli", "sdk/reader", "reader", "--json", *conn
    )
    assert code == 0, err
    reader_member = json.loads(out)["name"]
    code, out, err = await run(capsys, "pool", "publications", "cli", "--json", *conn)
    publication = json_lines(out)[0]["name"]
    code, out, err = await run(capsys, "pool", "publication", publication, *conn)
    assert code == 0 and memory in out
    code, out, err = await run(
        capsys, "pool", "subscribe", "cli", "t", "--cursor", "0", "--limit", "1", *conn
    )
    assert code == 0 and out.startswith("PUBLISHED") and publication in out
    code, out, err = await run(capsys, "pool", "members", "cli", "--json", *conn)
    owner_member = next(m["name"] for m in json_lines(out) if m["principal"] == "sdk/owner")
    code, out, err = await run(capsys, "pool", "trust", owner_member, "--json", *conn)
    assert code == 0 and json.loads(out)["principal"] == "sdk/owner"
    code, out, err = await run(capsys, "pool", "unpublish", publication, "--reason", "r", *conn)
    assert code == 0 and "PUBLICATION_STATE_WITHDRAWN" in out
    code, out, err = await run(capsys, "pool", "update", "cli", "--require-review", *conn)
    code, out, err = await run(
        capsys, "memory", "propose", "cli/space", "Held by the CLI", "--confidence", "0.9", *conn
    )
    code, out, err = await run(capsys, "pool", "publish", "cli", out.split()[1], "--json", *conn)
    held = json.loads(out)["publication"]["name"]
    code, out, err = await run(capsys, "pool", "review", held, "reject", "--note", "not yet", *conn)
    assert code == 0 and "PUBLICATION_STATE_REJECTED" in out
    code, _, err = await run(capsys, "pool", "remove-member", reader_member, *conn)
    assert code == 0, err
    code, _, err = await run(capsys, "pool", "delete", "cli", *conn)
    assert code == 0, err


async def test_the_async_client_covers_every_pool_rpc(server: Any, make_tenant: Any) -> None:
    import engram

    t = await make_tenant()
    owner_secret = await t.new_key(scopes=("read", "write"), agent="aio/owner")
    reader_secret = await t.new_key(scopes=("read", "write"), agent="aio/reader")
    async with (
        engram.AsyncClient(server.address, owner_secret) as c,
        engram.AsyncClient(server.address, reader_secret) as r,
    ):
        pool = await c.create_pool("Shared", pool_id="aio")
        await c.update_pool("aio", etag=pool.etag, description="for the async test")
        await c.add_pool_member("aio", "aio/reader", "reader")
        memory = (await c.propose("aio/space", "Async publishes too", confidence=0.9)).memory
        published = await c.publish_memory("aio", memory.name, topic="news")
        assert published.outcome == engram.PublishOutcome.PUBLISHED
        name = published.publication.name
        assert (await r.get_publication(name)).memory == memory.name
        assert [p.name async for p in r.list_publications("aio")] == [name]
        assert [x.topic async for x in r.list_topics("aio")] == ["news"]
        members = [m async for m in c.list_pool_members("aio")]
        owner = next(m.name for m in members if m.principal == "aio/owner")
        assert (await r.get_agent_trust(owner)).published_count == 1
        assert [x.principal async for x in r.list_agent_trusts("aio")] == ["aio/owner"]
        synced = [m async for m in r.sync_pool("aio")]
        assert synced[-1].caught_up and synced[0].delta.new_memory.name == memory.name
        events = r.subscribe_topic("aio", "news", cursor="0")
        first = await anext(events)
        await events.aclose()  # type: ignore[attr-defined]
        assert first.publication.name == name
        await c.unpublish_memory(name, "done")
        other = (await c.propose("aio/space", "Held for review", confidence=0.9)).memory
        await c.update_pool("aio", gate=engram.pool.gate(require_review=True))
        held = await c.publish_memory("aio", other.name)
        await c.review_publication(held.publication.name, approve=False, note="not yet")
        assert [p.name async for p in c.list_pools()] == ["pools/aio"]
        assert (await c.get_pool("aio")).member_count == 2
        reader = next(m.name for m in members if m.principal == "aio/reader")
        await c.remove_pool_member(reader)
        await c.delete_pool("aio")
        with pytest.raises(engram.InvalidArgument) as caught:
            await c.add_pool_member("aio", "aio/reader", "boss")
        assert caught.value.fields == ["member.role"]
