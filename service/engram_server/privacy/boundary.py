"""The privacy boundary: one screening step for every write and every LLM payload.

`screen` is for atoms (a proposal's content, a tag): a credential anywhere drops
the whole atom, because what surrounds a secret usually describes it ("the prod
DB password is ..."). `screen_sentences` is for conversation text and prompts,
where dropping a whole message would lose the rest of what was said: only the
lines and sentences that carry a credential go. Both redact personal data in
what is kept, except the types the caller allows.
"""

from __future__ import annotations

import re
from functools import cache

from engram_server.privacy.credentials import CredentialDetector
from engram_server.privacy.model import (
    CREDENTIAL,
    DROPPED,
    PERSONAL_DATA,
    REDACTED,
    PrivacyFinding,
    Screened,
)
from engram_server.privacy.personal import find_personal_data, redact

# A private key block spans lines; sentence mode removes it whole, or the body
# lines (base64 without any marker) would survive the BEGIN line being dropped.
_PEM_BLOCK = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
    r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)\n?"
    r"|PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:[^\n]*|\Z)"
    r"\n?",
    re.DOTALL,
)
# Nothing shorter can hold a credential or a piece of personal data
# ("a@b.co", "1.2.3.4", "pwd=" plus a value).
MIN_SCREENED_LENGTH = 6
_SENTENCE_END = re.compile(r"(?<=[.!?])(\s+)")


def _segments(text: str) -> list[str]:
    """Lines, then sentences inside each line; separators stay attached so the
    kept pieces join back into the original layout."""
    pieces: list[str] = []
    for line in text.splitlines(keepends=True):
        parts = _SENTENCE_END.split(line)
        # re.split with a group alternates [sentence, separator, sentence, ...].
        for i in range(0, len(parts), 2):
            sep = parts[i + 1] if i + 1 < len(parts) else ""
            if parts[i] or sep:
                pieces.append(parts[i] + sep)
    return pieces


class PrivacyBoundary:
    """Stateless and thread-safe: one instance serves the whole process."""

    def __init__(self, credentials: CredentialDetector | None = None) -> None:
        self.credentials = credentials or CredentialDetector()

    def screen(self, text: str, field: str, *, allow: frozenset[str] = frozenset()) -> Screened:
        """A credential anywhere drops the atom (text None); otherwise personal
        data not in `allow` is replaced by typed placeholders."""
        if len(text) < MIN_SCREENED_LENGTH:
            return Screened(text)
        found = self.credentials.types(text)
        if found:
            return Screened(
                None, tuple(PrivacyFinding(CREDENTIAL, t, DROPPED, field) for t in found)
            )
        return self._redact(text, field, allow, ())

    def screen_sentences(
        self, text: str, field: str, *, allow: frozenset[str] = frozenset()
    ) -> Screened:
        """Drops only the lines and sentences that carry a credential and redacts
        personal data in the rest; text is None when nothing is left."""
        if len(text) < MIN_SCREENED_LENGTH:
            return Screened(text)
        if not self.credentials.might_carry(text):
            return self._redact(text, field, allow, ())
        dropped: list[str] = []
        remaining = text
        if _PEM_BLOCK.search(remaining):
            remaining = _PEM_BLOCK.sub("", remaining)
            dropped.append("private_key")
        kept: list[str] = []
        for piece in _segments(remaining):
            found = self.credentials.types(piece) if piece.strip() else []
            if found:
                dropped.extend(t for t in found if t not in dropped)
            else:
                kept.append(piece)
        findings = tuple(PrivacyFinding(CREDENTIAL, t, DROPPED, field) for t in dropped)
        if not dropped:
            return self._redact(text, field, allow, ())
        rest = "".join(kept).strip()
        if not rest:
            return Screened(None, findings)
        return self._redact(rest, field, allow, findings)

    @staticmethod
    def _redact(
        text: str, field: str, allow: frozenset[str], prior: tuple[PrivacyFinding, ...]
    ) -> Screened:
        spans = [s for s in find_personal_data(text) if s.type not in allow]
        if not spans:
            return Screened(text, prior)
        types = list(dict.fromkeys(s.type for s in spans))
        findings = prior + tuple(PrivacyFinding(PERSONAL_DATA, t, REDACTED, field) for t in types)
        return Screened(redact(text, spans), findings)


@cache
def default_boundary() -> PrivacyBoundary:
    """The process-wide boundary (its detectors compile once)."""
    return PrivacyBoundary()
