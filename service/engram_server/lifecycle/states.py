"""The lifecycle state machine. Every status change is checked here first."""

from __future__ import annotations

from engram_server.errors import InvalidTransition
from engram_server.lifecycle.model import Status

ALLOWED_TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.PROPOSED: frozenset({Status.ACTIVE, Status.PENDING_CONFIRMATION, Status.REJECTED}),
    Status.PENDING_CONFIRMATION: frozenset({Status.ACTIVE, Status.RETRACTED}),
    Status.ACTIVE: frozenset({Status.RETRACTED, Status.EXPIRED, Status.SUPERSEDED}),
    Status.REJECTED: frozenset(),
    Status.RETRACTED: frozenset(),
    Status.EXPIRED: frozenset(),
    Status.SUPERSEDED: frozenset(),
}

TERMINAL_STATUSES = frozenset(s for s, nxt in ALLOWED_TRANSITIONS.items() if not nxt)


def can_transition(from_status: Status, to_status: Status) -> bool:
    return to_status in ALLOWED_TRANSITIONS[from_status]


def check_transition(memory_name: str, from_status: Status, to_status: Status) -> None:
    """Raises InvalidTransition (FAILED_PRECONDITION) for a forbidden move."""
    if not can_transition(from_status, to_status):
        raise InvalidTransition(memory_name, from_status.value, to_status.value)
