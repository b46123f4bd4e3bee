"""Reads a local git history into `engram.v1.Commit` messages, for `IngestCommits`.

    from engram import git

    total = git.check_range(".", "v1.0..HEAD")     # GitError with git's reason if not
    name = git.repository_name(".")                # github.com/acme/api
    report = git.ReadReport()
    for batch in git.read_batches(".", "v1.0..HEAD", 100, report=report):
        client.ingest_commits(name, batch)
    report.skipped                                 # Counter: reason -> commits

`Client.ingest_repository` does all of this in one call; `engram decisions
ingest` uses this module too. One `git log` run streams every commit of a range
oldest first, in git's machine formats only: header fields separated by NUL,
times as raw seconds (a malformed timezone such as `+051800` cannot break them),
author and committer names through `.mailmap` (`%aN`, `%cN`), the changed paths
from `--raw -z` (never quoted, whatever bytes they hold), then the zero-context
patch with rename and copy detection (`-M -C`), whose hunk headers give the
changed line ranges on both sides and the enclosing section (`@@ -40,2 +40,5 @@
def rerank_async(`). Merges carry no patch of their own (git prints none by
default), so they arrive without files. Of code, only the comment lines a hunk
added are sent as its excerpt (they are where rationale lives in code), and of
the rest only the names a file's change introduced or removed
(`engram.diff_symbols`); code itself never leaves the machine. Documentation
(READMEs, changelogs, Markdown, reStructuredText, man pages, plain text) is not
code: every line a hunk added to it is its excerpt, since a changelog entry or a
man page's option text says what a change does in the words its users ask with.

Real histories hold anything, so everything is read as bytes and made
representable rather than refused: invalid UTF-8 becomes U+FFFD; a file whose
added lines hold NUL bytes is binary content git did not recognise (no binary
attribute), so it is sent as binary, without hunks; a submodule change is sent
without hunks (its "lines" are commit ids); messages, excerpts, sections, refs
and file lists are capped to what the server accepts; a path longer than the
server's limit is left out of its commit. A commit is skipped only when nothing
of it could be stored (an empty message), and `ReadReport` counts every skip
and every change with its reason.

This is client-side code: it runs the `git` on PATH on the caller's machine and
needs nothing beyond the standard library and the SDK's own `engram.v1`
messages. The server never reads a repository.
"""

from __future__ import annotations

import collections
import queue
import re
import secrets
import subprocess
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from engram import diff_symbols
from engram.v1 import decisions_pb2

MAX_EXCERPT = 1024
MAX_HUNKS = 200
MAX_FILES = 1000
# The server's limits (IngestCommits): a longer message or path is refused.
MAX_MESSAGE_BYTES = 64 * 1024
MAX_PATH_BYTES = 1024
MAX_SECTION_CHARS = 200
MAX_REFS = 50
MAX_REF_CHARS = 200
MAX_NAME_CHARS = 200
# A batch's encoded size, below the server's default request limit (4 MiB,
# `max_request_bytes`) with room for the request around it.
MAX_BATCH_BYTES = 3 * 1024 * 1024
_FRAMING = 8  # a repeated field's tag and length, per commit
# protobuf Timestamp's range (0001-01-01 .. 9999-12-31) and int32 counts.
_MIN_SECONDS, _MAX_SECONDS = -62_135_596_800, 253_402_300_799
_MAX_INT32 = 2**31 - 1

_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_COMMENT = re.compile(rb"^\s*(?:#|//|/\*|\*|--|;;|\"\"\"|\'\'\')")
# Documentation: a changelog entry, a README section or a man page's option text
# says what a change does in the words its users ask with. Every line such a file
# gains is sent as its hunk's excerpt, as comment lines are for code (the server's
# ranking reads paths by this same rule: `is_documentation`).
_DOCUMENTATION = re.compile(
    r"(?:^|/)(?:readme|changelog|changes|history|news|release[-_ ]?notes|upgrading)"
    r"(?:[-_][\w-]+)?(?:\.(?:md|markdown|rst|txt|adoc))?$"
    r"|\.(?:md|markdown|mdx|rst|adoc|asciidoc|org|pod|texi|[1-9])$"
    r"|(?:^|/)changelog\.d/|(?:^|/)(?!cmakelists)[^/]*\.txt$",
    re.IGNORECASE,
)
# `:100644 100644 <sha> <sha> M`, as `--raw` prints a change (sha length varies).
_RAW = re.compile(rb"^:(\d{6}) (\d{6}) [0-9a-f]+ [0-9a-f]+ ([ACDMRTUX])\d*$")
_GITLINK = b"160000"
_CHANGE_TYPES = {
    b"A": decisions_pb2.FILE_CHANGE_TYPE_ADDED,
    b"D": decisions_pb2.FILE_CHANGE_TYPE_DELETED,
    b"R": decisions_pb2.FILE_CHANGE_TYPE_RENAMED,
    b"C": decisions_pb2.FILE_CHANGE_TYPE_COPIED,
}
# Settings that would change what `git log` prints, pinned whatever the
# caller's configuration says.
_PINNED = (
    "core.quotePath=off",
    "log.showSignature=false",
    "log.showRoot=true",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.submodule=short",
    "diff.relative=false",
    "color.ui=never",
)


