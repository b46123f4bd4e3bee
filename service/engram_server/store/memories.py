"""SQL for memories, their revisions, the audit log, the outbox and idempotency.

Every function takes a connection inside `Database.tenant_tx`, so row-level
security already confines it to one tenant; the `tenant_id` arguments are only
for the rows being inserted (and RLS checks those too).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg import AsyncCursor, pq
from psycopg.types.json import Jsonb

from engram_server.lifecycle.model import (
    AuditAction,
    AuditEntry,
    EvidenceLevel,
    Kind,
    Memory,
    MemoryRevision,
    Origin,
    Proposal,
    Status,
)
from engram_server.store.postgres import Conn

MEMORY_COLUMNS = (
    "id, space, session, thread, kind, content, structured_content, source, agent, confidence,"
    " importance, evidence_level, tags, slot_key, topic, depends_on, status, create_time,"
    " update_time, expire_time, retract_time, retraction_reason, content_hash, revision,"
    " superseded_by, validation_notes, attributes, access_count, last_access_time,"
    " origin, valid_from, valid_to"
)
AUDIT_CHANNEL = "engram_audit"


def by_ids_sql(columns: str) -> str:
    """SELECT `columns` of the memories whose ids are the one array parameter, as
    `m`: one primary-key probe per id.

    `WHERE id = ANY(ids)` reads the same rows, but its plan rests on the tenant's
    row-count estimate: a tenant that grew since the last ANALYZE looks small, and
    PostgreSQL then scans all its rows instead (measured: 5 ms instead of 0.8 for 128
    ids at 10k memories, growing with the tenant). A per-id lateral look-up on the
    whole key plans the same whatever the statistics say. (OFFSET 0 keeps the planner
    from flattening it back into a join.)
    """
    return (
        f"SELECT m.* FROM unnest(%s::uuid[]) AS wanted(id) CROSS JOIN LATERAL"
        f" (SELECT {columns} FROM memories WHERE memories.id = wanted.id OFFSET 0) AS m"
    )


def uuid_array_literal(ids: Iterable[uuid.UUID]) -> str:
    """`ids` as one PostgreSQL array literal (`{...}`), for a `%s::uuid[]` parameter
    bound client-side: one string to quote instead of a list psycopg adapts and
    quotes element by element (measured: about 5 % of a Recall's CPU for its
    candidates' ids). Only UUID objects are accepted, whose text is hex and dashes."""
    parts = []
    for memory_id in ids:
        if not isinstance(memory_id, uuid.UUID):
            raise TypeError(f"expected a UUID, got {type(memory_id).__name__}")
        parts.append(str(memory_id))
    return "{" + ",".join(parts) + "}"


# Enum members by stored value: a dict look-up is several times cheaper than the
# Enum constructor, and every read converts each row.
_KINDS = {k.value: k for k in Kind}
_EVIDENCE_LEVELS = {e.value: e for e in EvidenceLevel}
_STATUSES = {s.value: s for s in Status}
_ORIGINS = {o.value: o for o in Origin}


def row_to_memory(row: dict[str, Any]) -> Memory:
    return Memory(
        id=row["id"],
        space=row["space"],
        session=row["session"],
        thread=row["thread"],
        kind=_KINDS[row["kind"]],
        content=row["content"],
        structured_content=row["structured_content"],
        source=row["source"],
        agent=row["agent"],
        confidence=row["confidence"],
        importance=row["importance"],
        evidence_level=_EVIDENCE_LEVELS[row["evidence_level"]],
        tags=tuple(row["tags"]),
        slot_key=row["slot_key"],
        topic=row["topic"],
        depends_on=tuple(row["depends_on"]),
        status=_STATUSES[row["status"]],
        create_time=row["create_time"],
        update_time=row["update_time"],
        expire_time=row["expire_time"],
        retract_time=row["retract_time"],
        retraction_reason=row["retraction_reason"],
        content_hash=row["content_hash"],
        revision=row["revision"],
        superseded_by=row["superseded_by"],
        validation_notes=tuple(row["validation_notes"]),
        attributes=dict(row["attributes"]),
        access_count=row["access_count"],
        last_access_time=row["last_access_time"],
        origin=_ORIGINS.get(row.get("origin") or "", Origin.UNSPECIFIED),
        valid_from=row.get("valid_from"),
        valid_to=row.get("valid_to"),
    )


def memory_to_json(m: Memory) -> dict[str, Any]:
    """A memory as JSON, for revision snapshots."""
    return {
        "id": str(m.id),
        "space": m.space,
        "session": m.session,
        "thread": m.thread,
        "kind": m.kind.value,
        "content": m.content,
        "structured_content": m.structured_content,
        "source": m.source,
        "agent": m.agent,
        "confidence": m.confidence,
        "importance": m.importance,
        "evidence_level": m.evidence_level.value,
        "tags": list(m.tags),
        "slot_key": m.slot_key,
        "topic": m.topic,
        "depends_on": [str(d) for d in m.depends_on],
        "status": m.status.value,
        "create_time": m.create_time.isoformat(),
        "update_time": m.update_time.isoformat(),
        "expire_time": m.expire_time.isoformat() if m.expire_time else None,
        "retract_time": m.retract_time.isoformat() if m.retract_time else None,
        "retraction_reason": m.retraction_reason,
        "content_hash": m.content_hash,
        "revision": m.revision,
        "superseded_by": str(m.superseded_by) if m.superseded_by else None,
        "validation_notes": list(m.validation_notes),
        "attributes": dict(m.attributes),
        "origin": m.origin.value,
        "valid_from": m.valid_from.isoformat() if m.valid_from else None,
        "valid_to": m.valid_to.isoformat() if m.valid_to else None,
    }


def memory_from_json(d: dict[str, Any]) -> Memory:
    def ts(value: str | None) -> datetime | None:
        return datetime.fromisoformat(value) if value else None

    return Memory(
        id=uuid.UUID(d["id"]),
        space=d["space"],
        session=d["session"],
        thread=d["thread"],
        kind=Kind(d["kind"]),
        content=d["content"],
        structured_content=d["structured_content"],
        source=d["source"],
        agent=d["agent"],
        confidence=d["confidence"],
        importance=d["importance"],
        evidence_level=EvidenceLevel(d["evidence_level"]),
        tags=tuple(d["tags"]),
        slot_key=d["slot_key"],
        topic=d["topic"],
        depends_on=tuple(uuid.UUID(x) for x in d["depends_on"]),
        status=Status(d["status"]),
        create_time=datetime.fromisoformat(d["create_time"]),
        update_time=datetime.fromisoformat(d["update_time"]),
        expire_time=ts(d["expire_time"]),
        retract_time=ts(d["retract_time"]),
        retraction_reason=d["retraction_reason"],
        content_hash=d["content_hash"],
        revision=d["revision"],
        superseded_by=uuid.UUID(d["superseded_by"]) if d["superseded_by"] else None,
        validation_notes=tuple(d["validation_notes"]),
        attributes=dict(d["attributes"]),
        origin=_ORIGINS.get(d.get("origin") or "", Origin.UNSPECIFIED),
        valid_from=ts(d.get("valid_from")),
        valid_to=ts(d.get("valid_to")),
    )


# --- reads -------------------------------------------------------------------


async def transaction_now(conn: Conn) -> datetime:
    return await read_transaction_now(await send_transaction_now(conn))


async def send_transaction_now(conn: Conn) -> AsyncCursor[dict[str, Any]]:
    """Sends `SELECT now()` (the transaction's timestamp, which every row it
    creates gets) and returns the cursor to read it from with
    `read_transaction_now`.

    In pipeline mode it also asks PostgreSQL to answer straight away, without
    waiting for a sync: the answer then arrives while the caller prepares its
    next statements, and reading it after they are sent costs no wait.
    """
    cursor = await conn.execute("SELECT now() AS now")
    if conn.pgconn.pipeline_status != pq.PipelineStatus.OFF:
        conn.pgconn.send_flush_request()
        conn.pgconn.flush()
    return cursor


async def read_transaction_now(cursor: AsyncCursor[dict[str, Any]]) -> datetime:
    row = await cursor.fetchone()
    assert row is not None
    now: datetime = row["now"]
    return now


GET_MEMORY_SQL = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE id = %s"


async def get_memory(
    conn: Conn, memory_id: uuid.UUID, *, for_update: bool = False
) -> Memory | None:
    lock = " FOR UPDATE" if for_update else ""
    cur = await conn.execute(GET_MEMORY_SQL + lock, (memory_id,))
    row = await cur.fetchone()
    return row_to_memory(row) if row else None


async def find_live_by_hash(
    conn: Conn, space: str, hashes: Sequence[str], dedup_key: str = ""
) -> dict[str, Memory]:
    """Live memories of `space` with these content hashes in one dedup scope
    (`dedup_key`: "" for the whole space, see services.lifecycle.dedup_key)."""
    cur = await conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories WHERE space = %s AND content_hash = ANY(%s)"
        " AND dedup_key = %s AND status IN ('PROPOSED', 'ACTIVE', 'PENDING_CONFIRMATION')",
        (space, list(hashes), dedup_key),
    )
    return {m.content_hash: m for m in map(row_to_memory, await cur.fetchall())}


