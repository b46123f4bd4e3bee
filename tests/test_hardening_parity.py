"""Issue 22 §8, memsmith parity: a reason on ReviseMemory in the audit log,
ExpireDueMemories limited to a space, validators in declared order with a critical
failure stopping the rest."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2
from engram_server.lifecycle.model import Proposal
from engram_server.lifecycle.policy import Policy, WebhookSpec
from engram_server.lifecycle.validators import WebhookVerdict, run_validators
from google.protobuf import field_mask_pb2, timestamp_pb2

from tests.lifecycle_helpers import ACTIVE, EXPIRED, field_violations, proposal, propose


def _ts(value: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)
    return stamp


async def test_revise_records_its_reason_in_the_audit_log(make_tenant: Any) -> None:
    t = await make_tenant()
    memory = (await propose(t.lifecycle, "s", "the build uses make")).memory
    revise = lifecycle_pb2.ReviseMemoryRequest(
        memory=types_pb2.Memory(name=memory.name, etag=memory.etag, content="the build uses ninja"),
        update_mask=field_mask_pb2.FieldMask(paths=["content"]),
        reason="migrated the build to ninja in March",
    )
    revised = await t.lifecycle.ReviseMemory(revise)
    assert revised.content == "the build uses ninja"
    entries = await t.lifecycle.ListAuditEntries(
        lifecycle_pb2.ListAuditEntriesRequest(memory=memory.name)
    )
    revisions = [e for e in entries.entries if e.action == types_pb2.AUDIT_ACTION_REVISION]
    assert [e.reason for e in revisions] == ["migrated the build to ninja in March"]
    assert revisions[0].details["fields"] == "content"

    revise.memory.etag = revised.etag
    revise.reason = "x" * 2049
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ReviseMemory(revise)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "reason" in field_violations(err.value)


async def test_expire_due_is_not_kept_from_a_row_a_reader_holds_a_share_of(
    make_tenant: Any, database_url: str
) -> None:
    """The indexing worker checks that the memories it embedded still exist under
    a share lock (FOR KEY SHARE): a due memory it is checking is expired all the
    same (an expiry skips only rows another write holds)."""
    import psycopg

    t = await make_tenant()
    soon = datetime.now(UTC) + timedelta(hours=1)
    due = (await propose(t.lifecycle, "kb", "the demo is on friday", expire_time=_ts(soon))).memory
    reader = await psycopg.AsyncConnection.connect(database_url)
    try:
        await reader.execute(
            "SELECT id FROM memories WHERE id = %s FOR KEY SHARE",
            (due.name.rpartition("/")[2],),
        )
        response = await t.lifecycle.ExpireDueMemories(
            lifecycle_pb2.ExpireDueMemoriesRequest(as_of=_ts(soon + timedelta(hours=1)))
        )
    finally:
        await reader.close()
    assert list(response.names) == [due.name]


async def test_expire_due_can_be_limited_to_one_space(make_tenant: Any) -> None:
    t = await make_tenant()
    soon = datetime.now(UTC) + timedelta(hours=1)
    a = (await propose(t.lifecycle, "team/a", "a: standup moved", expire_time=_ts(soon))).memory
    b = (await propose(t.lifecycle, "team/b", "b: standup moved", expire_time=_ts(soon))).memory
    sub = (
        await propose(t.lifecycle, "team/a/sub", "sub: standup moved", expire_time=_ts(soon))
    ).memory
    later = _ts(soon + timedelta(hours=1))
    response = await t.lifecycle.ExpireDueMemories(
        lifecycle_pb2.ExpireDueMemoriesRequest(as_of=later, space="team/a")
    )
    assert list(response.names) == [a.name]
    statuses = {
        m.name: (await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=m.name))).status
        for m in (a, b, sub)
    }
    assert statuses == {a.name: EXPIRED, b.name: ACTIVE, sub.name: ACTIVE}
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ExpireDueMemories(
            lifecycle_pb2.ExpireDueMemoriesRequest(as_of=later, space="../x")
        )
    assert "space" in field_violations(err.value)


class _Recorder:
    def __init__(self, verdicts: dict[str, bool]) -> None:
        self.verdicts = verdicts
        self.called: list[str] = []

    async def __call__(self, hook: WebhookSpec, payload: dict[str, Any]) -> WebhookVerdict:
        self.called.append(hook.name)
        return WebhookVerdict(self.verdicts[hook.name], "" if self.verdicts[hook.name] else "no")


HOOKS = (
    WebhookSpec("first", "https://validators.example/1", critical=True),
    WebhookSpec("second", "https://validators.example/2", critical=True),
)


async def test_sequential_validators_stop_at_the_first_critical_failure() -> None:
    low = Proposal(space="s", content="x", confidence=0.2)
    high = Proposal(space="s", content="x", confidence=0.95)
    policy = Policy(
        min_confidence=0.9, min_confidence_critical=True, webhooks=HOOKS, sequential_validators=True
    )
    # A local critical failure: no webhook is called.
    calls = _Recorder({"first": True, "second": True})
    failures = await run_validators(policy, low, calls)
    assert [f.validator for f in failures] == ["confidence_threshold"] and calls.called == []
    # The first webhook rejects: the second is never called.
    calls = _Recorder({"first": False, "second": True})
    failures = await run_validators(policy, high, calls)
    assert [f.validator for f in failures] == ["first"] and calls.called == ["first"]
    # All pass: every webhook ran, in declared order.
    calls = _Recorder({"first": True, "second": True})
    assert await run_validators(policy, high, calls) == ()
    assert calls.called == ["first", "second"]
    # Without the flag every validator runs and every failure is reported.
    calls = _Recorder({"first": False, "second": False})
    concurrent = Policy(min_confidence=0.9, min_confidence_critical=True, webhooks=HOOKS)
    failures = await run_validators(concurrent, low, calls)
    assert {f.validator for f in failures} == {"confidence_threshold", "first", "second"}


async def test_sequential_validators_round_trip_through_set_policy(make_tenant: Any) -> None:
    t = await make_tenant()
    stored = await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/s/policy", sequential_validators=True)
        )
    )
    assert stored.sequential_validators
    read = await t.lifecycle.GetPolicy(lifecycle_pb2.GetPolicyRequest(name="spaces/s/policy"))
    assert read.sequential_validators


async def _set_scope(t: Any, space: str, scope: int) -> None:
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name=f"spaces/{space}/policy", dedup_scope=scope)
        )
    )


async def test_dedup_scope_per_space_policy(make_tenant: Any) -> None:
    t = await make_tenant()
    accepted = lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    duplicate = lifecycle_pb2.PROPOSAL_OUTCOME_DUPLICATE
    text = "the standup is at nine"

    # Default (space): the same content in another session is a duplicate.
    first = await propose(t.lifecycle, "space-scope", text, session="a")
    again = await propose(t.lifecycle, "space-scope", text, session="b")
    assert (first.outcome, again.outcome) == (accepted, duplicate)
    assert again.memory.name == first.memory.name

    # Session: a duplicate only within one session.
    await _set_scope(t, "per-session", lifecycle_pb2.DEDUP_SCOPE_SESSION)
    a = await propose(t.lifecycle, "per-session", text, session="a")
    b = await propose(t.lifecycle, "per-session", text, session="b")
    a_again = await propose(t.lifecycle, "per-session", text, session="a")
    assert (a.outcome, b.outcome, a_again.outcome) == (accepted, accepted, duplicate)
    assert a.memory.name != b.memory.name and a_again.memory.name == a.memory.name

    # Off: every proposal is stored, in one batch too.
    await _set_scope(t, "no-dedup", lifecycle_pb2.DEDUP_SCOPE_OFF)
    batch = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("no-dedup", text), proposal("no-dedup", text)]
        )
    )
    single = await propose(t.lifecycle, "no-dedup", text)
    outcomes = [r.outcome for r in batch.results] + [single.outcome]
    assert outcomes == [accepted, accepted, accepted]
    assert len({r.memory.name for r in batch.results} | {single.memory.name}) == 3

    # GetPolicy shows the scope; an unknown value is refused.
    read = await t.lifecycle.GetPolicy(
        lifecycle_pb2.GetPolicyRequest(name="spaces/no-dedup/policy")
    )
    assert read.dedup_scope == lifecycle_pb2.DEDUP_SCOPE_OFF
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await _set_scope(t, "bad", 99)
    assert "policy.dedup_scope" in field_violations(err.value)


async def test_revising_into_a_duplicate_respects_the_session_scope(make_tenant: Any) -> None:
    t = await make_tenant()
    await _set_scope(t, "rev", lifecycle_pb2.DEDUP_SCOPE_SESSION)
    await propose(t.lifecycle, "rev", "lunch is at noon", session="a")
    other = (await propose(t.lifecycle, "rev", "lunch is at one", session="b")).memory
    # The same text lives in session a only: revising b's memory to it is allowed.
    revised = await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=other.name, etag=other.etag, content="lunch is at noon"),
            update_mask=field_mask_pb2.FieldMask(paths=["content"]),
        )
    )
    assert revised.content == "lunch is at noon"


async def _set_policy(t: Any, space: str, **fields: Any) -> None:
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name=f"spaces/{space}/policy", **fields)
        )
    )


async def _searchable(t: Any, space: str) -> None:
    """Waits (read-your-writes) until the space's writes are in the index."""
    await recall_pb2_grpc.RecallServiceStub(t.channel).Recall(
        recall_pb2.RecallRequest(
            query="coffee",
            spaces=[space],
            consistency=recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES,
        )
    )