@dataclass
class ReadReport:
    """What reading a history did beyond copying it: commits skipped (by reason),
    content changed to fit (by kind), and per commit the notes of both (`notes`,
    by sha). Filled as commits are read; safe to read once reading is over."""

    read: int = 0
    skipped: collections.Counter[str] = field(default_factory=collections.Counter)
    sanitised: collections.Counter[str] = field(default_factory=collections.Counter)
    notes: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, sha: str, reason: str) -> None:
        self.skipped[reason] += 1
        self.notes.setdefault(sha, []).append(f"skipped: {reason}")

    def note(self, sha: str, kind: str) -> None:
        self.sanitised[kind] += 1
        self.notes.setdefault(sha, []).append(kind)


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
        name = _directory_name(path)
    name = re.sub(r"[^A-Za-z0-9._/:-]+", "-", name).strip("/")
    return re.sub(r"/{2,}", "/", name)[:200] or "repository"


def _directory_name(path: str) -> str:
    """The work tree's directory name; for a bare repository, its git directory's
    (without `.git`)."""
    if _git(path, "rev-parse", "--is-bare-repository").strip() == "true":
        git_dir = Path(path, _git(path, "rev-parse", "--git-dir").strip()).resolve()
        return re.sub(r"\.git$", "", git_dir.name) or git_dir.parent.name
    return Path(_git(path, "rev-parse", "--show-toplevel").strip()).name


def read_commits(
    path: str, revision_range: str = "HEAD", report: ReadReport | None = None
) -> Iterator[decisions_pb2.Commit]:
    """The commits of `revision_range`, oldest first, as they stream out of git
    (GitError if git fails; `check_range` first gives a clear reason up front).
    A commit that cannot be represented is not yielded: `report` counts it.

    A repository can lack objects its history names (a partial clone, a
    damaged mirror): git then stops at the commit whose diff it cannot read.
    That commit is read again without its patch (its changed paths, no line
    ranges; noted in `report`), and the log goes on after it."""
    if revision_range.startswith("-"):
        raise GitError(f"{revision_range!r} is not a revision range")
    report = report if report is not None else ReadReport()
    base = report.read
    order: list[str] | None = None
    source: tuple[list[str], bytes | None] = (["--reverse", revision_range], None)
    while True:
        try:
            yield from _log(path, [*_PATCH, *source[0]], source[1], report)
            return
        except GitError as failure:
            if order is None:
                listed = _git(path, "rev-list", "--reverse", revision_range, "--")
                order = listed.split()
            done = report.read - base
            if done >= len(order):
                raise
            sha = order[done]
            commit = _without_patch(path, sha, str(failure), report)
            if commit is not None:
                yield commit
            rest = order[report.read - base :]
            if not rest:
                return
            # The rest in the same order, named one by one (git reads them all
            # from stdin before it prints anything).
            source = (["--no-walk=unsorted", "--stdin"], "\n".join(rest).encode() + b"\n")


# What the log prints per commit besides the header: the changed paths (raw,
# NUL-separated, never quoted) and the zero-context patch with renames and copies.
_PATCH = ("-z", "--raw", "--patch", "-M", "-C", "-U0")


def _without_patch(
    path: str, sha: str, failure: str, report: ReadReport
) -> decisions_pb2.Commit | None:
    """One commit, its changed paths without a patch (no rename detection: that
    too reads file contents); skipped, with git's reason, when even that fails."""
    reason = failure.splitlines()[0] if failure else "git could not read it"
    try:
        found = list(_log(path, ["-z", "--raw", "--no-renames", "--no-walk", sha], None, report))
    except GitError as again:
        report.read += 1
        first = str(again).splitlines()[0] if str(again) else reason
        report.skip(sha, f"unreadable: {first}")
        return None
    report.note(sha, "diff unreadable (missing object): paths without line ranges")
    return found[0] if found else None


