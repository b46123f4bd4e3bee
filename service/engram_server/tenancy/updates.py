"""UpdateTenant: the field mask, the new values, and how LLM settings merge.

Pure: no I/O, no protobuf. Mask paths are `display_name`, `quota`, `llm` (the
whole LLM settings) or one LLM field (`llm.model`...). An empty mask means every
field the request sets. The LLM API key is write-only and follows one rule: an
update that does not name it keeps the stored key only while provider and base
URL stay the same, so a key is never sent to a host it was not given for.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from engram_server.errors import InvalidArgument, Violations
from engram_server.llm import LLMConfig
from engram_server.tenancy.model import (
    MAX_DISPLAY_NAME,
    MAX_REQUEST_ID,
    Quota,
    TenantLlmSettings,
)

LLM_PROVIDERS = ("anthropic", "openai")
LLM_FIELDS = ("provider", "base_url", "model", "api_key", "timeout_seconds")
TENANT_PATHS = frozenset({"display_name", "quota", "llm", *(f"llm.{f}" for f in LLM_FIELDS)})
DEFAULT_LLM_TIMEOUT_SECONDS = 30.0
MAX_LLM_TIMEOUT_SECONDS = 600.0
_MAX_MODEL = 256
_MAX_URL = 2048
_MAX_API_KEY = 4096
_URL_PATTERN = re.compile(r"^https?://[^\s/?#]+(/[^\s?#]*)?$")
_INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class LlmInput:
    """The `tenant.llm` message of a request, as given."""

    provider: str = ""
    base_url: str = ""
    model: str = ""
    api_key: str = ""
    timeout_seconds: float = 0.0


@dataclass(frozen=True)
class TenantUpdate:
    """A validated UpdateTenant: None / empty means "leave unchanged"."""

    tenant_id: str
    paths: frozenset[str]
    display_name: str | None
    quota: Quota | None
    # LLM fields to set from `llm` (all of LLM_FIELDS when the mask says `llm`).
    llm_fields: frozenset[str]
    llm: LlmInput

    @property
    def touches_tenant_row(self) -> bool:
        return self.display_name is not None or self.quota is not None


def resolve_paths(
    mask: Iterable[str], *, has_display_name: bool, has_quota: bool, has_llm: bool
) -> frozenset[str]:
    """The mask's paths, or (empty mask) the fields the request sets."""
    paths = frozenset(p.strip() for p in mask)
    if not paths:
        implied = {
            "display_name": has_display_name,
            "quota": has_quota,
            "llm": has_llm,
        }
        paths = frozenset(name for name, present in implied.items() if present)
        if not paths:
            raise InvalidArgument.field("update_mask", "names no field and the tenant sets none")
        return paths
    unknown = sorted(paths - TENANT_PATHS)
    if unknown:
        raise InvalidArgument.field(
            "update_mask",
            f"unknown path(s) {', '.join(repr(p) for p in unknown)}; "
            f"allowed: {', '.join(sorted(TENANT_PATHS))}",
        )
    return paths


def build_tenant_update(
    tenant_id: str,
    paths: frozenset[str],
    *,
    display_name: str,
    quota: Quota,
    llm: LlmInput,
    request_id: str = "",
) -> TenantUpdate:
    """Validates the values of the masked fields (each error names its field)."""
    errors = Violations()
    if len(request_id) > MAX_REQUEST_ID:
        errors.add("request_id", f"must be at most {MAX_REQUEST_ID} characters")
    if "display_name" in paths and len(display_name) > MAX_DISPLAY_NAME:
        errors.add("tenant.display_name", f"must be at most {MAX_DISPLAY_NAME} characters")
    if "quota" in paths:
        limits = {
            "requests_per_second": (quota.requests_per_second, _INT32_MAX),
            "max_memories": (quota.max_memories, 2**63 - 1),
            "max_content_bytes": (quota.max_content_bytes, _INT32_MAX),
        }
        for name, (value, upper) in limits.items():
            if value < 0 or value > upper:
                errors.add(f"tenant.quota.{name}", "must be zero (unlimited) or positive")
    llm_fields = (
        frozenset(LLM_FIELDS)
        if "llm" in paths
        else frozenset(p.removeprefix("llm.") for p in paths if p.startswith("llm."))
    )
    errors.raise_if_any()
    return TenantUpdate(
        tenant_id=tenant_id,
        paths=paths,
        display_name=display_name if "display_name" in paths else None,
        quota=quota if "quota" in paths else None,
        llm_fields=llm_fields,
        llm=llm,
    )


def merge_llm(
    current: LLMConfig | None,
    update: TenantUpdate,
    url_refusal: Callable[[str], str | None] | None = None,
) -> LLMConfig | None:
    """The tenant's LLM settings after `update` (None: none of its own).

    Raises InvalidArgument naming `tenant.llm.<field>` when the result is unusable,
    or when `url_refusal` (the server's egress rule) refuses its base URL.
    """
    fields = update.llm_fields
    given = update.llm
    base = current or LLMConfig(provider="", base_url="", model="", api_key="")
    provider = (given.provider if "provider" in fields else base.provider).strip().lower()
    if not provider:
        return None
    base_url = (given.base_url if "base_url" in fields else base.base_url).strip().rstrip("/")
    model = (given.model if "model" in fields else base.model).strip()
    timeout = given.timeout_seconds if "timeout_seconds" in fields else base.timeout_seconds
    if "api_key" in fields and given.api_key:
        api_key = given.api_key
    elif "api_key" in fields and "provider" not in fields:
        api_key = ""  # `llm.api_key` named alone with an empty value clears it
    elif current is not None and (current.provider, current.base_url) == (provider, base_url):
        api_key = current.api_key
    else:
        api_key = ""
    errors = Violations()
    if provider not in LLM_PROVIDERS:
        errors.add("tenant.llm.provider", f"must be one of {', '.join(LLM_PROVIDERS)} or empty")
    if len(base_url) > _MAX_URL or (base_url and not _URL_PATTERN.fullmatch(base_url)):
        errors.add("tenant.llm.base_url", "must be an http(s) URL such as https://host/v1")
    elif base_url and url_refusal is not None and (refused := url_refusal(base_url)) is not None:
        errors.add("tenant.llm.base_url", refused)
    if not model:
        errors.add("tenant.llm.model", "is required with a provider")
    elif len(model) > _MAX_MODEL or any(c.isspace() for c in model):
        errors.add("tenant.llm.model", f"must be at most {_MAX_MODEL} characters, no spaces")
    if len(api_key) > _MAX_API_KEY or any(c.isspace() or not c.isprintable() for c in api_key):
        errors.add("tenant.llm.api_key", "must be printable without spaces, at most 4096 long")
    if timeout == 0:
        timeout = DEFAULT_LLM_TIMEOUT_SECONDS
    if not math.isfinite(timeout) or timeout <= 0 or timeout > MAX_LLM_TIMEOUT_SECONDS:
        errors.add(
            "tenant.llm.timeout_seconds",
            f"must be 0 (default {DEFAULT_LLM_TIMEOUT_SECONDS:g}) or in (0, "
            f"{MAX_LLM_TIMEOUT_SECONDS:g}]",
        )
    errors.raise_if_any()
    return LLMConfig(provider, base_url, model, api_key, float(timeout))


def llm_view(config: LLMConfig | None) -> TenantLlmSettings | None:
    """What administrators may see of stored settings: everything but the key."""
    if config is None:
        return None
    return TenantLlmSettings(
        provider=config.provider,
        base_url=config.base_url,
        model=config.model,
        api_key_set=bool(config.api_key),
        timeout_seconds=config.timeout_seconds,
    )
