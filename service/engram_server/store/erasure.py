"""Erasure epochs (table `erasure_epochs`, FORCE RLS): one counter per space that
every purge raises, so a write derived from data read before a purge can tell.

The protocol (see migration 0057):

- a purge calls `advance` first in its transaction: the row stays locked until
  the purge commits;
- a service that derives memories reads `current` *before* it reads its source
  data, and its write transaction calls `unchanged` before it writes. That holds
  the row FOR SHARE until the write commits, so:
  - a purge that committed meanwhile shows as a new epoch (the write is refused);
  - a purge still running is waited for, then shows as a new epoch;
  - a purge that starts after the check waits for the write, and then deletes
    what it wrote along with the rest of the space.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram_server.store.postgres import Conn


@dataclass(frozen=True)
class ErasureGuard:
    """The epoch of `space` read before the data a derived write comes from."""

    space: str
    epoch: int


async def current(conn: Conn, tenant_id: str, space: str) -> int:
    """The space's epoch now (0 before its first purge)."""
    cur = await conn.execute(
        "SELECT epoch FROM erasure_epochs WHERE tenant_id = %s AND space = %s", (tenant_id, space)
    )
    row = await cur.fetchone()
    return int(row["epoch"]) if row is not None else 0


async def advance(conn: Conn, tenant_id: str, space: str) -> None:
    """Raises the space's epoch inside a purge's transaction (locking its row)."""
    await conn.execute(
        "INSERT INTO erasure_epochs (tenant_id, space, epoch) VALUES (%s, %s, 1)"
        " ON CONFLICT (tenant_id, space) DO UPDATE SET epoch = erasure_epochs.epoch + 1",
        (tenant_id, space),
    )


async def unchanged(conn: Conn, tenant_id: str, guard: ErasureGuard) -> bool:
    """Whether no purge of the guard's space has run since its epoch was read;
    holds the epoch row until the caller's transaction ends.

    The row is created first when missing: a purge inserting it concurrently is
    then waited for on the key, rather than missed because there was no row yet
    to lock."""
    await conn.execute(
        "INSERT INTO erasure_epochs (tenant_id, space) VALUES (%s, %s)"
        " ON CONFLICT (tenant_id, space) DO NOTHING",
        (tenant_id, guard.space),
    )
    cur = await conn.execute(
        "SELECT epoch FROM erasure_epochs WHERE tenant_id = %s AND space = %s FOR SHARE",
        (tenant_id, guard.space),
    )
    row = await cur.fetchone()
    return row is not None and int(row["epoch"]) == guard.epoch
