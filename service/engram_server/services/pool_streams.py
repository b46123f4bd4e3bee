"""PoolService's channels: ListTopics, and SyncPool (slot deltas) and
SubscribeTopic (topic events), resumable streams.

Both read the pool's log (`pool_events`), whose sequence numbers are gapless per
pool and increase in commit order (migration 0020), so "everything after cursor
N" is complete and a stream resumed from a cursor neither skips nor repeats.

Membership is re-checked before every page of the catch-up and, while a stream
sends or waits, at least every `RECHECK_SECONDS`; a NOTIFY on `engram_pool` (any
change to the pool: a publication, a member removed) wakes it at once. A caller
that lost its membership gets PERMISSION_DENIED and the stream ends; one whose API
key was revoked, expired or deleted meanwhile gets UNAUTHENTICATED.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import Any

from engram.v1 import pool_pb2, types_pb2

from engram_server.api import convert
from engram_server.errors import InvalidArgument, NotFound, PermissionDenied, Unauthenticated
from engram_server.lifecycle.model import Status, memory_name
from engram_server.platform.principal import SCOPE_READ, Principal
from engram_server.pools import model
from engram_server.pools.model import Role
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.services.pool_access import (
    PoolAccess,
    caller_role,
    fetch_all,
    fetch_one,
    publication_to_proto,
)
from engram_server.store import memories as store
from engram_server.store.postgres import Conn, Database

PAGE = 500
RECHECK_SECONDS = 0.25
_OPS = {
    "ADD": pool_pb2.SLOT_DELTA_OP_ADD,
    "REPLACE": pool_pb2.SLOT_DELTA_OP_REPLACE,
    "REMOVE": pool_pb2.SLOT_DELTA_OP_REMOVE,
}
_EVENTS = {
    "PUBLISHED": pool_pb2.TOPIC_EVENT_TYPE_PUBLISHED,
    "WITHDRAWN": pool_pb2.TOPIC_EVENT_TYPE_WITHDRAWN,
    "REPLACED": pool_pb2.TOPIC_EVENT_TYPE_REPLACED,
}


class PoolHub:
    """Wakes the streams of a pool when its log grows or its membership changes."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)

    def notify(self, payload: str) -> None:
        """`engram_pool` NOTIFY callback; the payload is `{tenant}/{pool}`."""
        for event in self._waiters.get(payload, ()):
            event.set()

    def wake_all(self) -> None:
        for events in self._waiters.values():
            for event in events:
                event.set()

    def subscribe(self, key: str) -> asyncio.Event:
        event = asyncio.Event()
        self._waiters[key].add(event)
        return event

    def unsubscribe(self, key: str, event: asyncio.Event) -> None:
        waiters = self._waiters.get(key)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                del self._waiters[key]


class _Guard:
    """The caller's membership, re-checked at most every RECHECK_SECONDS."""

    def __init__(self, db: Database, principal: Principal, pool_id: str) -> None:
        self.db = db
        self.principal = principal
        self.pool_id = pool_id
        self.role = 0
        self.checked = 0.0

    async def check(self, conn: Conn | None = None) -> int:
        if conn is None:
            async with self.db.tenant_tx(self.principal.tenant_id) as c:
                return await self.check(c)
        # The key was checked when the call started; a stream outlives that check,
        # so a key revoked, expired or deleted since ends it here.
        key = await fetch_one(
            conn,
            "SELECT revoke_time <= now() AS revoked, expire_time <= now() AS expired"
            " FROM api_keys WHERE id = %s",
            (self.principal.key_id,),
        )
        if key is None:
            raise Unauthenticated("API key deleted")
        if key["revoked"]:
            raise Unauthenticated("API key revoked")
        if key["expired"]:
            raise Unauthenticated("API key expired")
        role = await caller_role(conn, self.principal, self.pool_id)
        exists = await fetch_one(conn, "SELECT 1 AS x FROM pools WHERE id = %s", (self.pool_id,))
        self.checked = time.monotonic()
        if exists is None:
            raise NotFound("pool", model.pool_name(self.pool_id))
        if role == 0:
            if self.role == 0:
                raise NotFound("pool", model.pool_name(self.pool_id))
            raise PermissionDenied(
                f"the caller is no longer a member of {model.pool_name(self.pool_id)}"
            )
        self.role = role
        return role

    async def fresh(self) -> None:
        if time.monotonic() - self.checked >= RECHECK_SECONDS:
            await self.check()


async def _memories(conn: Conn, ids: set[uuid.UUID]) -> dict[uuid.UUID, Any]:
    if not ids:
        return {}
    rows = await fetch_all(
        conn, store.by_ids_sql(store.MEMORY_COLUMNS), (store.uuid_array_literal(ids),)
    )
    return {r["id"]: convert.memory_to_proto(store.row_to_memory(r)) for r in rows}