async def dedup_key_of(conn: Conn, memory_id: uuid.UUID) -> str:
    cur = await conn.execute("SELECT dedup_key FROM memories WHERE id = %s", (memory_id,))
    row = await cur.fetchone()
    return str(row["dedup_key"]) if row else ""


async def existing_ids(conn: Conn, ids: Iterable[uuid.UUID]) -> set[uuid.UUID]:
    cur = await conn.execute("SELECT id FROM memories WHERE id = ANY(%s)", (list(ids),))
    return {row["id"] for row in await cur.fetchall()}


@dataclass(frozen=True)
class MemoryFilter:
    space: str = ""
    include_subspaces: bool = False
    statuses: tuple[Status, ...] = ()
    session: str = ""
    kinds: tuple[Kind, ...] = ()
    tags: tuple[str, ...] = ()
    create_time_start: datetime | None = None
    create_time_end: datetime | None = None


ORDERINGS = {
    "CREATE_TIME_DESC": ("create_time", "DESC"),
    "CREATE_TIME_ASC": ("create_time", "ASC"),
    "UPDATE_TIME_DESC": ("update_time", "DESC"),
}


async def list_memories(
    conn: Conn,
    f: MemoryFilter,
    order: str,
    limit: int,
    after: tuple[datetime, uuid.UUID] | None,
) -> list[Memory]:
    """Keyset-paged listing: `after` is the (time, id) of the previous page's last row."""
    query, params = list_memories_query(f, order, limit, after)
    cur = await conn.execute(query, params)
    return [row_to_memory(r) for r in await cur.fetchall()]


