"""DecisionsService through gRPC: ingest, identity, supersession, anchors, answers.

Histories are real git repositories built in temp dirs and read by the
SDK's git reader (`engram.git`), or commits written by hand.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from engram.git import read_commits
from engram.v1 import decisions_pb2, decisions_pb2_grpc, lifecycle_pb2, recall_pb2, types_pb2

from tests.conftest import MakeTenant, RunningServer, TestTenant
from tests.lifecycle_helpers import propose

REPO = "github.com/acme/api"
T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
D = decisions_pb2


def stub(t: TestTenant) -> decisions_pb2_grpc.DecisionsServiceStub:
    return decisions_pb2_grpc.DecisionsServiceStub(t.channel)


def proto_commit(
    sha: str,
    message: str,
    *,
    minutes: int = 0,
    files: list[D.FileChange] | None = None,
    parents: list[str] | None = None,
) -> D.Commit:
    c = D.Commit(sha=sha, message=message, files=files or [], parents=parents or [])
    c.author_time.FromDatetime(T0 + timedelta(minutes=minutes))
    c.commit_time.FromDatetime(T0 + timedelta(minutes=minutes))
    return c


def file_change(path: str, new: tuple[int, int], section: str = "") -> D.FileChange:
    return D.FileChange(
        path=path,
        change_type=D.FILE_CHANGE_TYPE_MODIFIED,
        hunks=[
            D.DiffHunk(new_lines=D.LineRange(start_line=new[0], end_line=new[1]), section=section)
        ],
    )


EXECUTOR = (
    "Run reranking on a single-worker executor\n\n"
    "The cross-encoder is not thread-safe, so concurrent calls corrupted scores.\n"
    "Measured p50 went from 41 ms to 12 ms under 8 concurrent requests.\n"
    "A thread pool was tried first, but it deadlocked under load.\n\nCloses #412\n"
)


async def ingest(t: TestTenant, commits: list[D.Commit], **kw: Any) -> D.IngestCommitsResponse:
    response: D.IngestCommitsResponse = await stub(t).IngestCommits(
        D.IngestCommitsRequest(repository=kw.pop("repository", REPO), commits=commits, **kw)
    )
    return response


async def indexed(server: RunningServer, t: TestTenant) -> None:
    assert server.ctx.recall is not None
    assert await server.ctx.recall.worker.wait_until_indexed(t.tenant_id, 20) == 0


# -- git helpers --------------------------------------------------------------------


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    full = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent), **(env or {})}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=full, check=True
    )
    return done.stdout.strip()


def commit_all(repo: Path, message: str, when: datetime) -> str:
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+00:00")
    git(repo, "add", "-A")
    git(
        repo,
        "commit",
        "-q",
        "-m",
        message,
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
    )
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path / "repo")


def new_repo(path: Path) -> Path:
    """An empty git repository with a fixed identity."""
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "config", "commit.gpgsign", "false")
    return path


def lines(n: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(1, n + 1))


# -- tests --------------------------------------------------------------------------


async def test_ingest_mines_reasons_skips_and_reingest_changes_nothing(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    commits = [
        proto_commit(
            "1" * 40,
            EXECUTOR,
            files=[file_change("svc/rerank.py", (40, 44), "def rerank_async(query, docs):")],
        ),
        proto_commit("2" * 40, "Run black over the code base\n", minutes=1),
        proto_commit("3" * 40, "Merge branch 'x'\n", minutes=2, parents=["1" * 40, "2" * 40]),
    ]
    first = await ingest(t, commits)
    assert (first.processed_commits, first.created_decisions, first.commits_without_decision) == (
        3,
        1,
        2,
    )
    by_sha = {c.sha: c for c in first.commits}
    assert by_sha["1" * 40].disposition == D.COMMIT_DISPOSITION_DECISION
    assert by_sha["2" * 40].reason == "formatting only"
    assert "merge" in by_sha["3" * 40].reason
    (d,) = first.decisions
    assert d.title == "Run reranking on a single-worker executor"
    assert d.space == f"decisions/{REPO}"
    assert "not thread-safe" in d.rationale
    assert [a.description for a in d.alternatives] == ["A thread pool"]
    quotes = [e.quote for e in d.evidence]
    assert "Measured p50 went from 41 ms to 12 ms under 8 concurrent requests." in quotes
    assert "Closes #412" in quotes
    assert all(q in EXECUTOR for q in quotes)
    (anchor,) = d.anchors
    assert (anchor.path, anchor.lines.start_line, anchor.lines.end_line, anchor.symbol) == (
        "svc/rerank.py",
        40,
        44,
        "rerank_async",
    )
    assert list(d.commits) == ["1" * 40]
    assert d.status == types_pb2.MEMORY_STATUS_ACTIVE
    memory = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=d.memory))
    assert memory.kind == types_pb2.MEMORY_KIND_DECISION and memory.space == d.space

    again = await ingest(t, commits)
    assert (again.processed_commits, again.skipped_commits, again.created_decisions) == (0, 3, 0)
    assert again.updated_decisions == 0 and not again.decisions
    assert {c.disposition for c in again.commits} == {D.COMMIT_DISPOSITION_ALREADY_INGESTED}
    got = await stub(t).GetDecision(D.GetDecisionRequest(name=d.name))
    assert got == d or got.name == d.name
    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository=REPO))
    assert [x.name for x in listed.decisions] == [d.name]


async def test_request_id_replays_the_first_answer(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    commits = [proto_commit("4" * 40, EXECUTOR)]
    first = await ingest(t, commits, request_id="ingest-1")
    second = await ingest(t, commits, request_id="ingest-1")
    assert second.created_decisions == first.created_decisions == 1
    assert [d.name for d in second.decisions] == [d.name for d in first.decisions]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest(t, [proto_commit("5" * 40, EXECUTOR)], request_id="ingest-1")
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_rebased_history_converges_on_the_same_decisions(
    make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    (repo / "cache.py").write_text(lines(20))
    commit_all(repo, "Add the cache module\n\nIt keeps parsed configs.", T0)
    (repo / "cache.py").write_text(lines(20).replace("line 5\n", "guard 5\n"))
    commit_all(
        repo,
        "Guard the cache with a lock\n\nTwo workers raced on refresh because the dict is shared.",
        T0 + timedelta(hours=1),
    )
    before = [c for c in read_commits(str(repo))]
    first = await ingest(t, before)
    assert first.created_decisions == 2
    # Rewrite every commit (new committer times, so new shas; authors unchanged).
    git(
        repo,
        "rebase",
        "-q",
        "--root",
        "--force-rebase",
        env={"GIT_COMMITTER_DATE": "2025-01-01T00:00:00+00:00"},
    )
    after = [c for c in read_commits(str(repo))]
    assert {c.sha for c in after}.isdisjoint({c.sha for c in before})
    second = await ingest(t, after)
    assert second.created_decisions == 0
    assert second.updated_decisions == 2
    assert {c.disposition for c in second.commits} == {D.COMMIT_DISPOSITION_DECISION}
    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository=REPO))
    assert len(listed.decisions) == 2
    for d in listed.decisions:
        assert len(d.commits) == 2  # the old sha and the rebased one


async def test_a_hidden_reversed_decision_leaves_what_replaced_it_in_its_place(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t = await make_tenant()
    original = proto_commit(
        "8" * 40,
        "Cache parsed templates in a dict\n\nParsing every template on each request was slow.\n",
        files=[file_change("views.py", (3, 9), "def render(name):")],
    )
    replacing = proto_commit(
        "9" * 40,
        "Keep compiled views in a bounded LRU\n\nReplaces commit "
        + "8" * 40
        + ".\nThe unbounded store grew without limit on sites with many pages.\n",
        minutes=30,
        files=[file_change("render.py", (1, 20), "class ViewStore:")],
    )
    # Many later decisions say the question's words, so no leg reaches the
    # replacement, which says none of them.
    others = [
        proto_commit(
            f"{i:040x}",
            f"Look up parsed template {i} in the cached dict before parsing it",
            minutes=60 + i,
            files=[file_change(f"templates/t{i}.py", (1, 4), "def parse():")],
        )
        for i in range(1, 61)
    ]
    await ingest(t, [original])
    (replacement,) = (await ingest(t, [replacing])).decisions
    await ingest(t, others)
    await indexed(server, t)
    question = "why are parsed templates cached in a dict?"
    found = await stub(t).SearchDecisions(D.SearchDecisionsRequest(query=question, repository=REPO))
    # The old decision is left out, and what replaced it answers in its place.
    assert [h.decision.name for h in found.hits][:1] == [replacement.name]
    assert all(h.decision.status != types_pb2.MEMORY_STATUS_SUPERSEDED for h in found.hits)
    shown = await stub(t).SearchDecisions(
        D.SearchDecisionsRequest(query=question, repository=REPO, include_superseded=True)
    )
    names = [h.decision.name for h in shown.hits]
    assert names[0] == replacement.name
    assert shown.hits[1].decision.superseded_by == replacement.name


async def test_revert_supersedes_and_is_never_returned_alone(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t = await make_tenant()
    original = proto_commit(
        "6" * 40,
        "Use a thread pool for IO\n\nBlocking reads stalled the loop, so move them off it.\n",
        files=[file_change("io.py", (10, 14), "def read_all(paths):")],
    )
    revert = proto_commit(
        "7" * 40,
        'Revert "Use a thread pool for IO"\n\nThis reverts commit '
        + "6" * 40
        + ".\nThe pool leaked file handles because workers never closed them.\n",
        minutes=30,
        files=[file_change("io.py", (10, 12), "def read_all(paths):")],
    )
    await ingest(t, [original])
    done = await ingest(t, [revert])
    (reverting,) = done.decisions
    listed = await stub(t).ListDecisions(
        D.ListDecisionsRequest(repository=REPO, include_superseded=True)
    )
    old = next(d for d in listed.decisions if d.name != reverting.name)
    assert old.status == types_pb2.MEMORY_STATUS_SUPERSEDED
    assert old.superseded_by == reverting.name
    live = await stub(t).ListDecisions(D.ListDecisionsRequest(repository=REPO))
    assert [d.name for d in live.decisions] == [reverting.name]
    memory = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=old.memory))
    assert memory.status == types_pb2.MEMORY_STATUS_SUPERSEDED
    assert memory.superseded_by == reverting.memory

    await indexed(server, t)
    with_old = await stub(t).ExplainCode(
        D.ExplainCodeRequest(
            repository=REPO, path="io.py", lines=D.LineRange(start_line=11), include_superseded=True
        )
    )
    names = [e.decision.name for e in with_old.explanations]
    assert names[:2] == [reverting.name, old.name]
    assert with_old.explanations[1].replacement.name == reverting.name
    assert "reversed" in with_old.context
    without = await stub(t).ExplainCode(
        D.ExplainCodeRequest(repository=REPO, path="io.py", lines=D.LineRange(start_line=11))
    )
    assert old.name not in [e.decision.name for e in without.explanations]


async def test_renames_and_line_carry_forward(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    (repo / "a.py").write_text(lines(30))
    commit_all(repo, "Add a", T0)
    text = lines(30).replace("line 10\nline 11\nline 12\n", "retry 10\nretry 11\nretry 12\n")
    (repo / "a.py").write_text(text)
    decided = commit_all(
        repo,
        "Retry reads three times\n\nThe NFS mount drops the first read because of a stale handle.",
        T0 + timedelta(hours=1),
    )
    (repo / "a.py").write_text(lines(5, "header") + text)
    commit_all(
        repo,
        "Add a header block\n\nLicensing needs it so that audits pass.",
        T0 + timedelta(hours=2),
    )
    git(repo, "mv", "a.py", "b.py")
    head = commit_all(repo, "Rename a.py to b.py", T0 + timedelta(hours=3))
    response = await ingest(t, list(read_commits(str(repo))))
    retry = next(d for d in response.decisions if d.title == "Retry reads three times")

    moved = await stub(t).ExplainCode(
        D.ExplainCodeRequest(
            repository=REPO,
            path="b.py",
            lines=D.LineRange(start_line=15, end_line=17),
            revision=head,
        )
    )
    top = moved.explanations[0]
    assert top.decision.name == retry.name and top.match == D.ANCHOR_MATCH_LINES
    anchor = top.matched_anchors[0]
    assert (anchor.path, anchor.lines.start_line, anchor.lines.end_line) == ("b.py", 15, 17)
    # The recorded lines (10-12) hold other code at HEAD: only a file match there.
    stale = await stub(t).ExplainCode(
        D.ExplainCodeRequest(
            repository=REPO,
            path="b.py",
            lines=D.LineRange(start_line=10, end_line=12),
            revision=head,
        )
    )
    lines_matches = [e for e in stale.explanations if e.match == D.ANCHOR_MATCH_LINES]
    assert retry.name not in [e.decision.name for e in lines_matches]
    # At the decision's own commit, the old path and lines match as recorded.
    recorded = await stub(t).ExplainCode(
        D.ExplainCodeRequest(
            repository=REPO,
            path="a.py",
            lines=D.LineRange(start_line=11),
            revision=decided,
        )
    )
    assert recorded.explanations[0].decision.name == retry.name
    assert recorded.explanations[0].match == D.ANCHOR_MATCH_LINES
    assert "Retry reads three times" in recorded.context
    assert 0 < recorded.token_count <= 1500


async def test_bad_input_names_fields_and_one_bad_commit_spares_the_rest(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    bad = proto_commit("not-a-sha", "Something\n")
    no_time = D.Commit(sha="8" * 40, message="No time\n")
    backwards = proto_commit(
        "9" * 40,
        "Backwards hunk\n",
        files=[
            D.FileChange(
                path="x.py",
                hunks=[D.DiffHunk(new_lines=D.LineRange(start_line=9, end_line=3))],
            )
        ],
    )
    good = proto_commit("a" * 40, EXECUTOR)
    response = await ingest(t, [bad, no_time, backwards, good])
    assert response.invalid_commits == 3 and response.created_decisions == 1
    fields = {v.field for c in response.commits for v in c.violations}
    assert {
        "commits[0].sha",
        "commits[1].author_time",
        "commits[2].files[0].hunks[0].new_lines.end_line",
    } <= fields
    assert response.commits[3].disposition == D.COMMIT_DISPOSITION_DECISION

    for request, field in (
        (D.IngestCommitsRequest(repository=REPO, commits=[bad]), "commits[0].sha"),
        (D.IngestCommitsRequest(repository="bad repo!", commits=[good]), "repository"),
        (D.IngestCommitsRequest(repository=REPO), "commits"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub(t).IngestCommits(request)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).ExplainCode(
            D.ExplainCodeRequest(
                repository=REPO, path="x.py", lines=D.LineRange(start_line=9, end_line=3)
            )
        )
    assert "lines.end_line" in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).CreateDecision(
            D.CreateDecisionRequest(
                decision=D.Decision(
                    repository=REPO,
                    title="x",
                    rationale="y",
                    anchors=[D.CodeAnchor(path="a", lines=D.LineRange(start_line=5, end_line=2))],
                )
            )
        )
    assert "decision.anchors[0].lines.end_line" in (caught.value.details() or "")
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).GetDecision(D.GetDecisionRequest(name="memories/x"))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_conversation_recall_never_returns_decisions_and_tenants_are_isolated(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t = await make_tenant()
    other = await make_tenant()
    await t.lifecycle.ProposeMemory(
        lifecycle_pb2.ProposeMemoryRequest(
            proposal=lifecycle_pb2.MemoryProposal(
                space="team/chat",
                content="The reranking executor runs in a thread pool",
                confidence=1,
            )
        )
    )
    (d,) = (await ingest(t, [proto_commit("b" * 40, EXECUTOR)])).decisions
    await indexed(server, t)
    recall = recall_pb2_grpc_stub(t)
    conversation = await recall.Recall(
        recall_pb2.RecallRequest(
            query="reranking executor", spaces=["team"], include_subspaces=True, k=10
        )
    )
    assert [h.memory.space for h in conversation.hits] == ["team/chat"]
    scoped = await recall.Recall(
        recall_pb2.RecallRequest(query="reranking executor", spaces=[d.space], k=10)
    )
    assert [h.memory.name for h in scoped.hits] == [d.memory]

    found = await stub(t).SearchDecisions(D.SearchDecisionsRequest(query="why a single worker?"))
    assert found.hits[0].decision.name == d.name
    assert list(found.hits[0].decision.commits) == ["b" * 40]
    s = stub(other)
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await s.GetDecision(D.GetDecisionRequest(name=d.name))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert not (await s.ListDecisions(D.ListDecisionsRequest())).decisions
    assert not (await s.SearchDecisions(D.SearchDecisionsRequest(query="single worker"))).hits
    explained = await s.ExplainCode(D.ExplainCodeRequest(repository=REPO, path="svc/rerank.py"))
    assert not explained.explanations and explained.context == ""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await s.RecordDecisionOutcome(
            D.RecordDecisionOutcomeRequest(
                name=d.name, outcome=D.DECISION_OUTCOME_MET, summary="fine"
            )
        )
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    reader = await t.new_key(scopes=("read",))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await decisions_pb2_grpc.DecisionsServiceStub(t.channel_for(reader)).IngestCommits(
            D.IngestCommitsRequest(repository=REPO, commits=[proto_commit("c" * 40, EXECUTOR)])
        )
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED


def recall_pb2_grpc_stub(t: TestTenant) -> Any:
    from engram.v1 import recall_pb2_grpc

    return recall_pb2_grpc.RecallServiceStub(t.channel)


async def test_explain_ranks_anchor_facts_above_similarity(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t = await make_tenant()
    await ingest(
        t,
        [
            proto_commit(
                "d" * 40,
                "Pin the parser to one thread\n\nThe grammar tables are global, so parallel"
                " parses clobbered each other.\n",
                files=[file_change("parse.py", (3, 9), "def parse(text):")],
            ),
            proto_commit(
                "e" * 40,
                "Run reranking on a worker executor because the cross-encoder is slow\n",
                minutes=5,
                files=[file_change("rerank.py", (1, 5))],
            ),
        ],
    )
    await indexed(server, t)
    out = await stub(t).ExplainCode(
        D.ExplainCodeRequest(
            repository=REPO,
            path="parse.py",
            symbol="parse",
            question="why does reranking run on a worker executor?",
        )
    )
    assert out.explanations[0].match == D.ANCHOR_MATCH_LINES
    assert out.explanations[0].decision.title == "Pin the parser to one thread"
    assert [e.match for e in out.explanations[1:]] == [D.ANCHOR_MATCH_SEMANTIC]
    small = await stub(t).ExplainCode(
        D.ExplainCodeRequest(repository=REPO, path="parse.py", token_budget=60)
    )
    assert 0 < small.token_count <= 60


async def test_created_decisions_and_outcomes(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    created = await stub(t).CreateDecision(
        D.CreateDecisionRequest(
            decision=D.Decision(
                repository="ops/runbooks",
                title="Move nightly backups to 02:00",
                rationale="Backups at midnight collided with the billing batch.",
                alternatives=[D.DecisionAlternative(description="Throttle billing")],
                expectations=["no backup overlaps billing for a month"],
            ),
            request_id="create-1",
        )
    )
    assert created.origin == "statement" and created.space == "decisions/ops/runbooks"
    again = await stub(t).CreateDecision(
        D.CreateDecisionRequest(
            decision=D.Decision(
                repository="ops/runbooks",
                title="Move nightly backups to 02:00",
                rationale="Backups at midnight collided with the billing batch.",
                alternatives=[D.DecisionAlternative(description="Throttle billing")],
                expectations=["no backup overlaps billing for a month"],
            ),
            request_id="create-1",
        )
    )
    assert again.name == created.name
    other = await stub(t).CreateDecision(
        D.CreateDecisionRequest(
            decision=D.Decision(
                repository="ops/runbooks", title="Keep logs 30 days", rationale="Cost."
            )
        )
    )
    updated = await stub(t).RecordDecisionOutcome(
        D.RecordDecisionOutcomeRequest(
            name=created.name,
            outcome=D.DECISION_OUTCOME_MISSED,
            summary="Billing moved to 02:00 too; they collided twice.",
            evidence=[D.DecisionEvidence(quote="2 overlaps in March")],
            sources=["Scheduler report: 2 overlaps in March, both at 02:10."],
        )
    )
    assert updated.outcome == D.DECISION_OUTCOME_MISSED
    assert updated.outcome_history[0].summary.startswith("Billing moved")
    missed = await stub(t).ListDecisions(
        D.ListDecisionsRequest(outcomes=[D.DECISION_OUTCOME_MISSED])
    )
    assert [d.name for d in missed.decisions] == [created.name]
    assert other.name not in [d.name for d in missed.decisions]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).RecordDecisionOutcome(
            D.RecordDecisionOutcomeRequest(name=created.name, summary="x")
        )
    assert "outcome" in (caught.value.details() or "")


async def test_a_stated_decision_may_name_the_same_anchor_twice(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    twice = D.CodeAnchor(path="billing/batch.py", symbol="run", lines=D.LineRange(start_line=3))
    created = await stub(t).CreateDecision(
        D.CreateDecisionRequest(
            decision=D.Decision(
                repository="ops/runbooks",
                title="Run the billing batch at 01:00",
                rationale="It must finish before the backups start.",
                anchors=[twice, D.CodeAnchor(path="billing/batch.py"), twice],
            )
        )
    )
    stored = await stub(t).GetDecision(D.GetDecisionRequest(name=created.name))
    assert sorted((a.path, a.symbol, a.lines.start_line) for a in stored.anchors) == [
        ("billing/batch.py", "", 0),
        ("billing/batch.py", "run", 3),
    ]


async def test_oversized_paths_and_symbols_are_invalid_not_a_database_failure(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    # Stored paths and symbols are indexed: a text that does not compress (random,
    # or 1000 characters of three bytes each) would overflow an index row.
    noise = uuid.uuid4().hex * 60
    wide = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(1000))
    hunk = D.DiffHunk(new_lines=D.LineRange(start_line=1, end_line=1))
    commits = [
        proto_commit(
            "5" * 40,
            "Move the parser because it grew\n",
            files=[D.FileChange(path=wide, hunks=[hunk])],
        ),
        proto_commit(
            "6" * 40,
            "Rename the parser because of a clash\n",
            minutes=1,
            files=[
                D.FileChange(
                    path="parser.py",
                    old_path=noise,
                    change_type=D.FILE_CHANGE_TYPE_RENAMED,
                    hunks=[hunk],
                )
            ],
        ),
        proto_commit("7" * 40, "Cap retries at three because the API throttles\n", minutes=2),
    ]
    response = await ingest(t, commits)
    by_index = {c.index: c for c in response.commits}
    assert "commits[0].files[0].path" in [v.field for v in by_index[0].violations]
    assert "commits[1].files[0].old_path" in [v.field for v in by_index[1].violations]
    assert by_index[2].disposition == D.COMMIT_DISPOSITION_DECISION

    for anchor, field in (
        (D.CodeAnchor(path=noise), "decision.anchors[0].path"),
        (D.CodeAnchor(path="a.py", symbol=noise), "decision.anchors[0].symbol"),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub(t).CreateDecision(
                D.CreateDecisionRequest(
                    decision=D.Decision(
                        repository=REPO, title="Keep it", rationale="y", anchors=[anchor]
                    )
                )
            )
        assert field in _details(caught)


async def test_a_revision_that_is_not_a_sha_is_invalid(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    await ingest(t, [proto_commit("ab" * 20, EXECUTOR)])
    # "%" would match any recorded commit as a prefix and carry anchors to its time.
    for revision in ("%", "ab%", "HEAD~1", "a" * 65):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub(t).ExplainCode(
                D.ExplainCodeRequest(
                    repository=REPO,
                    path="x.py",
                    lines=D.LineRange(start_line=3),
                    revision=revision,
                )
            )
        assert "revision" in _details(caught)
    ok = await stub(t).ExplainCode(
        D.ExplainCodeRequest(repository=REPO, path="x.py", revision="ab" * 6)
    )
    assert ok.token_count >= 0


async def test_a_stated_decisions_commits_must_be_shas(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    for commits in (["not a sha"], ["ab" * 20, "x" * 300]):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub(t).CreateDecision(
                D.CreateDecisionRequest(
                    decision=D.Decision(
                        repository=REPO, title="Keep it", rationale="y", commits=commits
                    )
                )
            )
        assert f"decision.commits[{len(commits) - 1}]" in _details(caught)
    stated = await stub(t).CreateDecision(
        D.CreateDecisionRequest(
            decision=D.Decision(
                repository=REPO, title="Keep it", rationale="y", commits=["ab" * 20, "cd12"]
            )
        )
    )
    assert list(stated.commits) == ["ab" * 20, "cd12"]


def _details(caught: pytest.ExceptionInfo[grpc.aio.AioRpcError]) -> str:
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    return caught.value.details() or ""


async def test_stated_quotes_must_appear_verbatim_in_their_source(
    make_tenant: MakeTenant,
) -> None:
    t, other = await make_tenant(), await make_tenant()
    note = await propose(t.lifecycle, "ops", "Load test: p99 rose to 180 ms with 3 replicas.")
    memory = note.memory.name
    report = "Bench run 7: cold start took 4.2 s on the small instance."

    def request(*evidence: D.DecisionEvidence, sources: tuple[str, ...] = ()) -> Any:
        return D.CreateDecisionRequest(
            decision=D.Decision(
                repository="ops/runbooks",
                title="Keep four replicas",
                rationale="Three replicas could not hold the p99 target.",
                evidence=list(evidence),
            ),
            sources=list(sources),
        )

    # Quoted exactly from the memory it names, and from a text sent along.
    created = await stub(t).CreateDecision(
        request(
            D.DecisionEvidence(quote="p99 rose to 180 ms", memory=memory),
            D.DecisionEvidence(quote="cold start took 4.2 s"),
            sources=(report,),
        )
    )
    assert [(e.quote, e.memory) for e in created.evidence] == [
        ("p99 rose to 180 ms", memory),
        ("cold start took 4.2 s", ""),
    ]
    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository="ops/runbooks"))
    assert len(listed.decisions) == 1

    refused = [
        # paraphrased, not quoted
        (request(D.DecisionEvidence(quote="p99 went to 180 ms", memory=memory)), "[0].quote"),
        # a different case is not verbatim either
        (request(D.DecisionEvidence(quote="Cold start took 4.2 s"), sources=(report,)), "quote"),
        # no source at all
        (request(D.DecisionEvidence(quote="cold start took 4.2 s")), "decision.evidence[0].quote"),
        # a memory that does not exist, and a malformed name
        (
            request(D.DecisionEvidence(quote="x y z", memory=f"memories/{uuid.uuid4()}")),
            "decision.evidence[0].memory",
        ),
        (request(D.DecisionEvidence(quote="x y z", memory="notes/1")), "[0].memory"),
    ]
    for bad, field in refused:
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub(t).CreateDecision(bad)
        assert field in _details(caught)
    # Another tenant cannot quote (or probe) this tenant's memory.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(other).CreateDecision(
            request(D.DecisionEvidence(quote="p99 rose to 180 ms", memory=memory))
        )
    assert "decision.evidence[0].memory" in _details(caught)
    # Nothing half-written: the refused requests stored no decision.
    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository="ops/runbooks"))
    assert [d.name for d in listed.decisions] == [created.name]
    assert not (await stub(other).ListDecisions(D.ListDecisionsRequest())).decisions

    # Outcomes: the same rule; a refused outcome changes nothing.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).RecordDecisionOutcome(
            D.RecordDecisionOutcomeRequest(
                name=created.name,
                outcome=D.DECISION_OUTCOME_MISSED,
                summary="Four replicas were not enough either.",
                evidence=[D.DecisionEvidence(quote="p99 of 240 ms")],
                sources=["Week 12: p99 at 230 ms."],
            )
        )
    assert "evidence[0].quote" in _details(caught)
    held = await stub(t).GetDecision(D.GetDecisionRequest(name=created.name))
    assert held.outcome == D.DECISION_OUTCOME_UNSPECIFIED


async def test_list_pages(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    await ingest(
        t,
        [
            proto_commit(f"{i:040x}", f"Decision {i} because reason {i}\n", minutes=i)
            for i in range(1, 6)
        ],
    )
    names: list[str] = []
    token = ""
    while True:
        page = await stub(t).ListDecisions(
            D.ListDecisionsRequest(repository=REPO, page_size=2, page_token=token)
        )
        names += [d.title for d in page.decisions]
        token = page.next_page_token
        if not token:
            break
    assert names == [f"Decision {i} because reason {i}" for i in range(5, 0, -1)]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).ListDecisions(
            D.ListDecisionsRequest(repository="other/repo", page_size=2, page_token=token or "x")
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_ingest_session_mines_stated_decisions(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    for role, content in (
        ("user", "The deploy keeps timing out on the migration step."),
        (
            "assistant",
            "We decided to run migrations before the rollout because they take 9 minutes.",
        ),
    ):
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space="team/chat",
                session="s1",
                message=lifecycle_pb2.SessionMessage(role=role, content=content),
            )
        )
    out = await stub(t).IngestSession(
        D.IngestSessionRequest(space="team/chat", session="s1", repository=REPO)
    )
    assert out.created_decisions == 1 and out.messages == 2
    (d,) = out.decisions
    assert d.origin == "session" and "9 minutes" in d.evidence[0].quote
    again = await stub(t).IngestSession(
        D.IngestSessionRequest(space="team/chat", session="s1", repository=REPO)
    )
    assert again.created_decisions == 0 and [x.name for x in again.decisions] == [d.name]


async def test_llm_path_keeps_only_verbatim_quotes_and_contained_rationale(
    app: Any, make_tenant: MakeTenant
) -> None:
    import json as jsonlib

    from tests.llm_server import LocalChatServer
    from tests.test_learn import use_llm_server

    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await ingest(t, [proto_commit("f1" * 20, EXECUTOR)], use_llm=True)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION

    def respond(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        if "single-worker" in text:
            return jsonlib.dumps(
                {
                    "is_decision": True,
                    "statement": "Reranking runs on a single-worker executor.",
                    "rationale": "The cross-encoder is not thread-safe, so concurrent calls"
                    " corrupted scores.",
                    "alternatives": [
                        {"description": "A thread pool", "reason_rejected": "it deadlocked"}
                    ],
                    "evidence": [
                        "Measured p50 went from 41 ms to 12 ms under 8 concurrent requests.",
                        "Throughput tripled in production",  # not in the commit
                    ],
                }
            )
        return jsonlib.dumps(
            {
                "is_decision": True,
                "statement": "Cache parsed configs.",
                "rationale": "Because quantum flux capacitors overheat on Tuesdays.",
                "evidence": [],
            }
        )

    with LocalChatServer(respond) as chat:
        await use_llm_server(app, t.tenant_id, chat)
        response = await ingest(
            t,
            [
                proto_commit("f2" * 20, EXECUTOR),
                proto_commit(
                    "f3" * 20,
                    "Cache parsed configs\n\nParsing took 120 ms per request.\n",
                    minutes=9,
                ),
                proto_commit("f4" * 20, "Run black over the code base\n", minutes=10),
            ],
            use_llm=True,
        )
        assert len(chat.requests) == 2  # the formatting commit never reached the model
    by_title = {d.title: d for d in response.decisions}
    executor = by_title["Run reranking on a single-worker executor"]
    quotes = [e.quote for e in executor.evidence]
    assert "Measured p50 went from 41 ms to 12 ms under 8 concurrent requests." in quotes
    assert "Throughput tripled in production" not in quotes
    assert "llm" in executor.tags
    assert executor.statement == "Reranking runs on a single-worker executor."
    cache = by_title["Cache parsed configs"]
    assert "quantum" not in cache.rationale  # invented: the deterministic rationale stays


async def test_purging_the_decision_space_forgets_its_decisions(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    (d,) = (await ingest(t, [proto_commit("ab" * 20, EXECUTOR)])).decisions
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=d.space, reason="erasure request")
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).GetDecision(D.GetDecisionRequest(name=d.name))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    again = await ingest(t, [proto_commit("ab" * 20, EXECUTOR)])
    assert again.created_decisions == 1  # its commit record went with it: mined afresh


async def test_purging_the_decision_space_forgets_its_commit_and_file_records(
    make_tenant: MakeTenant, raw_pg: Any
) -> None:
    t = await make_tenant()
    other = await make_tenant()
    commits = [
        proto_commit("ab" * 20, EXECUTOR, files=[file_change("src/rerank.py", (10, 30))]),
        proto_commit(
            "cd" * 20,
            "Fix typo in zebulon_okafor.md\n",
            minutes=5,
            files=[file_change("docs/zebulon_okafor.md", (1, 2))],
        ),
    ]
    (d,) = (await ingest(t, commits)).decisions
    await ingest(other, commits)

    async def records(tenant_id: str) -> int:
        total = 0
        for table in ("decision_commits", "decision_file_changes"):
            cur = await raw_pg.execute(
                f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (tenant_id,)
            )
            row = await cur.fetchone()
            total += row[0]
        return total

    assert await records(t.tenant_id) == 4  # two commits (one NO_DECISION), two files
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=d.space, reason="erasure request")
    )
    assert await records(t.tenant_id) == 0
    assert await records(other.tenant_id) == 4  # another tenant's records stay
    # Re-sent after the purge, both commits are read afresh.
    again = await ingest(t, commits)
    assert again.created_decisions == 1
    assert await records(t.tenant_id) == 4


async def test_commit_records_from_before_their_space_was_kept_go_with_the_default_space(
    make_tenant: MakeTenant, raw_pg: Any
) -> None:
    t = await make_tenant()
    commit = proto_commit(
        "ef" * 20, "Fix typo in README\n", files=[file_change("README.md", (1, 1))]
    )
    await ingest(t, [commit])
    for table in ("decision_commits", "decision_file_changes"):
        await raw_pg.execute(
            f"UPDATE {table} SET space = NULL WHERE tenant_id = %s", (t.tenant_id,)
        )
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=f"decisions/{REPO}", reason="erasure request")
    )
    for table in ("decision_commits", "decision_file_changes"):
        cur = await raw_pg.execute(
            f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (t.tenant_id,)
        )
        assert await cur.fetchone() == (0,)


async def test_purging_a_session_forgets_the_decisions_mined_from_it(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    said = "We decided to pin the base image because the nightly one broke builds twice."
    for session in ("s1", "s2"):
        await t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space="team/chat",
                session=session,
                message=lifecycle_pb2.SessionMessage(
                    role="assistant",
                    content=said if session == "s1" else said.replace("twice", "once"),
                ),
            )
        )
    mined = {}
    for session in ("s1", "s2"):
        out = await stub(t).IngestSession(
            D.IngestSessionRequest(space="team/chat", session=session, repository=REPO)
        )
        (mined[session],) = out.decisions
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="team/chat", session="s1", reason="erasure")
    )
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).GetDecision(D.GetDecisionRequest(name=mined["s1"].name))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository=REPO))
    assert [d.name for d in listed.decisions] == [mined["s2"].name]

    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="team/chat", reason="erasure")
    )
    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository=REPO))
    assert list(listed.decisions) == []


async def test_purging_a_space_forgets_the_decisions_quoting_its_memories(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    quoted = await propose(t.lifecycle, "ops/bench", "Nightly restore took 41 minutes on db-2.")
    kept = await propose(t.lifecycle, "ops/other", "Weekly restore took 12 minutes on db-1.")

    async def decide(title: str, memory: Any, quote: str) -> Any:
        return await stub(t).CreateDecision(
            D.CreateDecisionRequest(
                decision=D.Decision(
                    repository="ops/runbooks",
                    title=title,
                    rationale="Restores are slow.",
                    evidence=[D.DecisionEvidence(quote=quote, memory=memory.memory.name)],
                )
            )
        )

    doomed = await decide("Restore from snapshots", quoted, "took 41 minutes")
    other = await decide("Restore weekly", kept, "took 12 minutes")
    # An outcome quoting the purged space is derived from it as well.
    later = await decide("Keep restores under an hour", kept, "12 minutes")
    await stub(t).RecordDecisionOutcome(
        D.RecordDecisionOutcomeRequest(
            name=later.name,
            outcome=D.DECISION_OUTCOME_MET,
            summary="Restores stayed under an hour.",
            evidence=[D.DecisionEvidence(quote="41 minutes", memory=quoted.memory.name)],
        )
    )

    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space="ops/bench", reason="erasure")
    )

    listed = await stub(t).ListDecisions(D.ListDecisionsRequest(repository="ops/runbooks"))
    assert [d.name for d in listed.decisions] == [other.name]
    for gone in (doomed, later):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=gone.memory))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND


async def test_a_purged_decision_space_leaves_no_titles_in_the_audit_log(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    original = proto_commit(
        "6" * 40, "Use a thread pool for IO\n\nBlocking reads stalled the loop, so move them.\n"
    )
    revert = proto_commit(
        "7" * 40,
        'Revert "Use a thread pool for IO"\n\nThis reverts commit '
        + "6" * 40
        + ".\nThe pool leaked file handles because workers never closed them.\n",
        minutes=30,
    )
    await ingest(t, [original])
    (reverting,) = (await ingest(t, [revert])).decisions
    await t.lifecycle.PurgeMemories(
        lifecycle_pb2.PurgeMemoriesRequest(space=reverting.space, reason="erasure request")
    )
    # The audit log is append-only and outlives the purge: it must not quote them.
    audit = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(space=reverting.space)
    )
    assert any(e.to_status == types_pb2.MEMORY_STATUS_SUPERSEDED for e in audit.entries)
    assert not [e for e in audit.entries if "thread pool" in str(e)]


async def test_dream_proposes_a_pattern_from_outcomes_held_for_review(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    repo = "ops/platform"
    names: dict[str, str] = {}
    for title, tag, outcome in (
        ("Cache sessions in Redis", "caching", D.DECISION_OUTCOME_MISSED),
        ("Cache rendered pages for a minute", "caching", D.DECISION_OUTCOME_MISSED),
        ("Cache the price list per region", "caching", D.DECISION_OUTCOME_PARTIALLY_MET),
        ("Cache feature flags locally", "caching", D.DECISION_OUTCOME_MET),
        ("Shard the queue by tenant", "queues", D.DECISION_OUTCOME_MISSED),
        ("Retry queue pushes twice", "queues", D.DECISION_OUTCOME_MISSED),
    ):
        d = await stub(t).CreateDecision(
            D.CreateDecisionRequest(
                decision=D.Decision(
                    repository=repo,
                    title=title,
                    rationale=f"{title} to cut load on the primary.",
                    tags=[tag],
                    expectations=["primary CPU below 50 %"],
                )
            )
        )
        await stub(t).RecordDecisionOutcome(
            D.RecordDecisionOutcomeRequest(
                name=d.name, outcome=outcome, summary=f"{title}: primary CPU stayed at 80 %."
            )
        )
        names[title] = d.name
    space = f"decisions/{repo}"

    report = await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(space=space, dry_run=True))
    patterns = [a for a in report.actions if a.action == "pattern"]
    # Three of the four caching decisions went wrong; two queue decisions are too few.
    assert len(patterns) == 1
    (pattern,) = patterns
    assert pattern.detail["feature"] == "tag:caching"
    assert sorted(pattern.detail["decisions"]) == sorted(
        names[n]
        for n in (
            "Cache sessions in Redis",
            "Cache rendered pages for a minute",
            "Cache the price list per region",
        )
    )
    assert len(pattern.memories) == 3
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space=space))
    assert all(m.kind != types_pb2.MEMORY_KIND_PATTERN for m in listed.memories)  # dry run

    applied = await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(space=space))
    (done,) = [a for a in applied.actions if a.action == "pattern"]
    held = await t.lifecycle.GetMemory(
        lifecycle_pb2.GetMemoryRequest(name=done.detail["pattern_memory"])
    )
    # Held for review, never published on its own.
    assert held.status == types_pb2.MEMORY_STATUS_PENDING_CONFIRMATION
    assert held.kind == types_pb2.MEMORY_KIND_PATTERN
    assert "3 of 4 times" in held.content and "Cache sessions in Redis" in held.content
    assert any("held for review" in n for n in held.validation_notes)
    # Dreaming again proposes nothing new: the same pattern is already held.
    again = await t.lifecycle.Dream(lifecycle_pb2.DreamRequest(space=space))
    assert not [a for a in again.actions if a.action == "pattern"]
    # Another tenant's Dream over the same space name sees none of it.
    other = await make_tenant()
    theirs = await other.lifecycle.Dream(lifecycle_pb2.DreamRequest(space=space, dry_run=True))
    assert not theirs.actions


async def test_missing_fields_and_limits_refuse_only_their_commit(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    hunk = D.DiffHunk(new_lines=D.LineRange(start_line=1, end_line=1))
    too_many_hunks = D.FileChange(
        path="a.py", change_type=D.FILE_CHANGE_TYPE_MODIFIED, hunks=[hunk] * 201
    )
    too_many_files = [
        D.FileChange(path=f"f{i}.py", change_type=D.FILE_CHANGE_TYPE_MODIFIED) for i in range(1001)
    ]
    commits = [
        proto_commit("", "No sha because it was lost\n"),
        proto_commit("1" * 40, ""),
        proto_commit("2" * 40, "Split a.py because it grew\n", files=[too_many_hunks]),
        proto_commit("3" * 40, "Touch everything because of a rename\n", files=too_many_files),
        proto_commit("4" * 40, "Cap retries at three because the API throttles\n", minutes=5),
    ]
    response = await ingest(t, commits)
    by_index = {c.index: c for c in response.commits}
    expected = {
        0: "commits[0].sha",
        1: "commits[1].message",
        2: "commits[2].files[0].hunks",
        3: "commits[3].files",
    }
    for index, field in expected.items():
        assert by_index[index].disposition == D.COMMIT_DISPOSITION_INVALID
        assert field in [v.field for v in by_index[index].violations]
    assert by_index[4].disposition == D.COMMIT_DISPOSITION_DECISION
    assert response.invalid_commits == 4 and response.created_decisions == 1
    # Nothing of a refused commit was kept: sending the good one again is a no-op,
    # sending a refused one fixed is new.
    fixed = proto_commit("2" * 40, "Split a.py because it grew\n", files=[])
    again = await ingest(t, [commits[4], fixed])
    assert [c.disposition for c in again.commits] == [
        D.COMMIT_DISPOSITION_ALREADY_INGESTED,
        D.COMMIT_DISPOSITION_DECISION,
    ]


TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


async def test_secrets_in_messages_paths_and_symbols_never_reach_a_decision(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    message = (
        "Cache the parser results because re-reading the grammar was slow.\n\n"
        f"Use the token {TOKEN} for CI.\n"
    )
    commit = proto_commit(
        "5" * 40,
        message,
        files=[
            file_change(f"keys/{TOKEN}/x.py", (1, 3)),
            file_change("svc/parser.py", (10, 12), f'def load(token="{TOKEN}"):'),
            file_change("docs/alice@example.com/notes.md", (1, 1)),
        ],
    )
    response = await ingest(t, [commit])
    found = {(f.field, f.action) for f in response.privacy_findings}
    assert {
        ("commits[0].message", "dropped"),
        ("commits[0].files[0].path", "dropped"),
        ("commits[0].files[1].hunks[0].section", "dropped"),
        ("commits[0].files[2].path", "redacted"),
    } <= found
    (d,) = response.decisions
    assert "re-reading the grammar was slow" in d.rationale
    assert {(a.path, a.symbol) for a in d.anchors} == {
        ("svc/parser.py", ""),
        ("docs/[EMAIL]/notes.md", ""),
    }
    memory = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=d.memory))
    assert "docs/[EMAIL]/notes.md" in memory.content
    for text in (str(response), str(memory)):
        assert TOKEN not in text and "alice@example.com" not in text

    # A repository name carrying a credential: its decisions' memories are screened
    # in full by the lifecycle, which refuses them; nothing is stored.
    leaky = await ingest(
        t, [proto_commit("6" * 40, EXECUTOR)], repository="acme/AKIAIOSFODNN7EXAMPLE"
    )
    assert leaky.created_decisions == 0 and not leaky.decisions
    assert "privacy" in leaky.commits[0].reason


async def test_a_memory_the_ingest_screen_did_not_clear_is_screened_by_the_lifecycle(
    make_tenant: MakeTenant,
) -> None:
    """The space lets emails through: the commit keeps its author's address, so
    the memory's own check does not clear it and the lifecycle screens it (with
    the space's policy) beside a cleared one of the same batch."""
    t = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(
                name=f"spaces/decisions/{REPO}/policy", allowed_personal_data=["email"]
            )
        )
    )
    with_email = (
        "Page the owner on quota alerts because nobody watched the dashboard.\n\n"
        "Closes #7, reported by carol@example.com\n"
    )
    response = await ingest(
        t,
        [
            proto_commit("7" * 40, with_email, files=[file_change("ops/alert.py", (3, 4))]),
            proto_commit("8" * 40, EXECUTOR, minutes=1),
        ],
    )
    assert response.created_decisions == 2
    memories = [
        await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=d.memory))
        for d in response.decisions
    ]
    assert "carol@example.com" in memories[0].content
    assert "thread-safe" in memories[1].content
