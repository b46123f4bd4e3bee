"""Prompt-ready context: memories grouped by kind, cited, under a token budget.

Pure logic: tokens are counted by an injected function (the service passes a real
WordPiece tokenizer), so the budget is a count of model tokens, not characters.
Memories are taken in rank order; one that would overflow the budget is skipped
and smaller later ones may still fit, so the block is as full as it can be.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from engram_server.lifecycle.model import EvidenceLevel, Kind, Memory

CountTokens = Callable[[str], int]

KIND_TITLES: dict[Kind, str] = {
    Kind.PREFERENCE: "Preferences",
    Kind.SEMANTIC: "Facts",
    Kind.ENTITY: "Entities",
    Kind.DECISION: "Decisions",
    Kind.PROCEDURAL: "How-tos",
    Kind.PATTERN: "Patterns",
    Kind.EPISODIC: "Episodes",
    Kind.EVENT: "Events",
    Kind.ACTION: "Action items",
    Kind.QUESTION: "Open questions",
    Kind.EXPERIENCE: "Experiences",
    Kind.SUMMARY: "Summaries",
}


class ContextFormat(StrEnum):
    MARKDOWN = "MARKDOWN"
    PLAIN = "PLAIN"
    XML = "XML"
    JSON = "JSON"


@dataclass(frozen=True)
class ContextResult:
    text: str
    cited: list[str]
    token_count: int
    omitted: list[str]


def _escape_xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# Badges for the grades a reader should weigh; single-source and ungraded
# memories carry none.
_BADGES = {
    EvidenceLevel.OFFICIAL: "[official]",
    EvidenceLevel.CORROBORATED: "[corroborated]",
    EvidenceLevel.UNVERIFIED: "[unverified]",
}


def evidence_badge(level: EvidenceLevel) -> str:
    """`[official]`, `[corroborated]` or `[unverified]`; "" for other grades."""
    return _BADGES.get(level, "")


def _dates(m: Memory) -> str:
    """The time a fact held, when the memory records it (bi-temporal)."""
    if m.valid_from is None and m.valid_to is None:
        return ""
    start = m.valid_from.date().isoformat() if m.valid_from else "?"
    end = m.valid_to.date().isoformat() if m.valid_to else ""
    return f" (valid {start} to {end})" if end else f" (since {start})"


def _line(m: Memory, fmt: ContextFormat, cite: bool, badge: bool) -> str:
    badge_text = (
        f"{evidence_badge(m.evidence_level)} " if badge and evidence_badge(m.evidence_level) else ""
    )
    dates = _dates(m)
    if fmt == ContextFormat.XML:
        cite_attr = f' id="{m.name}"' if cite else ""
        return f"<memory{cite_attr}>{_escape_xml(badge_text + m.content + dates)}</memory>"
    citation = f" ({m.name})" if cite else ""
    prefix = "- " if fmt == ContextFormat.MARKDOWN else "* "
    return f"{prefix}{badge_text}{m.content}{dates}{citation}"


def _heading(kind: Kind, fmt: ContextFormat) -> str:
    title = KIND_TITLES.get(kind, kind.value.title())
    if fmt == ContextFormat.MARKDOWN:
        return f"## {title}"
    if fmt == ContextFormat.XML:
        return f'<group kind="{kind.value.lower()}">'
    return f"{title}:"


def _render(
    chosen: Sequence[Memory], fmt: ContextFormat, group: bool, cite: bool, badge: bool
) -> str:
    if fmt == ContextFormat.JSON:
        items = [
            {"kind": m.kind.value.lower(), "content": m.content}
            | ({"memory": m.name} if cite else {})
            | (
                {"evidence": m.evidence_level.value.lower()}
                if badge and evidence_badge(m.evidence_level)
                else {}
            )
            | ({"valid_from": m.valid_from.isoformat()} if m.valid_from else {})
            | ({"valid_to": m.valid_to.isoformat()} if m.valid_to else {})
            for m in chosen
        ]
        return json.dumps({"memories": items}, ensure_ascii=False)
    lines: list[str] = []
    if fmt == ContextFormat.XML:
        lines.append("<memories>")
    if group:
        order = list(dict.fromkeys(m.kind for m in chosen))
        for kind in order:
            if lines and fmt != ContextFormat.XML:
                lines.append("")
            lines.append(_heading(kind, fmt))
            lines += [_line(m, fmt, cite, badge) for m in chosen if m.kind == kind]
            if fmt == ContextFormat.XML:
                lines.append("</group>")
    else:
        lines += [_line(m, fmt, cite, badge) for m in chosen]
    if fmt == ContextFormat.XML:
        lines.append("</memories>")
    return "\n".join(lines)


def build_context(
    ranked: Sequence[Memory],
    budget: int,
    count_tokens: CountTokens,
    fmt: ContextFormat = ContextFormat.MARKDOWN,
    group_by_kind: bool = True,
    cite: bool = True,
    badges: bool = False,
) -> ContextResult:
    """Greedy fill in rank order; the rendered text never exceeds `budget` tokens."""
    chosen: list[Memory] = []
    omitted: list[str] = []
    text = ""
    tokens = 0
    for m in ranked:
        attempt = _render([*chosen, m], fmt, group_by_kind, cite, badges)
        attempt_tokens = count_tokens(attempt)
        if attempt_tokens <= budget:
            chosen.append(m)
            text, tokens = attempt, attempt_tokens
        else:
            omitted.append(m.name)
    return ContextResult(text, [m.name for m in chosen], tokens, omitted)