def list_memories_query(
    f: MemoryFilter,
    order: str,
    limit: int,
    after: tuple[datetime, uuid.UUID] | None,
) -> tuple[str, tuple[Any, ...]]:
    """The SQL and parameters of `list_memories` (for `Database.tenant_read`)."""
    column, direction = ORDERINGS[order]
    where: list[str] = []
    params: list[Any] = []
    if f.space:
        if f.include_subspaces:
            where.append("(space = %s OR space LIKE %s)")
            escaped = f.space.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params += [f.space, escaped + "/%"]
        else:
            where.append("space = %s")
            params.append(f.space)
    if f.statuses:
        where.append("status = ANY(%s)")
        params.append([s.value for s in f.statuses])
    if f.session:
        where.append("session = %s")
        params.append(f.session)
    if f.kinds:
        where.append("kind = ANY(%s)")
        params.append([k.value for k in f.kinds])
    if f.tags:
        where.append("tags @> %s")
        params.append(list(f.tags))
    if f.create_time_start:
        where.append("create_time >= %s")
        params.append(f.create_time_start)
    if f.create_time_end:
        where.append("create_time < %s")
        params.append(f.create_time_end)
    if after is not None:
        op = "<" if direction == "DESC" else ">"
        where.append(f"({column}, id) {op} (%s, %s)")
        params += [after[0], after[1]]
    clause = ("WHERE " + " AND ".join(where)) if where else ""
    return (
        f"SELECT {MEMORY_COLUMNS} FROM memories {clause}"
        f" ORDER BY {column} {direction}, id {direction} LIMIT %s",
        (*params, limit),
    )


# `depends_on <> '{}'` lets the partial GIN index (migration 0017) serve it.
DEPENDENTS_SQL = (
    f"SELECT {MEMORY_COLUMNS} FROM memories WHERE depends_on && %s::uuid[]"
    " AND depends_on <> '{}' AND status IN ('ACTIVE', 'PENDING_CONFIRMATION')"
    " ORDER BY create_time, id FOR UPDATE"
)


async def dependents(conn: Conn, ids: Sequence[uuid.UUID]) -> list[Memory]:
    """Live memories that depend on any of `ids`, locked for update."""
    cur = await conn.execute(DEPENDENTS_SQL, (list(ids),))
    return [row_to_memory(r) for r in await cur.fetchall()]


# --- writes ------------------------------------------------------------------


@dataclass(frozen=True)
class NewMemory:
    id: uuid.UUID
    proposal: Proposal
    agent: str
    status: Status
    expire_time: datetime | None
    validation_notes: tuple[str, ...]
    superseded_by: uuid.UUID | None = None
    # The proposal's content hash when the caller already has it (it is not free).
    content_hash: str = ""
    # Its dedup scope within the space ("" : the whole space).
    dedup_key: str = ""


# The first revision's snapshot: the row as the caller sent it (the insert's
# input element, already JSON) plus the columns the database fills in, in the
# shapes `memory_from_json` reads (timestamps as ISO 8601, ids as strings).
# Reusing the input instead of rebuilding the row with jsonb_build_object, and
# returning only ids and the creation time instead of every column, took about
# a tenth off a hundred-memory insert (12.3 -> 11.1 ms, timed by the client with
# the rows' decoding, the two statements alternating on one database).
_GENERATED_SNAPSHOT_SQL = """jsonb_build_object(
    'create_time', i.create_time, 'update_time', i.update_time, 'retract_time', NULL,
    'retraction_reason', '', 'revision', i.revision)"""

