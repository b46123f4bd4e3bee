"""Groups of agent identities (AdminService): teams that join pools as one member.

Tenant administrators manage their own tenant's groups. Removing a member from a
group ends its reads through the group's pool memberships at once: every pool
read resolves roles from the current group rows, and the streams of the pools
the group belongs to are woken to re-check.
"""

from __future__ import annotations

from typing import Any

from engram.v1 import admin_pb2

from engram_server.api import convert
from engram_server.errors import AlreadyExists, NotFound, PermissionDenied, Violations
from engram_server.platform.principal import SCOPE_ADMIN, Principal
from engram_server.pools import model
from engram_server.services.lifecycle import RequestKey
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.services.pool_access import (
    POOL_CHANNEL,
    PoolAccess,
    append_membership_audit,
    fetch_all,
    fetch_one,
)
from engram_server.store.postgres import Conn, Database


def group_to_proto(row: dict[str, Any], members: list[str]) -> admin_pb2.Group:
    return admin_pb2.Group(
        name=model.group_name(row["id"]),
        display_name=row["display_name"],
        description=row["description"],
        members=sorted(members),
        create_time=convert.dt_to_ts(row["create_time"]),
        update_time=convert.dt_to_ts(row["update_time"]),
    )


def _require_admin(principal: Principal) -> None:
    if not principal.has(SCOPE_ADMIN):
        raise PermissionDenied("groups are managed by tenant administrators", SCOPE_ADMIN)


