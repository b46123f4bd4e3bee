"""Working memory: session buffers in the real Redis, through gRPC and the service."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
from datetime import UTC, datetime
from pathlib import Path

import grpc
import pytest
from engram.v1 import admin_pb2, lifecycle_pb2
from engram_server.errors import InvalidArgument, Unavailable
from engram_server.platform.config import Settings
from engram_server.platform.context import AppContext
from engram_server.recall.tokens import count_tokens
from engram_server.services.working_memory import (
    AppendResult,
    BufferedMessage,
    PendingAppend,
    WorkingMemory,
)
from engram_server.store.redis import tenant_prefix
from engram_server.store.working_memory import WorkingMemoryStore, _guard
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tests.conftest import MakeTenant, RunningServer

SPACE = "team-a/agent:7"


def msg(content: str, role: str = "user", **metadata: str) -> lifecycle_pb2.SessionMessage:
    return lifecycle_pb2.SessionMessage(role=role, content=content, metadata=metadata)


def violations(err: grpc.aio.AioRpcError) -> dict[str, str]:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    out: dict[str, str] = {}
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out.update({v.field: v.description for v in bad.field_violations})
    return out


def _tenant() -> str:
    return f"wm-{secrets.token_hex(5)}"


def _wm(app: AppContext, settings: Settings, **overrides: int) -> WorkingMemory:
    return WorkingMemory(app.redis, dataclasses.replace(settings, **overrides))


def _message(content: str, role: str = "user") -> BufferedMessage:
    return BufferedMessage(role=role, content=content, time=datetime.now(UTC))


# -- through gRPC -----------------------------------------------------------------


async def test_append_window_list_clear(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    first = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE, session="s1", message=msg("Hello there, I prefer tea.", lang="en")
        )
    )
    assert first.message.index == 0
    assert first.message.token_count == count_tokens("Hello there, I prefer tea.")
    assert first.message.metadata == {"lang": "en"}
    assert first.message.HasField("time")
    assert first.buffered_messages == 1
    assert first.buffered_tokens == first.message.token_count

    second = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE, session="s1", message=msg("Noted: tea.", role="assistant")
        )
    )
    assert second.message.index == 1
    assert second.buffered_messages == 2
    assert second.buffered_tokens == first.message.token_count + second.message.token_count
    await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="s2", message=msg("Other."))
    )

    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s1")
    )
    assert [m.content for m in window.messages] == ["Hello there, I prefer tea.", "Noted: tea."]
    assert [m.role for m in window.messages] == ["user", "assistant"]
    assert window.token_count == second.buffered_tokens
    assert not window.consolidated
    last = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s1", last_n=1)
    )
    assert [m.index for m in last.messages] == [1]
    assert last.token_count == second.message.token_count

    listed = await t.lifecycle.ListSessions(lifecycle_pb2.ListSessionsRequest(space=SPACE))
    # Most recently active first.
    assert [s.session for s in listed.sessions] == ["s2", "s1"]
    s1 = listed.sessions[1]
    assert (s1.message_count, s1.token_count) == (2, second.buffered_tokens)
    assert s1.HasField("last_activity_time")

    cleared = await t.lifecycle.ClearSession(
        lifecycle_pb2.ClearSessionRequest(space=SPACE, session="s1")
    )
    assert cleared.cleared_messages == 2
    empty = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s1")
    )
    assert list(empty.messages) == []
    listed = await t.lifecycle.ListSessions(lifecycle_pb2.ListSessionsRequest(space=SPACE))
    assert [s.session for s in listed.sessions] == ["s2"]
    again = await t.lifecycle.ClearSession(
        lifecycle_pb2.ClearSessionRequest(space=SPACE, session="s1")
    )
    assert again.cleared_messages == 0


async def test_purge_erases_the_session_buffers_too(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    other = await make_tenant()
    for session in ("s1", "s2"):
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(space=SPACE, session=session, message=msg("Hi."))
        )
    await other.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="s1", message=msg("Hi."))
    )

    async def sessions(tenant: object) -> list[str]:
        listed = await tenant.lifecycle.ListSessions(  # type: ignore[attr-defined]
            lifecycle_pb2.ListSessionsRequest(space=SPACE)
        )
        return sorted(s.session for s in listed.sessions)

    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=SPACE, session="s1", reason="erasure #1")
    )
    assert await sessions(t) == ["s2"]
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=SPACE, reason="erasure #2")
    )
    assert await sessions(t) == []
    # Another tenant's buffer of the same space and session is untouched.
    assert await sessions(other) == ["s1"]


async def test_explicit_time_is_kept(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    m = msg("At noon.")
    m.time.FromDatetime(datetime(2024, 5, 1, 12, 0, tzinfo=UTC))
    out = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="s", message=m)
    )
    assert out.message.time.ToDatetime(tzinfo=UTC) == datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


async def test_append_is_idempotent_with_request_id(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    request = lifecycle_pb2.AppendMessageRequest(
        space=SPACE, session="s", message=msg("Only once."), request_id="r-1"
    )
    first = await t.lifecycle.AppendMessage(request)
    retry = await t.lifecycle.AppendMessage(request)
    assert retry.message == first.message
    assert (retry.buffered_messages, retry.buffered_tokens) == (1, first.buffered_tokens)
    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s")
    )
    assert len(window.messages) == 1
    # The same id with a different message is refused, not replayed.
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space=SPACE, session="s", message=msg("Something else."), request_id="r-1"
            )
        )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "request_id" in violations(info.value)
    # A different request id is a new message; no request id never deduplicates.
    await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE, session="s", message=msg("Only once."), request_id="r-2"
        )
    )
    for _ in range(2):
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(space=SPACE, session="s", message=msg("Twice."))
        )
    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s")
    )
    assert len(window.messages) == 4


async def test_concurrent_appends_keep_counters_exact(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    texts = [f"message number {i}" for i in range(40)]
    await asyncio.gather(
        *(
            t.lifecycle.AppendMessage(
                lifecycle_pb2.AppendMessageRequest(space=SPACE, session="c", message=msg(x))
            )
            for x in texts
        )
    )
    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="c")
    )
    assert sorted(m.index for m in window.messages) == list(range(40))
    assert window.token_count == sum(count_tokens(x) for x in texts)
    listed = await t.lifecycle.ListSessions(lifecycle_pb2.ListSessionsRequest(space=SPACE))
    assert listed.sessions[0].token_count == window.token_count


@pytest.mark.parametrize(
    ("request_kwargs", "field"),
    [
        ({"space": "", "session": "s", "message": msg("x")}, "space"),
        ({"space": "bad space", "session": "s", "message": msg("x")}, "space"),
        ({"space": SPACE, "session": "", "message": msg("x")}, "session"),
        ({"space": SPACE, "session": "has space", "message": msg("x")}, "session"),
        ({"space": SPACE, "session": "s" * 129, "message": msg("x")}, "session"),
        ({"space": SPACE, "session": "s"}, "message"),
        ({"space": SPACE, "session": "s", "message": msg("x", role="robot")}, "message.role"),
        ({"space": SPACE, "session": "s", "message": msg("   \n")}, "message.content"),
        ({"space": SPACE, "session": "s", "message": msg("x" * 40_000)}, "message.content"),
        (
            {"space": SPACE, "session": "s", "message": msg("x"), "request_id": "r" * 200},
            "request_id",
        ),
    ],
)
async def test_bad_append_names_the_field_and_writes_nothing(
    make_tenant: MakeTenant, request_kwargs: dict[str, object], field: str
) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.AppendMessage(lifecycle_pb2.AppendMessageRequest(**request_kwargs))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field in violations(info.value)
    listed = await t.lifecycle.ListSessions(lifecycle_pb2.ListSessionsRequest(space=SPACE))
    assert list(listed.sessions) == []


async def test_bad_metadata_and_reads(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space=SPACE, session="s", message=msg("x", **{"k": "v" * 2000})
            )
        )
    assert "message.metadata[k]" in violations(info.value)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.GetSessionWindow(
            lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s", last_n=-1)
        )
    assert "last_n" in violations(info.value)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.ListSessions(lifecycle_pb2.ListSessionsRequest(space=""))
    assert "space" in violations(info.value)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.ClearSession(lifecycle_pb2.ClearSessionRequest(space=SPACE))
    assert "session" in violations(info.value)


async def test_tenants_are_isolated(make_tenant: MakeTenant, app: AppContext) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await a.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="shared", message=msg("A's."))
    )
    window = await b.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="shared")
    )
    assert list(window.messages) == []
    listed = await b.lifecycle.ListSessions(lifecycle_pb2.ListSessionsRequest(space=SPACE))
    assert list(listed.sessions) == []
    cleared = await b.lifecycle.ClearSession(
        lifecycle_pb2.ClearSessionRequest(space=SPACE, session="shared")
    )
    assert cleared.cleared_messages == 0
    # B's own session with the same name does not touch A's.
    await b.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="shared", message=msg("B's."))
    )
    window = await a.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="shared")
    )
    assert [m.content for m in window.messages] == ["A's."]

    # Every key of A's buffer carries A's hash tag (one Redis Cluster slot).
    keys = [k.decode() async for k in app.redis.client.scan_iter(match="engram:*wm*")]
    mine = [k for k in keys if a.tenant_id in k]
    assert mine
    assert all(k.startswith(tenant_prefix(a.tenant_id)) for k in mine)
    assert all(b.tenant_id not in k for k in mine)

    # Deleting the tenant removes its buffers.
    await a.platform_admin.DeleteTenant(admin_pb2.DeleteTenantRequest(name=a.name))
    left = [k async for k in app.redis.client.scan_iter(match=tenant_prefix(a.tenant_id) + "*")]
    assert left == []


async def test_consolidated_mark(make_tenant: MakeTenant, app: AppContext) -> None:
    t = await make_tenant()
    await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="s", message=msg("First."))
    )
    assert app.working_memory is not None
    await app.working_memory.mark_consolidated(t.tenant_id, SPACE, "s", "memories/abc")
    window = await app.working_memory.window(t.tenant_id, SPACE, "s")
    assert window.consolidated_as == "memories/abc"
    over_grpc = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="s")
    )
    assert over_grpc.consolidated
    # A new turn makes the buffer consolidatable again.
    await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(space=SPACE, session="s", message=msg("Second."))
    )
    assert not (await app.working_memory.window(t.tenant_id, SPACE, "s")).consolidated
    # Marking a session with no buffer creates nothing.
    await app.working_memory.mark_consolidated(t.tenant_id, SPACE, "gone", "memories/x")
    assert (await app.working_memory.list_sessions(t.tenant_id, SPACE))[0].session == "s"
    assert len(await app.working_memory.list_sessions(t.tenant_id, SPACE)) == 1


# -- caps, TTL and layout (service level, real Redis) -----------------------------


async def test_message_cap_trims_oldest_first(app: AppContext, settings: Settings) -> None:
    wm = _wm(app, settings, working_memory_max_messages=3, working_memory_max_tokens=0)
    tenant = _tenant()
    for i in range(5):
        _, count, tokens = await wm.append(tenant, SPACE, "s", _message(f"turn {i}"))
        assert count == min(i + 1, 3)
    window = await wm.window(tenant, SPACE, "s")
    assert [m.content for m in window.messages] == ["turn 2", "turn 3", "turn 4"]
    assert [m.index for m in window.messages] == [2, 3, 4]
    assert tokens == window.token_count == sum(count_tokens(f"turn {i}") for i in (2, 3, 4))
    await app.redis.purge_tenant(tenant)


async def test_token_cap_trims_oldest_first_keeps_newest(
    app: AppContext, settings: Settings
) -> None:
    wm = _wm(app, settings, working_memory_max_messages=0, working_memory_max_tokens=20)
    tenant = _tenant()
    texts = ["one two three four five", "six seven eight nine ten", "eleven twelve thirteen"]
    for text in texts:
        await wm.append(tenant, SPACE, "s", _message(text))
    window = await wm.window(tenant, SPACE, "s")
    assert window.token_count <= 20
    assert window.messages[-1].content == texts[-1]
    assert [m.content for m in window.messages] == texts[-len(window.messages) :]
    # One message above the cap on its own is still kept (the newest always stays).
    big = " ".join(["word"] * 50)
    stored, count, tokens = await wm.append(tenant, SPACE, "s", _message(big))
    assert (count, tokens) == (1, stored.token_count)
    assert stored.token_count == count_tokens(big) > 20
    await app.redis.purge_tenant(tenant)


async def test_idle_ttl_expires_the_session(app: AppContext, settings: Settings) -> None:
    wm = _wm(app, settings, working_memory_idle_ttl_seconds=1)
    tenant = _tenant()
    await wm.append(tenant, SPACE, "s", _message("short-lived"))
    key = WorkingMemoryStore.session_key(tenant, SPACE, "s", "msgs")
    ttl = await app.redis.client.ttl(key)
    assert 0 < ttl <= 1
    assert len(await wm.list_sessions(tenant, SPACE)) == 1
    await asyncio.sleep(1.6)
    assert (await wm.window(tenant, SPACE, "s")).messages == ()
    assert await wm.list_sessions(tenant, SPACE) == []

    never = _wm(app, settings, working_memory_idle_ttl_seconds=0)
    await never.append(tenant, SPACE, "kept", _message("stays"))
    assert (
        await app.redis.client.ttl(WorkingMemoryStore.session_key(tenant, SPACE, "kept", "msgs"))
        == -1
    )
    await app.redis.purge_tenant(tenant)


async def test_key_layout_is_hash_tagged_and_unambiguous(
    app: AppContext, settings: Settings
) -> None:
    wm = _wm(app, settings)
    tenant = _tenant()
    # "a:b" + "c" and "a" + "b:c" must be different sessions.
    await wm.append(tenant, "a:b", "c", _message("first"))
    await wm.append(tenant, "a", "b:c", _message("second"))
    assert [m.content for m in (await wm.window(tenant, "a:b", "c")).messages] == ["first"]
    assert [m.content for m in (await wm.window(tenant, "a", "b:c")).messages] == ["second"]
    keys = sorted(
        [k.decode() async for k in app.redis.client.scan_iter(match=tenant_prefix(tenant) + "*")]
    )
    assert keys
    for key in keys:
        assert key.startswith(f"engram:{{{tenant}}}:wm:")
    assert await app.redis.purge_tenant(tenant) == len(keys)


async def test_service_validation_names_fields(app: AppContext, settings: Settings) -> None:
    wm = _wm(app, settings)
    with pytest.raises(InvalidArgument) as info:
        await wm.append(_tenant(), "", "", BufferedMessage("bot", " ", datetime.now(UTC)))
    assert {v.field for v in info.value.violations} == {
        "space",
        "session",
        "message.role",
        "message.content",
    }


async def test_append_many_groups_sessions_and_keeps_each_order(
    app: AppContext, settings: Settings
) -> None:
    wm = _wm(app, settings, working_memory_max_messages=4, working_memory_max_tokens=0)
    tenant = _tenant()
    appends = [
        PendingAppend(SPACE, session, _message(f"{session}-{i}"), f"{session}-r{i}")
        for i in range(6)
        for session in ("x", "y")
    ]
    # The same request id twice in one batch: the second is a replay of the first.
    appends.append(PendingAppend(SPACE, "x", _message("x-5"), "x-r5"))
    results = await wm.append_many(tenant, appends)
    assert len(results) == len(appends)
    assert all(isinstance(r, AppendResult) for r in results)
    contents = [r.message.content for r in results if isinstance(r, AppendResult)]
    assert contents == [a.message.content for a in appends]
    replay = results[-1]
    assert isinstance(replay, AppendResult) and replay.replayed
    assert replay.message == results[-3].message  # x-5, appended just before
    # Caps apply per message, as with single appends: the oldest two went.
    for session in ("x", "y"):
        window = await wm.window(tenant, SPACE, session)
        assert [m.content for m in window.messages] == [f"{session}-{i}" for i in range(2, 6)]
        assert [m.index for m in window.messages] == [2, 3, 4, 5]
    trimmed = [r.trimmed for r in results if isinstance(r, AppendResult) and not r.replayed]
    assert trimmed == [0] * 8 + [1] * 4
    await app.redis.purge_tenant(tenant)


async def test_append_many_survives_a_flushed_script_cache(
    app: AppContext, settings: Settings
) -> None:
    wm = _wm(app, settings)
    tenant = _tenant()
    await wm.append(tenant, SPACE, "s", _message("before"))
    await app.redis.client.script_flush()
    results = await wm.append_many(
        tenant,
        [PendingAppend(SPACE, "s", _message(f"after {i}"), f"r{i}", f"fp{i}") for i in range(3)],
    )
    assert [r.message.index for r in results if isinstance(r, AppendResult)] == [1, 2, 3]
    # A request id used for another request (another fingerprint) fails that
    # message alone.
    mixed = await wm.append_many(
        tenant,
        [
            PendingAppend(SPACE, "s", _message("different"), "r0", "fp-other"),
            PendingAppend(SPACE, "s", _message("new"), "r9", "fp9"),
        ],
    )
    assert isinstance(mixed[0], InvalidArgument)
    assert [v.field for v in mixed[0].violations] == ["request_id"]
    assert isinstance(mixed[1], AppendResult) and mixed[1].message.index == 4
    window = await wm.window(tenant, SPACE, "s")
    assert [m.content for m in window.messages] == [
        "before",
        "after 0",
        "after 1",
        "after 2",
        "new",
    ]
    # Several sessions in one call go out as a pipeline, which reloads the script too.
    await app.redis.client.script_flush()
    spread = await wm.append_many(
        tenant,
        [PendingAppend(SPACE, f"s{i % 2}", _message(f"spread {i}"), f"q{i}", "") for i in range(4)],
    )
    assert [r.message.index for r in spread if isinstance(r, AppendResult)] == [0, 0, 1, 1]
    for session in ("s0", "s1"):
        window = await wm.window(tenant, SPACE, session)
        assert [m.content for m in window.messages] == [
            f"spread {i}" for i in range(4) if f"s{i % 2}" == session
        ]
    await app.redis.purge_tenant(tenant)


# -- the benchmark's own code path (tiny sizes; figures come from `engram bench`) -----


async def test_bench_runs_against_a_running_server(
    server: RunningServer,
    platform_key: str,
    pg_server_url: str,
    redis_url: str,
    tmp_path: Path,
) -> None:
    from engram_server.bench import main

    out = tmp_path / "wm.json"
    argv = [
        "working-memory",
        "--address", server.address, "--api-key", platform_key,
        "--database-url", pg_server_url, "--redis-url", redis_url,
        "--sizes", "30", "--questions", "4", "--warmup", "1",
        "--appends", "40", "--append-clients", "4", "--client-processes", "2",
        "--out", str(out), "--quiet",
    ]  # fmt: skip
    assert await asyncio.to_thread(main, argv) == 0
    report = json.loads(out.read_text())
    assert report["engage"][0]["memories"] == 30
    assert report["engage"][0]["engage"]["samples"] == 4
    assert report["append"]["messages"] == 40
    assert report["append"]["messages_per_second"] > 0
    assert "| AppendMessage |" in out.with_suffix(".md").read_text()


async def test_a_connection_closed_under_a_write_is_unavailable() -> None:
    # uvloop raises this (not an OSError) when redis-py writes to a connection the
    # Redis server has just closed, e.g. while it restarts.
    async def closed_transport() -> None:
        raise RuntimeError(
            "unable to perform operation on <TCPTransport closed=True reading=False>;"
            " the handler is closed"
        )

    with pytest.raises(Unavailable) as info:
        await _guard(closed_transport())
    assert "working memory unavailable" in info.value.message

    async def bug() -> None:
        raise RuntimeError("something else")

    with pytest.raises(RuntimeError):
        await _guard(bug())


async def _stored_text(server: RunningServer, tenant: str) -> str:
    """Every string value under the tenant's Redis prefix, concatenated."""
    client = server.ctx.redis.client
    found: list[bytes] = []
    async for key in client.scan_iter(match=tenant_prefix(tenant) + "*"):
        if await client.type(key) == b"string":
            found.append(await client.get(key) or b"")
        elif await client.type(key) == b"list":
            found.extend(await client.lrange(key, 0, -1))
    return b"\n".join(found).decode()


