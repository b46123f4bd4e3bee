"""Text that makes a careless pattern backtrack: one long word, a long run of
blanks, "a-a-a-...". The lexical analyzer (indexing, every query), the Learn
rules and the commit-section reader once re-read such runs from each of their
characters, quadratic in the run: one 64 KB memory of "a_a_a_..." held indexing
for about a minute, and a turn of "a-a-a-..." held Learn for longer. Each pattern
now starts only where a word (or a gap) does; these tests take such text through
the real write, index, recall and Learn paths, and check that what the patterns
are for still works.
"""

from __future__ import annotations

from typing import Any

from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.decisions.anchors import symbol_of
from engram_server.learning.extract import classify
from engram_server.lexical.addressee import addressee_spans

from tests.lifecycle_helpers import propose

# At the write path's 64 KiB content limit.
PATHOLOGICAL = ("a_" * 32_000, "a-" * 32_000, "Bob " * 16_000, "a," + " " * 65_000 + "x")


def test_the_patterns_still_find_what_they_are_for() -> None:
    org = classify("Project Blue Sky Data Lake Ingest Service uses Kafka")
    assert org is not None and "project" in org[3]
    place = classify("We moved to San Francisco, California last year")
    assert place is not None and place[2] == "user::location"
    text = "See you tomorrow, Luca"
    assert [text[a:b] for a, b in addressee_spans(text)] == ["Luca"]
    assert symbol_of("def rerank_async(") == "rerank_async"
    assert symbol_of("static int parse_header(char *buf)") == "parse_header"


async def test_pathological_memories_are_stored_indexed_and_recalled(
    make_tenant: Any, server: Any
) -> None:
    t = await make_tenant()
    for content in PATHOLOGICAL:
        result = await propose(t.lifecycle, "kb", content)
        assert result.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    await propose(t.lifecycle, "kb", "The backup runs at 02:00, Luca")
    assert await server.ctx.recall.worker.wait_until_indexed(t.tenant_id, 120) == 0
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    # Queries are analysed by the same patterns (an error would raise here).
    for query in (PATHOLOGICAL[0][:4000], PATHOLOGICAL[3][:4000]):
        await recall.Recall(recall_pb2.RecallRequest(query=query, spaces=["kb"]))
    found = await recall.Recall(
        recall_pb2.RecallRequest(query="when does the backup run?", spaces=["kb"])
    )
    assert found.hits[0].memory.content == "The backup runs at 02:00, Luca"


async def test_learn_reads_pathological_turns(make_tenant: Any) -> None:
    t = await make_tenant()
    for content in ("a-" * 16_000, "a." * 16_000, " " * 32_000 + "I live in Lisbon"):
        response = await t.lifecycle.Learn(
            lifecycle_pb2.LearnRequest(
                space="users/1",
                turns=[lifecycle_pb2.ConversationTurn(role="user", content=content)],
            )
        )
        stored = [r.memory.content for r in response.results]
        assert stored == (["I live in Lisbon"] if "Lisbon" in content else [])
