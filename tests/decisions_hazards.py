"""A small git repository holding what real histories hold and tidy ones do not.

Written with `git fast-import` (bytes as they are: invalid UTF-8, NUL) plus one
commit object written by hand, since no porcelain makes a malformed timezone.
`hazard_repo` returns the repository and the shas of its commits by role.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

AUTHOR = b"Old Nick <old@example.com>"
MAPPED_NAME = "Proper Name"
WHEN = 1_700_000_000


def _git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(repo.parent),
        "GIT_AUTHOR_NAME": "Old Nick",
        "GIT_AUTHOR_EMAIL": "old@example.com",
        "GIT_AUTHOR_DATE": f"{WHEN + 350} +0000",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_COMMITTER_DATE": f"{WHEN + 350} +0000",
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, env=env, check=True
    )
    return done.stdout


def _commit(
    mark: int,
    message: bytes,
    ops: bytes,
    parent: str | None,
    when: int,
    branch: str = "main",
    merge: str | None = None,
) -> bytes:
    out = f"commit refs/heads/{branch}\nmark :{mark}\n".encode()
    out += b"author " + AUTHOR + f" {when} +0000\n".encode()
    out += f"committer Dev <dev@example.com> {when} +0000\n".encode()
    out += f"data {len(message)}\n".encode() + message + b"\n"
    if parent:
        out += f"from {parent}\n".encode()
    if merge:
        out += f"merge {merge}\n".encode()
    return out + ops + b"\n"


def _inline(path: bytes, data: bytes, mode: bytes = b"100644") -> bytes:
    return b"M " + mode + b" inline " + path + b"\n" + f"data {len(data)}\n".encode() + data + b"\n"


def _lines(n: int, prefix: str) -> bytes:
    return "".join(f"{prefix} = {i}\n" for i in range(n)).encode()


def hazard_repo(path: Path) -> tuple[Path, dict[str, str]]:
    path.mkdir()
    # Bare, as mirrors are: .mailmap is then read from HEAD, and no checkout
    # needs the blob the history lacks.
    _git(path, "init", "-q", "--bare", "-b", "main")
    util = _lines(40, "limit")
    # A text file git takes for text (no NUL in its first 8000 bytes), then NULs.
    late_nul = _lines(900, "row") + b"# calibrated \x00\x01\x02 for the sensor, because the\n"
    first = [
        _commit(
            1,
            b"Add the parser and its helpers\n\nThe parser reads the config once at start,"
            b" because re-reading it on every request cost 40 ms.\n",
            _inline(b"src/parser.py", _lines(30, "parse"))
            + _inline(b"src/util.py", util)
            + _inline(b'"dir/secr\\\\et.txt"', b"one\ntwo\n")
            + _inline(b'"q/\\"quoted\\" name.txt"', b"q\n")
            + _inline(b'"uni/caf\\303\\251 \\342\\234\\223.txt"', b"u\n")
            + _inline(b'"bad/\\377name.txt"', b"b\n")
            + _inline(b'"nl/line\\nbreak.txt"', b"n\n")
            + _inline(b".mailmap", b"Proper Name <old@example.com>\n")
            + _inline(b"src/legacy.py", b"# caf\xe9 stays Latin-1, because old editors wrote it\n"),
            None,
            WHEN,
        ),
        _commit(
            2,
            b"Embed the sensor calibration table\n\nThe table lives in code because the"
            b" boot loader cannot read data files.\n",
            _inline(b"src/table.py", late_nul),
            ":1",
            WHEN + 100,
        ),
        _commit(
            3,
            b"Escape the secret path \xff\xfe in the loader\n\nWindows tools wrote the"
            b" backslash, so the loader keeps it instead of renaming the file.\n",
            _inline(b'"dir/secr\\\\et.txt"', b"one\ntwo\nthree\n"),
            ":2",
            WHEN + 200,
        ),
    ]
    _git(path, "fast-import", "--quiet", data=b"".join(first))
    tip = _git(path, "rev-parse", "refs/heads/main").decode().strip()

    # A commit whose author timezone git itself prints as `+051800`, whose
    # commit date is no date, and whose message holds a NUL byte: written as an
    # object, as an old tool once did.
    tree = _git(path, "rev-parse", f"{tip}^{{tree}}").decode().strip()
    odd = (
        f"tree {tree}\nparent {tip}\n".encode()
        + b"author "
        + AUTHOR
        + f" {WHEN + 300} +051800\n".encode()
        + b"committer Dev <dev@example.com> notanumber +0000\n\n"
        + b"Keep the retry budget at three\n\nThree retries, because\x00 the gateway"
        b" times out after four.\n"
    )
    odd_sha = _git(path, "hash-object", "-t", "commit", "-w", "--literally", "--stdin", data=odd)
    odd_sha_text = odd_sha.decode().strip()

    # A commit naming a blob the repository does not hold (a partial clone, a
    # damaged mirror): git cannot show its diff.
    entries = _git(path, "ls-tree", odd_sha_text) + (b"100644 blob " + b"3" * 40 + b"\tlost.txt\n")
    lost_tree = _git(path, "mktree", "--missing", data=entries).decode().strip()
    lost = (
        _git(
            path,
            "commit-tree",
            lost_tree,
            "-p",
            odd_sha_text,
            "-m",
            "Add the lost table, since the loader needs it",
        )
        .decode()
        .strip()
    )

    second = [
        _commit(
            10,
            b"Rename the parser and copy the util limits\n\nThe name clashed with the stdlib"
            b" module, so it moves to parse.py.\n",
            b"R src/parser.py src/parse.py\n"
            + _inline(b"src/util.py", util + b"limit = extra\n")
            + _inline(b"src/util_copy.py", util),
            lost,
            WHEN + 400,
        ),
        _commit(
            17,
            b"Link the copied limits to the originals\n\nA symlink, so that the two"
            b" cannot drift apart.\n",
            _inline(b"src/util_copy.py", b"util.py", mode=b"120000"),
            ":10",
            WHEN + 450,
        ),
        _commit(
            11,
            b"Vendor the lib as a submodule\n\nPinned as a submodule so that upgrades are"
            b" reviewed, instead of copying its files.\n",
            b"M 160000 1111111111111111111111111111111111111111 vendor/lib\n",
            ":17",
            WHEN + 500,
        ),
        _commit(
            12,
            b"Bump the vendored lib\n\nThe new version fixes the leak, because it closes"
            b" sockets.\n",
            b"M 160000 2222222222222222222222222222222222222222 vendor/lib\n",
            ":11",
            WHEN + 600,
        ),
        _commit(13, b"Record the freeze, since the release is cut\n", b"", ":12", WHEN + 700),
        _commit(14, b"", b"", ":13", WHEN + 800),
        _commit(
            15,
            b"Try a side idea\n",
            _inline(b"side.txt", b"s\n"),
            ":14",
            WHEN + 900,
            branch="side",
        ),
        _commit(16, b"Merge branch 'side'\n", b"", ":14", WHEN + 1000, merge=":15"),
    ]
    _git(path, "fast-import", "--quiet", data=b"".join(second))
    subjects = _git(path, "log", "--all", "--format=%H %s").decode("utf-8", "replace")
    by_subject = {line[41:]: line[:40] for line in subjects.splitlines()}
    marks = {
        role: next(sha for subject, sha in by_subject.items() if subject.startswith(prefix))
        for role, prefix in (
            ("first", "Add the parser"),
            ("binary", "Embed the sensor"),
            ("backslash", "Escape the secret path"),
            ("timezone", "Keep the retry budget"),
            ("lost", "Add the lost table"),
            ("rename", "Rename the parser"),
            ("typechange", "Link the copied limits"),
            ("submodule_add", "Vendor the lib"),
            ("submodule_bump", "Bump the vendored lib"),
            ("empty", "Record the freeze"),
            ("side", "Try a side idea"),
            ("merge", "Merge branch"),
        )
    }
    marks["no_message"] = _git(path, "rev-parse", "main^1").decode().strip()
    return path, marks


def huge_repo(path: Path, files: int = 1000, hunks: int = 40) -> Path:
    """Two commits, the second changing `hunks` far-apart lines in each of `files`
    files whose lines look like functions with long names: git prints each
    hunk's section, and the commit encodes past the server's 4 MiB request
    limit."""
    path.mkdir()
    _git(path, "init", "-q", "--bare", "-b", "main")
    pad = "x" * 150
    before = "".join(f"def f{j}_{pad}():\n" for j in range(hunks * 2)).encode()
    after = "".join(
        f"def {'g' if j % 2 == 0 else 'f'}{j}_{pad}():\n" for j in range(hunks * 2)
    ).encode()
    stream = []
    for n, (content, message) in enumerate(
        (
            (before, b"Add the handlers\n"),
            (after, b"Rename the even handlers, because of a clash\n"),
        )
    ):
        ops = b"".join(_inline(f"h/m{i:04d}.py".encode(), content) for i in range(files))
        stream.append(_commit(n + 1, message, ops, f":{n}" if n else None, WHEN + n))
    _git(path, "fast-import", "--quiet", data=b"".join(stream))
    return path
