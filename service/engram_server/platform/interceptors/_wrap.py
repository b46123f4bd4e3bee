"""Shared plumbing: wrap an RPC handler's behaviour with async before/after logic.

A grpc.aio interceptor only sees the handler, not the call: to run code *during*
the call (read the deadline, set a contextvar the handler sees, catch what the
handler raises) it must return a new handler whose behaviour wraps the old one.
Doing that correctly for the four RPC shapes is fiddly, so it lives here once and
every interceptor supplies just an async context manager ("around").
"""

from __future__ import annotations

import abc
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

import grpc
import grpc.aio

# Runs around one call; exceptions raised by the handler pass through it.
Around = Callable[[grpc.aio.ServicerContext[Any, Any]], AbstractAsyncContextManager[None]]
# Handlers are typed against the sync ServicerContext in the stubs; at run time
# grpc.aio passes its own context, so the behaviour type stays loose.
Behavior = Callable[..., Any]


def _unary(behavior: Behavior, around: Around) -> Behavior:
    async def wrapped(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        async with around(context):
            result = behavior(request, context)
            if inspect.isawaitable(result):
                result = await result
            return result

    return wrapped


def _streaming(behavior: Behavior, around: Around) -> Behavior:
    async def wrapped(
        request: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[Any]:
        async with around(context):
            result = behavior(request, context)
            if hasattr(result, "__aiter__"):
                async for item in result:
                    yield item
            elif inspect.isawaitable(result):
                # A handler that writes with `context.write()` and returns None.
                await result
            elif result is not None:
                for item in result:
                    yield item

    return wrapped


def wrap_handler(
    handler: grpc.RpcMethodHandler[Any, Any], around: Around
) -> grpc.RpcMethodHandler[Any, Any]:
    """Returns a handler that runs `around(context)` around `handler`'s behaviour."""
    wrap = _streaming if handler.response_streaming else _unary
    kwargs: dict[str, Any] = {
        "request_deserializer": handler.request_deserializer,
        "response_serializer": handler.response_serializer,
    }
    if handler.request_streaming and handler.response_streaming:
        assert handler.stream_stream is not None
        return grpc.stream_stream_rpc_method_handler(wrap(handler.stream_stream, around), **kwargs)
    if handler.request_streaming:
        assert handler.stream_unary is not None
        return grpc.stream_unary_rpc_method_handler(wrap(handler.stream_unary, around), **kwargs)
    if handler.response_streaming:
        assert handler.unary_stream is not None
        return grpc.unary_stream_rpc_method_handler(wrap(handler.unary_stream, around), **kwargs)
    assert handler.unary_unary is not None
    return grpc.unary_unary_rpc_method_handler(wrap(handler.unary_unary, around), **kwargs)


def metadata_value(details: grpc.HandlerCallDetails, key: str) -> str | None:
    """The first value of metadata `key` (lower case) of the call, if any."""
    for item in details.invocation_metadata or ():
        name, value = item[0], item[1]
        if name == key:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


class WrappingInterceptor(grpc.aio.ServerInterceptor):
    """Base of the interceptors here: wraps each handler with `around`.

    Subclasses implement `around(details, context)` as an async context manager
    and may narrow `applies(method)` (e.g. to skip health and reflection).
    """

    def applies(self, method: str) -> bool:
        return True

    @abc.abstractmethod
    def around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AbstractAsyncContextManager[None]:
        """What to do before, after and on failure of one call."""

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None or not self.applies(handler_call_details.method):
            return handler
        return wrap_handler(handler, functools.partial(self.around, handler_call_details))
