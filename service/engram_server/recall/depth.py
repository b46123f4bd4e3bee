"""Depth mode's candidate widening, pure: which sessions to widen and how the
widened points join the first pass's.

Evidence of a multi-hop question sits in several sessions, and a turn that
answers it often shares no rare word with the question ("Did you go?" / "Yes,
twice"). The default pass takes the best 40 turns of each leg over the whole
tenant; depth mode adds, for the sessions of its best few hits, every turn of
those sessions the legs score at all, ranked by the same fusion as the rest. A
session the question is about then contributes its quieter turns too, and the
first pass's hits keep their scores (nothing is discounted or re-weighted).

Measured on REALTALK's dev split (eval/lab/realtalk_lab.py): a second search
expanded with the top hits' distinctive terms (joint or per hit, fused by RRF or
at a discount) gained nothing, as pseudo-relevance feedback did before; widening
the sessions of the top five hits did (docs/recall-quality.md, "Depth mode").
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence

from engram_server.store.vectors import ScoredPoint

# The hits whose sessions are widened (3: +0.008 recall@10 on dev, 5: +0.012,
# 8: +0.013, 10: +0.007).
SEED_HITS = 5
# Turns read per widened session and leg: a REALTALK session has 20-80 turns.
SESSION_LIMIT = 64


def seed_sessions(sessions: Iterable[str], limit: int = SEED_HITS) -> list[str]:
    """The distinct non-empty sessions of the best `limit` hits (given best first),
    in that order."""
    out: list[str] = []
    for i, session in enumerate(sessions):
        if i >= limit:
            break
        if session and session not in out:
            out.append(session)
    return out


def widen(points: Sequence[ScoredPoint], extra: Iterable[ScoredPoint]) -> list[ScoredPoint]:
    """The first pass's points with the widened ones joined: a point both have
    keeps its ranks and gains the leg score it lacked; a new point comes after
    them without ranks (no leg of the first pass returned it)."""
    by_id: dict[uuid.UUID, ScoredPoint] = {p.id: p for p in points}
    added: dict[uuid.UUID, ScoredPoint] = {}
    for e in extra:
        known = by_id.get(e.id)
        if known is not None:
            if (known.dense_score is None and e.dense_score is not None) or (
                known.sparse_score is None and e.sparse_score is not None
            ):
                by_id[e.id] = ScoredPoint(
                    known.id,
                    known.dense_score if known.dense_score is not None else e.dense_score,
                    known.sparse_score if known.sparse_score is not None else e.sparse_score,
                    known.dense_rank,
                    known.sparse_rank,
                )
            continue
        seen = added.get(e.id)
        added[e.id] = ScoredPoint(
            e.id,
            _best(seen.dense_score if seen else None, e.dense_score),
            _best(seen.sparse_score if seen else None, e.sparse_score),
        )
    return [*(by_id[p.id] for p in points), *added.values()]


def _best(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)
