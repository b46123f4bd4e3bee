"""Sentences of a commit message with their exact place in it.

Quotes must be verbatim, so sentences are kept as spans of the original text
(wrapped lines and all) and cut out of it, never re-joined.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A sentence ends at . ! ? followed by whitespace and something that starts one,
# at a blank line, or before a bullet / trailer line.
_BOUNDARY = re.compile(
    r"(?<=[.!?])[ \t]+(?=[\"'(\[A-Z0-9`])"  # sentence end inside a line
    r"|(?<=[.!?:])\n(?=\S)"  # sentence end at a line end
    r"|\n[ \t]*\n+"  # paragraph break
    r"|\n(?=[ \t]*(?:[-*•+]|\d+[.)])[ \t]+)"  # a list item starts
    r"|\n(?=[A-Z][A-Za-z-]+: )"  # a trailer-like line starts
)
TRAILER = re.compile(
    r"^(?:Signed-off-by|Co-authored-by|Co-Authored-By|Change-Id|Cc|Acked-by|Tested-by"
    r"|Reviewed-on|Reviewed-by|Helped-by|Suggested-by|Reported-by|Approved-by"
    r"|Differential Revision|Git-commit|PiperOrigin-RevId|Bug|Test|Release-Note)\s*:",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^(?:[-*•+]|\d+[.)])[ \t]+")
_WS = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Span:
    """`text` is exactly `source[start:end]`."""

    start: int
    end: int
    text: str

    @property
    def flat(self) -> str:
        """The sentence on one line (for rationale, which is not a quote)."""
        return _WS.sub(" ", self.text).strip()


def sentences(source: str, offset: int = 0, length: int | None = None) -> list[Span]:
    """The sentences of `source[offset:offset+length]`, as spans of `source`,
    stripped of surrounding whitespace and list bullets."""
    end_at = len(source) if length is None else offset + length
    region = source[offset:end_at]
    out: list[Span] = []
    position = 0
    for match in _BOUNDARY.finditer(region):
        _add(out, source, offset + position, offset + match.start())
        position = match.end()
    _add(out, source, offset + position, end_at)
    return out


def _add(out: list[Span], source: str, start: int, end: int) -> None:
    piece = source[start:end]
    stripped = piece.lstrip()
    start += len(piece) - len(stripped)
    bullet = _BULLET.match(stripped)
    if bullet:
        start += bullet.end()
        stripped = stripped[bullet.end() :]
    text = stripped.rstrip()
    if text:
        out.append(Span(start, start + len(text), text))


def flat(text: str) -> str:
    return _WS.sub(" ", text).strip()
