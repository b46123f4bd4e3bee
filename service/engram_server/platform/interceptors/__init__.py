"""The server's interceptors, one concern per module, in the order they run.

Outermost first: tracing (the span covers everything), error mapping (so it sees
what every later layer raises), deadline, authentication, scope check, rate
limit, then the servicer. The server runs the five after tracing fused into one
`CallGuard` (same order, same effects, one wrapper per call); each also exists
alone.
"""

from __future__ import annotations

import grpc.aio
from opentelemetry.trace import TracerProvider

from engram_server.platform.auth import Authenticator
from engram_server.platform.context import AppContext
from engram_server.platform.interceptors.authentication import AuthenticationInterceptor
from engram_server.platform.interceptors.authorization import ScopeInterceptor
from engram_server.platform.interceptors.deadline import DeadlineInterceptor
from engram_server.platform.interceptors.errors import ErrorMappingInterceptor
from engram_server.platform.interceptors.guard import CallGuard
from engram_server.platform.interceptors.ratelimit import RateLimitInterceptor
from engram_server.platform.observability import RpcObserver
from engram_server.platform.scopes import ScopeTable
from engram_server.platform.telemetry import server_tracing_interceptor, tracing_enabled

__all__ = [
    "AuthenticationInterceptor",
    "CallGuard",
    "DeadlineInterceptor",
    "ErrorMappingInterceptor",
    "RateLimitInterceptor",
    "ScopeInterceptor",
    "server_interceptors",
]


def server_interceptors(
    ctx: AppContext,
    scopes: ScopeTable,
    tracer_provider: TracerProvider | None = None,
) -> list[grpc.aio.ServerInterceptor]:
    """The full interceptor chain of an Engram server.

    Tracing is left out when it is off (no provider given or installed): its
    spans would all be no-ops.
    """
    tracing = (
        [server_tracing_interceptor(tracer_provider)] if tracing_enabled(tracer_provider) else []
    )
    rate_limit = ctx.rate_limit = RateLimitInterceptor(ctx.db, ctx.redis)
    return [
        *tracing,
        CallGuard(
            AuthenticationInterceptor(Authenticator(ctx.db, ctx.settings.auth_cache_seconds)),
            ScopeInterceptor(scopes),
            rate_limit,
            RpcObserver(ctx.settings),
        ),
    ]