async def test_near_duplicate_reinforcement_follows_the_dedup_scope(make_tenant: Any) -> None:
    t = await make_tenant()
    accepted = lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    reinforced = lifecycle_pb2.PROPOSAL_OUTCOME_REINFORCED
    first_text = "Frank prefers dark roast coffee"
    near_text = "Frank prefers dark-roast coffee!"

    # SESSION: only a near-duplicate in the same session is reinforced.
    await _set_policy(
        t,
        "nd-session",
        near_duplicate_threshold=0.8,
        dedup_scope=lifecycle_pb2.DEDUP_SCOPE_SESSION,
    )
    first = (await propose(t.lifecycle, "nd-session", first_text, session="a")).memory
    await _searchable(t, "nd-session")
    elsewhere = await propose(t.lifecycle, "nd-session", near_text, session="b")
    assert elsewhere.outcome == accepted
    assert elsewhere.memory.name != first.name
    await _searchable(t, "nd-session")
    same = await propose(t.lifecycle, "nd-session", near_text, session="a")
    assert same.outcome == reinforced and same.memory.name == first.name

    # OFF: no reinforcement at all, every proposal is stored.
    await _set_policy(
        t, "nd-off", near_duplicate_threshold=0.8, dedup_scope=lifecycle_pb2.DEDUP_SCOPE_OFF
    )
    original = (await propose(t.lifecycle, "nd-off", first_text)).memory
    await _searchable(t, "nd-off")
    near = await propose(t.lifecycle, "nd-off", near_text)
    assert near.outcome == accepted and near.memory.name != original.name

    # SPACE (the default): across sessions, as before.
    await _set_policy(t, "nd-space", near_duplicate_threshold=0.8)
    base = (await propose(t.lifecycle, "nd-space", first_text, session="a")).memory
    await _searchable(t, "nd-space")
    across = await propose(t.lifecycle, "nd-space", near_text, session="b")
    assert across.outcome == reinforced and across.memory.name == base.name


