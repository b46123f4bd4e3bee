"""The indexing worker: drains the outbox into the vector index.

Every replica runs one. It asks which tenants have outbox rows ready, then, per
tenant and inside that tenant's RLS-scoped transaction, claims a batch with
`FOR UPDATE SKIP LOCKED` (so replicas never process the same rows), writes the
points with their lexical (sparse) vectors while the batch is embedded, so new
memories are findable by their words at once, then sets the dense vectors, and
marks the rows processed in the same transaction (they are collected after ten
minutes). A failure leaves the rows pending with a backoff; a restart simply
finds them again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engram_server.decisions.dense import dense_text as decision_dense_text
from engram_server.embeddings.base import AWAITED
from engram_server.embeddings.cache import CachedEmbedder
from engram_server.lexical.addressee import without_speaker
from engram_server.lexical.sparse import SparseVector, sparse_vector
from engram_server.lifecycle.model import Kind, Memory, content_hash
from engram_server.platform.background import BackgroundTask
from engram_server.recall.neighbours import (
    ContextParams,
    with_context_terms,
    with_context_vector,
)
from engram_server.store import memories as store
from engram_server.store.embedding_cache import forget_in
from engram_server.store.postgres import Conn, Database
from engram_server.store.vectors import IndexPoint, VectorIndex, VectorUpdate, memory_payload

log = logging.getLogger(__name__)

OUTBOX_CHANNEL = "engram_outbox"
BATCH = 256
TENANTS_PER_ROUND = 50
MAX_BACKOFF_SECONDS = 300.0
# How long the short transaction a batch opens inside its own waits for a lock
# (milliseconds) before the batch gives up and is retried.
NESTED_LOCK_TIMEOUT_MS = 2000
IDLE_POLL_SECONDS = 1.0
# After a read-your-writes call indexed its tenant's backlog, the background loop
# leaves that tenant alone this long: a caller that waits for more asks again at
# once, and a niced batch taken in between would hold rows it then waits on.
AWAITED_GRACE_SECONDS = 2.0
# How long processed outbox rows stay visible before they are collected.
PROCESSED_RETENTION_SECONDS = 600


def index_text(m: Memory) -> str:
    """What gets lexically indexed for a memory (its own part: the neighbour
    context, `recall.neighbours`, is added to the vectors)."""
    return m.content


def dense_text(content_hash: str, content: str, kind: Kind | None = None) -> tuple[str, str]:
    """What gets embedded for a memory, and the cache key of that text: for a
    decision mined or stated through DecisionsService, its explaining part
    (`decisions/dense.py` says why); otherwise the content without a "SPEAKER: "
    prefix (`recall/speakers.py` says why). Keyed by the text's own hash when it
    is not the whole content (the content hash names the whole)."""
    if kind == Kind.DECISION:
        decision = decision_dense_text(content)
        if decision is not content:
            return _DECISION_KEY + hashlib.sha256(decision.encode("utf-8")).hexdigest(), decision
    text = without_speaker(content)
    if text is content:
        return content_hash, content
    return "speakerless:" + hashlib.sha256(text.encode("utf-8")).hexdigest(), text


# Cache keys of decisions' embedded parts: the same explanation (a "Fix typo." of
# many commits) is embedded once per tenant.
_DECISION_KEY = "decision:"


def cache_keys(content: str) -> tuple[str, ...]:
    """Every embedding-cache key indexing may have stored a vector of this content
    under: its content hash (the whole content, as embedded before speakers were
    cut), for a "SPEAKER: text" memory the key of the text `dense_text` embeds,
    and for a decision's memory the key of its embedded part. Whatever deletes
    content for good forgets these too."""
    whole = content_hash(content)
    keys = [whole]
    for kind in (None, Kind.DECISION):
        key, _ = dense_text(whole, content, kind)
        keys.append(key)
    return tuple(dict.fromkeys(keys))


async def forget_vanished(
    conn: Conn, tenant: str, memories: Sequence[Memory], neighbours: dict[uuid.UUID, Neighbour]
) -> int:
    """Forgets the cached vectors of the batch's memories that were purged while
    the batch was embedded (the purge forgot what was cached then; this batch
    cached them again). A memory counts as gone when its row is missing or locked
    for deletion by a purge not committed yet (SKIP LOCKED: that purge is not
    waited for, so a write holding the row cannot deadlock with this check; a row
    merely locked for an update loses its cached vector, which costs one
    re-embedding at the next reindex and nothing else). A purge that deletes a
    row after this check forgets the vectors this batch cached itself. A memory's
    neighbour is of its space and session, so it went with it."""
    cur = await conn.execute(
        "SELECT id FROM memories WHERE id = ANY(%s) FOR KEY SHARE SKIP LOCKED",
        ([m.id for m in memories],),
    )
    alive = {row["id"] for row in await cur.fetchall()}
    keys: set[str] = set()
    for m in memories:
        if m.id in alive:
            continue
        keys.update(cache_keys(m.content))
        neighbour = neighbours.get(m.id)
        if neighbour is not None:
            keys.update(cache_keys(neighbour.content))
    return await forget_in(conn, tenant, sorted(keys))


@dataclass(frozen=True)
class Neighbour:
    """The previous memory of a memory's session, as indexing uses it."""

    content_hash: str
    content: str


