"""Ingest of what real histories hold: binary content git took for text, invalid
UTF-8, a malformed timezone, backslash, quoted and unicode paths, renames,
copies and type changes, submodules, a missing object, empty commits and
messages, merges, `.mailmap`. Read by the
client's git reader, sent through the CLI to a real server."""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path
from typing import Any

import engram
import pytest
from engram import git
from engram.v1 import decisions_pb2
from engram_server.bench import decisions_corpus
from engram_server.cli import ingest_progress
from engram_server.cli.ingest_history import IngestTally

from tests.decisions_hazards import MAPPED_NAME, WHEN, hazard_repo, huge_repo
from tests.test_cli import json_lines, run

REPO = "acme/hazards"


@pytest.fixture
def hazards(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    return hazard_repo(tmp_path / "repo")


def test_the_reader_represents_every_hazard(hazards: tuple[Path, dict[str, str]]) -> None:
    path, sha = hazards
    report = git.ReadReport()
    commits = {c.sha: c for c in git.read_commits(str(path), "HEAD", report)}
    # Everything but the commit without a message is read; that one is counted.
    assert report.read == 13 and len(commits) == 12
    assert sha["no_message"] not in commits
    assert report.skipped == {"empty commit message": 1}

    first = commits[sha["first"]]
    assert first.author_name == MAPPED_NAME  # through .mailmap
    assert {f.path for f in first.files} == {
        ".mailmap",
        "bad/\ufffdname.txt",
        "dir/secr\\et.txt",
        "nl/line\nbreak.txt",
        'q/"quoted" name.txt',
        "src/legacy.py",
        "src/parser.py",
        "src/util.py",
        "uni/café ✓.txt",
    }
    (legacy,) = [f for f in first.files if f.path == "src/legacy.py"]
    assert legacy.hunks[0].excerpt == "+# caf\ufffd stays Latin-1, because old editors wrote it\n"
    # NUL bytes past git's binary sniffing: the file goes as binary, no hunks.
    (table,) = commits[sha["binary"]].files
    assert table.binary and not table.hunks and "\x00" not in str(table)
    assert report.sanitised["binary content dropped from a diff"] == 1

    backslash = commits[sha["backslash"]]
    assert backslash.message.startswith("Escape the secret path \ufffd\ufffd in the loader")
    assert [f.path for f in backslash.files] == ["dir/secr\\et.txt"]
    assert backslash.files[0].hunks[0].new_lines.start_line == 3

    # git prints this author date's zone as +518:00; raw seconds do not care.
    # Its commit date is no date: the author date stands in.
    odd = commits[sha["timezone"]]
    assert odd.author_time.seconds == WHEN + 300 and not odd.files
    assert odd.commit_time.seconds == WHEN + 300
    assert report.notes[sha["timezone"]] == [
        "unreadable author or commit date: the other stands in"
    ]

    renamed = {f.path: f for f in commits[sha["rename"]].files}
    assert renamed["src/parse.py"].change_type == decisions_pb2.FILE_CHANGE_TYPE_RENAMED
    assert renamed["src/parse.py"].old_path == "src/parser.py"
    assert renamed["src/util_copy.py"].change_type == decisions_pb2.FILE_CHANGE_TYPE_COPIED
    assert renamed["src/util_copy.py"].old_path == "src/util.py"

    # A blob the repository lacks: the commit comes without line ranges.
    (lost,) = commits[sha["lost"]].files
    assert lost.path == "lost.txt" and not lost.hunks
    assert report.sanitised["diff unreadable (missing object): paths without line ranges"] == 1
    # A file that became a symlink: one change (git's patch shows two).
    (link,) = commits[sha["typechange"]].files
    assert link.path == "src/util_copy.py" and link.hunks[0].new_lines.start_line == 1

    for role, kind in (
        ("submodule_add", decisions_pb2.FILE_CHANGE_TYPE_ADDED),
        ("submodule_bump", decisions_pb2.FILE_CHANGE_TYPE_MODIFIED),
    ):
        (gitlink,) = commits[sha[role]].files
        assert gitlink.path == "vendor/lib" and gitlink.change_type == kind
        assert not gitlink.hunks  # a submodule's "lines" are commit ids

    assert not commits[sha["empty"]].files
    merge = commits[sha["merge"]]
    assert list(merge.parents) == [sha["no_message"], sha["side"]] and not merge.files


async def test_ingest_stores_a_hazardous_history_and_exits_0(
    server: Any,
    make_tenant: Any,
    hazards: tuple[Path, dict[str, str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, sha = hazards
    tenant = await make_tenant()
    conn = ("--address", server.address, "--api-key", tenant.secret)
    ingest = ("decisions", "ingest", str(path), "--repository", REPO, *conn)

    code, out, err = await run(capsys, *ingest, "--batch-size", "3")
    assert code == 0, err + out
    (summary, *details) = out.splitlines()
    assert summary.startswith(f"{REPO}: 13 commits read in ")
    assert "0 already ingested, 1 skipped" in summary
    assert "  skipped      1: empty commit message" in details
    assert "  cleaned      1: binary content dropped from a diff" in details
    # One summary, no line per commit.
    assert sha["first"][:12] not in out

    async with engram.AsyncClient(server.address, tenant.secret) as client:
        decisions = {c: d async for d in client.list_decisions(repository=REPO) for c in d.commits}
    assert decisions[sha["backslash"]].title.startswith("Escape the secret path")
    assert {a.path for a in decisions[sha["backslash"]].anchors} == {"dir/secr\\et.txt"}
    assert decisions[sha["binary"]].title == "Embed the sensor calibration table"
    assert decisions[sha["first"]].author == MAPPED_NAME
    assert sha["timezone"] in decisions and sha["lost"] in decisions

    # Again, line by line: every commit says what became of it.
    code, out, err = await run(capsys, *ingest, "--verbose")
    assert code == 0, err
    assert f"{sha['first'][:12]}  already ingested\n" in out  # no trailing blanks
    assert f"{sha['no_message'][:12]}  skipped           empty commit message" in out
    assert "12 already ingested, 1 skipped" in out

    code, out, _ = await run(capsys, *ingest, "--json", "--verbose")
    *commits, result = json_lines(out)
    outcomes = {(c["sha"], c["outcome"]) for c in commits}
    assert outcomes == {
        *((s, "already ingested") for role, s in sha.items() if role != "no_message"),
        (sha["no_message"], "skipped"),
        # What the reader changed, again (the server's answer does not say it).
        (sha["binary"], "cleaned"),
        (sha["timezone"], "cleaned"),
        (sha["lost"], "cleaned"),
    }
    assert result["commits_read"] == 13 and result["commits_skipped"] == 1
    assert result["skipped_reasons"] == {"empty commit message": 1}

    # Only a failure of the run itself exits non-zero: here the server refuses
    # the key, and the summary says how far it got.
    refused = ("decisions", "ingest", str(path), "--repository", REPO)
    code, out, err = await run(capsys, *refused, "--address", server.address, "--api-key", "x")
    assert code == 1 and "UNAUTHENTICATED" in err
    assert "stopped after 0 commits of 13" in err and "0 commits read" in out


async def test_a_huge_commit_is_slimmed_to_fit_a_request(
    server: Any, make_tenant: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = huge_repo(tmp_path / "huge")
    tenant = await make_tenant()
    conn = ("--address", server.address, "--api-key", tenant.secret)
    code, out, err = await run(
        capsys, "decisions", "ingest", str(path), "--repository", REPO, "--json", *conn
    )
    assert code == 0, err + out
    (result,) = json_lines(out)
    assert result["commits_read"] == 2 and result["commits_skipped"] == 0
    # 40,000 hunks with their sections would be ~7 MB: the sections go, the
    # line ranges stay.
    assert result["cleaned"] == {"sections dropped to fit a request": 1}
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        decisions = {d.title: d async for d in client.list_decisions(repository=REPO)}
    assert len(decisions["Rename the even handlers, because of a clash"].anchors) > 100


def _commit(n: int, files: list[decisions_pb2.FileChange]) -> decisions_pb2.Commit:
    c = decisions_pb2.Commit(
        sha=f"{n:040x}",
        message=f"Cap the queue at {n} items\n\nBecause the worker ran out of memory at {n * 2}.\n",
        files=files,
    )
    c.author_time.seconds = WHEN + n
    return c


def _file(path: str, excerpt: str = "") -> decisions_pb2.FileChange:
    hunk = decisions_pb2.DiffHunk(excerpt=excerpt)
    hunk.new_lines.start_line = 1
    return decisions_pb2.FileChange(
        path=path, change_type=decisions_pb2.FILE_CHANGE_TYPE_MODIFIED, hunks=[hunk]
    )


async def test_one_bad_commit_never_fails_its_batch(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    batch = [
        # Binary bytes in an excerpt: dropped, the commit is stored.
        _commit(1, [_file("q.py", "+# tuned \x00\x01 because\n")]),
        # A NUL in a path cannot be stored: this commit alone is refused.
        _commit(2, [_file("a\x00b.py")]),
        # Any other byte is a path git can hold.
        _commit(3, [_file('dir/secr\\et "x".txt')]),
        _commit(4, [_file("/etc/passwd")]),
    ]
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        result = await client.ingest_commits(REPO, batch)
        stored = {c: d async for d in client.list_decisions(repository=REPO) for c in d.commits}
    by_sha = {c.sha: c for c in result.commits}
    binary = by_sha[f"{1:040x}"]
    assert str(binary.disposition) == "DECISION"
    assert binary.reason == "binary content not quoted: q.py"
    assert str(by_sha[f"{3:040x}"].disposition) == "DECISION"
    assert {a.path for a in stored[f"{3:040x}"].anchors} == {'dir/secr\\et "x".txt'}
    refused = by_sha[f"{2:040x}"]
    assert str(refused.disposition) == "INVALID"
    assert [(v.field, v.description) for v in refused.violations] == [
        ("commits[1].files[0].path", "must not contain NUL (U+0000) characters")
    ]
    (absolute,) = by_sha[f"{4:040x}"].violations
    assert absolute.description == "must be relative to the repository root (not start with /)"
    assert result.invalid_commits == 2


def test_progress_is_a_bar_on_a_terminal_and_lines_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tally = IngestTally("r", read=50, created=7, seconds=2.0)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    bar = Terminal()
    ingest_progress.IngestProgress(100, stream=bar).update(tally)
    assert bar.getvalue() == f"\r[{'#' * 15}{'.' * 15}] 50/100 commits (25/s), 7 decisions"

    monkeypatch.setattr(ingest_progress, "PLAIN_EVERY_SECONDS", 0.0)
    log = io.StringIO()
    progress = ingest_progress.IngestProgress(100, stream=log)
    progress.update(tally)
    progress.done()
    assert log.getvalue() == "ingest: 50/100 commits (25/s), 7 decisions\n"
    quiet = io.StringIO()
    ingest_progress.IngestProgress(100, shown=False, stream=quiet).update(tally)
    assert quiet.getvalue() == ""


async def test_the_corpus_bench_reports_each_repository(
    server: Any, platform_key: str, hazards: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    path, _ = hazards
    named = tmp_path / "acme+widgets" / "repo"
    named.parent.mkdir()
    path.rename(named)
    out = tmp_path / "corpus.json"
    args = argparse.Namespace(
        repos=[str(named), f"other/name={named}"],
        address=server.address,
        api_key=platform_key,
        database_url=os.environ.get("ENGRAM_TEST_PG_URL", ""),
        redis_url="",
        batch_size=5,
        max_commits=4,
        out=out,
        quiet=True,
    )
    report = await decisions_corpus.run(args)
    first, second = report["repositories"]
    # A mirror's folder names the repository; --max-commits takes the oldest.
    assert first["repository"] == "acme/widgets" and second["repository"] == "other/name"
    assert first["commits_in_history"] == 13 and first["commits_in_range"] == 4
    assert first["commits_read"] == 4 and first["failure"] == ""
    assert first["cleaned"] == {
        "binary content dropped from a diff": 1,
        "unreadable author or commit date: the other stands in": 1,
    }
    markdown = decisions_corpus.markdown(report)
    assert "| acme/widgets | 4 of 13 | 4 |" in markdown and "none failed" in markdown


async def test_the_sdk_reports_what_the_reader_skipped(
    server: Any, make_tenant: Any, hazards: tuple[Path, dict[str, str]]
) -> None:
    path, sha = hazards
    tenant = await make_tenant()
    report = git.ReadReport()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        result = await client.ingest_repository(path, repository=REPO, report=report)
    assert result.invalid_commits == 0 and len(result.commits) == 12
    assert report.read == 13 and report.skipped == {"empty commit message": 1}
    assert report.notes[sha["no_message"]] == ["skipped: empty commit message"]
