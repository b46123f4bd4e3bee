"""The event loop the server runs on.

`uvloop` (libuv, written in C) runs the same asyncio code as the standard loop
with less interpreter work per callback, socket wake-up and timer. Every call the
server answers passes through the loop several times (gRPC, then each PostgreSQL
and Redis round trip), so the server runs on uvloop wherever it is installed
(Linux and macOS, where it is a dependency), and on the standard loop otherwise or
when `ENGRAM_EVENT_LOOP=asyncio` asks for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

EVENT_LOOPS = ("uvloop", "asyncio")


def check_event_loop(choice: str) -> None:
    if choice not in EVENT_LOOPS:
        raise ValueError(
            f"setting event_loop: expected one of {', '.join(EVENT_LOOPS)}, got {choice!r}"
        )


def loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """A factory of the chosen loop; None means asyncio's standard loop."""
    check_event_loop(choice)
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        log.warning("uvloop is not installed here; running on the standard asyncio loop")
        return None
    return uvloop.new_event_loop


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """`uvloop` or `asyncio`: which kind of loop `loop` is."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


def run(main: Coroutine[Any, Any, T], factory: Callable[[], asyncio.AbstractEventLoop] | None) -> T:
    """Runs `main` to completion on a new loop from `factory` (see `loop_factory`)."""
    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main)
