"""The process-wide dependencies every servicer receives."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engram_server.platform.config import Settings
from engram_server.platform.notify import Notifier
from engram_server.store.postgres import Database
from engram_server.store.redis import RedisStore

if TYPE_CHECKING:
    from engram_server.llm.registry import LLMRegistry
    from engram_server.platform.interceptors.ratelimit import RateLimitInterceptor
    from engram_server.services.evidence import EvidenceService
    from engram_server.services.lifecycle import LifecycleService
    from engram_server.services.recall_runtime import RecallRuntime
    from engram_server.services.working_memory import WorkingMemory


@dataclass
class AppContext:
    settings: Settings
    db: Database
    redis: RedisStore
    # LISTEN/NOTIFY fan-out (channels `engram_keys`, `engram_audit`, ...). Built
    # unconnected when not given; `platform.server.build_context` starts it.
    notifier: Notifier = field(default_factory=Notifier)
    # Vector index, embedder and indexing worker; built by the RecallService
    # servicer, used by the write path for near-duplicate checks.
    recall: RecallRuntime | None = None
    # Chat model per tenant (its own LLM settings, else `ENGRAM_LLM_*`, else none);
    # built by `platform.server.build_context`.
    llm: LLMRegistry | None = None
    # Session buffers in Redis (AppendMessage, Engage, Reflect, Consolidate); set
    # by `platform.server.build_context`.
    working_memory: WorkingMemory | None = None
    # The lifecycle write path (policies, privacy boundary); set when the
    # LifecycleService servicer is built, so Engage screens with the same policies.
    lifecycle: LifecycleService | None = None
    # Grades, edges and conflicts; set when the EvidenceService servicer is first used.
    evidence: EvidenceService | None = None

    # The tenant request-rate quota every call passes; set by `server_interceptors`,
    # read by streams whose messages count as requests of their own.
    rate_limit: RateLimitInterceptor | None = None

    def __post_init__(self) -> None:
        if not self.notifier.url:
            self.notifier.url = self.db.url

    async def close(self) -> None:
        """Stops the notifier and closes the pools (each step even if one fails)."""
        if self.llm is not None:
            with contextlib.suppress(Exception):
                await self.llm.close()
        with contextlib.suppress(Exception):
            await self.notifier.stop()
        try:
            await self.db.close()
        finally:
            await self.redis.close()
