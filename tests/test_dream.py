"""Dream State: dry run, audited apply, ratio cap, protected memories, isolation, CLI."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from engram_server.cli import main
from engram_server.llm import LLMConfig
from engram_server.platform.context import AppContext
from engram_server.store.llm_config import set_tenant_llm_config

from tests.lifecycle_helpers import ACTIVE, SUPERSEDED, count_rows, field_violations, propose
from tests.llm_server import LocalChatServer

SPACE = "team/kb"
DISTINCT = [
    "Dana owns the Apollo ingestion pipeline.",
    "The Apollo deadline is March 14.",
    "Kafka carries the billing events.",
    "Lunch orders go through the office channel.",
    "The staging cluster runs in eu-west-1.",
    "Priya reviews every database migration.",
    "Release notes are written in the wiki.",
    "The on-call rotation changes every Monday.",
]


async def seed(t: Any, space: str = SPACE) -> dict[str, Any]:
    """Eight distinct memories plus an exact-ish and two near duplicates."""
    stored: dict[str, Any] = {}
    for content in DISTINCT:
        stored[content] = (await propose(t.lifecycle, space, content)).memory
    for content in (
        "dana owns the apollo ingestion pipeline",  # exact after normalisation
        "Kafka carries all the billing events.",  # near duplicate
        "The on-call rotation changes every Monday!",  # exact after normalisation
    ):
        stored[content] = (await propose(t.lifecycle, space, content, confidence=0.5)).memory
    return stored


async def dream(t: Any, space: str = SPACE, **kw: Any) -> Any:
    return await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(space=space, **kw))


async def snapshot(raw_pg: Any, tenant_id: str) -> list[Any]:
    cur = await raw_pg.execute(
        "SELECT id, status, tags, revision FROM memories WHERE tenant_id = %s ORDER BY id",
        (tenant_id,),
    )
    return list(await cur.fetchall())


async def test_dry_run_reports_and_changes_nothing(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    stored = await seed(t)
    before = await snapshot(raw_pg, t.tenant_id)
    audit = await count_rows(raw_pg, "audit_log", t.tenant_id)
    edges = await count_rows(raw_pg, "edges", t.tenant_id)
    response = await dream(t, dry_run=True, max_deprecation_ratio=0.5)
    assert not response.applied
    merges = [a for a in response.actions if a.action == "merge"]
    merged = {a.memories[0]: a.memories[1] for a in merges}
    assert merged == {
        stored["dana owns the apollo ingestion pipeline"].name: stored[DISTINCT[0]].name,
        stored["Kafka carries all the billing events."].name: stored[DISTINCT[2]].name,
        stored["The on-call rotation changes every Monday!"].name: stored[DISTINCT[7]].name,
    }
    assert {a.action for a in response.actions} >= {"merge", "tag", "relate"}
    assert await snapshot(raw_pg, t.tenant_id) == before
    assert await count_rows(raw_pg, "audit_log", t.tenant_id) == audit
    assert await count_rows(raw_pg, "edges", t.tenant_id) == edges


async def test_apply_audits_every_change(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    stored = await seed(t)
    response = await dream(t, max_deprecation_ratio=0.5)
    assert response.applied and response.actions
    for action in response.actions:
        if action.action == "merge":
            loser, keeper = action.memories
            got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=loser))
            assert got.status == SUPERSEDED and got.superseded_by == keeper
            entries = await t.lifecycle.ListAuditEntries(
                lifecycle_pb2.ListAuditEntriesRequest(memory=loser)
            )
            assert entries.entries[-1].to_status == SUPERSEDED
            assert entries.entries[-1].reason.startswith("dream:")
        elif action.action == "tag":
            got = await t.lifecycle.GetMemory(
                lifecycle_pb2.GetMemoryRequest(name=action.memories[0])
            )
            added = list(action.detail["tags_added"])
            assert set(added) <= set(got.tags) and got.revision == 2
            entries = await t.lifecycle.ListAuditEntries(
                lifecycle_pb2.ListAuditEntriesRequest(memory=action.memories[0])
            )
            revisions = [e for e in entries.entries if e.action == types_pb2.AUDIT_ACTION_REVISION]
            assert len(revisions) == 1 and revisions[0].reason == "revised tags"
        elif action.action == "relate":
            source, target = (n.split("/")[1] for n in action.memories)
            cur = await raw_pg.execute(
                "SELECT count(*) FROM edges WHERE tenant_id = %s AND source_id = %s"
                " AND target_id = %s AND kind = 'RELATED'",
                (t.tenant_id, source, target),
            )
            assert (await cur.fetchone())[0] == 1
            entries = await t.lifecycle.ListAuditEntries(
                lifecycle_pb2.ListAuditEntriesRequest(memory=action.memories[0])
            )
            assert any(e.action == types_pb2.AUDIT_ACTION_EDGE for e in entries.entries)
    assert stored[DISTINCT[0]].name in {
        a.memories[1] for a in response.actions if a.action == "merge"
    }
    # A second pass finds nothing left to merge or relate.
    again = await dream(t, max_deprecation_ratio=0.5)
    assert not [a for a in again.actions if a.action in ("merge", "relate")]


async def test_ratio_cap_holds(make_tenant: Any) -> None:
    t = await make_tenant()
    await seed(t)  # 11 memories, 3 duplicates
    response = await dream(t, max_deprecation_ratio=0.1)  # floor(1.1) = 1
    assert sum(1 for a in response.actions if a.action in ("merge", "deprecate")) == 1
    listed = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space=SPACE, statuses=[SUPERSEDED])
    )
    assert len(listed.memories) == 1
    # Default ratio (0 means 0.1) holds too.
    second = await dream(t, dry_run=True)
    assert sum(1 for a in second.actions if a.action == "merge") == 1


async def test_official_and_pinned_are_never_touched(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    official = (
        await propose(
            t.lifecycle,
            SPACE,
            "Kafka carries the billing events.",
            evidence_level=types_pb2.EVIDENCE_LEVEL_OFFICIAL,
            confidence=0.1,
        )
    ).memory
    official_copy = (
        await propose(
            t.lifecycle,
            SPACE,
            "kafka carries the billing events",
            evidence_level=types_pb2.EVIDENCE_LEVEL_OFFICIAL,
        )
    ).memory
    pinned = (
        await propose(t.lifecycle, SPACE, "Kafka carries the billing events!!", tags=["pinned"])
    ).memory
    for content in DISTINCT[3:]:
        await propose(t.lifecycle, SPACE, content)
    response = await dream(t, max_deprecation_ratio=1.0)
    touched = {n for a in response.actions if a.action in ("merge", "tag") for n in a.memories[:1]}
    assert not touched & {official.name, official_copy.name, pinned.name}
    for m in (official, official_copy, pinned):
        got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))
        assert got.status == ACTIVE and got.revision == 1 and list(got.tags) == list(m.tags)


async def test_unverified_duplicates_go_before_corroborated_ones(make_tenant: Any) -> None:
    """Of two copies, the better-graded one is kept even when the other is older and
    held with more confidence; an ungraded copy yields to a graded one too."""
    t = await make_tenant()
    unverified = (
        await propose(
            t.lifecycle,
            SPACE,
            "Kafka carries the billing events.",
            evidence_level=types_pb2.EVIDENCE_LEVEL_UNVERIFIED,
            confidence=1.0,
        )
    ).memory
    ungraded = (
        await propose(t.lifecycle, SPACE, "Dana owns the Apollo ingestion pipeline.")
    ).memory
    corroborated = (
        await propose(
            t.lifecycle,
            SPACE,
            "kafka carries the billing events",
            evidence_level=types_pb2.EVIDENCE_LEVEL_CORROBORATED,
            confidence=0.6,
        )
    ).memory
    single = (
        await propose(
            t.lifecycle,
            SPACE,
            "Dana owns the Apollo ingestion pipeline!",
            evidence_level=types_pb2.EVIDENCE_LEVEL_SINGLE_SOURCE,
            confidence=0.5,
        )
    ).memory
    for content in DISTINCT[3:]:
        await propose(t.lifecycle, SPACE, content)
    response = await dream(t, dry_run=True, max_deprecation_ratio=1.0)
    merges = {a.memories[0]: a.memories[1] for a in response.actions if a.action == "merge"}
    assert merges == {unverified.name: corroborated.name, ungraded.name: single.name}


async def test_llm_review_gets_the_policy_and_can_veto(make_tenant: Any, app: AppContext) -> None:
    t = await make_tenant()
    stored = await seed(t)
    veto = stored["Kafka carries all the billing events."].name
    lunch = stored["Lunch orders go through the office channel."].name
    reply = json.dumps(
        {"veto": [veto], "deprecate": [{"memory": lunch, "reason": "not work knowledge"}]}
    )
    with LocalChatServer(lambda messages: reply) as chat:
        await set_tenant_llm_config(app.db, t.tenant_id, LLMConfig("openai", chat.url, "m"))
        assert app.llm is not None
        app.llm.invalidate(t.tenant_id)
        response = await dream(
            t,
            dry_run=True,
            max_deprecation_ratio=0.5,
            use_llm=True,
            policy_text="Only keep engineering knowledge.",
        )
        sent = json.dumps(chat.requests[-1])
    assert "Only keep engineering knowledge." in sent
    merged = {a.memories[0] for a in response.actions if a.action == "merge"}
    assert veto not in merged and len(merged) == 2
    deprecated = [a for a in response.actions if a.action == "deprecate"]
    assert [a.memories[0] for a in deprecated] == [lunch]


async def test_use_llm_without_llm_and_bad_input(make_tenant: Any) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await dream(t, dry_run=True, use_llm=True)
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    for kw, field in (
        ({"space": ""}, "space"),
        ({"max_deprecation_ratio": 1.5}, "max_deprecation_ratio"),
        ({"max_deprecation_ratio": -0.1}, "max_deprecation_ratio"),
        ({"policy_text": "x" * 9000}, "policy_text"),
    ):
        request = {"space": SPACE, "dry_run": True, **kw}
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(**request))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field in field_violations(err.value)


async def test_dream_needs_the_operator_scope(make_tenant: Any) -> None:
    t = await make_tenant()
    from engram.v1 import lifecycle_pb2_grpc

    writer = lifecycle_pb2_grpc.LifecycleServiceStub(
        t.channel_for(await t.new_key(scopes=("read", "write")))
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await writer.Dream(lifecycle_pb2.DreamRequest(space=SPACE, dry_run=True))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED


async def test_tenant_b_cannot_dream_over_a(make_tenant: Any, raw_pg: Any) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await seed(a)
    before = await snapshot(raw_pg, a.tenant_id)
    response = await dream(b, max_deprecation_ratio=1.0)
    assert list(response.actions) == []
    assert await snapshot(raw_pg, a.tenant_id) == before


async def test_cli_dry_run_then_apply(
    make_tenant: Any, capsys: pytest.CaptureFixture[str], raw_pg: Any
) -> None:
    t = await make_tenant()
    await seed(t)
    base = ["--address", t.address, "--api-key", t.secret]

    async def run(*argv: str) -> tuple[int, str]:
        capsys.readouterr()
        code = await asyncio.to_thread(main, ["dream", *argv, *base])
        return code, capsys.readouterr().out

    before = await snapshot(raw_pg, t.tenant_id)
    code, out = await run("--space", SPACE, "--max-ratio", "0.5", "--json")
    report = json.loads(out)
    assert code == 0 and report["applied"] is False
    assert sum(1 for a in report["actions"] if a["action"] == "merge") == 3
    assert await snapshot(raw_pg, t.tenant_id) == before
    code, out = await run("--space", SPACE, "--max-ratio", "0.5", "--apply")
    assert code == 0 and "applied" in out.splitlines()[0]
    listed = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space=SPACE, statuses=[SUPERSEDED])
    )
    assert len(listed.memories) == 3


async def test_a_word_that_cannot_be_a_tag_is_never_proposed_as_one(make_tenant: Any) -> None:
    """A recurring word longer than a tag may be (64 characters: a pasted hash or
    identifier) is not a keyword tag: Dream used to plan it, and applying the plan
    then failed half-way with INVALID_ARGUMENT on `memory.tags[...]`, after the
    actions before it were applied."""
    t = await make_tenant()
    stored = await seed(t)
    word = "Zq" + "x" * 70
    for content in (f"The vault token {word} rotates weekly.", f"Rotate {word} after deploys."):
        await propose(t.lifecycle, SPACE, content)
    planned = await dream(t, dry_run=True, max_deprecation_ratio=0.5)
    tags = [tag for a in planned.actions if a.action == "tag" for tag in a.detail["tags_added"]]
    assert tags and all(len(tag) <= 64 for tag in tags)
    applied = await dream(t, max_deprecation_ratio=0.5)
    assert applied.applied
    loser = stored["dana owns the apollo ingestion pipeline"].name
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=loser))
    assert got.status == SUPERSEDED
