"""Sparse (BM25) vectors from index terms, with no vocabulary table.

A term's dimension is the CRC-32 of its UTF-8 bytes: stable across processes and
releases, so documents indexed today and queries made next year agree without a
shared dictionary. Collisions merge two terms into one dimension; with a 2^32 space a
corpus of a million distinct terms has on the order of a hundred colliding pairs,
each only blurring two rare terms, which does not measurably move rankings.

Weights are split so that IDF can stay live (it changes as memories come and go,
which stored weights could not):

- a document stores the BM25 term-frequency part, tf * (k1 + 1) / (tf + k1 * (1 - b
  + b * len / avg_len)), which saturates repeated terms and normalises for length;
- a query stores 1.0 per distinct term, and the index multiplies each by the term's
  IDF over the tenant's own points at search time (the tenant's term counts:
  kept by the embedded index, read from a Qdrant server; store/vectors/term_stats.py).

The product summed over the query terms is exactly Okapi BM25.
Plain tf would let a memory that repeats a word ten times outrank a focused one,
and memories vary from a line to a page, so both BM25 corrections are worth it.
`avg_len` and `b` are fixed when a document is indexed; changing them needs a reindex.

A name a turn addresses its listener by ("Thanks, Luca!", `lexical.addressee`)
is indexed at `ADDRESSEE_WEIGHT` of a word's weight: 0, left out. Any smaller
weight still makes the greeting the best lexical match of a question whose
only shared word is the name, and the lexical leg is scaled to its best match,
so down-weighting alone moves nothing there (measured: docs/recall-quality.md).
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engram_server.lexical.addressee import addressee_text
from engram_server.lexical.analyzer import analyze

# The share of a word's weight an addressed name is indexed at (`weighted_terms`).
ADDRESSEE_WEIGHT = 0.0


@dataclass(frozen=True, slots=True)
class SparseVector:
    """Non-zero dimensions of a sparse vector, indices sorted ascending and unique."""

    indices: list[int] = field(default_factory=list)
    values: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.indices) != len(self.values):
            raise ValueError("sparse vector needs as many values as indices")

    def __bool__(self) -> bool:
        return bool(self.indices)


@dataclass(frozen=True, slots=True)
class Bm25Params:
    """BM25 document weighting; the defaults suit memories of one to a few sentences.

    `b` is 0.3 rather than the textbook 0.75: a memory that says more (a chat
    turn of several sentences, a note) is less penalised for its length, and on
    real conversations the longer turn is more often the one that answers. Chosen
    on REALTALK's dev split, where MRR rose 0.497 -> 0.512; on data nobody tuned on
    MRR rose too (REALTALK report 0.491 -> 0.504, the shipped set 0.552 -> 0.582),
    recall@10 level (docs/recall-quality.md, "Length normalisation").
    """

    k1: float = 1.2
    b: float = 0.3
    avg_len: float = 24.0

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0.0 <= self.b <= 1.0 or self.avg_len <= 0:
            raise ValueError("BM25 needs k1 >= 0, 0 <= b <= 1 and avg_len > 0")


DEFAULT_BM25 = Bm25Params()


def term_id(term: str) -> int:
    """The sparse dimension of a term (unsigned 32-bit)."""
    return zlib.crc32(term.encode("utf-8"))


def document_vector(terms: Sequence[str], params: Bm25Params = DEFAULT_BM25) -> SparseVector:
    """BM25 term-frequency weights of a document's terms (IDF is left to the engine)."""
    return _sorted(_dims(term_weights(Counter(terms), params)))


def term_weights(
    counts: Mapping[str, int],
    params: Bm25Params = DEFAULT_BM25,
    shares: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """BM25 term-frequency weight of each term, times its share (1 unless given)."""
    if not counts:
        return {}
    k1, b = params.k1, params.b
    norm = k1 * (1.0 - b + b * sum(counts.values()) / params.avg_len)
    shares = shares or {}
    return {
        term: shares.get(term, 1.0) * tf * (k1 + 1.0) / (tf + norm) for term, tf in counts.items()
    }


def _dims(weights: Mapping[str, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for term, weight in weights.items():
        if weight > 0:
            dim = term_id(term)
            out[dim] = out.get(dim, 0.0) + weight
    return out


def query_vector(terms: Iterable[str]) -> SparseVector:
    """Weight 1.0 per distinct query term: the score becomes the sum of IDF * tf part."""
    return _sorted(dict.fromkeys((term_id(t) for t in terms), 1.0))


def weighted_terms(
    text: str,
    *,
    language: str | None = "auto",
    params: Bm25Params = DEFAULT_BM25,
    addressee_weight: float = ADDRESSEE_WEIGHT,
) -> dict[str, float]:
    """BM25 term-frequency weights of `text`'s terms; a term whose occurrences
    address the listener keeps `addressee_weight` of its weight for those (a name
    only ever used to address someone weighs that share of a word)."""
    counts = Counter(analyze(text, language))
    shares: dict[str, float] = {}
    if addressee_weight < 1.0:
        addressed = Counter(analyze(addressee_text(text), language))
        for term, n in addressed.items():
            total = counts.get(term, 0)
            if total:
                n = min(n, total)
                shares[term] = (total - n + addressee_weight * n) / total
    return term_weights(counts, params, shares)


def sparse_vector(
    text: str,
    *,
    language: str | None = "auto",
    params: Bm25Params = DEFAULT_BM25,
    addressee_weight: float = ADDRESSEE_WEIGHT,
) -> SparseVector:
    """The document-side sparse vector of `text`."""
    return _sorted(
        _dims(
            weighted_terms(
                text, language=language, params=params, addressee_weight=addressee_weight
            )
        )
    )


def query_sparse_vector(text: str, *, language: str | None = "auto") -> SparseVector:
    """The query-side sparse vector of `text`."""
    return query_vector(analyze(text, language))


def _sorted(weights: dict[int, float]) -> SparseVector:
    dims = sorted(weights)
    return SparseVector(dims, [weights[d] for d in dims])