# Per memory of a batch that has a session: its session's previous memory (by id,
# which orders like creation, see `new_memory_id`) that is not rejected, retracted
# or expired. The index (tenant_id, space, session, id) makes each a short
# backward scan.
_PREVIOUS_TURNS_SQL = """
SELECT m.id, p.content_hash, p.content
  FROM memories AS m
  CROSS JOIN LATERAL (
    SELECT q.content_hash, q.content FROM memories AS q
     WHERE q.tenant_id = m.tenant_id AND q.space = m.space AND q.session = m.session
       AND q.session <> '' AND q.id < m.id
       AND q.status IN ('ACTIVE', 'SUPERSEDED', 'PROPOSED', 'PENDING_CONFIRMATION')
     ORDER BY q.id DESC LIMIT 1) AS p
 WHERE m.id = ANY(%s::uuid[]) AND m.session <> ''
"""


@dataclass(frozen=True)
class Claimed:
    ids: list[int]
    upserts: list[uuid.UUID]
    deletes: list[uuid.UUID]


async def _claim(conn: Conn) -> Claimed:
    cur = await conn.execute(
        "SELECT id, memory_id, op FROM outbox WHERE processed_at IS NULL"
        " AND available_at <= now() ORDER BY id LIMIT %s FOR UPDATE SKIP LOCKED",
        (BATCH,),
    )
    rows = await cur.fetchall()
    latest: dict[uuid.UUID, str] = {}
    for row in rows:  # later rows win: a delete after an upsert is a delete
        if row["memory_id"] is not None:
            latest[row["memory_id"]] = row["op"]
    return Claimed(
        ids=[row["id"] for row in rows],
        upserts=[m for m, op in latest.items() if op == "upsert"],
        deletes=[m for m, op in latest.items() if op == "delete"],
    )


