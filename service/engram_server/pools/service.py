"""PoolService's unary RPCs: pools, members, publishing through the gate, trust.

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
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from engram.v1 import pool_pb2
from google.protobuf.message import Message
from psycopg.types.json import Jsonb

from engram_server.api import convert
from engram_server.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Violations,
)
from engram_server.lifecycle.model import AuditAction, memory_name
from engram_server.lifecycle.validation import MAX_REQUEST_ID
from engram_server.platform.principal import SCOPE_ADMIN, SCOPE_READ, SCOPE_WRITE, Principal
from engram_server.pools import model
from engram_server.pools.model import Finding, Gate, GateInput, Role
from engram_server.privacy import default_boundary
from engram_server.services.lifecycle import RequestKey
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.store import memories as store
from engram_server.store.memories import AuditDraft
from engram_server.store.postgres import Conn, Database

M = TypeVar("M", bound=Message)

POOL_CHANNEL = "engram_pool"

_ROLE_NAMES = {1: "READER", 2: "WRITER", 3: "OWNER"}
_LIVE = ("PUBLISHED", "PENDING_REVIEW")

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


class PoolOperations:
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

    # -- pools -----------------------------------------------------------------

    async def create_pool(
        self,
        principal: Principal,
        pool_id: str,
        pool: pool_pb2.Pool,
        key: RequestKey | None,
    ) -> pool_pb2.Pool:
        v = Violations()
        if pool_id and not model.POOL_ID.match(pool_id):
            v.add("pool_id", "1-63 characters of [a-z0-9-], starting with a letter")
        if not pool.display_name.strip():
            v.add("pool.display_name", "required")
        values = self._pool_values(pool, v, "pool", set(_UPDATABLE))
        v.raise_if_any()
        tenant = principal.tenant_id
        pool_id = pool_id or str(uuid.uuid4())

        async def write(conn: Conn) -> pool_pb2.Pool:
            cur = await conn.execute(
                "INSERT INTO pools (tenant_id, id, display_name, description, gate,"
                " default_visibility, initial_trust, quick_window_seconds, labels, creator,"
                " create_request_id)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id",
                (
                    tenant,
                    pool_id,
                    values["display_name"],
                    values["description"],
                    Jsonb(values["gate"]),
                    values["default_visibility"],
                    values["initial_trust"],
                    values["quick_window_seconds"],
                    Jsonb(values["labels"]),
                    principal.actor,
                    key.request_id if key else None,
                ),
            )
            if await cur.fetchone() is None:
                raise AlreadyExists("pool", model.pool_name(pool_id))
            await conn.execute(
                "INSERT INTO pool_members (tenant_id, pool_id, id, principal, role, added_by)"
                " VALUES (%s, %s, %s, %s, 3, %s)",
                (
                    tenant,
                    pool_id,
                    model.member_id(principal.actor),
                    principal.actor,
                    principal.actor,
                ),
            )
            await conn.execute(
                "INSERT INTO pool_state (tenant_id, pool_id) VALUES (%s, %s)", (tenant, pool_id)
            )
            await self._audit_membership(
                conn, tenant, principal, pool_id, "pool created", {"event": "pool_created"}, key
            )
            row = await pool_row(conn, pool_id)
            assert row is not None
            out = pool_to_proto(row, Role.OWNER)
            return out

        return await self._write(principal, key, pool_pb2.Pool, write)

    def _pool_values(
        self, pool: pool_pb2.Pool, v: Violations, path: str, fields: set[str]
    ) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if "display_name" in fields:
            if len(pool.display_name) > 256:
                v.add(f"{path}.display_name", "at most 256 characters")
            values["display_name"] = pool.display_name.strip()
        if "description" in fields:
            if len(pool.description) > model.MAX_TEXT:
                v.add(f"{path}.description", f"at most {model.MAX_TEXT} characters")
            values["description"] = pool.description
        if "gate" in fields:
            values["gate"] = gate_from_proto(pool.gate, f"{path}.gate", v).to_json()
        if "default_visibility" in fields:
            values["default_visibility"] = (
                visibility_from_proto(pool.default_visibility, f"{path}.default_visibility", v)
                or "POOL"
            )
        if "initial_trust" in fields:
            from engram_server.lifecycle.validation import check_unit_interval

            check_unit_interval(v, f"{path}.initial_trust", pool.initial_trust)
            values["initial_trust"] = pool.initial_trust or model.DEFAULT_INITIAL_TRUST
        if "quick_invalidation_window" in fields:
            window = pool.quick_invalidation_window
            seconds = window.seconds + window.nanos / 1e9
            if seconds < 0 or seconds > 365 * 86400:
                v.add(f"{path}.quick_invalidation_window", "must be between 0 and 365 days")
            values["quick_window_seconds"] = seconds or model.DEFAULT_QUICK_WINDOW_SECONDS
        if "labels" in fields:
            if len(pool.labels) > model.MAX_LABELS:
                v.add(f"{path}.labels", f"at most {model.MAX_LABELS} labels")
            for k, val in pool.labels.items():
                if not k or len(k) > 63 or len(val) > 256:
                    v.add(f"{path}.labels", "keys 1-63 characters, values at most 256")
                    break
            values["labels"] = dict(pool.labels)
        return values

    async def get_pool(self, principal: Principal, pool_id: str) -> pool_pb2.Pool:
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            row, role = await self._authorise(
                conn, principal, pool_id, Role.READER, "GetPool", manage=True
            )
            return pool_to_proto(row, role)

    async def list_pools(
        self, principal: Principal, requested_size: int, token: str
    ) -> pool_pb2.ListPoolsResponse:
        size = page_size(requested_size)
        admin = principal.has(SCOPE_ADMIN)
        fingerprint = filter_fingerprint("pools", principal.key_id, admin)
        position = decode_token(token, fingerprint)
        after = str(position.get("a", "")) if position else ""
        ids = model.identities(principal)
        membership = (
            ""
            if admin
            else " AND EXISTS (SELECT 1 FROM pool_members pm WHERE pm.pool_id = p.id"
            " AND (pm.principal = ANY(%(ids)s) OR pm.principal IN (SELECT 'groups/' || g.group_id"
            " FROM principal_group_members g WHERE g.principal = ANY(%(ids)s))))"
        )
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                POOL_SQL.replace(
                    "  FROM pools p", f", {LISTED_ROLE_SQL} AS caller_role FROM pools p"
                )
                + f" WHERE p.id > %(after)s{membership} ORDER BY p.id LIMIT %(n)s",
                {"after": after, "ids": ids, "n": size + 1},
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            next_token = encode_token({"a": rows[-1]["id"]}, fingerprint)
        return pool_pb2.ListPoolsResponse(
            pools=[pool_to_proto(r, int(r["caller_role"])) for r in rows],
            next_page_token=next_token,
        )

    async def update_pool(
        self,
        principal: Principal,
        pool: pool_pb2.Pool,
        paths: Sequence[str],
        key: RequestKey | None,
    ) -> pool_pb2.Pool:
        pool_id = model.parse_pool_name(pool.name, "pool.name")
        v = Violations()
        if not paths:
            v.add("update_mask", "required and non-empty")
        unknown = [p for p in paths if p not in _UPDATABLE]
        if unknown:
            v.add(
                "update_mask",
                f"cannot update {', '.join(unknown)}; updatable: {', '.join(_UPDATABLE)}",
            )
        if "display_name" in paths and not pool.display_name.strip():
            v.add("pool.display_name", "must not be empty")
        values = self._pool_values(pool, v, "pool", set(paths) & set(_UPDATABLE))
        v.raise_if_any()
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.Pool:
            current, role = await self._authorise(
                conn, principal, pool_id, Role.OWNER, "UpdatePool", manage=True, lock="UPDATE"
            )
            if pool.etag and pool.etag != etag_of(current["revision"]):
                raise Aborted(f"pool {pool.name} changed since etag {pool.etag}; read it again")
            assignments = ", ".join(f"{column} = %s" for column in values)
            params = [Jsonb(x) if isinstance(x, dict) else x for x in values.values()]
            await conn.execute(
                f"UPDATE pools SET {assignments}, revision = revision + 1, update_time = now()"
                " WHERE id = %s",
                (*params, pool_id),
            )
            await self._audit_membership(
                conn,
                tenant,
                principal,
                pool_id,
                "pool updated",
                {"event": "pool_updated", "fields": ",".join(sorted(values))},
                key,
            )
            row = await pool_row(conn, pool_id)
            assert row is not None
            out = pool_to_proto(row, role)
            return out

        return await self._write(principal, key, pool_pb2.Pool, write)

    async def delete_pool(
        self, principal: Principal, pool_id: str, etag: str, key: RequestKey | None
    ) -> None:
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.Pool:
            current, _ = await self._authorise(
                conn, principal, pool_id, Role.OWNER, "DeletePool", manage=True, lock="UPDATE"
            )
            if etag and etag != etag_of(current["revision"]):
                raise Aborted(f"pool pools/{pool_id} changed since etag {etag}; read it again")
            await self._audit_membership(
                conn, tenant, principal, pool_id, "pool deleted", {"event": "pool_deleted"}, key
            )
            shared = await fetch_all(
                conn,
                "SELECT DISTINCT memory_id FROM publications"
                " WHERE pool_id = %s AND state = 'PUBLISHED'",
                (pool_id,),
            )
            for table in (
                "publications",
                "pool_slots",
                "pool_events",
                "pool_trust",
                "pool_state",
                "pool_members",
            ):
                await conn.execute(f"DELETE FROM {table} WHERE pool_id = %s", (pool_id,))
            await conn.execute("DELETE FROM pools WHERE id = %s", (pool_id,))
            await store.enqueue_outbox(conn, tenant, [r["memory_id"] for r in shared], "upsert")
            await conn.execute("SELECT pg_notify(%s, %s)", (POOL_CHANNEL, f"{tenant}/{pool_id}"))
            return pool_pb2.Pool()

        await self._write(principal, key, pool_pb2.Pool, write)

    # -- members ---------------------------------------------------------------

    async def _audit_membership(
        self,
        conn: Conn,
        tenant: str,
        principal: Principal,
        pool_id: str,
        reason: str,
        details: dict[str, str],
        key: RequestKey | None,
    ) -> None:
        await append_membership_audit(
            conn, principal, reason, key, {"pool": model.pool_name(pool_id), **details}
        )

    async def _owners_locked(self, conn: Conn, pool_id: str) -> list[dict[str, Any]]:
        return await fetch_all(
            conn,
            "SELECT id, principal FROM pool_members WHERE pool_id = %s AND role = 3"
            " ORDER BY id FOR UPDATE",
            (pool_id,),
        )

    async def add_member(
        self,
        principal: Principal,
        pool_id: str,
        member: pool_pb2.PoolMember,
        key: RequestKey | None,
    ) -> pool_pb2.PoolMember:
        v = Violations()
        model.check_principal(v, "member.principal", member.principal, groups=True)
        role = member.role
        if role not in (1, 2, 3):
            v.add("member.role", "required: READER, WRITER or OWNER")
        v.raise_if_any()
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.PoolMember:
            await self._authorise(
                conn, principal, pool_id, Role.OWNER, "AddPoolMember", manage=True, lock="SHARE"
            )
            if member.principal.startswith("groups/"):
                group = await fetch_one(
                    conn,
                    "SELECT id FROM principal_groups WHERE id = %s",
                    (member.principal[len("groups/") :],),
                )
                if group is None:
                    raise NotFound("group", member.principal)
            owners = await self._owners_locked(conn, pool_id)
            if role != 3 and [o["principal"] for o in owners] == [member.principal]:
                raise FailedPrecondition(
                    f"{member.principal} is the pool's last owner; add another owner first"
                )
            row = await fetch_one(
                conn,
                "INSERT INTO pool_members AS pm (tenant_id, pool_id, id, principal, role, added_by)"
                " VALUES (%s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE"
                " SET role = EXCLUDED.role, added_by = EXCLUDED.added_by, update_time = now()"
                " RETURNING *",
                (
                    tenant,
                    pool_id,
                    model.member_id(member.principal),
                    member.principal,
                    role,
                    principal.actor,
                ),
            )
            assert row is not None
            await self._audit_membership(
                conn,
                tenant,
                principal,
                pool_id,
                "member added",
                {"event": "member_added", "principal": member.principal, "role": role_name(role)},
                key,
            )
            await conn.execute("SELECT pg_notify(%s, %s)", (POOL_CHANNEL, f"{tenant}/{pool_id}"))
            trust = await publisher_trust(conn, pool_id, member.principal)
            out = member_to_proto({**row, "trust_score": trust})
            return out

        return await self._write(principal, key, pool_pb2.PoolMember, write)

    async def remove_member(
        self, principal: Principal, pool_id: str, member: str, key: RequestKey | None
    ) -> None:
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.PoolMember:
            await self._authorise(
                conn, principal, pool_id, Role.OWNER, "RemovePoolMember", manage=True, lock="SHARE"
            )
            owners = await self._owners_locked(conn, pool_id)
            target = await fetch_one(
                conn,
                "SELECT * FROM pool_members WHERE pool_id = %s AND id = %s FOR UPDATE",
                (pool_id, member),
            )
            if target is None:
                raise NotFound("pool member", model.member_name(pool_id, member))
            if target["role"] == 3 and len(owners) <= 1:
                raise FailedPrecondition(
                    f"{target['principal']} is the pool's last owner; a pool always keeps one"
                )
            await conn.execute(
                "DELETE FROM pool_members WHERE pool_id = %s AND id = %s", (pool_id, member)
            )
            await self._audit_membership(
                conn,
                tenant,
                principal,
                pool_id,
                "member removed",
                {"event": "member_removed", "principal": target["principal"]},
                key,
            )
            await conn.execute("SELECT pg_notify(%s, %s)", (POOL_CHANNEL, f"{tenant}/{pool_id}"))
            return pool_pb2.PoolMember()

        await self._write(principal, key, pool_pb2.PoolMember, write)

    async def list_members(
        self,
        principal: Principal,
        pool_id: str,
        who: str,
        role: int,
        requested_size: int,
        token: str,
    ) -> pool_pb2.ListPoolMembersResponse:
        size = page_size(requested_size)
        v = Violations()
        if role not in (0, 1, 2, 3):
            v.add("role", f"unknown enum value {role}")
        v.raise_if_any()
        fingerprint = filter_fingerprint("pool_members", pool_id, who, role)
        position = decode_token(token, fingerprint)
        after = str(position.get("a", "")) if position else ""
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            await self._authorise(
                conn, principal, pool_id, Role.READER, "ListPoolMembers", manage=True
            )
            rows = await fetch_all(
                conn,
                f"SELECT pm.*, {TRUST_COLUMNS} FROM pool_members pm"
                " JOIN pools pl ON pl.id = pm.pool_id"
                " LEFT JOIN pool_trust t ON t.pool_id = pm.pool_id AND t.principal = pm.principal"
                " WHERE pm.pool_id = %(pool)s AND pm.principal > %(after)s"
                " AND (%(who)s = '' OR pm.principal = %(who)s)"
                " AND (%(role)s = 0 OR pm.role = %(role)s)"
                " ORDER BY pm.principal LIMIT %(n)s",
                {"pool": pool_id, "after": after, "who": who, "role": role, "n": size + 1},
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            next_token = encode_token({"a": rows[-1]["principal"]}, fingerprint)
        return pool_pb2.ListPoolMembersResponse(
            members=[member_to_proto(r) for r in rows], next_page_token=next_token
        )

    # -- publishing ------------------------------------------------------------

    async def _after_published(
        self, conn: Conn, tenant: str, pool_id: str, pub: dict[str, Any]
    ) -> None:
        """A publication became PUBLISHED: move its slot, tell its topic, count it."""
        row = await fetch_one(
            conn,
            "SELECT engram_pool_slot_sync(%s, %s, %s) AS displaced",
            (tenant, pool_id, pub["slot"]),
        )
        displaced = row["displaced"] if row else None
        if displaced is not None and displaced != pub["id"]:
            await conn.execute(
                "SELECT engram_pool_topic_event(%s, %s, %s, 'REPLACED')",
                (tenant, pool_id, displaced),
            )
        await conn.execute(
            "SELECT engram_pool_topic_event(%s, %s, %s, 'PUBLISHED')", (tenant, pool_id, pub["id"])
        )
        await conn.execute(
            "INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, published_count)"
            " VALUES (%s, %s, %s, 1) ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE"
            " SET published_count = t.published_count + 1, update_time = now()",
            (tenant, pool_id, pub["publisher"]),
        )
        await store.enqueue_outbox(conn, tenant, [pub["memory_id"]], "upsert")

    async def _audit_publication(
        self,
        conn: Conn,
        tenant: str,
        principal: Principal,
        memory_id: uuid.UUID,
        space: str,
        pool_id: str,
        publication: str,
        event: str,
        reason: str,
        key: RequestKey | None,
    ) -> None:
        details = {"pool": model.pool_name(pool_id), "event": event}
        if publication:
            details["publication"] = publication
        await store.append_audit(
            conn,
            tenant,
            [
                AuditDraft(
                    AuditAction.PUBLICATION,
                    memory_id,
                    space,
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

    async def publish(
        self,
        principal: Principal,
        pool_id: str,
        memory_id: uuid.UUID,
        topic: str,
        visibility: str,
        key: RequestKey | None,
    ) -> pool_pb2.PublishMemoryResponse:
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.PublishMemoryResponse:
            mrow = await fetch_one(conn, store.GET_MEMORY_SQL + " FOR SHARE", (memory_id,))
            # The pool row before the membership rows (DeletePool's order).
            pool, role = await self._authorise_locked(
                conn, principal, pool_id, Role.WRITER, "PublishMemory"
            )
            if not principal.has(SCOPE_READ):
                raise PermissionDenied(
                    "publishing needs the 'read' scope: only memories the caller could read",
                    SCOPE_READ,
                )
            if mrow is None:
                raise NotFound("memory", memory_name(memory_id))
            memory = store.row_to_memory(mrow)
            chosen = visibility or pool["default_visibility"]
            if chosen == "TENANT" and role < Role.OWNER:
                raise PermissionDenied("publishing with TENANT visibility needs the OWNER role")
            await lock_audit(conn)
            existing = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND memory_id = %s"
                " AND state IN ('PUBLISHED', 'PENDING_REVIEW')",
                (pool_id, memory_id),
            )
            if existing is not None:
                out = pool_pb2.PublishMemoryResponse(
                    outcome=pool_pb2.PUBLISH_OUTCOME_ALREADY_PUBLISHED,
                    publication=publication_to_proto(existing),
                )
                return out
            trust = await publisher_trust(conn, pool_id, principal.actor)
            findings = model.evaluate_gate(
                Gate.from_json(pool["gate"]),
                GateInput(
                    status=memory.status.value,
                    kind=memory.kind.value,
                    confidence=memory.confidence,
                    importance=memory.importance,
                    evidence_level=memory.evidence_level.value,
                    trust=trust,
                    privacy=privacy_findings(memory.content, memory.source),
                ),
            )
            found = [f.to_json() for f in findings]
            if any(f.refuses for f in findings):
                await self._audit_publication(
                    conn,
                    tenant,
                    principal,
                    memory.id,
                    memory.space,
                    pool_id,
                    "",
                    "refused",
                    "; ".join(f.message for f in findings if f.refuses),
                    key,
                )
                out = pool_pb2.PublishMemoryResponse(
                    outcome=pool_pb2.PUBLISH_OUTCOME_REFUSED, findings=findings_to_proto(found)
                )
                return out
            state = "PENDING_REVIEW" if findings else "PUBLISHED"
            publication_id = uuid.uuid4()
            pub = await fetch_one(
                conn,
                "INSERT INTO publications (tenant_id, pool_id, id, memory_id, publisher, state,"
                " visibility, topic, slot_key, slot, utility, findings, published_time)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
                " CASE WHEN %s THEN clock_timestamp() END) RETURNING *",
                (
                    tenant,
                    pool_id,
                    publication_id,
                    memory.id,
                    principal.actor,
                    state,
                    chosen,
                    topic or memory.topic,
                    memory.slot_key,
                    memory.slot_key or memory_name(memory.id),
                    model.utility(memory.confidence, memory.importance),
                    Jsonb(found),
                    state == "PUBLISHED",
                ),
            )
            assert pub is not None
            if state == "PUBLISHED":
                await self._after_published(conn, tenant, pool_id, pub)
            name = model.publication_name(pool_id, publication_id)
            await self._audit_publication(
                conn,
                tenant,
                principal,
                memory.id,
                memory.space,
                pool_id,
                name,
                state.lower(),
                "; ".join(f.message for f in findings),
                key,
            )
            out = pool_pb2.PublishMemoryResponse(
                outcome=(
                    pool_pb2.PUBLISH_OUTCOME_PUBLISHED
                    if state == "PUBLISHED"
                    else pool_pb2.PUBLISH_OUTCOME_HELD_FOR_REVIEW
                ),
                publication=publication_to_proto(pub),
                findings=findings_to_proto(found),
            )
            return out

        return await self._write(principal, key, pool_pb2.PublishMemoryResponse, write)

    async def unpublish(
        self,
        principal: Principal,
        pool_id: str,
        publication_id: uuid.UUID,
        reason: str,
        key: RequestKey | None,
    ) -> pool_pb2.Publication:
        if len(reason) > model.MAX_TEXT:
            raise InvalidArgument.field("reason", f"at most {model.MAX_TEXT} characters")
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.Publication:
            _, role = await self._authorise_locked(
                conn, principal, pool_id, Role.READER, "UnpublishMemory"
            )
            await lock_audit(conn)
            pub = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND id = %s FOR UPDATE",
                (pool_id, publication_id),
            )
            name = model.publication_name(pool_id, publication_id)
            if pub is None or not self._can_see(pub, role, principal):
                raise NotFound("publication", name)
            mine = pub["publisher"] in model.identities(principal)
            if not mine and role < Role.OWNER:
                raise PermissionDenied("only its publisher or an owner may withdraw a publication")
            if not mine and not principal.has(SCOPE_WRITE):
                raise PermissionDenied("this API key lacks the 'write' scope", SCOPE_WRITE)
            if pub["state"] not in _LIVE:
                raise FailedPrecondition(
                    f"publication {name} is {pub['state']}; only live ones can be withdrawn"
                )
            updated = await fetch_one(
                conn,
                "UPDATE publications SET state = 'WITHDRAWN', withdraw_reason = %s,"
                " update_time = clock_timestamp() WHERE pool_id = %s AND id = %s RETURNING *",
                (reason or "withdrawn", pool_id, publication_id),
            )
            assert updated is not None
            if pub["state"] == "PUBLISHED":
                await conn.execute(
                    "SELECT engram_pool_slot_sync(%s, %s, %s)", (tenant, pool_id, pub["slot"])
                )
                await conn.execute(
                    "SELECT engram_pool_topic_event(%s, %s, %s, 'WITHDRAWN')",
                    (tenant, pool_id, publication_id),
                )
                await store.enqueue_outbox(conn, tenant, [pub["memory_id"]], "upsert")
            mrow = await fetch_one(
                conn, "SELECT space FROM memories WHERE id = %s", (pub["memory_id"],)
            )
            await self._audit_publication(
                conn,
                tenant,
                principal,
                pub["memory_id"],
                mrow["space"] if mrow else "",
                pool_id,
                name,
                "withdrawn",
                reason,
                key,
            )
            out = publication_to_proto(updated)
            return out

        return await self._write(principal, key, pool_pb2.Publication, write)

    async def review(
        self,
        principal: Principal,
        pool_id: str,
        publication_id: uuid.UUID,
        approve: bool,
        note: str,
        key: RequestKey | None,
    ) -> pool_pb2.Publication:
        if len(note) > model.MAX_TEXT:
            raise InvalidArgument.field("note", f"at most {model.MAX_TEXT} characters")
        tenant = principal.tenant_id
        name = model.publication_name(pool_id, publication_id)

        async def write(conn: Conn) -> pool_pb2.Publication:
            peek = await fetch_one(
                conn,
                "SELECT memory_id FROM publications WHERE pool_id = %s AND id = %s",
                (pool_id, publication_id),
            )
            if peek is not None:  # memory rows first (lock order)
                await conn.execute(store.GET_MEMORY_SQL + " FOR SHARE", (peek["memory_id"],))
            await self._authorise_locked(conn, principal, pool_id, Role.OWNER, "ReviewPublication")
            await lock_audit(conn)
            pub = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND id = %s FOR UPDATE",
                (pool_id, publication_id),
            )
            if pub is None:
                raise NotFound("publication", name)
            if pub["state"] != "PENDING_REVIEW":
                raise FailedPrecondition(
                    f"publication {name} is {pub['state']}, not PENDING_REVIEW;"
                    " only held publications are reviewed"
                )
            mrow = await fetch_one(
                conn, "SELECT status, space FROM memories WHERE id = %s", (pub["memory_id"],)
            )
            if approve and (mrow is None or mrow["status"] != "ACTIVE"):
                raise FailedPrecondition(f"the memory of {name} is no longer ACTIVE")
            updated = await fetch_one(
                conn,
                "UPDATE publications SET state = %s, reviewer = %s, review_note = %s,"
                " update_time = clock_timestamp(),"
                " published_time = CASE WHEN %s THEN clock_timestamp() ELSE published_time END"
                " WHERE pool_id = %s AND id = %s RETURNING *",
                (
                    "PUBLISHED" if approve else "REJECTED",
                    principal.actor,
                    note,
                    approve,
                    pool_id,
                    publication_id,
                ),
            )
            assert updated is not None
            if approve:
                await self._after_published(conn, tenant, pool_id, updated)
            await self._audit_publication(
                conn,
                tenant,
                principal,
                pub["memory_id"],
                mrow["space"] if mrow else "",
                pool_id,
                name,
                "approved" if approve else "rejected",
                note,
                key,
            )
            out = publication_to_proto(updated)
            return out

        return await self._write(principal, key, pool_pb2.Publication, write)

    @staticmethod
    def _can_see(pub: dict[str, Any], role: int, principal: Principal) -> bool:
        """Whether a caller with `role` may read this publication."""
        if pub["visibility"] not in model.visible_to(role):
            return False
        if pub["state"] in ("PENDING_REVIEW", "REJECTED"):
            return role >= Role.OWNER or pub["publisher"] in model.identities(principal)
        if role == 0:  # a TENANT publication read by a non-member: only while live
            return bool(pub["state"] == "PUBLISHED")
        return True

    async def get_publication(
        self, principal: Principal, pool_id: str, publication_id: uuid.UUID
    ) -> pool_pb2.Publication:
        """Members within the publication's visibility; anyone of the tenant with
        `read` for a live TENANT publication. NOT_FOUND for everyone else."""
        name = model.publication_name(pool_id, publication_id)
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            role = await caller_role(conn, principal, pool_id)
            pub = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND id = %s",
                (pool_id, publication_id),
            )
        if not principal.has(SCOPE_READ) or pub is None or not self._can_see(pub, role, principal):
            raise NotFound("publication", name)
        return publication_to_proto(pub)

    async def list_publications(
        self,
        principal: Principal,
        pool_id: str,
        states: Sequence[str],
        topic: str,
        publisher: str,
        memory_id: uuid.UUID | None,
        requested_size: int,
        token: str,
    ) -> pool_pb2.ListPublicationsResponse:
        size = page_size(requested_size)
        wanted = list(states) or list(_LIVE)
        fingerprint = filter_fingerprint(
            "publications", pool_id, sorted(wanted), topic, publisher, str(memory_id or "")
        )
        position = decode_token(token, fingerprint)
        after: tuple[datetime, uuid.UUID] | None = None
        if position is not None:
            try:
                after = (datetime.fromisoformat(position["t"]), uuid.UUID(position["i"]))
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            _, role = await self._authorise(
                conn, principal, pool_id, Role.READER, "ListPublications", manage=False
            )
            see_all_held = role >= Role.OWNER
            rows = await fetch_all(
                conn,
                "SELECT * FROM publications WHERE pool_id = %(pool)s AND state = ANY(%(states)s)"
                " AND visibility = ANY(%(vis)s)"
                " AND (%(all_held)s OR state NOT IN ('PENDING_REVIEW', 'REJECTED')"
                "      OR publisher = ANY(%(ids)s))"
                " AND (%(topic)s = '' OR topic = %(topic)s)"
                " AND (%(publisher)s = '' OR publisher = %(publisher)s)"
                " AND (%(memory)s::uuid IS NULL OR memory_id = %(memory)s::uuid)"
                " AND (%(after_t)s::timestamptz IS NULL"
                "      OR (create_time, id) < (%(after_t)s, %(after_i)s::uuid))"
                " ORDER BY create_time DESC, id DESC LIMIT %(n)s",
                {
                    "pool": pool_id,
                    "states": wanted,
                    "vis": list(model.visible_to(role)),
                    "all_held": see_all_held,
                    "ids": model.identities(principal),
                    "topic": topic,
                    "publisher": publisher,
                    "memory": memory_id,
                    "after_t": after[0] if after else None,
                    "after_i": after[1] if after else None,
                    "n": size + 1,
                },
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            last = rows[-1]
            next_token = encode_token(
                {"t": last["create_time"].isoformat(), "i": str(last["id"])}, fingerprint
            )
        return pool_pb2.ListPublicationsResponse(
            publications=[publication_to_proto(r) for r in rows], next_page_token=next_token
        )

    # -- trust -----------------------------------------------------------------

    async def get_trust(
        self, principal: Principal, pool_id: str, member: str
    ) -> pool_pb2.AgentTrust:
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            await self._authorise(
                conn, principal, pool_id, Role.READER, "GetAgentTrust", manage=True
            )
            rows = await fetch_all(
                conn,
                f"SELECT x.principal, {TRUST_COLUMNS} FROM ("
                " SELECT principal FROM pool_members WHERE pool_id = %(pool)s AND id = %(member)s"
                " UNION SELECT principal FROM pool_trust WHERE pool_id = %(pool)s) x"
                " JOIN pools pl ON pl.id = %(pool)s"
                " LEFT JOIN pool_trust t ON t.pool_id = %(pool)s AND t.principal = x.principal",
                {"pool": pool_id, "member": member},
            )
        for row in rows:
            if model.member_id(row["principal"]) == member:
                return trust_to_proto(pool_id, row)
        raise NotFound("agent trust", model.member_name(pool_id, member) + "/trust")

    async def list_trusts(
        self, principal: Principal, pool_id: str, requested_size: int, token: str
    ) -> pool_pb2.ListAgentTrustsResponse:
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("trusts", pool_id)
        position = decode_token(token, fingerprint)
        after_score: float | None = None
        after_principal = ""
        if position is not None:
            try:
                after_score = float(position["s"])
                after_principal = str(position["p"])
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            await self._authorise(
                conn, principal, pool_id, Role.READER, "ListAgentTrusts", manage=True
            )
            rows = await fetch_all(
                conn,
                f"SELECT * FROM (SELECT t.principal, {TRUST_COLUMNS} FROM pool_trust t"
                " JOIN pools pl ON pl.id = t.pool_id WHERE t.pool_id = %(pool)s) r"
                " WHERE %(s)s::float8 IS NULL OR r.trust_score < %(s)s"
                "  OR (r.trust_score = %(s)s AND r.principal > %(p)s)"
                " ORDER BY r.trust_score DESC, r.principal LIMIT %(n)s",
                {"pool": pool_id, "s": after_score, "p": after_principal, "n": size + 1},
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            next_token = encode_token(
                {"s": repr(float(rows[-1]["trust_score"])), "p": rows[-1]["principal"]}, fingerprint
            )
        return pool_pb2.ListAgentTrustsResponse(
            agent_trusts=[trust_to_proto(pool_id, r) for r in rows], next_page_token=next_token
        )

    # -- topics ----------------------------------------------------------------

    async def list_topics(
        self, principal: Principal, pool_id: str, requested_size: int, token: str
    ) -> pool_pb2.ListTopicsResponse:
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("topics", pool_id)
        position = decode_token(token, fingerprint)
        after = str(position.get("a", "")) if position else None
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            _, role = await self._authorise(
                conn, principal, pool_id, Role.READER, "ListTopics", manage=False
            )
            rows = await fetch_all(
                conn,
                "SELECT topic, count(*) AS n, max(published_time) AS last"
                " FROM publications WHERE pool_id = %(pool)s AND state = 'PUBLISHED'"
                " AND topic <> '' AND visibility = ANY(%(vis)s)"
                " AND (%(after)s::text IS NULL OR topic > %(after)s)"
                " GROUP BY topic ORDER BY topic LIMIT %(n)s",
                {
                    "pool": pool_id,
                    "vis": list(model.visible_to(role)),
                    "after": after,
                    "n": size + 1,
                },
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            next_token = encode_token({"a": rows[-1]["topic"]}, fingerprint)
        topics = []
        for r in rows:
            t = pool_pb2.Topic(
                name=f"pools/{pool_id}/topics/{r['topic']}",
                topic=r["topic"],
                publication_count=r["n"],
            )
            if r["last"] is not None:
                t.last_publish_time.FromDatetime(r["last"])
            topics.append(t)
        return pool_pb2.ListTopicsResponse(topics=topics, next_page_token=next_token)


_UPDATABLE = (
    "display_name",
    "description",
    "gate",
    "default_visibility",
    "initial_trust",
    "labels",
    "quick_invalidation_window",
)


def finding_list(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    return [f.to_json() for f in findings]
