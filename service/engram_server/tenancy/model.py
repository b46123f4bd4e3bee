"""Tenants and API keys as the domain sees them, and the rules their inputs obey.

Pure: no I/O, no protobuf. Validation reports every bad field at once, each named
by its request path (`tenant_id`, `api_key.scopes`...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from engram_server.errors import InvalidArgument, Violations
from engram_server.platform.principal import ALL_SCOPES

TENANT_ID_PATTERN = re.compile(r"^[a-z][a-z0-9-]{2,62}$")
KEY_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
AGENT_PATTERN = re.compile(r"^[A-Za-z0-9._:@/-]{1,128}$")
MAX_DISPLAY_NAME = 256
MAX_REQUEST_ID = 128
# Minted secrets are `egk_<key id>_<random>`, so 12 characters show the key id
# and none of the random part.
SECRET_PREFIX_CHARS = 12

_INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Quota:
    """Per-tenant limits; zero means unlimited."""

    requests_per_second: int = 0
    max_memories: int = 0
    max_content_bytes: int = 0


@dataclass(frozen=True)
class TenantSpec:
    """A validated request to create a tenant."""

    tenant_id: str
    display_name: str
    quota: Quota
    request_id: str | None = None


@dataclass(frozen=True)
class TenantLlmSettings:
    """A tenant's own LLM provider as shown to administrators: never the key."""

    provider: str
    base_url: str
    model: str
    api_key_set: bool
    timeout_seconds: float


@dataclass(frozen=True)
class Tenant:
    tenant_id: str
    display_name: str
    quota: Quota
    create_time: datetime
    create_request_id: str | None = None
    # Filled by the operations that show a tenant; None: no LLM of its own.
    llm: TenantLlmSettings | None = None


@dataclass(frozen=True)
class ApiKeySpec:
    """A validated request to mint a key in `tenant_id`."""

    tenant_id: str
    display_name: str
    scopes: frozenset[str]
    agent: str | None
    expire_time: datetime | None
    request_id: str | None = None

    def same_key_as(self, key: ApiKey) -> bool:
        """Whether `key` is what this spec would create (for idempotent retries)."""
        return (
            key.display_name == self.display_name
            and key.scopes == self.scopes
            and key.agent == self.agent
            and key.expire_time == self.expire_time
        )


@dataclass(frozen=True)
class ApiKey:
    """A stored key, never its secret."""

    tenant_id: str
    key_id: str
    display_name: str
    scopes: frozenset[str]
    agent: str | None
    expire_time: datetime | None
    revoke_time: datetime | None
    create_time: datetime
    secret_prefix: str
    create_request_id: str | None = None

    def active_at(self, now: datetime) -> bool:
        if self.revoke_time is not None and self.revoke_time <= now:
            return False
        return self.expire_time is None or self.expire_time > now


@dataclass(frozen=True)
class MintedKey:
    """A key just created (or re-issued on retry) with its one-time secret."""

    key: ApiKey
    secret: str


@dataclass(frozen=True)
class Usage:
    tenant_id: str
    memories_by_status: dict[str, int]
    live_memories: int
    active_api_keys: int
    audit_entries: int
    # Prompt plus completion tokens per LLM provider.
    llm_tokens: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TenantDeletion:
    """What deleting a tenant removed: rows per table and Redis keys."""

    deleted_rows: dict[str, int]
    deleted_cache_keys: int


def tenant_name(tenant_id: str) -> str:
    return f"tenants/{tenant_id}"


def key_name(tenant_id: str, key_id: str) -> str:
    return f"tenants/{tenant_id}/apiKeys/{key_id}"


def secret_prefix(secret: str) -> str:
    return secret[:SECRET_PREFIX_CHARS]


def _check_tenant_id(value: str, field_path: str, errors: Violations) -> None:
    if not value:
        errors.add(field_path, "is required")
    elif not TENANT_ID_PATTERN.fullmatch(value):
        errors.add(
            field_path,
            "must be 3-63 characters of [a-z0-9-] starting with a lowercase letter",
        )


def validate_tenant_id(value: str, field_path: str = "tenant_id") -> str:
    errors = Violations()
    _check_tenant_id(value, field_path, errors)
    errors.raise_if_any()
    return value


