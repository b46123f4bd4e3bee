"""Who said a memory, matched against the people a query names.

A conversation turn stored as "SPEAKER: text" (the convention the evaluations
and many chat logs use, `lexical.addressee.speaker_prefix`) records its speaker.
Its dense vector is made from the text alone (`services/indexing.dense_text`):
embedded with the prefix, every turn of a speaker leans towards any question
naming them, so "What did Emi buy?" finds Emi's small talk before Kate's line
about what Emi bought. Who said it comes back here as a small explicit signal
instead: a candidate whose speaker the query names gains `speaker_weight`
(`recall/scoring.py`), enough to order two turns that match the question's
content alike, too little to lift a turn that does not.
"""

from __future__ import annotations

import re

from engram_server.lexical.addressee import speaker_prefix

_WORDS = re.compile(r"\w+")


def query_words(text: str) -> frozenset[str]:
    """The case-folded words of a query ("Emi's" gives "emi")."""
    return frozenset(w.casefold() for w in _WORDS.findall(text))


def speaker_match(content: str, words: frozenset[str]) -> float:
    """1 when the memory starts with a speaker the query names (any word of the
    speaker's name of two or more letters), else 0."""
    found = speaker_prefix(content)
    if found is None or not words:
        return 0.0
    names = {w.casefold() for w in _WORDS.findall(found[0]) if len(w) > 1}
    return 1.0 if names & words else 0.0
