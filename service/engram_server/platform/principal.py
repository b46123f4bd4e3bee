"""Who is calling: the principal resolved from an API key, carried per request."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass

from engram_server.errors import PermissionDenied, Unauthenticated

SCOPE_READ = "read"
SCOPE_WRITE = "write"
SCOPE_ADMIN = "admin"
SCOPE_OPERATOR = "operator"
SCOPE_PLATFORM = "platform"
ALL_SCOPES = frozenset({SCOPE_READ, SCOPE_WRITE, SCOPE_ADMIN, SCOPE_OPERATOR, SCOPE_PLATFORM})


@dataclass(frozen=True)
class Principal:
    """The authenticated caller. The tenant comes from here, never from a request."""

    tenant_id: str
    key_id: str
    scopes: frozenset[str]
    agent: str | None = None

    @property
    def actor(self) -> str:
        """The identity recorded in audit rows and as a memory's author."""
        return self.agent or f"apiKeys/{self.key_id}"

    @property
    def is_platform_admin(self) -> bool:
        return SCOPE_PLATFORM in self.scopes

    def has(self, scope: str) -> bool:
        return scope in self.scopes

    def require(self, scope: str) -> None:
        if scope not in self.scopes:
            raise PermissionDenied(f"this API key lacks the {scope!r} scope", scope)


_current: contextvars.ContextVar[Principal | None] = contextvars.ContextVar(
    "engram_principal", default=None
)


def current_principal() -> Principal:
    """The principal of the RPC being served; set by the auth interceptor."""
    principal = _current.get()
    if principal is None:
        raise Unauthenticated("no authenticated principal for this call")
    return principal


def set_principal(principal: Principal | None) -> contextvars.Token[Principal | None]:
    return _current.set(principal)


def reset_principal(token: contextvars.Token[Principal | None]) -> None:
    _current.reset(token)
