"""LLM fact extraction: prompts, the reply schema, batching and verification.

The model sees numbered turns and answers JSON facts citing the turns they come
from. Every fact is then checked against the turns it cites (`verify`): the model's
word is never the evidence. Long conversations are cut into batches of whole turns
so each request stays well inside a context window.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from engram_server.learning import verify
from engram_server.learning.model import Fact, Turn
from engram_server.learning.text import entity_names, slug, unique
from engram_server.lifecycle.model import Kind
from engram_server.lifecycle.validation import SLOT_KEY_PATTERN, TAG_PATTERN
from engram_server.llm import ChatMessage

MAX_BATCH_TURNS = 40
MAX_BATCH_CHARS = 12_000
MAX_FACTS_PER_BATCH = 50

_KINDS = {
    "semantic": Kind.SEMANTIC,
    "procedural": Kind.PROCEDURAL,
    "episodic": Kind.EPISODIC,
    "preference": Kind.PREFERENCE,
    "decision": Kind.DECISION,
    "action": Kind.ACTION,
    "commitment": Kind.ACTION,
    "event": Kind.EPISODIC,
}

SYSTEM_PROMPT = """You extract durable facts worth remembering from a conversation.
Keep: facts about the user and the people and projects they mention, preferences,
decisions, commitments, procedures, notable events. Drop greetings, thanks, small talk,
questions, hypotheticals and anything the assistant merely suggested.
Write each fact as one short standalone sentence using the speaker's own words where
possible. Never add information that is not in the turns.
Answer only a JSON object:
{"facts": [{"content": str, "kind": "semantic|procedural|episodic|preference|decision|action",
"importance": number 0..1, "slot_key": "entity::attribute" or "", "tags": [str],
"source_turns": [turn numbers the fact comes from]}]}
Use a slot_key for single-valued attributes (user::name, user::location, user::employer,
user::role, user::favorite_<thing>, user::preferred_<thing>, <project>::deadline)."""


class ExtractedFact(BaseModel):
    content: str = Field(min_length=1, max_length=2000)
    kind: str = "semantic"
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    slot_key: str = ""
    tags: list[str] = Field(default_factory=list)
    source_turns: list[int] = Field(default_factory=list)


class ExtractionReply(BaseModel):
    facts: list[ExtractedFact] = Field(default_factory=list)


def batches(turns: Sequence[Turn]) -> list[list[Turn]]:
    """Consecutive whole turns, at most MAX_BATCH_TURNS and ~MAX_BATCH_CHARS each."""
    out: list[list[Turn]] = []
    current: list[Turn] = []
    size = 0
    for turn in turns:
        if current and (
            len(current) >= MAX_BATCH_TURNS or size + len(turn.content) > MAX_BATCH_CHARS
        ):
            out.append(current)
            current, size = [], 0
        current.append(turn)
        size += len(turn.content)
    if current:
        out.append(current)
    return out


def messages_for(batch: Sequence[Turn]) -> list[ChatMessage]:
    lines = [f"[{t.index}] {t.role}: {t.content}" for t in batch]
    return [
        ChatMessage("system", SYSTEM_PROMPT),
        ChatMessage("user", "Conversation turns:\n" + "\n".join(lines)),
    ]


def to_facts(reply: ExtractionReply, batch: Sequence[Turn]) -> list[Fact]:
    """Typed, verified facts from one batch's reply.

    A fact citing no turn of the batch is checked against the whole batch. Its slot
    key and tags are kept only when well formed; an unsupported fact keeps its
    proposed slot out of the slot (it must not supersede a supported one).
    """
    by_index = {t.index: t for t in batch}
    facts: list[Fact] = []
    for item in reply.facts[:MAX_FACTS_PER_BATCH]:
        content = " ".join(item.content.split())
        if not content:
            continue
        cited = [by_index[i] for i in item.source_turns if i in by_index]
        sources = [t.content for t in (cited or batch)]
        supported = verify.is_supported(content, sources)
        slot_key = item.slot_key.strip()
        if slot_key and not SLOT_KEY_PATTERN.match(slot_key):
            slot_key = ""
        tags = [slug(t, 64) for t in item.tags]
        facts.append(
            Fact(
                content=content,
                kind=_KINDS.get(item.kind.strip().lower(), Kind.SEMANTIC),
                importance=round(item.importance, 2),
                slot_key=slot_key,
                tags=unique(["learned", *(t for t in tags if TAG_PATTERN.match(t))])[:16],
                source_turns=tuple(t.index for t in cited),
                support=round(verify.support(content, sources), 3),
                verified=supported,
                entities=tuple(entity_names(content)),
            )
        )
    return facts