def _log(
    path: str, options: list[str], stdin: bytes | None, report: ReadReport
) -> Iterator[decisions_pb2.Commit]:
    """One `git log` run with `options`, parsed commit by commit as it streams."""
    nonce = secrets.token_hex(8)
    start, end = f"\x01engram-commit-{nonce}\x01".encode(), f"\x01engram-end-{nonce}\x01".encode()
    fmt = f"{start.decode()}%H%x00%P%x00%aN%x00%at%x00%cN%x00%ct%x00%D%x00%B%x00{end.decode()}"
    args = ["git", "-C", path]
    for setting in _PINNED:
        args += ["-c", setting]
    args += [
        "log",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--encoding=UTF-8",
        f"--format={fmt}",
        *options,
    ]
    try:
        proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    with proc:
        assert proc.stdout is not None and proc.stderr is not None
        errors: list[bytes] = []
        stderr = proc.stderr
        # stderr is drained beside stdout, so a chatty git never blocks on it.
        drain = threading.Thread(target=lambda: errors.append(stderr.read()), daemon=True)
        drain.start()
        if stdin is not None:
            feed = proc.stdin
            assert feed is not None
            threading.Thread(target=_feed, args=(feed, stdin), daemon=True).start()
        buffer = bytearray()
        while True:
            block = proc.stdout.read(1 << 20)
            if not block:
                break
            searched = max(len(buffer) - len(start), 0)
            buffer += block
            # A commit is complete when the next one's marker has arrived.
            at = buffer.find(start, max(searched, len(start)))
            while at >= 0:
                commit = _parse(bytes(buffer[:at]), start, end, report)
                if commit is not None:
                    yield commit
                del buffer[:at]
                at = buffer.find(start, len(start))
        proc.wait()
        drain.join()
        if proc.returncode != 0:
            reason = b"".join(errors).decode("utf-8", "replace").strip()
            raise GitError(reason or "git log failed")
        if buffer:
            commit = _parse(bytes(buffer), start, end, report)
            if commit is not None:
                yield commit


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:
        pass  # git exited early; its status says why


def read_batches(
    path: str,
    revision_range: str,
    size: int,
    ahead: int = 4,
    report: ReadReport | None = None,
    max_bytes: int = MAX_BATCH_BYTES,
) -> Generator[list[decisions_pb2.Commit], None, None]:
    """`read_commits` in lists of `size`, read and parsed on a thread of their own
    up to `ahead` batches ahead: git and the parser work while the caller waits
    on the server, instead of in turn with it. A list is also cut before it
    would pass `max_bytes` encoded, and a commit larger than that on its own is
    slimmed to fit (`fit_commit`), so no request passes the server's limit.
    GitError as `read_commits`, and `report` as there (it runs ahead of the
    batches handed out). Close it (`contextlib.closing`) when stopping early:
    that stops the reading thread."""
    handoff: queue.Queue[list[decisions_pb2.Commit] | BaseException | None] = queue.Queue(ahead)
    stop = threading.Event()
    report = report if report is not None else ReadReport()

    def produce() -> None:
        try:
            batch: list[decisions_pb2.Commit] = []
            held = 0
            for commit in read_commits(path, revision_range, report):
                weight = fit_commit(commit, max_bytes, report)
                if batch and held + weight > max_bytes:
                    if not _put(handoff, batch, stop):
                        return
                    batch, held = [], 0
                batch.append(commit)
                held += weight
                if len(batch) >= size:
                    if not _put(handoff, batch, stop):
                        return
                    batch, held = [], 0
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


