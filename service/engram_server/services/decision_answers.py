"""DecisionsService's answering legs: SearchDecisions (`answer_search`) and the
legs ExplainCode shares with it: the anchor leg (stored anchors, lines carried
forward through the hunks of later commits and across renames), the blame leg,
the semantic leg (the dense similarity of the decision memories hybrid recall
finds), the evidence bridge (identifiers named in the question found in titles
and quotes) and the commit leg (BM25F over whole commits), fused by
`decisions.answer`; and the confidence that the best answer holds."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from engram_server.decisions import answer, ranking
from engram_server.decisions.anchors import carry, symbol_matches
from engram_server.decisions.identity import check_repository
from engram_server.decisions.model import Anchor, Decision
from engram_server.errors import Violations
from engram_server.lifecycle.model import Kind
from engram_server.recall.tokens import count_tokens
from engram_server.services.decision_core import DecisionsCore
from engram_server.services.decision_inputs import (
    DEFAULT_SEARCH_K,
    MAX_QUERY_CHARS,
    MAX_SEARCH_K,
    ExplainQuery,
    Explanation,
    SearchAnswer,
    SearchQuery,
)
from engram_server.store import decisions as store
from engram_server.store.postgres import Conn

# Fusion of the answering legs (tuned on the development questions).
COMMIT_LEG_WEIGHT = 1.0
RECALL_LEG_WEIGHT = 0.3
BRIDGE_LEG_WEIGHT = 0.1
# SearchDecisions' confidence is the best `DecisionsService.confidence` of its
# first CONFIDENCE_DEPTH hits (the first: the answer shown); under ABSTAIN_BELOW
# it abstains. Calibrated on the
# development questions (docs/decisions.md, "Ranking").
CONFIDENCE_DEPTH = 1
ABSTAIN_BELOW = 0.15
# ExplainCode: a decision whose commit last changed the asked lines (blame) scores
# above one anchored on them (an anchor-leg score is at most 2.0).
BLAME_SCORE = 3.0
_IDENTIFIER = re.compile(
    r"`([^`]{2,80})`|\b([A-Za-z_][A-Za-z0-9]*(?:(?:_|::|\.)[A-Za-z0-9_]+)+|[a-z]+[A-Z][A-Za-z0-9]*"
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Za-z_]\w*\(\)|--?[a-z][\w-]{2,})"
)


class DecisionAnswers(DecisionsCore):
    """SearchDecisions and the legs ExplainCode shares with it."""

    async def search(self, tenant: str, q: SearchQuery) -> list[answer.Candidate]:
        return (await self.answer_search(tenant, q)).candidates

    async def answer_search(self, tenant: str, q: SearchQuery) -> SearchAnswer:
        """The decisions that answer `q.query`, best first, with the confidence that
        the best one does (and the abstain signal)."""
        v = Violations()
        if not q.query.strip():
            v.add("query", "required")
        elif len(q.query) > MAX_QUERY_CHARS:
            v.add("query", f"at most {MAX_QUERY_CHARS} characters")
        if q.repository:
            check_repository(v, "repository", q.repository)
        if not 0 <= q.k <= MAX_SEARCH_K:
            v.add("k", f"must be between 0 and {MAX_SEARCH_K}")
        if q.start and q.end and q.start >= q.end:
            v.add("decision_time_end", "must be after decision_time_start")
        v.raise_if_any()
        await self.await_index(tenant, q.read_your_writes, q.wait_seconds)
        k = q.k or DEFAULT_SEARCH_K
        within = None
        if q.path:
            async with self.db.tenant_tx(tenant) as conn:
                within = await store.decision_ids_under(conn, q.repository, q.path)
        candidates = await self._semantic(
            tenant, q.repository, q.query, max(k * 4, 40), _identifiers(q.query), within
        )
        if q.start or q.end:
            candidates = [
                c
                for c in candidates
                if (q.start is None or c.decision.decision_time >= q.start)
                and (q.end is None or c.decision.decision_time < q.end)
            ]
        done = await self._finish(tenant, candidates, k, q.include_superseded, 0, "")
        confidence = 0.0
        for c in done.candidates[:CONFIDENCE_DEPTH]:
            confidence = max(confidence, await self.confidence(tenant, q.query, c.decision))
        return SearchAnswer(done.candidates, confidence, confidence < ABSTAIN_BELOW)

    async def _finish(
        self,
        tenant: str,
        candidates: list[answer.Candidate],
        k: int,
        include_superseded: bool,
        budget: int,
        heading: str,
    ) -> Explanation:
        replacements: dict[uuid.UUID, Decision] = {}
        wanted = {c.decision.superseded_by for c in candidates if c.decision.superseded_by}
        async with self.db.tenant_tx(tenant) as conn:
            for _ in range(4):  # follow chains of reversals a few steps
                missing = [w for w in wanted if w not in replacements]
                if not missing:
                    break
                got = await store.get_decisions(conn, missing, with_anchors=False)
                replacements.update(got)
                wanted = {d.superseded_by for d in got.values() if d.superseded_by}
        ranked = answer.fuse(candidates, k, replacements, include_superseded)
        # Ranking needs no anchors; the answers carry them (loaded for these only).
        shown = {c.decision.id for c in ranked} | {
            c.replacement.id for c in ranked if c.replacement is not None
        }
        async with self.db.tenant_tx(tenant) as conn:
            full = await store.get_decisions(conn, list(shown))
        for c in ranked:
            c.decision = full.get(c.decision.id, c.decision)
            if c.replacement is not None:
                c.replacement = full.get(c.replacement.id, c.replacement)
        if not heading:
            return Explanation(ranked, "", 0)
        context, tokens = answer.render_context(
            ranked, heading, budget or answer.DEFAULT_TOKEN_BUDGET, count_tokens
        )
        return Explanation(ranked, context, tokens)

    async def _anchor_leg(
        self, conn: Conn, q: ExplainQuery, paths: list[str]
    ) -> dict[uuid.UUID, tuple[answer.Match, float, list[Anchor]]]:
        """Decisions anchored on the file (under any of its earlier names), with
        lines carried to the asked revision."""
        rows = await store.anchors_on_paths(conn, q.repository, paths)
        if not rows:
            return {}
        shas = list({a.commit_sha for _, a in rows if a.commit_sha})
        times = await store.commit_times(conn, q.repository, shas)
        until = await store.commit_time(conn, q.repository, q.revision) if q.revision else None
        changes: list[dict[str, Any]] = []
        # With a revision, every anchor is shown where its lines are at that revision.
        if q.revision and times:
            changes = await store.changes_on_paths(
                conn, q.repository, paths, min(times.values()), until
            )
        out: dict[uuid.UUID, tuple[answer.Match, float, list[Anchor]]] = {}
        for decision_id, anchor in rows:
            shown: Anchor = anchor
            match = answer.Match.FILE
            score = 1.0
            at: Anchor | None = anchor
            if q.revision and anchor.lines is not None and anchor.commit_sha != q.revision:
                at = _carried(anchor, times.get(anchor.commit_sha), changes, q.revision)
            if at is not None:
                shown = at
            if q.symbol and symbol_matches(q.symbol, anchor.symbol):
                match, score = answer.Match.LINES, 2.0
            elif q.lines is not None and at is not None and at.lines is not None:
                if at.lines.overlaps(q.lines):
                    overlap = min(at.lines.end, q.lines.end) - max(at.lines.start, q.lines.start)
                    match, score = answer.Match.LINES, 1.0 + (overlap + 1) / q.lines.count
            held = out.get(decision_id)
            if held is None or match < held[0]:
                out[decision_id] = (match, score, [shown])
            elif match == held[0]:
                out[decision_id] = (match, max(score, held[1]) + 0.01, [*held[2], shown])
        return out

    async def _blame_leg(
        self, conn: Conn, q: ExplainQuery
    ) -> dict[uuid.UUID, tuple[answer.Match, float, list[Anchor]]]:
        """Decisions of the commits that introduced or last changed the asked lines
        (as the client's `git blame` names them): tied to the lines."""
        if not q.blame_commits:
            return {}
        of = await store.decisions_of_commits(conn, q.repository, list(q.blame_commits))
        out: dict[uuid.UUID, tuple[answer.Match, float, list[Anchor]]] = {}
        for sha in q.blame_commits:
            decision_id = of.get(sha)
            if decision_id is None:
                continue
            anchor = Anchor(q.path, q.lines, sha, q.symbol)
            held = out.get(decision_id)
            out[decision_id] = (
                answer.Match.LINES,
                BLAME_SCORE + (held[1] - BLAME_SCORE + 0.01 if held else 0.0),
                [*(held[2] if held else []), anchor],
            )
        return out

    async def _semantic(
        self,
        tenant: str,
        repository: str,
        question: str,
        limit: int,
        terms: Sequence[str],
        within: set[uuid.UUID] | None,
    ) -> list[answer.Candidate]:
        """The semantic leg (dense similarity of the decision memories hybrid recall
        finds, spread over its range) and the evidence bridge (identifiers of the
        question in titles, rationale and quotes)."""
        out: list[answer.Candidate] = []
        async with self.db.tenant_tx(tenant) as conn:
            spaces = await _spaces(conn, repository)
            bridged = await store.mentioning(conn, repository, list(dict.fromkeys(terms)), limit)
        memory_ids: list[uuid.UUID] = []
        scores: dict[uuid.UUID, float] = {}
        if self.recall is not None and spaces:
            from engram_server.services.recall import RecallQuery

            result = await self.recall.service.recall(
                tenant,
                RecallQuery(
                    query=question[:MAX_QUERY_CHARS],
                    spaces=tuple(spaces[:32]),
                    k=min(limit, 100),
                    kinds=(Kind.DECISION,),
                    include_superseded=True,
                    track_access=False,
                ),
                None,
            )
            for hit in result.hits:
                memory_ids.append(hit.memory.id)
                # Meaning only: the commit leg already weighs the words (over the
                # whole commit), and forgetting and recency do not make a reason
                # less true.
                scores[hit.memory.id] = hit.breakdown.dense
            scores = answer.spread(scores)
        async with self.db.tenant_tx(tenant) as conn:
            by_memory = await store.by_memories(conn, memory_ids, with_anchors=False)
            bridge = await store.get_decisions(conn, [d for d, _ in bridged], with_anchors=False)
        recalled: list[tuple[Decision, float]] = []
        for memory_id in memory_ids:
            d = by_memory.get(memory_id)
            if d is None or (repository and d.repository != repository):
                continue
            if within is not None and d.id not in within:
                continue
            recalled.append((d, scores[memory_id]))
        bridged_decisions: list[tuple[Decision, float]] = []
        for decision_id, n in bridged:
            d = bridge.get(decision_id)
            if d is None or (within is not None and d.id not in within):
                continue
            bridged_decisions.append((d, float(n)))
        commits = await self._commit_leg(tenant, repository, question, limit, within)
        # Each leg's scores are scaled to its best one (1.0), then weighted and summed
        # per decision (`answer.fuse` adds a decision's entries of one class): the
        # commit leg leads, meaning (dense and memory-text recall) and the named
        # identifiers add to it and find what it misses.
        for weight, leg in (
            (COMMIT_LEG_WEIGHT, commits),
            (RECALL_LEG_WEIGHT, recalled),
            (BRIDGE_LEG_WEIGHT, bridged_decisions),
        ):
            best = max((score for _, score in leg), default=0.0)
            if best <= 0:
                continue
            for d, score in leg:
                out.append(answer.Candidate(d, answer.Match.SEMANTIC, weight * score / best))
        return out

    async def _commit_leg(
        self,
        tenant: str,
        repository: str,
        question: str,
        limit: int,
        within: set[uuid.UUID] | None,
    ) -> list[tuple[Decision, float]]:
        """Decisions by BM25F over their whole commits (`decisions.ranking`)."""
        ranked, _ = await self.commit_indexes.search(
            tenant, repository, ranking.parse_query(question), limit
        )
        wanted = {
            s.decision_id: s.score for s in ranked if within is None or s.decision_id in within
        }
        async with self.db.tenant_tx(tenant) as conn:
            found = await store.get_decisions(conn, list(wanted), with_anchors=False)
        return [(found[d], score) for d, score in wanted.items() if d in found]

    async def confidence(self, tenant: str, question: str, decision: Decision) -> float:
        """How well the decision's best commit explains the question (0-1):
        `ranking.CommitIndex.confidence`."""
        index = await self.commit_indexes.index(tenant, decision.repository)
        return index.confidence(ranking.parse_query(question), decision.commits)


def _carried(
    anchor: Anchor, since: datetime | None, changes: Sequence[dict[str, Any]], revision: str
) -> Anchor | None:
    """The anchor at `revision`: its lines moved through the hunks of every later
    change of its file (following renames). None when its lines are gone."""
    if since is None or anchor.lines is None:
        return None
    path, lines = anchor.path, anchor.lines
    for change in changes:
        if change["commit_time"] <= since:
            continue
        renamed = change["old_path"] == path and change["change_type"] == "RENAMED"
        if change["path"] != path and not renamed:
            continue
        if change["change_type"] == "DELETED":
            return None
        carried = carry(lines, [tuple(h) for h in change["hunks"]])
        if carried is None:
            return None
        lines, path = carried, change["path"]
    return Anchor(path, lines, revision, anchor.symbol, anchor.lines, anchor.commit_sha)


async def _spaces(conn: Conn, repository: str) -> list[str]:
    cur = await conn.execute(
        "SELECT DISTINCT space FROM decisions WHERE (%s = '' OR repository = %s) LIMIT 32",
        (repository, repository),
    )
    return [r["space"] for r in await cur.fetchall()]


def _identifiers(text: str) -> list[str]:
    """Identifier-like words of a question (`rerank_async`, `Client.close`,
    `maxWorkers`, `--no-ignore`): the evidence bridge matches them as written."""
    out = []
    for m in _IDENTIFIER.finditer(text or ""):
        term = (m.group(1) or m.group(2) or "").strip().rstrip("()")
        if len(term) >= 3:
            out.append(term)
    return list(dict.fromkeys(out))[:8]
