"""AppendMessages: a stream of appends, against the real Redis through gRPC."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import engram
import grpc
import pytest
from engram import types
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc
from engram_server.recall.tokens import count_tokens

from tests.conftest import MakeTenant, RunningServer

SPACE = "team-a/streamer"


def req(
    content: str, session: str = "s", request_id: str = "", role: str = "user", **fields: Any
) -> lifecycle_pb2.AppendMessagesRequest:
    return lifecycle_pb2.AppendMessagesRequest(
        space=fields.pop("space", SPACE),
        session=session,
        message=lifecycle_pb2.SessionMessage(role=role, content=content),
        request_id=request_id,
        **fields,
    )


async def stream(
    stub: lifecycle_pb2_grpc.LifecycleServiceStub,
    requests: Iterable[lifecycle_pb2.AppendMessagesRequest],
) -> list[lifecycle_pb2.AppendMessagesResult]:
    results: list[lifecycle_pb2.AppendMessagesResult] = []
    async for response in stub.AppendMessages(iter(list(requests))):
        assert response.results, "a response acknowledges at least one request"
        results.extend(response.results)
    return results


async def window(
    stub: lifecycle_pb2_grpc.LifecycleServiceStub, session: str = "s"
) -> lifecycle_pb2.GetSessionWindowResponse:
    return await stub.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session=session)
    )


async def test_stream_appends_in_order_with_one_result_each(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    texts = [f"turn {i}: the deploy script lives in ops/deploy.sh" for i in range(300)]
    results = await stream(t.lifecycle, (req(x, request_id=f"r{i}") for i, x in enumerate(texts)))
    assert [r.sequence for r in results] == list(range(300))
    assert [r.request_id for r in results] == [f"r{i}" for i in range(300)]
    assert all(r.WhichOneof("result") == "appended" for r in results)
    assert [r.appended.message.index for r in results] == list(range(300))
    assert [r.appended.buffered_messages for r in results] == list(range(1, 301))
    running = 0
    for text, result in zip(texts, results, strict=True):
        running += count_tokens(text)
        assert result.appended.message.token_count == count_tokens(text)
        assert result.appended.buffered_tokens == running
    stored = await window(t.lifecycle)
    assert [m.content for m in stored.messages] == texts
    assert stored.token_count == running


async def test_many_sessions_in_one_stream_keep_their_own_order(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    requests = [req(f"{s} message {i}", session=s) for i in range(50) for s in ("a", "b", "c")]
    results = await stream(t.lifecycle, requests)
    assert len(results) == 150
    for s in ("a", "b", "c"):
        stored = await window(t.lifecycle, s)
        assert [m.content for m in stored.messages] == [f"{s} message {i}" for i in range(50)]
        assert [m.index for m in stored.messages] == list(range(50))


async def test_a_bad_message_fails_alone_naming_its_field(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    requests = [
        req("first"),
        req("   ", request_id="blank"),
        req("second", role="robot"),
        lifecycle_pb2.AppendMessagesRequest(space=SPACE, session="s"),
        req("third", session="has space"),
        req("x", request_id="r" * 200),
        req("fourth"),
    ]
    results = await stream(t.lifecycle, requests)
    kinds = [r.WhichOneof("result") for r in results]
    assert kinds == ["appended", "error", "error", "error", "error", "error", "appended"]
    fields = [[v.field for v in r.error.field_violations] for r in results if r.HasField("error")]
    assert fields == [
        ["message.content"],
        ["message.role"],
        ["message"],
        ["session"],
        ["request_id"],
    ]
    assert all(
        r.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        for r in results
        if r.HasField("error")
    )
    assert results[1].request_id == "blank"
    stored = await window(t.lifecycle)
    assert [m.content for m in stored.messages] == ["first", "fourth"]
    assert [m.index for m in stored.messages] == [0, 1]


async def test_request_ids_replay_across_both_rpcs(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    first = await stream(
        t.lifecycle, [req("once", request_id="r-1"), req("twice", request_id="r-2")]
    )
    # The same stream again replays, in the stream and through AppendMessage.
    again = await stream(
        t.lifecycle, [req("once", request_id="r-1"), req("twice", request_id="r-2")]
    )
    assert [r.appended.message for r in again] == [r.appended.message for r in first]
    unary = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE,
            session="s",
            message=lifecycle_pb2.SessionMessage(role="user", content="once"),
            request_id="r-1",
        )
    )
    assert unary.message == first[0].appended.message
    # A unary append's id replays in a stream too; reused for other content it is refused.
    await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE,
            session="s",
            message=lifecycle_pb2.SessionMessage(role="user", content="thrice"),
            request_id="r-3",
        )
    )
    mixed = await stream(
        t.lifecycle, [req("thrice", request_id="r-3"), req("other", request_id="r-1")]
    )
    assert mixed[0].appended.message.index == 2
    assert mixed[1].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert [v.field for v in mixed[1].error.field_violations] == ["request_id"]
    stored = await window(t.lifecycle)
    assert [m.content for m in stored.messages] == ["once", "twice", "thrice"]


async def test_privacy_boundary_applies_to_every_message(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    key = "AKIA" + "IOSFODNN7" + "EXAMPLE"
    results = await stream(
        t.lifecycle,
        [
            req("Mail me at ann.lee@example.org about the launch."),
            req(f"aws_access_key_id = {key}"),
            req("Plain words."),
        ],
    )
    redacted, dropped, plain = results
    assert "[EMAIL]" in redacted.appended.message.content
    assert "ann.lee@example.org" not in redacted.appended.message.content
    assert [f.type for f in redacted.appended.privacy_findings] == ["email"]
    # Dropped whole: nothing buffered, the finding says why, the buffer size is
    # the one at its turn.
    assert not dropped.appended.HasField("message")
    assert dropped.appended.privacy_findings[0].category == "credential"
    assert dropped.appended.buffered_messages == 1
    assert plain.appended.buffered_messages == 2
    stored = await window(t.lifecycle)
    assert key not in str(stored)
    assert len(stored.messages) == 2


async def test_dropped_first_message_reports_the_buffer_before_it(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    await stream(t.lifecycle, [req("already here")])
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    dropped, after = await stream(t.lifecycle, [req(f"token {key}"), req("after")])
    assert dropped.appended.buffered_messages == 1
    assert after.appended.buffered_messages == 2


async def test_tenants_are_isolated(make_tenant: MakeTenant) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await stream(a.lifecycle, [req("A's secret plan", session="shared")])
    await stream(b.lifecycle, [req("B's", session="shared")])
    assert [m.content for m in (await window(a.lifecycle, "shared")).messages] == [
        "A's secret plan"
    ]
    assert [m.content for m in (await window(b.lifecycle, "shared")).messages] == ["B's"]


async def test_needs_the_write_scope(make_tenant: MakeTenant) -> None:
    reader = await make_tenant(scopes=("read",))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stream(reader.lifecycle, [req("no")])
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert list((await window(reader.lifecycle)).messages) == []


async def test_messages_count_against_the_rate_quota(make_tenant: MakeTenant, raw_pg: Any) -> None:
    t = await make_tenant()
    await raw_pg.execute(
        "UPDATE tenants SET quota_requests_per_second = 20 WHERE id = %s", (t.tenant_id,)
    )
    # Start early in a wall-clock second so the burst counts in at most two.
    await asyncio.sleep(1.02 - (time.time() % 1))
    results = await stream(t.lifecycle, [req(f"m{i}") for i in range(60)])
    refused = [r for r in results if r.HasField("error")]
    assert refused, "60 messages in one second exceed a quota of 20/s"
    assert all(r.error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0] for r in refused)
    accepted = len(results) - len(refused)
    assert 19 <= accepted <= 40  # the stream call itself counts one; at most two seconds
    await asyncio.sleep(1.05)  # a new second, a new budget for the read
    assert len((await window(t.lifecycle)).messages) == accepted


async def test_a_slow_sender_gets_each_result_as_it_goes(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    sent: asyncio.Queue[lifecycle_pb2.AppendMessagesRequest | None] = asyncio.Queue()

    async def requests() -> AsyncIterator[lifecycle_pb2.AppendMessagesRequest]:
        while (item := await sent.get()) is not None:
            yield item

    call = t.lifecycle.AppendMessages(requests())
    for i in range(3):
        await sent.put(req(f"turn {i}"))
        response = await asyncio.wait_for(call.read(), timeout=10)
        assert [r.sequence for r in response.results] == [i]
        assert response.results[0].appended.message.index == i
    await sent.put(None)
    assert await call.read() == grpc.aio.EOF
    assert await call.code() == grpc.StatusCode.OK


async def test_empty_stream_is_fine(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    assert await stream(t.lifecycle, []) == []
    assert list((await window(t.lifecycle)).messages) == []


# -- the SDK --------------------------------------------------------------------------


async def test_async_sdk_streams_plain_and_async_iterables(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t = await make_tenant()
    async with engram.AsyncClient(server.address, t.secret) as client:
        texts = [f"line {i}" for i in range(200)]
        results = [r async for r in client.append_messages(SPACE, "plain", texts)]
        assert all(isinstance(r, types.AppendResult) for r in results)
        assert [
            r.message.index for r in results if isinstance(r, types.AppendResult) and r.message
        ] == list(range(200))

        async def live() -> AsyncIterator[types.SessionMessage | str]:
            yield types.SessionMessage(
                role="user", content="Where is the runbook?", metadata={"via": "chat"}
            )
            await asyncio.sleep(0.05)
            yield types.SessionMessage(role="assistant", content="   ")
            yield "In ops/runbook.md."

        mixed = [r async for r in client.append_messages(SPACE, "live", live())]
        assert isinstance(mixed[0], types.AppendResult) and mixed[0].message is not None
        assert mixed[0].message.metadata == {"via": "chat"}
        assert isinstance(mixed[1], engram.InvalidArgument)
        assert mixed[1].fields == ["message.content"]
        assert isinstance(mixed[2], types.AppendResult) and mixed[2].buffered_messages == 2
        window = await client.get_session_window(SPACE, "live")
        assert [m.content for m in window.messages] == [
            "Where is the runbook?",
            "In ops/runbook.md.",
        ]


async def test_sync_sdk_streams(server: RunningServer, make_tenant: MakeTenant) -> None:
    t = await make_tenant()

    def scenario() -> list[str]:
        with engram.Client(server.address, t.secret) as client:
            results = list(client.append_messages(SPACE, "sync", (f"msg {i}" for i in range(150))))
            assert len(results) == 150
            assert all(isinstance(r, types.AppendResult) for r in results)
            return [m.content for m in client.get_session_window(SPACE, "sync").messages]

    assert await asyncio.to_thread(scenario) == [f"msg {i}" for i in range(150)]


async def test_sdk_raises_what_ends_the_stream(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    reader = await make_tenant(scopes=("read",))
    async with engram.AsyncClient(server.address, reader.secret) as client:
        with pytest.raises(engram.PermissionDenied):
            async for _ in client.append_messages(SPACE, "s", ["no"]):
                pass
