"""The physical floor: the same rows written and read with plain psycopg.

The floor database is a scratch database with Engram's real migrations applied,
written by a superuser connection: row-level security does not apply to superusers,
and no Engram code runs, so the figures are what PostgreSQL itself costs for the
rows Engram stores (one memory row plus its two audit rows per proposal).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from engram_server.bench.workload import SOURCE, Item
from engram_server.lifecycle.model import new_memory_id
from engram_server.store.memories import MEMORY_COLUMNS

AGENT = "bench"

_INSERT_MEMORY = """
INSERT INTO memories (tenant_id, id, space, session, kind, content, source, agent,
                      confidence, importance, tags, status, content_hash, attributes)
VALUES (%s, %s, %s, %s, 'SEMANTIC', %s, %s, %s, %s, 0.5, %s, 'ACTIVE', %s, %s)
"""
_AUDIT_COLUMNS = (
    "tenant_id, seq, action, memory_id, space, from_status, to_status, actor, reason, details"
)
_INSERT_AUDIT_PAIR = f"""
INSERT INTO audit_log ({_AUDIT_COLUMNS}) VALUES
  (%s, %s, 'TRANSITION', %s, %s, '', 'PROPOSED', %s, 'proposed', '{{}}'),
  (%s, %s, 'TRANSITION', %s, %s, 'PROPOSED', 'ACTIVE', %s, 'all validators passed', '{{}}')
