"""SQL for learning and curation: a space's memories for Dream, edges written with
their audit rows, and the records a consolidation produced.

Every function runs inside `Database.tenant_tx`, so row-level security confines it
to the caller's tenant.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from engram_server.lifecycle.model import AuditAction, Memory
from engram_server.store import memories as store
from engram_server.store.postgres import Conn

# Dream reads at most this many memories of a space per run (newest first).
MAX_DREAM_MEMORIES = 5000


async def active_memories(conn: Conn, space: str, limit: int = MAX_DREAM_MEMORIES) -> list[Memory]:
    cur = await conn.execute(
        f"SELECT {store.MEMORY_COLUMNS} FROM memories WHERE space = %s AND status = 'ACTIVE'"
        " ORDER BY create_time DESC, id DESC LIMIT %s",
        (space, limit),
    )
    return [store.row_to_memory(r) for r in await cur.fetchall()]


async def edge_pairs(
    conn: Conn, ids: Sequence[uuid.UUID], kind: str
) -> set[tuple[uuid.UUID, uuid.UUID]]:
    """(source, target) of the `kind` edges among `ids`."""
    if not ids:
        return set()
    cur = await conn.execute(
        "SELECT source_id, target_id FROM edges WHERE kind = %s AND source_id = ANY(%s)"
        " AND target_id = ANY(%s)",
        (kind, list(ids), list(ids)),
    )
    return {(r["source_id"], r["target_id"]) for r in await cur.fetchall()}


async def add_edges(
    conn: Conn, tenant_id: str, edges: Sequence[store.NewEdge], actor: str, request_id: str = ""
) -> list[store.NewEdge]:
    """Inserts the edges not already present (same source, target and kind) and
    audits each one (action EDGE, on the source memory); returns the new ones."""
    if not edges:
        return []
    cur = await conn.execute(
        "SELECT source_id, target_id, kind FROM edges WHERE source_id = ANY(%s)",
        (list({e.source_id for e in edges}),),
    )
    present = {(r["source_id"], r["target_id"], r["kind"]) for r in await cur.fetchall()}
    new: list[store.NewEdge] = []
    for e in edges:
        triple = (e.source_id, e.target_id, e.kind)
        if triple not in present and e.source_id != e.target_id:
            present.add(triple)
            new.append(e)
    if not new:
        return []
    spaces = await _spaces(conn, {e.source_id for e in new})
    await store.insert_edges(conn, tenant_id, new)
    await store.append_audit(
        conn,
        tenant_id,
        [
            store.AuditDraft(
                AuditAction.EDGE,
                e.source_id,
                spaces.get(e.source_id, ""),
                None,
                None,
                actor,
                e.reason,
                request_id,
                {"kind": e.kind, "target": f"memories/{e.target_id}", "creator": e.creator},
            )
            for e in new
        ],
    )
    return new


async def _spaces(conn: Conn, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    cur = await conn.execute("SELECT id, space FROM memories WHERE id = ANY(%s)", (list(ids),))
    return {r["id"]: r["space"] for r in await cur.fetchall()}


async def edge_sources(conn: Conn, target_id: uuid.UUID, kind: str) -> list[Memory]:
    """Memories with a `kind` edge to `target_id`, oldest first."""
    cur = await conn.execute(
        f"SELECT {', '.join('m.' + c.strip() for c in store.MEMORY_COLUMNS.split(','))}"
        " FROM edges e JOIN memories m ON m.tenant_id = e.tenant_id AND m.id = e.source_id"
        " WHERE e.target_id = %s AND e.kind = %s ORDER BY m.create_time, m.id",
        (target_id, kind),
    )
    return [store.row_to_memory(r) for r in await cur.fetchall()]


async def edges_from(
    conn: Conn, source_ids: Sequence[uuid.UUID], kind: str
) -> list[tuple[uuid.UUID, uuid.UUID]]:
    if not source_ids:
        return []
    cur = await conn.execute(
        "SELECT source_id, target_id FROM edges WHERE kind = %s AND source_id = ANY(%s)",
        (kind, list(source_ids)),
    )
    return [(r["source_id"], r["target_id"]) for r in await cur.fetchall()]


async def entities_mentioned_in(conn: Conn, space: str, session: str) -> list[uuid.UUID]:
    """The ENTITY memories the session's memories point at (ABOUT edges)."""
    cur = await conn.execute(
        "SELECT DISTINCT e.target_id FROM edges e"
        " JOIN memories m ON m.tenant_id = e.tenant_id AND m.id = e.source_id"
        " WHERE m.space = %s AND m.session = %s AND e.kind = 'ABOUT'",
        (space, session),
    )
    return [r["target_id"] for r in await cur.fetchall()]


async def unmentioned_consolidated_entities(
    conn: Conn, space: str, candidates: Sequence[uuid.UUID]
) -> list[uuid.UUID]:
    """Those of `candidates` that Consolidate created (not a caller) and that no
    memory points at any more: derived from purged sessions alone."""
    if not candidates:
        return []
    cur = await conn.execute(
        "SELECT m.id FROM memories m WHERE m.id = ANY(%s) AND m.space = %s"
        " AND m.kind = 'ENTITY' AND m.source LIKE 'consolidate:%%'"
        " AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.tenant_id = m.tenant_id"
        " AND e.target_id = m.id AND e.kind = 'ABOUT')",
        (list(candidates), space),
    )
    return [r["id"] for r in await cur.fetchall()]


async def entity_names(conn: Conn, space: str, limit: int = 5000) -> set[str]:
    """Contents of the space's live ENTITY memories (names already known there)."""
    cur = await conn.execute(
        "SELECT content FROM memories WHERE space = %s AND kind = 'ENTITY'"
        " AND status IN ('ACTIVE', 'PENDING_CONFIRMATION') LIMIT %s",
        (space, limit),
    )
    return {r["content"] for r in await cur.fetchall()}
