"""The privacy boundary: every write path and every LLM-bound payload passes here.

Credentials (cloud keys, tokens, private keys, JWTs, connection strings with
passwords, `password=` assignments...) drop the atom that carries them; personal
data (emails, phone numbers, card numbers, IBANs, IP addresses, national IDs...)
is replaced by typed placeholders unless the space's policy allows that type.
A finding names the detector type and the input field, never the matched text.
"""

from __future__ import annotations

from engram_server.privacy.boundary import PrivacyBoundary, default_boundary
from engram_server.privacy.model import (
    CREDENTIAL,
    DROPPED,
    PERSONAL_DATA,
    REDACTED,
    PrivacyFinding,
    Screened,
)
from engram_server.privacy.personal import PERSONAL_DATA_TYPES, placeholder

__all__ = [
    "CREDENTIAL",
    "DROPPED",
    "PERSONAL_DATA",
    "PERSONAL_DATA_TYPES",
    "REDACTED",
    "PrivacyBoundary",
    "PrivacyFinding",
    "Screened",
    "default_boundary",
    "placeholder",
]
