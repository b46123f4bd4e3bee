"""The process-wide dependencies every servicer receives."""

from __future__ import annotations

from dataclasses import dataclass

from engram_server.platform.config import Settings
from engram_server.store.postgres import Database
from engram_server.store.redis import RedisStore


@dataclass
class AppContext:
    settings: Settings
    db: Database
    redis: RedisStore
