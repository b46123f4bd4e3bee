"""The deterministic judge of the corroboration assessor: does one memory agree
with, contradict, or say nothing about another?

No model is involved. Two statements are compared on
- their slot keys: the same `entity::attribute` with the same value agrees, with a
  different value contradicts;
- their words: near-duplicate content agrees, unless the otherwise matching
  statements differ by a negation ("is" / "is not"), an antonym ("open" /
  "closed") or a number ("3 replicas" / "5 replicas"), which contradicts.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from engram_server.lexical.analyzer import analyze
from engram_server.lifecycle.model import Memory

Verdict = Literal["agree", "contradict", "unrelated"]

# Share of shared content words (Jaccard of stemmed terms, numbers, negations and
# antonyms left out) above which two statements say the same thing about the same
# subject.
CORE_MATCH = 0.5
# Above this the statements are near-duplicates (whole terms, numbers included).
NEAR_DUPLICATE = 0.8
# Share of the shorter statement's content words found in the longer one above which
# the longer one restates it with more detail.
CONTAINED = 0.8

_NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "cannot",
        "can't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "doesn't",
        "don't",
        "didn't",
        "won't",
        "hasn't",
        "haven't",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "without",
        "n't",
    }
)
_ANTONYM_PAIRS = (
    ("open", "closed"),
    ("open", "close"),
    ("on", "off"),
    ("true", "false"),
    ("yes", "no"),
    ("allowed", "forbidden"),
    ("allow", "forbid"),
    ("enabled", "disabled"),
    ("enable", "disable"),
    ("up", "down"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("rise", "fall"),
    ("rose", "fell"),
    ("before", "after"),
    ("always", "never"),
    ("accept", "reject"),
    ("accepted", "rejected"),
    ("approved", "denied"),
    ("approve", "deny"),
    ("success", "failure"),
    ("succeeded", "failed"),
    ("pass", "fail"),
    ("passed", "failed"),
    ("like", "dislike"),
    ("likes", "dislikes"),
    ("love", "hate"),
    ("loves", "hates"),
    ("prefer", "avoid"),
    ("prefers", "avoids"),
    ("safe", "unsafe"),
    ("available", "unavailable"),
    ("online", "offline"),
    ("public", "private"),
    ("active", "inactive"),
    ("valid", "invalid"),
    ("legal", "illegal"),
    ("hot", "cold"),
    ("high", "low"),
    ("higher", "lower"),
    ("more", "less"),
    ("most", "least"),
    ("start", "stop"),
    ("started", "stopped"),
    ("win", "lose"),
    ("won", "lost"),
    ("profit", "loss"),
    ("alive", "dead"),
    ("present", "absent"),
    ("include", "exclude"),
    ("included", "excluded"),
    ("supports", "opposes"),
    ("support", "oppose"),
    ("buy", "sell"),
    ("bought", "sold"),
    ("married", "divorced"),
    ("hired", "fired"),
    ("joined", "left"),
    ("join", "leave"),
    ("arrive", "depart"),
    ("early", "late"),
    ("cheap", "expensive"),
    ("fast", "slow"),
    ("good", "bad"),
    ("best", "worst"),
    ("healthy", "sick"),
    ("agree", "disagree"),
    ("agrees", "disagrees"),
)
_ANTONYMS: dict[str, frozenset[str]] = {}
for _a, _b in _ANTONYM_PAIRS:
    _ANTONYMS[_a] = _ANTONYMS.get(_a, frozenset()) | {_b}
    _ANTONYMS[_b] = _ANTONYMS.get(_b, frozenset()) | {_a}

# Words that attribute a statement rather than make it ("X said", "according to").
_ATTRIBUTION = frozenset(
    {
        "say",
        "says",
        "said",
        "report",
        "reports",
        "reported",
        "according",
        "claim",
        "claims",
        "claimed",
        "state",
        "states",
        "stated",
        "announce",
        "announced",
        "confirm",
        "confirmed",
        "note",
        "noted",
        "per",
        "source",
        "sources",
        "told",
        "tell",
        "tells",
        "write",
        "wrote",
        "writes",
        "mention",
        "mentioned",
        "explain",
        "explained",
        "add",
        "added",
    }
)
_WORD = re.compile(r"[a-z0-9]+(?:[.,'][a-z0-9]+)*")
# A token that starts with a digit carries a number ("100", "6pm", "3.5k"); one that
# starts with a letter is a name ("q3", "gpt4").
_LEADING_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Features:
    words: frozenset[str]
    negated: bool
    numbers: frozenset[str]
    antonym_words: frozenset[str]
    core: frozenset[str]
    terms: frozenset[str]


@functools.cache
def _skip_stems() -> frozenset[str]:
    """Stems left out of a statement's core: negations, antonyms, attribution."""
    stems: set[str] = set()
    for w in (*_ANTONYMS, *_NEGATIONS, *_ATTRIBUTION):
        stems.update(analyze(w))
    return frozenset(stems)


