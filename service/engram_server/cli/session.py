"""`engram session`: working-memory session buffers, over the SDK.

engram session import SPACE SESSION FILE   stream a transcript in (AppendMessages)
engram session window SPACE SESSION        show the buffered messages
engram session list SPACE                  sessions with a live buffer
engram session clear SPACE SESSION         delete a buffer
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

from engram import types as t
from engram.errors import EngramError

from engram_server.cli import common
from engram_server.cli.common import Commands, UsageError


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    session = commands.add_parser("session", help="working-memory session buffers")
    sub = session.add_subparsers(dest="session_command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "import",
        help="stream a transcript into a session (one round trip for all of it)",
        description=(
            "Appends every message of FILE to the session over one AppendMessages stream. "
            'FILE (\'-\' for stdin) holds one JSON object per line ({"role": "user", '
            '"content": "...", "time": "2026-01-02T10:00:00Z", "metadata": {}}; '
            "role defaults to user), or with --text one message per non-blank line. "
            "Messages the server refuses are reported with their line number; the others "
            "are buffered. Exit status 1 if any was refused."
        ),
        parents=[parent],
    )
    p.add_argument("space", help="the space, e.g. users/42")
    p.add_argument("session", help="the session id")
    p.add_argument("file", help="JSON Lines transcript, or '-' for stdin")
    p.add_argument("--text", action="store_true", help="plain text: one message per line")
    p.add_argument("--role", default="user", help="role of --text messages (default: user)")
    p.set_defaults(handler=import_transcript)

    p = sub.add_parser("window", help="show a session's buffered messages", parents=[parent])
    p.add_argument("space")
    p.add_argument("session")
    p.add_argument("--last", type=int, default=0, help="only the last N messages (default: all)")
    p.set_defaults(handler=window)

    p = sub.add_parser("list", help="sessions of a space with a live buffer", parents=[parent])
    p.add_argument("space")
    p.set_defaults(handler=list_sessions)

    p = sub.add_parser("clear", help="delete a session's buffer", parents=[parent])
    p.add_argument("space")
    p.add_argument("session")
    p.set_defaults(handler=clear)


def read_transcript(
    stream: IO[str], as_text: bool, role: str
) -> Iterator[tuple[int, t.SessionMessage]]:
    """(line number, message) for every message of a transcript."""
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        if as_text:
            yield number, t.SessionMessage(role=role, content=line.rstrip("\n"))
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"line {number}: not JSON ({exc.msg}); use --text for plain text"
            ) from exc
        if not isinstance(data, dict) or not isinstance(data.get("content"), str):
            raise UsageError(f'line {number}: expected an object with a "content" string')
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise UsageError(f'line {number}: "metadata" must be an object')
        yield (
            number,
            t.SessionMessage(
                role=str(data.get("role") or "user"),
                content=data["content"],
                time=common.parse_time(data["time"]) if data.get("time") else None,
                metadata={str(k): str(v) for k, v in metadata.items()},
            ),
        )


def import_transcript(args: argparse.Namespace) -> int:
    source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    try:
        # Read (and check) the whole file first: a malformed line stops the import
        # before anything is sent.
        messages = list(read_transcript(source, args.text, args.role))
    finally:
        if source is not sys.stdin:
            source.close()
    out = common.output(args)
    buffered = dropped = refused = 0
    with common.make_client(args) as client:
        results = client.append_messages(args.space, args.session, [m for _, m in messages])
        for (number, _), result in zip(messages, results, strict=True):
            if isinstance(result, EngramError):
                refused += 1
                _report_refused(out.as_json, number, result)
            elif result.message is None:
                dropped += 1
            else:
                buffered += 1
            if out.as_json and not isinstance(result, EngramError):
                out.line(json.dumps({"line": number, **t.to_dict(result)}, ensure_ascii=False))
    if not out.as_json:
        parts = [
            f"buffered {buffered} of {len(messages)} messages in {args.space} / {args.session}"
        ]
        if dropped:
            parts.append(f"{dropped} dropped whole by the privacy boundary")
        if refused:
            parts.append(f"{refused} refused")
        out.line("; ".join(parts))
    return 1 if refused else 0


def _report_refused(as_json: bool, number: int, error: EngramError) -> None:
    if as_json:
        print(
            json.dumps(
                {"line": number, "error": {"code": error.code.name, "message": error.message}}
            ),
            flush=True,
        )
    else:
        print(f"line {number}: {error.code.name}: {error.message}", file=sys.stderr, flush=True)


def window(args: argparse.Namespace) -> int:
    if args.last < 0:
        raise UsageError("--last must not be negative")
    with common.make_client(args) as client:
        result = client.get_session_window(args.space, args.session, last_n=args.last)
    out = common.output(args)
    if out.as_json:
        out.item(result)
        return 0
    for m in result.messages:
        out.line(f"{m.index:>5}  {m.role:<9} {m.content}")
    state = ", consolidated" if result.consolidated else ""
    out.line(f"({len(result.messages)} messages, {result.token_count} tokens{state})")
    return 0


def list_sessions(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        sessions = client.list_sessions(args.space)
    out = common.output(args)
    if out.as_json:
        out.rows(sessions)
        return 0
    for s in sessions:
        when = s.last_activity.isoformat(timespec="seconds") if s.last_activity else "-"
        out.line(f"{s.session}  {s.message_count} messages  {s.token_count} tokens  {when}")
    return 0


def clear(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        cleared = client.clear_session(args.space, args.session)
    out = common.output(args)
    if out.as_json:
        out.line(json.dumps({"cleared_messages": cleared}))
    else:
        out.line(f"cleared {cleared} messages")
    return 0
