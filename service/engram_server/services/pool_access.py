"""What PoolService's use cases share: the pool's SQL, protos, shared reads,
idempotent writes and the access checks. The RPCs themselves live in
`pool_admin` (pools, members), `pool_publishing` (the gate, reviews, trust) and
`pool_streams` (topics, SyncPool, SubscribeTopic); `services.pools` joins them.

Every RPC resolves the caller's role in the pool from its current memberships
(direct, and through its groups) inside the RPC's own transaction; writes lock
the membership rows they rely on, so a concurrent removal either commits first
(and the write is refused) or waits for the write. Non-members get NOT_FOUND for
the pool, never a hint that it exists; members whose role is too low get
PERMISSION_DENIED. Tenant administrators (`admin` scope) manage any pool of their
tenant but read publications only as members.

Writers follow the lock order written down in migration 0020 (memory rows, then
pool and membership rows, then the tenant's audit counter, then publications,
slots and the pool's log), so no two of them can deadlock.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from engram.v1 import pool_pb2
from google.protobuf.message import Message

from engram_server.api import convert
from engram_server.errors import InvalidArgument, NotFound, PermissionDenied, Violations
from engram_server.lifecycle.model import AuditAction, memory_name
from engram_server.lifecycle.validation import MAX_REQUEST_ID
from engram_server.platform.principal import SCOPE_ADMIN, SCOPE_READ, SCOPE_WRITE, Principal
from engram_server.pools import model
from engram_server.pools.model import Finding, Gate, Role
from engram_server.privacy import default_boundary
from engram_server.services.lifecycle import RequestKey
from engram_server.store import memories as store
from engram_server.store.memories import AuditDraft
from engram_server.store.postgres import Conn, Database

M = TypeVar("M", bound=Message)

POOL_CHANNEL = "engram_pool"

_ROLE_NAMES = {1: "READER", 2: "WRITER", 3: "OWNER"}
LIVE_STATES = ("PUBLISHED", "PENDING_REVIEW")

POOL_SQL = """
SELECT p.*,
       (SELECT count(*) FROM pool_members m WHERE m.pool_id = p.id) AS member_count,
       (SELECT count(*) FROM publications x
         WHERE x.pool_id = p.id AND x.state = 'PUBLISHED' AND x.visibility = 'POOL')
         AS pool_publications,
       (SELECT count(*) FROM publications x
         WHERE x.pool_id = p.id AND x.state = 'PUBLISHED' AND x.visibility = 'CONTRIBUTORS')
         AS contributors_publications,
       (SELECT count(*) FROM publications x
         WHERE x.pool_id = p.id AND x.state = 'PUBLISHED' AND x.visibility = 'TENANT')
         AS tenant_publications
  FROM pools p
"""
# The caller's role in each pool of a listing (as ROLE_SQL), to count what it sees.
LISTED_ROLE_SQL = """
(SELECT coalesce(max(pm.role), 0) FROM pool_members pm
  WHERE pm.pool_id = p.id
    AND (pm.principal = ANY(%(ids)s)
         OR pm.principal IN (SELECT 'groups/' || g.group_id FROM principal_group_members g
                              WHERE g.principal = ANY(%(ids)s))))
"""

# The caller's role in a pool: the highest of its direct and group memberships.
ROLE_SQL = """
SELECT coalesce(max(pm.role), 0) AS role
  FROM pool_members pm
 WHERE pm.pool_id = %(pool)s
   AND (pm.principal = ANY(%(ids)s)
        OR pm.principal IN (SELECT 'groups/' || g.group_id FROM principal_group_members g
                             WHERE g.principal = ANY(%(ids)s)))
"""

TRUST_COLUMNS = f"""
  coalesce(t.published_count, 0) AS published_count,
  coalesce(t.used_count, 0) AS used_count,
  coalesce(t.confirmed_count, 0) AS confirmed_count,
  coalesce(t.quickly_invalidated_count, 0) AS quickly_invalidated_count,
  coalesce(t.contradicted_count, 0) AS contradicted_count,
  t.update_time AS trust_update_time,
  {model.trust_sql("pl.initial_trust", "t")} AS trust_score