_INSERT_MEMORIES_SQL = f"""
WITH src AS (
  SELECT r.*, o.ord, o.elem FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS o(elem, ord),
       LATERAL jsonb_populate_record(NULL::memories, o.elem) AS r
), ins AS (
  INSERT INTO memories (tenant_id, id, space, session, thread, kind, content,
      structured_content, source, agent, confidence, importance, evidence_level, tags,
      slot_key, topic, depends_on, status, create_time, update_time, expire_time,
      retraction_reason, content_hash, revision, superseded_by, validation_notes,
      attributes, origin, valid_from, valid_to, dedup_key)
  SELECT %s, id, space, session, thread, kind, content, structured_content,
      source, agent, confidence, importance, evidence_level, tags, slot_key, topic,
      depends_on, status, now(), now(), expire_time, '', content_hash, 1,
      superseded_by, validation_notes, attributes, coalesce(origin, ''), valid_from, valid_to,
      dedup_key
    FROM src ORDER BY ord
  ON CONFLICT (tenant_id, space, content_hash, dedup_key)
    WHERE status IN ('PROPOSED', 'ACTIVE', 'PENDING_CONFIRMATION') DO NOTHING
  RETURNING tenant_id, id, agent, revision, create_time, update_time
), rev AS (
  INSERT INTO memory_revisions (tenant_id, memory_id, revision, snapshot, actor)
  SELECT i.tenant_id, i.id, i.revision, s.elem || {_GENERATED_SNAPSHOT_SQL}, i.agent
    FROM ins AS i JOIN src AS s USING (id)
)
SELECT id, create_time FROM ins
"""


def _insert_record(item: NewMemory) -> dict[str, Any]:
    """One new memory as the insert's JSON element (and its first snapshot)."""
    p = item.proposal
    return {
        "id": str(item.id),
        "space": p.space,
        "session": p.session,
        "thread": p.thread,
        "kind": p.kind.value,
        "content": p.content,
        "structured_content": p.structured_content,
        "source": p.source,
        "agent": item.agent,
        "confidence": p.confidence,
        "importance": p.importance,
        "evidence_level": p.evidence_level.value,
        "tags": list(p.tags),
        "slot_key": p.slot_key,
        "topic": p.topic,
        "depends_on": [str(d) for d in p.depends_on],
        "status": item.status.value,
        "expire_time": item.expire_time.isoformat() if item.expire_time else None,
        "content_hash": item.content_hash or p.content_hash,
        "superseded_by": str(item.superseded_by) if item.superseded_by else None,
        "validation_notes": list(item.validation_notes),
        "attributes": p.attributes,
        "dedup_key": item.dedup_key,
        "origin": p.origin.value,
        "valid_from": p.valid_from.isoformat() if p.valid_from else None,
        "valid_to": p.valid_to.isoformat() if p.valid_to else None,
    }


async def send_insert_memories(
    conn: Conn, tenant_id: str, items: Sequence[NewMemory]
) -> AsyncCursor[dict[str, Any]]:
    """Sends the insert of memories plus their first revision snapshot (one
    statement) and returns its cursor unread: in pipeline mode later statements
    travel in the same round trip. `items` must not be empty. Read the cursor
    with `read_inserted`.

    Identical live content racing in from another transaction, or already live
    in the space, is skipped (ON CONFLICT on the dedup index); callers compare the
    returned ids with theirs.
    """
    records = [_insert_record(item) for item in items]
    return await conn.execute(_INSERT_MEMORIES_SQL, (Jsonb(records), tenant_id))


async def read_inserted(
    cursor: AsyncCursor[dict[str, Any]], items: Sequence[NewMemory]
) -> list[Memory]:
    """The memories of `items` that the insert sent by `send_insert_memories`
    stored, in `items`' order.

    The statement returns only their ids and creation time: every other column
    is what was sent, or a constant the insert sets, so the memories are built
    here from `items` rather than decoded from rows (a third of the insert's
    cost, for a batch, was sending every column back and decoding it).
    """
    created = {row["id"]: row["create_time"] for row in await cursor.fetchall()}
    return [new_memory_as_stored(item, created[item.id]) for item in items if item.id in created]


async def read_inserted_ids(cursor: AsyncCursor[dict[str, Any]]) -> set[uuid.UUID]:
    """The ids of the memories the insert sent by `send_insert_memories` stored."""
    return {row["id"] for row in await cursor.fetchall()}


