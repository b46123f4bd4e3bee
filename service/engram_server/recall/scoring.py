"""Ranking: fusion of the retrieval legs, then the memory's own signals.

Every number that goes into a final score is kept in a `Breakdown`, so a caller
can see why a memory ranked where it did.

Fusion. The dense leg (cosine similarity of MiniLM embeddings) and the lexical
leg (BM25 over stemmed terms) are normalised per query and mixed linearly, plus
an exact slot match. Linear fusion of normalised scores keeps the *margin* each
leg has over the other candidates, which rank-only RRF throws away; on
conversational data, where names and rare words carry the answer, that margin is
what keeps a strong lexical hit above a vaguely similar sentence. RRF remains
available (`FusionMode.RRF`) and the eval harness compares both.

Forgetting. Retention follows a power law computed at read time:
    retention(t) = (1 + t / (9 * stability)) ** -decay_exponent(kind)
    stability    = base_hours * (0.5 + importance) * (1 + ln(1 + access_count))
Semantic facts fade slowest, episodic ones fastest; importance and use make a
memory more stable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from engram_server.lifecycle.model import EvidenceLevel, Kind


class FusionMode(StrEnum):
    LINEAR = "LINEAR"
    RRF = "RRF"


DEFAULT_DECAY_EXPONENTS: dict[Kind, float] = {
    Kind.SEMANTIC: 0.8,
    Kind.PREFERENCE: 0.8,
    Kind.ENTITY: 0.7,
    Kind.DECISION: 0.8,
    Kind.PATTERN: 0.8,
    Kind.PROCEDURAL: 1.0,
    Kind.SUMMARY: 1.0,
    Kind.QUESTION: 1.1,
    Kind.ACTION: 1.1,
    Kind.EXPERIENCE: 1.1,
    Kind.EPISODIC: 1.3,
    Kind.EVENT: 1.3,
}

# Evidence-weighted recall: added to a graded memory's score (a space's policy may
# set its own). Ungraded memories are never adjusted, so a corpus without grades
# ranks exactly as it would without the adjustment.
EVIDENCE_DELTAS: dict[EvidenceLevel, float] = {
    EvidenceLevel.UNSPECIFIED: 0.0,
    EvidenceLevel.UNVERIFIED: -0.10,
    EvidenceLevel.SINGLE_SOURCE: 0.0,
    EvidenceLevel.CORROBORATED: 0.08,
    EvidenceLevel.OFFICIAL: 0.15,
}
NO_EVIDENCE_DELTAS: dict[EvidenceLevel, float] = dict.fromkeys(EvidenceLevel, 0.0)


@dataclass(frozen=True)
class RankingParams:
    """Tunable weights. The leg weights were tuned on REALTALK's dev conversations
    (real chat, docs/recall-quality.md): at 0.8 / 0.2 the dense leg's vague
    similarity of every short turn outweighed the one rare word that answers."""

    fusion: FusionMode = FusionMode.LINEAR
    lexical_weight: float = 0.6
    dense_weight: float = 0.4
    slot_weight: float = 0.25
    # Added to a candidate's fused score (times its match, 0-1) when the query
    # names a day or period and the memory's valid_from (when it was said) falls
    # in it (`recall/when.py`); a day before or after still matches at half
    # (time zones; plans told the day before, events the day after). Tuned on
    # REALTALK's dev conversations: 0.3 (0.4 and 0.5 rank the same).
    time_weight: float = 0.3
    time_before_days: int = 1
    time_after_days: int = 1
    # A time anchored on another date or event ("the week after his dog's
    # birthday", `recall/anchored.py`) is resolved to a window the same way, the
    # event's day taken from the candidates that tell it.
    time_anchors: bool = True
    # Session support: each candidate gains this times the best score among the
    # candidates of its session (relative to the best overall), so a turn of the
    # conversation the query is about outranks an equally scored stray one. On
    # REALTALK 0.1 gives most of what 0.2-0.3 add (dev +0.008 recall@10, report
    # +0.017) for a third of what they cost the synthetic set, whose paraphrase
    # questions match no word of their session's other turns.
    session_weight: float = 0.1
    # Added to a candidate said by a speaker the query names ("SPEAKER: text",
    # `recall/speakers.py`). The dense vector leaves the speaker out, so who said
    # it counts this much and no more: on REALTALK's dev conversations 0.05 keeps
    # the questions about a turn's own speaker where they were and ranks those
    # asked about the other speaker above BM25 (docs/recall-quality.md).
    speaker_weight: float = 0.05
    rrf_k: float = 60.0
    # How much the memory's own signals may move the fused score.
    importance_weight: float = 0.10
    retention_weight: float = 0.15
    recency_weight: float = 0.05
    recency_half_life_hours: float = 24.0 * 30
    stability_base_hours: float = 336.0
    decay_exponents: dict[Kind, float] = field(
        default_factory=lambda: dict(DEFAULT_DECAY_EXPONENTS)
    )
    evidence_deltas: dict[EvidenceLevel, float] = field(
        default_factory=lambda: dict(EVIDENCE_DELTAS)
    )


@dataclass(frozen=True)
class Candidate:
    """One memory as the index returned it, before ranking."""

    memory_id: object
    dense: float | None  # cosine similarity, None when the dense leg missed it
    lexical: float | None  # BM25 score, None when the lexical leg missed it
    dense_rank: int | None = None
    lexical_rank: int | None = None


@dataclass(frozen=True)
class MemorySignals:
    kind: Kind
    importance: float
    access_count: int
    create_time: datetime
    last_access_time: datetime | None
    evidence_level: EvidenceLevel
    slot_key: str


@dataclass(frozen=True)
class Breakdown:
    dense: float
    lexical: float
    fusion: float
    slot_match: float
    base_score: float
    importance: float
    retention: float
    recency: float
    evidence_delta: float
    final: float
    graph_boost: float = 0.0
    # How well the memory's valid_from matches a time the query names (0-1).
    time_match: float = 0.0
    # Added for the best candidate of the memory's session (`session_support`).
    session_support: float = 0.0
    # 1 when the query names the memory's speaker (`recall/speakers.py`).
    speaker_match: float = 0.0
    # The publisher's trust in the pool a hit was read from; 1 for own spaces.
    trust: float = 1.0


def retention(signals: MemorySignals, now: datetime, params: RankingParams) -> float:
    """Power-law retention in (0, 1], computed at read time."""
    anchor = signals.last_access_time or signals.create_time
    hours = max(0.0, (now - anchor).total_seconds() / 3600.0)
    stability = (
        params.stability_base_hours
        * (0.5 + signals.importance)
        * (1.0 + math.log1p(max(0, signals.access_count)))
    )
    exponent = params.decay_exponents.get(signals.kind, 1.0)
    return float((1.0 + hours / (9.0 * stability)) ** -exponent)


def recency(create_time: datetime, now: datetime, params: RankingParams) -> float:
    hours = max(0.0, (now - create_time).total_seconds() / 3600.0)
    return float(0.5 ** (hours / params.recency_half_life_hours))


def slot_matches(query_slot: str, query_terms: frozenset[str], slot_key: str) -> float:
    """1 for an exact slot match, 0.5 when the query names the slot's entity."""
    if not slot_key:
        return 0.0
    if query_slot and slot_key.lower() == query_slot.lower():
        return 1.0
    entity = slot_key.split("::", 1)[0].lower()
    return 0.5 if entity and entity in query_terms else 0.0