"""


def now_utc() -> datetime:
    return datetime.now(UTC)


def role_name(role: int) -> str:
    return _ROLE_NAMES.get(role, "UNSPECIFIED")


def etag_of(revision: int) -> str:
    return f'"{revision}"'


# --- protos -------------------------------------------------------------------------


def gate_to_proto(gate: Gate) -> pool_pb2.PublishGate:
    from engram.v1 import types_pb2

    return pool_pb2.PublishGate(
        min_utility=gate.min_utility,
        allowed_kinds=[types_pb2.MemoryKind.Value(f"MEMORY_KIND_{k}") for k in gate.allowed_kinds],
        review_below_evidence_level=types_pb2.EvidenceLevel.Value(
            f"EVIDENCE_LEVEL_{gate.review_below_evidence_level}"
        ),
        review_below_trust=gate.review_below_trust,
        require_review=gate.require_review,
    )


def gate_from_proto(g: pool_pb2.PublishGate, path: str, v: Violations) -> Gate:
    from engram.v1 import types_pb2

    kinds = []
    for i, k in enumerate(g.allowed_kinds):
        name = convert.enum_name(
            types_pb2.MemoryKind, k, "MEMORY_KIND_", f"{path}.allowed_kinds[{i}]", v
        )
        if name == "UNSPECIFIED":
            v.add(f"{path}.allowed_kinds[{i}]", "must be a kind")
        elif name:
            kinds.append(name)
    level = convert.enum_name(
        types_pb2.EvidenceLevel,
        g.review_below_evidence_level,
        "EVIDENCE_LEVEL_",
        f"{path}.review_below_evidence_level",
        v,
    )
    from engram_server.lifecycle.validation import check_unit_interval

    check_unit_interval(v, f"{path}.min_utility", g.min_utility)
    check_unit_interval(v, f"{path}.review_below_trust", g.review_below_trust)
    return Gate(
        min_utility=g.min_utility,
        allowed_kinds=tuple(sorted(set(kinds))),
        review_below_evidence_level=level or "UNSPECIFIED",
        review_below_trust=g.review_below_trust,
        require_review=g.require_review,
    )


def visibility_from_proto(value: int, path: str, v: Violations) -> str:
    name = convert.enum_name(
        pool_pb2.PublicationVisibility, value, "PUBLICATION_VISIBILITY_", path, v
    )
    return "" if not name or name == "UNSPECIFIED" else name


def pool_to_proto(row: dict[str, Any], role: int) -> pool_pb2.Pool:
    """`role`: the caller's (0 for a tenant administrator who is no member), which
    decides the publications it sees and so their count."""
    visible = model.visible_to(role)
    out = pool_pb2.Pool(
        name=model.pool_name(row["id"]),
        display_name=row["display_name"],
        description=row["description"],
        gate=gate_to_proto(Gate.from_json(row["gate"])),
        default_visibility=pool_pb2.PublicationVisibility.Value(
            f"PUBLICATION_VISIBILITY_{row['default_visibility']}"
        ),
        initial_trust=row["initial_trust"],
        member_count=int(row.get("member_count") or 0),
        publication_count=sum(
            int(row.get(f"{visibility.lower()}_publications") or 0) for visibility in visible
        ),
        creator=row["creator"],
        create_time=convert.dt_to_ts(row["create_time"]),
        update_time=convert.dt_to_ts(row["update_time"]),
        etag=etag_of(row["revision"]),
        labels=dict(row["labels"]),
    )
    out.quick_invalidation_window.FromSeconds(int(row["quick_window_seconds"]))
    return out


def member_to_proto(row: dict[str, Any]) -> pool_pb2.PoolMember:
    return pool_pb2.PoolMember(
        name=model.member_name(row["pool_id"], row["id"]),
        principal=row["principal"],
        role=row["role"],
        added_by=row["added_by"],
        create_time=convert.dt_to_ts(row["create_time"]),
        update_time=convert.dt_to_ts(row["update_time"]),
        trust_score=float(row.get("trust_score") or 0.0),
    )


def findings_to_proto(findings: Sequence[dict[str, Any]]) -> list[pool_pb2.GateFinding]:
    return [
        pool_pb2.GateFinding(rule=f["rule"], refuses=f["refuses"], message=f["message"])
        for f in findings
    ]


def publication_to_proto(row: dict[str, Any]) -> pool_pb2.Publication:
    return pool_pb2.Publication(
        name=model.publication_name(row["pool_id"], row["id"]),
        memory=memory_name(row["memory_id"]),
        publisher=row["publisher"],
        state=pool_pb2.PublicationState.Value(f"PUBLICATION_STATE_{row['state']}"),
        visibility=pool_pb2.PublicationVisibility.Value(
            f"PUBLICATION_VISIBILITY_{row['visibility']}"
        ),
        topic=row["topic"],
        slot_key=row["slot_key"],
        utility=row["utility"],
        findings=findings_to_proto(row["findings"]),
        reviewer=row["reviewer"],
        review_note=row["review_note"],
        withdraw_reason=row["withdraw_reason"],
        create_time=convert.dt_to_ts(row["create_time"]),
        update_time=convert.dt_to_ts(row["update_time"]),
    )


def trust_to_proto(pool_id: str, row: dict[str, Any]) -> pool_pb2.AgentTrust:
    out = pool_pb2.AgentTrust(
        name=model.member_name(pool_id, model.member_id(row["principal"])) + "/trust",
        principal=row["principal"],
        score=float(row["trust_score"]),
        published_count=row["published_count"],
        used_count=row["used_count"],
        confirmed_count=row["confirmed_count"],
        quickly_invalidated_count=row["quickly_invalidated_count"],
        contradicted_count=row["contradicted_count"],
    )
    if row.get("trust_update_time") is not None:
        out.update_time.FromDatetime(row["trust_update_time"])
    return out


# --- shared reads -------------------------------------------------------------------


async def fetch_one(conn: Conn, query: str, params: Any = ()) -> dict[str, Any] | None:
    cur = await conn.execute(query, params)
    return await cur.fetchone()


async def fetch_all(conn: Conn, query: str, params: Any = ()) -> list[dict[str, Any]]:
    cur = await conn.execute(query, params)
    return await cur.fetchall()


async def caller_role(conn: Conn, principal: Principal, pool_id: str) -> int:
    row = await fetch_one(conn, ROLE_SQL, {"pool": pool_id, "ids": model.identities(principal)})
    return int(row["role"]) if row else 0


async def lock_membership(conn: Conn, principal: Principal, pool_id: str) -> int:
    """The caller's role, with the membership rows behind it share-locked until
    commit (a concurrent removal waits for this write). Callers lock the pool row
    first."""
    ids = model.identities(principal)
    rows = await fetch_all(
        conn,
        "SELECT pm.principal, pm.role FROM pool_members pm"
        " WHERE pm.pool_id = %(pool)s AND (pm.principal = ANY(%(ids)s)"
        " OR pm.principal LIKE 'groups/%%') ORDER BY pm.id FOR SHARE",
        {"pool": pool_id, "ids": ids},
    )
    direct = [r["role"] for r in rows if r["principal"] in ids]
    groups = {
        r["principal"][len("groups/") :]: r["role"]
        for r in rows
        if r["principal"].startswith("groups/")
    }
    via: list[int] = []
    if groups:
        found = await fetch_all(
            conn,
            "SELECT group_id FROM principal_group_members"
            " WHERE group_id = ANY(%s) AND principal = ANY(%s) ORDER BY group_id, principal"
            " FOR SHARE",
            (list(groups), ids),
        )
        via = [groups[r["group_id"]] for r in found]
    return int(max([0, *direct, *via]))


async def pool_row(conn: Conn, pool_id: str, lock: str = "") -> dict[str, Any] | None:
    if lock:
        # Lock first (the counts' subqueries cannot be locked).
        locked = await fetch_one(conn, f"SELECT id FROM pools WHERE id = %s FOR {lock}", (pool_id,))
        if locked is None:
            return None
    return await fetch_one(conn, POOL_SQL + " WHERE p.id = %s", (pool_id,))


async def lock_audit(conn: Conn) -> None:
    """Takes the tenant's audit counter now (see the lock order)."""
    await conn.execute("SELECT audit_seq FROM tenant_state FOR UPDATE")