def new_memory_as_stored(item: NewMemory, create_time: datetime) -> Memory:
    """The row `send_insert_memories` writes for `item`, created at `create_time`."""
    p = item.proposal
    return Memory(
        id=item.id,
        space=p.space,
        session=p.session,
        thread=p.thread,
        kind=p.kind,
        content=p.content,
        structured_content=p.structured_content,
        source=p.source,
        agent=item.agent,
        confidence=p.confidence,
        importance=p.importance,
        evidence_level=p.evidence_level,
        tags=tuple(p.tags),
        slot_key=p.slot_key,
        topic=p.topic,
        depends_on=tuple(p.depends_on),
        status=item.status,
        create_time=create_time,
        update_time=create_time,
        expire_time=item.expire_time,
        retract_time=None,
        retraction_reason="",
        content_hash=item.content_hash or p.content_hash,
        revision=1,
        superseded_by=item.superseded_by,
        validation_notes=tuple(item.validation_notes),
        attributes=dict(p.attributes),
        origin=p.origin,
        valid_from=p.valid_from,
        valid_to=p.valid_to,
    )


async def insert_memories(conn: Conn, tenant_id: str, items: Sequence[NewMemory]) -> list[Memory]:
    """Inserts memories plus their first revision snapshot; returns those inserted
    (see `send_insert_memories` for what is skipped)."""
    if not items:
        return []
    return await read_inserted(await send_insert_memories(conn, tenant_id, items), items)


async def insert_revisions(
    conn: Conn, tenant_id: str, memories: Sequence[Memory], actor: str
) -> None:
    if not memories:
        return
    await conn.execute(
        "INSERT INTO memory_revisions (tenant_id, memory_id, revision, snapshot, actor)"
        " SELECT %s, (s->>'id')::uuid, (s->>'revision')::bigint, s, %s"
        " FROM jsonb_array_elements(%s::jsonb) AS s",
        (tenant_id, actor, Jsonb([memory_to_json(m) for m in memories])),
    )


async def update_memory(conn: Conn, memory_id: uuid.UUID, changes: dict[str, Any]) -> Memory:
    """Applies column changes and bumps update_time; returns the new row."""
    assignments = ", ".join(f"{column} = %s" for column in changes)
    values = [Jsonb(v) if isinstance(v, dict) else v for v in changes.values()]
    cur = await conn.execute(
        f"UPDATE memories SET {assignments}, update_time = clock_timestamp()"
        f" WHERE id = %s RETURNING {MEMORY_COLUMNS}",
        (*values, memory_id),
    )
    row = await cur.fetchone()
    assert row is not None, "update_memory on a row the caller locked"
    return row_to_memory(row)


@dataclass(frozen=True)
class Purged:
    """A memory a purge deleted: its id, its status then and its content."""

    id: uuid.UUID
    status: Status
    content: str


async def delete_memories(conn: Conn, space: str, session: str) -> list[Purged]:
    """Hard-deletes a space or one session of it; revisions go with them (FK)."""
    if session:
        cur = await conn.execute(
            "DELETE FROM memories WHERE space = %s AND session = %s RETURNING id, status, content",
            (space, session),
        )
    else:
        cur = await conn.execute(
            "DELETE FROM memories WHERE space = %s RETURNING id, status, content", (space,)
        )
    return [Purged(r["id"], Status(r["status"]), r["content"]) for r in await cur.fetchall()]


async def delete_memories_by_id(conn: Conn, ids: Sequence[uuid.UUID]) -> list[Purged]:
    """Hard-deletes the given memories (what a purge takes along from other spaces)."""
    cur = await conn.execute(
        "DELETE FROM memories WHERE id = ANY(%s) RETURNING id, status, content", (list(ids),)
    )
    return [Purged(r["id"], Status(r["status"]), r["content"]) for r in await cur.fetchall()]


async def scope_has_memories(conn: Conn, space: str, session: str) -> bool:
    """Whether a space (or one session of it) holds any memory."""
    cur = await conn.execute(
        "SELECT EXISTS (SELECT 1 FROM memories WHERE space = %s AND (%s = '' OR session = %s))"
        " AS found",
        (space, session, session),
    )
    row = await cur.fetchone()
    return bool(row and row["found"])


async def lock_scope(conn: Conn, space: str, session: str) -> bool:
    """Locks every memory of a space (or one session of it) that no other
    transaction holds, and says whether that was all of them: False when a
    concurrent write holds one of its rows."""
    cur = await conn.execute(
        "SELECT count(*) AS n FROM memories WHERE space = %s AND (%s = '' OR session = %s)",
        (space, session, session),
    )
    row = await cur.fetchone()
    present = int(row["n"]) if row else 0
    if not present:
        return True
    cur = await conn.execute(
        "SELECT id FROM memories WHERE space = %s AND (%s = '' OR session = %s)"
        " FOR UPDATE SKIP LOCKED",
        (space, session, session),
    )
    return len(await cur.fetchall()) == present


