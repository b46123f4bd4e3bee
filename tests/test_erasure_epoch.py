"""A purge is not undone by a derivation that read its data first.

Consolidate reads a session buffer and writes a summary of it; a purge of the
space may commit in between. The space's erasure epoch (`store.erasure`) makes
that write refuse, and a purge that starts after the write's check waits for
it and then deletes what it wrote. These tests put the purge at exactly those
points, on the real server's PostgreSQL and Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import psycopg
import pytest
from engram.v1 import decisions_pb2, decisions_pb2_grpc, lifecycle_pb2
from engram_server.lifecycle.model import Proposal
from engram_server.platform.principal import Principal
from engram_server.services.consolidate import ConsolidateService
from engram_server.services.dream import DreamService
from engram_server.services.lifecycle import PurgedMeanwhile, guarded
from engram_server.services.working_memory import SessionWindow, WorkingMemory
from engram_server.store import erasure
from engram_server.store.erasure import ErasureGuard

from tests.lifecycle_helpers import count_rows, propose
from tests.test_consolidate import CONVERSATION, buffer, consolidate

SCOPES = frozenset({"read", "write"})


class PurgeAfterReading(WorkingMemory):
    """The server's working memory, with a purge run right after a buffer is read
    (as if it had arrived while Consolidate was working on that buffer)."""

    def __init__(self, inner: WorkingMemory, purge: Callable[[], Awaitable[Any]]) -> None:
        self.__dict__.update(inner.__dict__)
        self._purge = purge

    async def window(self, tenant_id: str, space: str, session: str) -> SessionWindow:
        read = await super().window(tenant_id, space, session)
        await self._purge()
        return read


def _consolidator(server: Any, purge: Callable[[], Awaitable[Any]]) -> ConsolidateService:
    wm = server.ctx.working_memory
    assert wm is not None and server.ctx.lifecycle is not None
    return ConsolidateService(server.ctx.lifecycle, PurgeAfterReading(wm, purge), None)


def _purge(t: Any, space: str, session: str = "") -> Callable[[], Awaitable[Any]]:
    async def run() -> Any:
        return await t.lifecycle.PurgeMemories(
            lifecycle_pb2.PurgeMemoriesRequest(space=space, session=session, reason="erasure")
        )

    return run


async def test_a_purge_while_consolidating_leaves_no_summary(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    await buffer(t, "users/7", "s1", CONVERSATION)
    await propose(t.lifecycle, "users/7", "Prefers tea over coffee")
    service = _consolidator(server, _purge(t, "users/7"))
    principal = Principal(t.tenant_id, "k", SCOPES)
    with pytest.raises(PurgedMeanwhile, match="spaces/users/7 was purged"):
        await service.consolidate(principal, "users/7", "s1", False, None)
    # Nothing derived from the purged buffer was stored; the buffer went with it.
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0
    assert await count_rows(raw_pg, "edges", t.tenant_id) == 0
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await consolidate(t, "users/7", "s1")
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


async def test_a_purge_of_one_session_refuses_a_consolidation_in_the_space(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    """The epoch is the space's: a session purge refuses a concurrent
    consolidation of another session of the space too (it answers ABORTED, and
    a retry consolidates)."""
    t = await make_tenant()
    await buffer(t, "s", "kept", CONVERSATION)
    await buffer(t, "s", "erased", CONVERSATION[:3])
    service = _consolidator(server, _purge(t, "s", "erased"))
    with pytest.raises(PurgedMeanwhile):
        await service.consolidate(Principal(t.tenant_id, "k", SCOPES), "s", "kept", False, None)
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0
    retried = await consolidate(t, "s", "kept")
    assert not retried.already_consolidated and "Apollo" in retried.summary.content


async def test_the_grpc_answer_is_aborted(make_tenant: Any, server: Any) -> None:
    from engram_server.platform.errors_mapping import to_rich_status

    t = await make_tenant()
    await buffer(t, "s", "s1", CONVERSATION)
    service = _consolidator(server, _purge(t, "s"))
    with pytest.raises(PurgedMeanwhile) as refused:
        await service.consolidate(Principal(t.tenant_id, "k", SCOPES), "s", "s1", False, None)
    assert to_rich_status(refused.value).code == grpc.StatusCode.ABORTED.value[0]


async def test_another_tenants_purge_of_the_same_space_name_changes_nothing(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    a, b = await make_tenant(), await make_tenant()
    await buffer(a, "shared/name", "s1", CONVERSATION)
    await propose(b.lifecycle, "shared/name", "B's own memory")
    service = _consolidator(server, _purge(b, "shared/name"))
    done = await service.consolidate(
        Principal(a.tenant_id, "k", SCOPES), "shared/name", "s1", False, None
    )
    assert "Apollo" in done.summary.content
    assert await count_rows(raw_pg, "memories", a.tenant_id) == 1 + len(done.records)
    assert await count_rows(raw_pg, "memories", b.tenant_id) == 0


async def test_consolidating_after_a_purge_works(make_tenant: Any) -> None:
    t = await make_tenant()
    await buffer(t, "s", "s1", CONVERSATION)
    await _purge(t, "s")()
    await buffer(t, "s", "s1", CONVERSATION[:4])
    done = await consolidate(t, "s", "s1")
    assert "Apollo" in done.summary.content


async def test_a_purge_that_starts_after_the_check_waits_and_erases_the_write(
    make_tenant: Any, server: Any, database_url: str
) -> None:
    """A guarded write holds the epoch row from its check to its commit: a purge
    that starts in between waits for it, then deletes what it wrote."""
    t = await make_tenant()
    db, lifecycle = server.ctx.db, server.ctx.lifecycle
    principal = Principal(t.tenant_id, "k", SCOPES)
    async with db.tenant_tx(t.tenant_id) as conn:
        guard = ErasureGuard("s", await erasure.current(conn, t.tenant_id, "s"))
        # The row exists from here on, as after a space's first guarded write.
        assert await erasure.unchanged(conn, t.tenant_id, guard)
    async with db.tenant_tx(t.tenant_id) as conn:
        # This transaction stands for a derived write between its check and commit.
        assert await erasure.unchanged(conn, t.tenant_id, guard)
        purge = asyncio.create_task(_purge(t, "s")())
        await _until_waiting_on_a_lock(database_url)
        # Another guarded write meanwhile: the purge has not run, so it is stored.
        (written,) = await lifecycle.propose(
            principal,
            [Proposal(space="s", content="Derived before the purge")],
            None,
            within=guarded(t.tenant_id, guard),
        )
        assert written.memory is not None
        assert not purge.done()
    purged = await purge
    assert purged.purged_count == 1
    async with db.tenant_tx(t.tenant_id) as conn:
        assert await erasure.current(conn, t.tenant_id, "s") == guard.epoch + 1
        assert not await erasure.unchanged(conn, t.tenant_id, guard)


async def _until_waiting_on_a_lock(database_url: str) -> None:
    """Until some backend waits on a row lock (the purge on the held epoch row)."""
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
        for _ in range(600):
            cur = await conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query ILIKE '%erasure_epochs%'"
            )
            row = await cur.fetchone()
            if row is not None and row[0] > 0:
                return
            await asyncio.sleep(0.05)
    pytest.fail("the purge never waited for the held epoch")


async def test_a_failed_buffer_erasure_purges_nothing(make_tenant: Any, server: Any) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "s", "Keeps a spare key under the mat")
    lifecycle = server.ctx.lifecycle
    assert lifecycle is not None

    async def unreachable() -> object:
        raise ConnectionError("redis is down")

    principal = Principal(t.tenant_id, "k", SCOPES)
    with pytest.raises(ConnectionError):
        await lifecycle.purge(principal, "s", "", "erasure", None, unreachable)
    async with server.ctx.db.tenant_tx(t.tenant_id) as conn:
        assert await erasure.current(conn, t.tenant_id, "s") == 0
    count, _ = await lifecycle.purge(principal, "s", "", "erasure", None)
    assert count == 1


class PurgeAfterPlanning(DreamService):
    """The server's Dream, with a purge of the space run once it has read the
    space and planned (as if the purge arrived while Dream was working)."""

    def __init__(self, lifecycle: Any, purge: Callable[[], Awaitable[Any]]) -> None:
        super().__init__(lifecycle, None)
        self._purge = purge

    async def _patterns(self, tenant: str, space: str, memories: list[Any]) -> list[Any]:
        planned = await super()._patterns(tenant, space, memories)
        await self._purge()
        return planned


async def test_dream_stores_no_pattern_of_decisions_purged_meanwhile(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    decisions = decisions_pb2_grpc.DecisionsServiceStub(t.channel)
    for title in ("Cache sessions in Redis", "Cache pages for a minute", "Cache price lists"):
        d = await decisions.CreateDecision(
            decisions_pb2.CreateDecisionRequest(
                decision=decisions_pb2.Decision(
                    repository="ops/platform",
                    title=title,
                    rationale=f"{title} to cut load on the primary.",
                    tags=["caching"],
                    expectations=["primary CPU below 50 %"],
                )
            )
        )
        await decisions.RecordDecisionOutcome(
            decisions_pb2.RecordDecisionOutcomeRequest(
                name=d.name,
                outcome=decisions_pb2.DECISION_OUTCOME_MISSED,
                summary="primary CPU stayed at 80 %",
            )
        )
    space = "decisions/ops/platform"
    dream = PurgeAfterPlanning(server.ctx.lifecycle, _purge(t, space))
    outcome = await dream.dream(Principal(t.tenant_id, "k", SCOPES), space, False, 0.0, "", False)
    # The pattern was planned from the decisions, and not stored once they were erased.
    assert not [a for a in outcome.actions if a.action == "pattern"]
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0


async def test_decisions_mined_from_a_buffer_purged_meanwhile_are_not_stored(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    from engram_server.services.decisions import DecisionsService

    t = await make_tenant()
    await buffer(
        t,
        "team/chat",
        "s1",
        [("assistant", "We decided to run migrations before the rollout because they take 9 min.")],
    )
    wm = server.ctx.working_memory
    assert wm is not None
    service = DecisionsService(server.ctx.lifecycle)
    with pytest.raises(PurgedMeanwhile):
        await service.ingest_session(
            Principal(t.tenant_id, "k", SCOPES),
            PurgeAfterReading(wm, _purge(t, "team/chat", "s1")),
            "team/chat",
            "s1",
            "github.com/acme/api",
            "",
            None,
        )
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0
    assert await count_rows(raw_pg, "decisions", t.tenant_id) == 0
