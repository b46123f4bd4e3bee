"""SQL for the commit leg's documents (`decision_search_documents`).

Runs inside `Database.tenant_tx`: row-level security confines every statement
to the caller's tenant.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from psycopg.types.json import Jsonb

from engram_server.decisions.ranking import FIELDS, Document
from engram_server.store.postgres import Conn


@dataclass(frozen=True)
class DocumentRow:
    sha: str
    decision_id: uuid.UUID
    commit_time: datetime
    fields: dict[str, list[str]]


async def save_documents(
    conn: Conn, tenant_id: str, repository: str, rows: Sequence[DocumentRow]
) -> None:
    """Writes (or rewrites, on a reprocessing ingest) each commit's document. A
    rewritten row gets a new `seq`, so every index reloads it."""
    if not rows:
        return
    payload = Jsonb(
        [
            {
                "sha": r.sha,
                "decision_id": str(r.decision_id),
                "commit_time": r.commit_time.isoformat(),
                **{name: " ".join(r.fields.get(name, ())) for name in FIELDS},
            }
            for r in rows
        ]
    )
    await conn.execute(
        "DELETE FROM decision_search_documents WHERE repository = %s"
        " AND sha = ANY(SELECT r.sha FROM jsonb_to_recordset(%s) AS r(sha text))",
        (repository, payload),
    )
    await conn.execute(
        "INSERT INTO decision_search_documents (tenant_id, repository, sha, decision_id,"
        " commit_time, subject, body, paths, code, symbols, docs)"
        " SELECT %s, %s, r.sha, r.decision_id, r.commit_time, r.subject, r.body, r.paths,"
        " r.code, r.symbols, r.docs"
        " FROM jsonb_to_recordset(%s) AS r(sha text, decision_id uuid, commit_time timestamptz,"
        " subject text, body text, paths text, code text, symbols text, docs text)",
        (tenant_id, repository, payload),
    )


async def state(conn: Conn, repository: str) -> tuple[int, int]:
    """(documents, highest seq) of a repository: what an index must hold."""
    cur = await conn.execute(
        "SELECT count(*) AS n, coalesce(max(seq), 0) AS top FROM decision_search_documents"
        " WHERE repository = %s",
        (repository,),
    )
    row = await cur.fetchone()
    assert row is not None
    return int(row["n"]), int(row["top"])


async def documents_after(conn: Conn, repository: str, after: int) -> list[tuple[int, Document]]:
    """(seq, document) of a repository's documents with seq above `after`, in seq order."""
    cur = await conn.execute(
        "SELECT seq, sha, decision_id, commit_time, subject, body, paths, code, symbols, docs"
        " FROM decision_search_documents WHERE repository = %s AND seq > %s ORDER BY seq",
        (repository, after),
    )
    return [
        (
            int(r["seq"]),
            Document(
                r["sha"],
                r["decision_id"],
                r["commit_time"],
                {name: r[name].split() for name in FIELDS},
            ),
        )
        for r in await cur.fetchall()
    ]


async def repositories(conn: Conn, limit: int) -> list[str]:
    cur = await conn.execute(
        "SELECT DISTINCT repository FROM decision_search_documents ORDER BY repository LIMIT %s",
        (limit,),
    )
    return [r["repository"] for r in await cur.fetchall()]
