"""Decisions stated rather than mined: CreateDecision, IngestSession (decisions
stated in a conversation's buffer) and RecordOutcome, each quote of theirs
checked against its source before anything is stored."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from engram_server.decisions.extract import verbatim
from engram_server.decisions.identity import check_repository, decision_identity, default_space
from engram_server.decisions.model import (
    Alternative,
    Anchor,
    Decision,
    Draft,
    Evidence,
    Origin,
    Outcome,
    OutcomeRecord,
)
from engram_server.errors import InvalidArgument, NotFound, Violations
from engram_server.lifecycle.validation import check_request_id, check_space
from engram_server.platform.principal import Principal
from engram_server.privacy import PrivacyFinding
from engram_server.services.decision_inputs import DECISION
from engram_server.services.decision_writes import DecisionWrites
from engram_server.services.lifecycle import RequestKey
from engram_server.services.privacy_gate import screen_text
from engram_server.store import decisions as store
from engram_server.store import erasure as erasure_store
from engram_server.store import memories as memory_store
from engram_server.store.erasure import ErasureGuard


class DecisionStatements(DecisionWrites):
    """CreateDecision, IngestSession and RecordOutcome."""

    async def create(
        self,
        principal: Principal,
        repository: str,
        space: str,
        draft: Draft,
        session: str,
        key: RequestKey | None,
        sources: Sequence[str] = (),
    ) -> Decision:
        v = Violations()
        check_repository(v, "decision.repository", repository)
        if space:
            check_space(v, "space", space)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        space = space or default_space(repository)
        tenant = principal.tenant_id
        replay = await self.lifecycle._peek(tenant, key)
        if replay is not None:
            return await self.get(tenant, uuid.UUID(replay["decisions"][0]))
        await self.verify_quotes(tenant, draft.evidence, sources, "decision.evidence")
        stored, _ = await self._store_drafts(principal, repository, space, [draft], session)
        decision_id = stored[0]
        if key is not None:
            async with self.db.tenant_tx(tenant) as conn:
                if await self.lifecycle._replay(conn, tenant, key) is None:
                    await memory_store.save_request_result(
                        conn, key.request_id, {"decisions": [str(decision_id)]}
                    )
        return await self.get(tenant, decision_id)

    async def verify_quotes(
        self, tenant: str, evidence: Sequence[Evidence], sources: Sequence[str], prefix: str
    ) -> None:
        """Every quote of a stated decision or outcome appears verbatim in its source:
        the memory it names (read in the caller's tenant), else one of `sources`.
        INVALID_ARGUMENT naming each quote that does not, before anything is stored."""
        from engram_server.services.lifecycle import parse_memory_name

        v = Violations()
        cited: dict[int, uuid.UUID] = {}
        for i, e in enumerate(evidence):
            if e.memory:
                try:
                    cited[i] = parse_memory_name(e.memory, f"{prefix}[{i}].memory")
                except InvalidArgument as error:
                    v.items.extend(error.violations)
        v.raise_if_any()
        contents: dict[uuid.UUID, str] = {}
        if cited:
            async with self.db.tenant_tx(tenant) as conn:
                for memory_id in set(cited.values()):
                    memory = await memory_store.get_memory(conn, memory_id)
                    if memory is not None:
                        contents[memory_id] = memory.content
        for i, e in enumerate(evidence):
            if i in cited:
                content = contents.get(cited[i])
                if content is None:
                    v.add(f"{prefix}[{i}].memory", "no such memory")
                elif not verbatim(e.quote, content):
                    v.add(f"{prefix}[{i}].quote", f"does not appear verbatim in {e.memory}")
            elif not sources:
                v.add(
                    f"{prefix}[{i}].quote",
                    "has no source: name the memory it is quoted from (memory) or send the"
                    " text it is quoted from in sources",
                )
            elif not any(verbatim(e.quote, text) for text in sources):
                v.add(f"{prefix}[{i}].quote", "does not appear verbatim in any of sources")
        v.raise_if_any()

    async def ingest_session(
        self,
        principal: Principal,
        working_memory: Any,
        space: str,
        session: str,
        repository: str,
        decisions_space: str,
        key: RequestKey | None,
    ) -> tuple[list[Decision], int, int, list[PrivacyFinding]]:
        """Decisions stated in a session's buffer: (decisions, created, messages
        read, privacy findings)."""
        from engram_server.decisions.session import Turn, mine_turns

        v = Violations()
        check_repository(v, "repository", repository)
        if decisions_space:
            check_space(v, "decisions_space", decisions_space)
        if working_memory is not None:
            working_memory.check_target(v, space, session)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        if working_memory is None:
            from engram_server.errors import Unavailable

            raise Unavailable("working memory (Redis) is not configured on this server")
        tenant = principal.tenant_id
        target = decisions_space or default_space(repository)
        replay = await self.lifecycle._peek(tenant, key)
        if replay is not None:
            async with self.db.tenant_tx(tenant) as conn:
                ids = [uuid.UUID(i) for i in replay["decisions"]]
                found = await store.get_decisions(conn, ids)
            return [found[i] for i in ids if i in found], int(replay["created"]), 0, []
        # Before the buffer: a purge of its space after this point makes the
        # writes refuse what was mined from the purged messages (`store.erasure`).
        async with self.db.tenant_tx(tenant) as conn:
            guard = ErasureGuard(space, await erasure_store.current(conn, tenant, space))
        window = await working_memory.window(tenant, space, session)
        findings: list[PrivacyFinding] = []
        turns = []
        for n, m in enumerate(window.messages):
            screened = await screen_text(
                self.lifecycle, tenant, target, m.content, f"messages[{n}]", sentences=True
            )
            findings.extend(screened.findings)
            if screened.text:
                turns.append(Turn(m.role, screened.text, m.time))
        drafts = mine_turns(turns, session)
        ids, created = (
            await self._store_drafts(
                principal, repository, target, drafts, session, space, guard=guard
            )
            if drafts
            else ([], 0)
        )
        if key is not None:
            async with self.db.tenant_tx(tenant) as conn:
                if await self.lifecycle._replay(conn, tenant, key) is None:
                    await memory_store.save_request_result(
                        conn,
                        key.request_id,
                        {"decisions": [str(i) for i in ids], "created": created},
                    )
        async with self.db.tenant_tx(tenant) as conn:
            found = await store.get_decisions(conn, ids)
        unique = list(dict.fromkeys(ids))
        return [found[i] for i in unique if i in found], created, len(window.messages), findings

    async def record_outcome(
        self,
        principal: Principal,
        decision_id: uuid.UUID,
        record: OutcomeRecord,
        key: RequestKey | None,
        sources: Sequence[str] = (),
    ) -> Decision:
        v = Violations()
        if record.outcome == Outcome.UNSPECIFIED:
            v.add("outcome", "required")
        if not record.summary.strip():
            v.add("summary", "required")
        elif len(record.summary) > 2000:
            v.add("summary", "at most 2000 characters")
        if len(record.evidence) > 12:
            v.add("evidence", "at most 12 quotes")
        for i, e in enumerate(record.evidence):
            if not e.quote.strip() or len(e.quote) > 1000:
                v.add(f"evidence[{i}].quote", "required, at most 1000 characters")
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        await self.verify_quotes(tenant, record.evidence, sources, "evidence")
        async with self.db.tenant_tx(tenant) as conn:
            if await self.lifecycle._replay(conn, tenant, key) is None:
                held = await store.lock_decision(conn, decision_id)
                if held is None:
                    raise NotFound(DECISION, f"decisions/{decision_id}")
                record = replace(record, recorder=principal.actor)
                await store.update_decision(
                    conn,
                    decision_id,
                    {"outcome": record.outcome.value, "outcomes": (*held.outcomes, record)},
                )
                if key is not None:
                    await memory_store.save_request_result(
                        conn, key.request_id, {"decisions": [str(decision_id)]}
                    )
        return await self.get(tenant, decision_id)


def stated_draft(
    title: str,
    statement: str,
    rationale: str,
    question: str,
    when: datetime,
    author: str,
    alternatives: Sequence[Alternative],
    evidence: Sequence[Evidence],
    anchors: Sequence[Anchor],
    commits: Sequence[str],
    tags: Sequence[str],
    expectations: Sequence[str],
    origin: Origin = Origin.STATEMENT,
) -> Draft:
    return Draft(
        identity=decision_identity(title, when),
        title=title,
        statement=statement or title,
        rationale=rationale,
        question=question,
        decision_time=when,
        author=author,
        alternatives=tuple(alternatives),
        evidence=tuple(evidence),
        anchors=tuple(anchors),
        commits=tuple(commits),
        tags=tuple(tags),
        origin=origin,
        expectations=tuple(expectations),
    )
