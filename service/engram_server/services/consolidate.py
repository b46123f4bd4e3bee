"""Consolidate: a session buffer becomes a summary memory and a typed decomposition.

The summary (kind SUMMARY; LLM-written when asked and configured, extractive
otherwise), the entities (ENTITY) and the typed records (facts, decisions,
events, actions, open questions) are one batch proposal through the lifecycle
write path. Then, in one transaction, each record gets an ABOUT edge to each
entity it names and a DERIVED_FROM edge to the summary, every edge audited.
Last, the buffer is marked consolidated with the summary's name.

Idempotent: a marked buffer answers `already_consolidated` with what was stored.
If a run stops between the steps, the next run proposes the same contents (the
write path answers DUPLICATE), adds only the missing edges and marks the buffer,
so nothing is stored twice.

Erasure: the space's erasure epoch is read before the buffer, and both writes
check it (`store.erasure`). A purge that ran while the buffer was being
consolidated makes the call answer ABORTED with nothing of it kept, instead of
storing a summary of erased messages after the purge.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from engram_server.errors import (
    FailedPrecondition,
    NotFound,
    PreconditionViolation,
    Unavailable,
    Violations,
)
from engram_server.learning import decompose as dec
from engram_server.lifecycle.model import (
    Kind,
    Memory,
    Outcome,
    Proposal,
    ProposalResult,
)
from engram_server.lifecycle.validation import check_request_id
from engram_server.llm import LLMError
from engram_server.llm.registry import LLMRegistry
from engram_server.platform.principal import Principal
from engram_server.privacy import PrivacyFinding
from engram_server.services.learn import TurnInput, model_for, screen_turns
from engram_server.services.lifecycle import (
    LifecycleService,
    RequestKey,
    guarded,
    hold_erasure_epoch,
    parse_memory_name,
)
from engram_server.services.working_memory import WorkingMemory
from engram_server.store import erasure as erasure_store
from engram_server.store import learning as learning_store
from engram_server.store import memories as store
from engram_server.store.erasure import ErasureGuard

CONSOLIDATED_SESSION = "consolidated_session"
_STORED = (Outcome.ACCEPTED, Outcome.PENDING_CONFIRMATION, Outcome.DUPLICATE, Outcome.REINFORCED)


@dataclass(frozen=True)
class ConsolidateOutcome:
    summary: Memory
    records: list[Memory]
    already_consolidated: bool
    findings: list[PrivacyFinding]


class ConsolidateService:
    def __init__(
        self,
        lifecycle: LifecycleService,
        working_memory: WorkingMemory | None,
        llm: LLMRegistry | None,
    ) -> None:
        self.lifecycle = lifecycle
        self.working_memory = working_memory
        self.llm = llm

    async def consolidate(
        self,
        principal: Principal,
        space: str,
        session: str,
        use_llm: bool,
        key: RequestKey | None,
    ) -> ConsolidateOutcome:
        wm = self.working_memory
        if wm is None:
            raise Unavailable("working memory (Redis) is not configured on this server")
        v = Violations()
        wm.check_target(v, space, session)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        # Read before the buffer: a purge after this point makes the write refuse
        # what was derived from the purged messages (`store.erasure`).
        async with self.lifecycle.db.tenant_tx(tenant) as conn:
            guard = ErasureGuard(space, await erasure_store.current(conn, tenant, space))
        window = await wm.window(tenant, space, session)
        if window.consolidated:
            done = await self._stored(tenant, window.consolidated_as)
            if done is not None:
                return ConsolidateOutcome(done[0], done[1], True, [])
        if not window.messages:
            raise NotFound("session", f"spaces/{space}/sessions/{session}")
        model = await model_for(self.llm, tenant) if use_llm else None
        turns, findings = await screen_turns(
            self.lifecycle,
            tenant,
            space,
            [TurnInput(m.role, m.content, m.time) for m in window.messages],
            field="messages",
        )
        if not turns:
            raise NotFound("session", f"spaces/{space}/sessions/{session}")
        summary_text = None
        if model is not None:
            try:
                reply = await model.complete_json(
                    dec.summary_messages(turns),
                    schema=dec.SummaryReply,
                    tenant_id=tenant,
                    purpose="consolidate",
                )
            except LLMError as error:
                raise Unavailable(f"the LLM failed during Consolidate: {error}") from error
            summary_text = " ".join(reply.summary.split())
        async with self.lifecycle.db.tenant_tx(tenant) as conn:
            known = await learning_store.entity_names(conn, space)
        decomposition = dec.decompose(turns, summary_text, known)
        proposals = _proposals(decomposition, space, session, len(turns), model is not None)
        results = await self.lifecycle.propose(
            principal,
            proposals,
            key,
            field_prefix="records",
            batch=True,
            within=guarded(tenant, guard),
        )
        summary = results[0].memory
        if summary is None or results[0].outcome not in _STORED:
            raise FailedPrecondition(
                f"the session summary was not stored ({results[0].outcome.value}); check the"
                " space policy's validators",
                [PreconditionViolation("POLICY", "records[0]", "summary refused")],
            )
        stored = [_stored_memory(r) for r in results]
        entity_ids: dict[str, uuid.UUID] = {}
        for name, memory in zip(decomposition.entities, stored[1:], strict=False):
            if memory is not None:
                entity_ids[name] = memory.id
        offset = 1 + len(decomposition.entities)
        records: list[Memory] = []
        edges: list[store.NewEdge] = []
        for record, memory in zip(decomposition.records, stored[offset:], strict=True):
            if memory is None:
                continue
            records.append(memory)
            edges.append(
                store.NewEdge(memory.id, summary.id, "DERIVED_FROM", "consolidated", "consolidate")
            )
            for name in record.entities:
                if name in entity_ids:
                    edges.append(
                        store.NewEdge(
                            memory.id, entity_ids[name], "ABOUT", f"mentions {name}", "consolidate"
                        )
                    )
        entities = [m for m in stored[1:offset] if m is not None]
        async with self.lifecycle.db.tenant_tx(tenant) as conn:
            # A purge since the records were written took them: no edges to them.
            await hold_erasure_epoch(conn, tenant, guard)
            await learning_store.add_edges(
                conn, tenant, edges, principal.actor, key.request_id if key else ""
            )
        await wm.mark_consolidated(tenant, space, session, summary.name)
        return ConsolidateOutcome(summary, [*entities, *records], False, findings)

    async def _stored(self, tenant: str, summary_name: str) -> tuple[Memory, list[Memory]] | None:
        """The summary and records of an earlier consolidation (None if purged)."""
        try:
            summary_id = parse_memory_name(summary_name)
        except Exception:
            return None
        async with self.lifecycle.db.tenant_tx(tenant) as conn:
            summary = await store.get_memory(conn, summary_id)
            if summary is None:
                return None
            records = await learning_store.edge_sources(conn, summary_id, "DERIVED_FROM")
            about = await learning_store.edges_from(conn, [r.id for r in records], "ABOUT")
            entities: list[Memory] = []
            for entity_id in dict.fromkeys(t for _, t in about):
                entity = await store.get_memory(conn, entity_id)
                if entity is not None:
                    entities.append(entity)
        return summary, [*entities, *records]


def _stored_memory(result: ProposalResult) -> Memory | None:
    """The memory a result stands for when it is (or already was) stored."""
    return result.memory if result.outcome in _STORED else None


def _proposals(
    d: dec.Decomposition, space: str, session: str, messages: int, llm_summary: bool
) -> list[Proposal]:
    source = f"consolidate:{session}"
    attributes = {CONSOLIDATED_SESSION: session}
    out = [
        Proposal(
            space=space,
            content=d.summary,
            kind=Kind.SUMMARY,
            session=session,
            source=source,
            confidence=0.6,
            importance=0.6,
            tags=("summary", "consolidated"),
            attributes={
                **attributes,
                "messages": str(messages),
                "summary_by": "llm" if llm_summary else "extractive",
            },
        )
    ]
    out.extend(
        Proposal(
            space=space,
            content=name,
            kind=Kind.ENTITY,
            source=source,
            confidence=0.6,
            importance=0.4,
            tags=("entity",),
        )
        for name in d.entities
    )
    out.extend(
        Proposal(
            space=space,
            content=r.content,
            kind=r.kind,
            session=session,
            source=source,
            confidence=0.7,
            importance=r.importance,
            tags=("consolidated", *r.tags),
            slot_key=r.slot_key,
            attributes=dict(attributes),
        )
        for r in d.records
    )
    return out


__all__ = ["ConsolidateOutcome", "ConsolidateService"]
