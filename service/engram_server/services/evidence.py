"""Belief revision: evidence grades, the corroboration assessor, conflicts and edges.

Nothing here changes what a memory says. Grades and edges change how much it is
believed and what it is connected to; where a conflict's resolution changes a
memory's status, it does so with the lifecycle state machine's rules
(`check_transition`), audit rows and WatchTransitions notices, in the same
transaction as the conflict's own change.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from engram_server.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PreconditionViolation,
    Violations,
)
from engram_server.evidence.judge import Judgement, judge
from engram_server.lifecycle.model import (
    EVIDENCE_ORDER,
    LIVE_STATUSES,
    AuditAction,
    EvidenceLevel,
    Memory,
    Origin,
    Proposal,
    ProposalResult,
    Status,
    memory_name,
)
from engram_server.lifecycle.validation import check_reason, check_request_id
from engram_server.platform.principal import SCOPE_OPERATOR, SCOPE_WRITE, Principal
from engram_server.services.lifecycle import (
    InTransaction,
    LifecycleService,
    Move,
    RequestKey,
    closed_at,
    move_in_tx,
)
from engram_server.store import evidence as evidence_store
from engram_server.store import memories as store
from engram_server.store.evidence import Conflict
from engram_server.store.postgres import Conn

MEMORY = "memory"
EDGE = "edge"
CONFLICT = "conflict"
DEFAULT_MIN_CORROBORATION = 2
ASSESSOR = "assessor"
# Candidates the assessor reads per space searched.
ASSESS_CANDIDATES = 20
# How long the assessor waits for the search index to catch up with earlier writes.
ASSESS_INDEX_WAIT_SECONDS = 5.0
# Kinds an edge may be created with (SUPERSEDES is written by supersession only).
CREATABLE_EDGE_KINDS = frozenset({"SUPPORTS", "CONTRADICTS", "ABOUT", "DERIVED_FROM", "RELATED"})
RESOLUTIONS = frozenset({"KEEP_WINNER", "SUPERSEDE", "MERGE", "KEEP_ALL", "DISMISS"})


def _audit(
    action: AuditAction,
    memory: Memory,
    actor: str,
    reason: str,
    key: RequestKey | None,
    details: dict[str, str],
) -> store.AuditDraft:
    return store.AuditDraft(
        action,
        memory.id,
        memory.space,
        memory.status,
        memory.status,
        actor,
        reason,
        key.request_id if key else "",
        details,
    )


@dataclass(frozen=True)
class EvidenceLink:
    memory: Memory
    judgement: Judgement


@dataclass
class Assessment:
    memory: Memory
    suggested: EvidenceLevel
    supporting: list[EvidenceLink]
    contradicting: list[EvidenceLink]
    reasoning: str
    distinct_sources: int
    # The reasoning without the judgements' quotes of the memories: what the
    # append-only audit log records.
    audit_reasoning: str = ""
    applied: bool = False
    created_edges: list[evidence_store.Edge] = field(default_factory=list)
    conflict: evidence_store.Conflict | None = None


@dataclass(frozen=True)
class Resolution:
    conflict: evidence_store.Conflict
    changed: list[Memory]
    merged: ProposalResult | None


class EvidenceService:
    def __init__(self, lifecycle: LifecycleService) -> None:
        self.lifecycle = lifecycle
        self.db = lifecycle.db

    # --- helpers -------------------------------------------------------------------

    async def _replay(
        self, conn: Conn, tenant: str, key: RequestKey | None
    ) -> dict[str, Any] | None:
        return await self.lifecycle._replay(conn, tenant, key)

    @staticmethod
    def _check_key(v: Violations, key: RequestKey | None) -> None:
        if key is not None:
            check_request_id(v, "request_id", key.request_id)

    @staticmethod
    async def _memory(conn: Conn, memory_id: uuid.UUID, *, lock: bool = False) -> Memory:
        memory = await store.get_memory(conn, memory_id, for_update=lock)
        if memory is None:
            raise NotFound(MEMORY, memory_name(memory_id))
        return memory

    # --- grades ----------------------------------------------------------------------

    async def set_level(
        self,
        principal: Principal,
        memory_id: uuid.UUID,
        level: EvidenceLevel,
        reason: str,
        etag: str,
        key: RequestKey | None,
    ) -> Memory:
        v = Violations()
        if level == EvidenceLevel.UNSPECIFIED:
            v.add("evidence_level", "required: UNSPECIFIED cannot be set")
        check_reason(v, "reason", reason, required=False)
        self._check_key(v, key)
        v.raise_if_any()
        if level == EvidenceLevel.OFFICIAL and not principal.has(SCOPE_OPERATOR):
            raise PermissionDenied(
                "setting the OFFICIAL grade needs the operator scope", SCOPE_OPERATOR
            )
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                return await self._memory(conn, uuid.UUID(replay["memory_id"]))
            memory = await self._memory(conn, memory_id, lock=True)
            if etag and etag != memory.etag:
                raise Aborted(f"{memory.name} changed since it was read (etag mismatch)")
            if memory.evidence_level == EvidenceLevel.OFFICIAL and not principal.has(
                SCOPE_OPERATOR
            ):
                raise PermissionDenied(
                    f"{memory.name} is OFFICIAL; changing its grade needs the operator scope",
                    SCOPE_OPERATOR,
                )
            if memory.status not in (Status.ACTIVE, Status.PENDING_CONFIRMATION):
                raise FailedPrecondition(
                    f"{memory.name} is {memory.status.value}; only ACTIVE or"
                    " PENDING_CONFIRMATION memories are graded",
                    [PreconditionViolation("STATUS", memory.name, "memory is not live")],
                )
            if EVIDENCE_ORDER[level] < EVIDENCE_ORDER[memory.evidence_level] and not reason.strip():
                raise InvalidArgument.field("reason", "required when lowering a grade")
            updated = await self.grade_in_tx(
                conn, tenant, memory, level, principal.actor, reason or "grade set", key
            )
            if key is not None:
                await store.save_request_result(conn, key.request_id, {"memory_id": str(memory.id)})
            return updated

    async def grade_in_tx(
        self,
        conn: Conn,
        tenant: str,
        memory: Memory,
        level: EvidenceLevel,
        actor: str,
        reason: str,
        key: RequestKey | None,
    ) -> Memory:
        """Changes a locked memory's grade with its audit row (old, new, who, why);
        the audit notice reaches WatchTransitions. A no-op for the same grade."""
        if memory.evidence_level == level:
            return memory
        updated = await store.update_memory(conn, memory.id, {"evidence_level": level.value})
        await store.enqueue_outbox(conn, tenant, [memory.id], "upsert")
        await store.append_audit(
            conn,
            tenant,
            [
                _audit(
                    AuditAction.EVIDENCE,
                    memory,
                    actor,
                    reason,
                    key,
                    {"from": memory.evidence_level.value, "to": level.value},
                )
            ],
            entries=False,
        )
        return updated

    # --- edges ---------------------------------------------------------------------

    async def create_edge(
        self,
        principal: Principal,
        source_id: uuid.UUID,
        target_id: uuid.UUID,
        kind: str,
        weight: float,
        reason: str,
        attributes: dict[str, str],
        key: RequestKey | None,
    ) -> evidence_store.Edge:
        v = Violations()
        if kind == "SUPERSEDES":
            v.add("edge.kind", "SUPERSEDES edges are written by supersession only")
        elif kind not in CREATABLE_EDGE_KINDS:
            v.add("edge.kind", "required: one of " + ", ".join(sorted(CREATABLE_EDGE_KINDS)))
        if source_id == target_id:
            v.add("edge.target_memory", "must differ from source_memory (no self-edges)")
        if not 0.0 <= weight <= 1.0:  # also refuses NaN
            v.add("edge.weight", "must be in [0, 1]")
        if len(reason) > 1024:
            v.add("edge.reason", "at most 1024 characters")
        if len(attributes) > 32:
            v.add("edge.attributes", "at most 32 attributes")
        for name, value in attributes.items():
            # As a memory's attributes: stored whole in the edge row.
            if not 1 <= len(name) <= 64 or len(value) > 1024:
                v.add(f"edge.attributes[{name[:64]}]", "keys 1-64 characters, values at most 1024")
        self._check_key(v, key)
        v.raise_if_any()
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                edge = await evidence_store.get_edge(conn, uuid.UUID(replay["edge_id"]))
                if edge is None:
                    raise NotFound(EDGE, f"edges/{replay['edge_id']}")
                return edge
            # Both ends must be memories of this tenant: under row-level security a
            # memory of another tenant reads as missing.
            source = await store.get_memory(conn, source_id)
            if source is None:
                raise NotFound(MEMORY, memory_name(source_id))
            target = await store.get_memory(conn, target_id)
            if target is None:
                raise NotFound(MEMORY, memory_name(target_id))
            edge = await evidence_store.insert_edge(
                conn,
                tenant,
                source_id,
                target_id,
                kind,
                weight=weight or 1.0,
                reason=reason,
                creator=principal.actor,
                attributes=attributes,
            )
            if edge is None:
                existing = await evidence_store.find_edge(conn, source_id, target_id, kind)
                raise AlreadyExists(EDGE, existing.name if existing else f"{kind} edge")
            await store.append_audit(
                conn,
                tenant,
                [
                    _audit(
                        AuditAction.EDGE,
                        source,
                        principal.actor,
                        f"edge created: {source.name} {kind} {target.name}",
                        key,
                        {"edge": edge.name, "kind": kind, "target": target.name, "op": "create"},
                    )
                ],
                entries=False,
            )
            if kind == "CONTRADICTS":
                await self._open_conflict(
                    conn,
                    tenant,
                    principal.actor,
                    [source, target],
                    "edge",
                    reason or f"{source.name} contradicts {target.name}",
                    key,
                )
            if key is not None:
                await store.save_request_result(conn, key.request_id, {"edge_id": str(edge.id)})
            return edge

    async def get_edge(self, tenant: str, edge_id: uuid.UUID) -> evidence_store.Edge:
        async with self.db.tenant_tx(tenant) as conn:
            edge = await evidence_store.get_edge(conn, edge_id)
        if edge is None:
            raise NotFound(EDGE, f"edges/{edge_id}")
        return edge

    async def delete_edge(
        self, principal: Principal, edge_id: uuid.UUID, key: RequestKey | None
    ) -> None:
        v = Violations()
        self._check_key(v, key)
        v.raise_if_any()
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            if await self._replay(conn, tenant, key) is not None:
                return
            edge = await evidence_store.get_edge(conn, edge_id, for_update=True)
            if edge is None:
                raise NotFound(EDGE, f"edges/{edge_id}")
            if edge.kind == "SUPERSEDES":
                raise FailedPrecondition(
                    f"{edge.name} is a SUPERSEDES edge: it records a transition and cannot"
                    " be deleted",
                    [PreconditionViolation("EDGE_KIND", edge.name, "SUPERSEDES is permanent")],
                )
            source = await self._memory(conn, edge.source_id)
            await evidence_store.delete_edge(conn, edge.id)
            await store.append_audit(
                conn,
                tenant,
                [
                    _audit(
                        AuditAction.EDGE,
                        source,
                        principal.actor,
                        f"edge deleted: {source.name} {edge.kind} {memory_name(edge.target_id)}",
                        key,
                        {
                            "edge": edge.name,
                            "kind": edge.kind,
                            "target": memory_name(edge.target_id),
                            "op": "delete",
                        },
                    )
                ],
                entries=False,
            )
            if key is not None:
                await store.save_request_result(conn, key.request_id, {"edge_id": str(edge.id)})

    # --- conflicts -----------------------------------------------------------------

    async def _open_conflict(
        self,
        conn: Conn,
        tenant: str,
        actor: str,
        memories: Sequence[Memory],
        detector: str,
        reason: str,
        key: RequestKey | None,
    ) -> evidence_store.Conflict | None:
        """Opens a conflict between these memories unless they ever had one: a
        resolved conflict never reopens by itself for the same memories."""
        opened = await evidence_store.insert_conflict(
            conn, tenant, memories[0].space, [m.id for m in memories], detector, reason
        )
        if opened is None:
            return None
        await store.append_audit(
            conn,
            tenant,
            [
                _audit(
                    AuditAction.CONFLICT,
                    memories[0],
                    actor,
                    # The reason stays on the conflict, which a purge deletes: it can
                    # quote the memories (a slot key, "100 against 500"), and the
                    # audit log is append-only.
                    f"conflict opened ({detector})",
                    key,
                    {
                        "conflict": opened.name,
                        "memories": ",".join(m.name for m in memories),
                        "op": "open",
                    },
                )
            ],
            entries=False,
        )
        return opened

    async def get_conflict(self, tenant: str, conflict_id: uuid.UUID) -> evidence_store.Conflict:
        async with self.db.tenant_tx(tenant) as conn:
            conflict = await evidence_store.get_conflict(conn, conflict_id)
        if conflict is None:
            raise NotFound(CONFLICT, f"conflicts/{conflict_id}")
        return conflict

    async def resolve_conflict(
        self,
        principal: Principal,
        conflict_id: uuid.UUID,
        resolution: str,
        winner: uuid.UUID | None,
        merged: Proposal | None,
        note: str,
        etag: str,
        key: RequestKey | None,
    ) -> Resolution:
        v = Violations()
        if resolution not in RESOLUTIONS:
            v.add("resolution", "required: KEEP_WINNER, SUPERSEDE, MERGE, KEEP_ALL or DISMISS")
        if resolution in ("KEEP_WINNER", "SUPERSEDE") and winner is None:
            v.add("winner", f"required for {resolution}")
        if resolution == "MERGE" and merged is None:
            v.add("merged", "required for MERGE")
        if resolution not in ("KEEP_WINNER", "SUPERSEDE") and winner is not None:
            v.add("winner", f"only KEEP_WINNER and SUPERSEDE name a winner, not {resolution}")
        check_reason(v, "note", note, required=False)
        self._check_key(v, key)
        v.raise_if_any()
        tenant = principal.tenant_id
        if resolution == "KEEP_WINNER" and not note.strip():
            note = "conflict resolved: the winner stands"
        # Check the conflict before a merged proposal is written.
        conflict = await self.get_conflict(tenant, conflict_id)
        if winner is not None and winner not in conflict.memory_ids:
            raise InvalidArgument.field("winner", "must be one of the conflict's memories")
        if resolution == "MERGE" and merged is not None and conflict.state == "OPEN":
            return await self._merge(principal, conflict, merged, note, etag, key)
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                return await self._resolution_in(conn, replay)
            conflict_row, members = await self._lock_open(conn, conflict_id, etag)
            return await self._resolve_in(
                conn, principal, conflict_row, members, resolution, winner, note, key
            )

    async def _merge(
        self,
        principal: Principal,
        conflict: Conflict,
        merged: Proposal,
        note: str,
        etag: str,
        key: RequestKey | None,
    ) -> Resolution:
        """MERGE: the merged memory is written and the conflict resolved in one
        transaction, so a refused merge (a stale etag, a conflict resolved
        meanwhile, a merged memory the policy holds for review) stores nothing."""
        tenant = principal.tenant_id
        if key is not None:
            replay = await self.lifecycle._peek(tenant, key)
            if replay is not None:
                return await self._resolution_replay(tenant, replay)
        if etag and etag != conflict.etag:
            raise Aborted(f"{conflict.name} changed since it was read (etag mismatch)")
        locked: list[tuple[Conflict, list[Memory]]] = []
        done: list[Resolution] = []

        async def lock(conn: Conn) -> None:
            # The resolution's request id is claimed with the merged memory's.
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                raise _Replayed(replay)
            locked[:] = [await self._lock_open(conn, conflict.id, etag)]

        async def resolve(conn: Conn, results: list[ProposalResult]) -> None:
            (result,) = results
            if result.memory is None or result.memory.status != Status.ACTIVE:
                raise _merge_refused(result)
            ((conflict_row, members),) = locked
            done[:] = [
                await self._resolve_in(
                    conn,
                    principal,
                    conflict_row,
                    members,
                    "MERGE",
                    result.memory.id,
                    note,
                    key,
                    result,
                )
            ]

        try:
            (result,) = await self.lifecycle.propose(
                principal,
                [merged],
                RequestKey(f"{key.request_id}:merge", "ResolveConflict:merge", key.fingerprint)
                if key
                else None,
                field_prefix="merged",
                within=InTransaction(before=lock, after=resolve),
            )
        except _Replayed as replayed:
            # The same request committed while this one was on its way.
            return await self._resolution_replay(tenant, replayed.record)
        if not done:
            # The privacy boundary dropped the merged proposal: nothing was written.
            raise _merge_refused(result)
        return done[0]

    async def _lock_open(
        self, conn: Conn, conflict_id: uuid.UUID, etag: str
    ) -> tuple[Conflict, list[Memory]]:
        """The conflict, locked, and its memories, locked in that order: it must
        still be OPEN and, when an etag is given, unchanged."""
        conflict_row = await evidence_store.get_conflict(conn, conflict_id, for_update=True)
        if conflict_row is None:
            raise NotFound(CONFLICT, f"conflicts/{conflict_id}")
        if etag and etag != conflict_row.etag:
            raise Aborted(f"{conflict_row.name} changed since it was read (etag mismatch)")
        if conflict_row.state != "OPEN":
            raise FailedPrecondition(
                f"{conflict_row.name} is already resolved ({conflict_row.resolution})",
                [PreconditionViolation("STATE", conflict_row.name, "conflict is not open")],
            )
        members = [await self._memory(conn, i, lock=True) for i in conflict_row.memory_ids]
        return conflict_row, members

    async def _resolve_in(
        self,
        conn: Conn,
        principal: Principal,
        conflict_row: Conflict,
        members: list[Memory],
        resolution: str,
        winner: uuid.UUID | None,
        note: str,
        key: RequestKey | None,
        merged_result: ProposalResult | None = None,
    ) -> Resolution:
        """Resolves a locked, open conflict inside the caller's transaction."""
        tenant = principal.tenant_id
        plan: list[Move] = []
        now = datetime.now(UTC)
        why = note or f"conflict {conflict_row.name} resolved ({resolution})"
        if resolution == "KEEP_WINNER":
            for m in members:
                if m.id != winner and m.status in LIVE_STATUSES:
                    plan.append(
                        (
                            m,
                            Status.RETRACTED,
                            {"retract_time": now, "retraction_reason": why},
                            why,
                        )
                    )
        elif resolution in ("SUPERSEDE", "MERGE"):
            assert winner is not None
            kept = next((m for m in members if m.id == winner), None) or await self._memory(
                conn, winner
            )
            for m in members:
                if m.id != winner and m.status == Status.ACTIVE:
                    # As in slot supersession: the old fact stopped holding when
                    # the one that replaces it started to.
                    ended = {"valid_to": closed_at(m, kept, now)} if m.valid_to is None else {}
                    plan.append((m, Status.SUPERSEDED, {"superseded_by": winner, **ended}, why))
                elif m.id != winner and m.status == Status.PENDING_CONFIRMATION:
                    plan.append(
                        (
                            m,
                            Status.RETRACTED,
                            {"retract_time": now, "retraction_reason": why},
                            why,
                        )
                    )
        elif resolution == "KEEP_ALL":
            await evidence_store.delete_edges_among(conn, conflict_row.memory_ids, "CONTRADICTS")
        # The losers' SUPERSEDES edges come with their transitions.
        changed = await move_in_tx(
            conn, principal, plan, key, edge_creator="conflict", audit_entries=False
        )
        resolved = await evidence_store.resolve_conflict(
            conn, conflict_row.id, resolution, winner, note, principal.actor
        )
        await store.append_audit(
            conn,
            tenant,
            [
                _audit(
                    AuditAction.CONFLICT,
                    members[0],
                    principal.actor,
                    f"conflict resolved ({resolution}): {note}"
                    if note
                    else f"conflict resolved ({resolution})",
                    key,
                    {
                        "conflict": resolved.name,
                        "resolution": resolution,
                        "winner": memory_name(winner) if winner else "",
                        "op": "resolve",
                    },
                )
            ],
            entries=False,
        )
        if key is not None:
            await store.save_request_result(
                conn,
                key.request_id,
                {
                    "conflict_id": str(resolved.id),
                    "changed": [str(m.id) for m in changed],
                    "merged": str(winner) if resolution == "MERGE" and winner else "",
                },
            )
        return Resolution(resolved, changed, merged_result)

    async def _resolution_replay(self, tenant: str, record: dict[str, Any]) -> Resolution:
        async with self.db.tenant_tx(tenant) as conn:
            return await self._resolution_in(conn, record)

    async def _resolution_in(self, conn: Conn, record: dict[str, Any]) -> Resolution:
        conflict = await evidence_store.get_conflict(conn, uuid.UUID(record["conflict_id"]))
        if conflict is None:
            raise NotFound(CONFLICT, f"conflicts/{record['conflict_id']}")
        changed = [await self._memory(conn, uuid.UUID(i)) for i in record["changed"]]
        return Resolution(conflict, changed, None)

    # --- the corroboration assessor --------------------------------------------------

    async def assess(
        self,
        principal: Principal,
        memory_id: uuid.UUID,
        spaces: Sequence[str],
        min_corroboration: int,
        apply: bool,
        key: RequestKey | None,
        *,
        judge_pairs: Any = None,
    ) -> Assessment:
        v = Violations()
        if min_corroboration < 0:
            v.add("min_corroboration", "must not be negative")
        if min_corroboration > 100:
            v.add("min_corroboration", "at most 100")
        if len(spaces) > 64:
            v.add("spaces", "at most 64 spaces")
        from engram_server.lifecycle.validation import check_space

        for i, space in enumerate(spaces):
            check_space(v, f"spaces[{i}]", space)
        self._check_key(v, key)
        v.raise_if_any()
        if apply and not principal.has(SCOPE_WRITE):
            raise PermissionDenied("applying an assessment needs the write scope", SCOPE_WRITE)
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            claim = await self._memory(conn, memory_id)
        if claim.status not in LIVE_STATUSES:
            raise FailedPrecondition(
                f"{claim.name} is {claim.status.value}; only live memories are assessed",
                [PreconditionViolation("STATUS", claim.name, "memory is not live")],
            )
        searched = tuple(spaces) or (claim.space,)
        limits = (await self.lifecycle._limits_for({claim.space}, tenant))[claim.space]
        needed = min_corroboration or limits.policy.min_corroboration or DEFAULT_MIN_CORROBORATION
        if await is_correspondence(self.lifecycle, tenant, claim.space):
            needed += 1  # claims in correspondence need one more source
        candidates = await self._candidates(tenant, claim, searched)
        if judge_pairs is not None:
            verdicts = await judge_pairs(claim, candidates)
        else:
            verdicts = [judge(claim, c) for c in candidates]
        supporting: list[EvidenceLink] = []
        contradicting: list[EvidenceLink] = []
        for candidate, verdict in zip(candidates, verdicts, strict=True):
            if verdict.verdict == "agree":
                supporting.append(EvidenceLink(candidate, verdict))
            elif verdict.verdict == "contradict":
                contradicting.append(EvidenceLink(candidate, verdict))
        independent = _independent_sources(claim, [s.memory for s in supporting])
        # Distinct sources first, then the closest.
        first_of: set[tuple[str, str]] = set()
        ordered: list[EvidenceLink] = []
        rest: list[EvidenceLink] = []
        for link in sorted(supporting, key=lambda s: -s.judgement.similarity):
            pair = _source_pair(link.memory)
            if pair in independent and pair not in first_of:
                first_of.add(pair)
                ordered.append(link)
            else:
                rest.append(link)
        supporting = ordered + rest
        suggested, reasoning = decide_grade(
            claim,
            [c.memory for c in contradicting],
            [c.judgement.explanation for c in contradicting],
            len(independent),
            needed,
        )
        _, unquoted = decide_grade(
            claim, [c.memory for c in contradicting], (), len(independent), needed
        )
        result = Assessment(
            claim, suggested, supporting, contradicting, reasoning, len(independent), unquoted
        )
        if apply:
            await self._apply_assessment(principal, result, key)
        return result

    async def _candidates(self, tenant: str, claim: Memory, spaces: Sequence[str]) -> list[Memory]:
        """Live memories of `spaces` that may bear on the claim: recall's hits for
        its content, and every live memory with its slot key."""
        found: dict[uuid.UUID, Memory] = {}
        recall = self._recall()
        if recall is not None:
            from engram_server.services.recall import RecallQuery

            result = await recall.recall(
                tenant,
                RecallQuery(
                    query=claim.content[:4000],
                    spaces=tuple(spaces),
                    k=ASSESS_CANDIDATES,
                    track_access=False,
                    # Judge against everything committed before the assessment.
                    read_your_writes=True,
                ),
                ASSESS_INDEX_WAIT_SECONDS,
            )
            for hit in result.hits:
                found[hit.memory.id] = hit.memory
        async with self.db.tenant_tx(tenant) as conn:
            if claim.slot_key:
                cur = await conn.execute(
                    f"SELECT {store.MEMORY_COLUMNS} FROM memories WHERE space = ANY(%s)"
                    " AND lower(slot_key) = lower(%s) AND status IN ('ACTIVE',"
                    " 'PENDING_CONFIRMATION') LIMIT 100",
                    (list(spaces), claim.slot_key),
                )
                for row in await cur.fetchall():
                    memory = store.row_to_memory(row)
                    found[memory.id] = memory
        found.pop(claim.id, None)
        return [m for m in found.values() if m.status in LIVE_STATUSES]

    def _recall(self) -> Any:
        return getattr(self, "recall_service", None)

    async def _apply_assessment(
        self, principal: Principal, result: Assessment, key: RequestKey | None
    ) -> None:
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                result.memory = await self._memory(conn, result.memory.id)
                result.applied = bool(replay.get("applied"))
                return
            claim = await self._memory(conn, result.memory.id, lock=True)
            result.applied = False
            if (
                claim.evidence_level != EvidenceLevel.OFFICIAL
                and claim.status in LIVE_STATUSES
                and result.suggested != claim.evidence_level
            ):
                claim = await self.grade_in_tx(
                    conn,
                    tenant,
                    claim,
                    result.suggested,
                    principal.actor,
                    f"{ASSESSOR}: {result.audit_reasoning}",
                    key,
                )
                result.applied = True
            for link in result.supporting:
                edge = await evidence_store.insert_edge(
                    conn,
                    tenant,
                    link.memory.id,
                    claim.id,
                    "SUPPORTS",
                    weight=max(0.0, min(1.0, link.judgement.similarity)) or 1.0,
                    reason=link.judgement.explanation,
                    creator=ASSESSOR,
                    attributes={},
                )
                if edge is not None:
                    result.created_edges.append(edge)
            for link in result.contradicting:
                official = link.memory.evidence_level == EvidenceLevel.OFFICIAL
                opened = await self._open_conflict(
                    conn,
                    tenant,
                    principal.actor,
                    [claim, link.memory],
                    "official_pin" if official else ASSESSOR,
                    link.judgement.explanation,
                    key,
                )
                if opened is not None and result.conflict is None:
                    result.conflict = opened
            if result.created_edges:
                await store.append_audit(
                    conn,
                    tenant,
                    [
                        _audit(
                            AuditAction.EDGE,
                            claim,
                            principal.actor,
                            f"{ASSESSOR}: {len(result.created_edges)} SUPPORTS edge(s) added",
                            key,
                            {
                                "edges": ",".join(e.name for e in result.created_edges),
                                "op": "create",
                            },
                        )
                    ],
                    entries=False,
                )
            if key is not None:
                await store.save_request_result(
                    conn, key.request_id, {"memory_id": str(claim.id), "applied": result.applied}
                )
            result.memory = claim