"""
_GET = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE tenant_id = %s AND id = %s"
_LIST_FIRST = (
    f"SELECT {MEMORY_COLUMNS} FROM memories WHERE tenant_id = %s"
    " ORDER BY create_time DESC, id DESC LIMIT %s"
)
_LIST_AFTER = (
    f"SELECT {MEMORY_COLUMNS} FROM memories WHERE tenant_id = %s"
    " AND (create_time, id) < (%s, %s) ORDER BY create_time DESC, id DESC LIMIT %s"
)


class FloorDatabase:
    """One sync connection to the scratch floor database."""

    def __init__(self, url: str) -> None:
        # Autocommit: a read is one statement, one round trip; writes open an
        # explicit transaction so each commit holds exactly the rows it should.
        self.url = url
        self.conn: psycopg.Connection[tuple[Any, ...]] = psycopg.connect(url, autocommit=True)
        self._audit_seq: dict[str, int] = {}

    def close(self) -> None:
        self.conn.close()

    def add_tenant(self, tenant_id: str) -> None:
        with self.conn.transaction():
            self.conn.execute("INSERT INTO tenants (id) VALUES (%s)", (tenant_id,))
            self.conn.execute("INSERT INTO tenant_state (tenant_id) VALUES (%s)", (tenant_id,))
        self._audit_seq[tenant_id] = 0

    def _memory_params(self, tenant_id: str, memory_id: uuid.UUID, item: Item) -> tuple[Any, ...]:
        return (
            tenant_id,
            memory_id,
            item.space,
            item.session,
            item.content,
            SOURCE,
            AGENT,
            item.confidence,
            list(item.tags),
            item.content_hash,
            Jsonb(item.attributes),
        )

    def _audit_params(self, tenant_id: str, memory_id: uuid.UUID, space: str) -> tuple[Any, ...]:
        seq = self._audit_seq[tenant_id]
        self._audit_seq[tenant_id] = seq + 2
        return (
            tenant_id,
            seq + 1,
            memory_id,
            space,
            AGENT,
            tenant_id,
            seq + 2,
            memory_id,
            space,
            AGENT,
        )

    def insert_one(self, tenant_id: str, item: Item) -> tuple[uuid.UUID, float]:
        """One memory and its audit rows in one commit; returns (id, seconds)."""
        memory_id = new_memory_id()
        memory = self._memory_params(tenant_id, memory_id, item)
        audit = self._audit_params(tenant_id, memory_id, item.space)
        start = time.perf_counter()
        with self.conn.transaction():
            self.conn.execute(_INSERT_MEMORY, memory)
            self.conn.execute(_INSERT_AUDIT_PAIR, audit)
        return memory_id, time.perf_counter() - start

    def insert_batch(self, tenant_id: str, items: Sequence[Item]) -> tuple[list[uuid.UUID], float]:
        """Many memories and their audit rows in one commit; returns (ids, seconds)."""
        ids = [new_memory_id() for _ in items]
        memories = [self._memory_params(tenant_id, i, it) for i, it in zip(ids, items, strict=True)]
        audits = [
            self._audit_params(tenant_id, i, it.space) for i, it in zip(ids, items, strict=True)
        ]
        start = time.perf_counter()
        with self.conn.transaction(), self.conn.cursor() as cur:
            # executemany pipelines the statements: no round trip per row.
            cur.executemany(_INSERT_MEMORY, memories)
            cur.executemany(_INSERT_AUDIT_PAIR, audits)
        return ids, time.perf_counter() - start

    def insert_batches_concurrently(
        self, tenant_id: str, batches: Sequence[Sequence[Item]], connections: int
    ) -> tuple[list[uuid.UUID], list[float], float]:
        """`insert_batch` from `connections` connections at once, each taking the
        next batch when its last one committed; returns (ids, seconds of each
        batch, wall seconds of them all)."""
        work = []
        ids: list[uuid.UUID] = []
        for items in batches:
            batch_ids = [new_memory_id() for _ in items]
            ids.extend(batch_ids)
            pairs = list(zip(batch_ids, items, strict=True))
            work.append(
                (
                    [self._memory_params(tenant_id, i, it) for i, it in pairs],
                    [self._audit_params(tenant_id, i, it.space) for i, it in pairs],
                )
            )
        conns = [psycopg.connect(self.url, autocommit=True) for _ in range(connections)]
        seconds: list[float] = []

        def insert(conn: psycopg.Connection[tuple[Any, ...]], chunk: list[Any]) -> None:
            for memories, audits in chunk:
                start = time.perf_counter()
                with conn.transaction(), conn.cursor() as cur:
                    cur.executemany(_INSERT_MEMORY, memories)
                    cur.executemany(_INSERT_AUDIT_PAIR, audits)
                seconds.append(time.perf_counter() - start)

        try:
            with ThreadPoolExecutor(connections) as pool:
                start = time.perf_counter()
                list(pool.map(insert, conns, [work[k::connections] for k in range(connections)]))
                wall = time.perf_counter() - start
        finally:
            for conn in conns:
                conn.close()
        return ids, seconds, wall

    def get(self, tenant_id: str, memory_id: uuid.UUID) -> float:
        """Seconds of one primary-key read of a memory."""
        start = time.perf_counter()
        row = self.conn.execute(_GET, (tenant_id, memory_id)).fetchone()
        elapsed = time.perf_counter() - start
        if row is None:
            raise LookupError(f"floor: memory {memory_id} not found")
        return elapsed

    def round_trip(self) -> float:
        """Seconds of one `SELECT 1`: a statement's round trip, no table touched."""
        start = time.perf_counter()
        self.conn.execute("SELECT 1").fetchone()
        return time.perf_counter() - start

    def list_page(
        self, tenant_id: str, limit: int, after: tuple[datetime, uuid.UUID] | None
    ) -> float:
        """Seconds of one keyset page, newest first."""
        start = time.perf_counter()
        if after is None:
            rows = self.conn.execute(_LIST_FIRST, (tenant_id, limit)).fetchall()
        else:
            rows = self.conn.execute(_LIST_AFTER, (tenant_id, after[0], after[1], limit)).fetchall()
        elapsed = time.perf_counter() - start
        if not rows:
            raise LookupError("floor: empty page")
        return elapsed

    def position(self, tenant_id: str, offset: int) -> tuple[datetime, uuid.UUID]:
        """The (create_time, id) key of the row `offset` rows from the newest."""
        row = self.conn.execute(
            "SELECT create_time, id FROM memories WHERE tenant_id = %s"
            " ORDER BY create_time DESC, id DESC OFFSET %s LIMIT 1",
            (tenant_id, offset),
        ).fetchone()
        if row is None:
            raise LookupError(f"floor: no row at offset {offset}")
        return row[0], row[1]
