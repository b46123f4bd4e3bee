"""A short-lived, per-process cache of the write limits of spaces.

Every proposal needs its space's policy; reading it costs a transaction. Entries
live a few seconds and are dropped at once when a policy changes: locally by
SetPolicy, on every other replica by the `engram_policy` NOTIFY it sends.
"""

from __future__ import annotations

import time

from engram_server.store.policies import WriteLimits

POLICY_CHANNEL = "engram_policy"
TTL_SECONDS = 5.0
MAX_ENTRIES = 10_000


class PolicyCache:
    def __init__(self, ttl: float = TTL_SECONDS) -> None:
        self.ttl = ttl
        self._entries: dict[tuple[str, str], tuple[float, WriteLimits]] = {}

    def get(self, tenant: str, space: str) -> WriteLimits | None:
        entry = self._entries.get((tenant, space))
        if entry is None or entry[0] < time.monotonic():
            return None
        return entry[1]

    def put(self, tenant: str, space: str, limits: WriteLimits) -> None:
        if len(self._entries) >= MAX_ENTRIES:
            self._entries.clear()
        self._entries[(tenant, space)] = (time.monotonic() + self.ttl, limits)

    def invalidate_tenant(self, tenant: str) -> None:
        """Drops a tenant's entries (NOTIFY callback; the payload is the tenant)."""
        for cached in [k for k in self._entries if k[0] == tenant]:
            del self._entries[cached]
