"""`engram evidence ...` and `engram profile`: EvidenceService over the SDK.

engram evidence grade NAME LEVEL [--reason R] [--etag E]
engram evidence assess NAME [--space S ...] [--min-corroboration N] [--llm] [--apply]
engram evidence conflicts [--space S] [--state open|resolved] [--memory NAME]
engram evidence conflict NAME
engram evidence resolve NAME RESOLUTION [--winner M] [--merged TEXT --space S] [--note N]
engram evidence edge create SOURCE TARGET KIND [--weight W] [--reason R]
engram evidence edge get NAME | edge delete NAME
engram evidence edges [--memory NAME] [--space S] [--kind K ...] [--direction D]
engram profile SPACE [--dry-run] [--window-days N] [--subspaces]
engram profile --list [--space S] [--drift]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from engram_server.cli import common
from engram_server.cli.common import Commands, UsageError


def _message(result: Any) -> Message:
    """The API message an SDK result came from: the CLI prints the API's names."""
    message: Message = result.raw
    return message


def _print(args: argparse.Namespace, result: Any) -> None:
    data = json_format.MessageToDict(_message(result))
    if args.json:
        print(json.dumps(data))
        return
    for key, value in data.items():
        if isinstance(value, (dict, list)):
            value = json.dumps(value)
        print(f"{key}: {value}")


def _rows(args: argparse.Namespace, messages: Any) -> int:
    count = 0
    for message in messages:
        count += 1
        if args.json:
            print(json.dumps(json_format.MessageToDict(_message(message))))
        else:
            print(_line(_message(message)))
    if not args.json and count == 0:
        print("(none)")
    return 0


def _line(message: Any) -> str:
    data = json_format.MessageToDict(message)
    if "sourceMemory" in data:
        return (
            f"{data['name']}  {data.get('sourceMemory')} {data.get('kind', '')}"
            f" {data.get('targetMemory')}  {data.get('reason', '')}"
        )
    if "memories" in data:
        return (
            f"{data['name']}  {data.get('state', '')}  {data.get('detector', '')}"
            f"  {' '.join(data['memories'])}  {data.get('reason', '')}"
        )
    return json.dumps(data)


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "evidence",
        help="evidence grades, the assessor, conflicts and edges",
        description="Belief revision over the EvidenceService.",
        parents=[parent],
    )
    sub = p.add_subparsers(dest="evidence_command", metavar="ACTION", required=True)

    g = sub.add_parser("grade", help="set a memory's evidence grade", parents=[parent])
    g.add_argument("name")
    g.add_argument("level", help="unverified, single_source, corroborated or official")
    g.add_argument("--reason", default="")
    g.add_argument("--etag", default="")
    g.set_defaults(handler=grade)

    a = sub.add_parser("assess", help="run the corroboration assessor", parents=[parent])
    a.add_argument("name")
    a.add_argument("--space", action="append", default=[], help="space to search (repeat)")
    a.add_argument("--min-corroboration", type=int, default=0)
    a.add_argument("--llm", action="store_true", help="let the configured LLM judge")
    a.add_argument("--apply", action="store_true", help="write the grade, edges and conflicts")
    a.set_defaults(handler=assess)

    cs = sub.add_parser("conflicts", help="list conflicts, newest first", parents=[parent])
    cs.add_argument("--space", default="")
    cs.add_argument("--state", default="", choices=["", "open", "resolved"])
    cs.add_argument("--memory", default="")
    cs.set_defaults(handler=conflicts)

    c = sub.add_parser("conflict", help="show one conflict", parents=[parent])
    c.add_argument("name")
    c.set_defaults(handler=conflict)

    r = sub.add_parser("resolve", help="resolve an open conflict", parents=[parent])
    r.add_argument("name")
    r.add_argument(
        "resolution", choices=["keep_winner", "supersede", "merge", "keep_all", "dismiss"]
    )
    r.add_argument("--winner", default="")
    r.add_argument("--merged", default="", help="content of the merged memory (merge)")
    r.add_argument("--space", default="", help="space of the merged memory (merge)")
    r.add_argument("--note", default="")
    r.add_argument("--etag", default="")
    r.set_defaults(handler=resolve)

    e = sub.add_parser("edge", help="create, show or delete one edge", parents=[parent])
    es = e.add_subparsers(dest="edge_command", metavar="ACTION", required=True)
    ec = es.add_parser("create", help="create an edge", parents=[parent])
    ec.add_argument("source")
    ec.add_argument("target")
    ec.add_argument("kind", help="supports, contradicts, about, derived_from or related")
    ec.add_argument("--weight", type=float, default=0.0)
    ec.add_argument("--reason", default="")
    ec.set_defaults(handler=edge_create)
    eg = es.add_parser("get", help="show an edge", parents=[parent])
    eg.add_argument("name")
    eg.set_defaults(handler=edge_get)
    ed = es.add_parser("delete", help="delete an edge (not SUPERSEDES)", parents=[parent])
    ed.add_argument("name")
    ed.set_defaults(handler=edge_delete)

    el = sub.add_parser("edges", help="list edges around a memory or in a space", parents=[parent])
    el.add_argument("--memory", default="")
    el.add_argument("--space", default="")
    el.add_argument("--kind", action="append", default=[])
    el.add_argument("--direction", default="both", choices=["both", "outgoing", "incoming"])
    el.set_defaults(handler=edges)

    pr = commands.add_parser(
        "profile",
        help="a space's profile: churn, stability, evidence and its class",
        description=(
            "Computes a space's profile (kept as a run unless --dry-run), or lists kept runs"
            " with --list."
        ),
        parents=[parent],
    )
    pr.add_argument("space", nargs="?", default="")
    pr.add_argument("--dry-run", action="store_true", help="classify without keeping the run")
    pr.add_argument("--window-days", type=int, default=0)
    pr.add_argument("--subspaces", action="store_true")
    pr.add_argument("--list", action="store_true", help="list kept runs")
    pr.add_argument("--drift", action="store_true", help="with --list: only drifting runs")
    pr.set_defaults(handler=profile)


