"""PoolService's pools and members: create, read, update and delete pools, and
manage who belongs to them (pool_access.py says how access is checked)."""

import uuid
from collections.abc import Sequence
from typing import Any

from engram.v1 import pool_pb2
from psycopg.types.json import Jsonb

from engram_server.errors import Aborted, AlreadyExists, FailedPrecondition, NotFound, Violations
from engram_server.platform.principal import SCOPE_ADMIN, Principal
from engram_server.pools import model
from engram_server.pools.model import Role
from engram_server.services.lifecycle import RequestKey
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.services.pool_access import (
    LISTED_ROLE_SQL,
    POOL_CHANNEL,
    POOL_SQL,
    TRUST_COLUMNS,
    PoolAccess,
    append_membership_audit,
    etag_of,
    fetch_all,
    fetch_one,
    gate_from_proto,
    member_to_proto,
    pool_row,
    pool_to_proto,
    publisher_trust,
    role_name,
    visibility_from_proto,
)
from engram_server.store import memories as store
from engram_server.store.postgres import Conn

_UPDATABLE = (
    "display_name",
    "description",
    "gate",
    "default_visibility",
    "initial_trust",
    "labels",
    "quick_invalidation_window",
)


class PoolAdmin(PoolAccess):
    """CreatePool ... ListPoolMembers: pools and who belongs to them."""

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
