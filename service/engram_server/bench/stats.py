"""Latency and throughput summaries shared by every benchmark."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

R = TypeVar("R")


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between ranks."""
    if not values:
        raise ValueError("percentile of no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    if low == high:
        return ordered[low]
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


@dataclass(frozen=True)
class Latency:
    """Milliseconds of one repeated operation."""

    samples: int
    p50_ms: float
    p99_ms: float
    mean_ms: float
    min_ms: float
    max_ms: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000.0 for s in seconds]
        return cls(
            samples=len(ms),
            p50_ms=round(percentile(ms, 50), 4),
            p99_ms=round(percentile(ms, 99), 4),
            mean_ms=round(sum(ms) / len(ms), 4),
            min_ms=round(min(ms), 4),
            max_ms=round(max(ms), 4),
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Throughput:
    """Items written per second of back-to-back batch calls.

    The seconds are the batch calls' own, summed: the time between calls (the
    client building the next request, or the other side's turn) is not counted.
    """

    items: int
    batches: int
    seconds: float
    items_per_second: float
    batch: Latency

    @classmethod
    def of(cls, items: int, batch_seconds: Sequence[float]) -> Throughput:
        return cls.over_wall(items, batch_seconds, sum(batch_seconds))

    @classmethod
    def over_wall(
        cls, items: int, batch_seconds: Sequence[float], wall_seconds: float
    ) -> Throughput:
        """Items per second of wall time, for batch calls made concurrently (their
        own seconds overlap, so they cannot be summed)."""
        return cls(
            items=items,
            batches=len(batch_seconds),
            seconds=round(wall_seconds, 4),
            items_per_second=round(items / wall_seconds, 1) if wall_seconds > 0 else 0.0,
            batch=Latency.of(batch_seconds),
        )

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["batch"] = self.batch.to_json()
        return out


async def alternating(
    count: int,
    warmup: int,
    first: Callable[[int], Awaitable[Any]],
    second: Callable[[int], Awaitable[R]],
) -> tuple[list[float], list[float], list[R]]:
    """Times two kinds of call side by side: `first(i)` and `second(i)` for each i,
    the one or the other going first in turn (so neither always meets a cache the
    other warmed). The first `warmup` pairs are not counted. Returns the seconds
    of each kind, and the replies of `second` counted."""
    a: list[float] = []
    b: list[float] = []
    replies: list[R] = []
    for i in range(count):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        for which in order:
            start = time.perf_counter()
            if which == 0:
                await first(i)
            else:
                reply = await second(i)
            elapsed = time.perf_counter() - start
            if i < warmup:
                continue
            if which == 0:
                a.append(elapsed)
            else:
                b.append(elapsed)
                replies.append(reply)
    return a, b, replies
