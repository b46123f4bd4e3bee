"""`engram maintenance ...`: operator repairs run against the stores directly."""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import asdict
from typing import Any

from engram_server.cli.common import Commands, UsageError


def register(commands: Commands[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "maintenance", help="operator repairs run against PostgreSQL and Redis directly"
    )
    sub = p.add_subparsers(dest="maintenance_command", metavar="COMMAND", required=True)
    p = sub.add_parser(
        "session-decisions",
        help=(
            "find the decisions IngestSession mined before it recorded their session's space;"
            " re-attribute them or remove them (--apply)"
        ),
    )
    p.add_argument("--tenant", action="append", default=[], help="only this tenant (repeatable)")
    p.add_argument("--apply", action="store_true", help="make the changes (default: list them)")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $ENGRAM_DATABASE_URL)")
    p.add_argument("--redis-url", help="Redis URL (default: $ENGRAM_REDIS_URL)")
    p.add_argument("--config", help="TOML settings file")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.set_defaults(handler=session_decisions)


def session_decisions(args: argparse.Namespace) -> int:
    from engram_server.platform.config import load_settings
    from engram_server.services.maintenance import SessionLookup, attribute_session_decisions
    from engram_server.store.postgres import Database

    overrides: dict[str, Any] = {"database_url": args.database_url}
    if args.redis_url:
        overrides["redis_url"] = args.redis_url
    settings = load_settings(args.config, **overrides)
    if not settings.database_url:
        raise UsageError("no database: pass --database-url or set ENGRAM_DATABASE_URL")

    async def run() -> Any:
        from engram_server.store.redis import RedisStore

        db = Database(settings.database_url, 1, 2)
        await db.open()
        # Without Redis, sessions are found in PostgreSQL only.
        redis = RedisStore(settings.redis_url) if settings.redis_url else None
        try:
            return await attribute_session_decisions(
                db,
                SessionLookup(redis.client if redis else None),
                tenants=args.tenant,
                apply=args.apply,
            )
        finally:
            if redis is not None:
                await redis.close()
            await db.close()

    repairs = asyncio.run(run())
    for r in repairs:
        if args.json:
            print(json.dumps(asdict(r)))
        else:
            target = f" -> {r.source_space}" if r.source_space else ""
            print(f"{r.tenant} {r.decision} {r.action}{target}: {r.why}")
    if not args.json:
        done = "done" if args.apply else "to do (run again with --apply)"
        print(f"{len(repairs)} unattributed session decision(s), {done}")
    return 0
