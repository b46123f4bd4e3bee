"""Ranking metrics over one question: pure functions of a ranking and its labels.

`ranked` is the retriever's answer, best first, ids distinct. `relevant` maps the
ids that answer the question to a grade (2 answers it, 1 supports the answer);
ids it does not name count as irrelevant.

- recall@k: the share of graded ids (any grade) found in the first k.
- reciprocal rank: 1 / rank of the first graded id, 0 if none was returned. MRR
  is its mean over questions.
- nDCG@k: DCG of the first k with gain 2^grade - 1 and discount 1/log2(rank + 1),
  divided by the DCG of the ideal ranking (grades sorted, best first).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence


def _checked(ranked: Sequence[str], relevant: Mapping[str, int], k: int | None = None) -> None:
    if k is not None and k < 1:
        raise ValueError("k must be at least 1")
    if not any(grade > 0 for grade in relevant.values()):
        raise ValueError("a question needs at least one relevant id")
    if len(set(ranked)) != len(ranked):
        raise ValueError("ranked ids must be distinct")


def recall_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    _checked(ranked, relevant, k)
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def reciprocal_rank(ranked: Sequence[str], relevant: Mapping[str, int]) -> float:
    _checked(ranked, relevant)
    for rank, doc in enumerate(ranked, 1):
        if relevant.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def dcg(grades: Sequence[int]) -> float:
    """Discounted cumulative gain of grades in rank order."""
    return sum((2.0**grade - 1.0) / math.log2(rank + 1) for rank, grade in enumerate(grades, 1))


def ndcg_at_k(ranked: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    _checked(ranked, relevant, k)
    ideal = dcg(sorted((g for g in relevant.values() if g > 0), reverse=True)[:k])
    return dcg([relevant.get(doc, 0) for doc in ranked[:k]]) / ideal


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def paired_bootstrap_ci(
    system: Sequence[float],
    baseline: Sequence[float],
    resamples: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Confidence interval of mean(system - baseline) by resampling questions.

    Both sequences hold one value per question, in the same order. The interval
    says how much the gap could move with another draw of questions like these.
    """
    if len(system) != len(baseline):
        raise ValueError("the two systems must be scored on the same questions")
    if not system:
        return (0.0, 0.0)
    deltas = [a - b for a, b in zip(system, baseline, strict=True)]
    rng = random.Random(seed)
    n = len(deltas)
    means = sorted(sum(deltas[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1.0 - confidence) / 2
    low = means[int(tail * (resamples - 1))]
    high = means[math.ceil((1.0 - tail) * (resamples - 1))]
    return (low, high)
