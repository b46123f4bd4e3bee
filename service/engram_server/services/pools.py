"""PoolService's unary use cases in one object: pools and members (pool_admin),
publishing, reviews and trust (pool_publishing) and topics (pool_streams). The
domain rules they apply (names, roles, the gate) live in `engram_server.pools`."""

from __future__ import annotations

from engram_server.services.pool_admin import PoolAdmin
from engram_server.services.pool_publishing import PoolPublishing
from engram_server.services.pool_streams import PoolTopics


class PoolOperations(PoolAdmin, PoolPublishing, PoolTopics):
    """Every unary PoolService RPC, on one database."""
