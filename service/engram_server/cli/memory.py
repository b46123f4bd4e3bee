"""`engram memory ...`: the lifecycle over the SDK."""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Iterator
from typing import Any, TypeVar

from engram_server.cli import common
from engram_server.cli.common import Commands, UsageError

_T = TypeVar("_T")

# Friendly names for `--order`, next to the API's own.
_ORDER_ALIASES = {
    "newest": "CREATE_TIME_DESC",
    "oldest": "CREATE_TIME_ASC",
    "updated": "UPDATE_TIME_DESC",
}


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    memory = commands.add_parser(
        "memory", help="propose memories and walk them through the lifecycle"
    )
    sub = memory.add_subparsers(dest="memory_command", metavar="COMMAND", required=True)

    def leaf(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, help=help_text, parents=[parent])

    p = leaf("propose", "propose one memory")
    p.add_argument("space", help="target space, e.g. team-a/agent-7")
    p.add_argument("content", help="the memory in natural language ('-' reads stdin)")
    _proposal_options(p)
    p.set_defaults(handler=propose)

    p = leaf("recall", "recall the memories that best answer a query")
    p.add_argument("query", help="the question or cue ('-' reads stdin)")
    p.add_argument("--space", action="append", help="space to search (repeatable, a,b)")
    p.add_argument("--pool", action="append", help="pool to search as well (repeatable)")
    p.add_argument("--subspaces", action="store_true", help="include spaces below --space")
    p.add_argument("-k", type=int, default=0, help="at most K hits (server default 10)")
    p.add_argument("--kind", action="append", help="only these kinds (repeatable, a,b)")
    p.add_argument("--tag", action="append", help="only memories with every tag given")
    p.add_argument("--slot-key", help="only this slot")
    p.add_argument("--min-evidence-level", help="unverified, single_source, corroborated...")
    p.add_argument("--min-score", type=float, default=0.0)
    p.add_argument("--include-superseded", action="store_true")
    p.add_argument(
        "--valid-at", type=common.parse_time, help="facts that held in the world then (ISO 8601)"
    )
    p.add_argument(
        "--known-at", type=common.parse_time, help="what Engram believed then (ISO 8601)"
    )
    p.add_argument("--graph", action="store_true", help="add memories reached through edges")
    p.add_argument("--hops", type=int, default=0, help="with --graph: edges to follow, 1-3")
    p.add_argument("--fresh", action="store_true", help="wait until earlier writes are searchable")
    p.add_argument(
        "--depth",
        action="store_true",
        help="slower depth mode: also search the best hits' sessions (multi-turn evidence)",
    )
    p.set_defaults(handler=recall)

    p = leaf("get", "show one memory")
    p.add_argument("name", help="memories/{id} or the bare id")
    p.set_defaults(handler=get)

    p = leaf("list", "list memories (follows pages)")
    p.add_argument("--space", help="only this space")
    p.add_argument("--subspaces", action="store_true", help="include spaces below --space")
    p.add_argument("--status", action="append", help="only these statuses (repeatable, a,b)")
    p.add_argument("--kind", action="append", help="only these kinds (repeatable, a,b)")
    p.add_argument("--tag", action="append", help="only memories with every tag given")
    p.add_argument("--session", help="only this session")
    p.add_argument("--since", type=common.parse_time, help="created at or after (ISO 8601)")
    p.add_argument("--until", type=common.parse_time, help="created before (ISO 8601)")
    p.add_argument("--order", help="newest (default), oldest or updated")
    _limit_options(p)
    p.set_defaults(handler=list_memories)

    for name, help_text in (
        ("confirm", "confirm a memory awaiting confirmation"),
        ("reject", "turn down a memory awaiting confirmation"),
    ):
        p = leaf(name, help_text)
        p.add_argument("name", help="memories/{id} or the bare id")
        p.add_argument("--reason", default="", help="why")
        p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
        p.set_defaults(handler=confirm if name == "confirm" else reject)

    p = leaf("retract", "retract a memory")
    p.add_argument("name", help="memories/{id} or the bare id")
    p.add_argument("--reason", required=True, help="why (required)")
    p.add_argument("--cascade", action="store_true", help="also retract its dependants")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=retract)

    p = leaf("revise", "change a memory's content or metadata")
    p.add_argument("name", help="memories/{id} or the bare id")
    p.add_argument(
        "--etag", help="the etag you read (default: fetch the current one, last write wins)"
    )
    p.add_argument("--content", help="new content ('-' reads stdin)")
    p.add_argument("--structured", type=common.json_object, help="JSON object, or @file")
    p.add_argument("--source")
    p.add_argument("--importance", type=float)
    p.add_argument("--tag", action="append", help="replace the tags (repeatable, a,b)")
    p.add_argument("--slot-key")
    p.add_argument("--topic")
    p.add_argument("--kind")
    p.add_argument("--session")
    p.add_argument("--thread")
    p.add_argument("--attr", action="append", help="replace the attributes: KEY=VALUE")
    p.add_argument("--expire-time", type=common.parse_time, help="ISO 8601")
    p.add_argument("--expire-in", type=common.seconds, help="seconds from now")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=revise)

    p = leaf("confidence", "raise a memory's confidence")
    p.add_argument("name", help="memories/{id} or the bare id")
    p.add_argument("confidence", type=float, help="new confidence in [0, 1]")
    p.add_argument("--reason", default="", help="why it rose")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=update_confidence)

    p = leaf("revisions", "list a memory's kept revisions, newest first")
    p.add_argument("name", help="memories/{id} or the bare id")
    _limit_options(p)
    p.set_defaults(handler=revisions)

    p = leaf("audit", "list audit entries, oldest first")
    p.add_argument("--memory", help="only entries about this memory")
    p.add_argument("--space", help="only entries in this space")
    _limit_options(p)
    p.set_defaults(handler=audit)

    p = leaf("watch", "stream committed transitions")
    p.add_argument("--space", help="only this space")
    p.add_argument("--status", action="append", help="only transitions into these statuses")
    p.add_argument("--cursor", help="resume after this cursor; 0 replays the whole log")
    p.add_argument("--limit", type=int, default=0, help="stop after N events (default: never)")
    p.add_argument("--no-resume", action="store_true", help="do not reconnect when cut off")
    p.set_defaults(handler=watch)

    p = leaf("purge", "hard-delete a space or one session of it (erasure)")
    p.add_argument("space")
    p.add_argument("--session", default="", help="only this session")
    p.add_argument("--reason", required=True, help="the erasure request's reference")
    p.add_argument("--yes", action="store_true", help="confirm the deletion")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=purge)

    p = leaf("expire", "expire every ACTIVE memory whose expire time has passed")
    p.add_argument("--limit", type=int, default=0, help="at most N (server default 1000)")
    p.set_defaults(handler=expire)


