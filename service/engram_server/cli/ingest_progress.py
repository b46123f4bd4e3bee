"""Progress of `engram decisions ingest` on stderr.

On a terminal, one bar redrawn in place; otherwise (a log, CI) a plain line
every few seconds, so a long run still shows it is alive without flooding.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from engram_server.cli.ingest_history import IngestTally

PLAIN_EVERY_SECONDS = 10.0
BAR_WIDTH = 30


class IngestProgress:
    def __init__(self, total: int, shown: bool = True, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.shown = shown
        self.tty = self.stream.isatty()
        self._last_plain = time.monotonic()
        self._drawn = False

    def update(self, tally: IngestTally) -> None:
        if not self.shown:
            return
        done = tally.read
        rate = done / tally.seconds if tally.seconds > 0 else 0.0
        counts = f"{done}/{self.total} commits ({rate:.0f}/s), {tally.stored} decisions"
        if self.tty:
            filled = int(BAR_WIDTH * done / self.total) if self.total else BAR_WIDTH
            bar = "#" * min(filled, BAR_WIDTH) + "." * max(BAR_WIDTH - filled, 0)
            self.stream.write(f"\r[{bar}] {counts}")
            self._drawn = True
        elif time.monotonic() - self._last_plain >= PLAIN_EVERY_SECONDS:
            self._last_plain = time.monotonic()
            self.stream.write(f"ingest: {counts}\n")
        self.stream.flush()

    def clear(self) -> None:
        """Ends the bar's line, before other output."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def done(self) -> None:
        self.clear()
