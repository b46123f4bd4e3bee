"""Issue 22 §5 and §6: values that used to be accepted (recall scope, space names,
watch cursors) are INVALID_ARGUMENT, and read-your-writes is never silently stale."""

from __future__ import annotations

import dataclasses
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, lifecycle_pb2_grpc, recall_pb2, recall_pb2_grpc
from engram.v1.types_pb2 import EVIDENCE_LEVEL_OFFICIAL

from tests.lifecycle_helpers import field_violations, proposal, propose

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES


async def _invalid(call: Any, field: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert field in field_violations(err.value), field_violations(err.value)


async def test_recall_needs_a_scope_and_bounded_values(make_tenant: Any) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    await propose(t.lifecycle, "agents/a", "the launch code is swordfish")
    await _invalid(recall.Recall(recall_pb2.RecallRequest(query="launch code")), "spaces")
    await _invalid(
        recall.Recall(recall_pb2.RecallRequest(query="q", spaces=[f"s{i}" for i in range(65)])),
        "spaces",
    )
    await _invalid(
        recall.Recall(recall_pb2.RecallRequest(query="q", spaces=["s"], min_score=float("nan"))),
        "min_score",
    )
    await _invalid(
        recall.Recall(recall_pb2.RecallRequest(query="q", spaces=["a/../b"])), "spaces[0]"
    )
    # 64 spaces is the limit, not over it.
    ok = await recall.Recall(
        recall_pb2.RecallRequest(query="launch", spaces=[f"s{i}" for i in range(63)] + ["agents/a"])
    )
    assert ok is not None


@pytest.mark.parametrize("space", [".", "..", "a/./b", "a/..", "../etc"])
async def test_dot_segments_are_refused_everywhere(make_tenant: Any, space: str) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    await _invalid(
        t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(proposal=proposal(space, "x"))
        ),
        "proposal.space",
    )
    await _invalid(
        t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space=space)), "space"
    )
    await _invalid(
        t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space=space,
                session="c",
                message=lifecycle_pb2.SessionMessage(role="user", content="hi"),
            )
        ),
        "space",
    )
    await _invalid(
        recall.CreateSnapshot(
            recall_pb2.CreateSnapshotRequest(snapshot=recall_pb2.Snapshot(space=space))
        ),
        "snapshot.space",
    )
    await _invalid(
        t.lifecycle.SetPolicy(
            lifecycle_pb2.SetPolicyRequest(
                policy=lifecycle_pb2.Policy(name=f"spaces/{space}/policy")
            )
        ),
        "policy.name",
    )
    await _invalid(
        t.lifecycle.GetPolicy(lifecycle_pb2.GetPolicyRequest(name=f"spaces/{space}/policy")),
        "name",
    )


@pytest.mark.parametrize(
    "name",
    [
        "spaces/'; DROP TABLE memories; --/policy",
        "spaces/" + "x" * 10_000 + "/policy",
        "spaces/a b/policy",
    ],
)
async def test_policy_names_follow_the_space_rule(make_tenant: Any, name: str) -> None:
    t = await make_tenant()
    await _invalid(
        t.lifecycle.SetPolicy(
            lifecycle_pb2.SetPolicyRequest(policy=lifecycle_pb2.Policy(name=name))
        ),
        "policy.name",
    )


@pytest.mark.parametrize(
    ("cursor", "space", "field"),
    [
        (str(2**63), "", "cursor"),
        ("1" * 40, "", "cursor"),
        ("", "a//b", "space"),
        ("", "..", "space"),
    ],
)
async def test_bad_watch_requests_fail_at_once(
    make_tenant: Any, cursor: str, space: str, field: str
) -> None:
    t = await make_tenant()
    stream = t.lifecycle.WatchTransitions(
        lifecycle_pb2.WatchTransitionsRequest(space=space, cursor=cursor), timeout=60
    )
    # The error is the first thing the stream reports (a hang would hit the 60 s
    # deadline and fail with DEADLINE_EXCEEDED instead).
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stream.read()
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert field in field_violations(err.value)


async def test_read_your_writes_that_runs_out_of_wait_says_so(
    server: Any, make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    worker = server.ctx.recall.worker
    real_apply = worker._apply

    async def index_down_for_t(tenant: str, *args: Any, **kwargs: Any) -> None:
        # Other tenants' batches (pools, neighbour context and all) go through.
        if tenant == t.tenant_id:
            raise RuntimeError("index unreachable")
        await real_apply(tenant, *args, **kwargs)

    monkeypatch.setattr(worker, "_apply", index_down_for_t)
    monkeypatch.setattr(
        server.ctx,
        "settings",
        dataclasses.replace(server.ctx.settings, read_your_writes_wait_ms=200),
    )
    await propose(t.lifecycle, "kb", "the cafeteria serves soup on mondays")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await recall.Recall(
            recall_pb2.RecallRequest(query="soup", spaces=["kb"], consistency=RYW), timeout=30
        )
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert "read-your-writes" in (err.value.details() or "")
    assert "not yet searchable" in (err.value.details() or "")
    # Eventual consistency still answers (possibly without the fresh memory).
    await recall.Recall(recall_pb2.RecallRequest(query="soup", spaces=["kb"]))


async def test_official_evidence_without_the_scope_is_permission_denied(make_tenant: Any) -> None:
    t = await make_tenant()
    writer = lifecycle_pb2_grpc.LifecycleServiceStub(t.channel_for(await t.new_key(["write"])))
    official = proposal("s", "the policy is official", evidence_level=EVIDENCE_LEVEL_OFFICIAL)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await writer.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=official))
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "operator" in (err.value.details() or "")
    # A malformed request is still INVALID_ARGUMENT first (the shape is checked
    # before the permission).
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await writer.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=proposal("..", "x", evidence_level=EVIDENCE_LEVEL_OFFICIAL)
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    # The operator scope may.
    operator = lifecycle_pb2_grpc.LifecycleServiceStub(
        t.channel_for(await t.new_key(["write", "operator"]))
    )
    result = await operator.ProposeMemory(lifecycle_pb2.ProposeMemoryRequest(proposal=official))
    assert result.result.memory.evidence_level == EVIDENCE_LEVEL_OFFICIAL
