"""RecallService methods of `engram.Client` and `engram.AsyncClient`: recall,
context building, snapshots and the index status (Engage lives with working memory in
the clients themselves)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

from engram import _convert as c
from engram import _requests
from engram import types as t
from engram._base import AsyncClientBase, ClientBase, rpc
from engram.v1 import recall_pb2

Spaces = str | Iterable[str] | None
Graph = bool | t.GraphExpansion | Mapping[str, Any] | None


class RecallMethods(ClientBase):
    """RecallService: recall, build_context, snapshots, index_status."""

    @rpc("engram.v1.RecallService.Recall")
    def recall(
        self,
        query: str,
        spaces: Spaces = None,
        *,
        pools: Spaces = None,
        include_subspaces: bool = False,
        k: int = 0,
        kinds: Iterable[t.MemoryKind | str] = (),
        tags: Iterable[str] = (),
        topic: str | None = None,
        session: str | None = None,
        slot_key: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        min_evidence_level: t.EvidenceLevel | str | None = None,
        include_superseded: bool = False,
        include_expired: bool = False,
        min_score: float = 0.0,
        now: datetime | None = None,
        read_your_writes: bool = False,
        graph: Graph = None,
        skip_access_tracking: bool = False,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        depth: bool = False,
    ) -> t.RecallResult:
        """The memories of `spaces` (one path or several) and `pools` that best answer
        `query`, best first, each with its score breakdown.

        `k` caps the hits (0: the server's 10); `kinds`, `tags`, `topic`, `session`,
        `slot_key`, `created_after`/`created_before` and `min_evidence_level` filter;
        `read_your_writes=True` waits until this tenant's earlier writes are
        searchable; `graph=True` (or a `GraphExpansion`) adds memories reached
        through edges from the top hits. Bi-temporal: `valid_at` keeps the facts
        that held in the world at that time (their `valid_from`/`valid_to`),
        `known_at` answers with what Engram believed then. `depth=True` is the
        slower depth mode (the best hits' sessions searched too, for questions
        whose evidence is spread over several turns). The result iterates over
        its hits.
        """
        request = _requests.recall(
            query,
            spaces,
            dict(
                pools=pools,
                include_subspaces=include_subspaces,
                k=k,
                kinds=kinds,
                tags=tags,
                topic=topic,
                session=session,
                slot_key=slot_key,
                created_after=created_after,
                created_before=created_before,
                min_evidence_level=min_evidence_level,
                include_superseded=include_superseded,
                include_expired=include_expired,
                min_score=min_score,
                now=now,
                read_your_writes=read_your_writes,
                graph=graph,
                skip_access_tracking=skip_access_tracking,
                valid_at=valid_at,
                known_at=known_at,
                depth=depth,
            ),
        )
        return c.recall_out(self._unary(self._recall.Recall, request, retryable=True))

    @rpc("engram.v1.RecallService.BuildContext")
    def build_context(
        self,
        query: str | None = None,
        spaces: Spaces = None,
        *,
        memories: Iterable[str] = (),
        token_budget: int = 2000,
        format: t.ContextFormat | str | None = None,
        group_by_kind: bool = True,
        include_citations: bool = True,
        include_evidence_badges: bool = False,
        pools: Spaces = None,
        include_subspaces: bool = False,
        k: int = 0,
        kinds: Iterable[t.MemoryKind | str] = (),
        tags: Iterable[str] = (),
        topic: str | None = None,
        session: str | None = None,
        slot_key: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        min_evidence_level: t.EvidenceLevel | str | None = None,
        include_superseded: bool = False,
        include_expired: bool = False,
        min_score: float = 0.0,
        now: datetime | None = None,
        read_your_writes: bool = False,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        depth: bool = False,
    ) -> t.ContextBlock:
        """A prompt-ready context block under `token_budget` tokens (counted with the
        server's tokenizer), from a `query` recalled over `spaces`/`pools`, or from
        exactly the named `memories` in that order (give one or the other).
        `str(block)` is the text; `block.cited_memories[n-1]` is citation `[n]`.
        With a query, `valid_at` and `known_at` work as in `recall`.
        `depth=True` recalls in depth mode (see `recall`).
        """
        request = _requests.build_context(
            query,
            memories,
            spaces,
            dict(
                token_budget=token_budget,
                format=format,
                group_by_kind=group_by_kind,
                include_citations=include_citations,
                include_evidence_badges=include_evidence_badges,
                pools=pools,
                include_subspaces=include_subspaces,
                k=k,
                kinds=kinds,
                tags=tags,
                topic=topic,
                session=session,
                slot_key=slot_key,
                created_after=created_after,
                created_before=created_before,
                min_evidence_level=min_evidence_level,
                include_superseded=include_superseded,
                include_expired=include_expired,
                min_score=min_score,
                now=now,
                read_your_writes=read_your_writes,
                valid_at=valid_at,
                known_at=known_at,
                depth=depth,
            ),
        )
        response = self._unary(self._recall.BuildContext, request, retryable=True)
        return c.context_out(response)

    @rpc("engram.v1.RecallService.CreateSnapshot")
    def create_snapshot(
        self,
        space: str,
        *,
        snapshot_id: str = "",
        description: str = "",
        include_subspaces: bool = False,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> t.Snapshot:
        """Snapshots the live memories of `space`; `snapshot_id` names it (else a UUID)."""
        request = _requests.create_snapshot(
            space, snapshot_id, description, include_subspaces, labels, request_id
        )
        return c.snapshot_out(self._unary(self._recall.CreateSnapshot, request, retryable=True))

    @rpc("engram.v1.RecallService.GetSnapshot")
    def get_snapshot(self, name: str) -> t.Snapshot:
        """One snapshot by name (`snapshots/{id}` or the bare id)."""
        request = _requests.get_snapshot(name)
        return c.snapshot_out(self._unary(self._recall.GetSnapshot, request, retryable=True))

    @rpc("engram.v1.RecallService.ListSnapshots")
    def list_snapshots(
        self, space: str | None = None, *, page_size: int = 0
    ) -> Iterator[t.Snapshot]:
        """Iterates over snapshots (of one space, or all), newest first."""
        request = _requests.list_snapshots(space, page_size)
        return self._pages(
            self._recall.ListSnapshots, request, lambda r: map(c.snapshot_out, r.snapshots)
        )

    @rpc("engram.v1.RecallService.RestoreSnapshot")
    def restore_snapshot(
        self,
        name: str,
        *,
        reason: str = "",
        validate_only: bool = False,
        request_id: str | None = None,
    ) -> t.RestoreResult:
        """Makes the snapshot's space equal to the snapshot again, through audited
        transitions in one transaction; `validate_only=True` only reports the changes."""
        request = _requests.restore_snapshot(name, reason, validate_only, request_id)
        return c.restore_out(self._unary(self._recall.RestoreSnapshot, request, retryable=True))

    @rpc("engram.v1.RecallService.DeleteSnapshot")
    def delete_snapshot(self, name: str, *, request_id: str | None = None) -> None:
        """Deletes a snapshot; the memories it recorded are untouched."""
        request = _requests.delete_snapshot(name, request_id)
        self._unary(self._recall.DeleteSnapshot, request, retryable=True)

    @rpc("engram.v1.RecallService.DiffSnapshots")
    def diff_snapshots(
        self, base: str, target: str | None = None, *, page_size: int = 0
    ) -> t.SnapshotDiff:
        """Every change from snapshot `base` to snapshot `target`, or to the space as
        it is now when `target` is None (all pages, fetched here)."""
        request = _requests.diff_snapshots(base, target, page_size)
        pages: list[recall_pb2.DiffSnapshotsResponse] = []
        while True:
            page = self._unary(self._recall.DiffSnapshots, request, retryable=True)
            pages.append(page)
            if not page.next_page_token:
                return c.diff_out(pages)
            request.page_token = page.next_page_token

    @rpc("engram.v1.RecallService.GetIndexStatus")
    def index_status(self) -> t.IndexStatus:
        """This tenant's search-index backlog and embedding model."""
        request = recall_pb2.GetIndexStatusRequest(name="indexStatus")
        return c.index_status_out(self._unary(self._recall.GetIndexStatus, request, retryable=True))


class AsyncRecallMethods(AsyncClientBase):
    """RecallService for `AsyncClient`; listings are async iterators."""

    @rpc("engram.v1.RecallService.Recall")
    async def recall(
        self,
        query: str,
        spaces: Spaces = None,
        *,
        pools: Spaces = None,
        include_subspaces: bool = False,
        k: int = 0,
        kinds: Iterable[t.MemoryKind | str] = (),
        tags: Iterable[str] = (),
        topic: str | None = None,
        session: str | None = None,
        slot_key: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        min_evidence_level: t.EvidenceLevel | str | None = None,
        include_superseded: bool = False,
        include_expired: bool = False,
        min_score: float = 0.0,
        now: datetime | None = None,
        read_your_writes: bool = False,
        graph: Graph = None,
        skip_access_tracking: bool = False,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        depth: bool = False,
    ) -> t.RecallResult:
        """The memories of `spaces` (one path or several) and `pools` that best answer
        `query`, best first, each with its score breakdown.

        `k` caps the hits (0: the server's 10); `kinds`, `tags`, `topic`, `session`,
        `slot_key`, `created_after`/`created_before` and `min_evidence_level` filter;
        `read_your_writes=True` waits until this tenant's earlier writes are
        searchable; `graph=True` (or a `GraphExpansion`) adds memories reached
        through edges from the top hits. Bi-temporal: `valid_at` keeps the facts
        that held in the world at that time (their `valid_from`/`valid_to`),
        `known_at` answers with what Engram believed then. `depth=True` is the
        slower depth mode (the best hits' sessions searched too, for questions
        whose evidence is spread over several turns). The result iterates over
        its hits.
        """
        request = _requests.recall(
            query,
            spaces,
            dict(
                pools=pools,
                include_subspaces=include_subspaces,
                k=k,
                kinds=kinds,
                tags=tags,
                topic=topic,
                session=session,
                slot_key=slot_key,
                created_after=created_after,
                created_before=created_before,
                min_evidence_level=min_evidence_level,
                include_superseded=include_superseded,
                include_expired=include_expired,
                min_score=min_score,
                now=now,
                read_your_writes=read_your_writes,
                graph=graph,
                skip_access_tracking=skip_access_tracking,
                valid_at=valid_at,
                known_at=known_at,
                depth=depth,
            ),
        )
        return c.recall_out(await self._unary(self._recall.Recall, request, retryable=True))

    @rpc("engram.v1.RecallService.BuildContext")
    async def build_context(
        self,
        query: str | None = None,
        spaces: Spaces = None,
        *,
        memories: Iterable[str] = (),
        token_budget: int = 2000,
        format: t.ContextFormat | str | None = None,
        group_by_kind: bool = True,
        include_citations: bool = True,
        include_evidence_badges: bool = False,
        pools: Spaces = None,
        include_subspaces: bool = False,
        k: int = 0,
        kinds: Iterable[t.MemoryKind | str] = (),
        tags: Iterable[str] = (),
        topic: str | None = None,
        session: str | None = None,
        slot_key: str | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        min_evidence_level: t.EvidenceLevel | str | None = None,
        include_superseded: bool = False,
        include_expired: bool = False,
        min_score: float = 0.0,
        now: datetime | None = None,
        read_your_writes: bool = False,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        depth: bool = False,
    ) -> t.ContextBlock:
        """A prompt-ready context block under `token_budget` tokens (counted with the
        server's tokenizer), from a `query` recalled over `spaces`/`pools`, or from
        exactly the named `memories` in that order (give one or the other).
        `str(block)` is the text; `block.cited_memories[n-1]` is citation `[n]`.
        With a query, `valid_at` and `known_at` work as in `recall`.
        `depth=True` recalls in depth mode (see `recall`).
        """
        request = _requests.build_context(
            query,
            memories,
            spaces,
            dict(
                token_budget=token_budget,
                format=format,
                group_by_kind=group_by_kind,
                include_citations=include_citations,
                include_evidence_badges=include_evidence_badges,
                pools=pools,
                include_subspaces=include_subspaces,
                k=k,
                kinds=kinds,
                tags=tags,
                topic=topic,
                session=session,
                slot_key=slot_key,
                created_after=created_after,
                created_before=created_before,
                min_evidence_level=min_evidence_level,
                include_superseded=include_superseded,
                include_expired=include_expired,
                min_score=min_score,
                now=now,
                read_your_writes=read_your_writes,
                valid_at=valid_at,
                known_at=known_at,
                depth=depth,
            ),
        )
        response = await self._unary(self._recall.BuildContext, request, retryable=True)
        return c.context_out(response)

    @rpc("engram.v1.RecallService.CreateSnapshot")
    async def create_snapshot(
        self,
        space: str,
        *,
        snapshot_id: str = "",
        description: str = "",
        include_subspaces: bool = False,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> t.Snapshot:
        """Snapshots the live memories of `space`; `snapshot_id` names it (else a UUID)."""
        request = _requests.create_snapshot(
            space, snapshot_id, description, include_subspaces, labels, request_id
        )
        return c.snapshot_out(
            await self._unary(self._recall.CreateSnapshot, request, retryable=True)
        )

    @rpc("engram.v1.RecallService.GetSnapshot")
    async def get_snapshot(self, name: str) -> t.Snapshot:
        """One snapshot by name (`snapshots/{id}` or the bare id)."""
        request = _requests.get_snapshot(name)
        return c.snapshot_out(await self._unary(self._recall.GetSnapshot, request, retryable=True))

    @rpc("engram.v1.RecallService.ListSnapshots")
    def list_snapshots(
        self, space: str | None = None, *, page_size: int = 0
    ) -> AsyncIterator[t.Snapshot]:
        """Iterates over snapshots (of one space, or all), newest first."""
        request = _requests.list_snapshots(space, page_size)
        return self._pages(
            self._recall.ListSnapshots, request, lambda r: map(c.snapshot_out, r.snapshots)
        )

    @rpc("engram.v1.RecallService.RestoreSnapshot")
    async def restore_snapshot(
        self,
        name: str,
        *,
        reason: str = "",
        validate_only: bool = False,
        request_id: str | None = None,
    ) -> t.RestoreResult:
        """Makes the snapshot's space equal to the snapshot again, through audited
        transitions in one transaction; `validate_only=True` only reports the changes."""
        request = _requests.restore_snapshot(name, reason, validate_only, request_id)
        return c.restore_out(
            await self._unary(self._recall.RestoreSnapshot, request, retryable=True)
        )

    @rpc("engram.v1.RecallService.DeleteSnapshot")
    async def delete_snapshot(self, name: str, *, request_id: str | None = None) -> None:
        """Deletes a snapshot; the memories it recorded are untouched."""
        request = _requests.delete_snapshot(name, request_id)
        await self._unary(self._recall.DeleteSnapshot, request, retryable=True)

    @rpc("engram.v1.RecallService.DiffSnapshots")
    async def diff_snapshots(
        self, base: str, target: str | None = None, *, page_size: int = 0
    ) -> t.SnapshotDiff:
        """Every change from snapshot `base` to snapshot `target`, or to the space as
        it is now when `target` is None (all pages, fetched here)."""
        request = _requests.diff_snapshots(base, target, page_size)
        pages: list[recall_pb2.DiffSnapshotsResponse] = []
        while True:
            page = await self._unary(self._recall.DiffSnapshots, request, retryable=True)
            pages.append(page)
            if not page.next_page_token:
                return c.diff_out(pages)
            request.page_token = page.next_page_token

    @rpc("engram.v1.RecallService.GetIndexStatus")
    async def index_status(self) -> t.IndexStatus:
        """This tenant's search-index backlog and embedding model."""
        request = recall_pb2.GetIndexStatusRequest(name="indexStatus")
        return c.index_status_out(
            await self._unary(self._recall.GetIndexStatus, request, retryable=True)
        )
