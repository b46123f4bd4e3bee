"""Sha-free identity of a decision, and where a repository's decisions live.

A decision is identified by its normalised title and its author time, never by a
commit hash: a rebase rewrites every hash but keeps both, and a squash keeps the
first commit's author time and subject (GitHub appends the pull request number,
which normalisation drops). So re-ingesting rewritten history converges on the
same decisions instead of duplicating them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import UTC, datetime

from engram_server.errors import Violations
from engram_server.lifecycle.validation import MAX_SPACE_SEGMENTS, SPACE_SEGMENT

REPOSITORY_PATTERN = re.compile(r"^[A-Za-z0-9._/:-]{1,200}$")
# Decision spaces start with this segment; unscoped recall leaves them out.
DECISIONS_SPACE_ROOT = "decisions"

_PR_SUFFIX = re.compile(r"\s*\((?:#|!|GH-)\d+\)\s*$", re.IGNORECASE)
_TRAILING_PUNCT = re.compile(r"[\s.!:;,]+$")


def check_repository(v: Violations, path: str, repository: str) -> None:
    if not repository:
        v.add(path, "required")
    elif not REPOSITORY_PATTERN.match(repository):
        v.add(path, "1-200 characters of [A-Za-z0-9._/:-]")
    elif any(not part for part in repository.split("/")):
        v.add(path, "must not start or end with '/' or contain '//'")
    elif repository in (".", "..") or any(p in (".", "..") for p in repository.split("/")):
        v.add(path, "must not contain '.' or '..' segments")


def default_space(repository: str) -> str:
    """`decisions/<repository>` when that is a legal space; else a hashed form
    that keeps a readable prefix (a space has at most 8 segments of 64 chars)."""
    segments = repository.split("/")
    if len(segments) < MAX_SPACE_SEGMENTS and all(SPACE_SEGMENT.match(s) for s in segments):
        return f"{DECISIONS_SPACE_ROOT}/{repository}"
    digest = hashlib.sha256(repository.encode()).hexdigest()[:12]
    readable = re.sub(r"[^A-Za-z0-9._:-]+", "-", repository)[:48].strip("-") or "repo"
    return f"{DECISIONS_SPACE_ROOT}/{readable}-{digest}"


def is_decision_space(space: str) -> bool:
    return space == DECISIONS_SPACE_ROOT or space.startswith(DECISIONS_SPACE_ROOT + "/")


def normalise_title(title: str) -> str:
    """Case, Unicode form, inner whitespace, trailing punctuation and a trailing
    pull-request number do not change which decision a title names."""
    text = unicodedata.normalize("NFKC", title).strip()
    text = _PR_SUFFIX.sub("", text)
    text = _TRAILING_PUNCT.sub("", text)
    return " ".join(text.casefold().split())


def decision_identity(title: str, decision_time: datetime) -> str:
    when = decision_time.astimezone(UTC).replace(microsecond=0).isoformat()
    basis = f"{normalise_title(title)}\x00{when}"
    return hashlib.sha256(basis.encode()).hexdigest()[:32]
