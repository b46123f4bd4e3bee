"""Session support: the turns of the session a query is about move up together."""

from __future__ import annotations

from typing import Any

import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.recall.scoring import session_support

from tests.lifecycle_helpers import proposal

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES


def test_support_is_the_share_of_the_best_score_of_the_group() -> None:
    scored = [("s1", 0.8), ("s1", 0.1), ("s2", 0.4), ("alone", 0.2)]
    assert session_support(scored, 0.2) == pytest.approx([0.2, 0.2, 0.1, 0.05])
    assert session_support(scored, 0.0) == [0.0] * 4
    assert session_support([], 0.2) == []
    assert session_support([("s1", 0.0), ("s2", -0.1)], 0.2) == [0.0, 0.0]


async def test_a_weak_turn_of_the_matching_session_outranks_a_stray_one(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal(
                    "chat", "Ana: we rented a cabin in the Alps for the skiing week", session="s1"
                ),
                proposal("chat", "Ana: it came with a sauna", session="s1"),
                proposal("chat", "Ben: it came with a sauna", session="s2"),
            ]
        )
    )
    names = [r.memory.name for r in response.results]
    found = await recall_pb2_grpc.RecallServiceStub(t.channel).Recall(
        recall_pb2.RecallRequest(
            query="the sauna of the cabin in the Alps", spaces=["chat"], k=10, consistency=RYW
        )
    )
    order = [h.memory.name for h in found.hits]
    assert order[0] == names[0]
    # Both "it came with a sauna" turns say the same; the one of the Alps session wins.
    assert order.index(names[1]) < order.index(names[2])
    by_name = {h.memory.name: h for h in found.hits}
    assert by_name[names[1]].score > by_name[names[2]].score


async def test_support_never_crosses_tenants(make_tenant: Any) -> None:
    ours, theirs = await make_tenant(), await make_tenant()
    await theirs.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", "Bo: the cabin in the Alps", session="s1")]
        )
    )
    mine = await ours.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", "Ana: a sauna", session="s1")]
        )
    )
    found = await recall_pb2_grpc.RecallServiceStub(ours.channel).Recall(
        recall_pb2.RecallRequest(
            query="the cabin in the Alps sauna", spaces=["chat"], k=10, consistency=RYW
        )
    )
    assert [h.memory.name for h in found.hits] == [mine.results[0].memory.name]
