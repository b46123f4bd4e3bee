"""Neighbour context: a conversation turn is indexed with its session's previous turn."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.lexical.sparse import SparseVector
from engram_server.lifecycle.model import new_memory_id
from engram_server.recall.neighbours import (
    ContextParams,
    with_context_terms,
    with_context_vector,
)

from tests.lifecycle_helpers import proposal

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES


def test_context_terms_are_added_below_the_own_ones() -> None:
    own = SparseVector([1, 5], [1.0, 2.0])
    context = SparseVector([5, 9], [1.0, 4.0])
    merged = with_context_terms(own, context, 0.5)
    assert merged.indices == [1, 5, 9]
    assert merged.values == pytest.approx([1.0, 2.5, 2.0])
    assert with_context_terms(own, context, 0.0) is own
    assert with_context_terms(own, SparseVector(), 0.5) is own


def test_context_vector_is_a_unit_mix() -> None:
    own = np.array([1.0, 0.0], dtype=np.float32)
    context = np.array([0.0, 1.0], dtype=np.float32)
    mixed = with_context_vector(own, context, 1.0)
    assert mixed == pytest.approx(np.array([0.70710677, 0.70710677]))
    assert float(np.linalg.norm(with_context_vector(own, context, 0.3))) == pytest.approx(1.0)
    assert with_context_vector(own, context, 0.0) is own
    assert with_context_vector(own, -own, 1.0) is own  # nothing left: keep its own


def test_context_weights_are_bounded() -> None:
    assert not ContextParams().enabled
    assert ContextParams(0.2, 0.0).enabled
    with pytest.raises(ValueError):
        ContextParams(-0.1, 0.0)
    with pytest.raises(ValueError):
        ContextParams(0.0, 1.5)


def test_memory_ids_of_one_process_are_strictly_increasing() -> None:
    ids = [new_memory_id() for _ in range(5000)]
    assert all(a.int < b.int for a, b in itertools.pairwise(ids))
    assert {i.version for i in ids} == {7}
    assert len({str(i) for i in ids}) == len(ids)


async def test_a_turn_is_found_by_the_words_of_the_turn_before_it(
    app: Any, make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app.recall.worker, "context", ContextParams(0.3, 0.5))
    t = await make_tenant()
    turns = [
        "Ana: Where did you spend the holidays?",
        "Ben: Lisbon, with my cousins. Wonderful!",
        "Ana: Did you try the custard tarts?",
    ]
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", text, session="s1") for text in turns]
            + [proposal("chat", "Ben: Wonderful weather today", session="s2")]
            + [proposal("notes", "Wonderful tools list")]
        )
    )
    names = [r.memory.name for r in response.results]
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    found = await recall.Recall(
        recall_pb2.RecallRequest(query="holidays", spaces=["chat", "notes"], k=10, consistency=RYW)
    )
    lexical = {h.memory.name: h.breakdown.lexical for h in found.hits if h.breakdown.lexical > 0}
    # The question itself, and the answer through its context; nothing else says it.
    assert set(lexical) == {names[0], names[1]}
    assert lexical[names[0]] > lexical[names[1]]  # own words weigh more than context
    # Context is in the index only: the stored content is what was proposed.
    by_name = {h.memory.name: h.memory.content for h in found.hits}
    assert by_name[names[1]] == turns[1]
    # The first turn of a session, and a memory without one, have no context: the
    # answer's words do not reach the next session or another space.
    wonderful = await recall.Recall(
        recall_pb2.RecallRequest(
            query="custard tarts", spaces=["chat", "notes"], k=10, consistency=RYW
        )
    )
    matched = {h.memory.name for h in wonderful.hits if h.breakdown.lexical > 0}
    assert matched == {names[2]}


async def test_without_context_a_turn_has_only_its_own_words(
    app: Any, make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app.recall.worker, "context", ContextParams(0.0, 0.0))
    t = await make_tenant()
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("chat", "Ana: Where did you spend the holidays?", session="s1"),
                proposal("chat", "Ben: Lisbon, with my cousins.", session="s1"),
            ]
        )
    )
    found = await recall_pb2_grpc.RecallServiceStub(t.channel).Recall(
        recall_pb2.RecallRequest(query="holidays", spaces=["chat"], k=10, consistency=RYW)
    )
    matched = {h.memory.name for h in found.hits if h.breakdown.lexical > 0}
    assert matched == {response.results[0].memory.name}