async def revision_contents(conn: Conn, space: str, session: str) -> list[str]:
    """Every content the revisions of a space (or one session of it) recorded:
    what a purge of that scope must also forget the derived data of."""
    cur = await conn.execute(
        "SELECT DISTINCT r.snapshot->>'content' AS content FROM memory_revisions r"
        " JOIN memories m ON m.tenant_id = r.tenant_id AND m.id = r.memory_id"
        " WHERE m.space = %s AND (%s = '' OR m.session = %s)"
        " AND r.snapshot ? 'content'",
        (space, session, session),
    )
    return [r["content"] for r in await cur.fetchall() if r["content"] is not None]


async def expire_due(conn: Conn, as_of: datetime, limit: int, space: str = "") -> list[Memory]:
    """Expires ACTIVE memories due by `as_of` (of one space when `space` is given).

    A row another write holds is skipped (replicas sweep at once and never wait
    on each other); it goes at the next sweep. The lock is the one the update
    needs (NO KEY UPDATE), so the share locks of readers that only need the row
    to exist (the indexing worker's check after embedding) never make it skip."""
    cur = await conn.execute(
        f"""
        UPDATE memories SET status = 'EXPIRED', update_time = clock_timestamp()
         WHERE id IN (SELECT id FROM memories WHERE status = 'ACTIVE' AND expire_time <= %s
                         AND (%s = '' OR space = %s)
                       ORDER BY expire_time, id LIMIT %s FOR NO KEY UPDATE SKIP LOCKED)
        RETURNING {MEMORY_COLUMNS}
        """,
        (as_of, space, space, limit),
    )
    return [row_to_memory(r) for r in await cur.fetchall()]


