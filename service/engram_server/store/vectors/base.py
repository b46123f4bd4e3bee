"""The vector index behind Recall: one interface, an embedded and a server adapter.

Qdrant holds a derived index of memories (PostgreSQL stays the source of truth and
`engram reindex` rebuilds it). One collection serves every tenant: each point carries
its tenant in a payload field indexed with `is_tenant`, and every read and write the
adapters issue is scoped by a tenant condition built here from the `tenant_id`
argument. Callers describe what they want with `IndexFilter`, a closed set of typed
fields that can only add `must` conditions under that tenant condition, so no
filter a caller builds can widen a search beyond its tenant.

Each point has a named dense vector (`dense`, cosine) and a named sparse vector
(`bm25`: term-frequency weights from `engram_server.lexical`, scored with BM25 IDF
over the tenant's own points: each adapter weighs the query's terms with the
tenant's document frequencies, store/vectors/term_stats.py). `search` runs the two
legs separately and reports both scores per hit; fusion belongs to the recall domain.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from engram_server.embeddings.base import same_model
from engram_server.errors import FailedPrecondition, PreconditionViolation
from engram_server.lexical.sparse import SparseVector

if TYPE_CHECKING:
    from engram_server.lifecycle.model import Memory

DENSE_VECTOR = "dense"
SPARSE_VECTOR = "bm25"
TENANT_FIELD = "tenant"
# Keyword payload fields with an index; `space` also has a prefix index in the
# embedded shard (the server adapter matches `space_ancestors` instead).
KEYWORD_FIELDS = ("space", "status", "kind", "tags", "topic", "session", "slot_key", "pools")
FLOAT_FIELDS = ("create_time",)
INTEGER_FIELDS = ("evidence_level",)
# The server collection's layout, bumped when it changes in a way that needs a
# rebuild: 2 stores each point's ancestor spaces and sparse term dimensions and
# drops the server-side IDF modifier (see store/vectors/server.py).
LAYOUT_VERSION = 2

# Evidence levels as ranks, so "at least CORROBORATED" is a range condition.
EVIDENCE_RANK = {
    "UNSPECIFIED": 0,
    "UNVERIFIED": 1,
    "SINGLE_SOURCE": 2,
    "CORROBORATED": 3,
    "OFFICIAL": 4,
}


class IndexMismatch(FailedPrecondition):
    """The stored index was built for another embedding model or dimension."""

    def __init__(self, stored: str, wanted: str) -> None:
        super().__init__(
            f"the vector index was built for {stored}, but the server is configured for "
            f"{wanted}; vectors of different models are never mixed. Run `engram reindex` "
            "to rebuild the index from PostgreSQL for the configured model.",
            [PreconditionViolation("VECTOR_INDEX", "embedding model", f"{stored} != {wanted}")],
        )
        self.stored = stored
        self.wanted = wanted


class LayoutOutdated(IndexMismatch):
    """The stored index holds the configured model's points in another form: an
    older layout of the adapter, or vectors of another variant of the same model
    (`same_model`). PostgreSQL holds everything needed to rebuild it, so the
    server does that itself (an index of another model waits for `engram reindex`)."""


def rebuildable(stored_model: str, stored_dim: int, model: str, dense_dim: int) -> bool:
    """Whether an index of `stored_model` can be rebuilt for `model` without an
    operator: the same model (perhaps another variant of it) and dimension."""
    return stored_dim == dense_dim and same_model(stored_model, model)


def describe_model(model: str, dense_dim: int) -> str:
    return f"model {model!r} (dimension {dense_dim})"


@dataclass(frozen=True, slots=True)
class IndexPoint:
    """One memory as the index stores it.

    `payload` holds the filterable fields (see `memory_payload`); the adapter always
    sets the tenant field itself from `tenant_id`. A vector left as None is absent
    from the point (a memory is upserted with its sparse vector at write time, and
    `set_vectors` adds the dense one once it is embedded).
    """

    id: uuid.UUID
    tenant_id: str
    payload: Mapping[str, Any]
    dense: Sequence[float] | None = None
    sparse: SparseVector | None = None


@dataclass(frozen=True, slots=True)
class VectorUpdate:
    """New vectors for an existing point; None leaves that vector as it is."""

    id: uuid.UUID
    dense: Sequence[float] | None = None
    sparse: SparseVector | None = None


@dataclass(frozen=True, slots=True)
class IndexFilter:
    """What a search may return, inside the caller's tenant. All fields are ANDed.

    `spaces` and `space_prefixes` together form one OR group (a memory matches if its
    space equals one of `spaces` or starts with one of `space_prefixes`); empty both
    means every space. A prefix ends with "/" (a path boundary: `team-a/` holds
    `team-a/x`, not `team-ab`), so it is one of a memory's `space_ancestors`.
    `statuses` defaults to ACTIVE only; an empty tuple means any status. `tags`
    must all be present. `created_after` is inclusive and
    `created_before` exclusive (epoch seconds). `payload_match` adds exact matches on
    other payload keys; like every field here it can only narrow the result.
    """

    spaces: Sequence[str] = ()
    space_prefixes: Sequence[str] = ()
    statuses: Sequence[str] = ("ACTIVE",)
    kinds: Sequence[str] = ()
    tags: Sequence[str] = ()
    topic: str | None = None
    session: str | None = None
    slot_keys: Sequence[str] = ()
    created_after: float | None = None
    created_before: float | None = None
    min_evidence_level: int | None = None
    ids: Sequence[uuid.UUID] = ()
    # Pools whose published memories also match: they join `spaces` and
    # `space_prefixes` in their OR group (the payload lists a memory's pools).
    pools: Sequence[str] = ()
    payload_match: Mapping[str, str | int] = field(default_factory=dict)
    # Spaces starting with one of these are left out (decision spaces, from a
    # recall that did not name them).
    excluded_space_prefixes: Sequence[str] = ()


DEFAULT_FILTER = IndexFilter()


@dataclass(frozen=True, slots=True)
class ScoredPoint:
    """A hit: the memory id and its score and 1-based rank in each leg that found it."""

    id: uuid.UUID
    dense_score: float | None = None
    sparse_score: float | None = None
    dense_rank: int | None = None
    sparse_rank: int | None = None


# -- backend-neutral conditions ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Match:
    key: str
    value: str | int


@dataclass(frozen=True, slots=True)
class MatchAnyOf:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Prefix:
    key: str
    prefix: str


@dataclass(frozen=True, slots=True)
class Range:
    key: str
    gte: float | None = None
    lt: float | None = None


@dataclass(frozen=True, slots=True)
class IdIn:
    ids: tuple[uuid.UUID, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    """At least one of the conditions holds."""

    conditions: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class NoneOf:
    """None of the conditions holds."""

    conditions: tuple[Condition, ...]


Condition = Match | MatchAnyOf | Prefix | Range | IdIn | AnyOf | NoneOf


def check_tenant(tenant_id: str) -> str:
    if not isinstance(tenant_id, str) or not tenant_id:
        raise ValueError("a vector index operation needs a non-empty tenant id")
    return tenant_id


def tenant_condition(tenant_id: str) -> Match:
    return Match(TENANT_FIELD, check_tenant(tenant_id))


def space_ancestors(space: str) -> list[str]:
    """Every path prefix of `space` that ends at a "/", each with its "/":
    `a/b/c` -> [`a/`, `a/b/`]. A space starts with a prefix ending in "/" exactly
    when that prefix is in this list, so a subspace filter is a keyword match."""
    return [space[: i + 1] for i, char in enumerate(space) if char == "/"]


def check_space_prefix(prefix: str) -> str:
    if not prefix.endswith("/"):
        raise ValueError(f"a space prefix ends with '/' (a path boundary), not {prefix!r}")
    return prefix


def scoped_conditions(tenant_id: str, flt: IndexFilter = DEFAULT_FILTER) -> list[Condition]:
    """The `must` list of a search: the tenant first, then the filter's conditions."""
    conditions: list[Condition] = [tenant_condition(tenant_id)]
    for prefix in (*flt.space_prefixes, *flt.excluded_space_prefixes):
        check_space_prefix(prefix)
    space_group: list[Condition] = [Match("space", s) for s in flt.spaces]
    space_group += [Prefix("space", p) for p in flt.space_prefixes]
    if flt.pools:
        space_group.append(MatchAnyOf("pools", tuple(flt.pools)))
    if len(space_group) == 1:
        conditions.append(space_group[0])
    elif space_group:
        conditions.append(AnyOf(tuple(space_group)))
    if flt.statuses:
        conditions.append(MatchAnyOf("status", tuple(flt.statuses)))
    if flt.kinds:
        conditions.append(MatchAnyOf("kind", tuple(flt.kinds)))
    conditions += [Match("tags", tag) for tag in flt.tags]
    if flt.topic is not None:
        conditions.append(Match("topic", flt.topic))
    if flt.session is not None:
        conditions.append(Match("session", flt.session))
    if flt.slot_keys:
        conditions.append(MatchAnyOf("slot_key", tuple(flt.slot_keys)))
    if flt.created_after is not None or flt.created_before is not None:
        conditions.append(Range("create_time", gte=flt.created_after, lt=flt.created_before))
    if flt.min_evidence_level is not None:
        conditions.append(Range("evidence_level", gte=float(flt.min_evidence_level)))
    if flt.ids:
        conditions.append(IdIn(tuple(flt.ids)))
    conditions += [Match(key, value) for key, value in flt.payload_match.items()]
    if flt.excluded_space_prefixes:
        conditions.append(NoneOf(tuple(Prefix("space", p) for p in flt.excluded_space_prefixes)))
    return conditions


