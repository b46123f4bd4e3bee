"""Verification of an extracted fact against the turns it came from.

A fact is supported when most of its content words (stemmed, stop words dropped,
as the lexical index sees them) occur in its source turns, and every number and
proper name in it does: numbers and names are what a model invents most often
and what hurts most when wrong. Words that only re-frame the speaker ("user",
"they") do not count either way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram_server.learning.text import terms

SUPPORT_THRESHOLD = 0.5
# Third-person framing an extractor adds around the user's own words.
_FRAMING = frozenset(
    terms(
        "user users person speaker assistant they them their he she his her name named "
        "called prefers prefer preference currently now"
    )
)
_NUMBER = re.compile(r"\d+")
_PROPER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]+\b")


def support(fact: str, sources: Sequence[str]) -> float:
    """Share of the fact's content words present in `sources` (0..1)."""
    source_terms = set()
    for text in sources:
        source_terms.update(terms(text))
    wanted = {t for t in terms(fact) if t not in _FRAMING}
    if not wanted:
        return 0.0
    return len(wanted & source_terms) / len(wanted)


def anchors_present(fact: str, sources: Sequence[str]) -> bool:
    """Every number and proper name of the fact occurs in the sources."""
    source_text = " ".join(sources)
    source_terms = set(terms(source_text))
    for number in _NUMBER.findall(fact):
        if number not in source_text:
            return False
    for name in _PROPER.findall(fact.strip()):
        named = [t for t in terms(name) if t not in _FRAMING]
        if named and not all(t in source_terms for t in named):
            return False
    return True


def is_supported(fact: str, sources: Sequence[str], threshold: float = SUPPORT_THRESHOLD) -> bool:
    return support(fact, sources) >= threshold and anchors_present(fact, sources)