async def lock_slot_holder(conn: Conn, space: str, slot_key: str) -> Memory | None:
    """The ACTIVE memory holding a slot, locked until commit (at most one exists).

    Writers of one slot queue on a transaction-scoped advisory lock first, so a
    burst of concurrent writers supersede each other in turn instead of racing
    to insert and retrying. Callers lock several slots in sorted order.
    """
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(concat_ws(chr(31), 'slot',"
        " current_setting('engram.tenant_id'), %s::text, %s::text), 0))",
        (space, slot_key),
    )
    cur = await conn.execute(
        f"SELECT {MEMORY_COLUMNS} FROM memories"
        " WHERE space = %s AND slot_key = %s AND status = 'ACTIVE' FOR UPDATE",
        (space, slot_key),
    )
    row = await cur.fetchone()
    return row_to_memory(row) if row else None


@dataclass(frozen=True)
class NewEdge:
    source_id: uuid.UUID
    target_id: uuid.UUID
    kind: str
    reason: str
    creator: str


async def insert_edges(conn: Conn, tenant_id: str, edges: Sequence[NewEdge]) -> None:
    """The one writer of the edges that passes derive (supersession, consolidation,
    Reflect, Learn, Dream, the assessor): an edge already present is skipped. Both
    ends must be memories of `tenant_id` (the table's foreign keys refuse others)."""
    if not edges:
        return
    await conn.execute(
        "INSERT INTO edges (tenant_id, id, source_id, target_id, kind, reason, creator)"
        " SELECT %s, gen_random_uuid(), (e->>'s')::uuid, (e->>'t')::uuid, e->>'k', e->>'r',"
        " e->>'c' FROM jsonb_array_elements(%s::jsonb) AS e"
        " ON CONFLICT (tenant_id, source_id, target_id, kind) DO NOTHING",
        (
            tenant_id,
            Jsonb(
                [
                    {
                        "s": str(e.source_id),
                        "t": str(e.target_id),
                        "k": e.kind,
                        "r": e.reason,
                        "c": e.creator,
                    }
                    for e in edges
                ]
            ),
        ),
    )


# --- audit log, outbox, counters ----------------------------------------------


@dataclass(frozen=True)
class AuditDraft:
    action: AuditAction
    memory_id: uuid.UUID | None
    space: str
    from_status: Status | None
    to_status: Status | None
    actor: str
    reason: str = ""
    request_id: str = ""
    details: dict[str, str] | None = None


def row_to_audit(row: dict[str, Any]) -> AuditEntry:
    return AuditEntry(
        sequence=row["seq"],
        action=AuditAction(row["action"]),
        memory_id=row["memory_id"],
        space=row["space"],
        from_status=Status(row["from_status"]) if row["from_status"] else None,
        to_status=Status(row["to_status"]) if row["to_status"] else None,
        actor=row["actor"],
        reason=row["reason"],
        request_id=row["request_id"],
        create_time=row["create_time"],
        details=dict(row["details"]),
    )


_APPEND_AUDIT_SQL = """
WITH s AS (
  UPDATE tenant_state s SET audit_seq = s.audit_seq + %(n)s,
         live_memories = s.live_memories + %(delta)s
    FROM tenants t
   WHERE s.tenant_id = %(tenant)s AND t.id = s.tenant_id
  RETURNING s.audit_seq, s.live_memories, t.quota_max_memories
), ins AS (
  INSERT INTO audit_log (tenant_id, seq, action, memory_id, space, from_status, to_status,
                         actor, reason, request_id, details, create_time)
  SELECT %(tenant)s, s.audit_seq - %(n)s + r.ord, r.elem->>'action',
         (r.elem->>'memory_id')::uuid, r.elem->>'space', r.elem->>'from_status',
         r.elem->>'to_status', r.elem->>'actor', r.elem->>'reason', r.elem->>'request_id',
         r.elem->'details', now()
    FROM s, jsonb_array_elements(%(rows)s::jsonb) WITH ORDINALITY AS r(elem, ord)
  RETURNING *
)
SELECT s.audit_seq, s.live_memories, s.quota_max_memories,
       CASE WHEN %(n)s > 0 THEN pg_notify(%(channel)s, %(tenant)s) END AS notified,
       CASE WHEN %(entries)s
            THEN (SELECT coalesce(jsonb_agg(to_jsonb(ins) ORDER BY ins.seq), '[]') FROM ins)
       END AS entries,
       (SELECT count(*) FROM ins) AS appended
  FROM s
"""


async def append_audit(
    conn: Conn,
    tenant_id: str,
    drafts: Sequence[AuditDraft],
    live_delta: int = 0,
    *,
    entries: bool = True,
) -> tuple[list[AuditEntry], int, int]:
    """Appends audit rows with gapless sequence numbers and adjusts the live count.

    Returns (entries, live_memories, quota_max_memories); with `entries=False`
    the entries list is empty (callers that only need the counters save decoding
    the rows). Call it last in the transaction: the tenant_state row lock it
    takes is held until commit, which is what makes sequence order equal commit
    order. Counter, rows and the audit notice are one statement, one round trip.
    """
    cur = await send_append_audit(conn, tenant_id, drafts, live_delta, entries=entries)
    return await read_append_audit(cur, tenant_id)


async def send_append_audit(
    conn: Conn,
    tenant_id: str,
    drafts: Sequence[AuditDraft],
    live_delta: int = 0,
    *,
    entries: bool = True,
) -> AsyncCursor[dict[str, Any]]:
    """`append_audit`'s statement, sent and not read (see `read_append_audit`)."""
    rows = [
        {
            "action": d.action.value,
            "memory_id": str(d.memory_id) if d.memory_id else None,
            "space": d.space,
            "from_status": d.from_status.value if d.from_status else "",
            "to_status": d.to_status.value if d.to_status else "",
            "actor": d.actor,
            "reason": d.reason,
            "request_id": d.request_id,
            "details": d.details or {},
        }
        for d in drafts
    ]
    return await conn.execute(
        _APPEND_AUDIT_SQL,
        {
            "n": len(drafts),
            "delta": live_delta,
            "tenant": tenant_id,
            "rows": Jsonb(rows),
            "channel": AUDIT_CHANNEL,
            "entries": entries and bool(drafts),
        },
    )


async def read_append_audit(
    cur: AsyncCursor[dict[str, Any]], tenant_id: str
) -> tuple[list[AuditEntry], int, int]:
    """The result of a `send_append_audit` statement, as `append_audit` returns it."""
    state = await cur.fetchone()
    if state is None:
        raise RuntimeError(f"tenant {tenant_id!r} has no state row")
    out: list[AuditEntry] = []
    if state["entries"]:
        out = [row_to_audit(_audit_json_row(r)) for r in state["entries"]]
    return out, state["live_memories"], state["quota_max_memories"]


def _audit_json_row(r: dict[str, Any]) -> dict[str, Any]:
    """An audit_log row that came back as JSON, with its typed columns restored."""
    return {
        **r,
        "memory_id": uuid.UUID(r["memory_id"]) if r["memory_id"] else None,
        "create_time": datetime.fromisoformat(r["create_time"]),
    }


async def enqueue_outbox(
    conn: Conn, tenant_id: str, memory_ids: Sequence[uuid.UUID], op: str
) -> None:
    """Queues derived-index work for these memories (`upsert` or `delete`)."""
    if not memory_ids:
        return
    await conn.execute(
        "INSERT INTO outbox (tenant_id, memory_id, op) SELECT %s, unnest(%s::uuid[]), %s",
        (tenant_id, uuid_array_literal(memory_ids), op),
    )


async def enqueue_assessments(conn: Conn, tenant_id: str, memory_ids: Sequence[uuid.UUID]) -> None:
    """Queues memories for the corroboration assessor (assess-on-write)."""
    if not memory_ids:
        return
    await conn.execute(
        "INSERT INTO assess_queue (tenant_id, memory_id) SELECT %s, unnest(%s::uuid[])"
        " ON CONFLICT DO NOTHING",
        (tenant_id, uuid_array_literal(memory_ids)),
    )


async def list_audit(
    conn: Conn, memory_id: uuid.UUID | None, space: str, after_seq: int, limit: int
) -> list[AuditEntry]:
    where = ["seq > %s"]
    params: list[Any] = [after_seq]
    if memory_id is not None:
        where.append("memory_id = %s")
        params.append(memory_id)
    if space:
        where.append("space = %s")
        params.append(space)
    cur = await conn.execute(
        f"SELECT * FROM audit_log WHERE {' AND '.join(where)} ORDER BY seq LIMIT %s",
        (*params, limit),
    )
    return [row_to_audit(r) for r in await cur.fetchall()]


async def audit_head(conn: Conn) -> int:
    cur = await conn.execute("SELECT audit_seq FROM tenant_state")
    row = await cur.fetchone()
    return int(row["audit_seq"]) if row else 0


async def list_revisions(
    conn: Conn, memory_id: uuid.UUID, before_revision: int | None, limit: int
) -> list[MemoryRevision]:
    params: list[Any] = [memory_id]
    clause = ""
    if before_revision is not None:
        clause = " AND revision < %s"
        params.append(before_revision)
    cur = await conn.execute(
        "SELECT memory_id, revision, snapshot, actor, create_time FROM memory_revisions"
        f" WHERE memory_id = %s{clause} ORDER BY revision DESC LIMIT %s",
        (*params, limit),
    )
    return [
        MemoryRevision(
            memory_id=r["memory_id"],
            revision=r["revision"],
            memory=memory_from_json(r["snapshot"]),
            actor=r["actor"],
            create_time=r["create_time"],
        )
        for r in await cur.fetchall()
    ]


# --- idempotency -------------------------------------------------------------


async def claim_request(
    conn: Conn, tenant_id: str, request_id: str, method: str, fingerprint: str
) -> dict[str, Any] | None:
    """Claims a request id for this transaction, or returns the first outcome.

    Returns None when the id is new (the caller proceeds and calls
    `save_request_result`). A concurrent first attempt makes this wait on the
    primary key until it commits, so two retries never both write.
    """
    cur = await conn.execute(
        "INSERT INTO idempotency (tenant_id, request_id, method, fingerprint)"
        " VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING request_id",
        (tenant_id, request_id, method, fingerprint),
    )
    if await cur.fetchone() is not None:
        return None
    cur = await conn.execute(
        "SELECT method, fingerprint, result FROM idempotency WHERE request_id = %s",
        (request_id,),
    )
    row = await cur.fetchone()
    assert row is not None
    return {"method": row["method"], "fingerprint": row["fingerprint"], "result": row["result"]}


async def peek_request(conn: Conn, request_id: str) -> dict[str, Any] | None:
    cur = await conn.execute(
        "SELECT method, fingerprint, result FROM idempotency WHERE request_id = %s",
        (request_id,),
    )
    row = await cur.fetchone()
    if row is None or row["result"] is None:
        return None
    return {"method": row["method"], "fingerprint": row["fingerprint"], "result": row["result"]}


async def save_request_result(conn: Conn, request_id: str, result: dict[str, Any]) -> None:
    await conn.execute(
        "UPDATE idempotency SET result = %s WHERE request_id = %s",
        (Jsonb(json.loads(json.dumps(result, default=str))), request_id),
    )


async def forget_proposal_failures(conn: Conn, memory_ids: Sequence[uuid.UUID]) -> None:
    """Empties the validation failures kept in the first outcomes of proposals that
    stored one of `memory_ids`. A failure's message can quote the content (a JSON
    Schema's "'Ann Lee' is not of type 'integer'"), so an erasure takes it; a retry
    of such a proposal answers NOT_FOUND (its memory is gone) and never reads them.
    """
    if not memory_ids:
        return
    await conn.execute(
        "UPDATE idempotency SET result = jsonb_set(result, '{results}', ("
        "  SELECT jsonb_agg(jsonb_set(r, '{failures}', '[]'::jsonb) ORDER BY n)"
        "  FROM jsonb_array_elements(result->'results') WITH ORDINALITY AS e(r, n)))"
        " WHERE jsonb_typeof(result->'results') = 'array'"
        " AND EXISTS (SELECT 1 FROM jsonb_array_elements(result->'results') AS f(r)"
        "  WHERE r->>'memory_id' = ANY(%s) AND jsonb_array_length(r->'failures') > 0)",
        ([str(i) for i in memory_ids],),
    )
