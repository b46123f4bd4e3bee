"""The state machine: every allowed and every forbidden transition."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from engram_server.errors import InvalidTransition
from engram_server.lifecycle.model import Status
from engram_server.lifecycle.states import ALLOWED_TRANSITIONS, check_transition
from google.protobuf.timestamp_pb2 import Timestamp

from tests.lifecycle_helpers import (
    ACTIVE,
    EXPIRED,
    PENDING,
    REJECTED,
    RETRACTED,
    count_rows,
    propose,
)

EXPECTED = {
    (Status.PROPOSED, Status.ACTIVE),
    (Status.PROPOSED, Status.PENDING_CONFIRMATION),
    (Status.PROPOSED, Status.REJECTED),
    (Status.PENDING_CONFIRMATION, Status.ACTIVE),
    (Status.PENDING_CONFIRMATION, Status.RETRACTED),
    (Status.ACTIVE, Status.RETRACTED),
    (Status.ACTIVE, Status.EXPIRED),
    (Status.ACTIVE, Status.SUPERSEDED),
}


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(Status, Status)))
def test_every_pair_of_statuses(src: Status, dst: Status) -> None:
    if (src, dst) in EXPECTED:
        check_transition("memories/x", src, dst)
    else:
        with pytest.raises(InvalidTransition):
            check_transition("memories/x", src, dst)


def test_table_matches_the_documented_machine() -> None:
    allowed = {(s, d) for s, ds in ALLOWED_TRANSITIONS.items() for d in ds}
    assert allowed == EXPECTED


async def _memory_in(t: Any, status: int, space: str, n: int) -> str:
    """Drives a fresh memory into `status` through the public API."""
    if status == PENDING:
        result = await propose(t.lifecycle, space, f"pending {n}", confidence=0.1, source="s")
    elif status == REJECTED:
        result = await propose(t.lifecycle, space, f"rejected {n}", confidence=0.9, source="")
        # the space policy requires `source`, so the proposal is rejected
    elif status == EXPIRED:
        past = Timestamp()
        past.FromDatetime(datetime.now(UTC) - timedelta(seconds=1))
        result = await propose(t.lifecycle, space, f"expired {n}", expire_time=past, source="s")
        await t.lifecycle.ExpireDueMemories(lifecycle_pb2.ExpireDueMemoriesRequest())
    else:
        result = await propose(t.lifecycle, space, f"memory {n}", source="s")
        if status == RETRACTED:
            await t.lifecycle.RetractMemory(
                lifecycle_pb2.RetractMemoryRequest(name=result.memory.name, reason="test")
            )
    memory = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=result.memory.name))
    assert memory.status == status
    return result.memory.name


OPERATIONS = {
    "confirm": lambda stub, name: stub.ConfirmMemory(lifecycle_pb2.ConfirmMemoryRequest(name=name)),
    "reject": lambda stub, name: stub.RejectMemory(lifecycle_pb2.RejectMemoryRequest(name=name)),
    "retract": lambda stub, name: stub.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=name, reason="r")
    ),
}
# (status before, operation) -> status after; anything absent must be refused.
ALLOWED_OPERATIONS = {
    (PENDING, "confirm"): ACTIVE,
    (PENDING, "reject"): RETRACTED,
    (PENDING, "retract"): RETRACTED,
    (ACTIVE, "retract"): RETRACTED,
}


async def test_every_operation_from_every_reachable_status(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    space = "states"
    policy = lifecycle_pb2.Policy(
        name=f"spaces/{space}/policy", min_confidence=0.5, required_fields=["source"]
    )
    await t.lifecycle.SetPolicy(lifecycle_pb2.SetPolicyRequest(policy=policy))
    n = 0
    for status in (ACTIVE, PENDING, REJECTED, RETRACTED, EXPIRED):
        for op, call in OPERATIONS.items():
            n += 1
            name = await _memory_in(t, status, space, n)
            audit_before = await count_rows(raw_pg, "audit_log", t.tenant_id)
            expected = ALLOWED_OPERATIONS.get((status, op))
            if expected is None:
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call(t.lifecycle, name)
                assert err.value.code() == grpc.StatusCode.FAILED_PRECONDITION, (status, op)
                if op == "confirm":
                    assert err.value.details() == (
                        f"{name} is {types_pb2.MemoryStatus.Name(status)[len('MEMORY_STATUS_') :]}:"
                        " only PENDING_CONFIRMATION memories can be confirmed"
                    ), err.value.details()
                after = await t.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=name))
                assert after.status == status, "a refused transition changes nothing"
                assert await count_rows(raw_pg, "audit_log", t.tenant_id) == audit_before
            else:
                result = await call(t.lifecycle, name)
                memory = result.memory if hasattr(result, "cascaded") else result
                assert memory.status == expected, (status, op)
                assert await count_rows(raw_pg, "audit_log", t.tenant_id) == audit_before + 1
