"""SQL for decisions, their anchors, the commits ingested and their hunks.

Every function runs inside `Database.tenant_tx`, so row-level security confines
it to the caller's tenant. Bulk writes send one statement per table: the rows
travel as one jsonb array and `jsonb_to_recordset` unpacks them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from engram_server.decisions.model import (
    Alternative,
    Anchor,
    Decision,
    Disposition,
    Evidence,
    LineSpan,
    Origin,
    Outcome,
    OutcomeRecord,
)
from engram_server.store.postgres import Conn

_DECISION_COLUMNS = (
    "d.id, d.repository, d.space, d.identity, d.memory_id, d.title, d.statement, d.rationale,"
    " d.question, d.alternatives, d.evidence, d.commits, d.decision_time, d.create_time,"
    " d.update_time, d.author, d.tags, d.origin, d.superseded_by, d.expectations, d.outcome,"
    " d.outcomes, m.status AS memory_status"
)
_FROM = "decisions d JOIN memories m ON m.tenant_id = d.tenant_id AND m.id = d.memory_id"


@dataclass(frozen=True)
class NewDecision:
    id: uuid.UUID
    repository: str
    identity: str
    space: str
    memory_id: uuid.UUID
    title: str
    statement: str
    rationale: str
    question: str
    alternatives: Sequence[Alternative]
    evidence: Sequence[Evidence]
    commits: Sequence[str]
    decision_time: datetime
    author: str
    tags: Sequence[str]
    origin: Origin
    expectations: Sequence[str] = ()


@dataclass(frozen=True)
class CommitRow:
    sha: str
    parents: Sequence[str]
    author_time: datetime
    commit_time: datetime
    disposition: Disposition
    decision_id: uuid.UUID | None
    reason: str


@dataclass(frozen=True)
class FileChangeRow:
    sha: str
    path: str
    old_path: str
    change_type: str
    commit_time: datetime
    hunks: Sequence[tuple[int, int, int, int]]


@dataclass(frozen=True)
class KnownCommit:
    sha: str
    disposition: Disposition
    decision_id: uuid.UUID | None
    reason: str


def _alternatives_json(items: Iterable[Alternative]) -> list[dict[str, str]]:
    return [{"description": a.description, "reason_rejected": a.reason_rejected} for a in items]


def _evidence_json(items: Iterable[Evidence]) -> list[dict[str, str]]:
    return [
        {"quote": e.quote, "origin": e.origin.value, "commit_sha": e.commit_sha, "path": e.path}
        | ({"memory": e.memory} if e.memory else {})
        for e in items
    ]


def evidence_from_json(items: Iterable[dict[str, str]]) -> tuple[Evidence, ...]:
    return tuple(
        Evidence(
            i["quote"],
            Origin(i.get("origin") or "commit_message"),
            i.get("commit_sha", ""),
            i.get("path", ""),
            i.get("memory", ""),
        )
        for i in items
    )


def _outcomes_from_json(items: Iterable[dict[str, Any]]) -> tuple[OutcomeRecord, ...]:
    return tuple(
        OutcomeRecord(
            Outcome(i["outcome"]),
            i.get("summary", ""),
            evidence_from_json(i.get("evidence", [])),
            datetime.fromisoformat(i["record_time"]),
            i.get("recorder", ""),
        )
        for i in items
    )


def outcome_json(record: OutcomeRecord) -> dict[str, Any]:
    return {
        "outcome": record.outcome.value,
        "summary": record.summary,
        "evidence": _evidence_json(record.evidence),
        "record_time": record.record_time.isoformat(),
        "recorder": record.recorder,
    }


def _row_to_decision(row: dict[str, Any], anchors: Sequence[Anchor]) -> Decision:
    return Decision(
        id=row["id"],
        repository=row["repository"],
        space=row["space"],
        identity=row["identity"],
        memory_id=row["memory_id"],
        title=row["title"],
        statement=row["statement"],
        rationale=row["rationale"],
        question=row["question"],
        alternatives=tuple(
            Alternative(a["description"], a.get("reason_rejected", "")) for a in row["alternatives"]
        ),
        evidence=evidence_from_json(row["evidence"]),
        anchors=tuple(anchors),
        commits=tuple(row["commits"]),
        decision_time=row["decision_time"],
        create_time=row["create_time"],
        update_time=row["update_time"],
        author=row["author"],
        tags=tuple(row["tags"]),
        origin=Origin(row["origin"]),
        status=row["memory_status"],
        superseded_by=row["superseded_by"],
        expectations=tuple(row["expectations"]),
        outcome=Outcome(row["outcome"]),
        outcomes=_outcomes_from_json(row["outcomes"]),
    )


# -- commits ------------------------------------------------------------------------


async def known_commits(conn: Conn, repository: str, shas: Sequence[str]) -> dict[str, KnownCommit]:
    if not shas:
        return {}
    cur = await conn.execute(
        "SELECT sha, disposition, decision_id, reason FROM decision_commits"
        " WHERE repository = %s AND sha = ANY(%s)",
        (repository, list(shas)),
    )
    return {
        r["sha"]: KnownCommit(
            r["sha"], Disposition(r["disposition"]), r["decision_id"], r["reason"]
        )
        for r in await cur.fetchall()
    }


async def decisions_of_commits(
    conn: Conn, repository: str, shas: Sequence[str]
) -> dict[str, uuid.UUID]:
    """The decision each commit (full sha or an abbreviation of at least 7) became."""
    out: dict[str, uuid.UUID] = {}
    full = [s for s in shas if len(s) >= 40]
    short = [s for s in shas if len(s) < 40]
    if full:
        cur = await conn.execute(
            "SELECT sha, decision_id FROM decision_commits WHERE repository = %s"
            " AND sha = ANY(%s) AND decision_id IS NOT NULL",
            (repository, full),
        )
        out.update({r["sha"]: r["decision_id"] for r in await cur.fetchall()})
    for prefix in short:
        cur = await conn.execute(
            "SELECT sha, decision_id FROM decision_commits WHERE repository = %s"
            " AND sha LIKE %s AND decision_id IS NOT NULL LIMIT 2",
            (repository, prefix + "%"),
        )
        rows = await cur.fetchall()
        if len(rows) == 1:
            out[prefix] = rows[0]["decision_id"]
    return out


async def save_commits(
    conn: Conn,
    tenant_id: str,
    repository: str,
    rows: Sequence[CommitRow],
    *,
    replace: bool,
    space: str | None = None,
) -> None:
    """`space`: the decision space the commits were ingested for (a purge of it
    deletes their records)."""
    if not rows:
        return
    conflict = (
        "DO UPDATE SET disposition = excluded.disposition, decision_id = excluded.decision_id,"
        " reason = excluded.reason, ingest_time = now()"
        if replace
        else "DO NOTHING"
    )
    await conn.execute(
        "INSERT INTO decision_commits (tenant_id, repository, sha, parents, author_time,"
        " commit_time, disposition, decision_id, reason, space)"
        " SELECT %s, %s, r.sha, r.parents, r.author_time, r.commit_time, r.disposition,"
        " r.decision_id, r.reason, %s FROM jsonb_to_recordset(%s) AS r(sha text, parents text[],"
        " author_time timestamptz, commit_time timestamptz, disposition text, decision_id uuid,"
        f" reason text) ON CONFLICT (tenant_id, repository, sha) {conflict}",
        (
            tenant_id,
            repository,
            space,
            Jsonb(
                [
                    {
                        "sha": r.sha,
                        "parents": list(r.parents),
                        "author_time": r.author_time.isoformat(),
                        "commit_time": r.commit_time.isoformat(),
                        "disposition": r.disposition.value,
                        "decision_id": str(r.decision_id) if r.decision_id else None,
                        "reason": r.reason,
                    }
                    for r in rows
                ]
            ),
        ),
    )


async def save_file_changes(
    conn: Conn,
    tenant_id: str,
    repository: str,
    rows: Sequence[FileChangeRow],
    space: str | None = None,
) -> None:
    if not rows:
        return
    await conn.execute(
        "INSERT INTO decision_file_changes (tenant_id, repository, sha, path, old_path,"
        " change_type, commit_time, hunks, space)"
        " SELECT %s, %s, r.sha, r.path, r.old_path, r.change_type, r.commit_time, r.hunks, %s"
        " FROM jsonb_to_recordset(%s) AS r(sha text, path text, old_path text,"
        " change_type text, commit_time timestamptz, hunks jsonb)"
        " ON CONFLICT (tenant_id, repository, sha, path) DO NOTHING",
        (
            tenant_id,
            repository,
            space,
            Jsonb(
                [
                    {
                        "sha": r.sha,
                        "path": r.path,
                        "old_path": r.old_path,
                        "change_type": r.change_type,
                        "commit_time": r.commit_time.isoformat(),
                        "hunks": [list(h) for h in r.hunks],
                    }
                    for r in rows
                ]
            ),
        ),
    )


async def commit_time(conn: Conn, repository: str, sha: str) -> datetime | None:
    cur = await conn.execute(
        "SELECT commit_time FROM decision_commits WHERE repository = %s AND"
        " (sha = %s OR (length(%s) < 40 AND sha LIKE %s)) LIMIT 1",
        (repository, sha, sha, sha + "%"),
    )
    row = await cur.fetchone()
    return row["commit_time"] if row else None


async def commit_times(conn: Conn, repository: str, shas: Sequence[str]) -> dict[str, datetime]:
    if not shas:
        return {}
    cur = await conn.execute(
        "SELECT sha, commit_time FROM decision_commits WHERE repository = %s AND sha = ANY(%s)",
        (repository, list(shas)),
    )
    return {r["sha"]: r["commit_time"] for r in await cur.fetchall()}


async def renamed_into(conn: Conn, repository: str, paths: Sequence[str]) -> list[dict[str, Any]]:
    """Renames whose new path is one of `paths`: (old_path, path, sha, commit_time)."""
    cur = await conn.execute(
        "SELECT old_path, path, sha, commit_time FROM decision_file_changes"
        " WHERE repository = %s AND path = ANY(%s) AND old_path <> ''"
        " AND change_type = 'RENAMED'",
        (repository, list(paths)),
    )
    return list(await cur.fetchall())


async def changes_on_paths(
    conn: Conn, repository: str, paths: Sequence[str], after: datetime, until: datetime | None
) -> list[dict[str, Any]]:
    """The file changes of `paths` after `after` (and up to `until`), oldest first."""
    cur = await conn.execute(
        "SELECT sha, path, old_path, change_type, commit_time, hunks FROM decision_file_changes"
        " WHERE repository = %s AND path = ANY(%s) AND commit_time > %s"
        " AND (%s::timestamptz IS NULL OR commit_time <= %s)"
        " ORDER BY commit_time, sha LIMIT 5000",
        (repository, list(paths), after, until, until),
    )
    return list(await cur.fetchall())


# -- decisions -------------------------------------------------------------------------


async def by_identity(
    conn: Conn, repository: str, identities: Sequence[str]
) -> dict[str, Decision]:
    if not identities:
        return {}
    cur = await conn.execute(
        f"SELECT {_DECISION_COLUMNS} FROM {_FROM} WHERE d.repository = %s AND d.identity = ANY(%s)",
        (repository, list(identities)),
    )
    rows = await cur.fetchall()
    anchors = await _anchors_of(conn, [r["id"] for r in rows])
    return {r["identity"]: _row_to_decision(r, anchors.get(r["id"], ())) for r in rows}


async def get_decisions(
    conn: Conn, ids: Sequence[uuid.UUID], *, with_anchors: bool = True
) -> dict[uuid.UUID, Decision]:
    """Decisions by id; without anchors when only ranking needs them (a decision
    of a big commit has hundreds)."""
    if not ids:
        return {}
    cur = await conn.execute(
        f"SELECT {_DECISION_COLUMNS} FROM {_FROM} WHERE d.id = ANY(%s)", (list(ids),)
    )
    rows = await cur.fetchall()
    anchors = await _anchors_of(conn, [r["id"] for r in rows]) if with_anchors else {}
    return {r["id"]: _row_to_decision(r, anchors.get(r["id"], ())) for r in rows}


async def by_memories(
    conn: Conn, memory_ids: Sequence[uuid.UUID], *, with_anchors: bool = True
) -> dict[uuid.UUID, Decision]:
    if not memory_ids:
        return {}
    cur = await conn.execute(
        f"SELECT {_DECISION_COLUMNS} FROM {_FROM} WHERE d.memory_id = ANY(%s)",
        (list(memory_ids),),
    )
    rows = await cur.fetchall()
    anchors = await _anchors_of(conn, [r["id"] for r in rows]) if with_anchors else {}
    return {r["memory_id"]: _row_to_decision(r, anchors.get(r["id"], ())) for r in rows}


async def _anchors_of(conn: Conn, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, list[Anchor]]:
    if not ids:
        return {}
    cur = await conn.execute(
        "SELECT decision_id, path, start_line, end_line, symbol, commit_sha"
        " FROM decision_anchors WHERE decision_id = ANY(%s)"
        " ORDER BY decision_id, path, start_line, end_line, symbol",
        (list(ids),),
    )
    out: dict[uuid.UUID, list[Anchor]] = {}
    for r in await cur.fetchall():
        out.setdefault(r["decision_id"], []).append(_anchor(r))
    return out


def _anchor(r: dict[str, Any]) -> Anchor:
    lines = LineSpan(r["start_line"], r["end_line"]) if r["start_line"] else None
    return Anchor(r["path"], lines, r["commit_sha"], r["symbol"])


async def insert_decisions(
    conn: Conn, tenant_id: str, rows: Sequence[NewDecision], stored_at: datetime | None = None
) -> None:
    """Inserts new decisions; `stored_at` (default: the transaction's time) becomes
    their create and update time, so a caller can answer with them unread."""
    if not rows:
        return
    await conn.execute(
        "INSERT INTO decisions (tenant_id, id, repository, identity, space, memory_id, title,"
        " statement, rationale, question, alternatives, evidence, commits, decision_time,"
        " author, tags, origin, expectations, create_time, update_time)"
        " SELECT %s, r.id, r.repository, r.identity, r.space, r.memory_id, r.title, r.statement,"
        " r.rationale, r.question, r.alternatives, r.evidence, r.commits, r.decision_time,"
        " r.author, r.tags, r.origin, r.expectations, coalesce(%s, now()), coalesce(%s, now())"
        " FROM jsonb_to_recordset(%s) AS r(id uuid,"
        " repository text, identity text, space text, memory_id uuid, title text,"
        " statement text, rationale text, question text, alternatives jsonb, evidence jsonb,"
        " commits text[], decision_time timestamptz, author text, tags text[], origin text,"
        " expectations text[])",
        (
            tenant_id,
            stored_at,
            stored_at,
            Jsonb(
                [
                    {
                        "id": str(r.id),
                        "repository": r.repository,
                        "identity": r.identity,
                        "space": r.space,
                        "memory_id": str(r.memory_id),
                        "title": r.title,
                        "statement": r.statement,
                        "rationale": r.rationale,
                        "question": r.question,
                        "alternatives": _alternatives_json(r.alternatives),
                        "evidence": _evidence_json(r.evidence),
                        "commits": list(r.commits),
                        "decision_time": r.decision_time.isoformat(),
                        "author": r.author,
                        "tags": list(r.tags),
                        "origin": r.origin.value,
                        "expectations": list(r.expectations),
                    }
                    for r in rows
                ]
            ),
        ),
    )


async def update_decision(conn: Conn, decision_id: uuid.UUID, changes: dict[str, Any]) -> None:
    """Sets columns of one decision (alternatives and evidence given as domain tuples)."""
    values: list[Any] = []
    for column, value in changes.items():
        if column == "alternatives":
            values.append(Jsonb(_alternatives_json(value)))
        elif column == "evidence":
            values.append(Jsonb(_evidence_json(value)))
        elif column == "outcomes":
            values.append(Jsonb([outcome_json(o) for o in value]))
        elif isinstance(value, tuple):
            values.append(list(value))
        else:
            values.append(value)
    sets = ", ".join(f"{c} = %s" for c in changes)
    await conn.execute(
        f"UPDATE decisions SET {sets}, update_time = now() WHERE id = %s", (*values, decision_id)
    )


async def save_anchors(
    conn: Conn,
    tenant_id: str,
    repository: str,
    anchors: Sequence[tuple[uuid.UUID, Anchor]],
) -> None:
    """Adds anchors; an anchor already recorded takes the newer commit (after a
    rebase the same place is seen at a commit that still exists)."""
    if not anchors:
        return
    # One row per key: ON CONFLICT DO UPDATE cannot touch a row twice in one
    # statement, and a caller may name the same place twice (the later one wins).
    unique = {
        (
            decision_id,
            a.path,
            a.lines.start if a.lines else 0,
            a.lines.end if a.lines else 0,
            a.symbol,
        ): (
            decision_id,
            a,
        )
        for decision_id, a in anchors
    }
    await conn.execute(
        "INSERT INTO decision_anchors (tenant_id, decision_id, repository, path, start_line,"
        " end_line, symbol, commit_sha)"
        " SELECT %s, r.decision_id, %s, r.path, r.start_line, r.end_line, r.symbol, r.commit_sha"
        " FROM jsonb_to_recordset(%s) AS r(decision_id uuid, path text, start_line int,"
        " end_line int, symbol text, commit_sha text)"
        " ON CONFLICT (tenant_id, decision_id, path, start_line, end_line, symbol)"
        " DO UPDATE SET commit_sha = excluded.commit_sha",
        (
            tenant_id,
            repository,
            Jsonb(
                [
                    {
                        "decision_id": str(decision_id),
                        "path": a.path,
                        "start_line": a.lines.start if a.lines else 0,
                        "end_line": a.lines.end if a.lines else 0,
                        "symbol": a.symbol,
                        "commit_sha": a.commit_sha,
                    }
                    for decision_id, a in unique.values()
                ]
            ),
        ),
    )


async def anchors_on_paths(
    conn: Conn, repository: str, paths: Sequence[str]
) -> list[tuple[uuid.UUID, Anchor]]:
    cur = await conn.execute(
        "SELECT decision_id, path, start_line, end_line, symbol, commit_sha"
        " FROM decision_anchors WHERE repository = %s AND path = ANY(%s) LIMIT 5000",
        (repository, list(paths)),
    )
    return [(r["decision_id"], _anchor(r)) for r in await cur.fetchall()]


async def anchors_with_symbol(
    conn: Conn, repository: str, symbol: str
) -> list[tuple[uuid.UUID, Anchor]]:
    cur = await conn.execute(
        "SELECT decision_id, path, start_line, end_line, symbol, commit_sha"
        " FROM decision_anchors WHERE repository = %s AND symbol = %s LIMIT 1000",
        (repository, symbol),
    )
    return [(r["decision_id"], _anchor(r)) for r in await cur.fetchall()]


async def mentioning(
    conn: Conn, repository: str, terms: Sequence[str], limit: int
) -> list[tuple[uuid.UUID, int]]:
    """Decisions whose title, rationale or evidence contain one of `terms`
    (identifiers, matched case-sensitively as written), with how many they contain."""
    if not terms:
        return []
    cur = await conn.execute(
        "SELECT d.id, count(*) AS n FROM decisions d, unnest(%s::text[]) AS t(term)"
        " WHERE (%s = '' OR d.repository = %s) AND (strpos(d.title, t.term) > 0"
        " OR strpos(d.rationale, t.term) > 0 OR strpos(d.statement, t.term) > 0"
        " OR strpos(d.evidence::text, t.term) > 0)"
        " GROUP BY d.id ORDER BY n DESC, d.id LIMIT %s",
        (list(terms), repository, repository, limit),
    )
    return [(r["id"], int(r["n"])) for r in await cur.fetchall()]


@dataclass(frozen=True)
class DecisionFilter:
    repository: str = ""
    path: str = ""
    start: datetime | None = None
    end: datetime | None = None
    include_superseded: bool = False
    outcomes: Sequence[str] = ()


async def list_decisions(
    conn: Conn, f: DecisionFilter, after: tuple[datetime, uuid.UUID] | None, limit: int
) -> list[Decision]:
    """Newest decision_time first, keyset-paged after (decision_time, id)."""
    where = ["true"]
    params: list[Any] = []
    if f.repository:
        where.append("d.repository = %s")
        params.append(f.repository)
    if f.path:
        op = "a.path LIKE %s" if f.path.endswith("/") else "a.path = %s"
        where.append(
            "EXISTS (SELECT 1 FROM decision_anchors a WHERE a.tenant_id = d.tenant_id"
            f" AND a.decision_id = d.id AND {op})"
        )
        params.append(_like_prefix(f.path) if f.path.endswith("/") else f.path)
    if f.start is not None:
        where.append("d.decision_time >= %s")
        params.append(f.start)
    if f.end is not None:
        where.append("d.decision_time < %s")
        params.append(f.end)
    statuses = ["ACTIVE", "PENDING_CONFIRMATION"]
    if f.include_superseded:
        statuses.append("SUPERSEDED")
    where.append("m.status = ANY(%s)")
    params.append(statuses)
    if f.outcomes:
        where.append("d.outcome = ANY(%s)")
        params.append(list(f.outcomes))
    if after is not None:
        where.append("(d.decision_time, d.id) < (%s, %s)")
        params.extend(after)
    cur = await conn.execute(
        f"SELECT {_DECISION_COLUMNS} FROM {_FROM} WHERE {' AND '.join(where)}"
        " ORDER BY d.decision_time DESC, d.id DESC LIMIT %s",
        (*params, limit),
    )
    rows = await cur.fetchall()
    anchors = await _anchors_of(conn, [r["id"] for r in rows])
    return [_row_to_decision(r, anchors.get(r["id"], ())) for r in rows]


async def rated_in_space(conn: Conn, space: str, limit: int = 2000) -> list[Decision]:
    """Decisions of a space with a recorded outcome (live ones), newest first."""
    cur = await conn.execute(
        f"SELECT {_DECISION_COLUMNS} FROM {_FROM} WHERE d.space = %s"
        " AND d.outcome <> 'UNSPECIFIED' AND m.status IN ('ACTIVE', 'PENDING_CONFIRMATION')"
        " ORDER BY d.decision_time DESC, d.id DESC LIMIT %s",
        (space, limit),
    )
    rows = await cur.fetchall()
    anchors = await _anchors_of(conn, [r["id"] for r in rows])
    return [_row_to_decision(r, anchors.get(r["id"], ())) for r in rows]


async def decision_ids_under(conn: Conn, repository: str, path: str) -> set[uuid.UUID]:
    """Decisions anchored at `path`, or under it when it ends with '/'."""
    op = "path LIKE %s" if path.endswith("/") else "path = %s"
    cur = await conn.execute(
        f"SELECT DISTINCT decision_id FROM decision_anchors WHERE (%s = '' OR repository = %s)"
        f" AND {op}",
        (repository, repository, _like_prefix(path) if path.endswith("/") else path),
    )
    return {r["decision_id"] for r in await cur.fetchall()}


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


async def lock_decision(conn: Conn, decision_id: uuid.UUID) -> Decision | None:
    cur = await conn.execute(
        f"SELECT {_DECISION_COLUMNS} FROM {_FROM} WHERE d.id = %s FOR UPDATE OF d",
        (decision_id,),
    )
    row = await cur.fetchone()
    if row is None:
        return None
    anchors = await _anchors_of(conn, [row["id"]])
    return _row_to_decision(row, anchors.get(row["id"], ()))


async def memories_derived_from(
    conn: Conn, space: str, session: str, purged: set[uuid.UUID]
) -> list[uuid.UUID]:
    """Backing memories of the decisions a purge of `space` (one `session` of it,
    when given) must take along: mined from one of its sessions, or quoting one of
    the `purged` memories (in their evidence or an outcome's)."""
    cur = await conn.execute(
        "SELECT d.memory_id, d.evidence, d.outcomes,"
        " m.attributes->>'source_space' = %s"
        " AND (%s = '' OR m.attributes->>'source_session' = %s) AS mined_there"
        " FROM decisions d JOIN memories m ON m.tenant_id = d.tenant_id AND m.id = d.memory_id"
        " WHERE m.attributes->>'source_space' = %s"
        " OR d.evidence @? '$[*].memory' OR d.outcomes @? '$[*].evidence[*].memory'",
        (space, session, session, space),
    )
    derived: list[uuid.UUID] = []
    for row in await cur.fetchall():
        quoted = [*row["evidence"], *(e for o in row["outcomes"] for e in o.get("evidence", []))]
        if row["mined_there"] or any(_memory_id(e.get("memory", "")) in purged for e in quoted):
            derived.append(row["memory_id"])
    return derived


def _memory_id(name: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(name.partition("/")[2])
    except ValueError:
        return None


async def repositories_in(conn: Conn, space: str) -> set[str]:
    """The repositories with decisions in `space`."""
    cur = await conn.execute("SELECT DISTINCT repository FROM decisions WHERE space = %s", (space,))
    return {r["repository"] for r in await cur.fetchall()}


async def forget_commit_records(conn: Conn, space: str, emptied: set[str]) -> None:
    """Deletes the commit records (NO_DECISION ones included) and file-change
    records ingested for `space`, which a purge of it erases. Records that predate
    the space column (migration 0065) go with the repository's default space, or
    with a space in `emptied` (the repositories whose decisions it held) once the
    repository has no decision left anywhere."""
    from engram_server.decisions.identity import default_space

    await conn.execute("DELETE FROM decision_commits WHERE space = %s", (space,))
    await conn.execute("DELETE FROM decision_file_changes WHERE space = %s", (space,))
    cur = await conn.execute(
        "SELECT DISTINCT repository FROM decision_commits WHERE space IS NULL"
        " UNION SELECT DISTINCT repository FROM decision_file_changes WHERE space IS NULL"
    )
    legacy = {r["repository"] for r in await cur.fetchall()}
    if not legacy:
        return
    left = await conn.execute(
        "SELECT DISTINCT repository FROM decisions WHERE repository = ANY(%s)", (list(emptied),)
    )
    still = {r["repository"] for r in await left.fetchall()}
    gone = [r for r in legacy if default_space(r) == space or (r in emptied and r not in still)]
    if gone:
        await conn.execute(
            "DELETE FROM decision_commits WHERE space IS NULL AND repository = ANY(%s)", (gone,)
        )
        await conn.execute(
            "DELETE FROM decision_file_changes WHERE space IS NULL AND repository = ANY(%s)",
            (gone,),
        )