def _proposal_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--kind", help="semantic (default), procedural, episodic, ...")
    p.add_argument("--confidence", type=float, default=1.0, help="in [0, 1] (default: 1)")
    p.add_argument("--importance", type=float, help="in [0, 1] (server default: 0.5)")
    p.add_argument("--session", default="")
    p.add_argument("--thread", default="")
    p.add_argument("--source", default="")
    p.add_argument("--tag", action="append", help="label (repeatable, a,b)")
    p.add_argument("--slot-key", default="", help="entity::attribute")
    p.add_argument("--topic", default="")
    p.add_argument("--depends-on", action="append", help="memory it depends on (repeatable)")
    p.add_argument("--structured", type=common.json_object, help="JSON object, or @file")
    p.add_argument("--evidence-level", help="unverified, single_source, corroborated, official")
    p.add_argument("--attr", action="append", help="attribute KEY=VALUE (repeatable)")
    p.add_argument(
        "--origin", help="user_stated, agent_inferred, tool_observed, document or operator"
    )
    p.add_argument(
        "--valid-from", type=common.parse_time, help="when the fact began to hold (ISO 8601)"
    )
    p.add_argument("--valid-to", type=common.parse_time, help="when it stopped holding (ISO 8601)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--expire-time", type=common.parse_time, help="ISO 8601")
    when.add_argument("--expire-in", type=common.seconds, help="seconds from now")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")


def _limit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=int, default=100, help="at most N results (default 100; 0: all)")
    p.add_argument("--page-size", type=int, default=0, help="results per call")


def _limited(items: Iterator[_T], limit: int) -> Iterator[_T]:
    # The SDK's iterators fetch pages lazily, so stopping here stops the paging too.
    return itertools.islice(items, limit) if limit > 0 else items


