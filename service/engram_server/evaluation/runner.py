"""A run of the evaluation: ingest, ask, score.

A retriever is a function (conversation, question, k) -> turn ids, best first.
The BM25 baseline is one; Engram's answers from the rankings Recall returned
through gRPC (see `remote`), mapped back to turn ids by `turns_of_hits`. Both are
scored by the same code on the same questions, so their figures compare directly.
`run` does a whole evaluation, starting a server of its own when given none.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc.aio

from engram_server.evaluation import metrics
from engram_server.evaluation.bm25 import BM25
from engram_server.evaluation.dataset import HARD_CATEGORIES, Conversation, Question, load_with_hard
from engram_server.evaluation.remote import IndexWait, Ingested, RemoteEngram
from engram_server.evaluation.scenarios import CATEGORIES

Retriever = Callable[[Conversation, Question, int], Sequence[str]]
DEFAULT_KS = (1, 3, 5, 10)
NDCG_K = 10


@dataclass(frozen=True)
class QuestionScore:
    question_id: str
    category: str
    ranked: tuple[str, ...]  # the first `depth` turn ids returned
    recall: Mapping[int, float]  # k -> recall@k
    reciprocal_rank: float
    ndcg: float

    def values(self) -> dict[str, float]:
        """Every metric of this question by its report name."""
        named = {f"recall@{k}": v for k, v in self.recall.items()}
        named["mrr"] = self.reciprocal_rank
        named[f"ndcg@{NDCG_K}"] = self.ndcg
        return named


@dataclass(frozen=True)
class SystemScores:
    system: str
    ks: tuple[int, ...]
    questions: tuple[QuestionScore, ...]

    def metric_names(self) -> list[str]:
        return [*(f"recall@{k}" for k in self.ks), "mrr", f"ndcg@{NDCG_K}"]

    def means(self, category: str | None = None) -> dict[str, float]:
        """Each metric averaged over the questions (of one category if given)."""
        chosen = [q for q in self.questions if category is None or q.category == category]
        return {
            name: metrics.mean([q.values()[name] for q in chosen]) for name in self.metric_names()
        }

    def per_question(self, name: str) -> list[float]:
        return [q.values()[name] for q in self.questions]

    def categories(self) -> list[str]:
        present = {q.category for q in self.questions}
        known = CATEGORIES + HARD_CATEGORIES
        return [c for c in known if c in present] + sorted(present - set(known))

    def only(self, categories: Iterable[str]) -> SystemScores:
        """The same scores restricted to the questions of `categories`."""
        chosen = set(categories)
        return SystemScores(
            self.system, self.ks, tuple(q for q in self.questions if q.category in chosen)
        )


def depth(ks: Sequence[int]) -> int:
    """How many hits to ask for: enough for every k and for nDCG@10."""
    return max(*ks, NDCG_K)


def parse_ks(text: str) -> tuple[int, ...]:
    """`1,3,5,10` -> (1, 3, 5, 10); ValueError unless positive, distinct, at most 100."""
    try:
        ks = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError as exc:
        raise ValueError(f"not a list of cut-offs: {text!r}") from exc
    if not ks or ks[0] < 1 or ks[-1] > 100:
        raise ValueError("cut-offs must be between 1 and 100")
    return ks


def score_question(question: Question, ranked: Sequence[str], ks: Sequence[int]) -> QuestionScore:
    top = _distinct(ranked)[: depth(ks)]
    return QuestionScore(
        question_id=question.id,
        category=question.category,
        ranked=tuple(top),
        recall={k: metrics.recall_at_k(top, question.answers, k) for k in ks},
        reciprocal_rank=metrics.reciprocal_rank(top, question.answers),
        ndcg=metrics.ndcg_at_k(top, question.answers, NDCG_K),
    )


def score_system(
    system: str,
    conversations: Sequence[Conversation],
    retrieve: Retriever,
    ks: Sequence[int] = DEFAULT_KS,
) -> SystemScores:
    """Asks `retrieve` every question of every conversation and scores the answers."""
    k = depth(ks)
    scores = [
        score_question(question, retrieve(conversation, question, k), ks)
        for conversation in conversations
        for question in conversation.questions
    ]
    return SystemScores(system, tuple(ks), tuple(scores))


def bm25_retriever(conversations: Iterable[Conversation]) -> Retriever:
    """The baseline: BM25 over the turns of the question's own conversation."""
    indexes = {c.id: BM25([(t.id, t.text) for t in c.turns]) for c in conversations}

    def retrieve(conversation: Conversation, question: Question, k: int) -> list[str]:
        return indexes[conversation.id].search(question.text, k)

    return retrieve


def rankings_retriever(rankings: Mapping[str, Sequence[str]]) -> Retriever:
    """A retriever that answers from rankings fetched beforehand, by question id."""

    def retrieve(conversation: Conversation, question: Question, k: int) -> Sequence[str]:
        return rankings.get(question.id, ())[:k]

    return retrieve


def turns_of_hits(
    hits: Iterable[tuple[str, Mapping[str, str]]],
    turns_by_memory: Mapping[str, Sequence[str]],
) -> list[str]:
    """The turn ids behind recall hits (memory name, attributes), in hit order.

    A memory stands for every turn that was stored as it: normally one, more when
    the server merged identical or near-identical proposals into one memory. A
    memory this run did not write is known only by its `turn_id` attribute; one
    without it is not a turn of the dataset and is skipped. Each turn is listed
    once, at its best rank.
    """
    ranked: list[str] = []
    for name, attributes in hits:
        turns = turns_by_memory.get(name)
        if not turns:
            turn_id = attributes.get("turn_id", "")
            turns = (turn_id,) if turn_id else ()
        ranked.extend(turns)
    return _distinct(ranked)


