"""`engram serve | migrate | config show`, and the lazily loaded `bench` / `eval`."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engram_server.cli.common import Commands, UsageError

if TYPE_CHECKING:
    from engram_server.platform.config import Settings

# Subcommands implemented by optional modules, each exposing `main(argv) -> int`.
_DELEGATED = {
    "bench": ("engram_server.bench", "measure a running server (see `engram bench --help`)"),
    "eval": ("engram_server.eval", "evaluate recall quality (see `engram eval --help`)"),
}


def register(commands: Commands[argparse.ArgumentParser]) -> None:
    p = commands.add_parser("serve", help="run the gRPC server")
    p.add_argument(
        "--dev",
        action="store_true",
        help="start embedded PostgreSQL and Redis when their URLs are unset; print a dev key",
    )
    p.add_argument(
        "--new-key",
        action="store_true",
        help="with --dev: mint a new dev key instead of the one kept in the data dir",
    )
    p.add_argument("--config", help="TOML settings file (default: $ENGRAM_CONFIG)")
    p.add_argument("--listen", help="address to listen on (default: $ENGRAM_LISTEN)")
    p.add_argument(
        "--role",
        choices=("all", "api", "indexer"),
        help="api: serve calls only; indexer: background indexing, health and metrics "
        "only; all: both (default: $ENGRAM_ROLE, else all)",
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="N server processes sharing the port (SO_REUSEPORT); needs the Qdrant "
        "server backend (default: $ENGRAM_WORKERS, else 1)",
    )
    p.set_defaults(handler=serve)

    p = commands.add_parser("migrate", help="apply pending database migrations")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $ENGRAM_DATABASE_URL)")
    p.add_argument("--config", help="TOML settings file")
    p.set_defaults(handler=migrate)

    p = commands.add_parser(
        "health",
        help="ask a server's gRPC health service; exit 0 only when it answers SERVING",
    )
    p.add_argument(
        "--address", help="server address (default: $ENGRAM_ADDRESS, else 127.0.0.1:50051)"
    )
    p.add_argument("--service", default="", help="one service's status (default: the server's)")
    p.add_argument("--timeout", type=float, default=3.0, help="seconds to wait (default: 3)")
    p.set_defaults(handler=health)

    config = commands.add_parser("config", help="inspect the configuration")
    csub = config.add_subparsers(dest="config_command", metavar="COMMAND", required=True)
    p = csub.add_parser("show", help="print the effective settings (secrets masked)")
    p.add_argument("--config", help="TOML settings file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=config_show)

    for name, (module, help_text) in _DELEGATED.items():
        if _available(module):
            # Listed for `engram --help` only: `main` hands these commands their
            # arguments before argparse sees them (see `delegated`).
            p = commands.add_parser(name, help=help_text, add_help=False)
            p.add_argument("argv", nargs=argparse.REMAINDER)


def _available(module_name: str) -> bool:
    try:
        return importlib.util.find_spec(module_name) is not None
    except (ImportError, ValueError):
        return False


def delegated(argv: Sequence[str]) -> int | None:
    """Runs `engram bench|eval ...` in its own module; None for any other command.

    The module parses its arguments itself (`--help` included), so they bypass
    this parser entirely.
    """
    if not argv or argv[0] not in _DELEGATED:
        return None
    module_name = _DELEGATED[argv[0]][0]
    if not _available(module_name):
        return None
    module = importlib.import_module(module_name)
    return int(module.main(list(argv[1:])) or 0)


def _settings(args: argparse.Namespace, **overrides: Any) -> Settings:
    from engram_server.platform.config import load_settings

    return load_settings(getattr(args, "config", None), **overrides)


def serve(args: argparse.Namespace) -> int:
    from engram_server.platform.workers import check_workers, run_workers

    settings = _settings(args, listen=args.listen, role=args.role, workers=args.workers)
    try:
        check_workers(settings, args.dev)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc

    from engram_server.platform.eventloop import loop_factory
    from engram_server.platform.eventloop import run as run_on_loop
    from engram_server.platform.observability import configure_logging
    from engram_server.platform.server import serve as run_server

    try:
        configure_logging(settings)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if settings.workers > 1:
        return run_workers(settings)
    try:
        factory = loop_factory(settings.event_loop)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    try:
        run_on_loop(run_server(settings, dev=args.dev, new_key=args.new_key), factory)
    except KeyboardInterrupt:
        # The server drains on SIGINT itself; a second Ctrl-C lands here.
        return 130
    return 0


def migrate(args: argparse.Namespace) -> int:
    from engram_server.store.migrate import current_version
    from engram_server.store.migrate import migrate as apply_migrations

    url = args.database_url or _settings(args).database_url
    if not url:
        raise UsageError("no database: pass --database-url or set ENGRAM_DATABASE_URL")
    applied = apply_migrations(url)
    for migration in applied:
        print(f"applied {migration.version:04d}_{migration.name}")
    print(f"schema at version {current_version(url)}" + ("" if applied else " (up to date)"))
    return 0


def health(args: argparse.Namespace) -> int:
    """The image's HEALTHCHECK: the gRPC health protocol, no key needed."""
    import os

    import grpc
    from engram import _auth
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    address, tls = _auth.split_address(
        args.address or os.environ.get("ENGRAM_ADDRESS") or "127.0.0.1:50051"
    )
    opened = (
        grpc.secure_channel(address, grpc.ssl_channel_credentials())
        if tls
        else grpc.insecure_channel(address)
    )
    with opened as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as exc:
            code = exc.code()
            detail = exc.details() or ""
            if not detail and code == grpc.StatusCode.NOT_FOUND:
                # The standard health service answers an unknown name with no text.
                detail = (
                    f"this server reports no health for service {args.service!r}; "
                    "names look like engram.v1.LifecycleService (empty: the whole server)"
                )
            print(f"{address}: {code.name}: {detail}" if detail else f"{address}: {code.name}")
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{address}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


def config_show(args: argparse.Namespace) -> int:
    values: dict[str, Any] = _settings(args).redacted()
    if args.json:
        print(json.dumps(values, indent=2))
        return 0
    for key, value in values.items():
        print(f"{key} = {json.dumps(value)}")
    return 0