def point_payload(point: IndexPoint) -> dict[str, Any]:
    """The stored payload: the caller's fields with the tenant forced from `tenant_id`."""
    payload = dict(point.payload)
    payload[TENANT_FIELD] = check_tenant(point.tenant_id)
    return payload


def check_payload_update(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A payload change may never move a point to another tenant."""
    if TENANT_FIELD in payload:
        raise ValueError("the tenant of an indexed point cannot be changed")
    return dict(payload)


def check_dense(vector: Sequence[float] | None, dim: int) -> list[float] | None:
    if vector is None:
        return None
    if len(vector) != dim:
        raise ValueError(f"dense vector has dimension {len(vector)}, the index expects {dim}")
    # The engines convert and type-check the numbers themselves.
    return vector if isinstance(vector, list) else list(vector)


def merge_legs(
    dense_hits: Sequence[tuple[uuid.UUID, float]],
    sparse_hits: Sequence[tuple[uuid.UUID, float]],
) -> list[ScoredPoint]:
    """Joins the two legs' ranked hits by id; ordered by best rank, dense first on ties."""
    merged: dict[uuid.UUID, dict[str, Any]] = {}
    for rank, (point_id, score) in enumerate(dense_hits, start=1):
        merged[point_id] = {"dense_score": score, "dense_rank": rank}
    for rank, (point_id, score) in enumerate(sparse_hits, start=1):
        merged.setdefault(point_id, {}).update(sparse_score=score, sparse_rank=rank)
    hits = [ScoredPoint(point_id, **fields) for point_id, fields in merged.items()]
    hits.sort(key=_best_rank)
    return hits


def combine_legs(
    dense_points: Sequence[ScoredPoint], sparse_points: Sequence[ScoredPoint]
) -> list[ScoredPoint]:
    """Joins the results of a dense-only and a sparse-only `search` (in their own
    order) as one two-legged search would have returned them."""
    return merge_legs(
        [(p.id, p.dense_score or 0.0) for p in dense_points],
        [(p.id, p.sparse_score or 0.0) for p in sparse_points],
    )


def _best_rank(hit: ScoredPoint) -> tuple[int, int]:
    dense = hit.dense_rank if hit.dense_rank is not None else 1 << 30
    sparse = hit.sparse_rank if hit.sparse_rank is not None else 1 << 30
    return (min(dense, sparse), 0 if dense <= sparse else 1)


def memory_payload(memory: Memory, pools: Sequence[str] = ()) -> dict[str, Any]:
    """The filterable fields of a memory, in the form the index stores them;
    `pools` are the pools it is published in (a hint for pool recall, which
    checks every candidate's publication in PostgreSQL)."""
    return {
        "pools": sorted(pools),
        "space": memory.space,
        "status": str(memory.status),
        "kind": str(memory.kind),
        "tags": list(memory.tags),
        "topic": memory.topic,
        "session": memory.session,
        "slot_key": memory.slot_key,
        "create_time": memory.create_time.timestamp(),
        "evidence_level": EVIDENCE_RANK.get(str(memory.evidence_level), 0),
        "importance": float(memory.importance),
    }


class VectorIndex(Protocol):
    """What recall and the indexing worker need from a vector engine.

    Every method taking `tenant_id` touches only that tenant's points. Methods are
    coroutines; the embedded adapter runs its synchronous engine calls off the
    event loop.
    """

    async def ensure_collection(self, dense_dim: int, model: str) -> None:
        """Opens or creates the collection; raises IndexMismatch if it holds vectors
        of another model or dimension. Must be awaited before anything else."""
        ...

    async def recreate_collection(self, dense_dim: int, model: str) -> None:
        """Drops every point of every tenant and starts an empty collection for
        `model` (what `engram reindex` does before replaying PostgreSQL)."""
        ...

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Writes whole points (payload and vectors). A point id already owned by
        another tenant is never overwritten."""
        ...

    async def set_vectors(self, tenant_id: str, updates: Sequence[VectorUpdate]) -> None:
        """Sets vectors of existing points, keeping their payload and other vectors."""
        ...

    async def set_payload(
        self, tenant_id: str, ids: Sequence[uuid.UUID], payload: Mapping[str, Any]
    ) -> None:
        """Merges `payload` into the points' payloads (status changes and the like)."""
        ...

    async def delete(self, tenant_id: str, ids: Sequence[uuid.UUID]) -> None: ...

    async def search(
        self,
        tenant_id: str,
        dense: Sequence[float] | None,
        sparse: SparseVector | None,
        flt: IndexFilter = DEFAULT_FILTER,
        limit: int = 50,
    ) -> list[ScoredPoint]:
        """Runs the dense and the sparse leg (each up to `limit` hits) and joins them.
        Sparse IDF statistics are computed over the tenant's own points only."""
        ...

    async def count(self, tenant_id: str) -> int: ...

    async def warm(self) -> int:
        """Prepares per-tenant search state ahead of the first searches (the
        embedded index's term counts); returns how many tenants it prepared."""
        ...

    async def drop_tenant(self, tenant_id: str) -> int:
        """Deletes every point of the tenant; returns how many there were."""
        ...

    async def optimize(self) -> bool:
        """Builds approximate-search indexes and compacts segments, if the engine
        needs to be told; returns whether anything changed."""
        ...

    async def close(self) -> None: ...
