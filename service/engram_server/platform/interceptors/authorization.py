"""Scope checks: each RPC needs one of the scopes the table lists for it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import grpc.aio

from engram_server.errors import PermissionDenied
from engram_server.platform.interceptors._wrap import WrappingInterceptor
from engram_server.platform.principal import Principal, current_principal
from engram_server.platform.scopes import ScopeTable, is_public


class ScopeInterceptor(WrappingInterceptor):
    def __init__(self, table: ScopeTable) -> None:
        self._table = table

    def applies(self, method: str) -> bool:
        return not is_public(method)

    def check(self, method: str, principal: Principal) -> None:
        """Raises PermissionDenied unless `principal` may call `method`."""
        required = self._table.required(method)
        if required is None:
            raise PermissionDenied(f"{method} is not open to API keys")
        if not required & principal.scopes:
            needed = " or ".join(repr(s) for s in sorted(required))
            raise PermissionDenied(f"this API key lacks the {needed} scope", sorted(required)[0])

    @asynccontextmanager
    async def around(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[None]:
        self.check(details.method, current_principal())
        yield
