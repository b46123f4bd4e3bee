"""The SDK's `client.evidence` (sync and async) and the `engram evidence` / `engram
profile` commands, against the test server."""

from __future__ import annotations

import asyncio
from typing import Any

import engram
import pytest
from engram.v1 import evidence_pb2, types_pb2

from tests.test_cli import json_lines, run


def _sync_walk(address: str, key: str) -> dict[str, Any]:
    with engram.Client(address, key) as client:
        a = client.propose("sdk", "The API rate limit is 100 requests per minute", source="docs")
        b = client.propose("sdk", "The API rate limit is 500 requests per minute", source="forum")
        graded = client.evidence.set_level(a.memory.name, "official", reason="docs")
        report = client.evidence.assess(b.memory.name)
        applied = client.evidence.assess(b.memory.name, apply=True)
        conflicts = list(client.evidence.conflicts(state="open"))
        one = client.evidence.get_conflict(conflicts[0].name)
        resolved = client.evidence.resolve(
            one.name, "keep_winner", winner=a.memory.name, note="docs win"
        )
        c = client.propose("sdk", "Rate limits are documented in the API guide", source="x")
        edge = client.evidence.create_edge(c.memory.name, a.memory.name, "about", reason="topic")
        got = client.evidence.get_edge(edge.name)
        listed = list(client.evidence.edges(memory=a.memory.name, kinds=["about"]))
        client.evidence.delete_edge(edge.name)
        profile = client.evidence.profile("sdk", dry_run=True)
        runs = list(client.evidence.profiles(space="sdk"))
        with pytest.raises(engram.InvalidArgument):
            client.evidence.assess(b.memory.name, min_corroboration=-1)
        with pytest.raises(engram.InvalidArgument):
            client.evidence.create_edge(c.memory.name, a.memory.name, "likes")
    return locals()


async def test_sync_sdk_covers_every_rpc(make_tenant: Any) -> None:
    t = await make_tenant()
    ns = await asyncio.to_thread(_sync_walk, t.address, t.secret)
    assert ns["graded"].evidence_level == "OFFICIAL"
    assert ns["report"].suggested_level == types_pb2.EVIDENCE_LEVEL_UNVERIFIED
    assert ns["applied"].applied and ns["applied"].conflict.name
    assert ns["resolved"].conflict.resolution == evidence_pb2.CONFLICT_RESOLUTION_KEEP_WINNER
    assert ns["got"] == ns["edge"] and [e.name for e in ns["listed"]] == [ns["edge"].name]
    assert ns["profile"].live_memory_count == 2 and ns["runs"] == []


async def test_async_sdk(make_tenant: Any) -> None:
    t = await make_tenant()
    async with engram.AsyncClient(t.address, t.secret) as client:
        a = await client.propose("asdk", "The pool closes at 8pm", source="sign")
        b = await client.propose("asdk", "The pool closes at 10pm", source="friend")
        edge = await client.evidence.create_edge(b.memory.name, a.memory.name, "contradicts")
        assert (await client.evidence.get_edge(edge.name)).name == edge.name
        conflicts = [c async for c in client.evidence.conflicts(memory=a.memory.name)]
        assert len(conflicts) == 1
        done = await client.evidence.resolve(conflicts[0].name, "dismiss")
        assert done.conflict.state == evidence_pb2.CONFLICT_STATE_RESOLVED
        edges = [e async for e in client.evidence.edges(memory=a.memory.name)]
        assert [e.name for e in edges] == [edge.name]
        await client.evidence.delete_edge(edge.name)
        graded = await client.evidence.set_level(a.memory.name, "corroborated")
        assert graded.evidence_level == "CORROBORATED"
        report = await client.evidence.assess(a.memory.name)
        assert report.memory.name == a.memory.name
        profile = await client.evidence.profile("asdk")
        assert profile.live_memory_count == 2
        assert [p.space async for p in client.evidence.profiles(space="asdk")] == ["asdk"]
        assert (await client.evidence.get_conflict(conflicts[0].name)).name == conflicts[0].name


async def test_cli_evidence_and_profile(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    t = await make_tenant()
    conn = ("--address", server.address, "--api-key", t.secret, "--json")
    code, out, err = await run(
        capsys, "memory", "propose", "cli", "Deploys need two approvals", "--source", "wiki", *conn
    )
    assert code == 0, err
    first = json_lines(out)[0]["memory"]["name"]
    code, out, err = await run(
        capsys, "memory", "propose", "cli", "Deploys need no approvals", "--source", "chat", *conn
    )
    second = json_lines(out)[0]["memory"]["name"]
    code, out, err = await run(capsys, "evidence", "grade", first, "single_source", *conn)
    assert code == 0, err and json_lines(out)[0]["evidence_level"] == "SINGLE_SOURCE"
    code, out, err = await run(capsys, "evidence", "assess", second, "--apply", *conn)
    assert code == 0, err
    assessed = json_lines(out)[0]
    assert assessed["contradicting"] and assessed["conflict"]["name"]
    code, out, err = await run(capsys, "evidence", "conflicts", "--state", "open", *conn)
    (listed,) = json_lines(out)
    code, out, err = await run(capsys, "evidence", "conflict", listed["name"], *conn)
    assert json_lines(out)[0]["name"] == listed["name"]
    code, out, err = await run(
        capsys,
        "evidence",
        "resolve",
        listed["name"],
        "keep_all",
        "--note",
        "different teams",
        *conn,
    )
    assert code == 0, err
    code, out, err = await run(
        capsys, "evidence", "edge", "create", first, second, "related", *conn
    )
    edge = json_lines(out)[0]["name"]
    code, out, err = await run(capsys, "evidence", "edge", "get", edge, *conn)
    assert json_lines(out)[0]["name"] == edge
    code, out, err = await run(capsys, "evidence", "edges", "--memory", first, *conn)
    assert [e["name"] for e in json_lines(out)] == [edge]
    code, out, err = await run(capsys, "evidence", "edge", "delete", edge, *conn)
    assert code == 0, err
    code, out, err = await run(capsys, "profile", "cli", "--dry-run", *conn)
    assert code == 0, err and json_lines(out)[0]["liveMemoryCount"] == "2"
    code, out, err = await run(capsys, "profile", "cli", *conn)
    code, out, err = await run(capsys, "profile", "cli", "--list", *conn)
    assert len(json_lines(out)) == 1
    code, out, err = await run(
        capsys, "evidence", "assess", second, "--min-corroboration", "-1", *conn
    )
    assert code == 2
