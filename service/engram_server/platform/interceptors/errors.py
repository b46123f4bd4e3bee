"""Error mapping: whatever a handler raises becomes a proper gRPC status.

Domain errors carry their `google.rpc.Status` details; anything else is logged
with its traceback and answered with a generic INTERNAL, so no SQL, path or
foreign tenant id ever reaches a caller. The log line and the answer share an
error id, so a caller's report leads the operator to the details. Works for
streaming RPCs too: an error after some messages were sent still ends the stream
with the mapped status.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio

from engram_server.platform.errors_mapping import is_expected, new_error_id, to_grpc_status
from engram_server.platform.interceptors._wrap import WrappingInterceptor
from engram_server.platform.outages import OUTAGES, OutageLog, unreachable_store

log = logging.getLogger(__name__)


class ErrorMappingInterceptor(WrappingInterceptor):
    @asynccontextmanager
    async def around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        try:
            yield
        except grpc.aio.AbortError:
            raise  # the handler already chose its status
        except Exception as exc:
            await abort_with(details.method, context, exc)
        else:
            OUTAGES.finished(details.method, grpc.StatusCode.OK)


async def abort_with(
    method: str,
    context: grpc.aio.ServicerContext[Any, Any],
    exc: Exception,
    outages: OutageLog = OUTAGES,
) -> None:
    """Ends the call with the gRPC status `exc` maps to (logging unexpected ones;
    a store outage once, in `outages`)."""
    if is_expected(exc):
        log.debug("%s -> %s", method, exc)
        status = to_grpc_status(exc)
    else:
        error_id = new_error_id()
        status = to_grpc_status(exc, error_id)
        store = unreachable_store(exc)
        if store is not None and status.code == grpc.StatusCode.UNAVAILABLE:
            outages.failed(store, method, error_id)  # logged once per outage
        else:
            log.exception("%s failed (error id %s)", method, error_id)
    await context.abort(status.code, status.details, status.trailing_metadata)
