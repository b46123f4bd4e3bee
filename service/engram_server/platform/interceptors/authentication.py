"""Authentication: `authorization: Bearer <api-key>` -> the call's Principal.

The principal is set inside the handler's own execution (a contextvar set in
`intercept_service` would not reliably reach the handler's task) and tagged on
the current trace span, so spans say which tenant they served.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import grpc
import grpc.aio
from opentelemetry import trace

from engram_server.platform.auth import Authenticator
from engram_server.platform.interceptors._wrap import WrappingInterceptor, metadata_value
from engram_server.platform.principal import Principal, reset_principal, set_principal
from engram_server.platform.scopes import is_public


class AuthenticationInterceptor(WrappingInterceptor):
    def __init__(self, authenticator: Authenticator) -> None:
        self._authenticator = authenticator

    def applies(self, method: str) -> bool:
        return not is_public(method)

    async def authenticate(self, details: grpc.HandlerCallDetails) -> Principal:
        """The call's principal, also tagged on the current span."""
        principal = await self._authenticator.authenticate(metadata_value(details, "authorization"))
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attributes(
                {"engram.tenant": principal.tenant_id, "engram.api_key": principal.key_id}
            )
        return principal

    @asynccontextmanager
    async def around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        principal = await self.authenticate(details)
        token = set_principal(principal)
        try:
            yield
        finally:
            # A stream closed from another context cannot reset; the call's task
            # ends right after anyway.
            with suppress(ValueError):
                reset_principal(token)