class IndexWorker:
    def __init__(
        self,
        db: Database,
        index: VectorIndex,
        embedder: CachedEmbedder,
        optimize_after_writes: int = 0,
        context: ContextParams | None = None,
    ) -> None:
        self.db = db
        self.context = context or ContextParams()
        # Idle rounds build the index's search graphs once this many points changed
        # (0: never). The embedded engine pauses the process while it builds.
        self.optimize_after_writes = optimize_after_writes
        self.index = index
        self.embedder = embedder
        self._wake = asyncio.Event()
        self._loop = BackgroundTask("index-worker", self._run_forever)
        self._drained: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.last_indexed_time: datetime | None = None
        # Tenants -> read-your-writes calls now indexing their backlog themselves.
        self._awaited: Counter[str] = Counter()
        # ... and until when to leave them to their caller after its call ends (it
        # asks again at once when it waits for more).
        self._awaited_until: dict[str, float] = {}
        # Points written since the index last built its search graphs.
        self.written_since_optimize = 0

    def notify(self, tenant_id: str) -> None:
        """Outbox NOTIFY callback: new work for `tenant_id`."""
        self._wake.set()

    def start(self) -> None:
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def _run_forever(self) -> None:
        while True:
            self._wake.clear()
            try:
                busy = await self.run_once()
            except Exception:
                log.exception("indexing round failed; retrying")
                busy = False
            if not busy:
                if 0 < self.optimize_after_writes <= self.written_since_optimize:
                    await self._optimize()
                try:
                    await asyncio.wait_for(self._wake.wait(), IDLE_POLL_SECONDS)
                except TimeoutError:
                    pass

    async def run_once(self) -> bool:
        """One round over the tenants with ready work; True if anything was done."""
        async with self.db.unscoped() as conn:
            cur = await conn.execute(
                "SELECT tenant_id FROM engram_tenants_with_outbox(%s)", (TENANTS_PER_ROUND,)
            )
            tenants = [row["tenant_id"] for row in await cur.fetchall()]
            await conn.commit()
        did_work = False
        for tenant in tenants:
            # A tenant with a waiting caller is indexed by that caller, at its
            # priority (`wait_until_indexed`): a niced batch taken here would hold
            # rows the caller then waits on.
            if self._awaited[tenant] or self._awaited_until.get(tenant, 0.0) > time.monotonic():
                continue
            did_work |= await self.index_tenant(tenant)
        return did_work

    async def index_tenant(self, tenant: str) -> bool:
        """Indexes one batch of a tenant's outbox; True if it claimed anything."""
        try:
            async with self.db.tenant_tx(tenant) as conn:
                claimed = await _claim(conn)
                if not claimed.ids:
                    return False
                memories = await _load(conn, claimed.upserts)
                gone = [m for m in claimed.upserts if m not in memories]
                pools = await _pools(conn, list(memories))
                neighbours = (
                    await _previous_turns(conn, [m.id for m in memories.values() if m.session])
                    if self.context.enabled
                    else {}
                )
                await self._apply(
                    tenant,
                    list(memories.values()),
                    [*claimed.deletes, *gone],
                    pools,
                    neighbours,
                )
                await conn.execute(
                    "UPDATE outbox SET processed_at = now() WHERE id = ANY(%s)", (claimed.ids,)
                )
                await conn.execute(
                    "DELETE FROM outbox WHERE processed_at < now() - %s * interval '1 second'",
                    (PROCESSED_RETENTION_SECONDS,),
                )
            self.last_indexed_time = datetime.now().astimezone()
            return True
        except Exception:
            log.exception("indexing tenant %s failed; backing off", tenant)
            await self._back_off(tenant)
            return False

    async def _optimize(self) -> None:
        """Builds search graphs once the queue is idle: until then, searches of the
        newly written points scan them exactly, which grows with the tenant."""
        try:
            await self.index.optimize()
            self.written_since_optimize = 0
        except Exception:
            log.exception("optimizing the vector index failed; retrying when idle")

    async def _apply(
        self,
        tenant: str,
        memories: list[Memory],
        deletes: list[uuid.UUID],
        pools: dict[uuid.UUID, list[str]] | None = None,
        neighbours: dict[uuid.UUID, Neighbour] | None = None,
    ) -> None:
        neighbours = neighbours or {}
        context = self.context
        if deletes:
            await self.index.delete(tenant, deletes)
        if not memories:
            return
        self.written_since_optimize += len(memories)
        # Words first: the points (with their lexical vectors) are written while the
        # model embeds the batch (inference runs outside the GIL, the index writes
        # on their own thread), so a memory is findable by its words well before
        # its dense vector is set.
        lexical = self.index.upsert(
            [
                IndexPoint(
                    id=m.id,
                    tenant_id=tenant,
                    payload=memory_payload(m, (pools or {}).get(m.id, ())),
                    sparse=self._sparse(m, neighbours.get(m.id)),
                )
                for m in memories
            ]
        )
        # The neighbours' own vectors come with the batch's: a neighbour in the
        # batch is the same text (embedded once), an earlier one is in the cache.
        mixed = (
            [i for i, m in enumerate(memories) if m.id in neighbours]
            if context.dense_weight
            else []
        )
        dense = self.embedder.embed_for_tenant(
            tenant,
            [dense_text(m.content_hash, m.content, m.kind) for m in memories]
            + [
                dense_text(context_of.content_hash, context_of.content)
                for context_of in (neighbours[memories[i].id] for i in mixed)
            ],
        )
        _, vectors = await asyncio.gather(lexical, dense)
        # A short transaction of its own, not the batch's: the rows it share-locks
        # are released at once instead of holding up a purge until the batch commits.
        async with self.db.tenant_tx(tenant) as conn:
            # The batch's transaction is still open and holds a share lock on
            # memories. A lock queued behind it (a schema change, LOCK TABLE) would
            # make this wait for ever, and the batch for this. Bounded, the batch
            # fails, rolls back, lets the other through, and is retried.
            await conn.execute(f"SET LOCAL lock_timeout = {NESTED_LOCK_TIMEOUT_MS}")
            await forget_vanished(conn, tenant, memories, neighbours)
        rows = list(vectors[: len(memories)])
        for offset, i in enumerate(mixed, len(memories)):
            rows[i] = with_context_vector(rows[i], vectors[offset], context.dense_weight)
        await self.index.set_vectors(
            tenant,
            [
                VectorUpdate(id=m.id, dense=row.tolist())
                for m, row in zip(memories, rows, strict=True)
            ],
        )

    def _sparse(self, m: Memory, neighbour: Neighbour | None) -> SparseVector:
        own = sparse_vector(index_text(m))
        if neighbour is None or not self.context.lexical_weight:
            return own
        return with_context_terms(
            own, sparse_vector(neighbour.content), self.context.lexical_weight
        )

    async def _back_off(self, tenant: str) -> None:
        async with self.db.tenant_tx(tenant) as conn:
            await conn.execute(
                "UPDATE outbox SET attempts = attempts + 1, available_at = now()"
                " + least(%s, power(2, attempts)) * interval '1 second'"
                " WHERE id IN (SELECT id FROM outbox WHERE processed_at IS NULL"
                " AND available_at <= now()"
                " ORDER BY id LIMIT %s)",
                (MAX_BACKOFF_SECONDS, BATCH),
            )

    async def backlog(self, tenant: str) -> dict[str, Any]:
        async with self.db.tenant_tx(tenant) as conn:
            cur = await conn.execute(
                "SELECT count(*) AS pending, count(*) FILTER (WHERE attempts > 0) AS retrying,"
                " min(create_time) AS oldest FROM outbox WHERE processed_at IS NULL"
            )
            row = await cur.fetchone()
        assert row is not None
        return dict(row)

    async def wait_until_indexed(self, tenant: str, wait_seconds: float) -> int:
        """Waits (up to `wait_seconds`) until the tenant's outbox is empty; returns the
        number of items still pending. Drives the work itself so a read-your-writes
        query does not wait for the background loop's turn."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(0.0, wait_seconds)
        # Someone waits for these batches: they are embedded at the caller's
        # priority, not as background work (`embeddings.base.AWAITED`).
        awaited = AWAITED.set(True)
        self._awaited[tenant] += 1
        try:
            while True:
                pending = int((await self.backlog(tenant))["pending"])
                if pending == 0 or loop.time() >= deadline:
                    return pending
                if not await self.index_tenant(tenant):
                    await asyncio.sleep(0.01)
        finally:
            AWAITED.reset(awaited)
            self._awaited[tenant] -= 1
            if not self._awaited[tenant]:
                del self._awaited[tenant]
                self._awaited_until[tenant] = time.monotonic() + AWAITED_GRACE_SECONDS


async def _previous_turns(conn: Conn, ids: list[uuid.UUID]) -> dict[uuid.UUID, Neighbour]:
    """Each memory's session neighbour (`_PREVIOUS_TURNS_SQL`), by memory id."""
    if not ids:
        return {}
    cur = await conn.execute(_PREVIOUS_TURNS_SQL, (store.uuid_array_literal(ids),))
    return {
        row["id"]: Neighbour(row["content_hash"], row["content"]) for row in await cur.fetchall()
    }