def grade(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        memory = client.evidence.set_level(
            args.name, args.level, reason=args.reason, etag=args.etag
        )
    common.output(args).item(memory)
    return 0


def assess(args: argparse.Namespace) -> int:
    if args.min_corroboration < 0:
        raise UsageError("--min-corroboration must not be negative")
    with common.make_client(args) as client:
        report = client.evidence.assess(
            args.name,
            spaces=args.space,
            min_corroboration=args.min_corroboration,
            use_llm=args.llm,
            apply=args.apply,
        )
    _print(args, report)
    return 0


def conflicts(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        return _rows(
            args, client.evidence.conflicts(space=args.space, state=args.state, memory=args.memory)
        )


def conflict(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        _print(args, client.evidence.get_conflict(args.name))
    return 0


def resolve(args: argparse.Namespace) -> int:
    merged = None
    if args.resolution == "merge":
        if not args.merged or not args.space:
            raise UsageError("merge needs --merged TEXT and --space S")
        merged = {"space": args.space, "content": args.merged}
    with common.make_client(args) as client:
        done = client.evidence.resolve(
            args.name,
            args.resolution,
            winner=args.winner,
            merged=merged,
            note=args.note,
            etag=args.etag,
        )
    _print(args, done)
    return 0


def edge_create(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        edge = client.evidence.create_edge(
            args.source, args.target, args.kind, weight=args.weight, reason=args.reason
        )
    _print(args, edge)
    return 0


def edge_get(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        _print(args, client.evidence.get_edge(args.name))
    return 0


def edge_delete(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        client.evidence.delete_edge(args.name)
    if not args.json:
        print(f"deleted {args.name}")
    return 0


def edges(args: argparse.Namespace) -> int:
    if not args.memory and not args.space:
        raise UsageError("give --memory or --space")
    with common.make_client(args) as client:
        return _rows(
            args,
            client.evidence.edges(
                memory=args.memory, space=args.space, kinds=args.kind, direction=args.direction
            ),
        )


def profile(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        if args.list:
            return _rows(args, client.evidence.profiles(space=args.space, drift_only=args.drift))
        if not args.space:
            raise UsageError("give a SPACE (or --list)")
        _print(
            args,
            client.evidence.profile(
                args.space,
                include_subspaces=args.subspaces,
                window_days=args.window_days,
                dry_run=args.dry_run,
            ),
        )
    return 0