async def _memories_then(
    conn: Conn, revisions: set[tuple[uuid.UUID, int]]
) -> dict[tuple[uuid.UUID, int], Any]:
    """Memories as they were at the given revisions (from memory_revisions), ACTIVE
    as they were while a slot held them."""
    if not revisions:
        return {}
    pairs = sorted(revisions)
    rows = await fetch_all(
        conn,
        "SELECT r.memory_id, r.revision, r.snapshot FROM memory_revisions r"
        " JOIN unnest(%s::uuid[], %s::bigint[]) AS w(id, rev)"
        " ON r.memory_id = w.id AND r.revision = w.rev",
        ([p[0] for p in pairs], [p[1] for p in pairs]),
    )
    return {
        (r["memory_id"], r["revision"]): convert.memory_to_proto(
            replace(
                store.memory_from_json(r["snapshot"]),
                status=Status.ACTIVE,
                superseded_by=None,
                retract_time=None,
                retraction_reason="",
            )
        )
        for r in rows
    }


class _Contents:
    """The memories a page of slot deltas names: the new ones as they are now, the
    old ones as they were when their slot held them (as they are now for events
    written before revisions were recorded, or a revision without its snapshot)."""

    def __init__(self, now: dict[uuid.UUID, Any], then: dict[tuple[uuid.UUID, int], Any]):
        self.now = now
        self.then = then

    @classmethod
    async def read(cls, conn: Conn, rows: list[dict[str, Any]]) -> _Contents:
        then = await _memories_then(
            conn,
            {
                (r["old_memory"], r["old_revision"])
                for r in rows
                if r["old_memory"] and r["old_revision"] is not None
            },
        )
        wanted = {r["new_memory"] for r in rows if r["new_memory"]} | {
            r["old_memory"]
            for r in rows
            if r["old_memory"] and (r["old_memory"], r["old_revision"]) not in then
        }
        return cls(await _memories(conn, wanted), then)

    def new(self, r: dict[str, Any]) -> Any:
        return self.now.get(r["new_memory"]) if r["new_memory"] else None

    def old(self, r: dict[str, Any]) -> Any:
        if not r["old_memory"]:
            return None
        return self.then.get((r["old_memory"], r["old_revision"])) or self.now.get(r["old_memory"])


async def _topic_names(conn: Conn, pool_id: str, topic: str) -> list[str]:
    """The names a topic channel's entries go by in the pool's log: the topic, and
    the label it is renamed to once its publications' memories are all purged
    (migration 0064), which only the server can compute. Empty for no topic."""
    if not topic:
        return []
    row = await fetch_one(
        conn,
        "SELECT engram_pool_erased_label(engram_current_tenant(), %s, %s) AS label",
        (pool_id, topic),
    )
    label = row["label"] if row else None
    return [topic, label] if label else [topic]


def _seq_cursor(cursor: str, fingerprint: str, *, zero_ok: bool) -> int | None:
    return _cursor(cursor, fingerprint, zero_ok=zero_ok)[0]


def _cursor(cursor: str, fingerprint: str, *, zero_ok: bool) -> tuple[int | None, int | None]:
    """(position, catch-up base): a catch-up message's cursor also records where
    its catch-up started, so resuming it compares slots with the same base."""
    if not cursor:
        return None, None
    if zero_ok and cursor == "0":
        return 0, None
    position = decode_token(cursor, fingerprint, "cursor")
    assert position is not None
    try:
        seq = int(position["s"])
        base = int(position["b"]) if "b" in position else None
    except (KeyError, ValueError, TypeError) as exc:
        raise InvalidArgument.field("cursor", "not a cursor issued by this stream") from exc
    if seq < 0 or (base is not None and not 0 <= base <= seq):
        raise InvalidArgument.field("cursor", "not a cursor issued by this stream")
    return seq, base


