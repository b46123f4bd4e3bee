"""The process-wide dependencies every servicer receives."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from engram_server.platform.config import Settings
from engram_server.platform.notify import Notifier
from engram_server.store.postgres import Database
from engram_server.store.redis import RedisStore


@dataclass
class AppContext:
    settings: Settings
    db: Database
    redis: RedisStore
    # LISTEN/NOTIFY fan-out (channels `engram_keys`, `engram_audit`, ...). Built
    # unconnected when not given; `platform.server.build_context` starts it.
    notifier: Notifier = field(default_factory=Notifier)

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
