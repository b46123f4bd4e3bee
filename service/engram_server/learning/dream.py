"""The Dream State plan: what an offline curation pass over one space would change.

Pure planning over the space's ACTIVE memories; `services/dream.py` applies a plan
through the lifecycle write path. The plan

- merges exact and near duplicates: same normalised text, or Jaccard similarity of
  their stemmed content words at or above `near_duplicate_jaccard`; in each cluster
  the best memory is kept (protected first, then evidence, confidence, importance,
  recency) and the others are superseded by it;
- never deprecates more than `max_ratio` of the space in one run (a hard cap, rounded
  down), and never touches a protected memory: evidence level OFFICIAL, or pinned
  (tag `pinned`, or attribute `pinned` = true) — protected memories may be kept as
  the survivor of a cluster or be the target of a relation, never changed;
- enriches tags with the memory's frequent keywords (stems recurring across the
  space, shown in their most common surface form);
- relates memories that share a proper name or a slot entity (RELATED edges).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engram_server.learning.text import entity_names, jaccard, known_names, term_set, terms
from engram_server.lifecycle.model import EvidenceLevel, Memory
from engram_server.lifecycle.validation import TAG_PATTERN

PINNED_TAG = "pinned"
PINNED_ATTRIBUTE = "pinned"
DEFAULT_MAX_RATIO = 0.1
NEAR_DUPLICATE_JACCARD = 0.8
MAX_NEW_TAGS = 2
MAX_TAGS_FOR_ENRICHMENT = 6
MAX_RELATIONS = 200
# An entity shared by more memories than this says nothing specific about them.
MAX_ENTITY_FANOUT = 8
_EVIDENCE_RANK = {
    EvidenceLevel.OFFICIAL: 4,
    EvidenceLevel.CORROBORATED: 3,
    EvidenceLevel.SINGLE_SOURCE: 2,
    EvidenceLevel.UNSPECIFIED: 1,
    EvidenceLevel.UNVERIFIED: 0,
}
_GENERIC_SLOT_ENTITIES = frozenset({"user", "me", "self", "project", "team"})
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
# Words too generic to say what a memory is about, even when frequent.
_GENERIC_WORDS = frozenset(
    """every also new one two many much more most some any each via use used uses using
    get got make made like just really thing things way ways time times day days week
    weeks year years today always never still user users""".split()
)


@dataclass(frozen=True)
class PlannedAction:
    action: str  # "merge", "deprecate", "tag", "relate", "conflict"
    memories: tuple[Memory, ...]
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)


def is_protected(m: Memory) -> bool:
    return (
        m.evidence_level == EvidenceLevel.OFFICIAL
        or PINNED_TAG in m.tags
        or m.attributes.get(PINNED_ATTRIBUTE, "").lower() in ("true", "1", "yes")
    )


def _normalised(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _keeper_rank(m: Memory) -> tuple[Any, ...]:
    return (
        is_protected(m),
        _EVIDENCE_RANK.get(m.evidence_level, 1),
        m.confidence,
        m.importance,
        -m.create_time.timestamp(),  # the original outranks a later repeat
        str(m.id),
    )


def duplicate_clusters(
    memories: Sequence[Memory], threshold: float = NEAR_DUPLICATE_JACCARD
) -> list[tuple[Memory, list[tuple[Memory, float]]]]:
    """(keeper, [(duplicate, similarity)]) for every cluster of two or more."""
    sets = [term_set(m.content) for m in memories]
    norms = [_normalised(m.content) for m in memories]
    parent = list(range(len(memories)))
    best: dict[int, float] = {}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # Candidate pairs share at least one term (an inverted index instead of n^2).
    postings: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        for t in s:
            postings[t].append(i)
    for i, s in enumerate(sets):
        candidates: set[int] = set()
        for t in s:
            if len(postings[t]) <= 200:
                candidates.update(j for j in postings[t] if j > i)
        for j in candidates:
            if memories[i].kind != memories[j].kind:
                continue
            if norms[i] == norms[j]:
                sim = 1.0
            else:
                sim = min(jaccard(s, sets[j]), 0.999)  # different text is never "exact"
                if sim < threshold:
                    continue
            parent[find(j)] = find(i)
            best[i] = max(best.get(i, 0.0), sim)
            best[j] = max(best.get(j, 0.0), sim)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(memories)):
        groups[find(i)].append(i)
    out: list[tuple[Memory, list[tuple[Memory, float]]]] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        ranked = sorted(members, key=lambda i: _keeper_rank(memories[i]), reverse=True)
        keeper = memories[ranked[0]]
        out.append((keeper, [(memories[i], round(best.get(i, 0.0), 3)) for i in ranked[1:]]))
    out.sort(key=lambda c: str(c[0].id))
    return out


def deprecation_cap(live: int, ratio: float) -> int:
    return int(live * ratio + 1e-9)


def keyword_tags(memories: Sequence[Memory]) -> dict[Any, tuple[str, ...]]:
    """New tags per memory id: its stems that recur in the space (2+ memories, at
    most half of them), most frequent first, in their most common spelling."""
    surface: dict[str, Counter[str]] = defaultdict(Counter)
    doc_terms: list[set[str]] = []
    for m in memories:
        seen: set[str] = set()
        for word in _WORD.findall(m.content):
            stems = terms(word)
            # A word longer than a tag may be (a pasted identifier) is no keyword:
            # revising a memory with it as a tag would be refused.
            if (
                len(stems) == 1
                and stems[0].isalpha()
                and word.lower() not in _GENERIC_WORDS
                and TAG_PATTERN.match(word)
            ):
                surface[stems[0]][word.lower()] += 1
                seen.add(stems[0])
        doc_terms.append(seen)
    df: Counter[str] = Counter(t for s in doc_terms for t in s)
    limit = max(2, len(memories) // 2)
    out: dict[Any, tuple[str, ...]] = {}
    for m, doc_stems in zip(memories, doc_terms, strict=True):
        if is_protected(m) or len(m.tags) >= MAX_TAGS_FOR_ENRICHMENT:
            continue
        ranked = sorted((s for s in doc_stems if 2 <= df[s] <= limit), key=lambda s: (-df[s], s))
        existing = {t.lower() for t in m.tags}
        spelled = [surface[s].most_common(1)[0][0] for s in ranked]
        new = [t for t in spelled if t not in existing][:MAX_NEW_TAGS]
        if new:
            out[m.id] = tuple(new)
    return out


def relations(
    memories: Sequence[Memory], already: set[tuple[Any, Any]]
) -> list[tuple[Memory, Memory, str]]:
    """(source, target, shared) pairs sharing a proper name or slot entity."""
    by_entity: dict[str, list[Memory]] = defaultdict(list)
    known = known_names(m.content for m in memories)
    for m in memories:
        keys = {f"name:{n}" for n in entity_names(m.content, known)}
        entity = m.slot_key.partition("::")[0] if m.slot_key else ""
        if entity and entity.lower() not in _GENERIC_SLOT_ENTITIES:
            keys.add(f"slot:{entity}")
        for k in keys:
            by_entity[k].append(m)
    out: list[tuple[Memory, Memory, str]] = []
    done = set(already)
    for key in sorted(by_entity):
        group = sorted(by_entity[key], key=lambda m: str(m.id))
        if len(group) < 2 or len(group) > MAX_ENTITY_FANOUT:
            continue
        for a_index, a in enumerate(group):
            for b in group[a_index + 1 :]:
                pair = (a.id, b.id)
                if pair in done or (b.id, a.id) in done:
                    continue
                done.add(pair)
                out.append((a, b, key.partition(":")[2]))
                if len(out) >= MAX_RELATIONS:
                    return out
    return out


def plan(
    memories: Sequence[Memory],
    max_ratio: float,
    related: set[tuple[Any, Any]],
    threshold: float = NEAR_DUPLICATE_JACCARD,
) -> list[PlannedAction]:
    """The deterministic plan for a space's ACTIVE memories."""
    actions: list[PlannedAction] = []
    cap = deprecation_cap(len(memories), max_ratio)
    deprecated: set[Any] = set()
    for keeper, duplicates in duplicate_clusters(memories, threshold):
        for duplicate, similarity in duplicates:
            if is_protected(duplicate):
                continue
            if len(deprecated) >= cap:
                continue  # left for a later run: the cap is hard
            deprecated.add(duplicate.id)
            exact = similarity >= 1.0
            actions.append(
                PlannedAction(
                    "merge",
                    (duplicate, keeper),
                    f"{'exact' if exact else 'near'} duplicate of {keeper.name}",
                    {"similarity": similarity, "kept": keeper.name, "transition": "SUPERSEDED"},
                )
            )
    survivors = [m for m in memories if m.id not in deprecated]
    new_tags = keyword_tags(survivors)
    for m in survivors:
        if m.id in new_tags:
            actions.append(
                PlannedAction(
                    "tag",
                    (m,),
                    "frequent keywords of the space",
                    {"tags_added": list(new_tags[m.id])},
                )
            )
    for a, b, shared in relations(survivors, related):
        actions.append(
            PlannedAction("relate", (a, b), f"both mention {shared}", {"kind": "RELATED"})
        )
    # Contradictions become conflicts for review, never silent retractions.
    for a, b, why in contradictions(survivors):
        actions.append(PlannedAction("conflict", (a, b), why, {"detector": "dream"}))
    return actions


MAX_CONFLICTS = 20


def contradictions(memories: Sequence[Memory]) -> list[tuple[Memory, Memory, str]]:
    """Pairs the assessor's deterministic judge finds contradicting, among memories
    that share at least two content words (an inverted index keeps it near-linear)."""
    from engram_server.evidence.judge import features, judge

    by_term: dict[str, list[int]] = {}
    feats = [features(m.content) for m in memories]
    for i, f in enumerate(feats):
        for term in f.core:
            by_term.setdefault(term, []).append(i)
    shared: dict[tuple[int, int], int] = {}
    for ids in by_term.values():
        if len(ids) > 50:
            continue  # a word most memories share says nothing
        for x in range(len(ids)):
            for y in range(x + 1, len(ids)):
                pair = (ids[x], ids[y])
                shared[pair] = shared.get(pair, 0) + 1
    out: list[tuple[Memory, Memory, str]] = []
    for (i, j), count in sorted(shared.items()):
        if count < 2:
            continue
        verdict = judge(memories[i], memories[j])
        if verdict.verdict == "contradict":
            out.append((memories[i], memories[j], verdict.explanation))
            if len(out) >= MAX_CONFLICTS:
                break
    return out
