"""Queries behind the operator's maintenance commands (`engram maintenance`)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from psycopg.types.json import Jsonb

from engram_server.store.postgres import Conn


@dataclass(frozen=True)
class SessionDecision:
    """A decision IngestSession mined, as its backing memory records it."""

    decision_id: uuid.UUID
    memory_id: uuid.UUID
    repository: str
    space: str  # the decision space
    session: str  # the session it was mined from (the memory's session)
    title: str  # words of the session, as mined


async def unattributed_session_decisions(conn: Conn) -> list[SessionDecision]:
    """Decisions mined from a session whose memory does not say which space the
    session was in (mined before IngestSession recorded `source_space`): a purge
    of that space or session cannot find them."""
    cur = await conn.execute(
        "SELECT d.id, d.memory_id, d.repository, d.space, m.session, d.title"
        " FROM decisions d JOIN memories m ON m.tenant_id = d.tenant_id AND m.id = d.memory_id"
        " WHERE d.origin = 'session' AND NOT m.attributes ? 'source_space'"
        " ORDER BY d.space, d.id"
    )
    return [
        SessionDecision(
            r["id"], r["memory_id"], r["repository"], r["space"], r["session"], r["title"]
        )
        for r in await cur.fetchall()
    ]


async def session_texts(conn: Conn, session: str) -> dict[str, list[str]]:
    """The contents of the memories (decisions aside) of `session`, per space."""
    cur = await conn.execute(
        "SELECT space, content FROM memories WHERE session = %s AND kind <> 'DECISION'",
        (session,),
    )
    out: dict[str, list[str]] = {}
    for r in await cur.fetchall():
        out.setdefault(r["space"], []).append(r["content"])
    return out


async def attribute_source(conn: Conn, memory_id: uuid.UUID, space: str, session: str) -> None:
    """Records where a decision memory was mined from, as IngestSession does now."""
    await conn.execute(
        "UPDATE memories SET attributes = attributes || %s WHERE id = %s",
        (Jsonb({"source_space": space, "source_session": session}), memory_id),
    )


async def revision_contents_of(conn: Conn, memory_ids: list[uuid.UUID]) -> list[str]:
    """Every content the revisions of these memories recorded."""
    cur = await conn.execute(
        "SELECT DISTINCT snapshot->>'content' AS content FROM memory_revisions"
        " WHERE memory_id = ANY(%s) AND snapshot ? 'content'",
        (memory_ids,),
    )
    return [r["content"] for r in await cur.fetchall() if r["content"] is not None]
