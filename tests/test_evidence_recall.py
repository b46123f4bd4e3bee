"""Evidence-weighted, graph-augmented and bi-temporal recall; badges in context."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from engram.v1 import evidence_pb2, lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2
from google.protobuf.timestamp_pb2 import Timestamp

from tests.lifecycle_helpers import field_violations, proposal, propose
from tests.test_evidence import evidence_stub

# Against the embedded engine, and a real Qdrant server when ENGRAM_TEST_QDRANT_URL is set.
pytestmark = pytest.mark.vector_backends

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _ts(value: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


async def _load(t: Any, space: str, facts: list[str], **kw: Any) -> list[Any]:
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal(space, f, **kw) for f in facts]
        )
    )
    return [r.memory for r in response.results]


async def _recall(t: Any, query: str, space: str = "kb", **kw: Any) -> Any:
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    return await stub.Recall(
        recall_pb2.RecallRequest(
            query=query,
            spaces=[space],
            consistency=RYW,
            skip_access_tracking=True,
            now=_ts(NOW),
            **kw,
        )
    )


CORPUS = [
    "The staging cluster runs Kubernetes 1.29",
    "The staging database is PostgreSQL 16",
    "Staging deploys happen every Tuesday",
    "Production deploys need two approvals",
    "The on-call rotation changes on Mondays",
    "Grafana dashboards live in the observability folder",
]


async def test_no_grades_no_change(make_tenant: Any) -> None:
    """Strict no-op: with nothing graded, results equal those with the adjustment off."""
    t = await make_tenant()
    await _load(t, "kb", CORPUS)
    queries = ["staging database version", "when do deploys happen", "dashboards"]
    before = [await _recall(t, q, k=6) for q in queries]
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(
                name="spaces/kb/policy",
                evidence_weights=lifecycle_pb2.EvidenceWeights(disabled=True),
            )
        )
    )
    after = [await _recall(t, q, k=6) for q in queries]
    for a, b in zip(before, after, strict=True):
        assert [(h.memory.name, h.score) for h in a.hits] == [
            (h.memory.name, h.score) for h in b.hits
        ]
        assert all(h.breakdown.evidence_delta == 0 and not h.evidence_badge for h in a.hits)
        assert all(h.score == h.breakdown.base_score for h in a.hits)


async def test_evidence_weighting_reorders_and_keeps_base_score(make_tenant: Any) -> None:
    t = await make_tenant()
    rumour, statement = await _load(
        t,
        "news",
        [
            "Acme will report record earnings this quarter says a forum post",
            "Acme reported record quarterly earnings",
        ],
    )
    ev = evidence_stub(t)
    await ev.SetEvidenceLevel(
        evidence_pb2.SetEvidenceLevelRequest(
            name=rumour.name, evidence_level=types_pb2.EVIDENCE_LEVEL_UNVERIFIED
        )
    )
    await ev.SetEvidenceLevel(
        evidence_pb2.SetEvidenceLevelRequest(
            name=statement.name, evidence_level=types_pb2.EVIDENCE_LEVEL_OFFICIAL
        )
    )
    got = await _recall(t, "Acme record earnings", space="news", k=2)
    by_name = {h.memory.name: h for h in got.hits}
    official = by_name[statement.name]
    unverified = by_name[rumour.name]
    assert official.breakdown.evidence_delta == pytest.approx(0.15)
    assert unverified.breakdown.evidence_delta == pytest.approx(-0.10)
    assert official.score == pytest.approx(official.breakdown.base_score + 0.15)
    assert official.evidence_badge == "[official]" and unverified.evidence_badge == "[unverified]"
    assert got.hits[0].memory.name == statement.name
    # min_score applies to the adjusted score.
    threshold = unverified.breakdown.base_score - 0.05
    cut = await _recall(t, "Acme record earnings", space="news", k=2, min_score=threshold)
    assert rumour.name not in [h.memory.name for h in cut.hits]
    # A space policy sets its own deltas.
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(
                name="spaces/news/policy",
                evidence_weights=lifecycle_pb2.EvidenceWeights(official=0.5, unverified=0.0),
            )
        )
    )
    tuned = await _recall(t, "Acme record earnings", space="news", k=2)
    deltas = {h.memory.name: h.breakdown.evidence_delta for h in tuned.hits}
    assert deltas == {statement.name: pytest.approx(0.5), rumour.name: 0.0}


async def test_context_badges(make_tenant: Any) -> None:
    t = await make_tenant()
    official, single, plain = await _load(
        t, "ctx", ["The VPN uses WireGuard", "The VPN port is 51820", "The VPN has two gateways"]
    )
    ev = evidence_stub(t)
    await ev.SetEvidenceLevel(
        evidence_pb2.SetEvidenceLevelRequest(
            name=official.name, evidence_level=types_pb2.EVIDENCE_LEVEL_OFFICIAL
        )
    )
    await ev.SetEvidenceLevel(
        evidence_pb2.SetEvidenceLevelRequest(
            name=single.name, evidence_level=types_pb2.EVIDENCE_LEVEL_SINGLE_SOURCE
        )
    )
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    built = await stub.BuildContext(
        recall_pb2.BuildContextRequest(
            memories=[official.name, single.name, plain.name],
            options=recall_pb2.ContextOptions(token_budget=500, include_evidence_badges=True),
        )
    )
    assert "- [official] The VPN uses WireGuard" in built.text
    assert "- The VPN port is 51820" in built.text
    assert "[single" not in built.text
    plain_text = await stub.BuildContext(
        recall_pb2.BuildContextRequest(
            memories=[official.name], options=recall_pb2.ContextOptions(token_budget=500)
        )
    )
    assert "[official]" not in plain_text.text
    engaged = await stub.Engage(
        recall_pb2.EngageRequest(
            space="ctx",
            session="s1",
            message=lifecycle_pb2.SessionMessage(role="user", content="what does the VPN use?"),
            consistency=RYW,
        )
    )
    assert "[official] The VPN uses WireGuard" in engaged.context


async def test_context_shows_when_a_fact_held(make_tenant: Any) -> None:
    """BuildContext and Engage date the facts that record when they held (a
    superseded one with its closed range); undated memories carry no dates."""
    t = await make_tenant()
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    old = (
        await propose(
            t.lifecycle,
            "dates",
            "Alice lives in Lisbon",
            slot_key="alice::city",
            valid_from=_ts(datetime(2020, 1, 1, tzinfo=UTC)),
        )
    ).memory
    new = (
        await propose(
            t.lifecycle,
            "dates",
            "Alice lives in Porto",
            slot_key="alice::city",
            valid_from=_ts(datetime(2025, 3, 1, tzinfo=UTC)),
        )
    ).memory
    plain = (await propose(t.lifecycle, "dates", "Alice likes trams")).memory
    built = await stub.BuildContext(
        recall_pb2.BuildContextRequest(
            memories=[new.name, old.name, plain.name],
            options=recall_pb2.ContextOptions(token_budget=500, include_citations=False),
        )
    )
    assert "Alice lives in Porto (since 2025-03-01)" in built.text
    assert "Alice lives in Lisbon (valid 2020-01-01 to 2025-03-01)" in built.text
    assert "Alice likes trams\n" in built.text + "\n" and "trams (" not in built.text
    engaged = await stub.Engage(
        recall_pb2.EngageRequest(
            space="dates",
            session="s1",
            message=lifecycle_pb2.SessionMessage(role="user", content="Where does Alice live?"),
            consistency=RYW,
        )
    )
    assert "Alice lives in Porto (since 2025-03-01)" in engaged.context


async def _edge(t: Any, a: Any, b: Any, kind: int, weight: float = 0.0) -> None:
    await evidence_stub(t).CreateEdge(
        evidence_pb2.CreateEdgeRequest(
            edge=types_pb2.Edge(
                source_memory=a.name, target_memory=b.name, kind=kind, weight=weight
            )
        )
    )


async def test_graph_expansion_is_additive(make_tenant: Any) -> None:
    t = await make_tenant()
    falcon, runbook, owner, far, _elsewhere = await _load(
        t,
        "g",
        [
            "Project Falcon stores its orders in PostgreSQL",
            "The migration runbook lives in the ops wiki",
            "Dana owns the migration runbook",
            "Wikis are backed up nightly",
            "Unrelated memory in the same space about lunch",
        ],
    )
    (other_space,) = await _load(t, "private", ["A memory in a space nobody asked for"])
    await _edge(t, falcon, runbook, types_pb2.EDGE_KIND_RELATED)
    await _edge(t, owner, runbook, types_pb2.EDGE_KIND_ABOUT)
    await _edge(t, runbook, far, types_pb2.EDGE_KIND_RELATED)
    await _edge(t, falcon, other_space, types_pb2.EDGE_KIND_RELATED)
    plain = await _recall(t, "Falcon orders database", space="g", k=1)
    assert [h.memory.name for h in plain.hits] == [falcon.name]
    one = await _recall(
        t, "Falcon orders database", space="g", k=1, graph=recall_pb2.GraphExpansion(enabled=True)
    )
    assert one.hits[0].memory.name == falcon.name
    assert one.hits[0].breakdown.graph_boost == 0 and not one.hits[0].reached_from
    added = {h.memory.name: h for h in one.hits[1:]}
    assert set(added) == {runbook.name}  # one hop; the other space is never reached
    hit = added[runbook.name]
    assert hit.reached_from == falcon.name and hit.reached_via == types_pb2.EDGE_KIND_RELATED
    assert hit.breakdown.graph_boost == pytest.approx(one.hits[0].score * 0.5)
    assert hit.score < one.hits[0].score
    two = await _recall(
        t,
        "Falcon orders database",
        space="g",
        k=1,
        graph=recall_pb2.GraphExpansion(enabled=True, max_hops=2),
    )
    names = [h.memory.name for h in two.hits]
    assert names[0] == falcon.name and set(names[1:]) == {runbook.name, owner.name, far.name}
    boosts = {h.memory.name: h.breakdown.graph_boost for h in two.hits}
    assert boosts[owner.name] == pytest.approx(boosts[runbook.name] / 2)
    # Only the kinds asked for are followed; retracted neighbours are skipped.
    only_about = await _recall(
        t,
        "Falcon orders database",
        space="g",
        k=1,
        graph=recall_pb2.GraphExpansion(enabled=True, edge_kinds=[types_pb2.EDGE_KIND_ABOUT]),
    )
    assert [h.memory.name for h in only_about.hits] == [falcon.name]
    await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=runbook.name, reason="stale")
    )
    after = await _recall(
        t, "Falcon orders database", space="g", k=1, graph=recall_pb2.GraphExpansion(enabled=True)
    )
    assert [h.memory.name for h in after.hits] == [falcon.name]
    asked = await _recall(
        t,
        "Falcon orders database",
        space="g",
        k=1,
        graph=recall_pb2.GraphExpansion(enabled=True, include_inactive=True),
    )
    assert [h.memory.name for h in asked.hits] == [falcon.name, runbook.name]
    for bad, fld in [
        (recall_pb2.GraphExpansion(enabled=True, max_hops=4), "graph.max_hops"),
        (recall_pb2.GraphExpansion(enabled=True, edge_kinds=[99]), "graph.edge_kinds[0]"),
        (recall_pb2.GraphExpansion(enabled=True, hop_boost=2), "graph.hop_boost"),
    ]:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await _recall(t, "Falcon", space="g", graph=bad)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fld in field_violations(err.value)


async def _alice_moves(t: Any, space: str) -> tuple[Any, datetime, Any]:
    """Alice lived in Lisbon from 2020, in Porto from 2025: (lisbon, a moment Engram
    knew only Lisbon, porto)."""

    async def city(name: str, since: datetime) -> Any:
        memory = await propose(
            t.lifecycle,
            space,
            f"Alice lives in {name}",
            slot_key="alice::city",
            valid_from=_ts(since),
        )
        return memory.memory

    lisbon = await city("Lisbon", datetime(2020, 1, 1, tzinfo=UTC))
    await asyncio.sleep(0.05)
    between = datetime.now(UTC)
    await asyncio.sleep(0.05)
    porto = await city("Porto", datetime(2025, 3, 1, tzinfo=UTC))
    return lisbon, between, porto


async def test_valid_at_and_known_at(make_tenant: Any) -> None:
    t = await make_tenant()
    lisbon, between, porto = await _alice_moves(t, "bt")
    now_hits = await _recall(t, "where does Alice live", space="bt")
    assert [h.memory.name for h in now_hits.hits] == [porto.name]
    in_2023 = await _recall(
        t, "where does Alice live", space="bt", valid_at=_ts(datetime(2023, 6, 1, tzinfo=UTC))
    )
    assert [h.memory.name for h in in_2023.hits] == [lisbon.name]
    believed = await _recall(t, "where does Alice live", space="bt", known_at=_ts(between))
    assert [(h.memory.name, h.memory.status) for h in believed.hits] == [
        (lisbon.name, types_pb2.MEMORY_STATUS_ACTIVE)
    ]
    before_all = await _recall(
        t, "where does Alice live", space="bt", known_at=_ts(between - timedelta(days=1))
    )
    assert not before_all.hits


async def test_context_and_engage_take_valid_at_and_known_at(make_tenant: Any) -> None:
    t = await make_tenant()
    lisbon, between, porto = await _alice_moves(t, "ctx")
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    options = recall_pb2.ContextOptions(token_budget=200)

    async def context(**kw: Any) -> list[str]:
        block = await stub.BuildContext(
            recall_pb2.BuildContextRequest(
                query="where does Alice live",
                spaces=["ctx"],
                consistency=RYW,
                options=options,
                **kw,
            )
        )
        return list(block.cited_memories)

    assert await context() == [porto.name]
    assert await context(valid_at=_ts(datetime(2023, 6, 1, tzinfo=UTC))) == [lisbon.name]
    assert await context(known_at=_ts(between)) == [lisbon.name]
    assert await context(known_at=_ts(between - timedelta(days=1))) == []

    async def engage(session: str, **kw: Any) -> list[str]:
        engaged = await stub.Engage(
            recall_pb2.EngageRequest(
                space="ctx",
                session=session,
                message=lifecycle_pb2.SessionMessage(role="user", content="Where does Alice live?"),
                consistency=RYW,
                options=options,
                **kw,
            )
        )
        return list(engaged.cited_memories)

    assert await engage("now") == [porto.name]
    assert await engage("past", valid_at=_ts(datetime(2023, 6, 1, tzinfo=UTC))) == [lisbon.name]
    assert await engage("believed", known_at=_ts(between)) == [lisbon.name]
    # Another tenant asking about the same time sees nothing of this one.
    other = await make_tenant()
    foreign = await recall_pb2_grpc.RecallServiceStub(other.channel).BuildContext(
        recall_pb2.BuildContextRequest(
            query="where does Alice live",
            spaces=["ctx"],
            consistency=RYW,
            options=options,
            valid_at=_ts(datetime(2023, 6, 1, tzinfo=UTC)),
        )
    )
    assert not foreign.cited_memories
    bad = Timestamp(seconds=-62135596801)
    for call, fld in (
        (
            stub.BuildContext(
                recall_pb2.BuildContextRequest(
                    query="q", spaces=["ctx"], options=options, valid_at=bad
                )
            ),
            "valid_at",
        ),
        (
            stub.Engage(
                recall_pb2.EngageRequest(
                    space="ctx",
                    session="bad",
                    message=lifecycle_pb2.SessionMessage(role="user", content="q"),
                    options=options,
                    known_at=bad,
                )
            ),
            "known_at",
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fld in field_violations(err.value)


async def test_engage_insights_brief(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    premise = (
        await propose(
            t.lifecycle, "fx", "Falcon's database budget is 2 servers", slot_key="falcon::db_budget"
        )
    ).memory
    fact = (
        await propose(
            t.lifecycle,
            "fx",
            "Falcon stores its orders in PostgreSQL",
            depends_on=[premise.name],
        )
    ).memory
    await propose(
        t.lifecycle, "fx", "Falcon's database budget is 4 servers", slot_key="falcon::db_budget"
    )
    decision = (
        await propose(
            t.lifecycle,
            "fx",
            "We decided to run Falcon on managed PostgreSQL",
            kind=types_pb2.MEMORY_KIND_DECISION,
        )
    ).memory
    rival = (await propose(t.lifecycle, "fx", "Cats sleep most of the day")).memory
    await _edge(t, fact, decision, types_pb2.EDGE_KIND_RELATED)
    await _edge(t, rival, fact, types_pb2.EDGE_KIND_CONTRADICTS)
    before = await raw_pg.execute(
        "SELECT count(*) FROM audit_log WHERE tenant_id = %s", (t.tenant_id,)
    )
    audit_before = (await before.fetchone())[0]
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    engaged = await stub.Engage(
        recall_pb2.EngageRequest(
            space="fx",
            session="s",
            message=lifecycle_pb2.SessionMessage(
                role="user", content="where does Falcon store orders?"
            ),
            consistency=RYW,
            k=1,
            include_insights=True,
        )
    )
    assert engaged.hits[0].memory.name == fact.name
    kinds = {(i.kind, i.memory) for i in engaged.insights}
    assert ("open_conflict", rival.name) in kinds
    assert ("superseded_premise", premise.name) in kinds
    assert ("earlier_decision", decision.name) in kinds
    for item in engaged.insights:
        assert item.related_hit == fact.name and item.quote and not item.missing
    after = await raw_pg.execute(
        "SELECT count(*) FROM audit_log WHERE tenant_id = %s", (t.tenant_id,)
    )
    assert (await after.fetchone())[0] == audit_before  # nothing written
    plain = await stub.Engage(
        recall_pb2.EngageRequest(
            space="fx",
            session="s2",
            message=lifecycle_pb2.SessionMessage(role="user", content="Falcon orders?"),
            consistency=RYW,
        )
    )
    assert not plain.insights


async def test_conflict_overtaken_when_a_side_stops_being_live(make_tenant: Any) -> None:
    t = await make_tenant()
    ev = evidence_stub(t)
    a = (await propose(t.lifecycle, "ov", "The gate code is 1234")).memory
    b = (await propose(t.lifecycle, "ov", "The gate code is 9876")).memory
    await _edge(t, a, b, types_pb2.EDGE_KIND_CONTRADICTS)
    await t.lifecycle.RetractMemory(lifecycle_pb2.RetractMemoryRequest(name=b.name, reason="old"))
    (conflict,) = (await ev.ListConflicts(evidence_pb2.ListConflictsRequest(space="ov"))).conflicts
    assert conflict.state == evidence_pb2.CONFLICT_STATE_RESOLVED
    assert conflict.resolution == evidence_pb2.CONFLICT_RESOLUTION_OVERTAKEN
    assert conflict.resolver == "system"


async def test_graph_expansion_applies_the_request_filter(make_tenant: Any) -> None:
    """A neighbour is added only if the request's filter would have let it be a
    direct hit: kinds, tags, topic, session, slot key, creation time, grade."""
    t = await make_tenant()
    lifecycle = t.lifecycle

    async def remember(content: str, **kw: Any) -> Any:
        kw.setdefault("tags", ["orders"])
        kw.setdefault("session", "s1")
        kw.setdefault("topic", "falcon")
        return (await propose(lifecycle, "g", content, **kw)).memory

    seed = await remember("Project Falcon stores its orders in PostgreSQL")
    fits = await remember("The orders schema was reviewed by Dana")
    other_kind = await remember(
        "Run the orders backfill before Friday", kind=types_pb2.MEMORY_KIND_PROCEDURAL
    )
    untagged = await remember("The orders team meets on Mondays", tags=["meetings"])
    other_session = await remember("Orders peak at noon on weekdays", session="s2")
    other_topic = await remember("Orders are archived after a year", topic="billing")
    cutoff = datetime.now(UTC)
    await asyncio.sleep(0.05)
    later = await remember("Orders gained a currency column")
    for neighbour in (fits, other_kind, untagged, other_session, other_topic, later):
        await _edge(t, seed, neighbour, types_pb2.EDGE_KIND_RELATED)

    unfiltered = await _recall(
        t,
        "Falcon stores orders PostgreSQL",
        space="g",
        k=1,
        graph=recall_pb2.GraphExpansion(enabled=True),
    )
    assert unfiltered.hits[0].memory.name == seed.name
    assert {h.memory.name for h in unfiltered.hits[1:]} == {
        fits.name,
        other_kind.name,
        untagged.name,
        other_session.name,
        other_topic.name,
        later.name,
    }
    flt = recall_pb2.RecallFilter(
        kinds=[types_pb2.MEMORY_KIND_SEMANTIC],
        tags=["orders"],
        topic="falcon",
        session="s1",
        create_time_end=_ts(cutoff),
    )
    filtered = await _recall(
        t,
        "Falcon stores orders PostgreSQL",
        space="g",
        k=1,
        filter=flt,
        graph=recall_pb2.GraphExpansion(enabled=True),
    )
    assert [h.memory.name for h in filtered.hits] == [seed.name, fits.name]
