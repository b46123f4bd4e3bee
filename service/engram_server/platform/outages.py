"""One log line when a store becomes unreachable, one when it is back.

While PostgreSQL or Redis is down, every call that needs it fails with
UNAVAILABLE. Logging each of those with its traceback buries the log (a Redis
outage of 2.3 seconds once wrote 112 tracebacks). Instead the first failure logs
the outage, with its traceback and error id; the later ones are counted, and their
own line with their error id is at DEBUG. The outage ends when a method that failed
during it succeeds again (it needs the store, so the store answers): that logs how
long it lasted and how many calls failed.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

import grpc
import psycopg
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from engram_server.store.redis import is_unreachable as redis_unreachable

log = logging.getLogger(__name__)


def unreachable_store(exc: BaseException) -> str | None:
    """The store whose unreachability caused `exc` ("Redis", "PostgreSQL"), if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, RedisConnectionError | RedisTimeoutError) or (
            isinstance(current, RuntimeError) and redis_unreachable(current)
        ):
            return "Redis"
        if isinstance(current, psycopg.OperationalError):
            return "PostgreSQL"
        current = current.__cause__ or current.__context__
    return None


@dataclass
class _Outage:
    first_error_id: str
    started: float = field(default_factory=time.monotonic)
    failed_calls: int = 0
    methods: set[str] = field(default_factory=set)


class OutageLog:
    """The open outages seen by one server's calls, by store."""

    def __init__(self) -> None:
        self._open: dict[str, _Outage] = {}
        self._lock = threading.Lock()  # the sync SDK's tests drive servers from threads

    def failed(self, store: str, method: str, error_id: str) -> None:
        """Records a call that failed because `store` is unreachable; call it from
        the `except` block, so the first one logs the traceback."""
        with self._lock:
            outage = self._open.get(store)
            starts = outage is None
            if outage is None:
                outage = self._open[store] = _Outage(error_id)
            outage.failed_calls += 1
            outage.methods.add(method)
        if starts:
            log.error(
                "%s unreachable: calls that need it answer UNAVAILABLE until it is back"
                " (first: %s, error id %s)",
                store,
                method,
                error_id,
                exc_info=True,
            )
        log.debug("%s failed (error id %s): %s unreachable", method, error_id, store)

    def finished(self, method: str, code: grpc.StatusCode) -> None:
        """Closes every outage during which `method` failed, once it succeeds."""
        if code != grpc.StatusCode.OK or not self._open:
            return
        with self._lock:
            ended = [store for store, o in self._open.items() if method in o.methods]
            closed = [(store, self._open.pop(store)) for store in ended]
        for store, outage in closed:
            log.warning(
                "%s reachable again after %.1f s; %d call(s) failed with UNAVAILABLE"
                " meanwhile (the first: error id %s)",
                store,
                time.monotonic() - outage.started,
                outage.failed_calls,
                outage.first_error_id,
            )


# For the interceptors used on their own (the server's CallGuard keeps its own).
OUTAGES = OutageLog()
