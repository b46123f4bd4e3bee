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
    from engram_server.services.recall_runtime import RecallRuntime


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

    def __post_init__(self) -> None:
        if not self.notifier.url:
            self.notifier.url = self.db.url

    async def close(self) -> None:
        """Stops the notifier and closes the pools (each step even if one fails)."""
        with contextlib.suppress(Exception):
            await self.notifier.stop()
        try:
            await self.db.close()
        finally:
            await self.redis.close()
