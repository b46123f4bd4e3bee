"""The `engram` command.

    engram serve [--dev]             run the server
    engram migrate                   apply database migrations
    engram config show               print the effective settings
    engram health                    ask a server's gRPC health service (exit 0: SERVING)
    engram admin ...                 bootstrap, tenants, API keys, usage
    engram memory ...                propose, list, confirm, retract... over the SDK
    engram session ...               import a transcript, show / list / clear buffers
    engram index status              the tenant's indexing backlog and model
    engram reindex                   rebuild the vector index from PostgreSQL
    engram maintenance ...           operator repairs (session-decisions)
    engram models fetch NAME         fetch an in-process embedding model (bge-small-en-v1.5)
    engram dream --space S [--apply]  curate a space (Dream State)
    engram pool ... / engram group ...  pools shared across agents and teams, groups
    engram evidence ...              grades, the assessor, conflicts, edges
    engram profile SPACE [--dry-run]  a space's profile and class (--list: kept runs)
    engram decisions ...             mine git history, explain code (DecisionsService)
    engram mcp [config]              Engram as MCP tools; host config snippets

Client commands take `--address` / `--api-key` (or `ENGRAM_ADDRESS` /
`ENGRAM_API_KEY`) and `--json`. Server modules are imported only by the commands that
need them, so client commands start quickly.

Exit status: 0 on success, 1 when the server or a store reports an error, 2 for a
bad command line, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from engram.errors import EngramError

from engram_server import __version__
from engram_server.cli import (
    admin,
    decisions,
    dream,
    evidence,
    index,
    maintenance,
    mcp,
    memory,
    models,
    ops,
    pool,
    session,
)
from engram_server.cli.common import UsageError, client_options
from engram_server.cli.output import print_error


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram",
        description="Engram: long-term memory for fleets of AI agents, served over gRPC.",
    )
    parser.add_argument("--version", action="version", version=f"engram {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    ops.register(commands)
    maintenance.register(commands)
    models.register(commands)
    parent = client_options()
    admin.register(commands, parent)
    memory.register(commands, parent)
    session.register(commands, parent)
    index.register(commands, parent)
    dream.register(commands, parent)
    pool.register(commands, parent)
    evidence.register(commands, parent)
    decisions.register(commands, parent)
    mcp.register(commands, parent)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        handed_off = ops.delegated(argv)
        if handed_off is not None:
            return handed_off
        args = parser.parse_args(argv)
        return int(args.handler(args))
    except EngramError as error:
        print_error(error)
        return 1
    except UsageError as error:
        print(f"engram: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `engram memory list | head` closes the pipe early; that is not an error.
        # Point stdout at /dev/null so the interpreter's final flush stays quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (ValueError, TypeError, OSError) as error:
        # Bad values the parser could not check (an unknown enum name, a short
        # bootstrap token, an unreadable file, a store that refuses connections).
        print(f"engram: error: {error}", file=sys.stderr)
        return 1
    except Exception as error:
        if isinstance(error, _operational_errors()):
            print(f"engram: error: {error}", file=sys.stderr)
            return 1
        raise


# Errors of server-side modules that mean "cannot do it here" rather than a bug:
# (module, class) pairs, looked up only if the command loaded the module, so that
# client commands never import them.
_OPERATIONAL = (
    ("engram_server.platform.server", "StartupError"),
    ("psycopg", "Error"),
    ("redis.exceptions", "ConnectionError"),
)


def _operational_errors() -> tuple[type[BaseException], ...]:
    found: list[type[BaseException]] = []
    for module_name, class_name in _OPERATIONAL:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if isinstance(cls, type) and issubclass(cls, BaseException):
            found.append(cls)
    return tuple(found)


if __name__ == "__main__":
    sys.exit(main())
