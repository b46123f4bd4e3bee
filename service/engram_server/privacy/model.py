"""What the privacy boundary reports: findings and screened texts."""

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
