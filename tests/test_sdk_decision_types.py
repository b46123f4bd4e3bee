"""The SDK's decision calls return the dataclasses of `engram.decision_types`,
converted from what a real server sends, sync and async; the dataclasses that are
inputs too (evidence, alternatives, anchors, line ranges) are accepted; and
`engram.to_dict` makes every result JSON-ready."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC
from typing import Any

import engram
import pytest
from engram.v1 import decisions_pb2

from tests.conftest import MakeTenant, RunningServer
from tests.test_decisions import EXECUTOR, REPO, file_change, indexed, proto_commit


def _json(value: Any) -> dict[str, Any]:
    data = engram.to_dict(value)
    assert "raw" not in data
    json.dumps(data)
    return data  # type: ignore[no-any-return]


def _mine(address: str, key: str) -> engram.Decision:
    commit = proto_commit("b" * 40, EXECUTOR, files=[file_change("svc/rerank.py", (40, 52))])
    with engram.Client(address, key) as client:
        first = client.ingest_commits(REPO, [commit])
        assert isinstance(first, engram.IngestResult)
        assert (first.processed_commits, first.created_decisions) == (1, 1)
        (ingested,) = first.commits
        assert isinstance(ingested, engram.IngestedCommit) and ingested.index == 0
        assert ingested.disposition is engram.CommitDisposition.DECISION
        (decision,) = first.decisions
        assert isinstance(decision, engram.Decision) and ingested.decision == decision.name
        assert decision.status is engram.MemoryStatus.ACTIVE and decision.commits == ("b" * 40,)
        assert decision.outcome is engram.DecisionOutcome.UNSPECIFIED
        assert all(isinstance(e, engram.DecisionEvidence) for e in decision.evidence)
        anchor = next(a for a in decision.anchors if a.path == "svc/rerank.py")
        assert isinstance(anchor, engram.CodeAnchor)
        assert anchor.lines == engram.LineRange(start_line=40, end_line=52)
        assert decision.decision_time is not None and decision.decision_time.tzinfo == UTC
        assert isinstance(decision.raw, decisions_pb2.Decision)
        data = _json(first)
        assert data["commits"][0]["disposition"] == "DECISION"
        assert data["decisions"][0]["status"] == "ACTIVE"

        again = client.ingest_commits(REPO, [commit])
        assert [c.disposition for c in again.commits] == [engram.CommitDisposition.ALREADY_INGESTED]
        assert client.get_decision(decision.name) == decision
        return decision


def _read(address: str, key: str, mined: engram.Decision) -> None:
    with engram.Client(address, key) as client:
        why = client.explain_code(
            REPO, "svc/rerank.py", lines=engram.LineRange(start_line=44, end_line=45)
        )
        assert isinstance(why, engram.ExplainResult) and len(why) >= 1
        top = next(iter(why))
        assert isinstance(top, engram.CodeExplanation) and top.decision == mined
        assert top.match is engram.AnchorMatch.LINES and top.replacement is None
        assert all(isinstance(a, engram.CodeAnchor) for a in top.matched_anchors)
        assert str(why) == why.context and mined.title in why.context
        assert _json(why)["explanations"][0]["match"] == "LINES"

        found = client.search_decisions("why a single-worker executor?", repository=REPO)
        assert isinstance(found, engram.DecisionSearchResult)
        assert [h.decision.name for h in found][:1] == [mined.name]
        assert isinstance(found.hits[0], engram.DecisionHit) and found.hits[0].score > 0

        stated = client.create_decision(
            "ops/runbooks",
            "Move nightly backups to 02:00",
            "Backups at midnight collided with the billing batch.",
            alternatives=[
                engram.DecisionAlternative(description="Throttle billing", reason_rejected="slow"),
                "Skip backups",
            ],
            anchors=[
                engram.CodeAnchor(
                    path="cron.yaml", lines=engram.LineRange(start_line=3, end_line=5)
                )
            ],
            evidence=[engram.DecisionEvidence(quote="collided twice")],
            sources=["The backups collided twice with billing last week."],
            expectations=["no overlap for a month"],
        )
        assert isinstance(stated, engram.Decision) and stated.origin == "statement"
        assert stated.alternatives == (
            engram.DecisionAlternative(description="Throttle billing", reason_rejected="slow"),
            engram.DecisionAlternative(description="Skip backups"),
        )
        assert [(a.path, a.lines) for a in stated.anchors] == [
            ("cron.yaml", engram.LineRange(start_line=3, end_line=5))
        ]
        assert stated.evidence[0].quote == "collided twice"
        assert stated.expectations == ("no overlap for a month",)

        updated = client.record_decision_outcome(
            stated.name,
            engram.DecisionOutcome.MISSED,
            "Billing moved to 02:00 too.",
            evidence=[engram.DecisionEvidence(quote="2 overlaps in March")],
            sources=["Scheduler report: 2 overlaps in March."],
        )
        assert updated.outcome is engram.DecisionOutcome.MISSED
        (record,) = updated.outcome_history
        assert isinstance(record, engram.DecisionOutcomeRecord)
        assert record.outcome is engram.DecisionOutcome.MISSED and record.record_time is not None
        assert [e.quote for e in record.evidence] == ["2 overlaps in March"]
        assert _json(updated)["outcome_history"][0]["outcome"] == "MISSED"
        missed = list(client.list_decisions(outcomes=[engram.DecisionOutcome.MISSED]))
        assert missed == [updated]

        with pytest.raises(engram.InvalidArgument) as caught:
            client.create_decision("r", "t", "why", anchors=[{"path": "x"}])
        assert caught.value.fields == ["decision.anchors[0]"]


async def test_sync_decision_calls_return_decision_dataclasses(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    t = await make_tenant()
    mined = await asyncio.to_thread(_mine, t.address, t.secret)
    await indexed(server, t)
    await asyncio.to_thread(_read, t.address, t.secret, mined)


async def test_async_decision_calls_return_decision_dataclasses(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    async with engram.AsyncClient(t.address, t.secret) as client:
        for role, content in (
            ("user", "The deploy keeps timing out on the migration step."),
            (
                "assistant",
                "We decided to run migrations before the rollout because they take 9 minutes.",
            ),
        ):
            await client.append_message("team/chat", "s1", content, role=role)
        mined = await client.ingest_session("team/chat", "s1", REPO)
        assert isinstance(mined, engram.SessionIngestResult)
        assert (mined.created_decisions, mined.messages) == (1, 2)
        (decision,) = mined.decisions
        assert isinstance(decision, engram.Decision) and decision.origin == "session"
        assert "9 minutes" in decision.evidence[0].quote
        assert await client.get_decision(decision.name) == decision
        listed = [d async for d in client.list_decisions(repository=REPO)]
        assert listed == [decision]
        why = await client.explain_code(REPO, "deploy.sh")
        assert isinstance(why, engram.ExplainResult)


@pytest.mark.parametrize("module", ["decision_types", "pool_types", "evidence_types"])
def test_every_type_of_an_area_module_is_exported_from_engram(module: str) -> None:
    import dataclasses
    import importlib
    import inspect

    types = importlib.import_module(f"engram.{module}")
    defined = {
        name
        for name, value in vars(types).items()
        if inspect.isclass(value) and value.__module__ == types.__name__ and name[0] != "_"
    }
    assert set(types.__all__) == defined
    for name in types.__all__:
        value = getattr(types, name)
        assert getattr(engram, name) is value and name in engram.__all__, name
        if dataclasses.is_dataclass(value):
            assert value.__dataclass_params__.frozen, name  # type: ignore[attr-defined]


def test_commit_types_mirror_their_messages() -> None:
    """Every field of engram.v1.Commit, FileChange and DiffHunk has its dataclass field
    (a new proto field fails here until the SDK can send it)."""
    import dataclasses

    for cls, message in (
        (engram.Commit, decisions_pb2.Commit),
        (engram.FileChange, decisions_pb2.FileChange),
        (engram.DiffHunk, decisions_pb2.DiffHunk),
        (engram.LineRange, decisions_pb2.LineRange),
    ):
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields == {f.name for f in message.DESCRIPTOR.fields}, cls.__name__
