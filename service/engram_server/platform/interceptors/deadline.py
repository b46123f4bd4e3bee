"""Deadlines: a call whose client deadline has already passed is not started.

By the time a request is dispatched (after queueing, authentication...) its
deadline may be gone; running the handler then only burns a connection and
possibly commits a write the client will never see acknowledged. Deadlines
that expire *during* a handler cancel it: grpc.aio does that itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio

from engram_server.platform.interceptors._wrap import WrappingInterceptor


class DeadlineInterceptor(WrappingInterceptor):
    @asynccontextmanager
    async def around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        await refuse_if_expired(context)
        yield


async def refuse_if_expired(context: grpc.aio.ServicerContext[Any, Any]) -> None:
    """Aborts with DEADLINE_EXCEEDED when the client's deadline has already passed."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        await context.abort(
            grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded before the call started"
        )
