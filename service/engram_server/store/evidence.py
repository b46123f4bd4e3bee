"""SQL for evidence: edges, conflicts and space-profile runs.

Like store/memories.py, every function takes a connection inside
`Database.tenant_tx`: row-level security confines it to one tenant, and the
foreign keys of `edges` ((tenant_id, source_id) and (tenant_id, target_id) on
memories) make an edge between two tenants impossible to store.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from engram_server.store.postgres import Conn

EDGE_KINDS = ("SUPPORTS", "CONTRADICTS", "SUPERSEDES", "ABOUT", "DERIVED_FROM", "RELATED")


@dataclass(frozen=True)
class Edge:
    id: uuid.UUID
    source_id: uuid.UUID
    target_id: uuid.UUID
    kind: str
    weight: float
    reason: str
    creator: str
    create_time: datetime
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"edges/{self.id}"


_EDGE_COLUMNS = "id, source_id, target_id, kind, weight, reason, creator, create_time, attributes"


def _edge(row: dict[str, Any]) -> Edge:
    return Edge(
        id=row["id"],
        source_id=row["source_id"],
        target_id=row["target_id"],
        kind=row["kind"],
        weight=row["weight"],
        reason=row["reason"],
        creator=row["creator"],
        create_time=row["create_time"],
        attributes=dict(row["attributes"] or {}),
    )


async def insert_edge(
    conn: Conn,
    tenant_id: str,
    source_id: uuid.UUID,
    target_id: uuid.UUID,
    kind: str,
    *,
    weight: float,
    reason: str,
    creator: str,
    attributes: dict[str, str],
) -> Edge | None:
    """Inserts one edge; None when the same (source, target, kind) exists."""
    cur = await conn.execute(
        "INSERT INTO edges (tenant_id, id, source_id, target_id, kind, weight, reason,"
        " creator, attributes) VALUES (%s, gen_random_uuid(), %s, %s, %s, %s, %s, %s, %s)"
        " ON CONFLICT (tenant_id, source_id, target_id, kind) DO NOTHING"
        f" RETURNING {_EDGE_COLUMNS}",
        (tenant_id, source_id, target_id, kind, weight, reason, creator, Jsonb(attributes)),
    )
    row = await cur.fetchone()
    return _edge(row) if row else None


async def find_edge(
    conn: Conn, source_id: uuid.UUID, target_id: uuid.UUID, kind: str
) -> Edge | None:
    cur = await conn.execute(
        f"SELECT {_EDGE_COLUMNS} FROM edges WHERE source_id = %s AND target_id = %s AND kind = %s",
        (source_id, target_id, kind),
    )
    row = await cur.fetchone()
    return _edge(row) if row else None


async def get_edge(conn: Conn, edge_id: uuid.UUID, *, for_update: bool = False) -> Edge | None:
    lock = " FOR UPDATE" if for_update else ""
    cur = await conn.execute(f"SELECT {_EDGE_COLUMNS} FROM edges WHERE id = %s{lock}", (edge_id,))
    row = await cur.fetchone()
    return _edge(row) if row else None


async def delete_edge(conn: Conn, edge_id: uuid.UUID) -> None:
    await conn.execute("DELETE FROM edges WHERE id = %s", (edge_id,))


async def delete_edges_among(conn: Conn, ids: Sequence[uuid.UUID], kind: str) -> list[Edge]:
    cur = await conn.execute(
        f"DELETE FROM edges WHERE kind = %s AND source_id = ANY(%s) AND target_id = ANY(%s)"
        f" RETURNING {_EDGE_COLUMNS}",
        (kind, list(ids), list(ids)),
    )
    return [_edge(r) for r in await cur.fetchall()]


async def list_edges(
    conn: Conn,
    *,
    memory_id: uuid.UUID | None,
    direction: str,
    space: str,
    kinds: Sequence[str],
    limit: int,
    after: tuple[datetime, uuid.UUID] | None,
) -> list[Edge]:
    """Edges newest first, keyset-paged on (create_time, id)."""
    where: list[str] = []
    params: list[Any] = []
    if memory_id is not None:
        if direction == "OUTGOING":
            where.append("e.source_id = %s")
            params.append(memory_id)
        elif direction == "INCOMING":
            where.append("e.target_id = %s")
            params.append(memory_id)
        else:
            where.append("(e.source_id = %s OR e.target_id = %s)")
            params += [memory_id, memory_id]
    if space:
        where.append("EXISTS (SELECT 1 FROM memories m WHERE m.id = e.source_id AND m.space = %s)")
        params.append(space)
    if kinds:
        where.append("e.kind = ANY(%s)")
        params.append(list(kinds))
    if after is not None:
        where.append("(e.create_time, e.id) < (%s, %s)")
        params += [after[0], after[1]]
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    columns = ", ".join(f"e.{c.strip()}" for c in _EDGE_COLUMNS.split(","))
    cur = await conn.execute(
        f"SELECT {columns} FROM edges e {clause} ORDER BY e.create_time DESC, e.id DESC LIMIT %s",
        (*params, limit),
    )
    return [_edge(r) for r in await cur.fetchall()]


async def neighbours(
    conn: Conn, ids: Sequence[uuid.UUID], kinds: Sequence[str]
) -> list[tuple[uuid.UUID, uuid.UUID, str, float]]:
    """(from, to, kind, weight) for every edge of `kinds` touching `ids`, followed in
    either direction: `from` is the given memory, `to` the other end."""
    cur = await conn.execute(
        "SELECT source_id AS a, target_id AS b, kind, weight FROM edges"
        " WHERE source_id = ANY(%s) AND kind = ANY(%s)"
        " UNION ALL"
        " SELECT target_id AS a, source_id AS b, kind, weight FROM edges"
        " WHERE target_id = ANY(%s) AND kind = ANY(%s)",
        (list(ids), list(kinds), list(ids), list(kinds)),
    )
    return [(r["a"], r["b"], r["kind"], r["weight"]) for r in await cur.fetchall()]


# --- conflicts -------------------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    id: uuid.UUID
    space: str
    memory_ids: tuple[uuid.UUID, ...]
    detector: str
    reason: str
    state: str
    resolution: str
    winner: uuid.UUID | None
    resolution_note: str
    resolver: str
    create_time: datetime
    resolve_time: datetime | None
    version: int

    @property
    def name(self) -> str:
        return f"conflicts/{self.id}"

    @property
    def etag(self) -> str:
        return hashlib.sha256(f"{self.id}:{self.version}".encode()).hexdigest()[:20]


_CONFLICT_COLUMNS = (
    "id, space, memory_ids, detector, reason, state, resolution, winner, resolution_note,"
    " resolver, create_time, resolve_time, version"
)


def _conflict(row: dict[str, Any]) -> Conflict:
    return Conflict(
        id=row["id"],
        space=row["space"],
        memory_ids=tuple(row["memory_ids"]),
        detector=row["detector"],
        reason=row["reason"],
        state=row["state"],
        resolution=row["resolution"],
        winner=row["winner"],
        resolution_note=row["resolution_note"],
        resolver=row["resolver"],
        create_time=row["create_time"],
        resolve_time=row["resolve_time"],
        version=row["version"],
    )


def pair_key(ids: Sequence[uuid.UUID]) -> str:
    return ",".join(sorted(str(i) for i in set(ids)))


async def insert_conflict(
    conn: Conn,
    tenant_id: str,
    space: str,
    memory_ids: Sequence[uuid.UUID],
    detector: str,
    reason: str,
) -> Conflict | None:
    """Opens a conflict; None when these memories already have one (in any state)."""
    ordered = sorted(set(memory_ids), key=str)
    cur = await conn.execute(
        "INSERT INTO conflicts (tenant_id, id, space, memory_ids, pair_key, detector, reason)"
        " VALUES (%s, gen_random_uuid(), %s, %s, %s, %s, %s)"
        " ON CONFLICT (tenant_id, pair_key) DO NOTHING"
        f" RETURNING {_CONFLICT_COLUMNS}",
        (tenant_id, space, ordered, pair_key(ordered), detector, reason),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    # Pools count a contradiction soon after publishing against the publisher's
    # trust; the queued check runs at commit (migration 0021).
    await conn.execute(
        "INSERT INTO pool_conflict_checks (tenant_id, conflict_id) VALUES (%s, %s)",
        (tenant_id, row["id"]),
    )
    return _conflict(row)


async def conflict_for(conn: Conn, memory_ids: Sequence[uuid.UUID]) -> Conflict | None:
    cur = await conn.execute(
        f"SELECT {_CONFLICT_COLUMNS} FROM conflicts WHERE pair_key = %s", (pair_key(memory_ids),)
    )
    row = await cur.fetchone()
    return _conflict(row) if row else None


async def get_conflict(
    conn: Conn, conflict_id: uuid.UUID, *, for_update: bool = False
) -> Conflict | None:
    lock = " FOR UPDATE" if for_update else ""
    cur = await conn.execute(
        f"SELECT {_CONFLICT_COLUMNS} FROM conflicts WHERE id = %s{lock}", (conflict_id,)
    )
    row = await cur.fetchone()
    return _conflict(row) if row else None


async def resolve_conflict(
    conn: Conn,
    conflict_id: uuid.UUID,
    resolution: str,
    winner: uuid.UUID | None,
    note: str,
    resolver: str,
) -> Conflict:
    cur = await conn.execute(
        "UPDATE conflicts SET state = 'RESOLVED', resolution = %s, winner = %s,"
        " resolution_note = %s, resolver = %s, resolve_time = clock_timestamp(),"
        f" version = version + 1 WHERE id = %s RETURNING {_CONFLICT_COLUMNS}",
        (resolution, winner, note, resolver, conflict_id),
    )
    row = await cur.fetchone()
    assert row is not None
    return _conflict(row)


async def list_conflicts(
    conn: Conn,
    *,
    space: str,
    state: str,
    memory_id: uuid.UUID | None,
    limit: int,
    after: tuple[datetime, uuid.UUID] | None,
) -> list[Conflict]:
    where: list[str] = []
    params: list[Any] = []
    if space:
        where.append("space = %s")
        params.append(space)
    if state:
        where.append("state = %s")
        params.append(state)
    if memory_id is not None:
        where.append("memory_ids @> ARRAY[%s]::uuid[]")
        params.append(memory_id)
    if after is not None:
        where.append("(create_time, id) < (%s, %s)")
        params += [after[0], after[1]]
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    cur = await conn.execute(
        f"SELECT {_CONFLICT_COLUMNS} FROM conflicts {clause}"
        " ORDER BY create_time DESC, id DESC LIMIT %s",
        (*params, limit),
    )
    return [_conflict(r) for r in await cur.fetchall()]


async def open_conflicts_touching(conn: Conn, ids: Sequence[uuid.UUID]) -> list[Conflict]:
    cur = await conn.execute(
        f"SELECT {_CONFLICT_COLUMNS} FROM conflicts WHERE state = 'OPEN' AND memory_ids && %s"
        " ORDER BY create_time DESC, id DESC LIMIT 50",
        (list(ids),),
    )
    return [_conflict(r) for r in await cur.fetchall()]


# --- space profiles ----------------------------------------------------------------


async def insert_profile(
    conn: Conn, tenant_id: str, space: str, profile: dict[str, Any], drift: bool
) -> datetime:
    cur = await conn.execute(
        "INSERT INTO space_profiles (tenant_id, id, space, profile, drift)"
        " VALUES (%s, gen_random_uuid(), %s, %s, %s) RETURNING create_time",
        (tenant_id, space, Jsonb(profile), drift),
    )
    row = await cur.fetchone()
    assert row is not None
    created: datetime = row["create_time"]
    return created


async def list_profiles(
    conn: Conn,
    *,
    space: str,
    drift_only: bool,
    limit: int,
    after: tuple[datetime, uuid.UUID] | None,
) -> list[tuple[uuid.UUID, datetime, dict[str, Any]]]:
    where: list[str] = []
    params: list[Any] = []
    if space:
        where.append("space = %s")
        params.append(space)
    if drift_only:
        where.append("drift")
    if after is not None:
        where.append("(create_time, id) < (%s, %s)")
        params += [after[0], after[1]]
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    cur = await conn.execute(
        f"SELECT id, create_time, profile FROM space_profiles {clause}"
        " ORDER BY create_time DESC, id DESC LIMIT %s",
        (*params, limit),
    )
    return [(r["id"], r["create_time"], r["profile"]) for r in await cur.fetchall()]
