"""Reads of memories, revisions and the audit log, with keyset paging."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime

from engram_server.errors import InvalidArgument, NotFound, Violations
from engram_server.lifecycle.model import AuditEntry, Memory, MemoryRevision, memory_name
from engram_server.lifecycle.validation import check_space
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.store import memories as store
from engram_server.store.memories import MemoryFilter
from engram_server.store.postgres import Database


class MemoryReads:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tenant: str, memory_id: uuid.UUID) -> Memory:
        # One round trip: BEGIN, the tenant, the SELECT and COMMIT sent together,
        # the SELECT prepared once per connection (planning was most of its cost).
        rows = await self.db.tenant_read(
            tenant, store.GET_MEMORY_SQL, (memory_id,), prepared_as="engram_get_memory"
        )
        if not rows:
            raise NotFound("memory", memory_name(memory_id))
        return store.row_to_memory(rows[0])

    async def list_memories(
        self, tenant: str, f: MemoryFilter, order: str, requested_size: int, token: str
    ) -> tuple[list[Memory], str]:
        v = Violations()
        check_space(v, "space", f.space, required=False)
        if f.create_time_start and f.create_time_end and f.create_time_start >= f.create_time_end:
            v.add("create_time_end", "must be after create_time_start")
        v.raise_if_any()
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("memories", f, order)
        position = decode_token(token, fingerprint)
        after = None
        if position is not None:
            try:
                after = (datetime.fromisoformat(position["t"]), uuid.UUID(position["i"]))
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        query, params = store.list_memories_query(f, order, size + 1, after)
        # Prepared per connection under a name of the query's shape (which filters,
        # which order; the values are parameters), so each shape is planned once.
        shape = hashlib.blake2b(query.encode(), digest_size=8).hexdigest()
        rows = [
            store.row_to_memory(r)
            for r in await self.db.tenant_read(
                tenant, query, params, prepared_as=f"engram_list_{shape}"
            )
        ]
        page, more = rows[:size], len(rows) > size
        next_token = ""
        if more:
            last = page[-1]
            column_value = last.update_time if order == "UPDATE_TIME_DESC" else last.create_time
            next_token = encode_token(
                {"t": column_value.isoformat(), "i": str(last.id)}, fingerprint
            )
        return page, next_token

    async def revisions(
        self, tenant: str, memory_id: uuid.UUID, requested_size: int, token: str
    ) -> tuple[list[MemoryRevision], str]:
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("revisions", str(memory_id))
        position = decode_token(token, fingerprint)
        before = int(position["r"]) if position and "r" in position else None
        async with self.db.tenant_tx(tenant) as conn:
            if await store.get_memory(conn, memory_id) is None:
                raise NotFound("memory", memory_name(memory_id))
            rows = await store.list_revisions(conn, memory_id, before, size + 1)
        page, more = rows[:size], len(rows) > size
        return page, encode_token({"r": page[-1].revision}, fingerprint) if more else ""

    async def audit(
        self, tenant: str, memory_id: uuid.UUID | None, space: str, requested_size: int, token: str
    ) -> tuple[list[AuditEntry], str]:
        v = Violations()
        check_space(v, "space", space, required=False)
        v.raise_if_any()
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("audit", str(memory_id), space)
        position = decode_token(token, fingerprint)
        after = int(position.get("s", 0)) if position else 0
        async with self.db.tenant_tx(tenant) as conn:
            rows = await store.list_audit(conn, memory_id, space, after, size + 1)
        page, more = rows[:size], len(rows) > size
        return page, encode_token({"s": page[-1].sequence}, fingerprint) if more else ""
