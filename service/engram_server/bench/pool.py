"""`engram bench pool`: slot-delta sync against full re-sync, delivery latency, and
pool recall side by side with plain recall.

Sync bytes: one pool of `--slots` slots, filled once; then `--rounds` rounds, each
writing `--churn` x slots new values (a newer memory of the slot published; the old
one is superseded in its home space and withdrawn from the pool at once). A
follower syncs after every round (every `--sync-every` seconds) twice: from its
cursor (the deltas), and from an empty cursor (a full re-sync of the pool). Bytes
are the serialized SyncPoolResponse messages it receives. ai-knot reports delta
transfer under 15 % of full sync.

Two workloads per `--churn` value, each in its own pool: *uniform*, where a round
rewrites that many distinct slots (every write reaches the follower as its own
delta: the worst case for delta sync), and *skewed*, where the same number of
writes pick slots with Zipf-like popularity (s = 1.1), so hot slots are rewritten
several times between two syncs, as status and counter slots are in a live fleet,
and the follower receives each changed slot once.

Delivery latency: a member follows the pool (SyncPool with `follow`) while a
writer publishes `--deliveries` memories one at a time; latency is the delta's
arrival at the follower minus its `commit_time` (one machine, one clock).

Recall: `--recall-size` memories in one space (BatchProposeMemories, as every
bench loads a tenant), every one of them published to a pool (PublishMemory,
`--publishers` calls in flight); each question is asked as a plain Recall over
the space and as a pool Recall (`pools`, no spaces) by another member, the two
in turn going first and in two wordings of the same question (the server caches
query embeddings). The goal: pool recall p50 within 1.3x of plain recall over
the same number of memories, at 100k.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import psycopg
from engram.v1 import (
    lifecycle_pb2,
    lifecycle_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)

from engram_server import __version__
from engram_server.bench import corpus, harness
from engram_server.bench.engram_side import EngramSide, EngramTenant
from engram_server.bench.recall import distinct_questions
from engram_server.bench.stats import Latency, alternating

DEFAULT_OUT = "bench/results/pool.json"
RECALL_RATIO_GOAL = 1.3
DELTA_RATIO_GOAL = 0.15
RECALL_SPACE = "kb"
WARMUP = 10
# Two wordings of each question: one per mode, swapped from one question to the next.
WORDINGS = ("Put simply: {q}", "Said simply {q}")


@dataclass(frozen=True)
class Options:
    server: harness.ServerChoice
    slots: int
    rounds: int
    churns: tuple[float, ...]
    sync_every: float
    deliveries: int
    recall_size: int
    questions: int
    batch_size: int
    publishers: int
    out: Path
    seed: int
    quiet: bool


def add_arguments(parser: argparse.ArgumentParser) -> None:
    harness.add_server_arguments(parser)
    parser.add_argument("--slots", type=int, default=300, help="slots in the churned pool")
    parser.add_argument("--rounds", type=int, default=10, help="churn rounds (one sync each)")
    parser.add_argument(
        "--churn",
        default="0.05,0.1,0.2",
        help="writes per round as a share of the slots; a comma list runs each",
    )
    parser.add_argument("--sync-every", type=float, default=0.5, help="seconds between syncs")
    parser.add_argument("--deliveries", type=int, default=200, help="publications followed")
    parser.add_argument("--recall-size", type=int, default=2000, help="memories recalled over")
    parser.add_argument("--questions", type=int, default=200, help="timed questions per mode")
    parser.add_argument("--batch-size", type=int, default=250, help="proposals per batch")
    parser.add_argument("--publishers", type=int, default=8, help="PublishMemory calls in flight")
    parser.add_argument("--seed", type=int, default=7)
    harness.add_output_arguments(parser, DEFAULT_OUT)


def options_from(args: argparse.Namespace) -> Options:
    try:
        churns = tuple(float(value) for value in str(args.churn).split(","))
    except ValueError:
        raise ValueError("--churn must be numbers in (0, 1], separated by commas") from None
    if not churns or not all(0 < churn <= 1 for churn in churns):
        raise ValueError("--churn must be numbers in (0, 1], separated by commas")
    if args.questions < 2 or args.batch_size < 1 or args.publishers < 1:
        raise ValueError("--questions must be at least 2, --batch-size and --publishers 1")
    return Options(
        server=harness.server_choice(args),
        slots=args.slots,
        rounds=args.rounds,
        churns=churns,
        sync_every=args.sync_every,
        deliveries=args.deliveries,
        recall_size=args.recall_size,
        questions=args.questions,
        batch_size=args.batch_size,
        publishers=args.publishers,
        out=args.out,
        seed=args.seed,
        quiet=args.quiet,
    )


def run_command(args: argparse.Namespace) -> int:
    options = options_from(args)
    return harness.run_and_write(options.out, run(options), markdown)


class _Agent:
    """A key of the bench tenant bound to an agent identity."""

    def __init__(
        self, side: EngramSide, tenant_id: str, agent: str, metadata: tuple[tuple[str, str], ...]
    ) -> None:
        self.agent = agent
        self.metadata = metadata
        # Its memories, loaded the way every bench loads a tenant.
        self.memories = EngramTenant(tenant_id, metadata, side.lifecycle, [])
        channel = side.channel
        self.pool = pool_pb2_grpc.PoolServiceStub(channel)
        self.lifecycle = lifecycle_pb2_grpc.LifecycleServiceStub(channel)
        self.recall = recall_pb2_grpc.RecallServiceStub(channel)


async def _agent(side: EngramSide, tenant_id: str, name: str) -> _Agent:
    return _Agent(side, tenant_id, name, await side.agent_key(tenant_id, name))


async def _sync_bytes(
    agent: _Agent, pool: str, cursor: str, omit_old_content: bool = False
) -> tuple[int, int, str]:
    """(bytes, deltas, cursor after the catch-up)."""
    total = 0
    deltas = 0
    async for message in agent.pool.SyncPool(
        pool_pb2.SyncPoolRequest(pool=pool, cursor=cursor, omit_old_content=omit_old_content),
        metadata=agent.metadata,
    ):
        total += message.ByteSize()
        cursor = message.cursor
        if message.caught_up:
            break
        deltas += 1
    return total, deltas, cursor


async def _write(agent: _Agent, pool: str, space: str, content: str, slot: str) -> None:
    result = await agent.lifecycle.ProposeMemory(
        lifecycle_pb2.ProposeMemoryRequest(
            proposal=lifecycle_pb2.MemoryProposal(
                space=space, content=content, confidence=0.9, importance=0.8, slot_key=slot
            )
        ),
        metadata=agent.metadata,
    )
    await agent.pool.PublishMemory(
        pool_pb2.PublishMemoryRequest(pool=pool, memory=result.result.memory.name),
        metadata=agent.metadata,
    )


# Popularity exponent of the skewed workload's slot picks (Zipf-like).
SKEW_EXPONENT = 1.1


def _picks(rng: random.Random, slots: int, writes: int, workload: str) -> list[int]:
    """The slots one round writes: distinct ones (uniform), or drawn with
    replacement by popularity rank (skewed), so a hot slot may be written twice."""
    if workload == "uniform":
        return rng.sample(range(slots), writes)
    weights = [1 / (rank + 1) ** SKEW_EXPONENT for rank in range(slots)]
    return rng.choices(range(slots), weights=weights, k=writes)


async def sync_benchmark(
    o: Options, writer: _Agent, follower: _Agent, pool: str, churn: float, workload: str
) -> dict[str, Any]:
    rng = random.Random(f"{o.seed}-{workload}-{churn}")
    writes = max(1, int(o.slots * churn))
    texts = corpus.memories(f"pool-sync-{o.seed}-{workload}-{churn}", o.slots + writes * o.rounds)
    text = iter(texts)
    for i in range(o.slots):
        await _write(writer, pool, "sync", next(text), f"entity-{i}::fact")
    _, _, cursor = await _sync_bytes(follower, pool, "")
    delta_bytes = lean_bytes = full_bytes = delta_count = full_count = 0
    distinct = 0
    for _ in range(o.rounds):
        picks = _picks(rng, o.slots, writes, workload)
        distinct += len(set(picks))
        for i in picks:
            await _write(writer, pool, "sync", next(text), f"entity-{i}::fact")
        await asyncio.sleep(o.sync_every)
        # The same deltas with old memories by identity only (SyncPool reads).
        lean_bytes += (await _sync_bytes(follower, pool, cursor, omit_old_content=True))[0]
        b, n, cursor = await _sync_bytes(follower, pool, cursor)
        delta_bytes += b
        delta_count += n
        b, n, _ = await _sync_bytes(follower, pool, "")
        full_bytes += b
        full_count += n
    return {
        "workload": workload,
        "churn": churn,
        "slots": o.slots,
        "rounds": o.rounds,
        "writes_per_round": writes,
        "distinct_slots_per_round": distinct / o.rounds,
        "delta_bytes": delta_bytes,
        "full_bytes": full_bytes,
        "delta_messages": delta_count,
        "full_messages": full_count,
        "ratio": delta_bytes / full_bytes if full_bytes else 0.0,
        "omit_old_content_bytes": lean_bytes,
        "omit_old_content_ratio": lean_bytes / full_bytes if full_bytes else 0.0,
    }


async def delivery_benchmark(
    o: Options, writer: _Agent, follower: _Agent, pool: str
) -> dict[str, Any]:
    latencies: list[float] = []
    caught_up = asyncio.Event()
    all_in = asyncio.Event()
    texts = corpus.memories(f"pool-deliver-{o.seed}", o.deliveries)

    async def follow() -> None:
        async for message in follower.pool.SyncPool(
            pool_pb2.SyncPoolRequest(pool=pool, follow=True), metadata=follower.metadata
        ):
            if message.caught_up:
                caught_up.set()
                continue
            if caught_up.is_set():
                now = time.time()
                committed = message.delta.commit_time.ToDatetime(UTC).timestamp()
                latencies.append(now - committed)
                if len(latencies) >= o.deliveries:
                    all_in.set()

    task = asyncio.create_task(follow())
    try:
        await asyncio.wait_for(caught_up.wait(), 30)
        for i, content in enumerate(texts):
            await _write(writer, pool, "deliver", content, f"delivery-{i}::fact")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(all_in.wait(), 10)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
            await task
    stats = Latency.of(latencies or [0.0])
    return {"deliveries": o.deliveries, "received": len(latencies), **stats.to_json()}


# What PublishMemory stores for a PUBLISHED outcome, for many memories at once:
# the publications, the publisher's count, and the index refresh (the payload
# lists a memory's pools). Slots and the sync log are left out: recall reads
# neither. A memory whose proposal the indexer has not claimed yet (its outbox row
# locked here, so it is claimed only after this commits) needs no refresh: it is
# indexed once, with its pools, instead of twice.
_BULK_PUBLISH = """
WITH waiting AS MATERIALIZED (
  SELECT memory_id FROM outbox
   WHERE tenant_id = %(tenant)s AND processed_at IS NULL AND op = 'upsert'
     AND memory_id = ANY(%(ids)s::uuid[])
     FOR UPDATE SKIP LOCKED
), pub AS (
  INSERT INTO publications (tenant_id, pool_id, id, memory_id, publisher, state, visibility,
                            topic, slot_key, slot, utility, published_time)
  SELECT m.tenant_id, %(pool)s, gen_random_uuid(), m.id, %(publisher)s, 'PUBLISHED', 'POOL',
         m.topic, m.slot_key, CASE WHEN m.slot_key <> '' THEN m.slot_key
                                   ELSE 'memories/' || m.id END,
         m.confidence * m.importance, clock_timestamp()
    FROM memories m
   WHERE m.tenant_id = %(tenant)s AND m.id = ANY(%(ids)s::uuid[]) AND m.status = 'ACTIVE'
  RETURNING tenant_id, memory_id
), counted AS (
  INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, published_count)
  SELECT %(tenant)s, %(pool)s, %(publisher)s, count(*) FROM pub
  ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE
     SET published_count = t.published_count + EXCLUDED.published_count
)
INSERT INTO outbox (tenant_id, memory_id, op)
SELECT tenant_id, memory_id, 'upsert' FROM pub
 WHERE memory_id NOT IN (SELECT memory_id FROM waiting)
