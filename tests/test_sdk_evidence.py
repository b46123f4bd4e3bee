"""The SDK's `client.evidence` (sync and async) and the `engram evidence` / `engram
profile` commands, against the test server."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import engram
import pytest

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
    assert ns["report"].suggested_level is engram.EvidenceLevel.UNVERIFIED
    assert ns["applied"].applied and ns["applied"].conflict.name
    assert ns["resolved"].conflict.resolution is engram.ConflictResolution.KEEP_WINNER
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
        assert done.conflict.state is engram.ConflictState.RESOLVED
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


def _provenance_walk(address: str, key: str) -> dict[str, Any]:
    from datetime import UTC, datetime

    berlin_from = datetime(2021, 3, 1, tzinfo=UTC)
    lisbon_from = datetime(2025, 5, 1, tzinfo=UTC)
    with engram.Client(address, key) as client:
        berlin = client.propose(
            "bt",
            "Alice lives in Berlin",
            slot_key="alice::city",
            source="alice",
            origin="user_stated",
            valid_from=berlin_from,
        ).memory
        before_move = datetime.now(UTC)
        lisbon = client.propose(
            "bt",
            "Alice lives in Lisbon",
            slot_key="alice::city",
            origin=engram.MemoryOrigin.USER_STATED,
            valid_from=lisbon_from.replace(tzinfo=None),  # naive reads as UTC
        ).memory
        closed = client.get(berlin.name)
        batch = client.batch_propose(
            [
                engram.MemoryProposal(
                    space="bt",
                    content="The office was in Kreuzberg",
                    origin="document",
                    valid_from=berlin_from,
                    valid_to=lisbon_from,
                ),
                {"space": "bt", "content": "The tool saw a login", "origin": "tool_observed"},
            ]
        )
        now = [
            h.memory.name
            for h in client.recall("where does Alice live", "bt", k=1, read_your_writes=True)
        ]
        in_2023 = [
            h.memory.name
            for h in client.recall(
                "where does Alice live",
                "bt",
                k=1,
                valid_at=datetime(2023, 1, 1, tzinfo=UTC),
                read_your_writes=True,
            )
        ]
        believed = [
            h.memory.name
            for h in client.recall(
                "where does Alice live", "bt", k=1, known_at=before_move, read_your_writes=True
            )
        ]
        context_in_2023 = client.build_context(
            "where does Alice live",
            "bt",
            valid_at=datetime(2023, 1, 1, tzinfo=UTC),
            read_your_writes=True,
        ).cited_memories
        engaged_before_move = client.engage(
            "bt", "walk", "Where does Alice live?", known_at=before_move, read_your_writes=True
        ).cited_memories
        errors: dict[str, list[str]] = {}
        for label, call in (
            ("origin", lambda: client.propose("bt", "x", origin="gossip")),
            ("relative", lambda: client.propose("bt", "x", valid_from=timedelta(days=-1))),
            (
                "backwards",
                lambda: client.propose("bt", "x", valid_from=lisbon_from, valid_to=berlin_from),
            ),
            (
                "batch",
                lambda: client.batch_propose(
                    [
                        {
                            "space": "bt",
                            "content": "y",
                            "valid_from": lisbon_from,
                            "valid_to": berlin_from,
                        }
                    ]
                ),
            ),
            ("valid_at", lambda: client.recall("q", "bt", valid_at="yesterday")),
        ):
            with pytest.raises(engram.InvalidArgument) as caught:
                call()
            errors[label] = caught.value.fields
    return locals()


async def test_sdk_provenance_and_bitemporal(make_tenant: Any) -> None:
    from datetime import UTC, datetime

    t = await make_tenant()
    ns = await asyncio.to_thread(_provenance_walk, t.address, t.secret)
    assert ns["berlin"].origin == engram.MemoryOrigin.USER_STATED
    assert ns["berlin"].valid_from == datetime(2021, 3, 1, tzinfo=UTC)
    assert ns["berlin"].valid_to is None and ns["lisbon"].valid_to is None
    # The successor in the slot closes the old fact where the new one starts.
    assert ns["closed"].status == engram.MemoryStatus.SUPERSEDED
    assert ns["closed"].valid_to == datetime(2025, 5, 1, tzinfo=UTC)
    office, login = (r.memory for r in ns["batch"])
    assert office.origin == engram.MemoryOrigin.DOCUMENT
    assert (office.valid_from, office.valid_to) == (
        datetime(2021, 3, 1, tzinfo=UTC),
        datetime(2025, 5, 1, tzinfo=UTC),
    )
    assert login.origin == engram.MemoryOrigin.TOOL_OBSERVED and login.valid_from is None
    assert ns["now"] == [ns["lisbon"].name]
    assert ns["in_2023"] == [ns["berlin"].name]
    assert ns["believed"] == [ns["berlin"].name]
    assert ns["context_in_2023"][0] == ns["berlin"].name
    assert ns["lisbon"].name not in ns["context_in_2023"]
    assert ns["berlin"].name in ns["engaged_before_move"]
    assert ns["lisbon"].name not in ns["engaged_before_move"]
    assert ns["errors"] == {
        "origin": ["proposal.origin"],
        "relative": ["proposal.valid_from"],
        "backwards": ["proposal.valid_to"],
        "batch": ["proposals[0].valid_to"],
        "valid_at": ["valid_at"],
    }


async def test_async_sdk_provenance_and_bitemporal(make_tenant: Any) -> None:
    from datetime import UTC, datetime

    t = await make_tenant()
    async with engram.AsyncClient(t.address, t.secret) as client:
        old = await client.propose(
            "abt",
            "The bakery opens at 7",
            slot_key="bakery::opens",
            origin="document",
            valid_from=datetime(2022, 1, 1, tzinfo=UTC),
        )
        await client.propose(
            "abt",
            "The bakery opens at 8",
            slot_key="bakery::opens",
            valid_from=datetime(2024, 1, 1, tzinfo=UTC),
        )
        found = await client.recall(
            "when does the bakery open",
            "abt",
            k=1,
            valid_at=datetime(2023, 1, 1, tzinfo=UTC),
            read_your_writes=True,
        )
        got = await client.get(old.memory.name)
    assert [h.memory.name for h in found] == [old.memory.name]
    assert got.origin == engram.MemoryOrigin.DOCUMENT
    assert got.valid_to == datetime(2024, 1, 1, tzinfo=UTC)


async def test_cli_provenance_and_recall(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    t = await make_tenant()
    conn = ("--address", server.address, "--api-key", t.secret)
    code, out, err = await run(
        capsys,
        "memory",
        "propose",
        "clibt",
        "Bob works at Initech",
        "--slot-key",
        "bob::employer",
        "--origin",
        "user_stated",
        "--valid-from",
        "2020-02-01T00:00:00Z",
        "--json",
        *conn,
    )
    assert code == 0, err
    initech = json_lines(out)[0]["memory"]
    assert initech["origin"] == "USER_STATED" and initech["valid_from"].startswith("2020-02-01")
    code, out, err = await run(
        capsys,
        "memory",
        "propose",
        "clibt",
        "Bob works at Hooli",
        "--slot-key",
        "bob::employer",
        "--valid-from",
        "2024-06-01T00:00:00Z",
        *conn,
    )
    assert code == 0, err and out.startswith("ACCEPTED")
    code, out, err = await run(capsys, "memory", "get", initech["name"], "--json", *conn)
    assert json.loads(out)["valid_to"].startswith("2024-06-01")
    code, out, err = await run(
        capsys,
        "memory",
        "recall",
        "where does Bob work",
        "--space",
        "clibt",
        "-k",
        "1",
        "--fresh",
        *conn,
    )
    assert code == 0, err and "Bob works at Hooli" in out
    code, out, err = await run(
        capsys,
        "memory",
        "recall",
        "where does Bob work",
        "--space",
        "clibt",
        "-k",
        "1",
        "--valid-at",
        "2022-01-01T00:00:00Z",
        "--fresh",
        "--json",
        *conn,
    )
    assert code == 0, err
    assert [h["memory"]["name"] for h in json_lines(out)] == [initech["name"]]
    code, out, err = await run(
        capsys,
        "memory",
        "recall",
        "where does Bob work",
        "--space",
        "clibt",
        "--known-at",
        "2000-01-01T00:00:00Z",
        "--fresh",
        *conn,
    )
    assert code == 0, err and out == ""
    code, out, err = await run(
        capsys,
        "memory",
        "propose",
        "clibt",
        "backwards",
        "--valid-from",
        "2024-01-01T00:00:00Z",
        "--valid-to",
        "2023-01-01T00:00:00Z",
        *conn,
    )
    assert code == 1 and "proposal.valid_to" in err
    code, out, err = await run(
        capsys, "memory", "recall", "q", "--space", "clibt", "--graph", "--hops", "4", *conn
    )
    assert code == 1 and "graph.max_hops" in err
