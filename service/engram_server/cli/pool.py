"""`engram pool` and `engram group`: pools shared across agents and teams, over the SDK.

engram pool create ID NAME [--gate-min-utility X ...]   a pool (you become its owner)
engram pool get|list|update|delete                       pools
engram pool add-member|remove-member|members             members and roles
engram pool publish POOL MEMORY [--topic T]              offer a memory through the gate
engram pool unpublish|review|publication|publications    publications
engram pool trust|trusts                                 derived publisher trust
engram pool sync POOL [--cursor C] [--follow]            slot deltas
engram pool topics|subscribe                             topic channels
engram group create|get|list|add|remove|delete           teams (tenant administrators)

Results are printed as `field  value` lines, or as JSON with --json.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from engram import pool as sdk
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from engram_server.cli import common
from engram_server.cli.common import Commands


def _dict(result: Any) -> dict[str, Any]:
    """An SDK result as printed: the API message it came from (`raw`), so the output
    keeps the API's field names and enum names."""
    message: Message = result.raw
    return MessageToDict(message, preserving_proto_field_name=True)


def _item(args: argparse.Namespace, result: Any) -> None:
    out = common.output(args)
    data = _dict(result)
    if args.json:
        out.line(json.dumps(data, ensure_ascii=False))
        return
    for key, value in data.items():
        text = json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else value
        out.line(f"{key:<20} {text}")


