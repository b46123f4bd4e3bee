"""DecisionsService's requests and results, their limits, and the checks and
clean-up of their input (commit shape, names, spans), before anything is stored.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from engram_server.decisions import answer
from engram_server.decisions.model import ChangeType, Commit, CommitResult, Decision, LineSpan
from engram_server.errors import InvalidArgument, Violations
from engram_server.privacy import PrivacyFinding

DECISION = "decision"
MAX_COMMITS = 500
MAX_FILES = 1000
MAX_HUNKS = 200
MAX_MESSAGE_BYTES = 64 * 1024
MAX_EXCERPT_BYTES = 4 * 1024
MAX_DIFF_EXCERPT_BYTES = 64 * 1024
# Paths and symbols are keys of btree indexes, whose rows hold at most ~2.7 kB:
# counted in bytes, as a path of wide characters takes up to four per character.
MAX_PATH_BYTES = 1024
MAX_ANCHOR_SYMBOL_CHARS = 200
MAX_SYMBOLS = 200  # added (or removed) names per file
MAX_SYMBOL_CHARS = 200
MAX_MEMORY_CHARS = 2000
MAX_EXPLAIN_K = 20
MAX_SEARCH_K = 50
MAX_QUERY_CHARS = 2000
DEFAULT_EXPLAIN_K = 5
MAX_BLAME_COMMITS = 50
DEFAULT_SEARCH_K = 10
MAX_TOKEN_BUDGET = 20_000
INGEST_ATTEMPTS = 3
MAX_SOURCES = 12
MAX_SOURCE_BYTES = 64 * 1024
FULL_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
# A revision (or a stated decision's commit) may be abbreviated: it is matched as
# a prefix of the recorded shas.
SHORT_SHA = re.compile(r"[0-9a-f]{4,64}")


@dataclass(frozen=True)
class CommitInput:
    """One commit of a request: converted, or refused with its violations."""

    index: int
    sha: str
    commit: Commit | None
    violations: tuple[tuple[str, str], ...] = ()
    # What `sanitised_commit` changed to store it ("kind: detail"); a commit that
    # becomes a decision reports them as its reason.
    notes: tuple[str, ...] = ()


@dataclass
class IngestOutcome:
    decisions: list[Decision] = field(default_factory=list)
    processed: int = 0
    skipped: int = 0
    without_decision: int = 0
    created: int = 0
    updated: int = 0
    invalid: int = 0
    findings: list[PrivacyFinding] = field(default_factory=list)
    commits: list[CommitResult] = field(default_factory=list)


@dataclass(frozen=True)
class ExplainQuery:
    repository: str
    path: str
    lines: LineSpan | None = None
    symbol: str = ""
    revision: str = ""
    question: str = ""
    k: int = 0
    include_superseded: bool = False
    token_budget: int = 0
    # The commits `git blame` names for `lines` at `revision` (from the client).
    blame_commits: tuple[str, ...] = ()
    # Read-your-writes (`DecisionsService.await_index`), waiting at most this long.
    read_your_writes: bool = False
    wait_seconds: float | None = None


@dataclass(frozen=True)
class SearchQuery:
    query: str
    repository: str = ""
    path: str = ""
    k: int = 0
    include_superseded: bool = False
    start: datetime | None = None
    end: datetime | None = None
    # Read-your-writes (`DecisionsService.await_index`), waiting at most this long.
    read_your_writes: bool = False
    wait_seconds: float | None = None


@dataclass(frozen=True)
class SearchAnswer:
    candidates: list[answer.Candidate]
    # How much of the query the best hit's commit covers (0-1), and whether that
    # is under ABSTAIN_BELOW: no decision explains the query.
    confidence: float
    abstained: bool


@dataclass(frozen=True)
class Explanation:
    candidates: list[answer.Candidate]
    context: str
    token_count: int


def parse_decision_name(name: str, field_path: str = "name") -> uuid.UUID:
    if not name:
        raise InvalidArgument.field(field_path, "required")
    prefix, _, raw = name.partition("/")
    if prefix != "decisions" or not raw:
        raise InvalidArgument.field(field_path, "must look like decisions/{decision}")
    try:
        return uuid.UUID(raw)
    except ValueError as exc:
        raise InvalidArgument.field(field_path, "decision id must be a UUID") from exc


def sanitised_commit(c: Commit) -> tuple[Commit, tuple[str, ...]]:
    """`c` as it can be stored, and notes of what changed ("kind: detail").

    Real histories hold NUL bytes (binary files git did not recognise) and
    oversize texts, and one such commit must not cost the others of its batch.
    Free text has its NULs replaced (U+FFFD); an excerpt holding NULs is binary
    content and is dropped (the hunk's lines stay); a diff excerpt loses its
    lines with NULs; excerpts and the message are cut to their limits. What
    identifies a commit or a file (shas, paths) is not touched: `check_commit`
    refuses it, naming the problem."""
    notes: list[str] = []
    files = []
    for f in c.files:
        hunks = []
        for h in f.hunks:
            excerpt = h.excerpt
            if "\x00" in excerpt:
                excerpt = ""
                notes.append(f"binary content not quoted: {f.path}")
            elif len(excerpt) * 4 > MAX_EXCERPT_BYTES and len(excerpt.encode()) > MAX_EXCERPT_BYTES:
                excerpt = _clip(excerpt, MAX_EXCERPT_BYTES)
                notes.append(f"excerpt cut to {MAX_EXCERPT_BYTES} bytes: {f.path}")
            hunks.append(
                h
                if excerpt == h.excerpt and "\x00" not in h.section
                else replace(h, section=_no_nul(h.section), excerpt=excerpt)
            )
        files.append(replace(f, hunks=tuple(hunks)))
    diff_excerpt = c.diff_excerpt
    if "\x00" in diff_excerpt:
        diff_excerpt = "".join(
            line for line in diff_excerpt.splitlines(keepends=True) if "\x00" not in line
        )
        notes.append("binary content not quoted: the diff excerpt")
    if len(diff_excerpt.encode()) > MAX_DIFF_EXCERPT_BYTES:
        diff_excerpt = _clip(diff_excerpt, MAX_DIFF_EXCERPT_BYTES)
        notes.append(f"diff excerpt cut to {MAX_DIFF_EXCERPT_BYTES} bytes")
    message = _no_nul(c.message)
    if message != c.message:
        notes.append("NUL characters replaced: the message")
    if len(message.encode()) > MAX_MESSAGE_BYTES:
        message = _clip(message, MAX_MESSAGE_BYTES)
        notes.append(f"message cut to {MAX_MESSAGE_BYTES} bytes")
    cleaned = replace(
        c,
        message=message,
        author_name=_no_nul(c.author_name),
        committer_name=_no_nul(c.committer_name),
        refs=tuple(_no_nul(r) for r in c.refs),
        diff_excerpt=diff_excerpt,
        files=tuple(files),
    )
    return cleaned, tuple(dict.fromkeys(notes))


def _no_nul(text: str) -> str:
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def _clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, at a character boundary."""
    if len(text) * 4 <= limit:
        return text
    raw = text.encode()
    return text if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore")


def check_commit(v: Violations, path: str, c: Commit) -> None:
    """Shape checks of one converted commit (limits, shas, line ranges); each
    violation names what is wrong, so a refused commit can be fixed."""
    if not c.sha:
        v.add(f"{path}.sha", "required")
    elif not FULL_SHA.match(c.sha):
        v.add(f"{path}.sha", "must be 40 or 64 lowercase hex characters")
    for i, parent in enumerate(c.parents):
        if not FULL_SHA.match(parent):
            v.add(f"{path}.parents[{i}]", "must be 40 or 64 lowercase hex characters")
    if not c.message.strip():
        v.add(f"{path}.message", "required")
    elif len(c.message.encode()) > MAX_MESSAGE_BYTES:
        v.add(f"{path}.message", f"at most {MAX_MESSAGE_BYTES} bytes")
    if len(c.diff_excerpt.encode()) > MAX_DIFF_EXCERPT_BYTES:
        v.add(f"{path}.diff_excerpt", f"at most {MAX_DIFF_EXCERPT_BYTES} bytes")
    if len(c.files) > MAX_FILES:
        v.add(f"{path}.files", f"at most {MAX_FILES} files")
        return
    for i, f in enumerate(c.files):
        fp = f"{path}.files[{i}]"
        if not f.path:
            v.add(f"{fp}.path", "required")
        else:
            _check_path(v, f"{fp}.path", f.path)
        if f.old_path:
            _check_path(v, f"{fp}.old_path", f.old_path)
        if f.change_type in (ChangeType.RENAMED, ChangeType.COPIED) and not f.old_path:
            v.add(f"{fp}.old_path", "required for a rename or copy")
        for name, symbols in (
            ("added_symbols", f.added_symbols),
            ("removed_symbols", f.removed_symbols),
        ):
            if len(symbols) > MAX_SYMBOLS:
                v.add(f"{fp}.{name}", f"at most {MAX_SYMBOLS} names")
            elif any(len(s) > MAX_SYMBOL_CHARS or not s or "\x00" in s for s in symbols):
                v.add(f"{fp}.{name}", f"names of 1-{MAX_SYMBOL_CHARS} characters, without NUL")
        if len(f.hunks) > MAX_HUNKS:
            v.add(f"{fp}.hunks", f"at most {MAX_HUNKS} hunks per file")
            continue
        for j, h in enumerate(f.hunks):
            hp = f"{fp}.hunks[{j}]"
            for side, span in (("old_lines", h.old), ("new_lines", h.new)):
                if span is not None:
                    check_span(v, f"{hp}.{side}", span)
            if h.old is None and h.new is None:
                v.add(f"{hp}.new_lines", "a hunk needs old_lines, new_lines or both")
            if len(h.excerpt.encode()) > MAX_EXCERPT_BYTES:
                v.add(f"{hp}.excerpt", f"at most {MAX_EXCERPT_BYTES} bytes")


def _check_path(v: Violations, field_path: str, value: str) -> None:
    """A path as git stores it: relative, no NUL, within the index key limit. Any
    other byte (a backslash, a quote, a space, unicode) is a valid path."""
    if "\x00" in value:
        v.add(field_path, "must not contain NUL (U+0000) characters")
    elif value.startswith("/"):
        v.add(field_path, "must be relative to the repository root (not start with /)")
    elif len(value.encode()) > MAX_PATH_BYTES:
        v.add(field_path, f"at most {MAX_PATH_BYTES} bytes (UTF-8)")


def check_span(v: Violations, path: str, span: LineSpan) -> None:
    if span.start < 1:
        v.add(f"{path}.start_line", "must be at least 1")
    elif span.end < span.start:
        v.add(f"{path}.end_line", "must not be before start_line")


def now() -> datetime:
    return datetime.now(UTC)
