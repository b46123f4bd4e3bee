"""Shared helpers for lifecycle tests: proposals, error details, raw SQL checks."""

from __future__ import annotations

from typing import Any

import grpc
from engram.v1 import lifecycle_pb2, types_pb2
from google.rpc import error_details_pb2, status_pb2


def proposal(space: str, content: str, **kw: Any) -> lifecycle_pb2.MemoryProposal:
    kw.setdefault("confidence", 0.9)
    return lifecycle_pb2.MemoryProposal(space=space, content=content, **kw)


async def propose(stub: Any, space: str, content: str, **kw: Any) -> lifecycle_pb2.ProposalResult:
    request_id = kw.pop("request_id", "")
    response = await stub.ProposeMemory(
        lifecycle_pb2.ProposeMemoryRequest(
            proposal=proposal(space, content, **kw), request_id=request_id
        )
    )
    return response.result


def status_details(err: grpc.aio.AioRpcError) -> status_pb2.Status:
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status()
            status.ParseFromString(value)
            return status
    raise AssertionError(f"no rich status details on {err.code()}: {err.details()}")


def field_violations(err: grpc.aio.AioRpcError) -> list[str]:
    """The field paths a BadRequest detail names."""
    fields: list[str] = []
    for detail in status_details(err).details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields.extend(v.field for v in bad.field_violations)
    return fields


async def count_rows(raw_pg: Any, table: str, tenant_id: str) -> int:
    cur = await raw_pg.execute(f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (tenant_id,))
    row = await cur.fetchone()
    return int(row[0])


ACTIVE = types_pb2.MEMORY_STATUS_ACTIVE
PENDING = types_pb2.MEMORY_STATUS_PENDING_CONFIRMATION
REJECTED = types_pb2.MEMORY_STATUS_REJECTED
RETRACTED = types_pb2.MEMORY_STATUS_RETRACTED
EXPIRED = types_pb2.MEMORY_STATUS_EXPIRED
SUPERSEDED = types_pb2.MEMORY_STATUS_SUPERSEDED
PROPOSED = types_pb2.MEMORY_STATUS_PROPOSED
