"""Anchor lines at the asked revision, carried exactly with the local git.

ExplainCode carries each anchor's lines to the asked revision through the later
changes of its file, in commit-time order. Across branches merged into each
other that order is not the order the changes met in, so the lines it shows can
be off. With the repository at hand, `git diff <recorded commit> <revision> --
<path>` says exactly where the recorded lines went; `engram decisions explain`
asks it and shows those lines instead.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable

from engram import CodeAnchor, ExplainResult

from engram_server.decisions.anchors import carry
from engram_server.decisions.model import LineSpan

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
GIT_TIMEOUT_SECONDS = 30


def _git(repo_path: str, *args: str) -> bytes | None:
    try:
        done = subprocess.run(
            ["git", "-C", repo_path, *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def exact_lines(
    repo_path: str, recorded_commit: str, revision: str, path: str, lines: LineSpan
) -> LineSpan | None:
    """Where `lines` of `path` at `recorded_commit` are at `revision`, by git's own
    diff between the two. None when git cannot tell: the file had another name
    at the recorded commit, a commit is unknown here, or the lines are gone."""
    for commit in (recorded_commit, revision):
        if _git(repo_path, "cat-file", "-e", f"{commit}:{path}") is None:
            return None
    diff = _git(
        repo_path,
        "diff",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        recorded_commit,
        revision,
        "--",
        path,
    )
    if diff is None:
        return None
    hunks = [
        (int(a), int(b) if b else 1, int(c), int(d) if d else 1)
        for a, b, c, d in _HUNK.findall(diff)
    ]
    return carry(lines, hunks)


def _where(path: str, start: int, end: int) -> str:
    return f"`{path}:{start}-{end}"


def _corrections(repo_path: str, revision: str, anchors: Iterable[CodeAnchor]) -> dict[str, str]:
    """The shown `path:start-end` of each carried anchor whose exact lines differ,
    mapped to the exact one."""
    out: dict[str, str] = {}
    for a in anchors:
        if a.lines is None or a.recorded_lines is None or not a.recorded_commit_sha:
            continue
        recorded = LineSpan(a.recorded_lines.start_line, a.recorded_lines.end_line)
        exact = exact_lines(repo_path, a.recorded_commit_sha, revision, a.path, recorded)
        if exact is None:
            continue
        shown = _where(a.path, a.lines.start_line, a.lines.end_line)
        if (exact.start, exact.end) != (a.lines.start_line, a.lines.end_line):
            out[shown] = _where(a.path, exact.start, exact.end)
    return out


def exact_context(result: ExplainResult, repo_path: str, revision: str) -> str:
    """`result.context` with every carried anchor at its exact lines at
    `revision`, each decision's block corrected by that decision's anchors."""
    if not revision or not result.context:
        return result.context
    blocks = re.split(r"(?m)^(?=### )", result.context)
    for explanation in result.explanations:
        fixes = _corrections(repo_path, revision, explanation.matched_anchors)
        if not fixes:
            continue
        heading = f"### {explanation.decision.title}"
        for i, block in enumerate(blocks):
            if block.startswith(heading):
                for shown, exact in fixes.items():
                    block = block.replace(shown, exact)
                blocks[i] = block
                break
    return "".join(blocks)
