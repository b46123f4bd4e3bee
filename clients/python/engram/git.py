"""Reads a local git history into `engram.v1.Commit` messages, for `IngestCommits`.

    from engram import git

    total = git.check_range(".", "v1.0..HEAD")     # GitError with git's reason if not
    name = git.repository_name(".")                # github.com/acme/api
    for batch in git.read_batches(".", "v1.0..HEAD", 100):
        client.ingest_commits(name, batch)

`Client.ingest_repository` does all of this in one call; `engram decisions
ingest` uses this module too. One `git log` run streams every commit of a range
oldest first with its message, times, parents and refs, and its zero-context
patch with rename detection (`-M`): the hunk headers give the changed line
ranges on both sides and the enclosing section (`@@ -40,2 +40,5 @@ def
rerank_async(`), from which added and deleted line counts follow. Merges carry no
patch of their own (git prints none by default), so they arrive without files.
Only comment lines added by a hunk are sent as its excerpt (they are where
rationale lives in code), and of the rest only the names a file's change
introduced or removed (`engram.diff_symbols`); code itself never leaves the
machine.

This is client-side code: it runs the `git` on PATH on the caller's machine and
needs nothing beyond the standard library and the SDK's own `engram.v1`
messages. The server never reads a repository.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
from collections.abc import Generator, Iterator
from datetime import datetime
from pathlib import Path

from engram import diff_symbols
from engram.v1 import decisions_pb2

# Each commit starts with a marker line; its header fields end with NUL + STX.
_START = "\x01engram-commit\x01\n"
_FORMAT = "%x01engram-commit%x01%n%H%x00%P%x00%an%x00%aI%x00%cn%x00%cI%x00%D%x00%B%x00%x02"
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*|--|;;|\"\"\"|''')")
MAX_EXCERPT = 1024
MAX_HUNKS = 200
MAX_FILES = 1000


class GitError(Exception):
    """git could not do what was asked (not a repository, an unknown range); the
    message is git's reason."""