async def _load(conn: Conn, ids: list[uuid.UUID]) -> dict[uuid.UUID, Memory]:
    if not ids:
        return {}
    cur = await conn.execute(
        store.by_ids_sql(store.MEMORY_COLUMNS), (store.uuid_array_literal(ids),)
    )
    return {m.id: m for m in map(store.row_to_memory, await cur.fetchall())}


async def _pools(conn: Conn, ids: list[uuid.UUID]) -> dict[uuid.UUID, list[str]]:
    """The pools each memory is published in (for the index payload)."""
    if not ids:
        return {}
    cur = await conn.execute(
        "SELECT memory_id, array_agg(pool_id ORDER BY pool_id) AS pools FROM publications"
        " WHERE memory_id = ANY(%s::uuid[]) AND state = 'PUBLISHED' GROUP BY memory_id",
        (store.uuid_array_literal(ids),),
    )
    return {r["memory_id"]: list(r["pools"]) for r in await cur.fetchall()}


async def enqueue_all(db: Database) -> dict[str, int]:
    """Queues an outbox `upsert` for every memory of every tenant; counts per tenant.
    A full rebuild (`engram reindex`, or a server replacing an outdated index)
    starts here; the worker then drains the outbox as it does any write."""
    async with db.unscoped() as conn:
        cur = await conn.execute("SELECT tenant_id, queued FROM engram_enqueue_reindex()")
        rows = await cur.fetchall()
        await conn.commit()
    return {row["tenant_id"]: int(row["queued"]) for row in rows}