def _distinct(ids: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for doc in ids:
        if doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def compare(
    system: SystemScores, baseline: SystemScores, resamples: int = 2000
) -> dict[str, dict[str, Any]]:
    """Per metric: both means, the difference, the relative change and a 95%
    paired-bootstrap interval of the difference (resampling questions)."""
    if [q.question_id for q in system.questions] != [q.question_id for q in baseline.questions]:
        raise ValueError("both systems must be scored on the same questions, in the same order")
    ours, theirs = system.means(), baseline.means()
    out: dict[str, dict[str, Any]] = {}
    for name in system.metric_names():
        delta = ours[name] - theirs[name]
        low, high = metrics.paired_bootstrap_ci(
            system.per_question(name), baseline.per_question(name), resamples=resamples
        )
        out[name] = {
            system.system: ours[name],
            baseline.system: theirs[name],
            "delta": delta,
            "relative": delta / theirs[name] if theirs[name] else None,
            "delta_ci95": [low, high],
        }
    return out


# -- a whole run ------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    dataset: Path
    ks: tuple[int, ...]
    address: str  # empty: start a server in a child process
    api_key: str  # platform-admin key of `address`
    database_url: str  # superuser URL for the started server's scratch database
    redis_url: str
    bm25_only: bool
    index_timeout: float
    deadline: float
    quiet: bool
    deep: bool = False  # every Recall in depth mode


@dataclass(frozen=True)
class EngramRun:
    """What the Engram side measured besides its rankings."""

    scores: SystemScores
    ingested: Ingested
    index_wait: IndexWait
    latencies: tuple[float, ...]
    embedding_model: str
    server_mode: str


class Progress:
    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{time.monotonic() - self.start:7.1f}s] {message}", file=sys.stderr, flush=True)


async def run(options: Options) -> tuple[list[Conversation], SystemScores, EngramRun | None]:
    """Scores the baseline, then (unless `bm25_only`) Engram on the same questions."""
    say = Progress(options.quiet)
    conversations = load_with_hard(options.dataset)
    hard = sum(q.category in HARD_CATEGORIES for c in conversations for q in c.questions)
    say(
        f"dataset: {len(conversations)} conversations from {options.dataset}"
        + (f" ({hard} harder questions from its .hard.jsonl)" if hard else "")
    )
    baseline = score_system("bm25", conversations, bm25_retriever(conversations), options.ks)
    if options.bm25_only:
        return conversations, baseline, None
    with contextlib.ExitStack() as stack:
        if options.address:
            address, platform_key = options.address, options.api_key
            server_mode = f"an already running server at {address}"
        else:
            from engram_server.bench import harness

            database_url = harness.create_database(options.database_url, "engram_eval")
            stack.callback(harness.drop_database, options.database_url, database_url)
            server = harness.SpawnedServer(database_url, options.redis_url)
            server.start()
            stack.callback(server.stop)
            say(f"starting engram serve (pid {server.pid}) on {server.address}")
            await server.wait_serving()
            address, platform_key = server.address, server.bootstrap_token
            server_mode = (
                "`engram serve` started by the evaluation in a child process on a fresh"
                " database, default settings"
            )
        if options.deep:
            server_mode += "; every Recall in depth mode (RECALL_DEPTH_DEEP)"
        engram = await _engram(options, conversations, address, platform_key, server_mode, say)
    return conversations, baseline, engram


async def _engram(
    options: Options,
    conversations: Sequence[Conversation],
    address: str,
    platform_key: str,
    server_mode: str,
    say: Callable[[str], None],
) -> EngramRun:
    remote = RemoteEngram(address, platform_key, options.deadline)
    try:
        tenant = await remote.create_tenant()
        await remote.check_recall()
        turns = sum(len(c.turns) for c in conversations)
        say(f"tenant {tenant}: ingesting {turns} turns")
        ingested = await remote.ingest(conversations, say)
        say(f"ingested in {ingested.seconds:.1f}s; waiting for the index")
        index_wait = await remote.wait_indexed(options.index_timeout, say)
        say(f"index caught up after {index_wait.seconds:.1f}s; asking the questions")
        k = depth(options.ks)
        rankings: dict[str, list[str]] = {}
        latencies: list[float] = []
        for conversation in conversations:
            for question in conversation.questions:
                hits, seconds = await remote.rank(conversation, question, k, options.deep)
                rankings[question.id] = turns_of_hits(hits, ingested.turns_by_memory)
                latencies.append(seconds)
        say(f"{len(latencies)} questions asked")
    finally:
        try:
            await remote.delete_tenant()
        except grpc.aio.AioRpcError as error:
            say(f"could not delete tenant {remote.tenant_id}: {error.details()}")
        await remote.close()
    scores = score_system("engram", conversations, rankings_retriever(rankings), options.ks)
    return EngramRun(
        scores=scores,
        ingested=ingested,
        index_wait=index_wait,
        latencies=tuple(latencies),
        embedding_model=remote.embedding_model or index_wait.embedding_model,
        server_mode=server_mode,
    )
