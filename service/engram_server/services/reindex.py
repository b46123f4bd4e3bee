"""`engram reindex`: rebuild the vector index from PostgreSQL, the source of truth.

The rebuild reuses the normal indexing path rather than a bulk side door: it
empties the collection (recreating it for the configured embedding model, which is
also how an `IndexMismatch` is resolved), queues one outbox `upsert` per memory of
every tenant through `engram_enqueue_reindex()`, and then, by default, drains that
outbox here with the same `IndexWorker` a server runs. A rebuilt index therefore
holds exactly what incremental indexing would have produced, and running servers
(woken by the outbox NOTIFY) can share the work or take it over (`drain=False`).

The embedded (edge) index belongs to one process and holds a lock on its
write-ahead log while open, so on that backend the rebuild must run while the
server is stopped; `IndexInUse` says so before anything is deleted.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engram_server.embeddings.cache import CachedEmbedder
from engram_server.embeddings.factory import build_embedder
from engram_server.platform.config import Settings
from engram_server.services.indexing import IndexWorker, enqueue_all
from engram_server.services.recall_runtime import build_index, context_params
from engram_server.store.embedding_cache import PostgresEmbeddingCache
from engram_server.store.postgres import Database

# Where EdgeVectorIndex keeps the shard's write-ahead log, which the engine locks
# (flock) for as long as a process has the index open.
EDGE_WAL = Path("vectors") / "shard" / "wal"
# A drain gives up (leaving the rest queued for the servers) when nothing could be
# indexed for this long, e.g. while every remaining item waits out a retry backoff.
STALL_SECONDS = 60.0
STALL_POLL_SECONDS = 1.0


class IndexInUse(RuntimeError):
    """The embedded index is open in another process (a running server)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"the embedded vector index at {path} is in use by a running Engram server. "
            "The embedded index belongs to one process: stop the server, run "
            "`engram reindex`, then start the server again (or run `engram reindex "
            "--no-drain` against a Qdrant server backend while servers are running)."
        )
        self.path = path


@dataclass
class ReindexProgress:
    """Where a rebuild stands; `pending` is what is still queued."""

    queued: int
    indexed: int
    pending: int


@dataclass(frozen=True)
class ReindexReport:
    model: str
    dimension: int
    backend: str
    # Outbox rows queued, per tenant (tenants without memories are absent).
    queued: dict[str, int]
    drained: bool
    # Items still pending when the command returned (0 after a complete drain).
    pending: int

    @property
    def total(self) -> int:
        return sum(self.queued.values())


def check_edge_unlocked(data_dir: str | os.PathLike[str]) -> None:
    """Raises IndexInUse if another process holds the embedded index open.

    Recreating deletes the shard directory, which would pull the files from under
    a running server without any error there, so the lock is probed first.
    """
    wal = Path(data_dir) / EDGE_WAL
    if not wal.is_dir():
        return
    fd = os.open(wal, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        raise IndexInUse(Path(data_dir) / "vectors") from exc
    finally:
        os.close(fd)  # closing releases the probe's own lock


def is_lock_error(error: BaseException) -> bool:
    """The engine's message when its WAL is locked by another open index."""
    return "WouldBlock" in str(error)


async def pending_items(worker: IndexWorker, tenants: list[str]) -> int:
    total = 0
    for tenant in tenants:
        total += int((await worker.backlog(tenant))["pending"])
    return total


async def drain(
    worker: IndexWorker,
    queued: dict[str, int],
    progress: Callable[[ReindexProgress], None] | None = None,
    stall_seconds: float = STALL_SECONDS,
) -> int:
    """Runs indexing rounds until the tenants' outboxes are empty; returns what is
    left pending (non-zero only if indexing stalled for `stall_seconds`)."""
    tenants = sorted(queued)
    total = sum(queued.values())
    loop = asyncio.get_running_loop()
    stalled_since: float | None = None
    while True:
        busy = await worker.run_once()
        pending = await pending_items(worker, tenants)
        if progress is not None and (busy or pending == 0):
            progress(ReindexProgress(total, max(0, total - pending), pending))
        if pending == 0:
            return 0
        if busy:
            stalled_since = None
            continue
        # Nothing was ready: the rest waits out a retry backoff, or another
        # process claimed it. Poll until it is done or clearly stuck.
        now = loop.time()
        stalled_since = now if stalled_since is None else stalled_since
        if now - stalled_since >= stall_seconds:
            return pending
        await asyncio.sleep(STALL_POLL_SECONDS)


async def reindex(
    settings: Settings,
    db: Database,
    *,
    drain_outbox: bool = True,
    progress: Callable[[ReindexProgress], None] | None = None,
) -> ReindexReport:
    """Rebuilds the vector index of `settings` from the memories in `db`.

    With `drain_outbox=False` the queued items are left to the running servers'
    indexing workers.
    """
    if settings.vector_backend == "edge":
        check_edge_unlocked(settings.data_dir)
    embedder = CachedEmbedder(build_embedder(settings), PostgresEmbeddingCache(db))
    target = build_index(settings)
    try:
        await embedder.load()
        try:
            await target.recreate_collection(embedder.dimension, embedder.name)
        except Exception as exc:
            if is_lock_error(exc):
                raise IndexInUse(Path(settings.data_dir) / "vectors") from exc
            raise
        queued = await enqueue_all(db)
        pending = sum(queued.values())
        if drain_outbox:
            worker = IndexWorker(db, target, embedder, context=context_params(settings))
            pending = await drain(worker, queued, progress)
            if pending == 0:
                # Build the approximate-search graphs now rather than on the
                # server's first idle moment.
                await target.optimize()
        return ReindexReport(
            model=embedder.name,
            dimension=embedder.dimension,
            backend=settings.vector_backend,
            queued=queued,
            drained=drain_outbox and pending == 0,
            pending=pending,
        )
    finally:
        await target.close()
        await embedder.close()
