"""Argument helpers shared by the CLI's client commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

import engram

from engram_server.cli.output import Output

# What `add_subparsers()` returns (argparse gives it no public name); commands
# register their parsers on it.
Commands = argparse._SubParsersAction


class UsageError(Exception):
    """A bad command line the parser could not catch; exits with status 2."""


def client_options() -> argparse.ArgumentParser:
    """Options of every command that talks to a server (added to each leaf parser)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("connection")
    group.add_argument(
        "--address", help="server address (default: $ENGRAM_ADDRESS, else 127.0.0.1:50051)"
    )
    group.add_argument("--api-key", help="API key (default: $ENGRAM_API_KEY)")
    group.add_argument("--secure", action="store_true", help="connect with TLS")
    group.add_argument("--timeout", type=float, default=10.0, help="seconds per call (default: 10)")
    parent.add_argument("--json", action="store_true", help="print JSON, one object per line")
    return parent


def make_client(args: argparse.Namespace) -> engram.Client:
    return engram.Client(args.address, args.api_key, secure=args.secure, timeout=args.timeout)


def output(args: argparse.Namespace) -> Output:
    return Output(bool(getattr(args, "json", False)))


def split_list(values: Iterable[str] | None) -> list[str]:
    """Repeatable options that also take comma-separated values: `--tag a,b --tag c`."""
    out: list[str] = []
    for value in values or ():
        out.extend(part.strip() for part in value.split(",") if part.strip())
    return out


def parse_time(text: str) -> datetime:
    """An RFC 3339 / ISO 8601 time; without a zone it is read as UTC."""
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from exc
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def seconds(text: str) -> timedelta:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from exc
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return timedelta(seconds=value)


def json_object(text: str) -> dict[str, Any]:
    """A JSON object given inline, or `@path` to read it from a file (`@-`: stdin)."""
    if text.startswith("@"):
        path = text[1:]
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def key_values(values: Iterable[str] | None) -> dict[str, str] | None:
    """`--attr key=value` options as a dict (None when none were given)."""
    if not values:
        return None
    out: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"expected KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def text_argument(value: str) -> str:
    """A text argument; `-` reads it from stdin (without the final newline)."""
    return sys.stdin.read().removesuffix("\n") if value == "-" else value
