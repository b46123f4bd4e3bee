"""WatchTransitions: committed audit entries streamed in order, resumable.

Audit sequence numbers are gapless per tenant and increase in commit order (see
store.memories.append_audit), so "everything after cursor N" is a complete and
exactly-once description of what a subscriber has not seen. Streams read pages
of the log, then sleep until a NOTIFY for their tenant (or a poll interval, in
case a notification is lost while the listener reconnects).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass

from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import AuditEntry, Memory, Status
from engram_server.lifecycle.validation import check_space
from engram_server.platform.observability import watch_streams
from engram_server.store import memories as store
from engram_server.store.postgres import Database

PAGE = 500
POLL_SECONDS = 2.0


@dataclass(frozen=True)
class TransitionEvent:
    cursor: str
    entry: AuditEntry
    memory: Memory | None


class TransitionHub:
    """Wakes the streams of a tenant when its audit log grows."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)

    def notify(self, tenant_id: str) -> None:
        for event in self._waiters.get(tenant_id, ()):
            event.set()

    def subscribe(self, tenant_id: str) -> asyncio.Event:
        event = asyncio.Event()
        self._waiters[tenant_id].add(event)
        return event

    def unsubscribe(self, tenant_id: str, event: asyncio.Event) -> None:
        waiters = self._waiters.get(tenant_id)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._waiters[tenant_id]


MAX_CURSOR = 2**63 - 1  # audit sequences are bigint


def parse_cursor(cursor: str) -> int | None:
    if not cursor:
        return None
    try:
        value = int(cursor)
    except ValueError as exc:
        raise InvalidArgument.field(
            "cursor", "must be a cursor from a previous event, or 0"
        ) from exc
    if value < 0:
        raise InvalidArgument.field("cursor", "must not be negative")
    if value > MAX_CURSOR:
        raise InvalidArgument.field("cursor", "must be a cursor from a previous event, or 0")
    return value


def validate_watch(space: str, cursor: str) -> None:
    """Checks a watch request before the stream opens, so a bad one fails at once
    instead of waiting for events that can never come."""
    v = Violations()
    check_space(v, "space", space, required=False)
    v.raise_if_any()
    parse_cursor(cursor)


async def watch(
    db: Database,
    hub: TransitionHub,
    tenant: str,
    space: str,
    statuses: frozenset[Status],
    cursor: str,
) -> AsyncIterator[TransitionEvent]:
    position = parse_cursor(cursor)
    wake = hub.subscribe(tenant)
    watch_streams.add(1)
    try:
        if position is None:
            async with db.tenant_tx(tenant) as conn:
                position = await store.audit_head(conn)
        while True:
            wake.clear()
            async with db.tenant_tx(tenant) as conn:
                entries = await store.list_audit(conn, None, "", position, PAGE)
                wanted = [
                    e
                    for e in entries
                    if (not space or e.space == space)
                    and (not statuses or (e.to_status in statuses))
                ]
                memories: dict[object, Memory] = {}
                for e in wanted:
                    if e.memory_id is not None and e.memory_id not in memories:
                        m = await store.get_memory(conn, e.memory_id)
                        if m is not None:
                            memories[e.memory_id] = m
            wanted_seqs = {e.sequence for e in wanted}
            for e in entries:
                position = e.sequence
                if e.sequence in wanted_seqs:
                    yield TransitionEvent(str(e.sequence), e, memories.get(e.memory_id))
            if len(entries) == PAGE:
                continue
            try:
                await asyncio.wait_for(wake.wait(), POLL_SECONDS)
            except TimeoutError:
                pass
    finally:
        watch_streams.add(-1)
        hub.unsubscribe(tenant, wake)
