"""`engram mcp` (serve Engram's tools to an MCP host) and `engram mcp config` (the
snippet that registers it in common hosts). Needs the `mcp` extra."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import sys
from typing import Any

from engram import _auth

from engram_server.cli.common import Commands, UsageError

SPACE_ENV = "ENGRAM_SPACE"
HOSTS = ("claude-desktop", "claude-code", "cursor", "vscode")
KEY_PLACEHOLDER = "<your Engram API key>"


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "mcp",
        help="serve Engram as MCP tools (stdio, or streamable HTTP)",
        description=(
            "Runs an MCP server whose tools are remember, recall, build_context, engage, "
            "reflect, forget, why, search_decisions, publish_to_pool and recall_pool, "
            "calling the Engram server at --address with --api-key ($ENGRAM_ADDRESS, "
            f"$ENGRAM_API_KEY). Tools that take a space default to --space (${SPACE_ENV}). "
            "`engram mcp config` prints the snippet that registers it in an MCP host."
        ),
        parents=[parent],
    )
    p.add_argument("--space", help=f"default space of the tools (default: ${SPACE_ENV})")
    p.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default; the host starts the process) or streamable HTTP",
    )
    p.add_argument("--host", default="127.0.0.1", help="HTTP listen host (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="HTTP listen port (default: 8765)")
    p.set_defaults(handler=serve)
    sub = p.add_subparsers(dest="mcp_command", metavar="COMMAND")
    c = sub.add_parser(
        "config",
        help="print the MCP host configuration that starts `engram mcp`",
        parents=[parent],
    )
    c.add_argument(
        "hosts",
        nargs="*",
        metavar="HOST",
        help=f"one or more of {', '.join(HOSTS)} (default: all)",
    )
    c.add_argument("--space", help=f"default space to put in the snippet (default: ${SPACE_ENV})")
    c.set_defaults(handler=config)


def serve(args: argparse.Namespace) -> int:
    try:
        from engram.integrations import mcp
    except ImportError as exc:
        raise UsageError(
            f"engram mcp needs the mcp extra: pip install 'engram-grpc[mcp]' ({exc})"
        ) from exc
    tools = mcp.EngramTools(address=args.address, api_key=args.api_key, default_space=args.space)
    if args.transport == "http":
        asyncio.run(mcp.serve_http(tools, host=args.host, port=args.port))
    else:
        asyncio.run(mcp.serve_stdio(tools))
    return 0


def _command() -> str:
    """The absolute path of this `engram` executable: hosts start it without a shell."""
    found = shutil.which("engram")
    if found:
        return os.path.abspath(found)
    return os.path.abspath(sys.argv[0])


def snippets(command: str, env: dict[str, str], hosts: tuple[str, ...] = HOSTS) -> dict[str, Any]:
    """Each host's configuration for a stdio server started as `command mcp`."""
    server = {"command": command, "args": ["mcp"], "env": env}
    out: dict[str, Any] = {}
    for host in hosts:
        if host in ("claude-desktop", "cursor"):
            out[host] = {"mcpServers": {"engram": server}}
        elif host == "vscode":
            out[host] = {"servers": {"engram": {"type": "stdio", **server}}}
        elif host == "claude-code":
            flags = " ".join(f"-e {shlex.quote(f'{k}={v}')}" for k, v in env.items())
            out[host] = f"claude mcp add engram {flags} -- {shlex.quote(command)} mcp"
    return out


_WHERE = {
    "claude-desktop": "Claude Desktop: add to claude_desktop_config.json",
    "cursor": "Cursor: add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
    "vscode": "VS Code: add to .vscode/mcp.json",
    "claude-code": "Claude Code: run",
}


def config(args: argparse.Namespace) -> int:
    env = {"ENGRAM_ADDRESS": _auth.resolve_address(args.address)}
    env["ENGRAM_API_KEY"] = _auth.resolve_api_key(args.api_key) or KEY_PLACEHOLDER
    space = args.space or os.environ.get(SPACE_ENV)
    if space:
        env[SPACE_ENV] = space
    unknown = [h for h in args.hosts if h not in HOSTS]
    if unknown:
        raise UsageError(f"unknown MCP host {unknown[0]!r}; choose from {', '.join(HOSTS)}")
    hosts = tuple(args.hosts) or HOSTS
    out = snippets(_command(), env, hosts)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    for host, snippet in out.items():
        print(f"# {_WHERE[host]}")
        print(snippet if isinstance(snippet, str) else json.dumps(snippet, indent=2))
        print()
    return 0
