"""Decisions stated in a conversation: the commit miner's rules on chat turns.

A turn that states a decision ("we decided to...", "let's go with...", "we'll
use...", "Decision: ...") gives the title (that sentence); the sentences of the
same turn that give a reason are the rationale, its measurements and references
are evidence (quoted verbatim from the turn), and "instead of X" / "rather than
X" are alternatives. Its time is the turn's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from engram_server.decisions.extract import _MEASUREMENT as MEASUREMENT
from engram_server.decisions.extract import _REASON as REASON
from engram_server.decisions.extract import _REFERENCE as REFERENCE
from engram_server.decisions.extract import (
    MAX_RATIONALE_CHARS,
    MAX_TITLE_CHARS,
    _alternatives,
    question_for,
)
from engram_server.decisions.identity import decision_identity
from engram_server.decisions.model import Draft, Evidence, Origin
from engram_server.decisions.text import sentences

_DECIDED = re.compile(
    r"\b(?:we(?:'ve| have)? decided|i(?:'ve| have)? decided|(?:we|i)(?:'ll| will) go with"
    r"|let'?s go with|let'?s use|let'?s switch to|we(?:'ll| will) (?:use|switch to|keep|drop)"
    r"|we chose|we picked|we agreed|agreed to|decision:|decided:|the decision is"
    r"|going forward we)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Turn:
    role: str
    content: str
    time: datetime


def mine_turns(turns: Sequence[Turn], session: str) -> list[Draft]:
    """Drafts for every decision stated in `turns` (user or assistant)."""
    out: list[Draft] = []
    seen: set[str] = set()
    for turn in turns:
        if turn.role not in ("user", "assistant"):
            continue
        spans = sentences(turn.content)
        for n, span in enumerate(spans):
            if not _DECIDED.search(span.text):
                continue
            title = span.flat.rstrip(".")[:MAX_TITLE_CHARS]
            others = spans[:n] + spans[n + 1 :]
            rationale_parts = [s.flat for s in others if REASON.search(s.text)]
            if REASON.search(span.text):
                rationale_parts.insert(0, span.flat)
            evidence = tuple(
                Evidence(s.text, Origin.SESSION)
                for s in spans
                if (MEASUREMENT.search(s.text) or REFERENCE.search(s.text))
                and s.text in turn.content
            )[:8]
            identity = decision_identity(title, turn.time)
            if identity in seen:
                continue
            seen.add(identity)
            out.append(
                Draft(
                    identity=identity,
                    title=title,
                    statement=span.flat,
                    rationale=" ".join(rationale_parts)[:MAX_RATIONALE_CHARS],
                    question=question_for(title),
                    decision_time=turn.time,
                    alternatives=tuple(_alternatives([s.flat for s in spans])),
                    evidence=evidence,
                    tags=("session", f"session:{session}"[:64]),
                    origin=Origin.SESSION,
                )
            )
    return out
