"""DecisionsService's reads: ListDecisions and ExplainCode (the anchor, blame and
semantic legs of `decision_answers`, for a path and its earlier names)."""

from __future__ import annotations

import uuid
from datetime import datetime

from engram_server.decisions import answer
from engram_server.decisions.identity import check_repository
from engram_server.decisions.model import Decision
from engram_server.errors import InvalidArgument, Violations
from engram_server.services import paging
from engram_server.services.decision_answers import DecisionAnswers, _identifiers
from engram_server.services.decision_inputs import (
    DEFAULT_EXPLAIN_K,
    FULL_SHA,
    MAX_BLAME_COMMITS,
    MAX_EXPLAIN_K,
    MAX_QUERY_CHARS,
    MAX_TOKEN_BUDGET,
    SHORT_SHA,
    ExplainQuery,
    Explanation,
    check_span,
)
from engram_server.store import decisions as store
from engram_server.store.postgres import Conn


class DecisionReads(DecisionAnswers):
    """ListDecisions and ExplainCode."""

    async def list_decisions(
        self, tenant: str, f: store.DecisionFilter, size: int, token: str
    ) -> tuple[list[Decision], str]:
        v = Violations()
        if f.repository:
            check_repository(v, "repository", f.repository)
        if f.start and f.end and f.start >= f.end:
            v.add("decision_time_end", "must be after decision_time_start")
        v.raise_if_any()
        limit = paging.page_size(size)
        fingerprint = paging.filter_fingerprint(
            "ListDecisions",
            f.repository,
            f.path,
            f.start,
            f.end,
            f.include_superseded,
            sorted(f.outcomes),
        )
        position = paging.decode_token(token, fingerprint)
        after = None
        if position is not None:
            try:
                after = (datetime.fromisoformat(position["t"]), uuid.UUID(position["id"]))
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        async with self.db.tenant_tx(tenant) as conn:
            page = await store.list_decisions(conn, f, after, limit + 1)
        next_token = ""
        if len(page) > limit:
            page = page[:limit]
            last = page[-1]
            next_token = paging.encode_token(
                {"t": last.decision_time.isoformat(), "id": str(last.id)}, fingerprint
            )
        return page, next_token

    async def explain(self, tenant: str, q: ExplainQuery) -> Explanation:
        v = Violations()
        check_repository(v, "repository", q.repository)
        if not q.path:
            v.add("path", "required")
        elif len(q.path) > 1024:
            v.add("path", "at most 1024 characters")
        if q.lines is not None:
            check_span(v, "lines", q.lines)
        if q.revision and not SHORT_SHA.fullmatch(q.revision):
            v.add("revision", "a commit sha: 4-64 lowercase hex characters")
        if not 0 <= q.k <= MAX_EXPLAIN_K:
            v.add("k", f"must be between 0 and {MAX_EXPLAIN_K}")
        if not 0 <= q.token_budget <= MAX_TOKEN_BUDGET:
            v.add("token_budget", f"must be between 0 and {MAX_TOKEN_BUDGET}")
        if len(q.question) > MAX_QUERY_CHARS:
            v.add("question", f"at most {MAX_QUERY_CHARS} characters")
        if len(q.symbol) > 200:
            v.add("symbol", "at most 200 characters")
        if len(q.blame_commits) > MAX_BLAME_COMMITS:
            v.add("blame_commits", f"at most {MAX_BLAME_COMMITS} commits")
        for i, sha in enumerate(q.blame_commits):
            if not FULL_SHA.match(sha):
                v.add(f"blame_commits[{i}]", "a full commit sha: 40 or 64 lowercase hex characters")
        v.raise_if_any()
        await self.await_index(tenant, q.read_your_writes, q.wait_seconds)
        k = q.k or DEFAULT_EXPLAIN_K
        candidates: list[answer.Candidate] = []
        async with self.db.tenant_tx(tenant) as conn:
            paths = await _path_history(conn, q.repository, q.path)
            placed = await self._anchor_leg(conn, q, paths)
            for decision_id, blamed in (await self._blame_leg(conn, q)).items():
                held = placed.get(decision_id)
                if held is None or held[0] != answer.Match.LINES:
                    placed[decision_id] = blamed
                else:  # anchored on the lines and named by blame: both facts count
                    placed[decision_id] = (held[0], held[1] + blamed[1], [*blamed[2], *held[2]])
            ids = list(placed)
            found = await store.get_decisions(conn, ids, with_anchors=False)
        for decision_id, (match, score, matched) in placed.items():
            if decision_id in found:
                candidates.append(answer.Candidate(found[decision_id], match, score, matched))
        name = q.path.rsplit("/", 1)[-1]
        question = q.question or f"why is {q.symbol or name} in {q.path} like this?"
        terms = [t for t in (q.symbol, *_identifiers(q.question)) if t]
        candidates += await self._semantic(
            tenant, q.repository, question, k * 4, terms, within=None
        )
        return await self._finish(
            tenant,
            candidates,
            k,
            q.include_superseded,
            q.token_budget,
            f"Why {q.path} is like this",
        )


async def _path_history(conn: Conn, repository: str, path: str) -> list[str]:
    """The path and every earlier name of the file (renames followed back)."""
    paths = [path]
    frontier = [path]
    for _ in range(16):
        renames = await store.renamed_into(conn, repository, frontier)
        frontier = [r["old_path"] for r in renames if r["old_path"] not in paths]
        if not frontier:
            break
        paths.extend(dict.fromkeys(frontier))
    return paths
