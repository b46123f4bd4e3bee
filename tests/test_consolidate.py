"""Consolidate: summary + typed decomposition with ABOUT edges, idempotent, buffer marked."""

from __future__ import annotations

import json
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from engram_server.learning.decompose import decompose, extractive_summary
from engram_server.learning.model import Turn
from engram_server.llm import LLMConfig
from engram_server.platform.context import AppContext
from engram_server.store.llm_config import set_tenant_llm_config

from tests.lifecycle_helpers import count_rows, field_violations
from tests.llm_server import LocalChatServer

CONVERSATION = [
    ("user", "Morning! Quick sync on Apollo."),
    ("assistant", "Sure, what's new?"),
    ("user", "The deadline for Apollo is March 14."),
    ("user", "We decided to use Kafka for the event bus."),
    ("assistant", "Makes sense. Who handles the pipeline?"),
    ("user", "Dana owns the ingestion pipeline."),
    ("user", "I'll send the architecture doc to Dana by Friday."),
    ("user", "Last week we shipped the Apollo beta to Acme."),
    ("user", "Should we migrate the reporting service to Kafka too?"),
    ("user", "Thanks, talk later!"),
]


async def buffer(t: Any, space: str, session: str, messages: list[tuple[str, str]]) -> None:
    for role, content in messages:
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space=space,
                session=session,
                message=lifecycle_pb2.SessionMessage(role=role, content=content),
            )
        )


async def consolidate(t: Any, space: str, session: str, **kw: Any) -> Any:
    return await t.lifecycle.Consolidate(
        lifecycle_pb2.ConsolidateRequest(space=space, session=session, **kw)
    )


def test_decomposition_is_typed_and_deterministic() -> None:
    turns = [Turn(r, c, i) for i, (r, c) in enumerate(CONVERSATION)]
    d = decompose(turns)
    assert d == decompose(turns)
    kinds = {r.content: r.kind.value for r in d.records}
    assert kinds["The deadline for Apollo is March 14."] == "SEMANTIC"
    assert kinds["We decided to use Kafka for the event bus."] == "DECISION"
    assert kinds["I'll send the architecture doc to Dana by Friday."] == "ACTION"
    assert kinds["Last week we shipped the Apollo beta to Acme."] == "EVENT"
    assert kinds["Should we migrate the reporting service to Kafka too?"] == "QUESTION"
    assert {"Apollo", "Kafka", "Dana", "Acme"} <= set(d.entities)
    about = {r.content: set(r.entities) for r in d.records}
    assert about["Last week we shipped the Apollo beta to Acme."] == {"Apollo", "Acme"}
    summary = extractive_summary(turns)
    assert "Apollo" in summary and "Thanks, talk later" not in summary


async def test_consolidate_stores_summary_records_and_about_edges(
    make_tenant: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    await buffer(t, "team/a", "s1", CONVERSATION)
    response = await consolidate(t, "team/a", "s1")
    assert not response.already_consolidated
    summary = response.summary
    assert summary.kind == types_pb2.MEMORY_KIND_SUMMARY and summary.session == "s1"
    assert "Apollo" in summary.content
    by_kind: dict[int, list[Any]] = {}
    for m in response.records:
        by_kind.setdefault(m.kind, []).append(m)
    entities = {m.content: m for m in by_kind[types_pb2.MEMORY_KIND_ENTITY]}
    assert {"Apollo", "Kafka", "Dana", "Acme"} <= set(entities)
    for kind in ("DECISION", "EVENT", "ACTION", "QUESTION", "SEMANTIC"):
        assert by_kind.get(types_pb2.MemoryKind.Value(f"MEMORY_KIND_{kind}")), kind
    event = next(m for m in by_kind[types_pb2.MEMORY_KIND_EVENT] if "Acme" in m.content)
    cur = await raw_pg.execute(
        "SELECT target_id::text FROM edges WHERE tenant_id = %s AND source_id = %s"
        " AND kind = 'ABOUT'",
        (t.tenant_id, event.name.split("/")[1]),
    )
    targets = {r[0] for r in await cur.fetchall()}
    assert targets == {entities["Apollo"].name.split("/")[1], entities["Acme"].name.split("/")[1]}
    # Every edge was audited.
    cur = await raw_pg.execute("SELECT count(*) FROM edges WHERE tenant_id = %s", (t.tenant_id,))
    edges = (await cur.fetchone())[0]
    cur = await raw_pg.execute(
        "SELECT count(*) FROM audit_log WHERE tenant_id = %s AND action = 'EDGE'", (t.tenant_id,)
    )
    assert edges > 0 and (await cur.fetchone())[0] == edges
    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space="team/a", session="s1")
    )
    assert window.consolidated


