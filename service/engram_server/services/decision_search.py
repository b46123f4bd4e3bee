"""The commit leg's indexes: one in-memory BM25F index per tenant and repository.

Each index is a cache of `decision_search_documents`, which ingest writes in the
same transaction as the decisions. Before every search the index compares its
document count and highest `seq` with the table's: new rows are appended, and
anything else (a purge, a reprocessed commit, rows committed out of `seq`
order) rebuilds it. A search therefore sees every commit whose ingest has
committed, on any replica, with no outbox in between.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from engram_server.decisions.ranking import CommitIndex, Query, Scored, merge_ranked
from engram_server.store import decision_search as store
from engram_server.store.postgres import Database

MAX_CACHED = 64  # (tenant, repository) indexes kept per process, least recently used out
MAX_REPOSITORIES = 32  # searched when a question names no repository


@dataclass
class _Cached:
    index: CommitIndex = field(default_factory=CommitIndex)
    top: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class CommitIndexes:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._cache: OrderedDict[tuple[str, str], _Cached] = OrderedDict()

    async def index(self, tenant: str, repository: str) -> CommitIndex:
        key = (tenant, repository)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._cache[key] = _Cached()
            while len(self._cache) > MAX_CACHED:
                self._cache.popitem(last=False)
        self._cache.move_to_end(key)
        async with cached.lock:
            async with self.db.tenant_tx(tenant) as conn:
                count, top = await store.state(conn, repository)
                if count == len(cached.index) and top == cached.top:
                    return cached.index
                if top > cached.top and count > len(cached.index):
                    rows = await store.documents_after(conn, repository, cached.top)
                else:
                    rows = []  # fewer rows or no new seq: a purge or a rewrite
            appended = bool(rows) and not any(doc.sha in cached.index.shas for _, doc in rows)
            if appended and len(cached.index) + len(rows) == count:
                for _, doc in rows:
                    cached.index.add(doc)
                cached.top = rows[-1][0]
                return cached.index
            # A purge, a rewritten commit, or rows committed out of seq order.
            return await self._rebuild(tenant, repository, cached)

    async def _rebuild(self, tenant: str, repository: str, cached: _Cached) -> CommitIndex:
        index = CommitIndex()
        top = 0
        async with self.db.tenant_tx(tenant) as conn:
            for seq, doc in await store.documents_after(conn, repository, 0):
                if doc.sha not in index.shas:
                    index.add(doc)
                top = seq
        cached.index, cached.top = index, top
        return index

    async def search(
        self, tenant: str, repository: str, query: Query, limit: int
    ) -> tuple[list[Scored], dict[str, CommitIndex]]:
        """The best commits of `repository` (every repository of the tenant when
        empty), with the indexes that scored them (by repository)."""
        if repository:
            names = [repository]
        else:
            async with self.db.tenant_tx(tenant) as conn:
                names = await store.repositories(conn, MAX_REPOSITORIES)
        indexes = {name: await self.index(tenant, name) for name in names}
        ranked = merge_ranked((ix.search(query, limit) for ix in indexes.values()), limit)
        return ranked, indexes
