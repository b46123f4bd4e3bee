"""The optional LLM miner: the decision fields asked of a model, then checked.

The model gets the commit message and the diff excerpts and answers one JSON
object (`DecisionReply`, sent as JSON Schema). Nothing it says is trusted as is:

- every evidence quote must occur verbatim in the message or an excerpt, or
  it is dropped (`Checked.rejected_quotes` counts them);
- the rationale must be contained in the source: at least `MIN_CONTAINMENT` of
  its content words occur there, or the deterministic rationale is kept;
- the title, the identity and the anchors stay the deterministic miner's, so a
  decision's identity never depends on what a model chose to write.

Pure: building the prompt and checking the reply do no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pydantic import BaseModel, Field

from engram_server.decisions.extract import MAX_EVIDENCE, MAX_RATIONALE_CHARS, verbatim
from engram_server.decisions.model import Alternative, Commit, Draft, Evidence, Origin

MIN_CONTAINMENT = 0.6
MAX_PROMPT_EXCERPT = 6000

SYSTEM_PROMPT = """You read one git commit and extract the decision it records.
Answer only a JSON object with these keys:
{"is_decision": bool, "skip_reason": str, "statement": str, "rationale": str,
 "alternatives": [{"description": str, "reason_rejected": str}],
 "evidence": [str]}
- statement: what was decided, one or two sentences.
- rationale: why, using the commit's own words; empty if no reason is given.
- alternatives: options the commit says were considered and not chosen.
- evidence: short quotes copied EXACTLY, character for character, from the
  message or the diff (measurements, review findings, issue references).
Never invent a reason, an alternative or a quote."""


class _AlternativeReply(BaseModel):
    description: str = Field(max_length=300)
    reason_rejected: str = Field(default="", max_length=500)


class DecisionReply(BaseModel):
    is_decision: bool = True
    skip_reason: str = Field(default="", max_length=300)
    statement: str = Field(default="", max_length=1000)
    rationale: str = Field(default="", max_length=MAX_RATIONALE_CHARS)
    alternatives: list[_AlternativeReply] = Field(default_factory=list, max_length=12)
    evidence: list[str] = Field(default_factory=list, max_length=24)


@dataclass(frozen=True)
class Checked:
    draft: Draft | None
    skip_reason: str = ""
    rejected_quotes: int = 0
    rationale_rejected: bool = False


def prompt(commit: Commit) -> str:
    excerpts = [commit.diff_excerpt] if commit.diff_excerpt else []
    for f in commit.files:
        for h in f.hunks:
            if h.excerpt:
                excerpts.append(f"--- {f.path} ({h.section})\n{h.excerpt}")
    text = f"Commit message:\n{commit.message}"
    if excerpts:
        text += "\n\nDiff excerpts:\n" + "\n".join(excerpts)[:MAX_PROMPT_EXCERPT]
    return text


_WORD = re.compile(r"[a-z0-9]+")
_FILLER = frozenset(
    "a an the and or but of to in on at for with by is are was were be been this that it its"
    " as so we our not no from into than then there which who what why when how".split()
)


def containment(claim: str, source: str) -> float:
    """Share of the claim's content words that occur in the source."""
    words = [w for w in _WORD.findall(claim.lower()) if w not in _FILLER and len(w) > 2]
    if not words:
        return 1.0
    present = set(_WORD.findall(source.lower()))
    return sum(1 for w in words if w in present) / len(words)


def check(reply: DecisionReply, commit: Commit, base: Draft) -> Checked:
    """The draft the reply supports: `base` (the deterministic draft) with the
    model's statement, rationale, alternatives and quotes where they hold."""
    if not reply.is_decision:
        return Checked(None, reply.skip_reason.strip() or "the model found no decision")
    sources = [commit.message, commit.diff_excerpt] + [
        h.excerpt for f in commit.files for h in f.hunks if h.excerpt
    ]
    everything = "\n".join(s for s in sources if s)
    quotes: list[Evidence] = []
    rejected = 0
    for quote in reply.evidence:
        quote = quote.strip()
        origin = None
        path = ""
        if verbatim(quote, commit.message):
            origin = Origin.COMMIT
        else:
            for f in commit.files:
                if any(verbatim(quote, h.excerpt) for h in f.hunks):
                    origin, path = Origin.DIFF, f.path
                    break
            if origin is None and verbatim(quote, commit.diff_excerpt):
                origin = Origin.DIFF
        if origin is None:
            rejected += 1
            continue
        quotes.append(Evidence(quote, origin, commit.sha, path))
    rationale = " ".join(reply.rationale.split())
    rationale_rejected = bool(rationale) and containment(rationale, everything) < MIN_CONTAINMENT
    statement = " ".join(reply.statement.split())
    if statement and containment(statement, everything) < MIN_CONTAINMENT:
        statement = ""
    alternatives = tuple(
        Alternative(a.description.strip(), a.reason_rejected.strip())
        for a in reply.alternatives
        if a.description.strip() and containment(a.description, everything) >= MIN_CONTAINMENT
    )
    seen = {e.quote for e in base.evidence}
    merged = (*base.evidence, *(q for q in quotes if q.quote not in seen))[:MAX_EVIDENCE]
    draft = replace(
        base,
        statement=statement or base.statement,
        rationale=base.rationale if rationale_rejected or not rationale else rationale,
        alternatives=alternatives or base.alternatives,
        evidence=tuple(merged),
        tags=tuple(dict.fromkeys((*base.tags, "llm"))),
    )
    return Checked(draft, "", rejected, rationale_rejected)
