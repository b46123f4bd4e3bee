"""Recall: hybrid retrieval over the vector index, ranked with memory signals.

A query runs two legs in the index (dense MiniLM vectors and BM25 sparse vectors,
both tenant-filtered by the adapter), the candidates are read back from PostgreSQL
(the lexical leg's while the query is embedded, the dense leg's rest after; the
database is the source of truth: a memory retracted a moment ago is dropped even
if the index has not caught up), and ranked by recall/scoring.py.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from engram_server.embeddings.cache import CachedEmbedder
from engram_server.errors import InvalidArgument, Unavailable, Violations
from engram_server.lexical.analyzer import analyze
from engram_server.lexical.sparse import SparseVector, query_sparse_vector
from engram_server.lifecycle.model import EvidenceLevel, Kind, Memory, Status
from engram_server.lifecycle.validation import check_space
from engram_server.platform.background import BackgroundTask
from engram_server.pools import model as pool_model
from engram_server.pools.recall import SCOPE_SQL, PoolScope, scope_params
from engram_server.recall import anchored, depth, when
from engram_server.recall.scoring import (
    NO_EVIDENCE_DELTAS,
    Breakdown,
    Candidate,
    MemorySignals,
    RankingParams,
    evidence_delta,
    final_score,
    fused_scores,
    score,
    session_support,
    slot_matches,
)
from engram_server.recall.speakers import query_words, speaker_match
from engram_server.services.indexing import IndexWorker
from engram_server.services.recall_depth import deep_ranked
from engram_server.store import memories as store
from engram_server.store.postgres import Database
from engram_server.store.vectors import (
    EVIDENCE_RANK,
    IndexFilter,
    ScoredPoint,
    VectorIndex,
    combine_legs,
)

log = logging.getLogger(__name__)

# A candidate as Recall ranks it: final score, point, row, signals, slot match,
# ranking parameters, time match, speaker match.
_Ranked = tuple[
    float, ScoredPoint, dict[str, Any], MemorySignals, float, RankingParams, float, float
]

MAX_K = 100
DEFAULT_K = 10
# Candidates each leg brings to ranking: at least this many, and 4k. Every candidate
# is read back from PostgreSQL and scored, so the count is latency; on `engram eval`
# 32 (40 at k=10) ranks as well as 64 did (nDCG@10 0.638 against 0.636, MRR 0.603
# against 0.602) at about 1 ms less per recall.
CANDIDATES_PER_LEG = 32
# Distinct space policies whose ranking parameters are kept (emptied when full).
_POLICY_PARAMS_CACHE = 1024
MAX_QUERY_CHARS = 4096
MAX_SPACES = 64
# Spaces of code decisions (DecisionsService); only a recall naming them sees them.
DECISION_SPACES_PREFIX = "decisions/"


@dataclass(frozen=True)
class RecallQuery:
    query: str
    spaces: tuple[str, ...] = ()
    include_subspaces: bool = False
    k: int = DEFAULT_K
    kinds: tuple[Kind, ...] = ()
    tags: tuple[str, ...] = ()
    topic: str = ""
    session: str = ""
    create_time_start: datetime | None = None
    create_time_end: datetime | None = None
    min_evidence_level: EvidenceLevel = EvidenceLevel.UNSPECIFIED
    include_superseded: bool = False
    include_expired: bool = False
    slot_key: str = ""
    min_score: float = 0.0
    now: datetime | None = None
    read_your_writes: bool = False
    track_access: bool = True
    # Pools to search as well, as the caller may read them (pools.recall.resolve);
    # like spaces, they count as a scope of the recall.
    pools: tuple[PoolScope, ...] = ()
    # The caller's member identities: its recalls of others' publications count
    # towards their trust, its own do not.
    reader: tuple[str, ...] = ()
    # Graph-augmented recall (None: off).
    graph: GraphOptions | None = None
    # Bi-temporal: facts that held in the world at `valid_at`; what Engram believed
    # at `known_at`.
    valid_at: datetime | None = None
    known_at: datetime | None = None
    # Depth mode (services/recall_depth.py): slower, widens the best hits' sessions.
    deep: bool = False


DEFAULT_GRAPH_KINDS = ("SUPPORTS", "ABOUT", "DERIVED_FROM", "RELATED")
MAX_HOPS = 3
# Graph expansion adds at most max(k, this) memories.
MAX_GRAPH_ADDED = 10


@dataclass(frozen=True)
class GraphOptions:
    edge_kinds: tuple[str, ...] = DEFAULT_GRAPH_KINDS
    max_hops: int = 1
    seed_count: int = 5
    include_inactive: bool = False
    # A one-hop neighbour's boost as a share of its seed's score; halved per hop.
    hop_boost: float = 0.5


@dataclass(frozen=True)
class Hit:
    memory: Memory
    breakdown: Breakdown
    dense_rank: int | None
    lexical_rank: int | None
    # Graph expansion: the direct hit this one was reached from, and the edge kind.
    reached_from: uuid.UUID | None = None
    reached_via: str = ""
    # The pool the hit was read through (`pools/{pool}`) and the publication's
    # publisher; empty for own spaces.
    pool: str = ""
    publisher: str = ""


@dataclass(frozen=True)
class RecallResult:
    hits: list[Hit]
    pending_index_items: int
    embedding_model: str


class ReadYourWritesTimeout(Unavailable):
    """READ_YOUR_WRITES could not be honoured within its wait: UNAVAILABLE with a
    retry hint, never a silently stale answer."""

    expected = True

    def __init__(self, pending: int, waited_seconds: float) -> None:
        self.pending = pending
        super().__init__(
            f"read-your-writes: {pending} recent write(s) of this tenant were not yet"
            f" searchable after waiting {waited_seconds:.1f}s; retry the recall, or use"
            " READ_CONSISTENCY_EVENTUAL to accept results that may miss them"
        )


def validate(q: RecallQuery) -> None:
    v = Violations()
    if not q.query.strip() and not q.slot_key:
        v.add("query", "required (or filter.slot_key)")
    if len(q.query) > MAX_QUERY_CHARS:
        v.add("query", f"at most {MAX_QUERY_CHARS} characters")
    if not 0 <= q.k <= MAX_K:
        v.add("k", f"must be between 0 and {MAX_K}")
    # Spaces separate agents and users inside a tenant: a recall names the ones it
    # reads, never "all of them" by leaving the list empty.
    if not q.spaces and not q.pools:
        v.add("spaces", "at least one space (or pool) is required")
    elif len(q.spaces) > MAX_SPACES:
        v.add("spaces", f"at most {MAX_SPACES} spaces")
    for i, space in enumerate(q.spaces[: MAX_SPACES + 1]):
        check_space(v, f"spaces[{i}]", space)
    if not math.isfinite(q.min_score):
        v.add("min_score", "must be a finite number")
    if q.create_time_start and q.create_time_end and q.create_time_start >= q.create_time_end:
        v.add("filter.create_time_end", "must be after create_time_start")
    if q.graph is not None:
        if not 0 <= q.graph.max_hops <= MAX_HOPS:
            v.add("graph.max_hops", f"must be between 0 and {MAX_HOPS}")
        if not 0 <= q.graph.seed_count <= MAX_K:
            v.add("graph.seed_count", f"must be between 0 and {MAX_K}")
        if not 0.0 <= q.graph.hop_boost <= 1.0:
            v.add("graph.hop_boost", "must be in [0, 1]")
    v.raise_if_any()


class AccessRecorder:
    """Counts recalls per memory and writes them in batches, off the hot path."""

    def __init__(self, db: Database, interval: float = 1.0) -> None:
        self.db = db
        self.interval = interval
        self._pending: dict[str, dict[uuid.UUID, int]] = defaultdict(lambda: defaultdict(int))
        # Recalls of pool publications by other members: (pool, publisher) -> n.
        self._uses: dict[str, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
        self._flusher = BackgroundTask("access-recorder", self._loop)

    def record(self, tenant: str, ids: Sequence[uuid.UUID]) -> None:
        counts = self._pending[tenant]
        for memory_id in ids:
            counts[memory_id] += 1

    def record_pool_uses(self, tenant: str, uses: Sequence[tuple[str, str]]) -> None:
        """Counts the pool hits a recall returned: each raises its publisher's
        `used_count` in that pool (see pools.model.trust_score)."""
        counts = self._uses[tenant]
        for use in uses:
            counts[use] += 1

    def start(self) -> None:
        self._flusher.start()

    async def stop(self) -> None:
        await self._flusher.stop()
        await self.flush()

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.flush()
            except Exception:
                log.exception("recording recall accesses failed")

    async def flush(self) -> None:
        uses, self._uses = self._uses, defaultdict(lambda: defaultdict(int))
        for tenant, by_publisher in uses.items():
            keys = sorted(by_publisher)
            async with self.db.tenant_tx(tenant) as conn:
                await conn.execute(
                    "INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, used_count)"
                    " SELECT %s, u.pool_id, u.principal, u.n"
                    " FROM unnest(%s::text[], %s::text[], %s::bigint[]) AS u(pool_id, principal, n)"
                    " WHERE EXISTS (SELECT 1 FROM pools WHERE pools.id = u.pool_id)"
                    " ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE"
                    " SET used_count = t.used_count + EXCLUDED.used_count, update_time = now()",
                    (
                        tenant,
                        [k[0] for k in keys],
                        [k[1] for k in keys],
                        [by_publisher[k] for k in keys],
                    ),
                )
        pending, self._pending = self._pending, defaultdict(lambda: defaultdict(int))
        for tenant, counts in pending.items():
            ids = list(counts)
            async with self.db.tenant_tx(tenant) as conn:
                await conn.execute(
                    "UPDATE memories m SET access_count = m.access_count + a.n,"
                    " last_access_time = now()"
                    " FROM unnest(%s::uuid[], %s::int[]) AS a(id, n) WHERE m.id = a.id",
                    (ids, [counts[i] for i in ids]),
                )


@dataclass
class RecallService:
    db: Database
    index: VectorIndex
    embedder: CachedEmbedder
    worker: IndexWorker
    access: AccessRecorder
    params: RankingParams = field(default_factory=RankingParams)
    # Ranking parameters per space policy (as stored JSON text).
    _params_by_policy: dict[str, RankingParams] = field(default_factory=dict, repr=False)

    async def recall(self, tenant: str, q: RecallQuery, deadline: float | None) -> RecallResult:
        validate(q)
        pending = 0
        if q.read_your_writes:
            budget = 5.0 if deadline is None else max(0.0, deadline - 0.05)
            pending = await self.worker.wait_until_indexed(tenant, budget)
            if pending:
                # Answering now could miss the caller's own writes: say so instead
                # of returning hits that may be stale.
                raise ReadYourWritesTimeout(pending, budget)
        hits = await (deep_ranked(self, tenant, q) if q.deep else self._ranked(tenant, q))
        if q.track_access and hits:
            self.access.record(tenant, [h.memory.id for h in hits])
        if hits and q.pools:
            uses = [
                (h.pool[len("pools/") :], h.publisher)
                for h in hits
                if h.pool and h.publisher not in q.reader
            ]
            if uses:
                self.access.record_pool_uses(tenant, uses)
        return RecallResult(hits, pending, self.embedder.name)

    async def near_duplicate(
        self,
        tenant: str,
        space: str,
        content: str,
        threshold: float,
        session: str | None = None,
    ) -> uuid.UUID | None:
        """The ACTIVE memory of `space` (of that `session` of it, when given) whose
        stemmed terms overlap `content`'s by at least `threshold` (Jaccard), if any;
        the lexical leg finds candidates."""
        terms = set(analyze(content))
        sparse = query_sparse_vector(content)
        if not terms or not sparse:
            return None
        where = IndexFilter(spaces=(space,), session=session)
        points = await self.index.search(tenant, None, sparse, where, 5)
        ids = [p.id for p in points if p.sparse_score]
        if not ids:
            return None
        async with self.db.tenant_tx(tenant) as conn:
            # The session is checked again on the row: the index may lag a revision.
            cur = await conn.execute(
                f"SELECT id, content FROM ({store.by_ids_sql('id, content, status, session')})"
                " AS c WHERE status = 'ACTIVE' AND (%s::text IS NULL OR session = %s)",
                (ids, session, session),
            )
            rows = await cur.fetchall()
        best: tuple[float, uuid.UUID] | None = None
        for row in rows:
            other = set(analyze(row["content"]))
            similarity = len(terms & other) / len(terms | other) if other else 0.0
            if similarity >= threshold and (best is None or similarity > best[0]):
                best = (similarity, row["id"])
        return best[1] if best else None

    def _space_params(self, policy_json: str) -> RankingParams:
        """The ranking parameters with a space policy's forgetting settings (the
        policy as stored JSON text; each distinct text is parsed once)."""
        params = self._params_by_policy.get(policy_json)
        if params is None:
            if len(self._params_by_policy) >= _POLICY_PARAMS_CACHE:
                self._params_by_policy.clear()
            params = self._params_for(json.loads(policy_json))
            self._params_by_policy[policy_json] = params
        return params

    def _params_for(self, policy: dict[str, Any] | None) -> RankingParams:
        if not policy:
            return self.params
        stability = float(policy.get("retention_stability_hours") or 0.0)
        exponents = policy.get("decay_exponents") or {}
        weights = policy.get("evidence_weights") or {}
        disabled = bool(policy.get("evidence_weights_disabled"))
        if not stability and not exponents and not weights and not disabled:
            return self.params
        merged = dict(self.params.decay_exponents)
        merged.update({Kind(k): float(v) for k, v in exponents.items() if k in Kind.__members__})
        deltas = dict(NO_EVIDENCE_DELTAS if disabled else self.params.evidence_deltas)
        if not disabled:
            deltas.update(
                {
                    EvidenceLevel(k): float(v)
                    for k, v in weights.items()
                    if k in EvidenceLevel.__members__ and k != "UNSPECIFIED"
                }
            )
        return replace(
            self.params,
            stability_base_hours=stability or self.params.stability_base_hours,
            decay_exponents=merged,
            evidence_deltas=deltas,
        )

    def _filter(self, q: RecallQuery) -> IndexFilter:
        statuses = [Status.ACTIVE.value]
        if q.include_superseded or q.valid_at is not None:
            # A fact that held at `valid_at` may have been superseded since.
            statuses.append(Status.SUPERSEDED.value)
        if q.include_expired:
            statuses.append(Status.EXPIRED.value)
        if q.known_at is not None:
            # What was believed then may have been retracted or replaced since; the
            # audit log decides per candidate (`_as_known_at`).
            statuses = [
                Status.ACTIVE.value,
                Status.PENDING_CONFIRMATION.value,
                Status.SUPERSEDED.value,
                Status.RETRACTED.value,
                Status.EXPIRED.value,
            ]
        min_rank = EVIDENCE_RANK.get(q.min_evidence_level.value, 0)
        return IndexFilter(
            spaces=q.spaces,
            space_prefixes=tuple(f"{s}/" for s in q.spaces) if q.include_subspaces else (),
            statuses=tuple(statuses),
            kinds=tuple(k.value for k in q.kinds),
            tags=q.tags,
            topic=q.topic or None,
            session=q.session or None,
            slot_keys=(q.slot_key,) if q.slot_key else (),
            created_after=q.create_time_start.timestamp() if q.create_time_start else None,
            created_before=q.create_time_end.timestamp() if q.create_time_end else None,
            min_evidence_level=min_rank or None,
            pools=tuple(p.pool_id for p in q.pools),
            # Code decisions live in spaces of their own: a recall that names no
            # space is a conversation recall and never returns them.
            excluded_space_prefixes=() if q.spaces else (DECISION_SPACES_PREFIX,),
        )

    async def _lexical_leg(
        self,
        tenant: str,
        sparse: SparseVector,
        flt: IndexFilter,
        limit: int,
        pools: tuple[PoolScope, ...] = (),
        reader: tuple[str, ...] = (),
    ) -> tuple[list[ScoredPoint], dict[uuid.UUID, dict[str, Any]]]:
        """The lexical leg's candidates, and their rows."""
        points = await self.index.search(tenant, None, sparse, flt, limit)
        rows = await self._rows(tenant, [p.id for p in points], pools, reader) if points else {}
        return list(points), rows

    def _rows(
        self,
        tenant: str,
        ids: list[uuid.UUID],
        pools: tuple[PoolScope, ...],
        reader: tuple[str, ...] = (),
    ) -> Any:
        """The candidates' rows: `_hydrate`, or `_hydrate_pools` for a pool recall."""
        if pools:
            return self._hydrate_pools(tenant, ids, pools, reader)
        return self._hydrate(tenant, ids)

    async def _hydrate_pools(
        self,
        tenant: str,
        ids: list[uuid.UUID],
        pools: tuple[PoolScope, ...],
        reader: tuple[str, ...],
    ) -> dict[uuid.UUID, dict[str, Any]]:
        """`_hydrate`'s rows, each also with the pool the caller reads it through
        (the one whose publisher it trusts most, among the pools where it is
        PUBLISHED with a visibility the caller may read, by its memberships as they
        are now: pools.recall.SCOPE_SQL), that publisher and its trust; in the same
        single round trip."""
        rows = await self.db.tenant_read(
            tenant,
            _HYDRATE_POOLS,
            (*scope_params(pools, reader), store.uuid_array_literal(ids)),
            prepared_as="engram_recall_pool_candidates",
        )
        return {row["id"]: row for row in rows}

    async def _hydrate(self, tenant: str, ids: list[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
        """Candidates' rows by id, each with its forgetting settings (its space's
        policy, else the tenant default), in one round trip (BEGIN, tenant scope,
        query and COMMIT sent together). The rows, not the index, are the truth: a
        memory retracted after it was indexed is dropped by its status here."""
        rows = await self.db.tenant_read(
            tenant,
            _HYDRATE,
            (store.uuid_array_literal(ids),),
            prepared_as="engram_recall_candidates",
        )
        return {row["id"]: row for row in rows}

    async def _ranked(
        self, tenant: str, q: RecallQuery, widened: Sequence[ScoredPoint] = ()
    ) -> list[Hit]:
        """The ranked hits; `widened` are more candidates (depth mode's)."""
        flt = self._filter(q)
        text = q.query.strip() or q.slot_key
        limit = max(CANDIDATES_PER_LEG, q.k * 4)
        sparse = query_sparse_vector(text)
        # The lexical leg needs no model: it searches the index and hydrates its
        # candidates from PostgreSQL while the query is embedded (inference runs
        # outside the GIL). It starts once the inference runs: the index search
        # holds the GIL, and would otherwise hold up the embedding's start by its
        # whole length (about 1 ms at 100k memories). The dense leg follows; if the
        # lexical leg is still reading its rows by then, the dense leg reads its own
        # at the same time (a candidate both legs found is read twice, which costs
        # less than waiting), else it reads only what the lexical leg did not bring.
        embedding = await self.embedder.begin_query(text, tenant)
        pools = q.pools
        lexical = (
            asyncio.ensure_future(self._lexical_leg(tenant, sparse, flt, limit, pools, q.reader))
            if sparse
            else None
        )
        dense_rows: asyncio.Future[dict[uuid.UUID, dict[str, Any]]] | None = None
        try:
            dense = await embedding
            dense_points = await self.index.search(tenant, dense.tolist(), None, flt, limit)
            if lexical is not None and not lexical.done() and dense_points:
                dense_rows = asyncio.ensure_future(
                    self._rows(tenant, [p.id for p in dense_points], pools, q.reader)
                )
            sparse_points, by_id = await lexical if lexical is not None else ([], {})
            if dense_rows is not None:
                by_id.update(await dense_rows)
        except BaseException:
            # Let reads in flight finish rather than cancel them inside a database
            # round trip; their own failures, if any, are not the one to report.
            await asyncio.gather(
                *(f for f in (lexical, dense_rows) if f is not None), return_exceptions=True
            )
            raise
        missing = [p.id for p in dense_points if p.id not in by_id]
        if widened:
            missing += [p.id for p in widened if p.id not in by_id]
        if missing:
            by_id.update(await self._rows(tenant, missing, pools, q.reader))
        if q.known_at is not None:
            by_id = await self._as_known_at(tenant, by_id, q.known_at)
        if q.valid_at is not None:
            by_id = {i: row for i, row in by_id.items() if _valid_at(row, q.valid_at)}
        points = combine_legs(dense_points, sparse_points)
        if widened:
            points = depth.widen(points, widened)
        if not points:
            return []
        candidates = [
            Candidate(p.id, p.dense_score, p.sparse_score, p.dense_rank, p.sparse_rank)
            for p in points
        ]
        allowed = set(flt.statuses)
        if q.known_at is not None:
            allowed = {Status.ACTIVE.value}  # as of known_at (rows rewritten above)
        now = q.now or datetime.now(UTC)
        fused = fused_scores(candidates, self.params)
        # A day or period the query names: memories said then move up.
        named_time = when.resolve(text, now) if self.params.time_weight > 0 else when.NOTHING
        anchor = anchored.NO_ANCHOR
        if self.params.time_anchors and self.params.time_weight > 0:
            # "Four weeks after he broke his wrist": the event's day, from the candidates.
            readable = [
                (p, row)
                for p in points
                if p.sparse_score
                and (row := by_id.get(p.id)) is not None
                and _may_anchor(row, q, allowed)
            ]
            named_time, anchor = _anchored_time(text, now, named_time, readable, fused)
        terms: frozenset[str] | None = None
        # The people the query names, for the speaker of "SPEAKER: text" memories.
        words = query_words(text) if self.params.speaker_weight > 0 else frozenset()
        ranked: list[_Ranked] = []
        own_spaces = frozenset(q.spaces)
        own_prefixes = tuple(f"{s}/" for s in q.spaces) if q.include_subspaces else ()
        # Ranked straight from the rows, final scores only: the breakdown and the
        # memory are built for the k hits returned.
        for p in points:
            row = by_id.get(p.id)
            if row is None or row["status"] not in allowed:
                continue  # purged, or its status changed after indexing
            trust = 1.0
            if pools:
                space = row["space"]
                if space in own_spaces or (own_prefixes and space.startswith(own_prefixes)):
                    row["pool_id"] = None
                elif row["pool_id"] is not None and row["status"] == "ACTIVE":
                    trust = row["pool_trust"]
                else:
                    continue  # not in the caller's spaces, and no pool lets it read it
            if not q.spaces and row["space"].startswith(DECISION_SPACES_PREFIX):
                continue  # as the index filter, should the index lag behind
            slot_key = row["slot_key"]
            slot = 0.0
            if slot_key:
                if terms is None:
                    terms = frozenset(analyze(text))
                slot = slot_matches(q.slot_key, terms, slot_key)
            signals = MemorySignals(
                kind=_KINDS[row["kind"]],
                importance=row["importance"],
                access_count=row["access_count"],
                create_time=row["create_time"],
                last_access_time=row["last_access_time"],
                evidence_level=_EVIDENCE[row["evidence_level"]],
                slot_key=slot_key,
            )
            policy = row["space_policy"]
            params = self._space_params(policy) if policy else self.params
            timed = _time_match(named_time, row["valid_from"], params) if named_time else 0.0
            if anchor and p.id in anchor.told:
                timed = 1.0  # the anchor event's own turn: part of what the query asks
            said_by = speaker_match(row["content"], words) if words else 0.0
            final = final_score(fused[p.id], slot, signals, now, params, timed, said_by) * trust
            ranked.append((final, p, row, signals, slot, params, timed, said_by))
        support: dict[uuid.UUID, float] = {}
        if self.params.session_weight > 0 and ranked:
            # The turns of a session the query is about move up together.
            groups = [(_session_of(t[2]), t[0]) for t in ranked]
            extra = session_support(groups, self.params.session_weight)
            support = {t[1].id: boost for t, boost in zip(ranked, extra, strict=True)}
            ranked = [(t[0] + support[t[1].id], *t[1:]) for t in ranked]
        ranked = [t for t in ranked if t[0] >= q.min_score]
        # Ties by id: a UUID's integer orders like its canonical string.
        ranked.sort(key=lambda t: (-t[0], t[1].id.int))
        hits = [
            _hit(
                row,
                _supported(
                    score(fused[p.id], slot, signals, now, params, timed, said_by),
                    support.get(p.id, 0.0),
                ),
                p,
            )
            for _, p, row, signals, slot, params, timed, said_by in ranked[: q.k or DEFAULT_K]
        ]
        if q.graph is not None and hits:
            beyond = {
                p.id: (row, signals, slot, params, p)
                for _, p, row, signals, slot, params, _timed, _said in ranked[q.k or DEFAULT_K :]
            }
            hits = await self._expand(tenant, q, hits, beyond, fused, now)
        return hits

    async def _expand(
        self,
        tenant: str,
        q: RecallQuery,
        hits: list[Hit],
        beyond: dict[uuid.UUID, Any],
        fused: dict[object, tuple[float, float]],
        now: datetime,
    ) -> list[Hit]:
        """Graph-augmented recall: follows edges from the top hits and adds the
        memories reached, each with a boost that halves per hop. Strictly additive:
        every direct hit stays; an added hit is placed above a direct one only when
        its own score (without the boost) beats it. Both ends of every edge are read
        inside the tenant's transaction, so no edge leads to another tenant."""
        g = q.graph
        assert g is not None
        seen = {h.memory.id for h in hits}
        # Reached memory -> (root seed, root score, edge kind, boost).
        frontier: dict[uuid.UUID, tuple[uuid.UUID, float]] = {
            h.memory.id: (h.memory.id, h.breakdown.final) for h in hits[: g.seed_count or 5]
        }
        reached: dict[uuid.UUID, tuple[uuid.UUID, str, float]] = {}
        statuses = {Status.ACTIVE.value}
        if g.include_inactive:
            statuses |= {
                Status.RETRACTED.value,
                Status.EXPIRED.value,
                Status.SUPERSEDED.value,
            }
        rows: dict[uuid.UUID, dict[str, Any]] = {}
        share = g.hop_boost or 0.5
        kinds = "{" + ",".join(g.edge_kinds) + "}"
        for hop in range(1, (g.max_hops or 1) + 1):
            if not frontier:
                break
            # One round trip per hop: the edges touching the frontier, followed either
            # way, with the row of the memory at the other end (read in the tenant's
            # scope, so an end in another tenant could not be read even if it existed).
            reached_rows = await self.db.tenant_read(
                tenant,
                _NEIGHBOURS,
                (ids := store.uuid_array_literal(frontier), kinds, ids, kinds),
                prepared_as="engram_graph_neighbours",
            )
            found: dict[uuid.UUID, tuple[uuid.UUID, float, str, float, dict[str, Any]]] = {}
            for row in reached_rows:
                b = row["id"]
                if b in seen or b in reached:
                    continue
                if row["status"] not in statuses or not _in_spaces(row["space"], q):
                    continue
                if q.valid_at is not None and not _valid_at(row, q.valid_at):
                    continue
                root, root_score = frontier[row["graph_from"]]
                weight = row["graph_weight"] or 1.0
                boost = max(0.0, root_score) * share * 0.5 ** (hop - 1) * weight
                if b not in found or boost > found[b][3]:
                    found[b] = (root, root_score, row["graph_kind"], boost, row)
            next_frontier: dict[uuid.UUID, tuple[uuid.UUID, float]] = {}
            for b, (root, root_score, kind, boost, row) in found.items():
                reached[b] = (root, kind, boost)
                rows[b] = row
                next_frontier[b] = (root, root_score)
            frontier = next_frontier
        added: list[tuple[float, Hit]] = []
        for memory_id, (root, kind, boost) in reached.items():
            row = rows[memory_id]
            if memory_id in beyond:
                _, signals, slot, params, point = beyond[memory_id]
                own = score(fused[memory_id], slot, signals, now, params)
                ranks = (point.dense_rank, point.sparse_rank)
            else:
                level = _EVIDENCE[row["evidence_level"]]
                delta = evidence_delta(level, self.params)
                own = Breakdown(0.0, 0.0, 0.0, 0.0, 0.0, row["importance"], 0.0, 0.0, delta, delta)
                ranks = (None, None)
            breakdown = replace(own, graph_boost=boost, final=own.final + boost)
            if breakdown.final < q.min_score:
                continue
            added.append((own.final, Hit(_memory(row), breakdown, *ranks, root, kind)))
        added.sort(key=lambda t: (-t[1].breakdown.final, t[1].memory.id.int))
        added = added[: max(q.k or DEFAULT_K, MAX_GRAPH_ADDED)]
        # Placement: direct hits by their score, added hits by their own score.
        merged = [(h.breakdown.final, 0, i, h) for i, h in enumerate(hits)]
        merged += [(own, 1, i, h) for i, (own, h) in enumerate(added)]
        merged.sort(key=lambda t: (-t[0], t[1], t[2]))
        return [h for *_, h in merged]

    async def _as_known_at(
        self, tenant: str, by_id: dict[uuid.UUID, dict[str, Any]], known_at: datetime
    ) -> dict[uuid.UUID, dict[str, Any]]:
        """The candidates as Engram believed them at `known_at`: created by then,
        ACTIVE then by the audit log, with the content of their revision then and
        their grade then. The others are dropped."""
        ids = [i for i, row in by_id.items() if row["create_time"] <= known_at]
        if not ids:
            return {}
        async with self.db.tenant_tx(tenant) as conn:
            cur = await conn.execute(
                "SELECT DISTINCT ON (memory_id) memory_id, to_status"
                " FROM audit_log WHERE memory_id = ANY(%s) AND create_time <= %s"
                " AND action = 'TRANSITION' ORDER BY memory_id, seq DESC",
                (ids, known_at),
            )
            status_then = {r["memory_id"]: r["to_status"] for r in await cur.fetchall()}
            cur = await conn.execute(
                "SELECT DISTINCT ON (memory_id) memory_id, details->>'to' AS level"
                " FROM audit_log WHERE memory_id = ANY(%s) AND create_time <= %s"
                " AND action = 'EVIDENCE' ORDER BY memory_id, seq DESC",
                (ids, known_at),
            )
            level_then = {r["memory_id"]: r["level"] for r in await cur.fetchall()}
            cur = await conn.execute(
                "SELECT DISTINCT ON (memory_id) memory_id, snapshot FROM memory_revisions"
                " WHERE memory_id = ANY(%s) AND create_time <= %s"
                " ORDER BY memory_id, revision DESC",
                (ids, known_at),
            )
            snapshot_then = {r["memory_id"]: r["snapshot"] for r in await cur.fetchall()}
        out: dict[uuid.UUID, dict[str, Any]] = {}
        for memory_id in ids:
            if status_then.get(memory_id) != Status.ACTIVE.value:
                continue
            row = dict(by_id[memory_id])
            row["status"] = Status.ACTIVE.value
            snapshot = snapshot_then.get(memory_id)
            if snapshot is not None:
                row["content"] = snapshot["content"]
                row["evidence_level"] = snapshot.get("evidence_level", row["evidence_level"])
                row["superseded_by"] = None
            if memory_id in level_then:
                row["evidence_level"] = level_then[memory_id]
            out[memory_id] = row
        return out


_KINDS = {kind.value: kind for kind in Kind}
_EVIDENCE = {level.value: level for level in EvidenceLevel}
# Candidates' rows with their JSON columns as text: a Recall reads 40-80 candidates
# and returns ten, so JSON is parsed only for the hits (`_memory`), and a space
# policy once per distinct text (`_space_params`), not once per row (measured at
# 40 rows: about a quarter of psycopg's work on the read).
_JSON_COLUMNS = ("structured_content", "attributes")
_CANDIDATE_COLUMNS = ", ".join(
    f"{column}::text AS {column}" if column in _JSON_COLUMNS else column
    for column in (c.strip() for c in store.MEMORY_COLUMNS.split(","))
)
_HYDRATE = (
    "SELECT c.*, p.policy::text AS space_policy"
    f" FROM ({store.by_ids_sql(_CANDIDATE_COLUMNS)}) AS c LEFT JOIN LATERAL ("
    "   SELECT policy FROM policies WHERE policies.space IN (c.space, '')"
    "   ORDER BY policies.space DESC LIMIT 1) p ON true"
)


# The same, with the pool each candidate is read through (see `_hydrate_pools`):
# the caller's pools and what it may read in each (`scope`, computed once).
_HYDRATE_POOLS = (
    f"WITH scope AS MATERIALIZED ({SCOPE_SQL})"
    " SELECT c.*, p.policy::text AS space_policy, pub.pool_id, pub.publisher,"
    " pub.trust AS pool_trust"
    f" FROM ({store.by_ids_sql(_CANDIDATE_COLUMNS)}) AS c LEFT JOIN LATERAL ("
    "   SELECT policy FROM policies WHERE policies.space IN (c.space, '')"
    "   ORDER BY policies.space DESC LIMIT 1) p ON true"
    " LEFT JOIN LATERAL ("
    "   SELECT x.pool_id, x.publisher,"
    f"   {pool_model.trust_sql('pl.initial_trust', 't')} AS trust"
    "     FROM publications x"
    "     JOIN scope w ON w.pool_id = x.pool_id"
    "     JOIN pools pl ON pl.id = x.pool_id"
    "     LEFT JOIN pool_trust t ON t.pool_id = x.pool_id AND t.principal = x.publisher"
    "    WHERE x.memory_id = c.id AND x.state = 'PUBLISHED'"
    "      AND x.visibility = ANY(w.vis)"
    "    ORDER BY trust DESC, x.pool_id LIMIT 1) pub ON true"
)


def _hit(row: dict[str, Any], breakdown: Breakdown, p: ScoredPoint) -> Hit:
    pool_id = row.get("pool_id")
    trust = float(row.get("pool_trust") or 0.0)
    if pool_id is None:
        return Hit(_memory(row), breakdown, p.dense_rank, p.sparse_rank)
    scaled = replace(
        breakdown,
        base_score=breakdown.base_score * trust,
        evidence_delta=breakdown.evidence_delta * trust,
        final=breakdown.final * trust,
        trust=trust,
    )
    return Hit(
        _memory(row),
        scaled,
        p.dense_rank,
        p.sparse_rank,
        pool=f"pools/{pool_id}",
        publisher=row["publisher"],
    )


# Graph expansion's read: every edge of the given kinds touching the frontier, either
# way, joined to the memory at the other end (its columns as the candidates' read).
_NEIGHBOURS = (
    "SELECT e.graph_from, e.graph_kind, e.graph_weight, c.* FROM ("
    "  SELECT source_id AS graph_from, target_id AS graph_to, kind AS graph_kind,"
    "         weight AS graph_weight FROM edges"
    "   WHERE source_id = ANY(%s::uuid[]) AND kind = ANY(%s::text[])"
    "  UNION ALL"
    "  SELECT target_id, source_id, kind, weight FROM edges"
    "   WHERE target_id = ANY(%s::uuid[]) AND kind = ANY(%s::text[])"
    ") AS e CROSS JOIN LATERAL ("
    f" SELECT {_CANDIDATE_COLUMNS} FROM memories WHERE memories.id = e.graph_to OFFSET 0) AS c"
)


def _session_of(row: dict[str, Any]) -> object:
    """The group whose best candidate lends support: the memory's session in its
    space, or the memory alone when it has none."""
    session = row["session"]
    return (row["space"], session) if session else row["id"]


def _supported(breakdown: Breakdown, boost: float) -> Breakdown:
    if not boost:
        return breakdown
    # Part of the score before the evidence grade's adjustment, like the time match.
    return replace(
        breakdown,
        session_support=boost,
        base_score=breakdown.base_score + boost,
        final=breakdown.final + boost,
    )


def _time_match(named: when.Resolved, valid_from: datetime | None, params: RankingParams) -> float:
    """How well a memory's `valid_from` (when it was said) matches the time the
    query names; 0 for a memory without one."""
    if valid_from is None:
        return 0.0
    said = valid_from.astimezone(UTC).date()
    return when.time_match(named.windows, said, params.time_before_days, params.time_after_days)


def _anchored_time(
    text: str,
    now: datetime,
    named: when.Resolved,
    candidates: Sequence[tuple[ScoredPoint, dict[str, Any]]],
    fused: dict[object, tuple[float, float]],
) -> tuple[when.Resolved, anchored.Anchor]:
    """`named` with the window of a time the query anchors on another date or event
    (`recall/anchored.py`), and the candidates telling that event. An event's day is
    that of those candidates (the lexical leg's: only they can hold its words).
    Unchanged when nothing is clear."""
    expression, named = anchored.resolve(text, now, named)
    if expression is None:
        return named, anchored.NO_ANCHOR
    told = (
        anchored.Told(
            row["content"],
            row["valid_from"].astimezone(UTC).date() if row["valid_from"] else None,
            sum(fused[p.id]),
            p.id,
        )
        for p, row in candidates
    )
    anchor = anchored.find_anchor(expression.terms(), told)
    return anchored.with_anchor_days(named, expression, anchor.days), anchor


def _may_anchor(row: dict[str, Any], q: RecallQuery, allowed: set[str]) -> bool:
    """Whether a candidate may date an anchor event: a memory the caller reads in
    its own spaces, never one it could not be shown (its status, a decision space)
    nor one read through a pool (another publisher's words)."""
    if row["status"] not in allowed:
        return False
    if q.spaces:
        return _in_spaces(row["space"], q)
    return not q.pools and not row["space"].startswith(DECISION_SPACES_PREFIX)


def _valid_at(row: dict[str, Any], moment: datetime) -> bool:
    """Whether a memory's fact held in the world at `moment` (open bounds hold)."""
    start, end = row.get("valid_from"), row.get("valid_to")
    return (start is None or start <= moment) and (end is None or moment < end)


def _in_spaces(space: str, q: RecallQuery) -> bool:
    # A recall over pools alone reaches no neighbour outside them: graph expansion
    # only follows edges into the caller's own spaces.
    if not q.spaces:
        return False
    if space in q.spaces:
        return True
    return q.include_subspaces and any(space.startswith(f"{s}/") for s in q.spaces)


def _memory(row: dict[str, Any]) -> Memory:
    """A candidate row (JSON columns still text) as a Memory."""
    parsed = dict(row)
    for column in _JSON_COLUMNS:
        text = parsed[column]
        if text is not None:
            parsed[column] = json.loads(text)
    return store.row_to_memory(parsed)


def parse_spaces(spaces: Sequence[str]) -> tuple[str, ...]:
    if len(spaces) > 32:
        raise InvalidArgument.field("spaces", "at most 32 spaces")
    return tuple(spaces)
