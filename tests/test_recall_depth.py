"""Depth mode: the sessions of the best hits are searched too, so a turn that
shares no word with the question but sits beside its answer is found."""

from __future__ import annotations

import uuid
from typing import Any

import engram
import grpc
import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.recall import depth
from engram_server.store.vectors import ScoredPoint

from tests.lifecycle_helpers import field_violations, proposal
from tests.test_cli import json_lines, run

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
DEEP = recall_pb2.RECALL_DEPTH_DEEP
QUESTION = "who travels with her to the Lisbon conference?"
# Turns of other sessions closer in meaning to the question than the second hop,
# enough to fill the default pass's dense candidates (40 at k = 10).
# Closer, but not so close that they outrank the second hop once its session joins.
FILLERS = [f"Ben: someone came with me to the workshop in Porto, story {i}" for i in range(48)]


def test_seed_sessions_are_the_distinct_sessions_of_the_best_hits() -> None:
    assert depth.seed_sessions(["a", "", "b", "a", "c", "d", "e"], 5) == ["a", "b", "c"]
    assert depth.seed_sessions([], 5) == []


def test_widened_points_fill_missing_legs_and_follow_the_first_pass() -> None:
    a, b, c = (uuid.uuid4() for _ in range(3))
    first = [ScoredPoint(a, 0.5, None, 1, None)]
    joined = depth.widen(first, [ScoredPoint(a, 0.5, 2.0, 1, 1), ScoredPoint(b, 0.3, None, 2)])
    assert joined == [ScoredPoint(a, 0.5, 2.0, 1, None), ScoredPoint(b, 0.3, None)]
    assert depth.widen(first, []) == first
    assert depth.widen([], [ScoredPoint(c, None, 1.0, None, 1)]) == [ScoredPoint(c, None, 1.0)]


async def _conversation(t: Any) -> tuple[str, str]:
    """Writes the two-hop conversation; returns the first and second hop's names."""
    turns = [
        proposal("chat", "Ana: we booked the hotel for the Lisbon conference", session="lisbon"),
        proposal(
            "chat", "Ana: Carla insisted on joining, she has never seen the ocean", session="lisbon"
        ),
        *(proposal("chat", text, session=f"other-{i}") for i, text in enumerate(FILLERS)),
    ]
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(proposals=turns)
    )
    return response.results[0].memory.name, response.results[1].memory.name


async def test_depth_finds_the_second_hop_the_default_misses(make_tenant: Any) -> None:
    t = await make_tenant()
    first_hop, second_hop = await _conversation(t)
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    request = recall_pb2.RecallRequest(query=QUESTION, spaces=["chat"], k=10, consistency=RYW)
    default = [h.memory.name for h in (await stub.Recall(request)).hits]
    request.depth = DEEP
    deep = await stub.Recall(request)
    names = [h.memory.name for h in deep.hits]
    assert default[0] == first_hop and second_hop not in default
    assert names[0] == first_hop and second_hop in names
    # Scores still order the hits; the second hop has no leg rank of the first pass.
    scores = [h.score for h in deep.hits]
    assert scores == sorted(scores, reverse=True)
    hop = deep.hits[names.index(second_hop)].breakdown
    assert hop.dense_rank == 0 and hop.dense > 0
    # Standard is the default, spelled out.
    request.depth = recall_pb2.RECALL_DEPTH_STANDARD
    assert [h.memory.name for h in (await stub.Recall(request)).hits] == default


async def test_depth_never_reaches_another_tenant(make_tenant: Any) -> None:
    ours, theirs = await make_tenant(), await make_tenant()
    _, their_hop = await _conversation(theirs)
    mine = await ours.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("chat", "Ana: the Lisbon conference hotel is booked", session="lisbon")
            ]
        )
    )
    found = await recall_pb2_grpc.RecallServiceStub(ours.channel).Recall(
        recall_pb2.RecallRequest(query=QUESTION, spaces=["chat"], k=10, consistency=RYW, depth=DEEP)
    )
    assert [h.memory.name for h in found.hits] == [mine.results[0].memory.name]
    assert their_hop not in [h.memory.name for h in found.hits]


async def test_an_unknown_depth_names_the_field(make_tenant: Any) -> None:
    t = await make_tenant()
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.Recall(recall_pb2.RecallRequest(query="x", spaces=["chat"], depth=7))  # type: ignore[arg-type]
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "depth" in field_violations(err.value)


async def test_build_context_takes_the_depth_too(make_tenant: Any) -> None:
    t = await make_tenant()
    _, second_hop = await _conversation(t)
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    request = recall_pb2.BuildContextRequest(
        query=QUESTION,
        spaces=["chat"],
        k=10,
        consistency=RYW,
        options=recall_pb2.ContextOptions(token_budget=2000, include_citations=True),
    )
    assert second_hop not in (await stub.BuildContext(request)).cited_memories
    request.depth = DEEP
    assert second_hop in (await stub.BuildContext(request)).cited_memories
    request.depth = 9  # type: ignore[assignment]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.BuildContext(request)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "depth" in field_violations(err.value)


async def test_the_sdk_asks_in_depth_mode(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    _, second_hop = await _conversation(tenant)
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        standard = await client.recall(QUESTION, "chat", k=10, read_your_writes=True)
        deep = await client.recall(QUESTION, "chat", k=10, read_your_writes=True, depth=True)
        block = await client.build_context(QUESTION, "chat", k=10, depth=True)
        plain = await client.build_context(QUESTION, "chat", k=10)
    assert second_hop not in [h.memory.name for h in standard]
    assert second_hop in [h.memory.name for h in deep]
    assert second_hop in block.cited_memories and second_hop not in plain.cited_memories


async def test_the_cli_recalls_in_depth_mode(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    tenant = await make_tenant()
    _, second_hop = await _conversation(tenant)
    conn = ("--address", server.address, "--api-key", tenant.secret, "--json")
    ask = ("memory", "recall", QUESTION, "--space", "chat", "-k", "10", "--fresh", *conn)
    code, out, err = await run(capsys, *ask)
    assert code == 0, err
    assert second_hop not in [hit["memory"]["name"] for hit in json_lines(out)]
    code, out, err = await run(capsys, *ask, "--depth")
    assert code == 0, err
    assert second_hop in [hit["memory"]["name"] for hit in json_lines(out)]


async def test_engage_takes_the_depth_too(make_tenant: Any) -> None:
    t = await make_tenant()
    _, second_hop = await _conversation(t)
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)

    def engage(session: str, depth: int) -> recall_pb2.EngageRequest:
        return recall_pb2.EngageRequest(
            space="desk",
            session=session,
            message=lifecycle_pb2.SessionMessage(role="user", content=QUESTION),
            recall_spaces=["chat"],
            k=10,
            consistency=RYW,
            depth=depth,  # type: ignore[arg-type]
        )

    standard = await stub.Engage(engage("a", recall_pb2.RECALL_DEPTH_UNSPECIFIED))
    assert second_hop not in [h.memory.name for h in standard.hits]
    deep = await stub.Engage(engage("b", DEEP))
    assert second_hop in [h.memory.name for h in deep.hits]
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.Engage(engage("c", 5))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "depth" in field_violations(err.value)