async def publisher_trust(conn: Conn, pool_id: str, principal: str) -> float:
    row = await fetch_one(
        conn,
        f"SELECT {TRUST_COLUMNS} FROM pools pl LEFT JOIN pool_trust t"
        " ON t.pool_id = pl.id AND t.principal = %s WHERE pl.id = %s",
        (principal, pool_id),
    )
    return float(row["trust_score"]) if row else model.DEFAULT_INITIAL_TRUST


async def append_membership_audit(
    conn: Conn,
    principal: Principal,
    reason: str,
    key: RequestKey | None,
    details: dict[str, str],
) -> None:
    """An AUDIT_ACTION_MEMBERSHIP entry (pools and their members, groups and theirs)."""
    await store.append_audit(
        conn,
        principal.tenant_id,
        [
            AuditDraft(
                AuditAction.MEMBERSHIP,
                None,
                "",
                None,
                None,
                principal.actor,
                reason,
                key.request_id if key else "",
                details,
            )
        ],
        entries=False,
    )


def privacy_findings(content: str, source: str) -> tuple[str, ...]:
    """What the privacy boundary finds in a memory without any space allowance."""
    boundary = default_boundary()
    found: list[str] = []
    for text, field in ((content, "content"), (source, "source")):
        if text:
            found += [
                f"{f.category.lower()} ({f.type})" for f in boundary.screen(text, field).findings
            ]
    return tuple(found)