async def test_reinforcing_a_memory_whose_count_attribute_is_not_a_number(
    make_tenant: Any,
) -> None:
    """`reinforcements` is an ordinary attribute a proposal may set to anything: a
    near-duplicate of such a memory reinforces it (counting from scratch) instead
    of failing with INTERNAL."""
    t = await make_tenant()
    await _set_policy(t, "nd-odd", near_duplicate_threshold=0.8)
    first = (
        await propose(
            t.lifecycle,
            "nd-odd",
            "Frank prefers dark roast coffee",
            attributes={"reinforcements": "many"},
        )
    ).memory
    await _searchable(t, "nd-odd")
    near = await propose(t.lifecycle, "nd-odd", "Frank prefers dark-roast coffee!")
    assert near.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_REINFORCED
    assert near.memory.name == first.name
    assert near.memory.attributes["reinforcements"] == "1"


async def _revise_session(t: Any, memory: Any, session: str) -> Any:
    return await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=memory.name, etag=memory.etag, session=session),
            update_mask=field_mask_pb2.FieldMask(paths=["session"]),
        )
    )


async def test_a_session_revision_moves_a_session_scoped_memory(make_tenant: Any) -> None:
    t = await make_tenant()
    text = "the retro is on fridays"
    await _set_scope(t, "rev-session", lifecycle_pb2.DEDUP_SCOPE_SESSION)
    in_a = (await propose(t.lifecycle, "rev-session", text, session="a")).memory
    in_b = (await propose(t.lifecycle, "rev-session", text, session="b")).memory
    assert in_a.name != in_b.name
    # Moving b's memory into session a would make two live copies there.
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await _revise_session(t, in_b, "a")
    assert err.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert in_a.name in (err.value.details() or "")
    # Into session c it goes, and it is then c's copy, no longer b's.
    moved = await _revise_session(t, in_b, "c")
    assert moved.session == "c"
    in_c = await propose(t.lifecycle, "rev-session", text, session="c")
    assert in_c.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_DUPLICATE
    assert in_c.memory.name == in_b.name
    new_b = await propose(t.lifecycle, "rev-session", text, session="b")
    assert new_b.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED


