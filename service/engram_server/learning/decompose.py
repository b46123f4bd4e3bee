"""Consolidation of a session buffer: an extractive summary and a typed decomposition.

The decomposition turns the conversation into records a graph can hold: the
entities mentioned, the facts, decisions, events, actions and open questions, each
knowing the entities it is about (they become ABOUT edges). It is deterministic, so
consolidating the same buffer twice yields the same contents (and the write path
answers DUPLICATE for all of them).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from engram_server.learning.extract import USER_ROLES, classify, extract_facts
from engram_server.learning.model import Turn
from engram_server.learning.text import entity_names, known_names, sentences, terms
from engram_server.lifecycle.model import Kind
from engram_server.llm import ChatMessage

MAX_SUMMARY_SENTENCES = 5
MAX_SUMMARY_CHARS = 1200
MAX_ENTITIES = 24

# How extractor kinds read in a decomposition (episodes are events there).
_RECORD_KIND = {Kind.EPISODIC: Kind.EVENT}
# A question worth keeping open: about a plan or a choice, not a request to the assistant.
_OPEN_QUESTION = re.compile(
    r"\b(?:should (?:we|i)|do we|are we|who (?:will|should|owns)|when (?:will|should|do) we|"
    r"what (?:is|'s) the plan|which .* should|how (?:should|do) we|is it worth|whether)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Record:
    content: str
    kind: Kind
    importance: float
    slot_key: str
    tags: tuple[str, ...]
    entities: tuple[str, ...]


@dataclass(frozen=True)
class Decomposition:
    summary: str
    entities: tuple[str, ...]
    records: tuple[Record, ...]


class SummaryReply(BaseModel):
    summary: str = Field(min_length=1, max_length=4000)


SUMMARY_PROMPT = """Summarise this conversation for long-term memory in at most five
sentences: who the user is, what was decided, what was done, what is still open.
Use only what the turns say. Answer only a JSON object: {"summary": str}."""


def summary_messages(turns: Sequence[Turn]) -> list[ChatMessage]:
    lines = [f"{t.role}: {t.content}" for t in turns]
    return [ChatMessage("system", SUMMARY_PROMPT), ChatMessage("user", "\n".join(lines))]


def extractive_summary(turns: Sequence[Turn]) -> str:
    """The most informative sentences, in conversation order.

    A sentence scores by how often its content words recur in the conversation
    (what the session kept coming back to), normalised by length, doubled when the
    extractor would keep it as a fact.
    """
    candidates: list[tuple[int, str, str]] = []
    frequency: Counter[str] = Counter()
    for turn in turns:
        for sentence in sentences(turn.content):
            frequency.update(set(terms(sentence)))
            candidates.append((len(candidates), turn.role, sentence))
    scored: list[tuple[float, int]] = []
    for position, role, sentence in candidates:
        words = set(terms(sentence))
        if len(words) < 3:
            continue
        score = sum(frequency[w] for w in words) / (len(words) ** 0.5)
        if role.lower() in USER_ROLES and classify(sentence) is not None:
            score *= 2
        scored.append((score, position))
    chosen = sorted(
        p for _, p in sorted(scored, key=lambda s: (-s[0], s[1]))[:MAX_SUMMARY_SENTENCES]
    )
    parts: list[str] = []
    size = 0
    for position in chosen:
        _, role, sentence = candidates[position]
        part = f"{role.capitalize()}: {sentence}"
        if parts and size + len(part) > MAX_SUMMARY_CHARS:
            break
        parts.append(part)
        size += len(part) + 1
    if not parts:  # nothing informative: the first message stands for the session
        first = turns[0]
        parts.append(f"{first.role.capitalize()}: {first.content[:MAX_SUMMARY_CHARS]}")
    return " ".join(parts)


def decompose(
    turns: Sequence[Turn], summary: str | None = None, known: set[str] | None = None
) -> Decomposition:
    """The summary (extractive unless given) and the typed records of `turns`.

    `known` are entity names already known (e.g. the space's ENTITY memories): a
    capitalised word at the start of a sentence counts as a name only when it is
    known or also mentioned mid-sentence.
    """
    records: list[Record] = []
    mentioned: Counter[str] = Counter()
    known = known_names(t.content for t in turns) | (known or set())
    for fact in extract_facts(turns):
        kind = _RECORD_KIND.get(fact.kind, fact.kind)
        names = tuple(entity_names(fact.content, known))
        mentioned.update(names)
        records.append(
            Record(
                fact.content,
                kind,
                fact.importance,
                fact.slot_key,
                tuple(t for t in fact.tags if t != "learned"),
                names,
            )
        )
    seen = {r.content.casefold() for r in records}
    for turn in turns:
        if turn.role.lower() not in USER_ROLES:
            continue
        for sentence in sentences(turn.content):
            if not sentence.endswith("?") or not _OPEN_QUESTION.search(sentence):
                continue
            if sentence.casefold() in seen:
                continue
            seen.add(sentence.casefold())
            names = tuple(entity_names(sentence, known))
            mentioned.update(names)
            records.append(Record(sentence, Kind.QUESTION, 0.5, "", ("question",), names))
    for turn in turns:  # entities named anywhere count, records only link their own
        mentioned.update(entity_names(turn.content, known))
    entities = tuple(name for name, _ in sorted(mentioned.items(), key=lambda kv: (-kv[1], kv[0])))[
        :MAX_ENTITIES
    ]
    kept = set(entities)
    records = [
        Record(
            r.content,
            r.kind,
            r.importance,
            r.slot_key,
            r.tags,
            tuple(n for n in r.entities if n in kept),
        )
        for r in records
    ]
    return Decomposition(
        summary=summary if summary is not None else extractive_summary(turns),
        entities=entities,
        records=tuple(records),
    )
