"""The typed values learning produces before they become proposals."""

from __future__ import annotations

from dataclasses import dataclass, field

from engram_server.lifecycle.model import Kind


@dataclass(frozen=True)
class Turn:
    """One conversation turn, already screened by the privacy boundary."""

    role: str
    content: str
    index: int  # position in the request (or buffer), used to cite sources


@dataclass(frozen=True)
class Fact:
    """A fact extracted from turns, not yet stored."""

    content: str
    kind: Kind
    importance: float
    slot_key: str = ""
    tags: tuple[str, ...] = ()
    source_turns: tuple[int, ...] = ()
    # Share of the fact's content words found in its source turns (1.0 for the
    # deterministic extractor, which keeps the user's own sentence).
    support: float = 1.0
    verified: bool = True
    entities: tuple[str, ...] = field(default=())