@functools.lru_cache(maxsize=4096)
def features(text: str) -> Features:
    lowered = text.lower()
    words = _WORD.findall(lowered)
    negations = sum(1 for w in words if w in _NEGATIONS or w.endswith("n't"))
    numbers = frozenset(
        m.group(0).replace(",", "") for w in words if (m := _LEADING_NUMBER.match(w))
    )
    antonym_words = frozenset(w for w in words if w in _ANTONYMS)
    terms = frozenset(analyze(text))
    skip = _skip_stems()
    core = frozenset(t for t in terms if t not in skip and not any(c.isdigit() for c in t))
    return Features(
        words=frozenset(words),
        negated=negations % 2 == 1,
        numbers=numbers,
        antonym_words=antonym_words,
        core=core,
        terms=terms,
    )


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    similarity: float
    explanation: str


def _slot_value(m: Memory) -> frozenset[str]:
    """The content words that are not the slot's own entity and attribute."""
    entity, _, attribute = m.slot_key.partition("::")
    naming = set(analyze(entity.replace("_", " "))) | set(analyze(attribute.replace("_", " ")))
    return frozenset(t for t in analyze(m.content) if t not in naming)


def _mismatch(a: Features, b: Features) -> str:
    """Why two otherwise matching statements say opposite things, or ""."""
    if a.negated != b.negated:
        return "one statement negates the other"
    for w in a.antonym_words:
        opposite = _ANTONYMS[w] & b.words
        if opposite and w not in b.words:
            return f"antonyms: {w!r} against {sorted(opposite)[0]!r}"
    if a.numbers and b.numbers and a.numbers != b.numbers:
        return (
            f"numbers differ: {', '.join(sorted(a.numbers))} against {', '.join(sorted(b.numbers))}"
        )
    return ""


def judge(claim: Memory, other: Memory) -> Judgement:
    """How `other` bears on `claim`."""
    fa, fb = features(claim.content), features(other.content)
    similarity = jaccard(fa.terms, fb.terms)
    if claim.slot_key and claim.slot_key.lower() == other.slot_key.lower():
        va, vb = _slot_value(claim), _slot_value(other)
        mismatch = _mismatch(fa, fb)
        if claim.content_hash == other.content_hash or (
            not mismatch and (va == vb or (va and vb and (va <= vb or vb <= va)))
        ):
            return Judgement(
                "agree", max(similarity, 0.9), f"same slot {claim.slot_key}, same value"
            )
        return Judgement(
            "contradict",
            max(similarity, 0.5),
            f"same slot {claim.slot_key}, different value" + (f" ({mismatch})" if mismatch else ""),
        )
    if claim.content_hash == other.content_hash:
        return Judgement("agree", 1.0, "identical content")
    core = jaccard(fa.core, fb.core)
    smaller = min(len(fa.core), len(fb.core))
    contained = smaller >= 3 and len(fa.core & fb.core) / smaller >= CONTAINED
    if core < CORE_MATCH and not contained:
        return Judgement("unrelated", similarity, "different subjects")
    mismatch = _mismatch(fa, fb)
    if mismatch:
        return Judgement("contradict", core, f"matching statements, but {mismatch}")
    if similarity >= NEAR_DUPLICATE or core >= NEAR_DUPLICATE:
        return Judgement("agree", max(similarity, core), "near-duplicate content")
    if core >= CORE_MATCH + 0.1:
        return Judgement("agree", core, "largely the same statement")
    if contained:
        return Judgement("agree", core, "one statement contains the other")
    return Judgement("unrelated", similarity, "related words, different statements")
