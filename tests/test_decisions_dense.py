"""What the dense leg embeds of a decision: its explaining lines, not the code
places and origin its memory carries for the lexical leg; cached under a key of
that text, which a purge forgets."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from engram.v1 import lifecycle_pb2
from engram_server.decisions.dense import MAX_DENSE_CHARS, dense_text
from engram_server.decisions.identity import default_space
from engram_server.decisions.model import Alternative, Anchor, Evidence, Origin
from engram_server.lifecycle.model import Kind, content_hash
from engram_server.services import indexing
from engram_server.services.decisions import memory_text
from engram_server.store import memories as store

from tests.test_decisions import REPO, file_change, indexed, ingest, proto_commit

WHEN = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


def decision_memory(rationale: str) -> str:
    return memory_text(
        REPO,
        "Run reranking on a single-worker executor",
        "Reranking runs on one worker thread.",
        rationale,
        [Alternative("a thread pool", "it deadlocked under load")],
        [Evidence("so concurrent calls corrupted scores", Origin.COMMIT, "a" * 40)],
        [Anchor("src/rerank.py", None, "a" * 40, "Reranker.score")],
        WHEN,
        "a" * 40,
    )


def test_the_dense_text_keeps_the_explanation_and_drops_what_only_names() -> None:
    content = decision_memory("The cross-encoder is not thread-safe.")
    text = dense_text(content)
    assert text.splitlines() == [
        "Run reranking on a single-worker executor.",
        "Reranking runs on one worker thread.",
        "Why: The cross-encoder is not thread-safe.",
        "Alternatives considered: a thread pool",
        "Evidence: so concurrent calls corrupted scores",
    ]
    # The lexical leg still has every line.
    assert "Code: src/rerank.py Reranker.score" in content
    assert content.endswith(f"({REPO}, 2024-05-01, commit aaaaaaaaaaaa)")


def test_a_long_reason_is_cut_at_a_word_boundary() -> None:
    text = dense_text(decision_memory("because " + "the cache grew again " * 60))
    assert len(text) <= MAX_DENSE_CHARS
    assert text.startswith("Run reranking on a single-worker executor.")
    assert text.split()[-1] in {"the", "cache", "grew", "again"}  # whole words only


def test_a_decision_memory_written_as_plain_text_is_embedded_whole() -> None:
    plain = "We chose Postgres.\nCode: none of it is generated.\n(see the wiki)"
    assert dense_text(plain) is plain


def test_indexing_embeds_a_decision_by_its_dense_text_under_its_own_key() -> None:
    content = decision_memory("The cross-encoder is not thread-safe.")
    whole = content_hash(content)
    key, text = indexing.dense_text(whole, content, Kind.DECISION)
    assert text == dense_text(content)
    assert key.startswith("decision:") and key != whole
    # Another kind with the same content is embedded whole, as before.
    assert indexing.dense_text(whole, content, Kind.SEMANTIC) == (whole, content)
    # A purge forgets every key a content may have been cached under.
    assert key in indexing.cache_keys(content)


async def test_an_ingested_decision_is_cached_by_its_dense_text_and_a_purge_forgets_it(
    make_tenant: Any, server: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    message = (
        "Run reranking on a single-worker executor\n\n"
        "The cross-encoder is not thread-safe, so concurrent calls corrupted scores.\n"
    )
    response = await ingest(
        t, [proto_commit("b" * 40, message, files=[file_change("src/rerank.py", (10, 20))])]
    )
    await indexed(server, t)
    memory_id = uuid.UUID(response.decisions[0].memory.rpartition("/")[2])
    async with server.ctx.db.tenant_tx(t.tenant_id) as conn:
        memory = await store.get_memory(conn, memory_id)
    assert memory is not None and memory.kind == Kind.DECISION
    key, text = indexing.dense_text(memory.content_hash, memory.content, Kind.DECISION)
    assert "Code: " not in text and "commit bbbbbbbbbbbb" not in text

    async def cached() -> set[str]:
        cur = await raw_pg.execute(
            "SELECT content_hash FROM embedding_cache WHERE tenant_id = %s", (t.tenant_id,)
        )
        return {row[0] for row in await cur.fetchall()}

    assert key in await cached()
    assert memory.content_hash not in await cached()  # the whole content was not embedded
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=default_space(REPO), reason="erasure request")
    )
    assert key not in await cached()
