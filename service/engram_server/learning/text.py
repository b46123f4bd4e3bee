"""Text helpers shared by extraction, verification, consolidation and Dream."""

from __future__ import annotations

import re
from collections.abc import Iterable

from engram_server.lexical.analyzer import analyze

# Sentence ends: ., ! or ? (possibly repeated) followed by space, or a newline.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
# A capitalised word or run of them ("New York", "Project Apollo"); the first word
# of a sentence is only an entity when it is not a common sentence opener.
_NAME_RUN = re.compile(r"\b([A-Z][a-zA-Z0-9]+(?:[ -][A-Z][a-zA-Z0-9]+)*)\b")
NOT_NAMES = frozenset(
    """
    i i'm i've i'll i'd im a an the we you he she it they my our your his her their this
    that these those there here what when where why how who which yes no ok okay oh ah hey
    hi hello thanks thank please sure well so and but or also just actually anyway btw
    by for in on at to of from with if then maybe sorry good great nice cool wow lol haha
    monday tuesday wednesday thursday friday saturday sunday january february march april
    may june july august september october november december today tomorrow yesterday
    let let's can could would should will do does did is are was were be been have has had
    not never always sometimes usually remember note also because after before since
    morning evening night week weekend month year every each one two three first last next
    """.split()
)


def sentences(text: str) -> list[str]:
    """Splits a turn into sentences, keeping each one's closing punctuation."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def terms(text: str) -> list[str]:
    """Stemmed content words (stop words dropped), as the lexical index sees them."""
    return analyze(text)


def term_set(text: str) -> frozenset[str]:
    return frozenset(terms(text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def entity_mentions(text: str) -> list[tuple[str, bool]]:
    """(name, at sentence start) for each proper-name mention, in order."""
    found: list[tuple[str, bool]] = []
    for match in _NAME_RUN.finditer(text):
        words = match.group(1).split()
        before = text[: match.start()].rstrip()
        initial = not before or before[-1] in '.!?:"\n'
        # Drop leading words that are sentence openers or pronouns ("Yesterday Anna").
        while words and words[0].lower() in NOT_NAMES:
            words = words[1:]
            initial = False
        if not words:
            continue
        name = " ".join(words)
        if len(name) < 2 or name.lower() in NOT_NAMES:
            continue
        found.append((name, initial))
    return found


def known_names(texts: Iterable[str]) -> set[str]:
    """Names mentioned somewhere other than as a sentence's first word: a capital
    there is evidence of a name, a capital at the start is only grammar."""
    return {n for t in texts for n, initial in entity_mentions(t) if not initial}


def entity_names(text: str, known: set[str] | None = None) -> list[str]:
    """Proper names in `text`, in order of first mention, without repeats.

    A sentence-initial capitalised word counts only when it is also mentioned
    mid-sentence in `text` or is in `known` (names seen elsewhere).
    """
    mentions = entity_mentions(text)
    confirmed = {n for n, initial in mentions if not initial} | (known or set())
    return list(dict.fromkeys(n for n, initial in mentions if not initial or n in confirmed))


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def slug(text: str, limit: int = 48) -> str:
    """`Project Apollo` -> `project_apollo`, for slot keys and tags."""
    out = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return out[:limit].strip("_")


def unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))
