"""Belief-grounded insight for Engage: a bounded brief beside the context.

For the hits Engage returns it lists, in this order and at most `MAX_INSIGHTS`:
- open conflicts a hit is part of (the other side, quoted);
- superseded premises: memories a hit depends on or was derived from that are no
  longer live (superseded, retracted, expired), quoted as they were;
- earlier decisions: DECISION memories connected to a hit by an edge.
Every item carries the memory's name and a short verbatim quote. A memory that
cannot be read (purged) stays in the brief, marked missing, with no quote. Nothing
here calls a model or writes anything.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from engram_server.lifecycle.model import LIVE_STATUSES, Kind, Memory, Status, memory_name
from engram_server.store import evidence as evidence_store
from engram_server.store import memories as store
from engram_server.store.postgres import Database

MAX_INSIGHTS = 8
QUOTE_CHARS = 160


@dataclass(frozen=True)
class Insight:
    kind: str  # "open_conflict", "superseded_premise", "earlier_decision"
    memory: str
    related_hit: str
    quote: str
    conflict: str = ""
    missing: bool = False


def quote(text: str) -> str:
    """A verbatim prefix of `text`, cut at a word boundary when long."""
    if len(text) <= QUOTE_CHARS:
        return text
    cut = text[:QUOTE_CHARS].rsplit(" ", 1)[0]
    return cut + " …"


async def insights_for(db: Database, tenant: str, hits: Sequence[Memory]) -> list[Insight]:
    if not hits:
        return []
    hit_ids = [h.id for h in hits]
    out: list[Insight] = []
    seen: set[tuple[str, str]] = set()

    def add(item: Insight) -> None:
        key = (item.kind, item.memory)
        if key not in seen and len(out) < MAX_INSIGHTS:
            seen.add(key)
            out.append(item)

    async with db.tenant_tx(tenant) as conn:
        conflicts = await evidence_store.open_conflicts_touching(conn, hit_ids)
        premises: list[tuple[uuid.UUID, uuid.UUID]] = [
            (h.id, d) for h in hits for d in h.depends_on
        ]
        edges = await evidence_store.neighbours(
            conn, hit_ids, ("DERIVED_FROM", "ABOUT", "SUPPORTS", "RELATED", "SUPERSEDES")
        )
        derived = [(a, b) for a, b, kind, _ in edges if kind in ("DERIVED_FROM", "SUPERSEDES")]
        wanted = {
            *(i for c in conflicts for i in c.memory_ids),
            *(d for _, d in premises),
            *(b for _, b in derived),
            *(b for _, b, _, _ in edges),
        }
        found: dict[uuid.UUID, Memory] = {}
        for memory_id in wanted:
            memory = await store.get_memory(conn, memory_id)
            if memory is not None:
                found[memory_id] = memory
    hit_set = set(hit_ids)
    for c in conflicts:
        related = next(i for i in c.memory_ids if i in hit_set)
        for other in c.memory_ids:
            if other == related:
                continue
            memory = found.get(other)
            add(
                Insight(
                    "open_conflict",
                    memory_name(other),
                    memory_name(related),
                    quote(memory.content) if memory else "",
                    c.name,
                    memory is None,
                )
            )
    for hit, premise in [*premises, *derived]:
        memory = found.get(premise)
        if memory is not None and memory.status in LIVE_STATUSES:
            continue
        if memory is not None and memory.status not in (
            Status.SUPERSEDED,
            Status.RETRACTED,
            Status.EXPIRED,
        ):
            continue
        add(
            Insight(
                "superseded_premise",
                memory_name(premise),
                memory_name(hit),
                quote(memory.content) if memory else "",
                missing=memory is None,
            )
        )
    for a, b, _, _ in edges:
        memory = found.get(b)
        if memory is not None and memory.kind == Kind.DECISION and b not in hit_set:
            add(Insight("earlier_decision", memory_name(b), memory_name(a), quote(memory.content)))
    return out