class PoolStreams:
    def __init__(self, db: Database, hub: PoolHub) -> None:
        self.db = db
        self.hub = hub

    async def _wait(self, wake: asyncio.Event, guard: _Guard) -> None:
        try:
            await asyncio.wait_for(wake.wait(), RECHECK_SECONDS)
        except TimeoutError:
            pass
        await guard.check()

    # -- SyncPool ----------------------------------------------------------------

    async def sync(
        self,
        principal: Principal,
        pool_id: str,
        cursor: str,
        topic: str,
        follow: bool,
        omit_old_content: bool = False,
    ) -> AsyncGenerator[pool_pb2.SyncPoolResponse, None]:
        tenant = principal.tenant_id
        if not principal.has(SCOPE_READ):
            raise PermissionDenied("this API key lacks the 'read' scope", SCOPE_READ)
        guard = _Guard(self.db, principal, pool_id)
        wake = self.hub.subscribe(f"{tenant}/{pool_id}")
        try:
            async with self.db.tenant_tx(tenant) as conn:
                role = await guard.check(conn)
                aud = model.audience(role)
                fingerprint = filter_fingerprint("sync", pool_id, topic, aud)
                resume, base = _cursor(cursor, fingerprint, zero_ok=False)
                after = base if base is not None else resume or 0
                head_row = await fetch_one(
                    conn, "SELECT seq FROM pool_state WHERE pool_id = %s", (pool_id,)
                )
                topics = await _topic_names(conn, pool_id, topic)
            head = int(head_row["seq"]) if head_row else 0
            if (resume or 0) > head:
                raise InvalidArgument.field("cursor", "is ahead of this pool's log")
            # Catch-up: one delta per slot changed in (after, head], in the order of
            # each slot's last change, so a cursor taken mid-catch-up resumes it.
            position = resume or 0
            while True:
                async with self.db.tenant_tx(tenant) as conn:
                    if aud != model.audience(await guard.check(conn)):
                        raise PermissionDenied("the caller's role in the pool changed; sync again")
                    rows = await fetch_all(
                        conn,
                        _CATCH_UP,
                        {
                            "pool": pool_id,
                            "aud": aud,
                            "after": after,
                            "head": head,
                            "from": position,
                            "topics": topics,
                            "n": PAGE,
                        },
                    )
                    contents = await _Contents.read(conn, rows)
                for r in rows:
                    await guard.fresh()
                    position = r["seq"]
                    old, new = r["old_memory"], r["new_memory"]
                    if old is None and new is None:
                        continue
                    op = "ADD" if old is None else "REMOVE" if new is None else "REPLACE"
                    yield pool_pb2.SyncPoolResponse(
                        cursor=encode_token({"s": position, "b": after}, fingerprint),
                        delta=self._delta(pool_id, r, op, contents, omit_old_content),
                    )
                if len(rows) < PAGE:
                    break
            position = head
            yield pool_pb2.SyncPoolResponse(
                cursor=encode_token({"s": head}, fingerprint), caught_up=True
            )
            if not follow:
                return
            while True:
                wake.clear()
                async with self.db.tenant_tx(tenant) as conn:
                    if aud != model.audience(await guard.check(conn)):
                        raise PermissionDenied("the caller's role in the pool changed; sync again")
                    rows = await fetch_all(
                        conn,
                        _LIVE,
                        {
                            "pool": pool_id,
                            "aud": aud,
                            "after": position,
                            "n": PAGE,
                        },
                    )
                    mine = [
                        r
                        for r in rows
                        if r["kind"] == "slot"
                        and r["audience"] == aud
                        and (not topic or r["topic"] in topics)
                    ]
                    contents = await _Contents.read(conn, mine)
                for r in rows:
                    await guard.fresh()
                    position = r["seq"]
                    if r["kind"] != "slot" or r["audience"] != aud:
                        continue
                    if topic and r["topic"] not in topics:
                        continue
                    yield pool_pb2.SyncPoolResponse(
                        cursor=encode_token({"s": position}, fingerprint),
                        delta=self._delta(pool_id, r, r["op"], contents, omit_old_content),
                    )
                if len(rows) == PAGE:
                    continue
                await self._wait(wake, guard)
        finally:
            self.hub.unsubscribe(f"{tenant}/{pool_id}", wake)

    @staticmethod
    def _delta(
        pool_id: str, r: dict[str, Any], op: str, contents: _Contents, omit_old_content: bool
    ) -> pool_pb2.SlotDelta:
        delta = pool_pb2.SlotDelta(
            slot_key=r["slot"],
            op=_OPS[op],
            version=r["version"],
            topic=r["topic"],
            commit_time=convert.dt_to_ts(r["create_time"]),
        )
        if r["publication_id"] is not None:
            delta.publication = model.publication_name(pool_id, r["publication_id"])
        old = contents.old(r) if op != "ADD" else None
        if old is not None and omit_old_content:
            # The follower keeps the rest from the delta that brought it.
            old = types_pb2.Memory(
                name=old.name,
                space=old.space,
                slot_key=old.slot_key,
                revision=old.revision,
                status=old.status,
                etag=old.etag,
            )
        if old is None and op != "ADD" and r["old_memory"] is not None:
            # Purged: the follower deletes the slot holding this memory (its slot
            # key is erased, the delta carries the slot's label instead).
            old = types_pb2.Memory(name=memory_name(r["old_memory"]))
        if old is not None:
            delta.old_memory.CopyFrom(old)
        new = contents.new(r) if op != "REMOVE" else None
        if new is not None:
            delta.new_memory.CopyFrom(new)
        return delta

    # -- SubscribeTopic ------------------------------------------------------------

    async def subscribe(
        self, principal: Principal, pool_id: str, topic: str, cursor: str
    ) -> AsyncGenerator[pool_pb2.SubscribeTopicResponse, None]:
        tenant = principal.tenant_id
        if not principal.has(SCOPE_READ):
            raise PermissionDenied("this API key lacks the 'read' scope", SCOPE_READ)
        guard = _Guard(self.db, principal, pool_id)
        fingerprint = filter_fingerprint("topic", pool_id, topic)
        wake = self.hub.subscribe(f"{tenant}/{pool_id}")
        try:
            async with self.db.tenant_tx(tenant) as conn:
                await guard.check(conn)
                start = _seq_cursor(cursor, fingerprint, zero_ok=True)
                head_row = await fetch_one(
                    conn, "SELECT seq FROM pool_state WHERE pool_id = %s", (pool_id,)
                )
                topics = await _topic_names(conn, pool_id, topic)
            head = int(head_row["seq"]) if head_row else 0
            if start is not None and start > head:
                raise InvalidArgument.field("cursor", "is ahead of this pool's log")
            position = head if start is None else start
            while True:
                wake.clear()
                async with self.db.tenant_tx(tenant) as conn:
                    role = await guard.check(conn)
                    rows = await fetch_all(
                        conn,
                        "SELECT e.*, p.id AS pub_id FROM pool_events e"
                        " LEFT JOIN publications p"
                        " ON p.pool_id = e.pool_id AND p.id = e.publication_id"
                        " WHERE e.pool_id = %(pool)s AND e.kind = 'topic'"
                        " AND e.topic = ANY(%(topics)s)"
                        " AND e.seq > %(after)s ORDER BY e.seq LIMIT %(n)s",
                        {"pool": pool_id, "topics": topics, "after": position, "n": PAGE},
                    )
                    pubs = (
                        {
                            r["id"]: r
                            for r in await fetch_all(
                                conn,
                                "SELECT * FROM publications WHERE pool_id = %s AND id = ANY(%s)",
                                (pool_id, [r["publication_id"] for r in rows]),
                            )
                        }
                        if rows
                        else {}
                    )
                    mems = await _memories(conn, {r["new_memory"] for r in rows if r["new_memory"]})
                for r in rows:
                    await guard.fresh()
                    role = guard.role
                    position = r["seq"]
                    if r["visibility"] not in model.visible_to(role):
                        continue
                    pub = pubs.get(r["publication_id"])
                    out = pool_pb2.SubscribeTopicResponse(
                        cursor=encode_token({"s": position}, fingerprint),
                        event_type=_EVENTS[r["event"]],
                        commit_time=convert.dt_to_ts(r["create_time"]),
                    )
                    if pub is not None:
                        out.publication.CopyFrom(publication_to_proto(pub))
                    memory = mems.get(r["new_memory"])
                    if memory is not None:
                        out.memory.CopyFrom(memory)
                    yield out
                if len(rows) == PAGE:
                    continue
                await self._wait(wake, guard)
        finally:
            self.hub.unsubscribe(f"{tenant}/{pool_id}", wake)


