"""The names a diff introduced or removed, for `FileChange.added_symbols` and
`removed_symbols`.

A name is an identifier that reads as one (`snake_case`, `camelCase`,
`PascalCase` with two capitals or more, `SCREAMING_CASE`) or a long option
(`--max-depth`), found on the added and the deleted lines of a file's patch. A
name on both sides was only moved or edited around, so it counts for neither:
what is left is what the change introduced and what it took away, which is what
"when was X added" and "why was X removed" ask about. Only names leave the
machine, never the lines they were on; lockfiles and generated files give none,
and long or digit-heavy tokens (hashes, keys) are never names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MAX_NAMES = 200
MAX_NAME_CHARS = 60
MAX_LINE_CHARS = 1000
_NAME = re.compile(
    r"(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+(?![\w-])"  # --max-depth, -no-ignore
    r"|(?<![\w-])--[A-Za-z][A-Za-z0-9]{2,}(?![\w-])"  # --color
    r"|\b[A-Za-z_][A-Za-z0-9_]*\b"
)
_CAMEL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
_LOCKFILES = re.compile(
    r"(?:^|/)(?:[^/]+\.lock|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|go\.sum"
    r"|[^/]+\.min\.(?:js|css)|[^/]+\.pb\.go|[^/]+_pb2\.pyi?)$"
)


def is_name(token: str) -> bool:
    if len(token) > MAX_NAME_CHARS or len(token) < 4:
        return False
    if token.startswith("-"):
        return True
    if sum(ch.isdigit() for ch in token) > 3:
        return False
    core = token.strip("_")
    return "_" in core or bool(_CAMEL.search(core))


def names(lines: Iterable[str]) -> list[str]:
    """The names on `lines`, in order of first appearance."""
    found: dict[str, None] = {}
    for line in lines:
        if len(line) > MAX_LINE_CHARS:
            continue
        for match in _NAME.finditer(line):
            token = match.group()
            if is_name(token):
                found.setdefault(token, None)
    return list(found)


def introduced_and_removed(
    path: str, added_lines: Iterable[str], deleted_lines: Iterable[str]
) -> tuple[list[str], list[str]]:
    """(names only on added lines, names only on deleted lines), at most
    MAX_NAMES each; none for a lockfile or a generated file."""
    if _LOCKFILES.search(path):
        return [], []
    added = names(added_lines)
    deleted = names(deleted_lines)
    on_both = set(added) & set(deleted)
    return (
        [n for n in added if n not in on_both][:MAX_NAMES],
        [n for n in deleted if n not in on_both][:MAX_NAMES],
    )
