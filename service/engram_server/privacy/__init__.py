"""The privacy boundary: every write path and every LLM-bound payload passes here.

Credentials (cloud keys, tokens, private keys, JWTs, connection strings with
passwords, `password=` assignments...) drop the atom that carries them; personal
data (emails, phone numbers, card numbers, IBANs, IP addresses, national IDs...)
is replaced by typed placeholders unless the space's policy allows that type.
A finding names the detector type and the input field, never the matched text.
"""

from __future__ import annotations

from dataclasses import dataclass

CREDENTIAL = "credential"
PERSONAL_DATA = "personal_data"
DROPPED = "dropped"
REDACTED = "redacted"


@dataclass(frozen=True)
class PrivacyFinding:
    """What the boundary did to one input; safe to return and to log."""

    category: str  # CREDENTIAL or PERSONAL_DATA
    type: str  # detector type: "aws_access_key", "email", ...
    action: str  # DROPPED or REDACTED
    field: str  # the input concerned: "proposal.content", "turns[3].content"


@dataclass(frozen=True)
class Screened:
    """A screened text: `text` is None when the whole atom was dropped."""

    text: str | None
    findings: tuple[PrivacyFinding, ...] = ()

    @property
    def dropped(self) -> bool:
        return self.text is None