class GroupOperations:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._idem = PoolAccess(db)

    async def _group(self, conn: Conn, group_id: str, lock: str = "") -> admin_pb2.Group:
        row = await fetch_one(
            conn,
            "SELECT * FROM principal_groups WHERE id = %s" + (f" FOR {lock}" if lock else ""),
            (group_id,),
        )
        if row is None:
            raise NotFound("group", model.group_name(group_id))
        members = await fetch_all(
            conn,
            "SELECT principal FROM principal_group_members WHERE group_id = %s ORDER BY principal",
            (group_id,),
        )
        return group_to_proto(row, [m["principal"] for m in members])

    async def _audit(
        self,
        conn: Conn,
        principal: Principal,
        group_id: str,
        event: str,
        key: RequestKey | None,
        **details: str,
    ) -> None:
        await append_membership_audit(
            conn,
            principal,
            event,
            key,
            {"group": model.group_name(group_id), "event": event, **details},
        )

    async def _wake_pools(self, conn: Conn, tenant: str, group_id: str) -> None:
        for row in await fetch_all(
            conn,
            "SELECT pool_id FROM pool_members WHERE principal = %s",
            (model.group_name(group_id),),
        ):
            await conn.execute(
                "SELECT pg_notify(%s, %s)", (POOL_CHANNEL, f"{tenant}/{row['pool_id']}")
            )

    async def create(
        self, principal: Principal, group_id: str, group: admin_pb2.Group, key: RequestKey | None
    ) -> admin_pb2.Group:
        _require_admin(principal)
        v = Violations()
        if not model.GROUP_ID.match(group_id):
            v.add("group_id", "required: 1-63 characters of [a-z0-9-], starting with a letter")
        if len(group.display_name) > 256:
            v.add("group.display_name", "at most 256 characters")
        if len(group.description) > model.MAX_TEXT:
            v.add("group.description", f"at most {model.MAX_TEXT} characters")
        v.raise_if_any()
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            replay = await self._idem._replay(conn, principal.tenant_id, key, admin_pb2.Group)
            if replay is not None:
                return replay
            row = await fetch_one(
                conn,
                "INSERT INTO principal_groups (tenant_id, id, display_name, description)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING id",
                (principal.tenant_id, group_id, group.display_name or group_id, group.description),
            )
            if row is None:
                raise AlreadyExists("group", model.group_name(group_id))
            await self._audit(conn, principal, group_id, "group_created", key)
            out = await self._group(conn, group_id)
            await self._idem._remember(conn, key, out)
            return out

    async def get(self, principal: Principal, group_id: str) -> admin_pb2.Group:
        _require_admin(principal)
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            return await self._group(conn, group_id)

    async def list(
        self, principal: Principal, requested_size: int, token: str
    ) -> admin_pb2.ListGroupsResponse:
        _require_admin(principal)
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("groups")
        position = decode_token(token, fingerprint)
        after = str(position.get("a", "")) if position else ""
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                "SELECT g.*, coalesce((SELECT array_agg(m.principal ORDER BY m.principal)"
                " FROM principal_group_members m WHERE m.group_id = g.id), '{}') AS members"
                " FROM principal_groups g WHERE g.id > %s ORDER BY g.id LIMIT %s",
                (after, size + 1),
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            next_token = encode_token({"a": rows[-1]["id"]}, fingerprint)
        return admin_pb2.ListGroupsResponse(
            groups=[group_to_proto(r, list(r["members"])) for r in rows], next_page_token=next_token
        )

    async def add_member(
        self, principal: Principal, group_id: str, member: str, key: RequestKey | None
    ) -> admin_pb2.Group:
        _require_admin(principal)
        v = Violations()
        model.check_principal(v, "principal", member, groups=False)
        v.raise_if_any()
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            replay = await self._idem._replay(conn, principal.tenant_id, key, admin_pb2.Group)
            if replay is not None:
                return replay
            await self._group(conn, group_id, lock="SHARE")
            added = await fetch_one(
                conn,
                "INSERT INTO principal_group_members (tenant_id, group_id, principal, added_by)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING RETURNING principal",
                (principal.tenant_id, group_id, member, principal.actor),
            )
            if added is not None:
                await conn.execute(
                    "UPDATE principal_groups SET update_time = now() WHERE id = %s", (group_id,)
                )
                await self._audit(
                    conn, principal, group_id, "group_member_added", key, member=member
                )
                await self._wake_pools(conn, principal.tenant_id, group_id)
            out = await self._group(conn, group_id)
            await self._idem._remember(conn, key, out)
            return out

    async def remove_member(
        self, principal: Principal, group_id: str, member: str, key: RequestKey | None
    ) -> admin_pb2.Group:
        _require_admin(principal)
        # The same rule as adding: no malformed name (one that could never be a
        # member) reaches the lookup or is echoed back in a NOT_FOUND.
        v = Violations()
        model.check_principal(v, "principal", member, groups=False)
        v.raise_if_any()
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            replay = await self._idem._replay(conn, principal.tenant_id, key, admin_pb2.Group)
            if replay is not None:
                return replay
            await self._group(conn, group_id, lock="SHARE")
            gone = await fetch_one(
                conn,
                "DELETE FROM principal_group_members WHERE group_id = %s AND principal = %s"
                " RETURNING principal",
                (group_id, member),
            )
            if gone is None:
                raise NotFound("group member", f"{model.group_name(group_id)}/{member}")
            await conn.execute(
                "UPDATE principal_groups SET update_time = now() WHERE id = %s", (group_id,)
            )
            await self._audit(conn, principal, group_id, "group_member_removed", key, member=member)
            await self._wake_pools(conn, principal.tenant_id, group_id)
            out = await self._group(conn, group_id)
            await self._idem._remember(conn, key, out)
            return out

    async def delete(self, principal: Principal, group_id: str, key: RequestKey | None) -> None:
        _require_admin(principal)
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            if (
                await self._idem._replay(conn, principal.tenant_id, key, admin_pb2.Group)
                is not None
            ):
                return
            await self._group(conn, group_id, lock="UPDATE")
            name = model.group_name(group_id)
            # A group that is some pool's only owner cannot go: the pool would be left
            # without one.
            orphaned = await fetch_all(
                conn,
                "SELECT pm.pool_id FROM pool_members pm WHERE pm.principal = %s AND pm.role = 3"
                " AND NOT EXISTS (SELECT 1 FROM pool_members o WHERE o.pool_id = pm.pool_id"
                " AND o.role = 3 AND o.principal <> %s)",
                (name, name),
            )
            if orphaned:
                from engram_server.errors import FailedPrecondition

                pools = ", ".join(model.pool_name(r["pool_id"]) for r in orphaned)
                raise FailedPrecondition(
                    f"{name} is the last owner of {pools}; add another owner first"
                )
            await self._wake_pools(conn, principal.tenant_id, group_id)
            await conn.execute("DELETE FROM pool_members WHERE principal = %s", (name,))
            await conn.execute("DELETE FROM principal_groups WHERE id = %s", (group_id,))
            await self._audit(conn, principal, group_id, "group_deleted", key)
            await self._idem._remember(conn, key, admin_pb2.Group())