def _rows(args: argparse.Namespace, results: Iterable[Any], *keys: str) -> int:
    out = common.output(args)
    count = 0
    for result in results:
        count += 1
        data = _dict(result)
        if args.json:
            out.line(json.dumps(data, ensure_ascii=False))
        else:
            out.line("  ".join(str(data.get(k, "")) for k in keys))
    return count


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    pool = commands.add_parser("pool", help="pools: memory shared across agents and teams")
    sub = pool.add_subparsers(dest="pool_command", metavar="COMMAND", required=True)

    p = sub.add_parser("create", help="create a pool; you become its owner", parents=[parent])
    p.add_argument("pool_id", help="1-63 characters of [a-z0-9-]")
    p.add_argument("display_name")
    p.add_argument("--description", default="")
    _gate_options(p)
    p.add_argument("--visibility", default="", help="default: pool, contributors or tenant")
    p.add_argument("--initial-trust", type=float, default=0.0)
    p.add_argument(
        "--quick-window",
        type=common.seconds,
        default=None,
        help="quick-invalidation window, e.g. 3600 or 1h",
    )
    p.set_defaults(handler=create)

    p = sub.add_parser("get", help="show a pool", parents=[parent])
    p.add_argument("pool")
    p.set_defaults(handler=lambda a: _run(a, lambda c: _item(a, c.pools.get(a.pool))))

    p = sub.add_parser(
        "list", help="pools you belong to (all, for an administrator)", parents=[parent]
    )
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _rows(
                a, c.pools.list(), "name", "display_name", "member_count", "publication_count"
            ),
        )
    )

    p = sub.add_parser(
        "update", help="change a pool's description, gate, visibility, trust", parents=[parent]
    )
    p.add_argument("pool")
    p.add_argument("--etag", default="")
    p.add_argument("--display-name")
    p.add_argument("--description")
    p.add_argument("--visibility")
    p.add_argument("--initial-trust", type=float)
    _gate_options(p)
    p.set_defaults(handler=update)

    p = sub.add_parser("delete", help="delete a pool (its memories stay)", parents=[parent])
    p.add_argument("pool")
    p.add_argument("--etag", default="")
    p.set_defaults(handler=lambda a: _run(a, lambda c: c.pools.delete(a.pool, etag=a.etag)))

    p = sub.add_parser("add-member", help="add a member or change its role", parents=[parent])
    p.add_argument("pool")
    p.add_argument("principal", help="agent identity, apiKeys/{key} or groups/{group}")
    p.add_argument("role", choices=["reader", "writer", "owner"])
    p.set_defaults(
        handler=lambda a: _run(
            a, lambda c: _item(a, c.pools.add_member(a.pool, a.principal, a.role))
        )
    )

    p = sub.add_parser(
        "remove-member", help="remove pools/{pool}/members/{member}", parents=[parent]
    )
    p.add_argument("member")
    p.set_defaults(handler=lambda a: _run(a, lambda c: c.pools.remove_member(a.member)))

    p = sub.add_parser("members", help="list a pool's members", parents=[parent])
    p.add_argument("pool")
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _rows(a, c.pools.members(a.pool), "name", "principal", "role", "trust_score"),
        )
    )

    p = sub.add_parser(
        "publish", help="offer a memory to a pool through its gate", parents=[parent]
    )
    p.add_argument("pool")
    p.add_argument("memory", help="memories/{id}")
    p.add_argument("--topic", default="")
    p.add_argument("--visibility", default="")
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _item(
                a, c.pools.publish(a.pool, a.memory, topic=a.topic, visibility_=a.visibility)
            ),
        )
    )

    p = sub.add_parser("unpublish", help="withdraw a publication", parents=[parent])
    p.add_argument("publication")
    p.add_argument("--reason", default="")
    p.set_defaults(
        handler=lambda a: _run(a, lambda c: _item(a, c.pools.unpublish(a.publication, a.reason)))
    )

    p = sub.add_parser("review", help="approve or reject a held publication", parents=[parent])
    p.add_argument("publication")
    p.add_argument("decision", choices=["approve", "reject"])
    p.add_argument("--note", default="")
    p.set_defaults(
        handler=lambda a: _run(
            a, lambda c: _item(a, c.pools.review(a.publication, a.decision == "approve", a.note))
        )
    )

    p = sub.add_parser("publication", help="show a publication", parents=[parent])
    p.add_argument("publication")
    p.set_defaults(
        handler=lambda a: _run(a, lambda c: _item(a, c.pools.get_publication(a.publication)))
    )

    p = sub.add_parser("publications", help="list a pool's publications", parents=[parent])
    p.add_argument("pool")
    p.add_argument("--topic", default="")
    p.add_argument("--publisher", default="")
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _rows(
                a,
                c.pools.publications(a.pool, topic=a.topic, publisher=a.publisher),
                "name",
                "state",
                "publisher",
                "topic",
                "memory",
            ),
        )
    )

    p = sub.add_parser("trust", help="a member's trust as a publisher", parents=[parent])
    p.add_argument("member", help="pools/{pool}/members/{member}")
    p.set_defaults(handler=lambda a: _run(a, lambda c: _item(a, c.pools.trust(a.member))))

    p = sub.add_parser(
        "trusts", help="every publisher's trust, most trusted first", parents=[parent]
    )
    p.add_argument("pool")
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _rows(
                a,
                c.pools.trusts(a.pool),
                "principal",
                "score",
                "published_count",
                "used_count",
                "quickly_invalidated_count",
                "contradicted_count",
            ),
        )
    )

    p = sub.add_parser(
        "sync", help="slot deltas since a cursor (--follow: then live)", parents=[parent]
    )
    p.add_argument("pool")
    p.add_argument("--cursor", default="")
    p.add_argument("--topic", default="")
    p.add_argument("--follow", action="store_true")
    p.add_argument(
        "--omit-old-content",
        action="store_true",
        help="old memories of REPLACE and REMOVE by identity only",
    )
    p.set_defaults(handler=sync)

    p = sub.add_parser("topics", help="a pool's topic channels", parents=[parent])
    p.add_argument("pool")
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _rows(
                a, c.pools.topics(a.pool), "topic", "publication_count", "last_publish_time"
            ),
        )
    )

    p = sub.add_parser("subscribe", help="follow a topic channel", parents=[parent])
    p.add_argument("pool")
    p.add_argument("topic")
    p.add_argument("--cursor", default="", help='"0" replays the channel from its start')
    p.add_argument(
        "--limit", type=int, default=0, help="stop after this many events (default: follow)"
    )
    p.set_defaults(handler=subscribe)

    group = commands.add_parser("group", help="teams of agent identities (administrators)")
    gsub = group.add_subparsers(dest="group_command", metavar="COMMAND", required=True)
    p = gsub.add_parser("create", help="create a group", parents=[parent])
    p.add_argument("group_id")
    p.add_argument("--display-name", default="")
    p.add_argument("--member", action="append", default=[], help="repeatable")
    p.set_defaults(
        handler=lambda a: _run(
            a,
            lambda c: _item(a, c.pools.create_group(a.group_id, a.display_name, members=a.member)),
        )
    )
    p = gsub.add_parser("get", help="show a group", parents=[parent])
    p.add_argument("group")
    p.set_defaults(handler=lambda a: _run(a, lambda c: _item(a, c.pools.get_group(a.group))))
    p = gsub.add_parser("list", help="list groups", parents=[parent])
    p.set_defaults(
        handler=lambda a: _run(
            a, lambda c: _rows(a, c.pools.groups(), "name", "display_name", "members")
        )
    )
    p = gsub.add_parser("add", help="add a member", parents=[parent])
    p.add_argument("group")
    p.add_argument("principal")
    p.set_defaults(
        handler=lambda a: _run(
            a, lambda c: _item(a, c.pools.add_group_member(a.group, a.principal))
        )
    )
    p = gsub.add_parser("remove", help="remove a member", parents=[parent])
    p.add_argument("group")
    p.add_argument("principal")
    p.set_defaults(
        handler=lambda a: _run(
            a, lambda c: _item(a, c.pools.remove_group_member(a.group, a.principal))
        )
    )
    p = gsub.add_parser("delete", help="delete a group", parents=[parent])
    p.add_argument("group")
    p.set_defaults(handler=lambda a: _run(a, lambda c: c.pools.delete_group(a.group)))


