"""What a caller may recall from pools: one scope per requested pool.

Recall, BuildContext and Engage take `pools`. Each is resolved here against the
caller's current membership in one round trip: a member reads the publications
its role may see (readers POOL and TENANT, writers and owners every visibility);
anyone else, even for a pool that does not exist, reads only TENANT
publications (of which an unknown pool has none), so recall never tells a
non-member whether a pool exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engram_server.errors import InvalidArgument, Violations
from engram_server.platform.principal import Principal
from engram_server.pools import model
from engram_server.store.postgres import Database

MAX_POOLS = 32


@dataclass(frozen=True)
class PoolScope:
    pool_id: str
    # Publication visibilities the caller may read in this pool.
    visibilities: tuple[str, ...]


def parse_pools(pools: Sequence[str], v: Violations, path: str = "pools") -> tuple[str, ...]:
    if len(pools) > MAX_POOLS:
        v.add(path, f"at most {MAX_POOLS} pools")
        return ()
    out: list[str] = []
    for i, name in enumerate(pools):
        try:
            pool_id = model.parse_pool_name(name, f"{path}[{i}]")
        except InvalidArgument as exc:
            v.items.extend(exc.violations)
            continue
        if pool_id not in out:
            out.append(pool_id)
    return tuple(out)


_ROLES = """
SELECT w.pool_id, coalesce(max(pm.role), 0) AS role
  FROM unnest(%s::text[]) AS w(pool_id)
  LEFT JOIN pool_members pm ON pm.pool_id = w.pool_id
   AND (pm.principal = ANY(%s)
        OR pm.principal IN (SELECT 'groups/' || g.group_id FROM principal_group_members g
                             WHERE g.principal = ANY(%s)))
 GROUP BY w.pool_id
"""


async def resolve(
    db: Database, principal: Principal, pool_ids: Sequence[str]
) -> tuple[PoolScope, ...]:
    if not pool_ids:
        return ()
    rows = await db.tenant_read(
        principal.tenant_id,
        _ROLES,
        (list(pool_ids), model.identities(principal), model.identities(principal)),
    )
    roles = {r["pool_id"]: int(r["role"]) for r in rows}
    return tuple(PoolScope(p, model.visible_to(roles.get(p, 0))) for p in pool_ids)
