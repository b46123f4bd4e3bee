"""`Client.ingest_repository` / `AsyncClient.ingest_repository`: a local git
history read by the SDK (`engram.git`) and mined by a real server, in batches
whose answers add up to the one a single IngestCommits call over the range gives;
bad arguments, a path that is no repository and a range git cannot resolve are
refused naming the field before anything is sent; tenants stay apart."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import engram
import pytest
from engram.git import read_commits

from tests.conftest import MakeTenant, RunningServer
from tests.test_decisions import EXECUTOR, T0, TOKEN, git, indexed, lines, new_repo

NAME = "github.com/acme/sdk-demo"
POOL = (
    "Cap the pool at four connections\n\nThe database allows 20 clients and five"
    " workers share it, so each may hold at most four."
)
# Over the server's limit on a commit message: the reader cuts it to the limit.
TOO_LONG = "Document the pool\n\n" + "x" * (1 << 17)
LEAKY = f"Cache the parser results because re-reading the grammar was slow.\n\nToken {TOKEN}\n"


def history(path: Path) -> tuple[Path, list[str]]:
    """A repository of six commits (origin `git@github.com:acme/sdk-demo.git`):
    two decisions, two without one, one too long (cut), one quoting a credential;
    returns it and its shas, oldest first."""
    repo = new_repo(path)
    git(repo, "remote", "add", "origin", "git@github.com:acme/sdk-demo.git")
    steps = [
        ("pool.py", lines(12), "Add the connection pool"),
        ("pool.py", lines(12).replace("line 4\n", "size = 4\n"), POOL),
        ("README", "docs\n", "Fix typo"),
        ("docs/pool.md", "# Pool\n", TOO_LONG),
        ("svc/rerank.py", lines(60), EXECUTOR),
        ("svc/parser.py", lines(20), LEAKY),
    ]
    shas = []
    for i, (file, text, message) in enumerate(steps):
        (repo / file).parent.mkdir(parents=True, exist_ok=True)
        (repo / file).write_text(text)
        # From a file: the long message is over the limit of one argument.
        (path.parent / "message").write_text(message)
        stamp = (T0 + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%S+00:00")
        git(repo, "add", "-A")
        dates = {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
        git(repo, "commit", "-q", "-F", str(path.parent / "message"), env=dates)
        shas.append(git(repo, "rev-parse", "HEAD"))
    return repo, shas


def outline(result: engram.IngestResult) -> dict[str, Any]:
    """What a result says, without the tenant-specific decision names."""
    return {
        "counts": (
            result.processed_commits,
            result.skipped_commits,
            result.commits_without_decision,
            result.created_decisions,
            result.updated_decisions,
            result.invalid_commits,
        ),
        "commits": [
            (c.index, c.sha, c.disposition, c.reason, [v.field for v in c.violations])
            for c in result.commits
        ],
        "findings": sorted((f.field, f.action) for f in result.privacy_findings),
        "titles": [d.title for d in result.decisions],
    }


def _ingest_twice(
    address: str, key: str, repo: Path
) -> tuple[engram.IngestResult, engram.IngestResult]:
    with engram.Client(address, key) as client:
        first = client.ingest_repository(str(repo), batch_size=2)
        again = client.ingest_repository(repo, batch_size=2)
        return first, again


def _ingest_in_one_call(address: str, key: str, repo: Path) -> engram.IngestResult:
    with engram.Client(address, key) as client:
        return client.ingest_commits(NAME, list(read_commits(str(repo))))


async def test_a_repository_is_ingested_in_batches_as_one_call_and_again_skipped(
    make_tenant: MakeTenant, tmp_path: Path
) -> None:
    t, other = await make_tenant(), await make_tenant()
    repo, shas = history(tmp_path / "repo")
    first, again = await asyncio.to_thread(_ingest_twice, t.address, t.secret, repo)

    # Three batches of two, summed: every commit once, in range order.
    assert [c.sha for c in first.commits] == shas
    assert [c.index for c in first.commits] == list(range(6))
    assert first.processed_commits == 6 and first.invalid_commits == 0
    assert first.created_decisions >= 2 and len(first.decisions) == first.created_decisions
    assert {d.repository for d in first.decisions} == {NAME}  # from the origin remote
    titles = {d.title for d in first.decisions}
    assert {"Cap the pool at four connections", EXECUTOR.splitlines()[0]} <= titles
    # Positions in the fourth and sixth commits' fields count from the range's start.
    # The message over the limit was cut to it by the reader, and stored.
    assert first.commits[3].disposition is not engram.CommitDisposition.INVALID
    assert ("commits[5].message", "dropped") in outline(first)["findings"]
    assert first.raw is not None and first.raw.processed_commits == 6
    assert len(first.raw.commits) == 6

    # The same answer as one IngestCommits call over the whole range.
    whole = await asyncio.to_thread(_ingest_in_one_call, other.address, other.secret, repo)
    assert outline(first) == outline(whole)

    # Again: nothing new, every commit skipped.
    assert (again.processed_commits, again.created_decisions, again.updated_decisions) == (0, 0, 0)
    assert again.skipped_commits == 6 and again.decisions == ()
    assert [c.disposition for c in again.commits] == [
        engram.CommitDisposition.ALREADY_INGESTED for _ in range(6)
    ]


async def test_async_ingest_of_a_range_then_the_rest_with_an_explicit_name(
    server: RunningServer, make_tenant: MakeTenant, tmp_path: Path
) -> None:
    t, other = await make_tenant(), await make_tenant()
    repo, shas = history(tmp_path / "repo")
    async with engram.AsyncClient(t.address, t.secret) as client:
        early = await client.ingest_repository(repo, "HEAD~4", repository="acme/pool")
        assert [c.sha for c in early.commits] == shas[:2]
        (pool,) = [d for d in early.decisions if d.title == "Cap the pool at four connections"]
        assert {d.repository for d in early.decisions} == {"acme/pool"}
        rest = await client.ingest_repository(
            str(repo), "HEAD", repository="acme/pool", batch_size=500
        )
        assert rest.skipped_commits == 2 and rest.processed_commits == 4
        assert [c.sha for c in rest.commits] == shas
        why = await client.explain_code("acme/pool", "pool.py", lines=4)
        assert [e.decision.name for e in why][:1] == [pool.name]
    await indexed(server, t)

    # Another tenant sees none of it, through any read.
    async with engram.AsyncClient(other.address, other.secret) as client:
        why = await client.explain_code("acme/pool", "pool.py", lines=4)
        assert len(why) == 0 and why.context == ""
        found = await client.search_decisions("why at most four connections?")
        assert len(found) == 0
        assert [d async for d in client.list_decisions(repository="acme/pool")] == []
        with pytest.raises(engram.NotFound):
            await client.get_decision(pool.name)
    async with engram.AsyncClient(t.address, t.secret) as client:
        found = await client.search_decisions("why at most four connections?")
        assert pool.name in [h.decision.name for h in found]


def _refusals(address: str, key: str, repo: Path, plain: Path, empty: Path) -> list[Any]:
    """(fields, message) of each refused call."""
    out = []
    calls: list[dict[str, Any]] = [
        {"path": str(plain)},
        {"path": str(plain / "missing")},
        {"path": ""},
        {"path": 3},
        {"path": str(empty)},  # no commit yet: HEAD does not resolve
        {"path": str(repo), "range": "nope..HEAD"},
        {"path": str(repo), "range": "HEAD..nope"},
        {"path": str(repo), "range": f"--output={plain / 'written'}"},
        {"path": str(repo), "range": ""},
        {"path": str(repo), "range": ["HEAD"]},
        {"path": str(repo), "batch_size": 0},
        {"path": str(repo), "batch_size": 501},
        {"path": str(repo), "batch_size": True},
        {"path": str(repo), "batch_size": "10"},
        {"path": str(repo), "repository": 5},
        {"path": str(repo), "space": None},
        {"path": str(repo), "reprocess": "yes"},
    ]
    with engram.Client(address, key) as client:
        for kwargs in calls:
            with pytest.raises(engram.InvalidArgument) as caught:
                client.ingest_repository(**kwargs)
            out.append((caught.value.fields, str(caught.value)))
    return out


async def test_bad_arguments_paths_and_ranges_are_refused_naming_them_and_nothing_is_sent(
    make_tenant: MakeTenant, tmp_path: Path
) -> None:
    t = await make_tenant()
    repo, _ = history(tmp_path / "repo")
    plain = tmp_path / "plain"
    plain.mkdir()
    empty = new_repo(tmp_path / "empty")
    refused = await asyncio.to_thread(_refusals, t.address, t.secret, repo, plain, empty)
    fields = [f for f, _ in refused]
    expected = [["path"]] * 4 + [["range"]] * 6 + [["batch_size"]] * 4
    assert fields == [*expected, ["repository"], ["space"], ["reprocess"]]
    messages = [m for _, m in refused]
    assert "not a git repository" in messages[0]
    assert "unknown revision 'nope' in range 'nope..HEAD'" in messages[5]
    assert "unknown revision 'nope' in range 'HEAD..nope'" in messages[6]
    assert "is not a revision" in messages[7] and not (plain / "written").exists()
    assert "between 1 and 500" in messages[10] and "got 501" in messages[11]
    assert all(m.startswith("INVALID_ARGUMENT: ") for m in messages)

    async with engram.AsyncClient(t.address, t.secret) as client:
        with pytest.raises(engram.InvalidArgument) as caught:
            await client.ingest_repository(repo, "v9..HEAD")
        assert caught.value.fields == ["range"]
        with pytest.raises(engram.InvalidArgument) as caught:
            await client.ingest_repository(plain)
        assert caught.value.fields == ["path"]
        with pytest.raises(engram.InvalidArgument) as caught:
            await client.ingest_repository(repo, batch_size=-1)
        assert caught.value.fields == ["batch_size"]
        # None of the calls sent a commit: all are new now.
        result = await client.ingest_repository(repo)
        assert result.skipped_commits == 0 and result.processed_commits == 6