async def test_purge_erases_what_request_id_replays_would_answer(
    make_tenant: MakeTenant, server: RunningServer
) -> None:
    """An append's idempotency record keeps the message, to answer a retry with: an
    erasure of its session (or space) takes the record too, so the erased text
    neither stays in Redis nor comes back as the answer to a retry."""
    t = await make_tenant()
    other = await make_tenant()

    def append(content: str, session: str, request_id: str) -> lifecycle_pb2.AppendMessageRequest:
        return lifecycle_pb2.AppendMessageRequest(
            space=SPACE, session=session, message=msg(content), request_id=request_id
        )

    secret = "My passport number is X1234567."
    await t.lifecycle.AppendMessage(append(secret, "s1", "r-1"))
    await t.lifecycle.AppendMessage(append("Kept in another session.", "s2", "r-2"))
    await other.lifecycle.AppendMessage(append(secret, "s1", "r-1"))
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=SPACE, session="s1", reason="erasure")
    )
    assert "passport" not in await _stored_text(server, t.tenant_id)
    # A retry after the erasure is a new append, not a replay of the erased one.
    retried = await t.lifecycle.AppendMessage(append("A new turn.", "s1", "r-1"))
    assert (retried.message.content, retried.buffered_messages) == ("A new turn.", 1)
    # Only the purged session's records went: s2's retry still replays.
    replayed = await t.lifecycle.AppendMessage(append("Kept in another session.", "s2", "r-2"))
    assert (replayed.message.index, replayed.buffered_messages) == (0, 1)

    await t.lifecycle.PurgeMemories(lifecycle_pb2.PurgeMemoriesRequest(space=SPACE, reason="all"))
    assert await _stored_text(server, t.tenant_id) == ""
    # The other tenant's record of the same space, session and request id stays.
    assert "passport" in await _stored_text(server, other.tenant_id)
