"""Answering: lexicographic fusion of the query legs and the Markdown context.

Three legs find decisions: the anchor leg (recorded facts: this decision touched
these lines or this file), the semantic leg (the dense similarity of the
decision texts hybrid recall finds, spread over its range) and the evidence
bridge (the question names an identifier that a decision's title or quotes
contain). They are fused lexicographically: first by how the
decision is tied to the code (lines, then file, then meaning), only then by
score, so an anchor fact always outranks a similarity. A reversed decision is
returned only with its replacement, ranked right below it; left out, its
replacement stands in for it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar

from engram_server.decisions.model import Anchor, Decision

K = TypeVar("K")


class Match(IntEnum):
    """How a decision was tied to the question; lower ranks first."""

    LINES = 1
    FILE = 2
    SEMANTIC = 3


@dataclass
class Candidate:
    decision: Decision
    match: Match
    score: float
    matched_anchors: list[Anchor] = field(default_factory=list)
    replacement: Decision | None = None


# The narrowest band of cosine similarity `spread` stretches to the full 0-1: the
# nearest texts of a real question span 0.1 or more, so this changes nothing there
# (dev and holdout rankings were the same at 0.05, 0.1 and 0.15).
MIN_SPREAD = 0.1


def spread(similarities: dict[K, float]) -> dict[K, float]:
    """Similarities stretched over their own range: the most similar 1.0, the
    least 0.0. Cosine similarities of one question to its nearest texts crowd
    into a narrow band (0.55-0.65 is common), so scaled to the best alone they
    would add nearly the same to every candidate and order none of them.

    A similarity of 0 or less (a text found by its words only) stays 0.0 and does
    not widen the range. One positive similarity, or several equal ones, is 1.0.
    A band narrower than MIN_SPREAD is not stretched past it: between two texts
    0.008 apart, the farther is 0.92, not 0.0."""
    positive = [value for value in similarities.values() if value > 0]
    if not positive:
        return dict.fromkeys(similarities, 0.0)
    low, high = min(positive), max(positive)
    if high - low < MIN_SPREAD:
        # A band this narrow is noise (a few thousandths of cosine move with the
        # batch a text was embedded in), not a difference of meaning: the nearest
        # stays 1.0 and the rest keep their distance below it, at MIN_SPREAD's scale.
        low = high - MIN_SPREAD
    return {
        key: 0.0 if value <= 0 else max(0.0, (value - low) / (high - low))
        for key, value in similarities.items()
    }


def fuse(
    candidates: Sequence[Candidate],
    k: int,
    replacements: dict[uuid.UUID, Decision],
    include_superseded: bool,
) -> list[Candidate]:
    """Best first: by match class, then score, then newer decision, then name.

    Each decision appears once, in its best class (its anchor-leg entry beats its
    semantic one; the scores of two entries in one class add). A SUPERSEDED
    decision is dropped unless `include_superseded`; kept, it carries its
    replacement, which is placed right above it (added in the same class when no
    leg found it)."""
    best: dict[uuid.UUID, Candidate] = {}
    for c in candidates:
        held = best.get(c.decision.id)
        if held is None or c.match < held.match:
            best[c.decision.id] = Candidate(
                c.decision, c.match, c.score, list(c.matched_anchors), c.replacement
            )
        elif c.match == held.match:
            held.score += c.score
            held.matched_anchors.extend(
                a for a in c.matched_anchors if a not in held.matched_anchors
            )
    ranked = sorted(best.values(), key=_order)
    out: list[Candidate] = []
    placed: set[uuid.UUID] = set()
    for c in ranked:
        if c.decision.id in placed:
            continue
        if c.decision.status == "SUPERSEDED":
            replacement = _live_replacement(c.decision, replacements)
            if not include_superseded:
                # Left out, but not without a trace: what replaced it (the revert,
                # or the decision that took its place) stands in for it, unless a
                # leg found that on its own (then it ranks by its own score).
                if replacement is not None and replacement.id not in best:
                    out.append(Candidate(replacement, c.match, c.score))
                    best[replacement.id] = out[-1]
                    placed.add(replacement.id)
                continue
            c.replacement = replacement
            if replacement is not None and replacement.id not in placed:
                held = best.get(replacement.id)
                out.append(held if held is not None else Candidate(replacement, c.match, c.score))
                placed.add(replacement.id)
        out.append(c)
        placed.add(c.decision.id)
    return out[:k]


def _order(c: Candidate) -> tuple[int, float, float, str]:
    return (int(c.match), -c.score, -c.decision.decision_time.timestamp(), str(c.decision.id))


def _live_replacement(
    decision: Decision, replacements: dict[uuid.UUID, Decision]
) -> Decision | None:
    """The decision that replaced `decision` (followed to the end of the chain,
    to the first one that is not itself reversed)."""
    current = decision
    seen = {decision.id}
    while current.superseded_by is not None and current.superseded_by not in seen:
        nxt = replacements.get(current.superseded_by)
        if nxt is None:
            break
        seen.add(nxt.id)
        if nxt.status != "SUPERSEDED":
            return nxt
        current = nxt
    return replacements.get(decision.superseded_by) if decision.superseded_by else None


# -- the inject-ready block -------------------------------------------------------------

DEFAULT_TOKEN_BUDGET = 1500
_MATCH_NOTE = {
    Match.LINES: "anchored on these lines",
    Match.FILE: "anchored in this file",
    Match.SEMANTIC: "related by meaning",
}


def render_context(
    candidates: Sequence[Candidate],
    heading: str,
    budget: int,
    count: Callable[[str], int],
) -> tuple[str, int]:
    """Markdown for a prompt: each decision with its rationale, evidence quotes,
    alternatives, anchors and commits, best first, never over `budget` tokens.
    A decision that does not fit whole is cut to its title and rationale, then
    to its title; if even that does not fit, it and everything after it are
    left out."""
    lines = [f"## {heading}", ""]
    used = count("\n".join(lines))
    if used > budget:
        return "", 0
    for c in candidates:
        block = ""
        for detail in ("full", "brief", "title"):
            block = _block(c, detail)
            cost = count(block)
            if used + cost <= budget:
                break
        else:
            break
        lines.append(block)
        used += cost
    if len(lines) == 2:
        return "", 0
    text = "\n".join(lines).rstrip() + "\n"
    return text, count(text)


def _block(c: Candidate, detail: str) -> str:
    d = c.decision
    status = ""
    if d.status == "SUPERSEDED":
        status = " (reversed"
        if c.replacement is not None:
            status += f" by “{c.replacement.title}”"
        status += ")"
    out = [f"### {d.title}{status}"]
    meta = [d.decision_time.date().isoformat(), _MATCH_NOTE[c.match]]
    if d.commits and detail != "title":
        meta.append("commits " + ", ".join(sha[:12] for sha in d.commits[:3]))
    out.append(f"*{'; '.join(meta)}*")
    if detail == "title":
        return "\n".join(out) + "\n"
    if d.statement and d.statement != d.title:
        out.append(f"- Decision: {d.statement}")
    if d.rationale:
        out.append(f"- Why: {d.rationale}")
    if detail == "full":
        for alt in d.alternatives[:3]:
            rejected = f" (rejected: {alt.reason_rejected})" if alt.reason_rejected else ""
            out.append(f"- Alternative: {alt.description}{rejected}")
        for e in d.evidence[:4]:
            quote = " ".join(e.quote.split())
            out.append(f"- Evidence: > {quote}")
        anchors = c.matched_anchors or list(d.anchors[:3])
        for a in anchors[:3]:
            where = a.path
            if a.lines is not None:
                where += f":{a.lines.start}-{a.lines.end}"
            if a.symbol:
                where += f" ({a.symbol})"
            out.append(f"- Anchor: `{where}`")
        if d.outcome.value != "UNSPECIFIED":
            out.append(f"- Outcome: {d.outcome.value.lower().replace('_', ' ')}")
    return "\n".join(out) + "\n"