def fused_scores(
    candidates: Sequence[Candidate], params: RankingParams
) -> dict[object, tuple[float, float]]:
    """Per candidate: (dense part, lexical part), normalised to [0, 1] per query."""
    if params.fusion == FusionMode.RRF:
        out: dict[object, tuple[float, float]] = {}
        for c in candidates:
            d = 1.0 / (params.rrf_k + c.dense_rank) if c.dense_rank is not None else 0.0
            lx = 1.0 / (params.rrf_k + c.lexical_rank) if c.lexical_rank is not None else 0.0
            scale = params.rrf_k + 1.0  # rank 1 maps to 1.0
            out[c.memory_id] = (d * scale, lx * scale)
        return out
    max_lex = max((c.lexical or 0.0 for c in candidates), default=0.0)
    out = {}
    for c in candidates:
        # Cosine of MiniLM sentence vectors rarely goes below 0; clamp and use as is
        # so an absolute "this is similar" keeps its meaning across queries.
        dense = max(0.0, min(1.0, c.dense)) if c.dense is not None else 0.0
        lexical = (c.lexical or 0.0) / max_lex if max_lex > 0 else 0.0
        out[c.memory_id] = (dense, lexical)
    return out


def score(
    fused: tuple[float, float],
    slot: float,
    signals: MemorySignals,
    now: datetime,
    params: RankingParams,
    time_match: float = 0.0,
    speaker_match: float = 0.0,
) -> Breakdown:
    dense, lexical = fused
    fusion = params.dense_weight * dense + params.lexical_weight * lexical
    base = (
        fusion
        + params.slot_weight * slot
        + params.time_weight * time_match
        + params.speaker_weight * speaker_match
    )
    kept = retention(signals, now, params)
    fresh = recency(signals.create_time, now, params)
    evidence = evidence_delta(signals.evidence_level, params)
    adjusted = _adjusted(base, signals.importance, kept, fresh, params)
    return Breakdown(
        dense=dense,
        lexical=lexical,
        fusion=fusion,
        slot_match=slot,
        base_score=adjusted,
        importance=signals.importance,
        retention=kept,
        recency=fresh,
        evidence_delta=evidence,
        final=adjusted + evidence,
        time_match=time_match,
        speaker_match=speaker_match,
    )