@pytest.mark.parametrize(
    ("scope", "sessions"),
    [
        (lifecycle_pb2.DEDUP_SCOPE_SESSION, ("a", "b")),
        (lifecycle_pb2.DEDUP_SCOPE_OFF, ("a", "a")),
    ],
)
async def test_restoring_a_snapshot_keeps_copies_the_scope_allows(
    make_tenant: Any, scope: int, sessions: tuple[str, str]
) -> None:
    """Identical content twice in a space (two sessions with SESSION, anywhere with
    OFF), retracted, then brought back by a restore: both come back, and they dedup
    like proposals do afterwards."""
    t = await make_tenant()
    space = "restore-scope"
    text = "the office closes at six"
    await _set_scope(t, space, scope)
    copies = [
        (await propose(t.lifecycle, space, text, session=session)).memory for session in sessions
    ]
    assert copies[0].name != copies[1].name
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    snap = await stub.CreateSnapshot(
        recall_pb2.CreateSnapshotRequest(snapshot=recall_pb2.Snapshot(space=space))
    )
    for memory in copies:
        await t.lifecycle.RetractMemory(
            lifecycle_pb2.RetractMemoryRequest(name=memory.name, reason="mistake")
        )
    dry = await stub.RestoreSnapshot(
        recall_pb2.RestoreSnapshotRequest(name=snap.name, validate_only=True)
    )
    done = await stub.RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=snap.name))
    assert dry.recreated_count == done.recreated_count == 2
    live = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(space=space))
    restored = [m for m in live.memories if m.status == ACTIVE]
    assert sorted(m.session for m in restored) == sorted(sessions)
    again = await propose(t.lifecycle, space, text, session="a")
    expected = (
        lifecycle_pb2.PROPOSAL_OUTCOME_DUPLICATE
        if scope == lifecycle_pb2.DEDUP_SCOPE_SESSION
        else lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    )
    assert again.outcome == expected


async def test_restoring_a_session_revision_in_a_session_scope(make_tenant: Any) -> None:
    """A restore that sets a memory's session back takes the session's dedup key."""
    t = await make_tenant()
    space = "restore-rev"
    text = "deploys freeze on fridays"
    await _set_scope(t, space, lifecycle_pb2.DEDUP_SCOPE_SESSION)
    memory = (await propose(t.lifecycle, space, text, session="a")).memory
    stub = recall_pb2_grpc.RecallServiceStub(t.channel)
    snap = await stub.CreateSnapshot(
        recall_pb2.CreateSnapshotRequest(snapshot=recall_pb2.Snapshot(space=space))
    )
    await _revise_session(t, memory, "b")
    later = await propose(t.lifecycle, space, text, session="a")
    assert later.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    # The restore retracts the later copy and moves the memory back to session a.
    done = await stub.RestoreSnapshot(recall_pb2.RestoreSnapshotRequest(name=snap.name))
    assert (done.retracted_count, done.revised_count) == (1, 1)
    back = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=memory.name))
    assert back.session == "a"
    # Its dedup key moved with it: a duplicate in a, none in b.
    in_a = await propose(t.lifecycle, space, text, session="a")
    assert in_a.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_DUPLICATE
    assert in_a.memory.name == memory.name
    in_b = await propose(t.lifecycle, space, text, session="b")
    assert in_b.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