async def is_correspondence(lifecycle: LifecycleService, tenant: str, space: str) -> bool:
    """Whether the space is pinned as correspondence, or (unpinned) was last profiled
    as such: the assessor then needs one more source, and Learn stores attributed
    events instead of facts."""
    limits = (await lifecycle._limits_for({space}, tenant))[space]
    if limits.policy.pinned_space_class:
        return limits.policy.pinned_space_class == "correspondence"
    async with lifecycle.db.tenant_tx(tenant) as conn:
        runs = await evidence_store.list_profiles(
            conn, space=space, drift_only=False, limit=1, after=None
        )
    return bool(runs) and runs[0][2].get("observed_class") == "correspondence"


def decide_grade(
    claim: Memory,
    contradicting: Sequence[Memory],
    why: Sequence[str],
    independent: int,
    needed: int,
) -> tuple[EvidenceLevel, str]:
    """The assessor's rules: a claim contradicting an OFFICIAL memory is UNVERIFIED
    (the official one is never revised); CORROBORATED needs `needed` independent
    agreeing sources and no contradiction; a claim with a source is SINGLE_SOURCE;
    anything else UNVERIFIED. Never OFFICIAL.

    `why` holds the judgements' explanations, which quote the memories ("500
    against 100"); without them (empty) the reasoning says the same without
    quotes, as the append-only audit log records it."""
    official = [
        i for i, m in enumerate(contradicting) if m.evidence_level == EvidenceLevel.OFFICIAL
    ]
    if official:
        first = official[0]
        detail = f" ({why[first]})" if why else ""
        return EvidenceLevel.UNVERIFIED, (
            f"contradicts the OFFICIAL {contradicting[first].name}{detail}; the official"
            " memory is not revised"
        )
    if contradicting:
        level = EvidenceLevel.SINGLE_SOURCE if claim.source else EvidenceLevel.UNVERIFIED
        noun = "memory" if len(contradicting) == 1 else "memories"
        detail = f" ({why[0]})" if why else ""
        return level, f"{len(contradicting)} contradicting {noun}{detail}: not corroborated"
    if independent >= needed:
        return EvidenceLevel.CORROBORATED, (
            f"{independent} agreeing memories from distinct sources (needs {needed}),"
            " none contradicting"
        )
    if claim.source:
        return EvidenceLevel.SINGLE_SOURCE, (
            f"stated by {claim.source!r}; {independent} independent agreeing source(s),"
            f" {needed} needed"
        )
    return EvidenceLevel.UNVERIFIED, "no source and no independent corroboration"