"""


def _publish_in_bulk(
    database_url: str, tenant_id: str, pool: str, publisher: str, names: list[str]
) -> None:
    ids = [name.rpartition("/")[2] for name in names]
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(
            _BULK_PUBLISH,
            {
                "tenant": tenant_id,
                "pool": pool.partition("/")[2],
                "publisher": publisher,
                "ids": ids,
            },
        )


async def _publish_all(
    o: Options, writer: _Agent, pool: str, names: list[str], database_url: str
) -> None:
    """Publishes every memory: in bulk, through the scratch database of a server
    the bench started (PublishMemory takes one transaction per memory, about 20 a
    second on a busy 2-core machine); else `--publishers` PublishMemory calls in
    flight."""
    if database_url:
        await asyncio.to_thread(
            _publish_in_bulk, database_url, writer.memories.tenant_id, pool, writer.agent, names
        )
        return
    queue = iter(names)

    async def publisher() -> None:
        for name in queue:
            await writer.pool.PublishMemory(
                pool_pb2.PublishMemoryRequest(pool=pool, memory=name), metadata=writer.metadata
            )

    await asyncio.gather(*(publisher() for _ in range(o.publishers)))


async def recall_benchmark(
    o: Options,
    writer: _Agent,
    reader: _Agent,
    pool: str,
    side: EngramSide,
    database_url: str,
    say: Any,
) -> dict[str, Any]:
    texts = corpus.memories(f"pool-recall-{o.seed}", o.recall_size)
    chunk = 10_000
    load_seconds = publish_seconds = 0.0
    for start in range(0, len(texts), chunk):
        t0 = time.monotonic()
        names = await writer.memories.load(
            (
                lifecycle_pb2.MemoryProposal(
                    space=RECALL_SPACE, content=t, confidence=0.9, importance=0.8
                )
                for t in texts[start : start + chunk]
            ),
            o.batch_size,
        )
        t1 = time.monotonic()
        await _publish_all(o, writer, pool, names, database_url)
        load_seconds += t1 - t0
        publish_seconds += time.monotonic() - t1
        say(f"recall: {start + len(names):,} memories proposed and published")
    waited, drained = await side.wait_indexed(300 + 0.05 * o.recall_size)
    if not drained:
        raise RuntimeError("the index did not drain in time")
    settle_seconds = await side.first_recall(writer.memories)
    say(f"recall: searchable after {waited:.0f}s (+{settle_seconds:.0f}s); timing")
    questions = distinct_questions(f"pool-q-{o.seed}", o.questions + WARMUP)

    def plain(i: int) -> Any:
        return reader.recall.Recall(
            recall_pb2.RecallRequest(
                query=WORDINGS[i % 2].format(q=questions[i]),
                spaces=[RECALL_SPACE],
                k=10,
                skip_access_tracking=True,
            ),
            metadata=reader.metadata,
        )

    def pooled(i: int) -> Any:
        return reader.recall.Recall(
            recall_pb2.RecallRequest(
                query=WORDINGS[(i + 1) % 2].format(q=questions[i]),
                pools=[pool],
                k=10,
                skip_access_tracking=True,
            ),
            metadata=reader.metadata,
        )

    plain_s, pool_s, replies = await alternating(len(questions), WARMUP, plain, pooled)
    p, q = Latency.of(plain_s), Latency.of(pool_s)
    return {
        "memories": o.recall_size,
        "questions": o.questions,
        "published_through": "bulk SQL" if database_url else "PublishMemory",
        "load_seconds": round(load_seconds, 1),
        "publish_seconds": round(publish_seconds, 1),
        "index_wait_seconds": round(waited, 1),
        "plain": p.to_json(),
        "pool": q.to_json(),
        "pool_hits_per_recall": round(sum(len(r.hits) for r in replies) / max(1, len(replies)), 2),
        "ratio_p50": q.p50_ms / p.p50_ms if p.p50_ms else 0.0,
        "ratio_p99": q.p99_ms / p.p99_ms if p.p99_ms else 0.0,
    }


async def run(o: Options) -> dict[str, Any]:
    say = harness.Run(o.quiet)

    async with harness.bench_server(o.server, "engram_bench_pool") as served:
        side = EngramSide(served.address, served.platform_key)
        try:
            tenant = await side.new_tenant("pool")
            writer = await _agent(side, tenant.tenant_id, "bench/writer")
            follower = await _agent(side, tenant.tenant_id, "bench/follower")
            workloads = [
                (workload, churn, f"churn-{workload}-{i}")
                for i, churn in enumerate(o.churns)
                for workload in ("uniform", "skewed")
            ]
            for pool_id in (*(w[2] for w in workloads), "live", "recall"):
                await writer.pool.CreatePool(
                    pool_pb2.CreatePoolRequest(
                        pool_id=pool_id, pool=pool_pb2.Pool(display_name=pool_id)
                    ),
                    metadata=writer.metadata,
                )
                await writer.pool.AddPoolMember(
                    pool_pb2.AddPoolMemberRequest(
                        parent=f"pools/{pool_id}",
                        member=pool_pb2.PoolMember(
                            principal="bench/follower", role=pool_pb2.POOL_ROLE_READER
                        ),
                    ),
                    metadata=writer.metadata,
                )
            syncs = []
            for workload, churn, pool_id in workloads:
                say(f"sync: {workload} workload, churn {churn:g}")
                result = await sync_benchmark(
                    o, writer, follower, f"pools/{pool_id}", churn, workload
                )
                say(f"sync: delta/full = {result['ratio']:.3f}")
                syncs.append(result)
            sync = syncs[0]
            say("delivery latency")
            delivery = await delivery_benchmark(o, writer, follower, "pools/live")
            say("recall: loading and publishing")
            recall = await recall_benchmark(
                o, writer, follower, "pools/recall", side, served.database_url, say
            )
            say(f"recall: pool/plain p50 = {recall['ratio_p50']:.2f}")
        finally:
            with contextlib.suppress(grpc.aio.AioRpcError):
                await side.delete_tenants()
            await side.close()
    return {
        "benchmark": "pool",
        "run_time": datetime.now(UTC).isoformat(timespec="seconds"),
        "engram_version": __version__,
        "commit": harness.git_commit(),
        "machine": say.machine(o.server.database_url),
        "server": served.mode,
        "options": {
            "slots": o.slots,
            "rounds": o.rounds,
            "churn": list(o.churns),
            "sync_every_seconds": o.sync_every,
            "deliveries": o.deliveries,
            "recall_size": o.recall_size,
            "questions": o.questions,
            "publishers": o.publishers,
        },
        "sync": sync,
        "sync_workloads": syncs,
        "delivery": delivery,
        "recall": recall,
        "goals": [
            *_sync_goals(syncs),
            {
                "goal": "pool recall p50 vs plain recall p50",
                "target": f"<= {RECALL_RATIO_GOAL}x (issue: at 100k)",
                "measured": round(recall["ratio_p50"], 3),
                "met": recall["ratio_p50"] <= RECALL_RATIO_GOAL,
                "size": o.recall_size,
            },
        ],
    }


def _sync_goals(syncs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    goals = []
    for w in syncs:
        for label, key in (
            ("old memories whole", "ratio"),
            ("omit_old_content", "omit_old_content_ratio"),
        ):
            goals.append(
                {
                    "goal": f"delta sync bytes vs full re-sync, {w['workload']} churn"
                    f" {w['churn']:g} ({label})",
                    "target": f"< {DELTA_RATIO_GOAL:.0%} (ai-knot's figure)",
                    "measured": round(w[key], 4),
                    "met": w[key] < DELTA_RATIO_GOAL,
                }
            )
    return goals


def markdown(r: dict[str, Any]) -> str:
    s, d, c, m = r["sync"], r["delivery"], r["recall"], r["machine"]
    lines = [
        "# Engram pool benchmark",
        "",
        f"Run {r['run_time']} on {m.get('cpu_count', '?')} cores ({m.get('cpu_model', '')}),"
        f" Python {m.get('python', '')}, Engram {r['engram_version']} at {r['commit']}.",
        "Load average (1 min) before / after: "
        f"{m['load_average']['before'][0]:.2f} / {m['load_average']['after'][0]:.2f}.",
        "",
        "## Slot-delta sync against full re-sync",
        "",
        f"{s['slots']} slots; per workload {s['rounds']} rounds, each writing a share (churn) of"
        " the slots; the follower syncs after every round from its cursor (old memories"
        " whole, and again with `omit_old_content`), and from an empty cursor. Uniform: a"
        " round's writes go to distinct slots; skewed: the same number of writes pick slots"
        " by Zipf-like popularity, so hot slots change several times between syncs.",
        "",
        "| workload | churn | writes / distinct slots per round | delta bytes |"
        " with omit_old_content | full re-sync bytes | ratio | ratio (omit_old_content) |"
        " delta messages | full messages |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *(
            f"| {w['workload']} | {w['churn']:g} | {w['writes_per_round']} /"
            f" {w['distinct_slots_per_round']:.1f} | {w['delta_bytes']:,} |"
            f" {w['omit_old_content_bytes']:,} | {w['full_bytes']:,} | {w['ratio']:.1%} |"
            f" {w['omit_old_content_ratio']:.1%} | {w['delta_messages']:,} |"
            f" {w['full_messages']:,} |"
            for w in r.get("sync_workloads", [s])
        ),
        "",
        "## Commit-to-delivery latency (a following member)",
        "",
        "| deliveries | received | p50 | p99 |",
        "|---:|---:|---:|---:|",
        f"| {d['deliveries']} | {d['received']} | {d['p50_ms']:.2f} ms | {d['p99_ms']:.2f} ms |",
        "",
        "## Pool recall beside plain recall",
        "",
        f"{c['memories']:,} memories in one space, all published to a pool (proposed in"
        f" {c['load_seconds']:,.0f} s, published through {c['published_through']} in"
        f" {c['publish_seconds']:,.0f} s, searchable"
        f" {c['index_wait_seconds']:,.0f} s later); {c['questions']} questions per mode, the"
        " modes taking turns going first.",
        "",
        "| mode | p50 | p99 |",
        "|---|---:|---:|",
        f"| plain Recall (spaces) | {c['plain']['p50_ms']:.2f} ms"
        f" | {c['plain']['p99_ms']:.2f} ms |",
        f"| pool Recall (pools) | {c['pool']['p50_ms']:.2f} ms | {c['pool']['p99_ms']:.2f} ms |",
        f"| ratio | {c['ratio_p50']:.2f}x | {c['ratio_p99']:.2f}x |",
        "",
        "| goal | target | measured | met |",
        "|---|---|---:|---|",
    ]
    for g in r["goals"]:
        lines.append(
            f"| {g['goal']} | {g['target']} | {g['measured']} | {'yes' if g['met'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"
