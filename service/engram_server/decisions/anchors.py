"""Anchors: where a decision applies, and where those lines are later on.

A zero-context hunk says exactly which lines a commit replaced and which it
wrote, so an anchor's lines can be carried through every later commit that
touched the file: lines above a hunk stay, lines below shift by what the hunk
added minus what it removed, and an anchor that overlaps a hunk grows or shrinks
to cover what replaced its lines. Renames carry the path along.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from engram_server.decisions.model import Anchor, ChangeType, FileChange, Hunk, LineSpan

# The enclosing symbol from a hunk header's section (what git prints after `@@`).
_SYMBOL_PATTERNS = [
    re.compile(p)
    for p in (
        r"\b(?:async\s+)?def\s+([A-Za-z_]\w*)",  # Python
        r"\bclass\s+([A-Za-z_]\w*)",  # Python, Java, JS, C++
        r"\bfunc\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)",  # Go
        r"\bfn\s+([A-Za-z_]\w*)",  # Rust
        r"\b(?:struct|enum|trait|union|type|interface|module|mod)\s+([A-Za-z_]\w*)",
        r"\bimpl(?:<[^>]*>)?\s+(?:[\w:<>, ]+\s+for\s+)?([A-Za-z_]\w*)",  # Rust impl
        r"\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)",  # JS
        r"\b([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)",  # JS
        # C-like: the name before the parameters; from a word's start only (from
        # every letter, a long word was re-read once per letter).
        r"(?<!\w)([A-Za-z_]\w*)\s*\(",
    )
]
_HEADING = re.compile(r"^#+\s+(.+)$")

MAX_SYMBOL_CHARS = 120


@functools.lru_cache(maxsize=8192)
def symbol_of(section: str) -> str:
    """The symbol a hunk header names (`def rerank_async(` -> `rerank_async`)."""
    section = section.strip()
    if not section:
        return ""
    heading = _HEADING.match(section)
    if heading:
        return heading.group(1).strip()[:MAX_SYMBOL_CHARS]
    for pattern in _SYMBOL_PATTERNS:
        match = pattern.search(section)
        if match and match.group(1) not in _KEYWORDS:
            return match.group(1)[:MAX_SYMBOL_CHARS]
    return ""


_KEYWORDS = frozenset({"if", "for", "while", "switch", "return", "catch", "sizeof", "elif"})


def hunk_positions(hunks: Sequence[Hunk]) -> list[tuple[int, int, int, int]]:
    """Each hunk as (old_start, old_count, new_start, new_count), with the missing
    side of a pure addition or deletion placed where git's header would put it
    (the line before the change), computed from the hunks before it."""
    out: list[tuple[int, int, int, int]] = []
    delta = 0
    for h in hunks:
        if h.old is not None and h.new is not None:
            row = (h.old.start, h.old.count, h.new.start, h.new.count)
        elif h.new is not None:  # pure addition after old line new.start - 1 - delta
            row = (h.new.start - 1 - delta, 0, h.new.start, h.new.count)
        elif h.old is not None:  # pure deletion: new side is after line old.start - 1 + delta
            row = (h.old.start, h.old.count, h.old.start - 1 + delta, 0)
        else:
            continue
        out.append(row)
        delta += row[3] - row[1]
    return out


def carry(span: LineSpan, hunks: Sequence[tuple[int, int, int, int]]) -> LineSpan | None:
    """Where `span` (lines of the parent version) is in the child version, given
    the child's hunks as (old_start, old_count, new_start, new_count). None when
    every line of the span was deleted and nothing replaced it."""
    start = _map(span.start, hunks, first=True)
    end = _map(span.end, hunks, first=False)
    if start is None or end is None or end < start:
        # The endpoints fell into deletions: keep what survives between them.
        survivors = [
            n
            for line in range(span.start, span.end + 1)
            if (n := _map(line, hunks, first=True)) is not None
        ]
        if not survivors:
            return None
        return LineSpan(min(survivors), max(survivors))
    return LineSpan(start, end)


def _map(line: int, hunks: Sequence[tuple[int, int, int, int]], *, first: bool) -> int | None:
    delta = 0
    for old_start, old_count, new_start, new_count in hunks:
        if old_count == 0:
            # An insertion after old line `old_start`: lines after it move down.
            if line > old_start:
                delta = new_start + new_count - 1 - old_start
                continue
            break
        old_end = old_start + old_count - 1
        if line < old_start:
            break
        if line <= old_end:
            # A replaced line: it becomes the replacement's first (or last) line.
            if new_count == 0:
                return None
            return new_start if first else new_start + new_count - 1
        # The line just below the hunk follows the hunk's last new line (for a
        # pure deletion, git's new start is the line before the removed ones).
        last_new = new_start + new_count - 1 if new_count else new_start
        delta = last_new - old_end
    return line + delta


def anchors_of(sha: str, files: Sequence[FileChange], limit: int) -> list[Anchor]:
    """The anchors a commit's diff gives: every hunk's new lines with the symbol
    that encloses them; a whole-file anchor for a deleted file or one sent
    without hunks. Lockfiles are left out."""
    out: list[Anchor] = []
    seen: set[tuple[str, int, int, str]] = set()
    for f in files:
        if is_lockfile(f.path):
            continue
        found: list[Anchor] = []
        if f.change_type == ChangeType.DELETED or f.binary or not f.hunks:
            found.append(Anchor(f.path, None, sha, ""))
        else:
            for (_, _, new_start, new_count), h in zip(
                hunk_positions(f.hunks), f.hunks, strict=False
            ):
                if new_count > 0:
                    lines = LineSpan(new_start, new_start + new_count - 1)
                else:  # a deletion: the lines around where code was removed
                    lines = LineSpan(max(1, new_start), max(1, new_start) + 1)
                found.append(Anchor(f.path, lines, sha, symbol_of(h.section)))
        for anchor in found:
            if anchor.key not in seen:
                seen.add(anchor.key)
                out.append(anchor)
            if len(out) >= limit:
                return out
    return out


_LOCKFILES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "pipfile.lock",
        "uv.lock",
        "pdm.lock",
        "cargo.lock",
        "go.sum",
        "gemfile.lock",
        "composer.lock",
        "mix.lock",
        "pubspec.lock",
        "packages.lock.json",
        "flake.lock",
        "podfile.lock",
    }
)


def is_lockfile(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name in _LOCKFILES or name.endswith(".lock")


def symbol_matches(wanted: str, anchor_symbol: str) -> bool:
    """A requested symbol names an anchor's (`Cls.method` matches `method`)."""
    if not wanted or not anchor_symbol:
        return False
    wanted = wanted.strip()
    if wanted == anchor_symbol:
        return True
    parts = re.split(r"::|\.|#", wanted)
    return parts[-1] == anchor_symbol
