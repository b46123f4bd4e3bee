"""Which chat model serves a tenant: its own settings, else the server-wide ones.

`LLMRegistry.for_tenant` answers from a short per-tenant cache. A change made
through UpdateTenant drops the entry in this process at once (`invalidate`) and in
every other replica through `engram_llm_config` notifications; the TTL bounds the
staleness if a notification is lost. Models are shared by every tenant with the
same settings so their HTTP connection pools are reused; usage is charged to the
tenant named in each call, never to the model.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from engram_server.llm import ChatModel, LLMConfig
from engram_server.llm.anthropic_chat import AnthropicChatModel
from engram_server.llm.base import HTTPChatModel, LLMUsage
from engram_server.llm.openai_chat import OpenAIChatModel
from engram_server.platform.config import Settings
from engram_server.platform.egress import EgressPolicy, GuardedTransport
from engram_server.platform.notify import Notifier
from engram_server.platform.observability import llm_tokens
from engram_server.store import llm_config, llm_usage
from engram_server.store.postgres import Database

log = logging.getLogger(__name__)

PROVIDERS: dict[str, type[HTTPChatModel]] = {
    OpenAIChatModel.provider: OpenAIChatModel,
    AnthropicChatModel.provider: AnthropicChatModel,
}
# Distinct settings kept alive at once; past it the table is rebuilt from use.
_MAX_MODELS = 256


def global_config(settings: Settings) -> LLMConfig | None:
    """The server-wide LLM from `ENGRAM_LLM_*`, or None; bad settings raise ValueError."""
    provider = settings.llm_provider.strip().lower()
    if not provider:
        return None
    if provider not in PROVIDERS:
        raise ValueError(
            f"llm_provider must be one of {', '.join(sorted(PROVIDERS))} or empty, "
            f"not {settings.llm_provider!r}"
        )
    if not settings.llm_model:
        raise ValueError("llm_model is required when llm_provider is set")
    if settings.llm_timeout_seconds <= 0 or settings.llm_max_retries < 0:
        raise ValueError("llm_timeout_seconds must be positive and llm_max_retries >= 0")
    return LLMConfig(
        provider=provider,
        base_url=settings.llm_url,
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        timeout_seconds=settings.llm_timeout_seconds,
    )


class LLMRegistry:
    def __init__(
        self,
        settings: Settings,
        db: Database,
        *,
        notifier: Notifier | None = None,
        cache_seconds: float = 30.0,
        model_options: dict[str, Any] | None = None,
    ) -> None:
        self._settings = settings
        self._db = db
        self._global = global_config(settings)
        self._cache_seconds = cache_seconds
        self._options: dict[str, Any] = {"max_retries": settings.llm_max_retries}
        self._options.update(model_options or {})
        self._tenants: dict[str, tuple[float, HTTPChatModel | None]] = {}
        # Keyed by the config and whether the tenant chose it: a tenant's own
        # endpoint is reached through the egress guard, the operator's directly.
        self._models: dict[tuple[LLMConfig, bool], HTTPChatModel] = {}
        self._egress = EgressPolicy.from_settings(settings)
        self._notifier = notifier
        if notifier is not None:
            notifier.add_listener(llm_config.CHANGES_CHANNEL, self._on_notice)
            notifier.add_reconnect_hook(self.invalidate)

    @property
    def global_config(self) -> LLMConfig | None:
        return self._global

    async def for_tenant(self, tenant_id: str) -> ChatModel | None:
        """The tenant's own model, else the server-wide one, else None (no LLM)."""
        now = time.monotonic()
        cached = self._tenants.get(tenant_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        own = await llm_config.get_tenant_llm_config(self._db, tenant_id)
        if own is not None:
            model: HTTPChatModel | None = self._model(own, tenant_chosen=True)
        elif self._global is not None:
            model = self._model(self._global, tenant_chosen=False)
        else:
            model = None
        self._tenants[tenant_id] = (now + self._cache_seconds, model)
        return model

    def invalidate(self, tenant_id: str | None = None) -> None:
        """Forgets one tenant's cached choice (None: every tenant's)."""
        if tenant_id is None:
            self._tenants.clear()
        else:
            self._tenants.pop(tenant_id, None)

    def _on_notice(self, payload: str) -> None:
        self.invalidate(payload or None)

    def _model(self, config: LLMConfig, *, tenant_chosen: bool) -> HTTPChatModel:
        key = (config, tenant_chosen)
        model = self._models.get(key)
        if model is None:
            if len(self._models) >= _MAX_MODELS:
                # Unreferenced models are collected; cached ones stay alive.
                self._models.clear()
            options = dict(self._options)
            if tenant_chosen:
                options["transport"] = GuardedTransport(self._egress)
            model = PROVIDERS[config.provider](config, usage_sink=self._record_usage, **options)
            self._models[key] = model
        return model

    async def _record_usage(self, usage: LLMUsage) -> None:
        labels = {"gen_ai.provider.name": usage.provider, "gen_ai.request.model": usage.model}
        llm_tokens.add(usage.prompt_tokens, {**labels, "gen_ai.token.type": "input"})
        llm_tokens.add(usage.completion_tokens, {**labels, "gen_ai.token.type": "output"})
        await llm_usage.record_usage(self._db, usage)

    async def close(self) -> None:
        if self._notifier is not None:
            self._notifier.remove_listener(llm_config.CHANGES_CHANNEL, self._on_notice)
            self._notifier.remove_reconnect_hook(self.invalidate)
        models = {id(m): m for m in self._models.values()}
        models.update({id(m): m for _, m in self._tenants.values() if m is not None})
        self._models.clear()
        self._tenants.clear()
        for model in models.values():
            await model.aclose()