def fit_commit(commit: decisions_pb2.Commit, max_bytes: int, report: ReadReport) -> int:
    """Slims `commit` until it encodes in `max_bytes` (a huge commit: thousands
    of hunks), least useful first: excerpts, then sections, then line ranges,
    then files past those that fit. Returns its encoded size (with framing)."""
    size = commit.ByteSize() + _FRAMING
    if size <= max_bytes:
        return size
    for field_name in ("excerpt", "section"):
        for f in commit.files:
            for h in f.hunks:
                h.ClearField(field_name)
        smaller = commit.ByteSize() + _FRAMING
        if smaller < size:
            report.note(commit.sha, f"{field_name}s dropped to fit a request")
        size = smaller
        if size <= max_bytes:
            return size
    for f in commit.files:
        del f.hunks[:]
    report.note(commit.sha, "line ranges dropped to fit a request")
    size = commit.ByteSize() + _FRAMING
    while size > max_bytes and len(commit.files):
        del commit.files[len(commit.files) // 2 :]
        size = commit.ByteSize() + _FRAMING
        report.note(commit.sha, "files left out to fit a request")
    return size


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


def _text(raw: bytes) -> str:
    """Bytes as text: invalid UTF-8 becomes U+FFFD, and so does NUL (which no
    text column can hold)."""
    return raw.decode("utf-8", "replace").replace("\x00", "\ufffd")


def _clip_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` UTF-8 bytes, at a character boundary."""
    raw = text.encode()
    return text if len(raw) <= limit else raw[:limit].decode("utf-8", "ignore")


def _seconds(raw: bytes) -> int | None:
    """Raw seconds as git printed them; None when git could not read the date
    (it prints nothing) or it lies outside what a timestamp can hold."""
    try:
        value = int(raw.strip())
    except ValueError:
        return None
    return value if _MIN_SECONDS <= value <= _MAX_SECONDS else None


def _parse(
    chunk: bytes, start: bytes, end: bytes, report: ReadReport
) -> decisions_pb2.Commit | None:
    if not chunk.startswith(start):
        return None  # not a commit: nothing git printed before the first one
    header, found, rest = chunk[len(start) :].partition(end)
    if not found:
        return None  # a header cut short: git stopped part way
    fields = header.split(b"\x00", 7)
    if len(fields) < 8:
        return None
    sha_raw, parents, author, author_time, committer, commit_time, refs, message = fields
    message = message.removesuffix(b"\x00")
    sha = _text(sha_raw).strip()
    report.read += 1
    text = _text(message).rstrip("\n")
    if b"\x00" in message:
        report.note(sha, "NUL bytes in the message replaced")
    if not text.strip():
        report.skip(sha, "empty commit message")
        return None
    if len(text.encode()) + 1 > MAX_MESSAGE_BYTES:
        text = _clip_bytes(text, MAX_MESSAGE_BYTES - 1)
        report.note(sha, f"message cut to {MAX_MESSAGE_BYTES // 1024} KiB")
    commit = decisions_pb2.Commit(
        sha=sha,
        parents=_text(parents).split(),
        author_name=_text(author)[:MAX_NAME_CHARS],
        committer_name=_text(committer)[:MAX_NAME_CHARS],
        message=text + "\n",
        refs=[r.strip()[:MAX_REF_CHARS] for r in _text(refs).split(",") if r.strip()][:MAX_REFS],
    )
    authored, committed = _seconds(author_time), _seconds(commit_time)
    if authored is None and committed is None:
        report.note(sha, "unreadable author and commit dates: the epoch stands in")
    elif authored is None or committed is None:
        report.note(sha, "unreadable author or commit date: the other stands in")
    authored = authored if authored is not None else committed
    committed = committed if committed is not None else authored
    commit.author_time.seconds = authored or 0
    commit.author_time.SetInParent()
    commit.commit_time.seconds = committed or 0
    commit.commit_time.SetInParent()
    for change in _changes(rest, sha, report):
        if len(commit.files) >= MAX_FILES:
            report.note(sha, f"files past the first {MAX_FILES} left out")
            break
        commit.files.append(change)
    return commit


@dataclass
class _RawChange:
    status: bytes
    old_mode: bytes
    new_mode: bytes
    paths: list[bytes]


def _raw_changes(rest: bytes) -> tuple[list[_RawChange], bytes]:
    """The `--raw -z` records at the start of `rest`, and the patch after them."""
    changes: list[_RawChange] = []
    at = 0
    while True:
        while at < len(rest) and rest[at : at + 1] in (b"\x00", b"\n"):
            at += 1
        if rest[at : at + 1] != b":":
            break
        stop = rest.find(b"\x00", at)
        match = _RAW.match(rest[at:stop]) if stop >= 0 else None
        if match is None:
            break
        old_mode, new_mode, status = match.groups()
        count = 2 if status in (b"R", b"C") else 1
        paths: list[bytes] = []
        at = stop + 1
        for _ in range(count):
            stop = rest.find(b"\x00", at)
            if stop < 0:
                stop = len(rest)
            paths.append(rest[at:stop])
            at = stop + 1
        changes.append(_RawChange(status, old_mode, new_mode, paths))
    return changes, rest[at:]


def _patch_sections(patch: bytes) -> list[list[bytes]]:
    """The patch split per file: the lines from one `diff --git` to the next."""
    sections: list[list[bytes]] = []
    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git ") or line.startswith(b"diff --cc "):
            sections.append([])
        elif sections:
            sections[-1].append(line)
    return sections


def _changes(rest: bytes, sha: str, report: ReadReport) -> Iterator[decisions_pb2.FileChange]:
    raw, patch = _raw_changes(rest)
    sections = _patch_sections(patch.rstrip(b"\x00"))
    # The patch and the raw list come from one diff, in one order: one patch
    # section per change, two for a type change (a file that became a symlink
    # is shown deleted, then added). Should they ever not match, the paths
    # stand without line ranges.
    wanted = sum(2 if change.status == b"T" else 1 for change in raw)
    if sections and len(sections) != wanted:
        report.note(sha, "patch did not match the changed paths: hunks left out")
        sections = []
    cursor = 0
    for change in raw:
        own = sections[cursor : cursor + (2 if change.status == b"T" else 1)] if sections else []
        cursor += len(own)
        new_path = _text(change.paths[-1])
        old_path = _text(change.paths[0]) if len(change.paths) > 1 else ""
        if len(new_path.encode()) > MAX_PATH_BYTES or len(old_path.encode()) > MAX_PATH_BYTES:
            report.note(sha, f"a path over {MAX_PATH_BYTES} bytes left out")
            continue
        f = decisions_pb2.FileChange(
            path=new_path,
            old_path=old_path,
            change_type=_CHANGE_TYPES.get(change.status, decisions_pb2.FILE_CHANGE_TYPE_MODIFIED),
        )
        if _GITLINK in (change.old_mode, change.new_mode):
            yield f  # a submodule: its "lines" are commit ids, not lines
            continue
        if own:
            # A type change's lines are those of its new side (the last section).
            _read_hunks(f, own[-1], sha, report)
        yield f


def is_documentation(path: str) -> bool:
    """Whether `path` is documentation (READMEs, changelogs and their fragments,
    Markdown, reStructuredText, AsciiDoc, plain text, man pages): every line a
    hunk adds to it is sent, not only comment lines."""
    return bool(_DOCUMENTATION.search(path))


def _read_hunks(
    f: decisions_pb2.FileChange, lines: list[bytes], sha: str, report: ReadReport
) -> None:
    hunk: decisions_pb2.DiffHunk | None = None
    excerpt: list[bytes] = []
    size = 0
    additions = deletions = 0
    # Changed lines, for the names the change introduced or removed.
    plus: list[str] = []
    minus: list[str] = []
    prose = is_documentation(f.path)

    def close_hunk() -> None:
        nonlocal hunk, excerpt, size
        if hunk is not None and excerpt:
            hunk.excerpt = _text(b"".join(excerpt))[:MAX_EXCERPT]
        hunk, excerpt, size = None, [], 0

    for line in lines:
        if hunk is None and not line.startswith(b"@@"):
            if line.startswith(b"Binary files ") or line.startswith(b"GIT binary patch"):
                f.binary = True
            continue
        if line.startswith(b"@@"):
            match = _HUNK.match(line)
            if match is None:
                continue
            close_hunk()
            old_count = int(match.group(2) or b"1")
            new_count = int(match.group(4) or b"1")
            additions += new_count
            deletions += old_count
            if len(f.hunks) >= MAX_HUNKS:
                continue
            hunk = f.hunks.add(section=_text(match.group(5)).strip()[:MAX_SECTION_CHARS])
            if old_count:
                hunk.old_lines.start_line = min(int(match.group(1)), _MAX_INT32)
                hunk.old_lines.end_line = min(int(match.group(1)) + old_count - 1, _MAX_INT32)
            if new_count:
                hunk.new_lines.start_line = min(int(match.group(3)), _MAX_INT32)
                hunk.new_lines.end_line = min(int(match.group(3)) + new_count - 1, _MAX_INT32)
            continue
        if b"\x00" in line:
            # NUL bytes in a "text" diff: binary content git did not recognise
            # (no binary attribute, no NUL early in the file). Its hunks would
            # quote binary data: the file goes as binary, without them.
            f.binary = True
            break
        if hunk is not None and line[:1] in (b"+", b"-"):
            (plus if line[:1] == b"+" else minus).append(_text(line[1:]))
        if hunk is not None and line.startswith(b"+") and (prose or _COMMENT.match(line[1:])):
            if size < MAX_EXCERPT:
                excerpt.append(line + b"\n")
                size += len(line) + 1
    close_hunk()
    if f.binary:
        if len(f.hunks):
            report.note(sha, "binary content dropped from a diff")
        del f.hunks[:]
        f.additions = f.deletions = 0
        return
    f.additions = min(additions, _MAX_INT32)
    f.deletions = min(deletions, _MAX_INT32)
    added, removed = diff_symbols.introduced_and_removed(f.path, plus, minus)
    f.added_symbols.extend(added)
    f.removed_symbols.extend(removed)