def session_support(scored: Sequence[tuple[object, float]], weight: float) -> list[float]:
    """Per candidate, given (its group, its score) in any order: `weight` times the
    best score of its group divided by the best score of all (0 when none is
    positive). A group is a session; a memory without one is a group of its own,
    so it gets its own score's share like the best turn of a session does."""
    if weight <= 0 or not scored:
        return [0.0] * len(scored)
    best: dict[object, float] = {}
    for group, value in scored:
        if value > best.get(group, float("-inf")):
            best[group] = value
    top = max(best.values())
    if top <= 0:
        return [0.0] * len(scored)
    return [weight * max(0.0, best[group]) / top for group, _ in scored]


def evidence_delta(level: EvidenceLevel, params: RankingParams) -> float:
    """The score adjustment for a grade; always 0 for an ungraded memory."""
    if level == EvidenceLevel.UNSPECIFIED:
        return 0.0
    return params.evidence_deltas.get(level, 0.0)


def _adjusted(base: float, importance: float, kept: float, fresh: float, p: RankingParams) -> float:
    # Signals scale the fused relevance rather than add to it, so an important
    # but irrelevant memory never outranks a relevant one.
    multiplier = (
        1.0
        + p.importance_weight * (importance - 0.5) * 2.0
        + p.retention_weight * (kept - 1.0)
        + p.recency_weight * fresh
    )
    return base * multiplier


def final_score(
    fused: tuple[float, float],
    slot: float,
    signals: MemorySignals,
    now: datetime,
    params: RankingParams,
    time_match: float = 0.0,
    speaker_match: float = 0.0,
) -> float:
    """`score(...).final` without building the breakdown: Recall ranks every
    candidate with this and explains only the hits it returns."""
    dense, lexical = fused
    base = (
        params.dense_weight * dense
        + params.lexical_weight * lexical
        + params.slot_weight * slot
        + params.time_weight * time_match
        + params.speaker_weight * speaker_match
    )
    kept = retention(signals, now, params)
    fresh = recency(signals.create_time, now, params)
    adjusted = _adjusted(base, signals.importance, kept, fresh, params)
    if signals.evidence_level == EvidenceLevel.UNSPECIFIED:
        return adjusted
    return adjusted + evidence_delta(signals.evidence_level, params)