def parse_tenant_name(name: str, field_path: str = "name") -> str:
    """`tenants/{tenant}` -> tenant id."""
    parts = name.split("/")
    if not name:
        raise InvalidArgument.field(field_path, "is required")
    if len(parts) != 2 or parts[0] != "tenants" or not TENANT_ID_PATTERN.fullmatch(parts[1]):
        raise InvalidArgument.field(field_path, "must be tenants/{tenant}")
    return parts[1]


def parse_key_name(name: str, field_path: str = "name") -> tuple[str, str]:
    """`tenants/{tenant}/apiKeys/{api_key}` -> (tenant id, key id)."""
    parts = name.split("/")
    if not name:
        raise InvalidArgument.field(field_path, "is required")
    if (
        len(parts) != 4
        or parts[0] != "tenants"
        or parts[2] != "apiKeys"
        or not TENANT_ID_PATTERN.fullmatch(parts[1])
        or not KEY_ID_PATTERN.fullmatch(parts[3])
    ):
        raise InvalidArgument.field(field_path, "must be tenants/{tenant}/apiKeys/{api_key}")
    return parts[1], parts[3]


def _check_display_name(value: str, field_path: str, errors: Violations) -> None:
    if len(value) > MAX_DISPLAY_NAME:
        errors.add(field_path, f"must be at most {MAX_DISPLAY_NAME} characters")


def _check_request_id(value: str, errors: Violations) -> str | None:
    if len(value) > MAX_REQUEST_ID:
        errors.add("request_id", f"must be at most {MAX_REQUEST_ID} characters")
    return value or None


def build_tenant_spec(
    tenant_id: str, display_name: str, quota: Quota, request_id: str = ""
) -> TenantSpec:
    errors = Violations()
    _check_tenant_id(tenant_id, "tenant_id", errors)
    _check_display_name(display_name, "tenant.display_name", errors)
    limits = {
        "requests_per_second": (quota.requests_per_second, _INT32_MAX),
        "max_memories": (quota.max_memories, 2**63 - 1),
        "max_content_bytes": (quota.max_content_bytes, _INT32_MAX),
    }
    for name, (value, upper) in limits.items():
        if value < 0 or value > upper:
            errors.add(f"tenant.quota.{name}", "must be zero (unlimited) or positive")
    rid = _check_request_id(request_id, errors)
    errors.raise_if_any()
    return TenantSpec(tenant_id, display_name, quota, rid)


def _check_scopes(scopes: Iterable[str], field_path: str, errors: Violations) -> frozenset[str]:
    wanted = frozenset(scopes)
    if not wanted:
        errors.add(field_path, f"must name at least one of {', '.join(sorted(ALL_SCOPES))}")
    unknown = sorted(wanted - ALL_SCOPES)
    if unknown:
        errors.add(
            field_path,
            f"unknown scope(s) {', '.join(repr(s) for s in unknown)}; "
            f"allowed: {', '.join(sorted(ALL_SCOPES))}",
        )
    return wanted


def validate_scopes(scopes: Iterable[str], field_path: str = "api_key.scopes") -> frozenset[str]:
    errors = Violations()
    wanted = _check_scopes(scopes, field_path, errors)
    errors.raise_if_any()
    return wanted


def build_key_spec(
    tenant_id: str,
    *,
    display_name: str,
    scopes: Iterable[str],
    agent: str,
    expire_time: datetime | None,
    now: datetime,
    request_id: str = "",
) -> ApiKeySpec:
    """Validates a CreateApiKey request body (the parent is already parsed)."""
    errors = Violations()
    _check_display_name(display_name, "api_key.display_name", errors)
    wanted = _check_scopes(scopes, "api_key.scopes", errors)
    if agent and not AGENT_PATTERN.fullmatch(agent):
        errors.add("api_key.agent", "must be 1-128 characters of [A-Za-z0-9._:@/-]")
    if expire_time is not None and expire_time <= now:
        errors.add("api_key.expire_time", "must be in the future")
    rid = _check_request_id(request_id, errors)
    errors.raise_if_any()
    return ApiKeySpec(tenant_id, display_name, wanted, agent or None, expire_time, rid)
