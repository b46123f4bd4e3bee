"""Recall end to end: indexing through the outbox, hybrid ranking, filters, isolation."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2
from google.protobuf.struct_pb2 import Struct
from google.protobuf.timestamp_pb2 import Timestamp

from tests.lifecycle_helpers import SUPERSEDED, field_violations, proposal

# Against the embedded engine, and a real Qdrant server when ENGRAM_TEST_QDRANT_URL is set.
pytestmark = pytest.mark.vector_backends

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES

FACTS = [
    "Alice prefers Go for backend services",
    "The deploy pipeline runs on Fridays after the standup",
    "Bob is allergic to peanuts",
    "The staging database lives in eu-west-1",
    "Carol leads the payments team",
    "Our VPN endpoint is vpn.example.org",
]


async def _load(t: Any, space: str, facts: list[str], **kw: Any) -> list[Any]:
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal(space, f, **kw) for f in facts]
        )
    )
    return [r.memory for r in response.results]


def _recall_stub(t: Any) -> Any:
    return recall_pb2_grpc.RecallServiceStub(t.channel)


async def test_recall_finds_by_words_and_meaning(make_tenant: Any) -> None:
    t = await make_tenant()
    await _load(t, "kb", FACTS)
    recall = _recall_stub(t)
    words = await recall.Recall(
        recall_pb2.RecallRequest(query="peanuts", spaces=["kb"], k=3, consistency=RYW)
    )
    assert words.hits[0].memory.content == "Bob is allergic to peanuts"
    assert words.hits[0].breakdown.lexical > 0
    meaning = await recall.Recall(
        recall_pb2.RecallRequest(
            query="which programming language does Alice like?", spaces=["kb"], k=3, consistency=RYW
        )
    )
    assert meaning.hits[0].memory.content == "Alice prefers Go for backend services"
    b = meaning.hits[0].breakdown
    assert b.dense > 0 and b.base_score > 0 and 0 < b.retention <= 1
    assert meaning.hits[0].score == pytest.approx(max(h.score for h in meaning.hits))
    assert meaning.embedding_model


async def test_retracted_and_superseded_are_never_recalled(make_tenant: Any) -> None:
    t = await make_tenant()
    memories = await _load(t, "kb", FACTS)
    recall = _recall_stub(t)
    await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=memories[2].name, reason="wrong person")
    )
    hits = await recall.Recall(
        recall_pb2.RecallRequest(query="peanuts allergy", spaces=["kb"], k=10, consistency=RYW)
    )
    assert memories[2].name not in {h.memory.name for h in hits.hits}

    old = (
        await t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("kb", "Dana works at Acme", slot_key="dana::employer")
            )
        )
    ).result.memory
    new = (
        await t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("kb", "Dana works at Globex", slot_key="dana::employer")
            )
        )
    ).result.memory
    hits = await recall.Recall(
        recall_pb2.RecallRequest(query="where does Dana work", spaces=["kb"], k=10, consistency=RYW)
    )
    names = [h.memory.name for h in hits.hits]
    assert new.name in names and old.name not in names
    history = await recall.Recall(
        recall_pb2.RecallRequest(
            query="where does Dana work",
            spaces=["kb"],
            k=10,
            consistency=RYW,
            filter=recall_pb2.RecallFilter(include_superseded=True),
        )
    )
    statuses = {h.memory.name: h.memory.status for h in history.hits}
    assert statuses.get(old.name) == SUPERSEDED
    slot = await recall.Recall(
        recall_pb2.RecallRequest(
            query="employer",
            spaces=["kb"],
            k=3,
            consistency=RYW,
            filter=recall_pb2.RecallFilter(slot_key="dana::employer"),
        )
    )
    assert [h.memory.name for h in slot.hits] == [new.name]
    assert slot.hits[0].breakdown.slot_match == 1.0


async def test_a_recalled_memory_is_the_stored_memory(make_tenant: Any) -> None:
    # Candidates are read with their JSON columns unparsed; the hits returned must
    # still carry every field exactly as GetMemory shows it.
    t = await make_tenant()
    structured = Struct()
    structured.update({"dish": "pad thai", "spice": 3, "tags": ["thai", "noodles"], "x": None})
    response = await t.lifecycle.ProposeMemory(
        lifecycle_pb2.ProposeMemoryRequest(
            proposal=proposal(
                "kb",
                "Erin's favourite dish is pad thai",
                structured_content=structured,
                attributes={"origin": "chat-7", "lang": "en"},
                tags=["food", "erin"],
                slot_key="erin::favourite_dish",
            )
        )
    )
    name = response.result.memory.name
    await _load(t, "kb", FACTS)
    hits = (
        await _recall_stub(t).Recall(
            recall_pb2.RecallRequest(
                query="what does Erin like to eat?",
                spaces=["kb"],
                k=3,
                consistency=RYW,
                skip_access_tracking=True,
            )
        )
    ).hits
    assert hits[0].memory.name == name
    stored = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=name))
    assert hits[0].memory == stored
    assert hits[0].memory.structured_content["dish"] == "pad thai"
    assert dict(hits[0].memory.attributes) == {"origin": "chat-7", "lang": "en"}


async def test_filters_and_spaces(make_tenant: Any) -> None:
    t = await make_tenant()
    await _load(t, "team/a", ["Deploys use Helm charts"], tags=["ops"])
    await _load(
        t, "team/b", ["Deploys use Terraform modules"], kind=types_pb2.MEMORY_KIND_PROCEDURAL
    )
    recall = _recall_stub(t)
    only_a = await recall.Recall(
        recall_pb2.RecallRequest(query="deploys", spaces=["team/a"], consistency=RYW)
    )
    assert [h.memory.space for h in only_a.hits] == ["team/a"]
    both = await recall.Recall(
        recall_pb2.RecallRequest(
            query="deploys", spaces=["team"], include_subspaces=True, consistency=RYW
        )
    )
    assert {h.memory.space for h in both.hits} == {"team/a", "team/b"}
    tagged = await recall.Recall(
        recall_pb2.RecallRequest(
            query="deploys",
            spaces=["team"],
            include_subspaces=True,
            consistency=RYW,
            filter=recall_pb2.RecallFilter(tags=["ops"]),
        )
    )
    assert [h.memory.space for h in tagged.hits] == ["team/a"]
    procedural = await recall.Recall(
        recall_pb2.RecallRequest(
            query="deploys",
            spaces=["team"],
            include_subspaces=True,
            consistency=RYW,
            filter=recall_pb2.RecallFilter(kinds=[types_pb2.MEMORY_KIND_PROCEDURAL]),
        )
    )
    assert [h.memory.space for h in procedural.hits] == ["team/b"]


async def test_tenant_isolation(make_tenant: Any) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await _load(a, "kb", ["The launch code is swordfish"])
    await _load(b, "kb", ["The office plant needs water"])
    hits = await _recall_stub(b).Recall(
        recall_pb2.RecallRequest(
            query="launch code swordfish", spaces=["kb"], consistency=RYW, k=10
        )
    )
    assert all("swordfish" not in h.memory.content for h in hits.hits)


async def test_retention_orders_by_age_with_an_injected_clock(make_tenant: Any) -> None:
    t = await make_tenant()
    await _load(
        t,
        "kb",
        ["The standup happened at ten", "The standup happened at nine"],
        kind=types_pb2.MEMORY_KIND_EPISODIC,
    )
    recall = _recall_stub(t)
    now = Timestamp()
    now.FromDatetime(datetime.now(UTC))
    later = Timestamp()
    later.FromDatetime(datetime.now(UTC) + timedelta(days=120))
    fresh = await recall.Recall(
        recall_pb2.RecallRequest(
            query="standup", spaces=["kb"], consistency=RYW, now=now, skip_access_tracking=True
        )
    )
    aged = await recall.Recall(
        recall_pb2.RecallRequest(
            query="standup", spaces=["kb"], consistency=RYW, now=later, skip_access_tracking=True
        )
    )
    assert aged.hits[0].breakdown.retention < fresh.hits[0].breakdown.retention
    assert aged.hits[0].score < fresh.hits[0].score


async def test_build_context_stays_under_budget(make_tenant: Any) -> None:
    t = await make_tenant()
    await _load(t, "kb", FACTS)
    recall = _recall_stub(t)
    for budget in (8, 30, 60, 400):
        built = await recall.BuildContext(
            recall_pb2.BuildContextRequest(
                query="team deploy database",
                spaces=["kb"],
                k=10,
                consistency=RYW,
                options=recall_pb2.ContextOptions(
                    token_budget=budget, group_by_kind=True, include_citations=True
                ),
            )
        )
        assert built.token_count <= budget
        for name in built.cited_memories:
            assert name in built.text
    assert "## " in built.text and built.tokenizer


async def test_bad_recall_input(make_tenant: Any) -> None:
    t = await make_tenant()
    recall = _recall_stub(t)
    for request, field in (
        (recall_pb2.RecallRequest(query="", spaces=["kb"]), "query"),
        (recall_pb2.RecallRequest(query="x"), "spaces"),
        (recall_pb2.RecallRequest(query="x", spaces=["kb"], k=1000), "k"),
        (recall_pb2.RecallRequest(query="x", spaces=["a//b"]), "spaces[0]"),
        (
            recall_pb2.RecallRequest(
                query="x", spaces=["kb"], filter=recall_pb2.RecallFilter(kinds=[99])
            ),
            "filter.kinds[0]",
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await recall.Recall(request)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, field


async def test_build_context_from_named_memories(make_tenant: Any) -> None:
    t = await make_tenant()
    memories = await _load(t, "kb", FACTS[:3])
    built = await _recall_stub(t).BuildContext(
        recall_pb2.BuildContextRequest(
            memories=[m.name for m in memories],
            options=recall_pb2.ContextOptions(
                token_budget=200, format=recall_pb2.CONTEXT_FORMAT_XML, include_citations=True
            ),
        )
    )
    assert built.text.startswith("<memories>") and list(built.cited_memories) == [
        m.name for m in memories
    ]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await _recall_stub(t).BuildContext(recall_pb2.BuildContextRequest(query="x"))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_build_context_skips_named_memories_that_were_retracted(make_tenant: Any) -> None:
    """A retracted memory named in `memories` is skipped and reported in
    `skipped_memories`, never put into the prompt (it used to be rendered); a memory
    named twice is rendered once; more than 200 names are INVALID_ARGUMENT on
    `memories`."""
    t = await make_tenant()
    retracted, live = await _load(t, "kb", ["Zed's door code is 4512", "Zed likes tea"])
    await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=retracted.name, reason="wrong")
    )
    built = await _recall_stub(t).BuildContext(
        recall_pb2.BuildContextRequest(
            memories=[retracted.name, live.name, live.name],
            options=recall_pb2.ContextOptions(token_budget=200),
        )
    )
    assert "4512" not in built.text and built.text.count("Zed likes tea") == 1
    assert list(built.cited_memories) == [live.name]
    assert list(built.skipped_memories) == [retracted.name]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await _recall_stub(t).BuildContext(
            recall_pb2.BuildContextRequest(
                memories=[live.name] * 201, options=recall_pb2.ContextOptions(token_budget=200)
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["memories"]


async def test_near_duplicate_reinforces_instead_of_storing(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/nd/policy", near_duplicate_threshold=0.8)
        )
    )
    first = (
        await t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("nd", "Frank prefers dark roast coffee", source="chat-1")
            )
        )
    ).result.memory
    await _recall_stub(t).Recall(
        recall_pb2.RecallRequest(query="coffee", spaces=["nd"], consistency=RYW)
    )
    again = (
        await t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("nd", "Frank prefers dark-roast coffee!", source="chat-2")
            )
        )
    ).result
    assert again.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_REINFORCED
    assert again.memory.name == first.name
    assert again.memory.importance == pytest.approx(first.importance + 0.05)
    assert again.memory.attributes["sources"] == "chat-1; chat-2"
    different = (
        await t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("nd", "Frank dislikes green tea in the morning")
            )
        )
    ).result
    assert different.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=first.name)
    )
    assert audit.entries[-1].action == types_pb2.AUDIT_ACTION_REINFORCEMENT
    cur = await raw_pg.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", (t.tenant_id,))
    assert (await cur.fetchone())[0] == 2


async def test_forgetting_is_configurable_per_space(make_tenant: Any) -> None:
    t = await make_tenant()
    fast = lifecycle_pb2.Policy(name="spaces/fast/policy", retention_stability_hours=24)
    fast.decay_exponents["MEMORY_KIND_EPISODIC"] = 3.0
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=fast))
    for space in ("fast", "slow"):
        await _load(t, space, ["The retro ran long"], kind=types_pb2.MEMORY_KIND_EPISODIC)
    later = Timestamp()
    later.FromDatetime(datetime.now(UTC) + timedelta(days=30))
    retention = {}
    for space in ("fast", "slow"):
        response = await _recall_stub(t).Recall(
            recall_pb2.RecallRequest(
                query="retro",
                spaces=[space],
                consistency=RYW,
                now=later,
                skip_access_tracking=True,
            )
        )
        retention[space] = response.hits[0].breakdown.retention
    assert retention["fast"] < retention["slow"] / 2
    policy = await t.lifecycle.GetPolicy(lifecycle_pb2.GetPolicyRequest(name="spaces/fast/policy"))
    assert policy.decay_exponents["MEMORY_KIND_EPISODIC"] == 3.0
    bad = lifecycle_pb2.Policy(name="spaces/x/policy")
    bad.decay_exponents["MEMORY_KIND_EPISODIC"] = 9.0
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=bad))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_failing_dense_leg_fails_the_recall_after_the_lexical_leg_settles(
    app: Any, make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engram_server.services.recall import RecallQuery

    t = await make_tenant()
    await _load(t, "kb", FACTS)
    await _recall_stub(t).Recall(
        recall_pb2.RecallRequest(query="peanuts", spaces=["kb"], consistency=RYW)
    )
    service = app.recall.service
    lexical_runs: list[str] = []
    real_lexical_leg = service._lexical_leg

    async def recorded_lexical_leg(*args: Any) -> Any:
        result = await real_lexical_leg(*args)
        lexical_runs.append("done")
        return result

    async def broken_embedding(text: str, tenant_id: str) -> Any:
        # The inference starts, then fails while the lexical leg is in flight.
        async def fail() -> None:
            await asyncio.sleep(0)
            raise RuntimeError("embedder down")

        return asyncio.ensure_future(fail())

    monkeypatch.setattr(service, "_lexical_leg", recorded_lexical_leg)
    monkeypatch.setattr(service.embedder, "begin_query", broken_embedding)
    with pytest.raises(RuntimeError, match="embedder down"):
        await service.recall(t.tenant_id, RecallQuery(query="peanuts", spaces=("kb",)), None)
    # The lexical leg (search and hydration) ran to its end instead of being cut off
    # inside a database round trip.
    assert lexical_runs == ["done"]


async def test_dense_rows_are_read_beside_a_slow_lexical_leg(
    app: Any, make_tenant: Any, raw_pg: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # When the lexical leg is still reading its rows as the dense search returns,
    # the dense leg reads its own at the same time; the answer must be the one the
    # sequential reads give, with a memory retracted after indexing still dropped.
    from engram_server.services.recall import RecallQuery

    t = await make_tenant()
    loaded = await _load(t, "kb", FACTS)
    query = RecallQuery(
        query="who is allergic to peanuts",
        spaces=("kb",),
        k=len(FACTS),
        now=datetime.now(UTC),  # same instant, same recency: scores comparable
        track_access=False,
    )
    await _recall_stub(t).Recall(
        recall_pb2.RecallRequest(query=query.query, spaces=["kb"], consistency=RYW)
    )
    service = app.recall.service
    sequential = await service.recall(t.tenant_id, query, None)
    assert len(sequential.hits) >= 2

    events: list[str] = []
    real_hydrate = service._hydrate
    real_lexical_leg = service._lexical_leg

    async def counted_hydrate(tenant: str, ids: list[Any], *rest: Any) -> Any:
        events.append("read")
        return await real_hydrate(tenant, ids, *rest)

    async def slow_lexical_leg(*args: Any) -> Any:
        await asyncio.sleep(0.2)  # outlasts the embedding and the dense search
        events.append("lexical leg")
        return await real_lexical_leg(*args)

    monkeypatch.setattr(service, "_hydrate", counted_hydrate)
    monkeypatch.setattr(service, "_lexical_leg", slow_lexical_leg)
    overlapped = await service.recall(t.tenant_id, query, None)
    # The dense leg's read began while the lexical leg was still searching; the
    # lexical leg then read its own, and nothing was read after both.
    assert events == ["read", "lexical leg", "read"]
    assert [(h.memory.id, h.breakdown.final) for h in overlapped.hits] == [
        (h.memory.id, h.breakdown.final) for h in sequential.hits
    ]

    # The rows stay the truth on this path too: retract the top hit in PostgreSQL
    # only (the index still holds it) and it is not recalled.
    top = sequential.hits[0].memory
    await raw_pg.execute(
        "UPDATE memories SET status = 'RETRACTED' WHERE tenant_id = %s AND id = %s",
        (t.tenant_id, top.id),
    )
    after = await service.recall(t.tenant_id, query, None)
    assert top.id not in {h.memory.id for h in after.hits}
    assert loaded  # the memories were accepted


async def test_hydration_plans_primary_key_probes_without_statistics(
    make_tenant: Any, raw_pg: Any
) -> None:
    from engram_server.services.recall import _HYDRATE

    t = await make_tenant()
    # A tenant that grew by 20,000 memories since the last ANALYZE (rows written
    # directly: only the plan is under test), with no column statistics at all.
    await raw_pg.execute(
        "INSERT INTO memories (tenant_id, id, space, kind, content, confidence, importance,"
        " status, content_hash)"
        " SELECT %s, gen_random_uuid(), 'kb', 'SEMANTIC', 'fact ' || n, 0.5, 0.5, 'ACTIVE',"
        " md5(n::text) FROM generate_series(1, 20000) AS n",
        (t.tenant_id,),
    )
    await raw_pg.execute("DELETE FROM pg_statistic WHERE starelid = 'memories'::regclass")
    cur = await raw_pg.execute(
        "SELECT id FROM memories WHERE tenant_id = %s LIMIT 128", (t.tenant_id,)
    )
    ids = [row[0] for row in await cur.fetchall()]
    await raw_pg.execute("BEGIN")
    try:
        await raw_pg.execute("SET LOCAL ROLE engram_app")
        await raw_pg.execute("SELECT set_config('engram.tenant_id', %s, true)", (t.tenant_id,))
        cur = await raw_pg.execute(f"EXPLAIN (FORMAT JSON) {_HYDRATE}", (ids,))
        plan = (await cur.fetchone())[0][0]["Plan"]
        cur = await raw_pg.execute(_HYDRATE, (ids,))
        assert len(await cur.fetchall()) == len(ids)
    finally:
        await raw_pg.execute("ROLLBACK")
    memory_scans = [
        (node["Node Type"], node.get("Index Name"))
        for node in _plan_nodes(plan)
        if node.get("Relation Name") == "memories"
    ]
    assert memory_scans == [("Index Scan", "memories_pkey")], json.dumps(plan)


def _plan_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    return [node, *(n for child in node.get("Plans", []) for n in _plan_nodes(child))]


async def test_candidate_ids_bind_as_one_array_literal(app: Any, make_tenant: Any) -> None:
    import uuid

    from engram_server.store import memories as store

    t = await make_tenant()
    other = await make_tenant()
    mine = await _load(t, "kb", FACTS[:3])
    theirs = await _load(other, "kb", FACTS[3:4])
    ids = [uuid.UUID(m.name.rsplit("/", 1)[-1]) for m in [*mine, *theirs]]
    literal = store.uuid_array_literal(ids)
    assert literal == "{" + ",".join(str(i) for i in ids) + "}"
    rows = await app.db.tenant_read(t.tenant_id, store.by_ids_sql("id, content"), (literal,))
    # The rows come back in the order asked, and the other tenant's id finds nothing.
    assert [r["id"] for r in rows] == ids[:3]
    assert [r["content"] for r in rows] == FACTS[:3]
    assert store.uuid_array_literal([]) == "{}"
    assert await app.db.tenant_read(t.tenant_id, store.by_ids_sql("id"), ("{}",)) == []
    with pytest.raises(TypeError, match="expected a UUID, got str"):
        store.uuid_array_literal([str(ids[0])])


async def test_a_query_vector_is_remembered_for_the_tenant_that_asked(
    make_tenant: Any, server: Any
) -> None:
    # Two tenants asking the same question each pay for its embedding: a vector
    # remembered for one would answer the other in microseconds instead of
    # milliseconds, telling it what someone else had just asked.
    a, b = await make_tenant(), await make_tenant()
    question = f"who looked after the {a.tenant_id} rollout?"
    for t in (a, b):
        await _recall_stub(t).Recall(recall_pb2.RecallRequest(query=question, spaces=["kb"], k=3))
    remembered = {key for key in server.ctx.recall.embedder._queries if key[1] == question}
    assert remembered == {(a.tenant_id, question), (b.tenant_id, question)}
