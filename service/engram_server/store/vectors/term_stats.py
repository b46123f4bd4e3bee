"""Per-tenant document frequencies of sparse terms, and BM25 IDF from them.

The embedded index scores the lexical leg as Okapi BM25: documents store the
term-frequency part (engram_server.lexical.sparse) and the query carries each
term's IDF over the tenant's own points. Asking the engine to compute that IDF on
every query (Qdrant's IDF modifier with a tenant corpus filter) walks each query
term's postings through the tenant filter: at 100k memories about 2 of a lexical
search's 3.5 ms. Counting instead as points are written makes IDF a dictionary
lookup per query term, with the same scores.

Counts are derived state. The embedded index builds a tenant's from its points the
first time it is searched (one scan, ~10 µs a point) and then keeps them exact by
every write that adds, replaces or removes one of its sparse vectors. The server
adapter cannot keep them in process (other replicas write to the same collection),
so it asks the Qdrant server for the counts of a query's terms over the tenant's
points (`TermCounts.of`) and weighs the query with them the same way: neither
adapter needs the engine's IDF modifier, and both score Okapi BM25 per tenant.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from engram_server.lexical.sparse import SparseVector


def bm25_idf(docs: int, df: int) -> float:
    """Okapi BM25's IDF with Lucene's +1 (never negative): ln(1 + (N - n + 0.5) / (n + 0.5)),
    the formula Qdrant's IDF modifier uses."""
    return math.log(1.0 + (docs - df + 0.5) / (df + 0.5))


class TermCounts:
    """One tenant's sparse corpus: how many points carry a sparse vector (`docs`)
    and, per term dimension, in how many of them it occurs (`df`)."""

    __slots__ = ("df", "docs")

    def __init__(self) -> None:
        self.docs = 0
        self.df: dict[int, int] = {}

    @classmethod
    def of(cls, docs: int, df: dict[int, int]) -> TermCounts:
        """Counts read elsewhere (a Qdrant server's, for the terms of one query)."""
        counts = cls()
        counts.docs = docs
        counts.df = {dim: n for dim, n in df.items() if n > 0}
        return counts

    def add(self, indices: Iterable[int]) -> None:
        """Counts a document with these (distinct) term dimensions."""
        df = self.df
        self.docs += 1
        for dim in indices:
            df[dim] = df.get(dim, 0) + 1

    def remove(self, indices: Iterable[int]) -> None:
        """Uncounts a document counted with these term dimensions."""
        df = self.df
        self.docs -= 1
        for dim in indices:
            left = df.get(dim, 0) - 1
            if left > 0:
                df[dim] = left
            else:
                df.pop(dim, None)

    def weigh(self, query: SparseVector) -> SparseVector:
        """The query with each term's weight multiplied by its IDF here. Terms no
        document of the tenant holds are left out: they could match nothing."""
        df = self.df
        docs = self.docs
        indices: list[int] = []
        values: list[float] = []
        for dim, weight in zip(query.indices, query.values, strict=True):
            n = df.get(dim)
            if n:
                indices.append(dim)
                values.append(weight * bm25_idf(docs, n))
        return SparseVector(indices, values)


def apply_changes(
    counts: TermCounts,
    removed: Sequence[Sequence[int]],
    added: Sequence[Sequence[int]],
) -> None:
    """Uncounts the documents in `removed` and counts those in `added`."""
    for indices in removed:
        counts.remove(indices)
    for indices in added:
        counts.add(indices)
