"""`ingest_commits` takes `engram.Commit` dataclasses: against a real server they
mine the same decision as the equivalent `engram.v1.Commit` messages (which are
still taken, mixed in the same call), bad fields are refused naming them before
anything is sent, and another tenant sees none of what was ingested."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import engram
import pytest
from engram.v1 import decisions_pb2 as D

from tests.conftest import MakeTenant, RunningServer
from tests.test_decisions import EXECUTOR, REPO, indexed

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
SHA, PARENT, MERGE_SHA = "1" * 40, "0" * 40, "2" * 40
COMMENT = "+# One worker: the cross-encoder is not thread-safe.\n"


def dataclass_commit() -> engram.Commit:
    """The executor decision, touching every field a commit has."""
    return engram.Commit(
        sha=SHA,
        parents=[PARENT],
        author_name="Dev",
        author_email="dev@example.com",
        author_time=T0,
        committer_name="Bot",
        commit_time=T0 + timedelta(minutes=5),
        message=EXECUTOR,
        files=[
            engram.FileChange(
                path="svc/rerank.py",
                old_path="svc/rerank_pool.py",
                change_type=engram.FileChangeType.RENAMED,
                additions=13,
                deletions=3,
                hunks=[
                    engram.DiffHunk(
                        old_lines=engram.LineRange(start_line=38, end_line=40),
                        new_lines=engram.LineRange(start_line=40, end_line=52),
                        section="def rerank_async(query, docs):",
                        excerpt=COMMENT,
                    ),
                    engram.DiffHunk(new_lines=engram.LineRange(start_line=90)),
                ],
            ),
            engram.FileChange(path="svc/executor.py", change_type="added", additions=20),
            engram.FileChange(path="docs/latency.png", change_type="ADDED", binary=True),
        ],
        diff_excerpt=COMMENT,
        refs=["main", "v1.2.0"],
    )


def message_commit() -> D.Commit:
    """The same commit written as an engram.v1 message by hand."""
    c = D.Commit(
        sha=SHA,
        parents=[PARENT],
        author_name="Dev",
        author_email="dev@example.com",
        committer_name="Bot",
        message=EXECUTOR,
        files=[
            D.FileChange(
                path="svc/rerank.py",
                old_path="svc/rerank_pool.py",
                change_type=D.FILE_CHANGE_TYPE_RENAMED,
                additions=13,
                deletions=3,
                hunks=[
                    D.DiffHunk(
                        old_lines=D.LineRange(start_line=38, end_line=40),
                        new_lines=D.LineRange(start_line=40, end_line=52),
                        section="def rerank_async(query, docs):",
                        excerpt=COMMENT,
                    ),
                    D.DiffHunk(new_lines=D.LineRange(start_line=90)),
                ],
            ),
            D.FileChange(
                path="svc/executor.py", change_type=D.FILE_CHANGE_TYPE_ADDED, additions=20
            ),
            D.FileChange(
                path="docs/latency.png", change_type=D.FILE_CHANGE_TYPE_ADDED, binary=True
            ),
        ],
        diff_excerpt=COMMENT,
        refs=["main", "v1.2.0"],
    )
    c.author_time.FromDatetime(T0)
    c.commit_time.FromDatetime(T0 + timedelta(minutes=5))
    return c


def merge_message() -> D.Commit:
    """A merge without a change of its own: a message mixed into a dataclass batch."""
    c = D.Commit(sha=MERGE_SHA, parents=[SHA, PARENT], message="Merge branch 'rerank'\n")
    c.author_time.FromDatetime(T0 + timedelta(minutes=10))
    return c


def mined(decision: engram.Decision) -> dict[str, Any]:
    """What mining decided, without what names or stamps the stored record."""
    data = engram.to_dict(decision)
    for key in ("name", "memory", "create_time", "update_time"):
        data.pop(key)
    return data  # type: ignore[no-any-return]


def _ingest_sync(address: str, key: str, commits: list[Any]) -> engram.IngestResult:
    with engram.Client(address, key) as client:
        return client.ingest_commits(REPO, commits)


async def test_dataclass_commits_mine_the_same_decision_as_messages(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    as_dataclass, as_message, mixed = await make_tenant(), await make_tenant(), await make_tenant()
    from_dataclass = await asyncio.to_thread(
        _ingest_sync, as_dataclass.address, as_dataclass.secret, [dataclass_commit()]
    )
    async with engram.AsyncClient(as_message.address, as_message.secret) as client:
        from_message = await client.ingest_commits(REPO, [message_commit()])
    async with engram.AsyncClient(mixed.address, mixed.secret) as client:
        from_mixed = await client.ingest_commits(
            REPO, (c for c in (dataclass_commit(), merge_message()))
        )

    for result in (from_dataclass, from_message, from_mixed):
        assert result.created_decisions == 1 and result.invalid_commits == 0
        assert result.commits[0].disposition is engram.CommitDisposition.DECISION
    (d,), (m,), (x,) = from_dataclass.decisions, from_message.decisions, from_mixed.decisions
    assert mined(d) == mined(m) == mined(x)
    # What the commit's fields carry reached the decision: the author, the author
    # time, every file (the binary one too) with the hunks' lines and section, and
    # the comment excerpt of the renamed file's hunk as a quote from the diff.
    assert (d.commits, d.decision_time, d.author) == ((SHA,), T0, "Dev")
    assert {(a.path, a.lines, a.symbol) for a in d.anchors} == {
        ("svc/rerank.py", engram.LineRange(start_line=40, end_line=52), "rerank_async"),
        ("svc/rerank.py", engram.LineRange(start_line=90, end_line=90), ""),
        ("svc/executor.py", None, ""),
        ("docs/latency.png", None, ""),
    }
    assert (
        engram.DecisionEvidence(
            quote="One worker: the cross-encoder is not thread-safe.",
            commit_sha=SHA,
            origin="diff",
            path="svc/rerank.py",
        )
        in d.evidence
    )
    assert from_mixed.commits[1].sha == MERGE_SHA
    assert from_mixed.commits[1].disposition is engram.CommitDisposition.NO_DECISION

    # Re-sending the dataclass where the message was ingested changes nothing:
    # the server sees one and the same commit.
    async with engram.AsyncClient(as_message.address, as_message.secret) as client:
        again = await client.ingest_commits(REPO, [dataclass_commit()])
        assert [c.disposition for c in again.commits] == [engram.CommitDisposition.ALREADY_INGESTED]
        assert [dd async for dd in client.list_decisions(repository=REPO)] == [m]


async def test_a_bad_commit_field_is_refused_naming_it_and_nothing_is_stored(
    make_tenant: MakeTenant,
) -> None:
    import dataclasses

    t = await make_tenant()
    good = dataclass_commit()
    (rerank, *others) = good.files
    cases = [
        (dataclasses.replace(good, sha="A" * 40), "commits[1].sha"),
        (dataclasses.replace(good, author_time=None), "commits[1].author_time"),
        (
            dataclasses.replace(
                good, files=[dataclasses.replace(rerank, change_type="moved"), *others]
            ),
            "commits[1].files[0].change_type",
        ),
        (
            dataclasses.replace(
                good,
                files=[
                    dataclasses.replace(
                        rerank, hunks=[engram.DiffHunk(new_lines=engram.LineRange(start_line=0))]
                    )
                ],
            ),
            "commits[1].files[0].hunks[0].new_lines.start_line",
        ),
        ("a commit", "commits[1]"),
    ]
    async with engram.AsyncClient(t.address, t.secret) as client:
        for bad, field in cases:
            with pytest.raises(engram.InvalidArgument) as caught:
                await client.ingest_commits(REPO, [merge_message(), bad])
            assert caught.value.fields == [field], caught.value
        # Nothing of the calls reached the server: the first commit of each is new.
        first = await client.ingest_commits(REPO, [merge_message()])
        assert [c.disposition for c in first.commits] == [engram.CommitDisposition.NO_DECISION]
        assert [d async for d in client.list_decisions(repository=REPO)] == []
        # A value only the server's limits refuse is reported for its commit alone.
        long = dataclasses.replace(good, files=[dataclasses.replace(rerank, path="x" * 1025)])
        result = await client.ingest_commits(REPO, [long, dataclasses.replace(good, sha="3" * 40)])
        assert result.invalid_commits == 1 and result.created_decisions == 1
        assert [v.field for v in result.commits[0].violations] == ["commits[0].files[0].path"]
        # A message over the limit is cut to it and stored.
        wordy = dataclasses.replace(
            good,
            sha="4" * 40,
            message=good.message + "x" * (1 << 17),
            author_time=T0 + timedelta(days=1),
        )
        result = await client.ingest_commits(REPO, [wordy])
        assert result.invalid_commits == 0 and result.created_decisions == 1


async def test_another_tenant_sees_none_of_the_ingested_decisions(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t, other = await make_tenant(), await make_tenant()
    async with engram.AsyncClient(t.address, t.secret) as client:
        (d,) = (await client.ingest_commits(REPO, [dataclass_commit()])).decisions
    await indexed(server, t)
    async with engram.AsyncClient(other.address, other.secret) as client:
        with pytest.raises(engram.NotFound):
            await client.get_decision(d.name)
        assert [x async for x in client.list_decisions(repository=REPO)] == []
        assert len(await client.search_decisions("why a single worker?", repository=REPO)) == 0
        why = await client.explain_code(REPO, "svc/rerank.py", lines=(40, 52))
        assert len(why) == 0 and why.context == ""
        with pytest.raises(engram.NotFound):
            await client.record_decision_outcome(d.name, "MET", "fine")
        # The same commit is new to the other tenant: its own decision, not t's.
        (own,) = (await client.ingest_commits(REPO, [dataclass_commit()])).decisions
        assert own.name != d.name and mined(own) == mined(d)
    async with engram.AsyncClient(t.address, t.secret) as client:
        assert [x async for x in client.list_decisions(repository=REPO)] == [d]