async def test_consolidating_twice_stores_nothing_new(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await buffer(t, "s", "s1", CONVERSATION)
    first = await consolidate(t, "s", "s1")
    memories = await count_rows(raw_pg, "memories", t.tenant_id)
    edges = await count_rows(raw_pg, "edges", t.tenant_id)
    audit = await count_rows(raw_pg, "audit_log", t.tenant_id)
    second = await consolidate(t, "s", "s1")
    assert second.already_consolidated
    assert second.summary.name == first.summary.name
    assert {m.name for m in second.records} == {m.name for m in first.records}
    assert await count_rows(raw_pg, "memories", t.tenant_id) == memories
    assert await count_rows(raw_pg, "edges", t.tenant_id) == edges
    assert await count_rows(raw_pg, "audit_log", t.tenant_id) == audit


async def test_a_second_session_reuses_known_entities(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    await buffer(t, "s", "s1", CONVERSATION)
    first = await consolidate(t, "s", "s1")
    await buffer(t, "s", "s2", [("user", "Acme signed the Apollo contract yesterday.")])
    second = await consolidate(t, "s", "s2")
    names = {m.content: m.name for m in first.records if m.kind == types_pb2.MEMORY_KIND_ENTITY}
    again = {m.content: m.name for m in second.records if m.kind == types_pb2.MEMORY_KIND_ENTITY}
    assert again["Acme"] == names["Acme"] and again["Apollo"] == names["Apollo"]


async def test_llm_summary_when_asked(make_tenant: Any, app: AppContext) -> None:
    t = await make_tenant()
    await buffer(t, "s", "s1", CONVERSATION)
    reply = json.dumps({"summary": "Apollo is due March 14; the team picked Kafka."})
    with LocalChatServer(lambda messages: reply) as chat:
        await set_tenant_llm_config(app.db, t.tenant_id, LLMConfig("openai", chat.url, "m"))
        assert app.llm is not None
        app.llm.invalidate(t.tenant_id)
        response = await consolidate(t, "s", "s1", use_llm=True)
        assert len(chat.requests) == 1
    assert response.summary.content == "Apollo is due March 14; the team picked Kafka."
    assert response.summary.attributes["summary_by"] == "llm"


async def test_use_llm_without_llm_and_empty_sessions(make_tenant: Any) -> None:
    t = await make_tenant()
    await buffer(t, "s", "s1", CONVERSATION)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await consolidate(t, "s", "s1", use_llm=True)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await consolidate(t, "s", "never-used")
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


async def test_bad_input_names_the_field(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    for request, field in (
        (lifecycle_pb2.ConsolidateRequest(session="s1"), "space"),
        (lifecycle_pb2.ConsolidateRequest(space="s"), "session"),
        (lifecycle_pb2.ConsolidateRequest(space="bad space", session="s1"), "space"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await t.lifecycle.Consolidate(request)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field in field_violations(err.value)
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0


async def test_tenant_b_cannot_consolidate_a_session_of_a(make_tenant: Any, raw_pg: Any) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await buffer(a, "s", "s1", CONVERSATION)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await consolidate(b, "s", "s1")
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert await count_rows(raw_pg, "memories", b.tenant_id) == 0
    assert await count_rows(raw_pg, "memories", a.tenant_id) == 0
    window = await a.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space="s", session="s1")
    )
    assert not window.consolidated and len(window.messages) == len(CONVERSATION)


async def test_a_session_purge_takes_the_entities_only_it_mentioned(
    make_tenant: Any, raw_pg: Any
) -> None:
    """Consolidate keeps a session's names as ENTITY memories shared by the
    space's sessions: a purge of the session takes those no other memory points
    at, and keeps those another session mentions or a caller stored."""
    t = await make_tenant()
    await t.lifecycle.ProposeMemory(
        lifecycle_pb2.ProposeMemoryRequest(
            proposal=lifecycle_pb2.MemoryProposal(
                space="team/a", content="Acme", kind=types_pb2.MEMORY_KIND_ENTITY
            )
        )
    )
    await buffer(t, "team/a", "s1", CONVERSATION)
    await consolidate(t, "team/a", "s1")
    await buffer(t, "team/a", "s2", [("user", "We decided to use Kafka for the Xanoril ledger.")])
    await consolidate(t, "team/a", "s2")

    async def entities() -> set[str]:
        listed = await t.lifecycle.ListMemories(
            lifecycle_pb2.ListMemoriesRequest(space="team/a", kinds=[types_pb2.MEMORY_KIND_ENTITY])
        )
        return {m.content for m in listed.memories}

    assert {"Apollo", "Dana", "Acme", "Kafka", "Xanoril"} <= await entities()
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="team/a", session="s1", reason="erasure")
    )
    left = await entities()
    assert "Apollo" not in left and "Dana" not in left  # s1's alone
    assert {"Kafka", "Xanoril", "Acme"} <= left  # s2 mentions them; Acme is a caller's
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="team/a", session="s2", reason="erasure")
    )
    assert await entities() == {"Acme"}
