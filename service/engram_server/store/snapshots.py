"""SQL for snapshots, their memory copies and diffs between two of them.

Like every store module, each function runs inside `Database.tenant_tx`, so
row-level security confines it to one tenant. Transient diff views (rows with
`view_expire_time`) are invisible to everything but the `*_view` functions.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from engram_server.lifecycle.model import Memory
from engram_server.recall.snapshots import CapturedMemory, Snapshot
from engram_server.store.memories import (
    MEMORY_COLUMNS,
    memory_from_json,
    memory_to_json,
    row_to_memory,
)
from engram_server.store.postgres import Conn

SNAPSHOT_COLUMNS = (
    "id, space, include_subspaces, description, labels, memory_count, audit_seq, creator,"
    " create_time"
)
# Rows per INSERT when copying memories: bounds the size of one statement.
_COPY_BATCH = 2000


def _row_to_snapshot(row: dict[str, Any]) -> Snapshot:
    return Snapshot(
        id=row["id"],
        space=row["space"],
        include_subspaces=row["include_subspaces"],
        description=row["description"],
        labels=dict(row["labels"]),
        memory_count=row["memory_count"],
        audit_sequence=row["audit_seq"],
        creator=row["creator"],
        create_time=row["create_time"],
    )


def _scope_clause(space: str, include_subspaces: bool) -> tuple[str, list[Any]]:
    if not include_subspaces:
        return "space = %s", [space]
    escaped = space.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return "(space = %s OR space LIKE %s)", [space, escaped + "/%"]


# --- the state of a space ---------------------------------------------------------


async def forget_copies(conn: Conn, memory_ids: Sequence[uuid.UUID]) -> None:
    """Deletes the snapshot copies of `memory_ids` (and counts them out of their
    snapshots), as the trigger on deleting memories does for the copies it sees."""
    if not memory_ids:
        return
    await conn.execute(
        "WITH gone AS (DELETE FROM snapshot_memories WHERE memory_id = ANY(%s)"
        " RETURNING snapshot_id)"
        " UPDATE snapshots sn SET memory_count = sn.memory_count - g.n"
        " FROM (SELECT snapshot_id, count(*) AS n FROM gone GROUP BY 1) g"
        " WHERE sn.id = g.snapshot_id",
        (list(memory_ids),),
    )


async def lock_audit_head(conn: Conn) -> int:
    """Locks the tenant's audit counter until commit and returns its value.

    Every audited write takes this lock last, just before it commits, so while
    it is held no change can commit: what this transaction reads afterwards is
    exactly the state after audit entry `head`.
    """
    cur = await conn.execute("SELECT audit_seq FROM tenant_state FOR UPDATE")
    row = await cur.fetchone()
    if row is None:
        raise RuntimeError("tenant has no state row")
    return int(row["audit_seq"])


async def live_in_scope(
    conn: Conn, space: str, include_subspaces: bool, *, for_update: bool = False
) -> list[Memory]:
    """ACTIVE and PENDING_CONFIRMATION memories of a space (and its subspaces)."""
    clause, params = _scope_clause(space, include_subspaces)
    lock = " FOR UPDATE" if for_update else ""
    cur = await conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {clause}"
        f" AND status IN ('ACTIVE', 'PENDING_CONFIRMATION') ORDER BY id{lock}",
        params,
    )
    return [row_to_memory(r) for r in await cur.fetchall()]


async def park_unique_values(
    conn: Conn, content_of: Sequence[uuid.UUID], slot_of: Sequence[uuid.UUID]
) -> None:
    """Moves content hashes (`content_of`) and slot keys (`slot_of`) out of the
    way of the unique indexes on live content and ACTIVE slots.

    A restore may swap values between memories (A gets B's text or slot and B
    gets A's); setting each new value directly would trip an index halfway. The
    final update of each memory sets its real values again.
    """
    if not content_of and not slot_of:
        return
    await conn.execute(
        "UPDATE memories SET"
        " content_hash = CASE WHEN id = ANY(%(content)s)"
        "   THEN 'restoring:' || id::text ELSE content_hash END,"
        " slot_key = CASE WHEN id = ANY(%(slot)s) THEN '' ELSE slot_key END"
        " WHERE id = ANY(%(content)s) OR id = ANY(%(slot)s)",
        {"content": list(content_of), "slot": list(slot_of)},
    )


# --- snapshots ------------------------------------------------------------------


@dataclass(frozen=True)
class NewSnapshot:
    id: str
    space: str
    include_subspaces: bool
    description: str
    labels: dict[str, str]
    audit_sequence: int
    creator: str
    # Set for a transient diff view; None for a snapshot.
    view_expire_time: datetime | None = None


async def insert_snapshot(
    conn: Conn, tenant_id: str, new: NewSnapshot, captured: Sequence[CapturedMemory]
) -> Snapshot | None:
    """Stores a snapshot and its memory copies; None if the id is taken."""
    cur = await conn.execute(
        "INSERT INTO snapshots (tenant_id, id, space, include_subspaces, description, labels,"
        " memory_count, audit_seq, creator, view_expire_time)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
        f" ON CONFLICT DO NOTHING RETURNING {SNAPSHOT_COLUMNS}",
        (
            tenant_id,
            new.id,
            new.space,
            new.include_subspaces,
            new.description,
            Jsonb(new.labels),
            len(captured),
            new.audit_sequence,
            new.creator,
            new.view_expire_time,
        ),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    for start in range(0, len(captured), _COPY_BATCH):
        batch = captured[start : start + _COPY_BATCH]
        await conn.execute(
            "INSERT INTO snapshot_memories (tenant_id, snapshot_id, match_key, memory_id,"
            " fingerprint, depends_on_keys, memory)"
            " SELECT %s, %s, (r->>'key')::uuid, (r->>'id')::uuid, r->>'fingerprint',"
            " ARRAY(SELECT jsonb_array_elements_text(r->'deps'))::uuid[], r->'memory'"
            " FROM jsonb_array_elements(%s::jsonb) AS r",
            (
                tenant_id,
                new.id,
                Jsonb(
                    [
                        {
                            "key": str(c.match_key),
                            "id": str(c.memory.id),
                            "fingerprint": c.fingerprint,
                            "deps": [str(d) for d in c.depends_on_keys],
                            "memory": memory_to_json(c.memory),
                        }
                        for c in batch
                    ]
                ),
            ),
        )
    return _row_to_snapshot(row)


async def get_snapshot(conn: Conn, snapshot_id: str, *, for_share: bool = False) -> Snapshot | None:
    lock = " FOR SHARE" if for_share else ""
    cur = await conn.execute(
        f"SELECT {SNAPSHOT_COLUMNS} FROM snapshots"
        f" WHERE id = %s AND view_expire_time IS NULL{lock}",
        (snapshot_id,),
    )
    row = await cur.fetchone()
    return _row_to_snapshot(row) if row else None


async def get_view(conn: Conn, view_id: str) -> Snapshot | None:
    """A diff view that has not expired."""
    cur = await conn.execute(
        f"SELECT {SNAPSHOT_COLUMNS} FROM snapshots WHERE id = %s AND view_expire_time > now()",
        (view_id,),
    )
    row = await cur.fetchone()
    return _row_to_snapshot(row) if row else None


async def list_snapshots(
    conn: Conn, space: str, limit: int, after: tuple[datetime, str] | None
) -> list[Snapshot]:
    """Newest first; `after` is the (create_time, id) the previous page ended on."""
    where = ["view_expire_time IS NULL"]
    params: list[Any] = []
    if space:
        where.append("space = %s")
        params.append(space)
    if after is not None:
        where.append("(create_time, id) < (%s, %s)")
        params += [after[0], after[1]]
    cur = await conn.execute(
        f"SELECT {SNAPSHOT_COLUMNS} FROM snapshots WHERE {' AND '.join(where)}"
        " ORDER BY create_time DESC, id DESC LIMIT %s",
        (*params, limit),
    )
    return [_row_to_snapshot(r) for r in await cur.fetchall()]


async def delete_snapshot(conn: Conn, snapshot_id: str) -> Snapshot | None:
    """Deletes a snapshot (its copies go with it) and returns what it was."""
    cur = await conn.execute(
        "DELETE FROM snapshots WHERE id = %s AND view_expire_time IS NULL"
        f" RETURNING {SNAPSHOT_COLUMNS}",
        (snapshot_id,),
    )
    row = await cur.fetchone()
    return _row_to_snapshot(row) if row else None


async def delete_view(conn: Conn, view_id: str) -> None:
    await conn.execute(
        "DELETE FROM snapshots WHERE id = %s AND view_expire_time IS NOT NULL", (view_id,)
    )


async def delete_expired_views(conn: Conn) -> None:
    await conn.execute(
        "DELETE FROM snapshots WHERE view_expire_time IS NOT NULL AND view_expire_time <= now()"
    )


# --- copies and diffs --------------------------------------------------------------


def _row_to_captured(row: dict[str, Any], prefix: str = "") -> CapturedMemory:
    return CapturedMemory(
        match_key=row[f"{prefix}match_key"],
        memory=memory_from_json(row[f"{prefix}memory"]),
        depends_on_keys=tuple(row[f"{prefix}depends_on_keys"]),
        fingerprint=row[f"{prefix}fingerprint"],
    )


async def load_copies(conn: Conn, snapshot_id: str) -> list[CapturedMemory]:
    cur = await conn.execute(
        "SELECT match_key, fingerprint, depends_on_keys, memory FROM snapshot_memories"
        " WHERE snapshot_id = %s ORDER BY match_key",
        (snapshot_id,),
    )
    return [_row_to_captured(r) for r in await cur.fetchall()]


# Memories whose fingerprint differs between two states; a side is NULL when the
# memory is absent from it. Both sides are read in match-key order from the
# primary key, so a page costs a merge of two index ranges.
_DIFF = """
  FROM (SELECT * FROM snapshot_memories WHERE snapshot_id = %(base)s {after}) b
  FULL JOIN (SELECT * FROM snapshot_memories WHERE snapshot_id = %(target)s {after}) t
    ON b.match_key = t.match_key
 WHERE b.fingerprint IS DISTINCT FROM t.fingerprint
"""


@dataclass(frozen=True)
class DiffRow:
    match_key: uuid.UUID
    before: CapturedMemory | None
    after: CapturedMemory | None


async def diff_page(
    conn: Conn, base_id: str, target_id: str, after: uuid.UUID | None, limit: int
) -> list[DiffRow]:
    after_clause = "AND match_key > %(after)s" if after is not None else ""
    cur = await conn.execute(
        "SELECT coalesce(b.match_key, t.match_key) AS key,"
        " b.match_key AS b_match_key, b.fingerprint AS b_fingerprint,"
        " b.depends_on_keys AS b_depends_on_keys, b.memory AS b_memory,"
        " t.match_key AS t_match_key, t.fingerprint AS t_fingerprint,"
        " t.depends_on_keys AS t_depends_on_keys, t.memory AS t_memory"
        + _DIFF.format(after=after_clause)
        + " ORDER BY 1 LIMIT %(limit)s",
        {"base": base_id, "target": target_id, "after": after, "limit": limit},
    )
    return [
        DiffRow(
            match_key=r["key"],
            before=_row_to_captured(r, "b_") if r["b_match_key"] is not None else None,
            after=_row_to_captured(r, "t_") if r["t_match_key"] is not None else None,
        )
        for r in await cur.fetchall()
    ]


async def diff_counts(conn: Conn, base_id: str, target_id: str) -> tuple[int, int, int]:
    """(added, removed, changed) over the whole diff."""
    cur = await conn.execute(
        "SELECT count(*) FILTER (WHERE b.match_key IS NULL) AS added,"
        " count(*) FILTER (WHERE t.match_key IS NULL) AS removed,"
        " count(*) FILTER (WHERE b.match_key IS NOT NULL AND t.match_key IS NOT NULL)"
        " AS changed" + _DIFF.format(after=""),
        {"base": base_id, "target": target_id},
    )
    row = await cur.fetchone()
    assert row is not None
    return int(row["added"]), int(row["removed"]), int(row["changed"])