class PoolAccess:
    """What every pool use case shares: the database, idempotent writes and the
    caller's access to a pool."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- idempotency -----------------------------------------------------------

    async def _replay(
        self, conn: Conn, tenant: str, key: RequestKey | None, cls: type[M]
    ) -> M | None:
        if key is None:
            return None
        # Checked here, before the id becomes a key of the idempotency index.
        if len(key.request_id) > MAX_REQUEST_ID:
            raise InvalidArgument.field("request_id", f"at most {MAX_REQUEST_ID} characters")
        first = await store.claim_request(conn, tenant, key.request_id, key.method, key.fingerprint)
        if first is None:
            return None
        if first["method"] != key.method or first["fingerprint"] != key.fingerprint:
            raise InvalidArgument.field("request_id", "was already used for a different request")
        result = first["result"] or {}
        out = cls()
        out.ParseFromString(base64.b64decode(result.get("pb", "")))
        return out

    async def _remember(self, conn: Conn, key: RequestKey | None, message: Message) -> None:
        if key is not None:
            await store.save_request_result(
                conn, key.request_id, {"pb": base64.b64encode(message.SerializeToString()).decode()}
            )

    async def _write(
        self,
        principal: Principal,
        key: RequestKey | None,
        cls: type[M],
        write: Callable[[Conn], Awaitable[M]],
    ) -> M:
        """One write in its own transaction, idempotent on the request id: the
        result stored by an earlier call with the same id, else `write`'s, stored
        with it for a retry.

        Only the API key that made the first call gets its result again: the
        caller's role is checked inside `write`, which a replay skips, so the same
        id and body from anyone else is a different request (INVALID_ARGUMENT on
        `request_id`), never a non-member reading an owner's publication."""
        tenant = principal.tenant_id
        if key is not None:
            caller = f"{key.fingerprint}\x1f{principal.key_id}".encode()
            key = replace(key, fingerprint=hashlib.sha256(caller).hexdigest())
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key, cls)
            if replay is not None:
                return replay
            out = await write(conn)
            await self._remember(conn, key, out)
            return out

    # -- access ----------------------------------------------------------------

    @staticmethod
    def _visible(
        pool: dict[str, Any] | None, role: int, principal: Principal, pool_id: str, *, manage: bool
    ) -> dict[str, Any]:
        """The pool, if the caller may see it: a member, or a tenant administrator
        for the RPCs that manage pools. NOT_FOUND otherwise."""
        if pool is None or not (role > 0 or (manage and principal.has(SCOPE_ADMIN))):
            raise NotFound("pool", model.pool_name(pool_id))
        return pool

    @staticmethod
    def _require(
        role: int, needed: Role, principal: Principal, what: str, *, admin_ok: bool
    ) -> None:
        if admin_ok and principal.has(SCOPE_ADMIN):
            return
        scope = SCOPE_READ if needed == Role.READER else SCOPE_WRITE
        if not principal.has(scope):
            raise PermissionDenied(f"this API key lacks the {scope!r} scope", scope)
        if role < needed:
            raise PermissionDenied(
                f"{what} needs the {needed.name} role in the pool; the caller is "
                f"{role_name(role) if role else 'not a member'}"
            )

    async def _authorise(
        self,
        conn: Conn,
        principal: Principal,
        pool_id: str,
        needed: Role,
        what: str,
        *,
        manage: bool,
        lock: str = "",
    ) -> tuple[dict[str, Any], int]:
        """The pool (locked FOR `lock`, if given) and the caller's role in it, once
        the caller may do `what`: NOT_FOUND for a non-member (a tenant administrator
        passes for the RPCs that `manage` pools), PERMISSION_DENIED below `needed`."""
        role = await caller_role(conn, principal, pool_id)
        pool = self._visible(
            await pool_row(conn, pool_id, lock=lock), role, principal, pool_id, manage=manage
        )
        self._require(role, needed, principal, what, admin_ok=manage)
        return pool, role

    async def _authorise_locked(
        self, conn: Conn, principal: Principal, pool_id: str, needed: Role, what: str
    ) -> tuple[dict[str, Any], int]:
        """`_authorise` for the writes that rely on the membership: the pool row
        share-locked first (DeletePool's order), then the membership rows behind
        the role, until commit; members only."""
        locked_pool = await pool_row(conn, pool_id, lock="SHARE")
        role = await lock_membership(conn, principal, pool_id)
        pool = self._visible(locked_pool, role, principal, pool_id, manage=False)
        self._require(role, needed, principal, what, admin_ok=False)
        return pool, role


def finding_list(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [f.to_json() for f in findings]