def _git(path: str, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", path, *args], capture_output=True, text=True, check=False
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    if done.returncode != 0:
        raise GitError(done.stderr.strip() or f"git {' '.join(args)} failed")
    return done.stdout


def check_repository(path: str) -> None:
    """GitError with git's reason unless `path` is in a git repository."""
    _git(path, "rev-parse", "--git-dir")


def check_range(path: str, revision_range: str) -> int:
    """How many commits `revision_range` holds; GitError with git's reason if it
    cannot be resolved (or `path` is not a repository)."""
    check_repository(path)
    if not revision_range.strip():
        raise GitError("the revision range is empty")
    for end in re.split(r"\.\.\.?", revision_range):
        if end.startswith("-"):
            # git would read it as an option (`--output=FILE` writes a file).
            raise GitError(f"{end!r} in range {revision_range!r} is not a revision")
        if end:
            try:
                _git(path, "rev-parse", "--verify", "--quiet", f"{end}^{{commit}}")
            except GitError as exc:
                raise GitError(f"unknown revision {end!r} in range {revision_range!r}") from exc
    return int(_git(path, "rev-list", "--count", revision_range).strip() or 0)


def head(path: str) -> str:
    """The sha of the commit checked out at `path`."""
    return _git(path, "rev-parse", "HEAD").strip()


def resolve(path: str, revision: str) -> str:
    """The full sha of the commit `revision` names at `path` (a tag, a branch,
    `HEAD~2`, a short sha); GitError if git cannot resolve it to a commit."""
    if not revision.strip() or revision.startswith("-"):
        raise GitError(f"{revision!r} is not a revision")
    try:
        return _git(path, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()
    except GitError as exc:
        raise GitError(f"unknown revision {revision!r}") from exc


def repository_name(path: str) -> str:
    """A stable name from the origin remote (`github.com/acme/api`), else the
    directory's name."""
    try:
        url = _git(path, "remote", "get-url", "origin").strip()
    except GitError:
        url = ""
    name = ""
    if url:
        url = re.sub(r"\.git$", "", url.rstrip("/"))
        scp = re.match(r"^[\w.-]+@([\w.-]+):(.+)$", url)
        if scp:
            name = f"{scp.group(1)}/{scp.group(2)}"
        else:
            name = re.sub(r"^[a-z+]+://(?:[^@/]+@)?", "", url)
    if not name:
        top = _git(path, "rev-parse", "--show-toplevel").strip()
        name = Path(top).name
    name = re.sub(r"[^A-Za-z0-9._/:-]+", "-", name).strip("/")
    return re.sub(r"/{2,}", "/", name)[:200] or "repository"


def read_commits(path: str, revision_range: str = "HEAD") -> Iterator[decisions_pb2.Commit]:
    """The commits of `revision_range`, oldest first, as they stream out of git
    (GitError if git fails; `check_range` first gives a clear reason up front)."""
    if revision_range.startswith("-"):
        raise GitError(f"{revision_range!r} is not a revision range")
    args = [
        "git",
        "-C",
        path,
        "-c",
        "core.quotepath=off",
        "log",
        "--reverse",
        "-M",
        "-U0",
        "--no-color",
        "--no-ext-diff",
        "--patch",
        f"--format={_FORMAT}",
        revision_range,
    ]
    with subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace"
    ) as proc:
        assert proc.stdout is not None
        buffer: list[str] = []
        for line in proc.stdout:
            if line.startswith(_START):
                if buffer:
                    yield _parse("".join(buffer))
                buffer = [line]
            else:
                buffer.append(line)
        if buffer:
            yield _parse("".join(buffer))
        proc.wait()
        if proc.returncode != 0:
            assert proc.stderr is not None
            raise GitError(proc.stderr.read().strip() or "git log failed")


def read_batches(
    path: str, revision_range: str, size: int, ahead: int = 4
) -> Generator[list[decisions_pb2.Commit], None, None]:
    """`read_commits` in lists of `size`, read and parsed on a thread of their own
    up to `ahead` batches ahead: git and the parser work while the caller waits
    on the server, instead of in turn with it. GitError as `read_commits`. Close
    it (`contextlib.closing`) when stopping early: that stops the reading thread."""
    handoff: queue.Queue[list[decisions_pb2.Commit] | BaseException | None] = queue.Queue(ahead)
    stop = threading.Event()

    def produce() -> None:
        try:
            batch: list[decisions_pb2.Commit] = []
            for commit in read_commits(path, revision_range):
                batch.append(commit)
                if len(batch) >= size:
                    if not _put(handoff, batch, stop):
                        return
                    batch = []
            if batch and not _put(handoff, batch, stop):
                return
            _put(handoff, None, stop)
        except BaseException as error:  # handed to the consumer, raised there
            _put(handoff, error, stop)

    reader = threading.Thread(target=produce, name="git-log-reader", daemon=True)
    reader.start()
    try:
        while True:
            item = handoff.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        reader.join()


def _put(
    handoff: queue.Queue[list[decisions_pb2.Commit] | BaseException | None],
    item: list[decisions_pb2.Commit] | BaseException | None,
    stop: threading.Event,
) -> bool:
    """Hands `item` over unless the consumer went away (then False)."""
    while not stop.is_set():
        try:
            handoff.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _parse(chunk: str) -> decisions_pb2.Commit:
    header, _, patch = chunk[len(_START) :].partition("\x00\x02")
    fields = header.split("\x00")
    sha, parents, author, author_time, committer, commit_time, refs, message = fields[:8]
    commit = decisions_pb2.Commit(
        sha=sha,
        parents=parents.split(),
        author_name=author,
        committer_name=committer,
        message=message.rstrip("\n") + "\n",
        refs=[r.strip() for r in refs.split(",") if r.strip()],
    )
    commit.author_time.FromDatetime(datetime.fromisoformat(author_time))
    commit.commit_time.FromDatetime(datetime.fromisoformat(commit_time))
    for f in _files(patch):
        if len(commit.files) >= MAX_FILES:
            break
        commit.files.append(f)
    return commit


def _files(patch: str) -> Iterator[decisions_pb2.FileChange]:
    current: decisions_pb2.FileChange | None = None
    hunk: decisions_pb2.DiffHunk | None = None
    excerpt: list[str] = []
    plus: list[str] = []
    minus: list[str] = []

    def close_file(f: decisions_pb2.FileChange) -> decisions_pb2.FileChange:
        added, removed = diff_symbols.introduced_and_removed(f.path, plus, minus)
        f.added_symbols.extend(added)
        f.removed_symbols.extend(removed)
        plus.clear()
        minus.clear()
        return f

    def close_hunk() -> None:
        nonlocal hunk, excerpt
        if hunk is not None and excerpt:
            hunk.excerpt = "".join(excerpt)[:MAX_EXCERPT]
        hunk, excerpt = None, []

    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git "):
            close_hunk()
            if current is not None:
                yield close_file(current)
            a, b = _diff_paths(line)
            current = decisions_pb2.FileChange(
                path=b, change_type=decisions_pb2.FILE_CHANGE_TYPE_MODIFIED
            )
            current.old_path = a if a != b else ""
            continue
        if current is None:
            continue
        if hunk is None and not line.startswith("@@"):
            _file_header(current, line)
            continue
        match = _HUNK.match(line.rstrip("\n"))
        if match:
            close_hunk()
            if len(current.hunks) >= MAX_HUNKS:
                continue
            old_start, old_count, new_start, new_count = (
                int(match.group(1)),
                int(match.group(2) or 1) if match.group(2) != "0" else 0,
                int(match.group(3)),
                int(match.group(4) or 1) if match.group(4) != "0" else 0,
            )
            hunk = current.hunks.add(section=match.group(5).strip()[:200])
            if old_count:
                hunk.old_lines.start_line = old_start
                hunk.old_lines.end_line = old_start + old_count - 1
            if new_count:
                hunk.new_lines.start_line = new_start
                hunk.new_lines.end_line = new_start + new_count - 1
            current.additions += new_count
            current.deletions += old_count
            continue
        if hunk is not None and line[:1] in ("+", "-"):
            (plus if line[0] == "+" else minus).append(line[1:])
        if hunk is not None and line.startswith("+") and _COMMENT.match(line[1:]):
            if sum(len(x) for x in excerpt) < MAX_EXCERPT:
                excerpt.append(line)
    close_hunk()
    if current is not None:
        yield close_file(current)


def _diff_paths(line: str) -> tuple[str, str]:
    rest = line[len("diff --git ") :].rstrip("\n")
    # "a/<path> b/<path>": split at the " b/" that makes both halves equal in
    # length when the path did not change, else at the last " b/".
    half = (len(rest) - 1) // 2
    if rest[half : half + 3] == " b/" and rest[2:half] == rest[half + 3 :]:
        return rest[2:half], rest[half + 3 :]
    at = rest.rfind(" b/")
    return rest[2:at], rest[at + 3 :]


def _file_header(f: decisions_pb2.FileChange, line: str) -> None:
    text = line.rstrip("\n")
    if text.startswith("new file mode"):
        f.change_type = decisions_pb2.FILE_CHANGE_TYPE_ADDED
    elif text.startswith("deleted file mode"):
        f.change_type = decisions_pb2.FILE_CHANGE_TYPE_DELETED
    elif text.startswith("rename from "):
        f.change_type = decisions_pb2.FILE_CHANGE_TYPE_RENAMED
        f.old_path = text[len("rename from ") :]
    elif text.startswith("rename to "):
        f.path = text[len("rename to ") :]
    elif text.startswith("copy from "):
        f.change_type = decisions_pb2.FILE_CHANGE_TYPE_COPIED
        f.old_path = text[len("copy from ") :]
    elif text.startswith("copy to "):
        f.path = text[len("copy to ") :]
    elif text.startswith("Binary files ") or text.startswith("GIT binary patch"):
        f.binary = True
