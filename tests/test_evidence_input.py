"""EvidenceService input at the edges of what is valid: never INTERNAL."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from engram.v1 import evidence_pb2, evidence_pb2_grpc
from google.protobuf.timestamp_pb2 import Timestamp

from tests.lifecycle_helpers import field_violations, propose

# 0001-01-01T00:00:00Z, the earliest Timestamp a request may carry.
EARLIEST = -62135596800


@pytest.mark.parametrize(
    ("seconds", "window_days"),
    [
        (EARLIEST, 0),  # the default 30-day window starts before year 1
        (EARLIEST + 86400 * 40, 3650),  # so does a long one
        (EARLIEST + 86400 * 3, 1),  # a window inside year 1, but "settled" is 7 days back
    ],
)
async def test_a_profile_window_before_year_one_names_now(
    make_tenant: Any, seconds: int, window_days: int
) -> None:
    t = await make_tenant()
    await propose(t.lifecycle, "kb", "The warehouse opens at 7am")
    ev = evidence_pb2_grpc.EvidenceServiceStub(t.channel)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.GetSpaceProfile(
            evidence_pb2.GetSpaceProfileRequest(
                name="spaces/kb/profile", now=Timestamp(seconds=seconds), window_days=window_days
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert field_violations(err.value) == ["now"]
    # The earliest `now` whose window and settled age fit is answered.
    fits = await ev.GetSpaceProfile(
        evidence_pb2.GetSpaceProfileRequest(
            name="spaces/kb/profile",
            now=Timestamp(seconds=EARLIEST + 86400 * max(window_days or 30, 7)),
            window_days=window_days,
            dry_run=True,
        )
    )
    assert fits.total_memory_count == 1 and fits.live_memory_count == 1


async def test_a_merge_refused_for_a_stale_etag_stores_no_merged_memory(make_tenant: Any) -> None:
    from engram.v1 import lifecycle_pb2

    from tests.test_evidence import _contradiction

    t = await make_tenant()
    ev = evidence_pb2_grpc.EvidenceServiceStub(t.channel)
    _a, _b, conflict = await _contradiction(t, "The cafe opens at 8", "The cafe opens at 9")
    merged = lifecycle_pb2.MemoryProposal(
        space="kb", content="The cafe opens at 8 on weekdays and 9 on weekends", confidence=0.9
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ResolveConflict(
            evidence_pb2.ResolveConflictRequest(
                name=conflict.name,
                resolution=evidence_pb2.CONFLICT_RESOLUTION_MERGE,
                merged=merged,
                etag="0" * 20,
            )
        )
    assert err.value.code() == grpc.StatusCode.ABORTED
    # Nothing of the refused resolution is left: no merged memory, the conflict open.
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space="kb"))
    assert merged.content not in [m.content for m in listed.memories]
    again = await ev.GetConflict(evidence_pb2.GetConflictRequest(name=conflict.name))
    assert again.state == evidence_pb2.CONFLICT_STATE_OPEN
    # With the current etag the merge goes through, once.
    resolve = evidence_pb2.ResolveConflictRequest(
        name=conflict.name,
        resolution=evidence_pb2.CONFLICT_RESOLUTION_MERGE,
        merged=merged,
        etag=again.etag,
        request_id="merge-cafe-hours",
    )
    done = await ev.ResolveConflict(resolve)
    assert done.merged_result.memory.content == merged.content
    # Its retry (the etag now stale) replays the outcome rather than refusing it.
    assert (await ev.ResolveConflict(resolve)).conflict == done.conflict
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space="kb"))
    assert [m.content for m in listed.memories].count(merged.content) == 1


async def test_a_merge_the_policy_would_hold_stores_nothing(make_tenant: Any) -> None:
    """A merged memory that would wait for confirmation is refused whole: no
    pending memory left beside a conflict that stays open."""
    from engram.v1 import lifecycle_pb2, types_pb2

    from tests.test_evidence import _contradiction

    t = await make_tenant()
    ev = evidence_pb2_grpc.EvidenceServiceStub(t.channel)
    _a, _b, conflict = await _contradiction(t, "The pool opens at 6", "The pool opens at 7")
    policy = await t.lifecycle.GetPolicy(lifecycle_pb2.GetPolicyRequest(name="spaces/kb/policy"))
    policy.min_confidence = 0.5
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    merged = lifecycle_pb2.MemoryProposal(
        space="kb", content="The pool opens at 6 in summer and 7 in winter", confidence=0.2
    )
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await ev.ResolveConflict(
            evidence_pb2.ResolveConflictRequest(
                name=conflict.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_MERGE, merged=merged
            )
        )
    assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION, err.value.details()
    for status in (types_pb2.MEMORY_STATUS_PENDING_CONFIRMATION, types_pb2.MEMORY_STATUS_ACTIVE):
        listed = await t.lifecycle.ListMemories(
            lifecycle_pb2.ListMemoriesRequest(space="kb", statuses=[status])
        )
        assert merged.content not in [m.content for m in listed.memories]
    still = await ev.GetConflict(evidence_pb2.GetConflictRequest(name=conflict.name))
    assert still.state == evidence_pb2.CONFLICT_STATE_OPEN


async def test_a_merge_after_another_resolution_stores_nothing(
    make_tenant: Any, server: Any
) -> None:
    """The conflict is resolved by someone else between this MERGE's read of it
    and its write: the merged memory is not stored."""
    import uuid

    from engram.v1 import lifecycle_pb2
    from engram_server.errors import FailedPrecondition
    from engram_server.lifecycle.model import Proposal
    from engram_server.platform.principal import Principal

    from tests.test_evidence import _contradiction

    t = await make_tenant()
    ev = evidence_pb2_grpc.EvidenceServiceStub(t.channel)
    _a, _b, conflict = await _contradiction(t, "The gym opens at 5", "The gym opens at 6")
    service = server.ctx.evidence
    assert service is not None
    principal = Principal(t.tenant_id, "k", frozenset({"read", "write"}))
    read = await service.get_conflict(t.tenant_id, uuid.UUID(conflict.name.rpartition("/")[2]))
    await ev.ResolveConflict(
        evidence_pb2.ResolveConflictRequest(
            name=conflict.name, resolution=evidence_pb2.CONFLICT_RESOLUTION_DISMISS
        )
    )
    content = "The gym opens at 5 on weekdays"
    with pytest.raises(FailedPrecondition, match="already resolved"):
        await service._merge(principal, read, Proposal(space="kb", content=content), "", "", None)
    listed = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space="kb"))
    assert content not in [m.content for m in listed.memories]