def _gate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--min-utility", type=float, default=None, help="refuse below this")
    p.add_argument("--review-below-trust", type=float, default=None)
    p.add_argument("--require-review", action="store_true", default=None)


def _gate(args: argparse.Namespace) -> Any:
    if args.min_utility is None and args.review_below_trust is None and not args.require_review:
        return None
    return sdk.gate(
        min_utility=args.min_utility or 0.0,
        review_below_trust=args.review_below_trust or 0.0,
        require_review=bool(args.require_review),
    )


def _run(args: argparse.Namespace, body: Any) -> int:
    with common.make_client(args) as client:
        body(client)
    return 0


def create(args: argparse.Namespace) -> int:
    window = args.quick_window if isinstance(args.quick_window, timedelta) else None
    return _run(
        args,
        lambda c: _item(
            args,
            c.pools.create(
                args.display_name,
                pool_id=args.pool_id,
                description=args.description,
                gate=_gate(args),
                default_visibility=args.visibility,
                initial_trust=args.initial_trust,
                quick_invalidation_window=window,
            ),
        ),
    )


def update(args: argparse.Namespace) -> int:
    fields: dict[str, Any] = {}
    for key in ("display_name", "description", "initial_trust"):
        value = getattr(args, key)
        if value is not None:
            fields[key] = value
    if args.visibility is not None:
        fields["default_visibility"] = args.visibility
    gate = _gate(args)
    if gate is not None:
        fields["gate"] = gate
    if not fields:
        raise common.UsageError("nothing to update: name at least one field option")
    return _run(args, lambda c: _item(args, c.pools.update(args.pool, etag=args.etag, **fields)))


def sync(args: argparse.Namespace) -> int:
    out = common.output(args)

    def body(client: Any) -> None:
        for message in client.pools.sync(
            args.pool,
            cursor=args.cursor,
            topic=args.topic,
            follow=args.follow,
            omit_old_content=args.omit_old_content,
        ):
            if args.json:
                out.line(json.dumps(_dict(message), ensure_ascii=False))
            elif message.caught_up:
                out.line(f"-- caught up  cursor {message.cursor}")
            else:
                d = message.delta
                memory = d.new_memory or d.old_memory
                content = memory.content if memory is not None else ""
                out.line(f"{d.op:<8} {d.slot_key}  v{d.version}  {content}")

    return _run(args, body)


def subscribe(args: argparse.Namespace) -> int:
    out = common.output(args)

    def body(client: Any) -> None:
        events = client.pools.subscribe(args.pool, args.topic, cursor=args.cursor)
        for seen, message in enumerate(events, start=1):
            if args.json:
                out.line(json.dumps(_dict(message), ensure_ascii=False))
            else:
                publication = message.publication.name if message.publication else ""
                content = message.memory.content if message.memory else ""
                out.line(f"{message.event_type:<10} {publication}  {content}")
            if args.limit and seen >= args.limit:
                events.close()
                break

    return _run(args, body)
