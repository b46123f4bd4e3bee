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
