"""`engram decisions ingest`'s wait until what it stored is searchable."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from datetime import UTC, datetime
from typing import Any

import engram
from engram import IndexStatus
from engram.errors import DeadlineExceeded, PermissionDenied, Unavailable

from engram_server.cli import common


class IndexWait:
    """`ingest`'s wait until what it stored is searchable (unless --no-wait).

    It starts with the first batch: a thread asks read-your-writes searches one
    after another while the batches go out, and the server indexes the tenant's
    backlog for each at serving priority (background indexing is niced, and
    would get little of a busy machine while the ingest itself runs). `finish`
    then shows the backlog and its lag (the age of the oldest write not yet
    searchable) until a search answers with everything indexed; call it inside the
    `with` block, which ends the thread in any case."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.ingested = threading.Event()
        self.stop = threading.Event()
        self.searchable = threading.Event()
        self.error: Exception | None = None
        # What the wait ended with, printed after the ingest's summary.
        self.outcome = ""
        self.thread = threading.Thread(target=self._drive, name="index-wait", daemon=True)

    def __enter__(self) -> IndexWait:
        if not self.args.no_wait:
            self.thread.start()
        return self

    def __exit__(self, kind: Any, error: Any, tb: Any) -> None:
        # After `finish`, or when the ingest stopped early: the thread ends here.
        self._stop()

    def _stop(self) -> None:
        self.stop.set()
        if self.thread.is_alive():
            self.thread.join()

    def _client(self) -> Any:
        # One attempt per call (a refused wait is asked again at once) and room for
        # the server's own wait, which ends between index batches.
        args = self.args
        timeout = max(args.timeout, INDEX_WAIT_CALL_SECONDS)
        return engram.Client(
            args.address, args.api_key, secure=args.secure, timeout=timeout, max_attempts=1
        )

    def _drive(self) -> None:
        try:
            with self._client() as client:
                while not self.stop.is_set():
                    ingested = self.ingested.is_set()
                    try:
                        client.search_decisions("why", k=1, read_your_writes=True)
                    except (Unavailable, DeadlineExceeded):
                        continue  # the server's wait ran out: ask again
                    if ingested:
                        self.searchable.set()
                        return
                    self.stop.wait(INDEX_POLL_SECONDS)  # nothing pending yet
        except Exception as error:  # reported by finish()
            self.error = error

    def finish(self) -> None:
        """Waits (showing progress) until everything stored is searchable."""
        if self.args.no_wait:
            return
        args = self.args
        self.ingested.set()
        show_progress = not args.quiet and not args.json and sys.stderr.isatty()
        started = time.monotonic()
        first: int | None = None
        try:
            with common.make_client(args) as client:
                while self.thread.is_alive():
                    status = client.index_status()
                    pending = status.pending_dense_items
                    first = pending if first is None else first
                    elapsed = time.monotonic() - started
                    if args.wait_timeout and elapsed >= args.wait_timeout:
                        self._stop()
                        if show_progress:
                            print(file=sys.stderr)
                        if not args.json:
                            self.outcome = (
                                f"index: {pending} writes still not searchable after"
                                f" {elapsed:.0f}s; a search with read-your-writes waits for them"
                            )
                        return
                    if show_progress and pending:
                        _index_progress(pending, first, status, elapsed)
                    self.thread.join(INDEX_POLL_SECONDS)
        except PermissionDenied as error:
            self.error = self.error or error
        finally:
            self._stop()
        if show_progress and first:
            print(file=sys.stderr)
        if args.json:
            return
        if not self.searchable.is_set():
            self.outcome = f"index: not waited for ({self.error or 'stopped'})"
            return
        self.outcome = "searchable: every decision stored is in the index" + (
            f" ({time.monotonic() - started:.1f}s after the last batch)" if first else ""
        )


# Client-side deadline of one read-your-writes call of the wait: above the
# server's wait (ENGRAM_READ_YOUR_WRITES_WAIT_MS, default 5 s) plus an index batch.
INDEX_WAIT_CALL_SECONDS = 120.0


# How often the wait shows the index backlog.
INDEX_POLL_SECONDS = 0.5


def _index_progress(pending: int, first: int, status: IndexStatus, elapsed: float) -> None:
    done = max(first - pending, 0)
    lag = ""
    if status.oldest_pending_time is not None:
        age = (datetime.now(UTC) - status.oldest_pending_time).total_seconds()
        lag = f", lag {max(age, 0.0):.0f}s"
    retrying = f", {status.retrying_items} retrying" if status.retrying_items else ""
    rate = done / max(elapsed, 1e-9)
    sys.stderr.write(f"\rindexing: {pending} writes to go{lag}{retrying} ({rate:.0f}/s)".ljust(72))
    sys.stderr.flush()
