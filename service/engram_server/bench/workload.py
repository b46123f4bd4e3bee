"""The memories a benchmark writes: distinct, realistic-sized, reproducible.

Both sides of a comparison (Engram through gRPC, PostgreSQL through psycopg) write
the very same items, so the floor measures the cost of the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram_server.lifecycle.model import content_hash

SPACES = 8
TOPICS = 16
# Items n..n+99 share a space and a session: a batch is one agent flushing what it
# learnt in one session, the usual shape of a BatchPropose.
RUN_LENGTH = 100
SOURCE = "engram-bench"

_SUBJECTS = (
    "the deploy pipeline",
    "the billing service",
    "the on-call rota",
    "the search index",
    "the customer's SSO setup",
    "the nightly export",
    "the staging cluster",
    "the release checklist",
)
_FACTS = (
    "needs a manual approval from the platform team before it runs on Fridays",
    "was moved to the eu-west region after the latency review",
    "reads its feature flags from the shared config store, not from env vars",
    "must not be restarted while a schema migration is in progress",
    "prefers blue-green rollouts because canaries hid a memory leak last spring",
    "is owned by team {team} and escalates to their lead after 30 minutes",
    "keeps 14 days of logs; anything older is in cold storage",
    "was rewritten in Go; the Python version is only kept for the audit trail",
)


@dataclass(frozen=True)
class Item:
    """One memory to write."""

    space: str
    session: str
    content: str
    tags: tuple[str, ...]
    confidence: float
    attributes: dict[str, str]

    @property
    def content_hash(self) -> str:
        return content_hash(self.content)


class Workload:
    """Item `n` of a run is the same everywhere; `tag` keeps runs and tenants apart."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def item(self, n: int) -> Item:
        subject = _SUBJECTS[n % len(_SUBJECTS)]
        fact = _FACTS[(n // len(_SUBJECTS)) % len(_FACTS)].format(team=n % 23)
        return Item(
            space=f"bench/agent-{(n // RUN_LENGTH) % SPACES}",
            session=f"session-{n // RUN_LENGTH}",
            content=f"Note {n} ({self.tag}): {subject} {fact}.",
            tags=("bench", f"topic-{n % TOPICS}"),
            confidence=0.9,
            attributes={"n": str(n)},
        )

    def items(self, start: int, count: int) -> list[Item]:
        return [self.item(n) for n in range(start, start + count)]
