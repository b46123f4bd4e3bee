"""`engram index status` (over gRPC) and `engram reindex` (direct to the stores)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import TYPE_CHECKING, Any, Literal

import grpc
from engram import _auth, errors
from engram.v1 import recall_pb2, recall_pb2_grpc

from engram_server.cli import common
from engram_server.cli.common import Commands, UsageError

if TYPE_CHECKING:
    from engram_server.services.reindex import ReindexProgress

# How often `engram reindex` reports its progress.
PROGRESS_SECONDS = 1.0


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    index = commands.add_parser("index", help="inspect the search index")
    sub = index.add_subparsers(dest="index_command", metavar="COMMAND", required=True)
    p = sub.add_parser(
        "status",
        help="the calling tenant's indexing backlog, indexed memories and model",
        parents=[parent],
    )
    p.set_defaults(handler=status)

    p = commands.add_parser(
        "reindex",
        help="rebuild the vector index from PostgreSQL",
        description=(
            "Connects to the database directly (ENGRAM_DATABASE_URL or --config), empties "
            "the vector index and recreates it for the configured embedding model, queues "
            "every memory of every tenant for indexing and, unless --no-drain, indexes them "
            "before returning. The embedded vector index belongs to one process: stop the "
            "server first. With a Qdrant server backend, --no-drain leaves the work to the "
            "running servers."
        ),
    )
    p.add_argument("--config", help="TOML settings file (default: $ENGRAM_CONFIG)")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $ENGRAM_DATABASE_URL)")
    p.add_argument(
        "--no-drain",
        action="store_true",
        help="only queue the work; running servers' indexing workers do it",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(handler=reindex)


def status(args: argparse.Namespace) -> int:
    client = common.make_client(args)
    try:
        stub = recall_pb2_grpc.RecallServiceStub(client.channel)
        metadata = _auth.auth_metadata(_auth.resolve_api_key(args.api_key))
        try:
            response = stub.GetIndexStatus(
                recall_pb2.GetIndexStatusRequest(), timeout=args.timeout, metadata=metadata
            )
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
    finally:
        client.close()
    values = status_fields(response)
    if args.json:
        print(json.dumps(values))
        return 0
    width = max(len(key) for key in values)
    for key, value in values.items():
        print(f"{key.ljust(width)}  {_shown(value)}")
    return 0


def _shown(value: Any) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def status_fields(response: recall_pb2.IndexStatus) -> dict[str, Any]:
    """The status as flat, JSON-ready fields."""

    def when(field: Literal["oldest_pending_time", "last_indexed_time"]) -> str | None:
        if not response.HasField(field):
            return None
        stamp = getattr(response, field)
        return str(stamp.ToDatetime().isoformat() + "Z")

    return {
        "pending_items": response.pending_dense_items,
        "pending_lexical_items": response.pending_lexical_items,
        "retrying_items": response.retrying_items,
        "oldest_pending_time": when("oldest_pending_time"),
        "indexed_memories": response.indexed_memories,
        "embedding_model": response.embedding_model,
        "embedding_dimension": response.embedding_dimension,
        "vector_backend": response.vector_backend,
        "reindex_required": response.reindex_required,
        "reindexing": response.reindexing,
        "last_indexed_time": when("last_indexed_time"),
    }


def reindex(args: argparse.Namespace) -> int:
    # Server modules (the embedder, the vector engine) load only for this command.
    from engram_server.platform.config import load_settings
    from engram_server.services.reindex import IndexInUse
    from engram_server.services.reindex import reindex as rebuild
    from engram_server.store.migrate import migrate
    from engram_server.store.postgres import Database

    settings = load_settings(args.config, database_url=args.database_url)
    if not settings.database_url:
        raise UsageError("no database: pass --database-url or set ENGRAM_DATABASE_URL")
    drain = not args.no_drain

    last_report = [0.0]

    def progress(p: ReindexProgress) -> None:
        now = time.monotonic()
        if p.pending and now - last_report[0] < PROGRESS_SECONDS:
            return
        last_report[0] = now
        print(f"indexed {p.indexed}/{p.queued} ({p.pending} pending)", file=sys.stderr, flush=True)

    async def run() -> Any:
        if settings.migrate_on_start:
            await asyncio.to_thread(migrate, settings.database_url)
        db = Database(settings.database_url, 1, 4)
        await db.open()
        try:
            return await rebuild(settings, db, drain_outbox=drain, progress=progress)
        finally:
            await db.close()

    try:
        report = asyncio.run(run())
    except IndexInUse as error:
        print(f"engram: error: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(
            json.dumps(
                {
                    "model": report.model,
                    "dimension": report.dimension,
                    "backend": report.backend,
                    "queued": report.total,
                    "tenants": len(report.queued),
                    "drained": report.drained,
                    "pending": report.pending,
                }
            )
        )
    elif not drain:
        print(
            f"queued {report.total} memories of {len(report.queued)} tenants for "
            f"{report.model!r} ({report.dimension} dimensions); running servers index them"
        )
    elif report.drained:
        print(
            f"reindexed {report.total} memories of {len(report.queued)} tenants with "
            f"{report.model!r} ({report.dimension} dimensions)"
        )
    else:
        print(
            f"reindex stalled with {report.pending} of {report.total} items pending; they "
            "stay queued and a running server indexes them (see `engram index status`)",
            file=sys.stderr,
        )
        return 1
    return 0
