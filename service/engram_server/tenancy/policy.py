"""Who may do what in AdminService.

Platform administrators (scope `platform`) manage every tenant and every tenant's
keys. Tenant administrators (scope `admin`) manage only their own tenant's keys;
naming another tenant answers NOT_FOUND exactly as a missing tenant would, so a
tenant admin cannot probe which tenants exist. No administrator may hand out more
than it holds (platform administrators excepted: they are the root of trust).
"""

from __future__ import annotations

from engram_server.errors import FailedPrecondition, NotFound, PermissionDenied
from engram_server.platform.principal import SCOPE_ADMIN, SCOPE_PLATFORM, Principal
from engram_server.tenancy.model import ApiKey, ApiKeySpec, key_name, tenant_name


def require_platform(principal: Principal) -> None:
    """Tenant-level operations (create, list, delete tenants)."""
    principal.require(SCOPE_PLATFORM)


def authorize_tenant(principal: Principal, tenant_id: str) -> None:
    """Reading a tenant, its usage, or managing its keys."""
    if principal.is_platform_admin:
        return
    if not principal.has(SCOPE_ADMIN):
        raise PermissionDenied("this API key lacks the 'admin' scope", SCOPE_ADMIN)
    if tenant_id != principal.tenant_id:
        raise NotFound("tenant", tenant_name(tenant_id))


def authorize_tenant_update(principal: Principal, tenant_id: str, paths: frozenset[str]) -> None:
    """UpdateTenant: a tenant administrator may change only its own tenant's `llm`.

    Display name and quota are the platform's business (a tenant must not lift
    its own limits).
    """
    authorize_tenant(principal, tenant_id)
    if principal.is_platform_admin:
        return
    others = sorted(p for p in paths if p != "llm" and not p.startswith("llm."))
    if others:
        raise PermissionDenied(
            f"a tenant administrator may update only `llm`, not {', '.join(others)}",
            SCOPE_PLATFORM,
        )


def authorize_key(principal: Principal, tenant_id: str, key_id: str) -> None:
    """Like `authorize_tenant`, but a foreign key is reported as a missing key."""
    if principal.is_platform_admin:
        return
    if not principal.has(SCOPE_ADMIN):
        raise PermissionDenied("this API key lacks the 'admin' scope", SCOPE_ADMIN)
    if tenant_id != principal.tenant_id:
        raise NotFound("api key", key_name(tenant_id, key_id))


def authorize_mint(principal: Principal, spec: ApiKeySpec) -> ApiKeySpec:
    """Refuses privilege escalation; returns the spec to store.

    A tenant admin can only mint scopes it holds itself, never `platform`. A key
    bound to an agent mints only keys bound to that same agent (an omitted agent
    inherits it), so an agent cannot shed its identity by minting a fresh key.
    """
    authorize_tenant(principal, spec.tenant_id)
    if principal.is_platform_admin:
        return spec
    if SCOPE_PLATFORM in spec.scopes:
        raise PermissionDenied(
            "only a platform administrator may mint a key with the 'platform' scope",
            SCOPE_PLATFORM,
        )
    missing = sorted(spec.scopes - principal.scopes)
    if missing:
        raise PermissionDenied(
            f"cannot grant scope(s) this API key does not hold: {', '.join(missing)}",
            missing[0],
        )
    if principal.agent is not None:
        if spec.agent is None:
            return ApiKeySpec(
                spec.tenant_id,
                spec.display_name,
                spec.scopes,
                principal.agent,
                spec.expire_time,
                spec.request_id,
            )
        if spec.agent != principal.agent:
            raise PermissionDenied(
                f"a key bound to agent {principal.agent!r} can only mint keys bound to it"
            )
    return spec


def authorize_key_change(principal: Principal, key: ApiKey) -> None:
    """Revoking or deleting `key`: nobody may disable a key more powerful than itself.

    Without this a tenant admin of the platform's own tenant could revoke the
    platform administrator's key.
    """
    if principal.is_platform_admin:
        return
    stronger = sorted(key.scopes - principal.scopes)
    if stronger:
        raise PermissionDenied(
            f"cannot change a key holding scope(s) this API key does not hold: "
            f"{', '.join(stronger)}",
            stronger[0],
        )


def authorize_tenant_deletion(principal: Principal, tenant_id: str) -> None:
    require_platform(principal)
    if tenant_id == principal.tenant_id:
        raise FailedPrecondition(
            f"{tenant_name(tenant_id)} holds the calling API key; delete it with a key of "
            "another tenant"
        )
