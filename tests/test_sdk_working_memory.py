"""The Python SDK's working-memory, Engage, Reflect, Learn, Consolidate and Dream
methods: request building offline, then `engram.Client` / `engram.AsyncClient`
against the real server (real PostgreSQL and Redis)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import engram
import pytest
from engram import _convert, _requests
from engram import types as t
from engram.v1 import lifecycle_pb2, recall_pb2, types_pb2

from tests.conftest import MakeTenant, RunningServer

SPACE = "sdk/wm"


# -- offline ------------------------------------------------------------------------


def test_context_format_mirrors_the_proto_enum() -> None:
    assert {m.value for m in t.ContextFormat} == {
        k.removeprefix("CONTEXT_FORMAT_") for k in recall_pb2.ContextFormat.keys()
    }


def test_engage_request_is_built_from_keywords() -> None:
    when = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    request = _requests.engage(
        SPACE,
        "s",
        "hello",
        role="user",
        time=when,
        metadata={"channel": "slack"},
        recall_spaces=["kb"],
        include_subspaces=True,
        kinds=["SEMANTIC", t.MemoryKind.DECISION],
        tags=["ops"],
        k=5,
        min_score=0.1,
        token_budget=800,
        format="XML",
        group_by_kind=False,
        include_citations=True,
        include_evidence_badges=True,
        resend=True,
        read_your_writes=True,
        rid=None,
    )
    assert request.message.time.ToDatetime(tzinfo=UTC) == when
    assert request.message.metadata == {"channel": "slack"}
    assert list(request.filter.kinds) == [
        types_pb2.MEMORY_KIND_SEMANTIC,
        types_pb2.MEMORY_KIND_DECISION,
    ]
    assert request.options.format == recall_pb2.CONTEXT_FORMAT_XML
    assert request.options.token_budget == 800
    assert request.consistency == recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
    assert request.resend and request.include_subspaces
    # A write always carries a request id, so retrying UNAVAILABLE is safe.
    assert request.request_id
    with pytest.raises(engram.InvalidArgument):
        _requests.engage(
            SPACE, "s", "x", role="user", time=None, metadata=None, recall_spaces=(),
            include_subspaces=False, kinds=(), tags=(), k=0, min_score=0, token_budget=0,
            format="HTML", group_by_kind=True, include_citations=True,
            include_evidence_badges=False, resend=False, read_your_writes=False, rid=None,
        )  # fmt: skip


def test_learn_turns_accept_tuples_mappings_and_dataclasses() -> None:
    request = _requests.learn(
        SPACE,
        [
            ("user", "I prefer tea"),
            {"role": "assistant", "content": "Noted"},
            t.ConversationTurn(role="user", content="Thanks", time=datetime(2026, 1, 1)),
        ],
        "s",
        False,
        "fixed-id",
    )
    assert [(x.role, x.content) for x in request.turns] == [
        ("user", "I prefer tea"),
        ("assistant", "Noted"),
        ("user", "Thanks"),
    ]
    assert request.turns[2].HasField("time") and request.request_id == "fixed-id"


def test_results_carry_privacy_findings() -> None:
    finding = lifecycle_pb2.PrivacyFinding(
        category="personal_data", type="email", action="redacted", field="proposal.content"
    )
    result = _convert.proposal_result_out(
        lifecycle_pb2.ProposalResult(
            outcome=lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED, privacy_findings=[finding]
        )
    )
    assert result.privacy_findings == (
        t.PrivacyFinding(
            category="personal_data", type="email", action="redacted", field="proposal.content"
        ),
    )
    dropped = _convert.append_out(
        lifecycle_pb2.AppendMessageResponse(buffered_messages=2, privacy_findings=[finding])
    )
    assert dropped.message is None and not dropped.buffered
    assert dropped.buffered_messages == 2


# -- against the server --------------------------------------------------------------


async def test_async_client_working_memory_and_engage(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        await client.batch_propose(
            [
                {"space": SPACE, "content": "Dana prefers oat milk in her coffee"},
                {"space": SPACE, "content": "The quarterly review is on the 14th"},
            ]
        )
        first = await client.append_message(SPACE, "s1", "Morning!", metadata={"via": "sdk"})
        assert first.message is not None and first.message.index == 0
        assert first.message.metadata == {"via": "sdk"}
        assert first.buffered_messages == 1

        engaged = await client.engage(
            SPACE, "s1", "What milk does Dana take?", k=2, read_your_writes=True
        )
        assert isinstance(engaged, t.EngageResult)
        assert engaged.hits and engaged.hits[0].memory.content.startswith("Dana prefers")
        assert "oat milk" in engaged.context
        assert engaged.cited_memories[0] == engaged.hits[0].memory.name
        assert engaged.buffered_messages == 2
        repeat = await client.engage(SPACE, "s1", "Dana's milk again?", k=2)
        assert engaged.hits[0].memory.name not in {h.memory.name for h in repeat.hits}
        assert repeat.suppressed_count >= 1

        window = await client.get_session_window(SPACE, "s1")
        assert [m.content for m in window.messages] == [
            "Morning!",
            "What milk does Dana take?",
            "Dana's milk again?",
        ]
        assert window.token_count == sum(m.token_count for m in window.messages)
        assert (await client.get_session_window(SPACE, "s1", last_n=1)).messages[0].index == 2

        sessions = await client.list_sessions(SPACE)
        assert [s.session for s in sessions] == ["s1"]
        assert sessions[0].message_count == 3 and sessions[0].last_activity is not None

        reflected = await client.reflect(
            SPACE,
            "s1",
            "Dana takes oat milk; I will remember it.",
            captures=[
                t.MemoryProposal(space=SPACE, content="Send the review notes to dana@example.com")
            ],
        )
        assert reflected.results[0].accepted
        assert reflected.results[0].privacy_findings[0].type == "email"
        assert reflected.results[0].memory is not None
        assert "dana@example.com" not in reflected.results[0].memory.content

        with pytest.raises(engram.InvalidArgument) as info:
            await client.append_message(SPACE, "s1", "x", role="robot")
        assert "message.role" in {v.field for v in info.value.field_violations}

        assert await client.clear_session(SPACE, "s1") == 4
        assert (await client.get_session_window(SPACE, "s1")).messages == ()


async def test_sync_client_learn_consolidate_dream(
    server: RunningServer, make_tenant: MakeTenant
) -> None:
    tenant = await make_tenant()

    def scenario() -> None:
        with engram.Client(server.address, tenant.secret) as client:
            appended = client.append_message(SPACE, "c1", "I prefer tea over coffee.")
            assert appended.message is not None and appended.message.token_count > 0
            client.append_message(
                SPACE, "c1", "Understood, tea it is.", role="assistant", request_id="a-2"
            )
            again = client.append_message(
                SPACE, "c1", "Understood, tea it is.", role="assistant", request_id="a-2"
            )
            assert again.buffered_messages == 2

            learned = client.learn(
                SPACE,
                [("user", "I prefer tea over coffee."), ("assistant", "Noted.")],
                session="c1",
            )
            assert isinstance(learned, t.LearnResult)
            assert all(isinstance(r, t.ProposalResult) for r in learned.results)

            consolidated = client.consolidate(SPACE, "c1", request_id="cons-1")
            assert consolidated.summary is not None
            assert client.get_session_window(SPACE, "c1").consolidated

            report = client.dream(SPACE)
            assert isinstance(report, t.DreamResult) and not report.applied

    await asyncio.to_thread(scenario)