def independent_sources(claim: Memory, supporters: Sequence[Memory]) -> int:
    return len(_independent_sources(claim, supporters))


def _source_pair(m: Memory) -> tuple[str, str]:
    return (m.source.strip().lower(), m.origin.value)


def _independent_sources(claim: Memory, supporters: Sequence[Memory]) -> set[tuple[str, str]]:
    """Distinct (source, origin) pairs among the supporters that count as outside
    the claim's writer: a supporter needs a source, another pair than the claim's
    own, and an agent's own inferences never corroborate what it proposed."""
    own = _source_pair(claim)
    pairs: set[tuple[str, str]] = set()
    for m in supporters:
        if not m.source.strip():
            continue
        if m.agent == claim.agent and m.origin == Origin.AGENT_INFERRED:
            continue
        pair = _source_pair(m)
        if pair == own or (pair[0] == own[0] and own[0]):
            continue  # the claim's own source restating it
        pairs.add(pair)
    return pairs


# --- assess-on-write ------------------------------------------------------------------

ASSESS_BATCH = 20
ASSESS_LEASE_SECONDS = 120
ASSESS_MAX_ATTEMPTS = 5
ASSESS_POLL_SECONDS = 0.5


class AssessWorker:
    """Drains `assess_queue`: runs the assessor (with `apply`) on memories accepted in
    spaces whose policy sets `assess_on_write`, off the write's critical path.

    Each claimed row is leased (its `available_at` moved ahead) in a short
    transaction, assessed, then deleted; a failed assessment backs off and is
    dropped after a few attempts. A memory no longer live is dropped unassessed.
    """

    def __init__(self, service: EvidenceService) -> None:
        from engram_server.platform.background import BackgroundTask

        self.service = service
        self._task = BackgroundTask("assess-worker", self._run_forever)
        self.assessed = 0

    def start(self) -> None:
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()

    async def _run_forever(self) -> None:
        import asyncio
        import logging

        log = logging.getLogger(__name__)
        while True:
            try:
                busy = await self.run_once()
            except Exception:
                log.exception("assess-on-write round failed; retrying")
                busy = False
            if not busy:
                await asyncio.sleep(ASSESS_POLL_SECONDS)

    async def run_once(self) -> bool:
        db = self.service.db
        async with db.unscoped() as conn:
            cur = await conn.execute(
                "SELECT tenant_id FROM engram_tenants_with_assessments(%s)", (10,)
            )
            tenants = [row["tenant_id"] for row in await cur.fetchall()]
            await conn.commit()
        busy = False
        for tenant in tenants:
            busy |= await self.assess_tenant(tenant)
        return busy

    async def assess_tenant(self, tenant: str) -> bool:
        import logging

        db = self.service.db
        async with db.tenant_tx(tenant) as conn:
            cur = await conn.execute(
                "UPDATE assess_queue q SET available_at = now() + %s * interval '1 second',"
                " attempts = q.attempts + 1 WHERE (q.tenant_id, q.memory_id) IN ("
                "  SELECT tenant_id, memory_id FROM assess_queue WHERE available_at <= now()"
                "  ORDER BY available_at LIMIT %s FOR UPDATE SKIP LOCKED)"
                " RETURNING memory_id, attempts",
                (ASSESS_LEASE_SECONDS, ASSESS_BATCH),
            )
            claimed = [(r["memory_id"], r["attempts"]) for r in await cur.fetchall()]
        if not claimed:
            return False
        principal = Principal(
            tenant_id=tenant,
            key_id=ASSESSOR,
            scopes=frozenset({"read", SCOPE_WRITE}),
            agent=ASSESSOR,
        )
        for memory_id, attempts in claimed:
            done = True
            try:
                await self.service.assess(principal, memory_id, (), 0, True, None)
                self.assessed += 1
            except (NotFound, FailedPrecondition):
                pass  # purged, or no longer live: nothing to assess
            except Exception:
                logging.getLogger(__name__).exception(
                    "assessing %s failed (attempt %s)", memory_id, attempts
                )
                done = attempts >= ASSESS_MAX_ATTEMPTS
            async with db.tenant_tx(tenant) as conn:
                if done:
                    await conn.execute(
                        "DELETE FROM assess_queue WHERE memory_id = %s", (memory_id,)
                    )
                else:
                    await conn.execute(
                        "UPDATE assess_queue SET available_at = now() + %s * interval '1 second'"
                        " WHERE memory_id = %s",
                        (2**attempts, memory_id),
                    )
        return True


def _merge_refused(result: ProposalResult) -> FailedPrecondition:
    """The answer when the merged memory would not be stored ACTIVE."""
    return FailedPrecondition(
        "the merged memory was not accepted: " + "; ".join(f.message for f in result.failures),
        [PreconditionViolation("MERGE", "merged", "proposal not accepted")],
    )


class _Replayed(Exception):
    """A request id found already used inside a write's transaction: the write is
    abandoned and the first outcome answered."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__("request already committed")
        self.record = record
