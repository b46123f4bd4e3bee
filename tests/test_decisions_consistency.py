"""SearchDecisions and ExplainCode answer from a finished index on request
(READ_CONSISTENCY_READ_YOUR_WRITES, as Recall), IngestCommits reports the
index backlog, and neither sees nor waits for another tenant's writes.

The background indexing worker is stopped in these tests, so nothing becomes
searchable unless a read-your-writes call drives the indexing itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from engram.v1 import decisions_pb2, recall_pb2, recall_pb2_grpc

from tests.conftest import MakeTenant, RunningServer, TestTenant
from tests.lifecycle_helpers import field_violations
from tests.test_decisions import REPO, file_change, ingest, proto_commit, stub

D = decisions_pb2
RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
SHA = "a" * 40
# Shares no word with the commit below (and names no identifier for the evidence
# bridge): only the dense leg can find it, once its vector is in the index.
PARAPHRASE = "what made us give up on parallel work?"
MESSAGE = (
    "Run reranking on a single-worker executor\n\n"
    "The cross-encoder is not thread-safe, so concurrent calls corrupted scores.\n"
)


@pytest.fixture
async def no_background_indexing(server: RunningServer) -> AsyncIterator[Any]:
    assert server.ctx.recall is not None
    worker = server.ctx.recall.worker
    await worker.stop()
    try:
        yield worker
    finally:
        worker.start()


async def pending(t: TestTenant) -> int:
    status = await recall_pb2_grpc.RecallServiceStub(t.channel).GetIndexStatus(
        recall_pb2.GetIndexStatusRequest()
    )
    return int(status.pending_dense_items)


async def ingest_one(t: TestTenant) -> D.IngestCommitsResponse:
    return await ingest(
        t, [proto_commit(SHA, MESSAGE, files=[file_change("src/rerank.py", (10, 20))])]
    )


def titles(hits: Any) -> list[str]:
    return [h.decision.title for h in hits]


async def test_read_your_writes_search_and_explain_find_what_was_just_ingested(
    make_tenant: MakeTenant, no_background_indexing: Any
) -> None:
    t = await make_tenant()
    response = await ingest_one(t)
    assert response.created_decisions == 1
    # The ingest says what is not searchable yet: its decision's memory.
    assert response.pending_index_items >= 1
    title = response.decisions[0].title

    # Eventual: the index has not seen the decision.
    explain = D.ExplainCodeRequest(repository=REPO, path="docs/other.md", question=PARAPHRASE)
    assert not (await stub(t).ExplainCode(explain)).explanations
    search = D.SearchDecisionsRequest(query=PARAPHRASE, repository=REPO)
    assert not (await stub(t).SearchDecisions(search)).hits
    assert await pending(t) >= 1

    # Read-your-writes: the call waits until it is searchable, then answers.
    explain.consistency = RYW
    explained = await stub(t).ExplainCode(explain)
    assert [e.decision.title for e in explained.explanations] == [title]
    assert explained.explanations[0].match == D.ANCHOR_MATCH_SEMANTIC
    assert await pending(t) == 0
    search.consistency = RYW
    assert titles((await stub(t).SearchDecisions(search)).hits) == [title]


async def test_read_your_writes_neither_sees_nor_waits_for_another_tenant(
    server: RunningServer,
    make_tenant: MakeTenant,
    no_background_indexing: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    a, b = await make_tenant(), await make_tenant()
    worker = no_background_indexing
    real_apply = worker._apply

    async def index_down_for_a(tenant: str, *args: Any, **kwargs: Any) -> None:
        if tenant == a.tenant_id:
            raise RuntimeError("index unreachable")
        await real_apply(tenant, *args, **kwargs)

    monkeypatch.setattr(worker, "_apply", index_down_for_a)
    monkeypatch.setattr(
        server.ctx,
        "settings",
        dataclasses.replace(server.ctx.settings, read_your_writes_wait_ms=300),
    )
    assert (await ingest_one(a)).pending_index_items >= 1
    # B's backlog and answers are B's own: A's unindexed decision is neither
    # counted, waited for, nor found.
    assert await pending(b) == 0
    search = D.SearchDecisionsRequest(query=PARAPHRASE, consistency=RYW)
    assert not (await stub(b).SearchDecisions(search)).hits
    explain = D.ExplainCodeRequest(
        repository=REPO, path="src/rerank.py", question=PARAPHRASE, consistency=RYW
    )
    assert not (await stub(b).ExplainCode(explain)).explanations
    assert await pending(a) >= 1

    # A's own read-your-writes cannot be honoured while its index is down: it
    # says so instead of answering from a half-built index.
    for call in (stub(a).SearchDecisions(search), stub(a).ExplainCode(explain)):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "read-your-writes" in (err.value.details() or "")

    # B ingests and reads its own decision back at once, beside A's backlog.
    response = await ingest_one(b)
    assert response.pending_index_items >= 1
    assert titles((await stub(b).SearchDecisions(search)).hits) == [response.decisions[0].title]


@pytest.mark.parametrize("rpc", ["SearchDecisions", "ExplainCode"])
async def test_an_unknown_consistency_is_invalid_argument(
    make_tenant: MakeTenant, rpc: str
) -> None:
    t = await make_tenant()
    request: Any = (
        D.SearchDecisionsRequest(query="why?", consistency=9)  # type: ignore[arg-type]
        if rpc == "SearchDecisions"
        else D.ExplainCodeRequest(repository=REPO, path="a.py", consistency=9)  # type: ignore[arg-type]
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await getattr(stub(t), rpc)(request)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["consistency"]


async def test_background_indexing_leaves_a_tenant_to_the_caller_waiting_for_it(
    server: RunningServer, make_tenant: MakeTenant, no_background_indexing: Any
) -> None:
    # A niced background batch would hold rows the waiting caller then waits on:
    # while a read-your-writes call indexes its tenant, the background rounds
    # pass that tenant by (and index the others).
    a, b = await make_tenant(), await make_tenant()
    worker = no_background_indexing
    await ingest_one(a)
    await ingest_one(b)
    worker._awaited[a.tenant_id] += 1
    try:
        while await worker.run_once():
            pass
        assert await pending(a) >= 1
        assert await pending(b) == 0
    finally:
        worker._awaited[a.tenant_id] -= 1
    worker._awaited_until.pop(a.tenant_id, None)
    while await worker.run_once():
        pass
    assert await pending(a) == 0
