"""The Qdrant server versions the server adapter supports, and the check of one.

The adapter needs Qdrant 1.16 (ACORN filtered search, conditional updates,
collection metadata) and avoids anything newer: subspace filters match an array of
ancestor spaces instead of `MatchPrefix`, and the lexical leg is weighted with
each tenant's own IDF instead of a server-side IDF corpus. The range ends before
1.20, the release after the newest one (1.19): a future release is refused until
someone has run the suites against it (they pass against a real Qdrant 1.16.3,
docs/operations.md). The server reads the version when it connects and again
after a lost connection (the Qdrant server may have been replaced meanwhile) and
refuses to work with one outside the range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from engram_server.errors import FailedPrecondition, PreconditionViolation

# The setting an operator changes to point Engram at another Qdrant server.
URL_SETTING = "ENGRAM_QDRANT_URL"

Version = tuple[int, int, int]

_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.(\d+))?")


@dataclass(frozen=True, slots=True)
class VersionRange:
    """Versions from `lowest` (inclusive) up to `below` (exclusive)."""

    lowest: Version
    below: Version

    def __contains__(self, version: Version) -> bool:
        return self.lowest <= version < self.below

    def __str__(self) -> str:
        return f">= {_format(self.lowest)}, < {_format(self.below, minor_only=True)}"


SUPPORTED = VersionRange(lowest=(1, 16, 0), below=(1, 20, 0))


class UnsupportedQdrantVersion(FailedPrecondition):
    """The Qdrant server answers with a version outside the supported range."""

    def __init__(self, found: str, url: str, supported: VersionRange) -> None:
        where = f" at {url}" if url else ""
        super().__init__(
            f"the Qdrant server{where} runs version {found or '(unreported)'}, but Engram "
            f"supports Qdrant {supported}; upgrade or replace that server, or point "
            f"{URL_SETTING} at one in the supported range",
            [PreconditionViolation("QDRANT_VERSION", URL_SETTING, f"{found} not {supported}")],
        )
        self.found = found
        self.supported = supported


def parse_version(text: str) -> Version | None:
    """`1.16.3`, `v1.18.0`, `1.17.0-dev` -> (major, minor, patch); None if unreadable."""
    match = _VERSION.match(text or "")
    if match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def check_version(found: str, url: str = "", supported: VersionRange | None = None) -> Version:
    """The parsed version, or UnsupportedQdrantVersion naming it, the range and the setting."""
    supported = supported or SUPPORTED
    version = parse_version(found)
    if version is None or version not in supported:
        raise UnsupportedQdrantVersion(found, url, supported)
    return version


class _VersionSource(Protocol):
    async def info(self) -> object: ...


async def verify_server_version(
    client: _VersionSource, url: str = "", supported: VersionRange | None = None
) -> str:
    """Reads the server's version (its root endpoint, through `client.info()`) and
    returns it if supported; raises UnsupportedQdrantVersion otherwise."""
    info = await client.info()
    found = str(getattr(info, "version", "") or "")
    check_version(found, url, supported)
    return found


def _format(version: Version, minor_only: bool = False) -> str:
    major, minor, patch = version
    return f"{major}.{minor}" if minor_only and patch == 0 else f"{major}.{minor}.{patch}"
