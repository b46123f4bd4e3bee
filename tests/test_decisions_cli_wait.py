"""`engram decisions ingest` waits until what it stored is searchable, unless
told not to (--no-wait)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from engram.v1 import recall_pb2, recall_pb2_grpc

from tests.test_cli import run
from tests.test_decisions import T0, commit_all, lines, new_repo


async def pending(t: Any) -> int:
    status = await recall_pb2_grpc.RecallServiceStub(t.channel).GetIndexStatus(
        recall_pb2.GetIndexStatusRequest()
    )
    return int(status.pending_dense_items)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "repo")
    (repo / "pool.py").write_text(lines(12))
    commit_all(repo, "Add the connection pool", T0)
    (repo / "pool.py").write_text(lines(12).replace("line 4\n", "size = 4\n"))
    commit_all(
        repo,
        "Cap the pool at four connections\n\nThe database allows 20 clients and five"
        " workers share it, so each may hold at most four.",
        T0 + timedelta(hours=1),
    )
    return repo


async def test_ingest_waits_for_the_index_unless_told_not_to(
    server: Any,
    make_tenant: Any,
    repo: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waiting, hurried = await make_tenant(), await make_tenant()
    worker = server.ctx.recall.worker
    real_apply = worker._apply

    async def slow_apply(tenant: str, *args: Any, **kwargs: Any) -> None:
        # The index lags well behind the ingest, as on a long history.
        await asyncio.sleep(1.5)
        await real_apply(tenant, *args, **kwargs)

    monkeypatch.setattr(worker, "_apply", slow_apply)
    ingest = ("decisions", "ingest", str(repo), "--repository", "acme/pool", "--quiet")

    code, out, err = await run(
        capsys, *ingest, "--address", server.address, "--api-key", waiting.secret
    )
    assert code == 0, err
    assert "searchable: every decision stored is in the index" in out
    assert await pending(waiting) == 0

    code, out, err = await run(
        capsys, *ingest, "--no-wait", "--address", server.address, "--api-key", hurried.secret
    )
    assert code == 0, err
    assert "searchable" not in out
    assert await pending(hurried) > 0
