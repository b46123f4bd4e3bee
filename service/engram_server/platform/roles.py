"""What one `engram serve` process does: its role (`ENGRAM_ROLE`).

Kubernetes scales serving and embedding separately when the two run as separate
Deployments: API pods answer calls, indexer pods drain the outbox into the vector
index. Both in one process (`all`) stays the default. Background work claims its
rows with `FOR UPDATE SKIP LOCKED`, so any number of indexer (or `all`) processes
share it; an `api` process runs none of it, though a read-your-writes Recall still
indexes its own tenant's pending items on the spot.
"""

from __future__ import annotations

from enum import StrEnum

from engram_server.platform.config import Settings


class Role(StrEnum):
    ALL = "all"
    API = "api"
    INDEXER = "indexer"


def role_of(settings: Settings) -> Role:
    try:
        return Role(settings.role.strip().lower())
    except ValueError:
        choices = ", ".join(r.value for r in Role)
        raise ValueError(f"ENGRAM_ROLE: expected one of {choices}, got {settings.role!r}") from None


def serves_api(settings: Settings) -> bool:
    """The engram.v1 services are served (roles `all` and `api`)."""
    return role_of(settings) is not Role.INDEXER


def runs_background(settings: Settings) -> bool:
    """Outbox indexing, expiry sweeps, assessments and the backlog gauges run here
    (roles `all` and `indexer`)."""
    return role_of(settings) is not Role.API


def indexes(settings: Settings) -> bool:
    """The outbox indexing worker runs here."""
    return runs_background(settings) and settings.index_worker
