"""Bad input: INVALID_ARGUMENT naming the field, and nothing written."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2

from tests.lifecycle_helpers import count_rows, field_violations, proposal


def _with_struct(
    p: lifecycle_pb2.MemoryProposal, data: dict[str, Any]
) -> lifecycle_pb2.MemoryProposal:
    p.structured_content.update(data)
    return p


BAD_PROPOSALS = [
    ("empty content", proposal("s", ""), "proposal.content"),
    ("blank content", proposal("s", " \n\t "), "proposal.content"),
    ("confidence above 1", proposal("s", "x", confidence=1.5), "proposal.confidence"),
    ("confidence below 0", proposal("s", "x", confidence=-0.1), "proposal.confidence"),
    ("confidence NaN", proposal("s", "x", confidence=float("nan")), "proposal.confidence"),
    ("importance above 1", proposal("s", "x", importance=2.0), "proposal.importance"),
    ("oversize content", proposal("s", "x" * (64 * 1024 + 1)), "proposal.content"),
    ("missing space", proposal("", "x"), "proposal.space"),
    ("bad space", proposal("a//b", "x"), "proposal.space"),
    ("unknown kind", proposal("s", "x", kind=99), "proposal.kind"),
    ("unknown evidence level", proposal("s", "x", evidence_level=42), "proposal.evidence_level"),
    (
        "malformed JSON content",
        _with_struct(proposal("s", "x"), {"n": float("nan")}),
        "proposal.structured_content",
    ),
    ("bad slot key", proposal("s", "x", slot_key="no-separator"), "proposal.slot_key"),
    ("bad dependency name", proposal("s", "x", depends_on=["notes/1"]), "proposal.depends_on[0]"),
    ("comma in tag", proposal("s", "x", tags=["a,b"]), "proposal.tags[0]"),
]


@pytest.mark.parametrize(
    ("label", "bad", "field"), BAD_PROPOSALS, ids=[b[0] for b in BAD_PROPOSALS]
)
async def test_bad_proposal_names_the_field(
    make_tenant: Any, raw_pg: Any, label: str, bad: lifecycle_pb2.MemoryProposal, field: str
) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=bad))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field in field_violations(err.value)
    for table in ("memories", "audit_log", "outbox", "idempotency"):
        assert await count_rows(raw_pg, table, t.tenant_id) == 0


async def test_all_bad_fields_are_reported_at_once(make_tenant: Any) -> None:
    t = await make_tenant()
    bad = proposal("", "", confidence=3.0)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=bad))
    assert {"proposal.space", "proposal.content", "proposal.confidence"} <= set(
        field_violations(err.value)
    )


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (lifecycle_pb2.ListMemoriesRequest(page_token="not-a-token"), "page_token"),
        (lifecycle_pb2.ListMemoriesRequest(page_size=5000), "page_size"),
        (lifecycle_pb2.ListMemoriesRequest(statuses=[77]), "statuses[0]"),
        (lifecycle_pb2.ListMemoriesRequest(order_by=9), "order_by"),
        (lifecycle_pb2.ListMemoriesRequest(space="bad space"), "space"),
    ],
)
async def test_bad_list_requests(make_tenant: Any, request_: Any, field: str) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ListMemories(request_)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == [field]


async def test_page_token_is_bound_to_its_filters(make_tenant: Any) -> None:
    t = await make_tenant()
    await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("p", f"item {i}") for i in range(5)]
        )
    )
    first = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(space="p", page_size=2)
    )
    assert first.next_page_token
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ListMemories(
            lifecycle_pb2.ListMemoriesRequest(
                space="other", page_size=2, page_token=first.next_page_token
            )
        )
    assert field_violations(err.value) == ["page_token"]


async def test_bad_names(make_tenant: Any) -> None:
    t = await make_tenant()
    for name in ("", "memories/", "memories/not-a-uuid", "spaces/x"):
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=name))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field_violations(err.value) == ["name"]


async def test_bad_policy(make_tenant: Any) -> None:
    t = await make_tenant()
    policy = lifecycle_pb2.Policy(
        name="spaces/x/policy",
        min_confidence=2,
        required_fields=["nonsense"],
        webhooks=[lifecycle_pb2.WebhookValidator(name="w", url="ftp://x", timeout_ms=10)],
    )
    policy.json_schema.update({"type": "no-such-type"})
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    assert set(field_violations(err.value)) == {
        "policy.json_schema",
        "policy.min_confidence",
        "policy.required_fields[0]",
        "policy.webhooks[0].url",
    }
