"""`engram maintenance session-decisions`: decisions IngestSession mined before it
recorded their session's space are re-attributed (so a purge finds them) when the
session still exists in one space, and removed otherwise."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import pytest
from engram.v1 import decisions_pb2, decisions_pb2_grpc, lifecycle_pb2
from engram_server.cli import main

from tests.conftest import TestTenant

D = decisions_pb2
REPO = "github.com/acme/api"
SAID = "We decided to pin the base image because the nightly one broke builds {n}."


async def _mine(t: TestTenant, space: str, session: str, n: str) -> Any:
    await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=space,
            session=session,
            message=lifecycle_pb2.SessionMessage(role="assistant", content=SAID.format(n=n)),
        )
    )
    out = await decisions_pb2_grpc.DecisionsServiceStub(t.channel).IngestSession(
        D.IngestSessionRequest(space=space, session=session, repository=REPO)
    )
    (decision,) = out.decisions
    return decision


async def _forget_sources(raw_pg: Any, tenant_id: str) -> None:
    """What decisions mined before the attributes existed look like."""
    await raw_pg.execute(
        "UPDATE memories SET attributes = attributes - 'source_space' - 'source_session'"
        " WHERE tenant_id = %s AND kind = 'DECISION'",
        (tenant_id,),
    )


async def _run(*argv: str) -> int:
    return await asyncio.to_thread(main, ["maintenance", "session-decisions", *argv])


async def _exists(t: TestTenant, name: str) -> bool:
    try:
        await decisions_pb2_grpc.DecisionsServiceStub(t.channel).GetDecision(
            D.GetDecisionRequest(name=name)
        )
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.NOT_FOUND
        return False
    return True


async def test_unattributed_session_decisions_are_reattributed_or_removed(
    make_tenant: Any,
    raw_pg: Any,
    database_url: str,
    redis_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    t = await make_tenant()
    other = await make_tenant()
    kept = await _mine(t, "team/chat", "s1", "twice")
    cleared = await _mine(t, "team/old", "gone", "once")
    await t.lifecycle.ClearSession(
        lifecycle_pb2.ClearSessionRequest(space="team/old", session="gone")
    )
    twin_a = await _mine(t, "team/a", "standup", "thrice")
    twin_b = await _mine(t, "team/b", "standup", "four times")
    foreign = await _mine(other, "team/chat", "s1", "twice")
    await _forget_sources(raw_pg, t.tenant_id)
    await _forget_sources(raw_pg, other.tenant_id)

    # The gap: a purge of the session cannot find the decision mined from it.
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="team/a", session="standup", reason="erasure")
    )
    assert await _exists(t, twin_a.name)

    urls = ["--database-url", database_url, "--redis-url", redis_url, "--tenant", t.tenant_id]
    capsys.readouterr()
    assert await _run(*urls, "--json") == 0
    lines = capsys.readouterr().out.splitlines()
    planned = {p["decision"]: (p["action"], p["source_space"]) for p in map(json.loads, lines)}
    assert planned == {
        kept.name: ("reattributed", "team/chat"),
        cleared.name: ("removed", ""),  # its session is gone
        # team/a's "standup" was purged; team/b's does not hold these words.
        twin_a.name: ("removed", ""),
        twin_b.name: ("reattributed", "team/b"),
    }
    assert await _exists(t, cleared.name)  # a dry run changes nothing

    assert await _run(*urls) == 0
    assert "4 unattributed session decision(s), to do" in capsys.readouterr().out
    assert await _run(*urls, "--apply") == 0
    assert await _exists(t, kept.name)
    assert await _exists(t, twin_b.name)
    for gone in (cleared.name, twin_a.name):
        assert not await _exists(t, gone)
    assert await _run(*urls) == 0
    assert "0 unattributed" in capsys.readouterr().out.splitlines()[-1]
    # Re-attributed, the decision now goes with a purge of its session.
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="team/chat", session="s1", reason="erasure")
    )
    assert not await _exists(t, kept.name)
    # Another tenant, not named, is untouched.
    assert await _exists(other, foreign.name)
    cur = await raw_pg.execute(
        "SELECT count(*) FROM memories WHERE tenant_id = %s AND attributes ? 'source_space'",
        (other.tenant_id,),
    )
    assert await cur.fetchone() == (0,)