def propose(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        result = client.propose(
            args.space,
            common.text_argument(args.content),
            kind=args.kind,
            confidence=args.confidence,
            importance=args.importance,
            session=args.session,
            thread=args.thread,
            source=args.source,
            tags=common.split_list(args.tag),
            slot_key=args.slot_key,
            topic=args.topic,
            depends_on=common.split_list(args.depends_on),
            structured=args.structured,
            expire_time=args.expire_time or args.expire_in,
            evidence_level=args.evidence_level,
            attributes=common.key_values(args.attr),
            origin=args.origin,
            valid_from=args.valid_from,
            valid_to=args.valid_to,
            request_id=args.request_id,
        )
    out = common.output(args)
    if out.as_json:
        out.item(result)
        return 0
    out.line(f"{result.outcome.value}  {result.memory.name if result.memory else '-'}")
    for failure in result.failures:
        critical = "critical" if failure.critical else "non-critical"
        where = f" [{failure.field}]" if failure.field else ""
        out.line(f"  {failure.validator} ({critical}): {failure.message}{where}")
    return 0


def recall(args: argparse.Namespace) -> int:
    if args.hops and not args.graph:
        raise UsageError("--hops needs --graph")
    graph: Any = None
    if args.graph:
        graph = {"max_hops": args.hops} if args.hops else True
    with common.make_client(args) as client:
        found = client.recall(
            common.text_argument(args.query),
            common.split_list(args.space) or None,
            pools=common.split_list(args.pool) or None,
            include_subspaces=args.subspaces,
            k=args.k,
            kinds=common.split_list(args.kind),
            tags=common.split_list(args.tag),
            slot_key=args.slot_key,
            min_evidence_level=args.min_evidence_level,
            include_superseded=args.include_superseded,
            min_score=args.min_score,
            read_your_writes=args.fresh,
            graph=graph,
            valid_at=args.valid_at,
            known_at=args.known_at,
            depth=args.depth,
        )
    out = common.output(args)
    for hit in found:
        if out.as_json:
            out.item(hit)
            continue
        badge = f"{hit.evidence_badge} " if hit.evidence_badge else ""
        via = f"  (via {hit.reached_via} from {hit.reached_from})" if hit.reached_from else ""
        out.line(f"{hit.score:.3f}  {hit.memory.name}  {badge}{hit.memory.content}{via}")
    return 0


def get(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        common.output(args).item(client.get(args.name))
    return 0


def list_memories(args: argparse.Namespace) -> int:
    order = None
    if args.order:
        order = _ORDER_ALIASES.get(args.order.lower(), args.order)
    with common.make_client(args) as client:
        memories = client.list(
            args.space,
            statuses=common.split_list(args.status),
            kinds=common.split_list(args.kind),
            tags=common.split_list(args.tag),
            session=args.session,
            created_after=args.since,
            created_before=args.until,
            order=order,
            page_size=args.page_size,
            include_subspaces=args.subspaces,
        )
        common.output(args).rows(_limited(memories, args.limit))
    return 0


def confirm(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        memory = client.confirm(args.name, args.reason, request_id=args.request_id)
        common.output(args).item(memory)
    return 0


def reject(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        memory = client.reject(args.name, args.reason, request_id=args.request_id)
        common.output(args).item(memory)
    return 0


def retract(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        result = client.retract(
            args.name, args.reason, cascade=args.cascade, request_id=args.request_id
        )
    out = common.output(args)
    if out.as_json:
        out.item(result)
    else:
        out.line(f"{result.memory.status.value}  {result.memory.name}")
        for dependant in result.cascaded:
            out.line(f"{dependant.status.value}  {dependant.name}  (cascade)")
    return 0


# `revise` options passed through to the SDK unchanged when given.
_REVISE_OPTIONS = (
    "structured",
    "source",
    "importance",
    "slot_key",
    "topic",
    "kind",
    "session",
    "thread",
)


def _revise_changes(args: argparse.Namespace) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if args.content is not None:
        changes["content"] = common.text_argument(args.content)
    for key in _REVISE_OPTIONS:
        value = getattr(args, key)
        if value is not None:
            changes[key] = value
    if args.tag is not None:
        changes["tags"] = common.split_list(args.tag)
    attributes = common.key_values(args.attr)
    if attributes is not None:
        changes["attributes"] = attributes
    if args.expire_time is not None or args.expire_in is not None:
        changes["expire_time"] = args.expire_time or args.expire_in
    return changes


def revise(args: argparse.Namespace) -> int:
    changes = _revise_changes(args)
    if not changes:
        raise UsageError("revise needs at least one field to change (see --help)")
    with common.make_client(args) as client:
        etag = args.etag or client.get(args.name).etag
        memory = client.revise(args.name, etag, request_id=args.request_id, **changes)
        common.output(args).item(memory)
    return 0


def update_confidence(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        memory = client.update_confidence(
            args.name, args.confidence, args.reason, request_id=args.request_id
        )
        common.output(args).item(memory)
    return 0


def revisions(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        items = client.revisions(args.name, page_size=args.page_size)
        common.output(args).rows(_limited(items, args.limit))
    return 0


def audit(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        entries = client.transitions(args.memory, args.space, page_size=args.page_size)
        common.output(args).rows(_limited(entries, args.limit))
    return 0


def watch(args: argparse.Namespace) -> int:
    # A stream has no deadline: --timeout only bounds the reconnects' unary calls.
    with common.make_client(args) as client:
        events = client.watch(
            args.space,
            common.split_list(args.status),
            args.cursor,
            resume=not args.no_resume,
        )
        common.output(args).rows(_limited(events, args.limit))
    return 0


def purge(args: argparse.Namespace) -> int:
    scope = (
        f"session {args.session!r} of space {args.space!r}"
        if args.session
        else (f"space {args.space!r}")
    )
    if not args.yes:
        raise UsageError(f"purge deletes every memory of {scope} for good; add --yes")
    with common.make_client(args) as client:
        result = client.purge(
            args.space, args.session, reason=args.reason, request_id=args.request_id
        )
    out = common.output(args)
    if out.as_json:
        out.item(result)
    else:
        out.line(f"purged {result.purged_count} memories of {scope}")
        if result.tombstone is not None:
            out.line(f"tombstone {result.tombstone.name}")
    return 0


def expire(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        result = client.expire_due(limit=args.limit)
    out = common.output(args)
    if out.as_json:
        out.item(result)
    else:
        out.line(f"expired {result.expired_count} memories")
        for name in result.names:
            out.line(f"  {name}")
    return 0
