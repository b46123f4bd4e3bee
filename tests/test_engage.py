"""Engage (buffer + recall in one round trip, deduplicated per session) and Reflect
(buffer the reply, propose captures through the governed write path)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2
from engram_server.recall.tokens import count_tokens
from engram_server.services.engage import line_cached_counter

from tests.conftest import MakeTenant
from tests.lifecycle_helpers import proposal
from tests.test_working_memory import violations

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
SPACE = "kb"
FACTS = [
    "Alice prefers Go for backend services",
    "The deploy pipeline runs on Fridays after the standup",
    "Bob is allergic to peanuts",
    "The staging database lives in eu-west-1",
    "Carol leads the payments team",
]
# An AWS-shaped key pair (not a real one): credentials the boundary must drop.
AWS_LINE = "aws_secret_access_key = Zx8vQ2mN7pL4kR9tW3yH6jB1cF5dG0sA2eU8iO4q"
AWS_KEY_ID = "AKIA4QWERTZUI7Y2XPLM"


async def _load(t: Any, facts: list[str]) -> dict[str, str]:
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(proposals=[proposal(SPACE, f) for f in facts])
    )
    return {r.memory.content: r.memory.name for r in response.results}


def _engage(content: str, session: str = "s1", **kw: Any) -> recall_pb2.EngageRequest:
    return recall_pb2.EngageRequest(
        space=SPACE,
        session=session,
        message=lifecycle_pb2.SessionMessage(role="user", content=content),
        k=kw.pop("k", 3),
        consistency=RYW,
        **kw,
    )


async def _window(t: Any, session: str) -> list[str]:
    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session=session)
    )
    return [m.content for m in window.messages]


async def test_engage_buffers_and_recalls_once_per_session(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    names = await _load(t, FACTS)
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    peanuts = names["Bob is allergic to peanuts"]

    first = await recall.Engage(_engage("Can Bob eat the peanuts satay?"))
    assert first.message.index == 0 and first.message.role == "user"
    assert first.message.token_count > 0
    assert first.buffered_messages == 1
    assert first.buffered_tokens == first.message.token_count
    assert first.hits[0].memory.name == peanuts
    assert "Bob is allergic to peanuts" in first.context
    assert list(first.cited_memories) == [h.memory.name for h in first.hits]
    assert first.token_count > 0
    assert first.suppressed_count == 0

    # The next turn of the same session is not sent the same memories again.
    second = await recall.Engage(_engage("Is Bob allergic to peanuts?"))
    sent_before = set(first.cited_memories)
    assert second.suppressed_count >= 1
    assert peanuts not in {h.memory.name for h in second.hits}
    assert not sent_before & set(second.cited_memories)
    assert "Bob is allergic to peanuts" not in second.context
    assert second.buffered_messages == 2

    # Unless asked to.
    again = await recall.Engage(_engage("Peanuts and Bob, once more?", resend=True))
    assert again.hits[0].memory.name == peanuts
    assert again.suppressed_count == 0

    # Another session starts fresh.
    other = await recall.Engage(_engage("Can Bob eat peanuts?", session="s2"))
    assert other.hits[0].memory.name == peanuts

    assert await _window(t, "s1") == [
        "Can Bob eat the peanuts satay?",
        "Is Bob allergic to peanuts?",
        "Peanuts and Bob, once more?",
    ]

    # Clearing the session also forgets what it was sent.
    await t.lifecycle.ClearSession(lifecycle_pb2.ClearSessionRequest(space=SPACE, session="s1"))
    fresh = await recall.Engage(_engage("Bob and peanuts?"))
    assert fresh.hits[0].memory.name == peanuts
    assert fresh.message.index == 0


async def test_engage_retry_neither_buffers_twice_nor_changes_sent(
    make_tenant: MakeTenant,
) -> None:
    t = await make_tenant()
    names = await _load(t, FACTS)
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    request = _engage("Where does the staging database live?", request_id="turn-1")
    first = await recall.Engage(request)
    retry = await recall.Engage(request)
    assert retry.message == first.message
    assert retry.buffered_messages == 1
    # The retry answers like the first attempt: its memories count as not sent yet.
    assert list(retry.cited_memories) == list(first.cited_memories)
    assert retry.suppressed_count == first.suppressed_count == 0
    assert names["The staging database lives in eu-west-1"] in first.cited_memories
    assert await _window(t, "s1") == ["Where does the staging database live?"]
    # A new turn (new request id) is deduplicated against the first.
    later = await recall.Engage(
        _engage("Where does the staging database live?", request_id="turn-2")
    )
    assert later.suppressed_count >= 1
    assert not set(first.cited_memories) & set(later.cited_memories)


async def test_engage_is_tenant_isolated(make_tenant: MakeTenant) -> None:
    a = await make_tenant()
    b = await make_tenant()
    await _load(a, FACTS)
    b_recall = recall_pb2_grpc.RecallServiceStub(b.channel)
    answer = await b_recall.Engage(_engage("Is Bob allergic to peanuts?"))
    assert list(answer.hits) == [] and answer.context == ""
    assert answer.buffered_messages == 1
    assert await _window(a, "s1") == []


@pytest.mark.parametrize(
    ("request_kwargs", "field"),
    [
        ({"space": "", "session": "s", "message": {"role": "user", "content": "x"}}, "space"),
        ({"space": SPACE, "session": "", "message": {"role": "user", "content": "x"}}, "session"),
        ({"space": SPACE, "session": "s"}, "message"),
        ({"space": SPACE, "session": "s", "message": {"role": "user", "content": " "}},
         "message.content"),
        ({"space": SPACE, "session": "s", "message": {"role": "who", "content": "x"}},
         "message.role"),
        ({"space": SPACE, "session": "s", "message": {"role": "user", "content": "x"}, "k": 101},
         "k"),
        ({"space": SPACE, "session": "s", "message": {"role": "user", "content": "x"},
          "recall_spaces": ["bad space"]}, "recall_spaces[0]"),
        ({"space": SPACE, "session": "s", "message": {"role": "user", "content": "x"},
          "options": {"token_budget": 500_000}}, "options.token_budget"),
        ({"space": SPACE, "session": "s", "message": {"role": "user", "content": "x"},
          "filter": {"kinds": [99]}}, "filter.kinds[0]"),
    ],
)  # fmt: skip
async def test_bad_engage_names_the_field_and_buffers_nothing(
    make_tenant: MakeTenant, request_kwargs: dict[str, Any], field: str
) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await recall.Engage(recall_pb2.EngageRequest(**request_kwargs))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field in violations(info.value)
    assert await _window(t, "s") == []


async def test_engage_needs_write_scope(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    reader = recall_pb2_grpc.RecallServiceStub(t.channel_for(await t.new_key(scopes=["read"])))
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await reader.Engage(_engage("hello"))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED


# -- privacy on every buffered message ------------------------------------------------


async def test_append_and_engage_redact_personal_data(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    appended = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE,
            session="p",
            message=lifecycle_pb2.SessionMessage(
                role="user", content="Mail me at jane.doe@example.com about the offsite."
            ),
        )
    )
    assert "jane.doe@example.com" not in appended.message.content
    assert "offsite" in appended.message.content
    finding = appended.privacy_findings[0]
    assert (finding.category, finding.action, finding.field) == (
        "personal_data",
        "redacted",
        "message.content",
    )
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    engaged = await recall.Engage(_engage("Call me on jane.doe@example.com please", session="p"))
    assert engaged.privacy_findings and "jane.doe@example.com" not in engaged.message.content
    for content in await _window(t, "p"):
        assert "jane.doe@example.com" not in content


async def test_credentials_never_reach_the_buffer(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    # A message that is only a credential: OK, nothing buffered, the finding says why.
    dropped = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE,
            session="c",
            message=lifecycle_pb2.SessionMessage(role="user", content=AWS_LINE),
        )
    )
    assert not dropped.HasField("message")
    assert dropped.buffered_messages == 0
    assert next((f.category, f.action) for f in dropped.privacy_findings) == (
        "credential",
        "dropped",
    )
    assert AWS_LINE not in str(dropped)
    # A credential line inside a longer message: that line goes, the rest is kept.
    mixed = await t.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space=SPACE,
            session="c",
            message=lifecycle_pb2.SessionMessage(
                role="user",
                content=f"Here is the access key id {AWS_KEY_ID} for the bucket.\n"
                "Please deploy the billing service tomorrow.",
            ),
        )
    )
    assert mixed.HasField("message")
    assert AWS_KEY_ID not in mixed.message.content
    assert "deploy the billing service" in mixed.message.content
    assert any(f.category == "credential" for f in mixed.privacy_findings)

    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    engaged = await recall.Engage(_engage(AWS_LINE, session="c"))
    assert not engaged.HasField("message")
    assert engaged.context == "" and list(engaged.hits) == []
    assert engaged.buffered_messages == 1
    assert any(f.category == "credential" for f in engaged.privacy_findings)
    for content in await _window(t, "c"):
        assert AWS_KEY_ID not in content and "Zx8vQ2mN7pL4" not in content


# -- Reflect ------------------------------------------------------------------------


async def test_reflect_buffers_reply_and_proposes_captures(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    request = lifecycle_pb2.ReflectRequest(
        space=SPACE,
        session="r",
        response="Got it, I will book the Lisbon office for the offsite.",
        captures=[
            lifecycle_pb2.MemoryProposal(
                content="The team offsite is in the Lisbon office",
                kind=types_pb2.MEMORY_KIND_SEMANTIC,
                confidence=0.9,
            ),
            lifecycle_pb2.MemoryProposal(
                space="kb/decisions",
                content="Offsites are booked by the assistant",
                kind=types_pb2.MEMORY_KIND_DECISION,
                confidence=0.9,
            ),
        ],
        request_id="reflect-1",
    )
    reply = await t.lifecycle.Reflect(request)
    assert [r.outcome for r in reply.results] == [lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED] * 2
    stored = reply.results[0].memory
    # Captures default to the session they came from.
    assert (stored.space, stored.session) == (SPACE, "r")
    assert reply.results[1].memory.space == "kb/decisions"
    window = await t.lifecycle.GetSessionWindow(
        lifecycle_pb2.GetSessionWindowRequest(space=SPACE, session="r")
    )
    assert [(m.role, m.content) for m in window.messages] == [
        ("assistant", "Got it, I will book the Lisbon office for the offsite.")
    ]
    # Audited like any proposal.
    got = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=stored.name))
    assert got.content == "The team offsite is in the Lisbon office"

    # A retry returns the first results and buffers nothing new.
    retry = await t.lifecycle.Reflect(request)
    assert [r.memory.name for r in retry.results] == [r.memory.name for r in reply.results]
    assert len(await _window(t, "r")) == 1
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(page_size=50))
    assert len(listed.memories) == 2


async def test_reflect_validates_before_writing(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.Reflect(
            lifecycle_pb2.ReflectRequest(
                space=SPACE,
                session="r",
                response="A reply that must not be buffered.",
                captures=[lifecycle_pb2.MemoryProposal(content=" ", confidence=0.9)],
            )
        )
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "captures[0].content" in violations(info.value)
    assert await _window(t, "r") == []
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await t.lifecycle.Reflect(lifecycle_pb2.ReflectRequest(space=SPACE, session="r"))
    assert "response" in violations(info.value)


async def test_reflect_screens_reply_and_captures(make_tenant: MakeTenant) -> None:
    t = await make_tenant()
    reply = await t.lifecycle.Reflect(
        lifecycle_pb2.ReflectRequest(
            space=SPACE,
            session="r",
            response=f"Use {AWS_LINE}\nI stored the key for you. Write to ops@example.com.",
            captures=[
                lifecycle_pb2.MemoryProposal(
                    content=f"The deploy key is {AWS_LINE}", confidence=0.9
                ),
            ],
        )
    )
    fields = {(f.field, f.category) for f in reply.privacy_findings}
    assert ("response", "credential") in fields
    assert ("response", "personal_data") in fields
    assert reply.results[0].outcome != lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    for content in await _window(t, "r"):
        assert "Zx8vQ2mN7pL4" not in content and "ops@example.com" not in content
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(page_size=50))
    assert all("Zx8vQ2mN7pL4" not in m.content for m in listed.memories)


@pytest.mark.parametrize(
    "text",
    [
        "## Facts\n- Bob is allergic to peanuts (memories/1)\n- Carol leads payments",
        '<memories>\n<memory id="m">Ünïcödé café — 東京 costs €5 [official]</memory>\n</memories>',
        "Facts:\n\n* a\tb  c\n* x@y.z; https://a.b/c?d=e\n",
        '[{"memory": "memories/1", "content": "one line of JSON"}]',
    ],
)
def test_line_cached_counter_is_exact(text: str) -> None:
    count = line_cached_counter()
    assert count(text) == count_tokens(text)
    assert count(text) == count_tokens(text)  # from the cache
