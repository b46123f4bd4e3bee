"""What a caller may recall from pools.

Recall, BuildContext and Engage take `pools`. The index searches the requested
pools (with the caller's spaces, in one filter); which of their publications the
caller may read is decided in the candidates' hydration query itself, in the same
round trip (`SCOPE_SQL`), from the caller's current memberships (direct and
through its groups): a member reads the visibilities its role may see (readers
POOL and TENANT, writers and owners every visibility); anyone else, even for a pool
that does not exist, reads only TENANT publications (of which an unknown pool has
none), so recall never tells a non-member whether a pool exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engram_server.errors import InvalidArgument, Violations
from engram_server.pools import model

MAX_POOLS = 32


@dataclass(frozen=True)
class PoolScope:
    pool_id: str


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


# The caller's pools with the publication visibilities it may read in each: its
# role there (the highest of its direct and group memberships; 0 for none) picks
# the entry of `visibilities_by_role()`. Parameters: that list, the pool ids, and
# the caller's identities twice.
SCOPE_SQL = """
SELECT w.pool_id, string_to_array((%s::text[])[coalesce(max(pm.role), 0) + 1], ',') AS vis
  FROM unnest(%s::text[]) AS w(pool_id)
  LEFT JOIN pool_members pm ON pm.pool_id = w.pool_id
   AND (pm.principal = ANY(%s::text[])
        OR pm.principal IN (SELECT 'groups/' || g.group_id FROM principal_group_members g
                             WHERE g.principal = ANY(%s::text[])))
 GROUP BY w.pool_id
"""


def visibilities_by_role() -> list[str]:
    """`model.visible_to` for roles 0-3, as SCOPE_SQL's first parameter."""
    return [",".join(model.visible_to(role)) for role in range(int(model.Role.OWNER) + 1)]


def scope_params(pools: Sequence[PoolScope], reader: Sequence[str]) -> tuple[Any, ...]:
    return (visibilities_by_role(), [p.pool_id for p in pools], list(reader), list(reader))