# The latest change of each slot in (after, head] for one audience, with what the
# slot held at `after`, ordered by that last change; `from` pages through it.
_CATCH_UP = """
WITH changed AS (
  SELECT DISTINCT ON (e.slot) e.*
    FROM pool_events e
   WHERE e.pool_id = %(pool)s AND e.kind = 'slot' AND e.audience = %(aud)s
     AND e.seq > %(after)s AND e.seq <= %(head)s
   ORDER BY e.slot, e.seq DESC
)
SELECT c.seq, c.slot, c.version, c.topic, c.publication_id, c.create_time, c.new_memory,
       c.new_revision, b.new_memory AS old_memory, b.new_revision AS old_revision
  FROM changed c
  LEFT JOIN LATERAL (
    SELECT e.new_memory, e.new_revision FROM pool_events e
     WHERE e.pool_id = %(pool)s AND e.kind = 'slot' AND e.audience = %(aud)s
       AND e.slot = c.slot AND e.seq <= %(after)s
     ORDER BY e.seq DESC LIMIT 1) b ON true
 WHERE c.seq > %(from)s
   AND (cardinality(%(topics)s::text[]) = 0 OR c.topic = ANY(%(topics)s))
 ORDER BY c.seq
 LIMIT %(n)s
"""

_LIVE = """
SELECT e.* FROM pool_events e
 WHERE e.pool_id = %(pool)s AND e.seq > %(after)s
 ORDER BY e.seq LIMIT %(n)s
"""

__all__ = ["PoolHub", "PoolStreams", "Role", "memory_name"]


class PoolTopics(PoolAccess):
    """ListTopics: the pool's topics with their publication counts."""

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
