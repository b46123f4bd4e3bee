"""Neighbour context: a conversation turn is indexed with the turn before it.

Turns are short and elliptic ("Yes, twice!", "Where was that?"): alone, neither
leg can tell what they are about. Each memory that belongs to a session is
therefore indexed with its session's previous memory as context, in both legs,
while its stored content stays exactly what was proposed:

- dense: the unit vector of own + `dense_weight` * previous, both the memories'
  own embeddings. The previous memory's vector is normally already in the
  embedding cache (it was embedded when it was indexed), so context costs no
  extra inference run, unlike embedding the two texts together;
- lexical: the memory's BM25 term-frequency weights plus `lexical_weight` times
  the previous memory's, so a word said just before still matches, below the
  memory's own words.

A memory without a session, or the first of its session, is indexed alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engram_server.lexical.sparse import SparseVector


@dataclass(frozen=True)
class ContextParams:
    """How much of the previous turn goes into a turn's index entry (0: none)."""

    dense_weight: float = 0.0
    lexical_weight: float = 0.0

    def __post_init__(self) -> None:
        if not (0.0 <= self.dense_weight <= 1.0 and 0.0 <= self.lexical_weight <= 1.0):
            raise ValueError("neighbour context weights must be between 0 and 1")

    @property
    def enabled(self) -> bool:
        return self.dense_weight > 0 or self.lexical_weight > 0


def with_context_terms(own: SparseVector, context: SparseVector, weight: float) -> SparseVector:
    """`own` plus `weight` times `context`, dimension by dimension."""
    if weight <= 0 or not context:
        return own
    merged = dict(zip(own.indices, own.values, strict=True))
    for dim, value in zip(context.indices, context.values, strict=True):
        merged[dim] = merged.get(dim, 0.0) + weight * value
    dims = sorted(merged)
    return SparseVector(dims, [merged[d] for d in dims])


def with_context_vector(
    own: npt.NDArray[np.float32], context: npt.NDArray[np.float32], weight: float
) -> npt.NDArray[np.float32]:
    """The unit vector of `own` + `weight` * `context` (`own` if that is zero)."""
    if weight <= 0:
        return own
    mixed = own + np.float32(weight) * context
    norm = float(np.linalg.norm(mixed))
    if norm == 0.0:
        return own
    out: npt.NDArray[np.float32] = (mixed / norm).astype(np.float32)
    return out
