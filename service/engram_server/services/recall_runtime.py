"""Builds and runs the recall machinery: vector index, embedder, indexing worker."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from engram_server.embeddings.cache import CachedEmbedder
from engram_server.embeddings.factory import build_embedder
from engram_server.platform.background import BackgroundTask
from engram_server.platform.config import Settings
from engram_server.platform.notify import Notifier
from engram_server.platform.roles import indexes
from engram_server.platform.telemetry import tracing_enabled
from engram_server.recall.neighbours import ContextParams
from engram_server.recall.scoring import FusionMode, RankingParams
from engram_server.services.indexing import OUTBOX_CHANNEL, IndexWorker, enqueue_all
from engram_server.services.recall import AccessRecorder, RecallService
from engram_server.store.api_keys import KEY_CHANNEL
from engram_server.store.embedding_cache import PostgresEmbeddingCache
from engram_server.store.postgres import Database
from engram_server.store.vectors import LayoutOutdated, VectorIndex

log = logging.getLogger(__name__)


def build_index(settings: Settings) -> VectorIndex:
    """The configured vector index; with tracing on, every engine call gets a span."""
    index = _build_index(settings)
    if tracing_enabled():
        from engram_server.store.vectors.traced import TracedVectorIndex

        return TracedVectorIndex(index, settings.vector_backend)
    return index


def _build_index(settings: Settings) -> VectorIndex:
    if settings.vector_backend == "edge":
        from engram_server.store.vectors.edge import EdgeVectorIndex

        return EdgeVectorIndex(Path(settings.data_dir) / "vectors")
    if settings.vector_backend == "qdrant":
        if not settings.qdrant_url:
            raise ValueError("vector_backend 'qdrant' needs ENGRAM_QDRANT_URL")
        from engram_server.store.vectors.server import ServerVectorIndex

        return ServerVectorIndex.connect(
            settings.qdrant_url,
            api_key=settings.qdrant_api_key or None,
            collection=settings.qdrant_collection,
            grpc_port=settings.qdrant_grpc_port,
        )
    raise ValueError(f"unknown vector_backend {settings.vector_backend!r}: use edge or qdrant")


def ranking_params(settings: Settings) -> RankingParams:
    try:
        fusion = FusionMode(settings.recall_fusion.upper())
    except ValueError as exc:
        raise ValueError(
            f"recall_fusion must be 'linear' or 'rrf', not {settings.recall_fusion!r}"
        ) from exc
    return RankingParams(
        fusion=fusion,
        lexical_weight=settings.recall_lexical_weight,
        dense_weight=settings.recall_dense_weight,
        time_weight=settings.recall_time_weight,
        time_anchors=settings.recall_time_anchors,
        session_weight=settings.recall_session_weight,
        speaker_weight=settings.recall_speaker_weight,
    )


def context_params(settings: Settings) -> ContextParams:
    """Neighbour context of indexing (the server's worker and `engram reindex`)."""
    return ContextParams(
        settings.recall_context_dense_weight, settings.recall_context_lexical_weight
    )


@dataclass
class RecallRuntime:
    settings: Settings
    db: Database
    index: VectorIndex
    embedder: CachedEmbedder
    worker: IndexWorker
    access: AccessRecorder
    service: RecallService
    # Builds per-tenant search state after start-up (VectorIndex.warm), so the first
    # search of a big tenant does not pay for it.
    _warming: BackgroundTask = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._warming = BackgroundTask("vector-index-warm", self._warm)

    @classmethod
    def build(cls, settings: Settings, db: Database) -> RecallRuntime:
        index = build_index(settings)
        embedder = CachedEmbedder(
            build_embedder(settings),
            PostgresEmbeddingCache(db),
            query_cache_size=settings.embedding_query_cache_size,
        )
        worker = IndexWorker(
            db,
            index,
            embedder,
            settings.index_optimize_after_writes,
            context_params(settings),
        )
        access = AccessRecorder(db)
        service = RecallService(db, index, embedder, worker, access, ranking_params(settings))
        return cls(settings, db, index, embedder, worker, access, service)

    async def start(self, notifier: Notifier) -> None:
        await self.embedder.load()
        try:
            await self.index.ensure_collection(self.embedder.dimension, self.embedder.name)
        except LayoutOutdated as outdated:
            await self._rebuild(outdated)
        if indexes(self.settings):
            notifier.add_listener(OUTBOX_CHANNEL, self.worker.notify)
            self.worker.start()
        notifier.add_listener(KEY_CHANNEL, self._on_key_notice)
        self.access.start()
        self._warming.start()

    async def _rebuild(self, outdated: LayoutOutdated) -> None:
        """Replaces an index of an older layout, or of another variant of the same
        model, with an empty one and queues every memory for indexing, as `engram
        reindex` does. The worker then
        refills it in the background; the embedding cache spares re-embedding."""
        log.warning("%s; rebuilding it from PostgreSQL in the background", outdated.stored)
        await self.index.recreate_collection(self.embedder.dimension, self.embedder.name)
        queued = await enqueue_all(self.db)
        log.warning("vector index rebuild: %d memories queued", sum(queued.values()))

    async def _warm(self) -> None:
        try:
            built = await self.index.warm()
        except Exception:
            log.exception("preparing the vector index's per-tenant state failed")
        else:
            if built:
                log.info("vector index: search state prepared for %d tenant(s)", built)

    def _on_key_notice(self, payload: str) -> None:
        """`<tenant>/*` on the keys channel: the tenant was deleted, on this replica
        or another; its remembered query vectors go with it."""
        tenant_id, _, key_id = payload.partition("/")
        if tenant_id and key_id == "*":
            self.embedder.forget_tenant(tenant_id)

    async def stop(self, notifier: Notifier) -> None:
        notifier.remove_listener(KEY_CHANNEL, self._on_key_notice)
        await self._warming.stop()
        if indexes(self.settings):
            notifier.remove_listener(OUTBOX_CHANNEL, self.worker.notify)
        await self.worker.stop()
        await self.access.stop()
        await self.index.close()
        await self.embedder.close()
