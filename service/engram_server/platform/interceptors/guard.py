"""The per-call checks of every RPC, fused into one interceptor.

Error mapping, deadline, authentication, scope check and rate limit each exist as
their own interceptor (and stay usable alone), but as separate grpc.aio
interceptors every call pays for five handler rebuilds and five nested context
managers. `CallGuard` runs the same five steps, in the same order and with the
same effects, around the handler in one wrapper.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any

import grpc
import grpc.aio

from engram_server.platform.interceptors._wrap import Behavior, wrap_handler
from engram_server.platform.interceptors.authentication import AuthenticationInterceptor
from engram_server.platform.interceptors.authorization import ScopeInterceptor
from engram_server.platform.interceptors.deadline import refuse_if_expired
from engram_server.platform.interceptors.errors import abort_with
from engram_server.platform.interceptors.ratelimit import RateLimitInterceptor
from engram_server.platform.observability import RpcObserver
from engram_server.platform.outages import OutageLog
from engram_server.platform.principal import reset_principal, set_principal
from engram_server.platform.scopes import is_public


class CallGuard(grpc.aio.ServerInterceptor):
    """Errors -> deadline -> authentication -> scopes -> rate limit, in one wrapper."""

    def __init__(
        self,
        authentication: AuthenticationInterceptor,
        scopes: ScopeInterceptor,
        rate_limit: RateLimitInterceptor,
        observer: RpcObserver | None = None,
    ) -> None:
        self._authentication = authentication
        self._scopes = scopes
        self._rate_limit = rate_limit
        # Metrics and the access log of every authenticated RPC (health and
        # reflection are not observed: probes would drown the log).
        self._observer = observer
        # Store outages seen by this server's calls, logged once each.
        self._outages = OutageLog()

    async def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]
        ],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        details = handler_call_details
        if not handler.request_streaming and not handler.response_streaming:
            assert handler.unary_unary is not None
            return grpc.unary_unary_rpc_method_handler(
                self._unary(details, handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return wrap_handler(handler, lambda context: self._around(details, context))

    def _unary(self, details: grpc.HandlerCallDetails, behavior: Behavior) -> Behavior:
        """The hot path (unary calls) as one plain coroutine, no context managers."""
        method = details.method
        public = is_public(method)
        observer = None if public else self._observer

        async def guarded(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
            started = time.perf_counter()
            tenant = ""
            code = grpc.StatusCode.OK
            try:
                await refuse_if_expired(context)
                if public:
                    result = behavior(request, context)
                    return (await result) if inspect.isawaitable(result) else result
                principal = await self._authentication.authenticate(details)
                tenant = principal.tenant_id
                token = set_principal(principal)
                try:
                    self._scopes.check(method, principal)
                    await self._rate_limit.check(principal.tenant_id)
                    result = behavior(request, context)
                    return (await result) if inspect.isawaitable(result) else result
                finally:
                    with suppress(ValueError):
                        reset_principal(token)
            except grpc.aio.AbortError:
                code = _code_of(context)
                raise  # the handler (or the deadline check) already chose the status
            except asyncio.CancelledError:
                code = grpc.StatusCode.CANCELLED
                raise
            except Exception as exc:
                try:
                    await abort_with(method, context, exc, self._outages)
                finally:
                    code = _code_of(context)
            finally:
                self._outages.finished(method, code)
                if observer is not None:
                    observer.finish(
                        method,
                        code,
                        started,
                        tenant,
                        request,
                        details.invocation_metadata,
                    )

        return guarded

    @asynccontextmanager
    async def _around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        """The same steps around a streaming call."""
        observer = None if is_public(details.method) else self._observer
        started = time.perf_counter()
        tenant = ""
        code = grpc.StatusCode.OK
        try:
            await refuse_if_expired(context)
            if is_public(details.method):
                yield
                return
            principal = await self._authentication.authenticate(details)
            tenant = principal.tenant_id
            token = set_principal(principal)
            try:
                self._scopes.check(details.method, principal)
                await self._rate_limit.check(principal.tenant_id)
                yield
            finally:
                # A stream closed from another context cannot reset; the call's
                # task ends right after anyway.
                with suppress(ValueError):
                    reset_principal(token)
        except grpc.aio.AbortError:
            code = _code_of(context)
            raise
        except (asyncio.CancelledError, GeneratorExit):
            code = grpc.StatusCode.CANCELLED
            raise
        except Exception as exc:
            try:
                await abort_with(details.method, context, exc, self._outages)
            finally:
                code = _code_of(context)
        finally:
            self._outages.finished(details.method, code)
            if observer is not None:
                observer.finish(
                    details.method,
                    code,
                    started,
                    tenant,
                    None,
                    details.invocation_metadata,
                )


def _code_of(context: grpc.aio.ServicerContext[Any, Any]) -> grpc.StatusCode:
    """The status a call ended with after an abort (UNKNOWN if none was set)."""
    code = context.code()
    if isinstance(code, grpc.StatusCode):
        return code
    if isinstance(code, int):
        for candidate in grpc.StatusCode:
            if candidate.value[0] == code:
                return candidate
    return grpc.StatusCode.UNKNOWN
