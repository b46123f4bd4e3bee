"""Transitions of one memory through the state machine (confirm, reject, retract)
and confidence updates, each under the memory's row lock."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from engram_server.errors import (
    FailedPrecondition,
    PreconditionViolation,
    Violations,
)
from engram_server.lifecycle.model import LIVE_STATUSES, AuditAction, Memory, Status
from engram_server.lifecycle.validation import check_reason, check_request_id, check_unit_interval
from engram_server.platform.principal import Principal
from engram_server.services.lifecycle_core import LifecycleCore, RequestKey, move_in_tx
from engram_server.store import memories as store
from engram_server.store.postgres import Conn


class LifecycleTransitions(LifecycleCore):
    """Confirm, reject, retract and confidence updates of one memory."""

    async def apply_transition(
        self,
        principal: Principal,
        memory_id: uuid.UUID,
        key: RequestKey | None,
        decide: Any,
    ) -> list[Memory]:
        """Runs one audited transition transaction; `decide(conn, memory)` returns
        the changes. Confirm, reject, retract and Dream's deprecations all go through it.

        `decide` returns a list of (memory, new_status, changes, reason) tuples,
        so a cascade can move several memories in the same transaction.
        """
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                return await self._replayed_memories(conn, replay["memory_ids"])
            memory = await self._locked(conn, memory_id)
            plan = await decide(conn, memory)
            changed = await move_in_tx(conn, principal, plan, key)
            # The memory the caller named comes first in the answer.
            changed.sort(key=lambda m: m.id != memory_id)
            if key is not None:
                await store.save_request_result(
                    conn, key.request_id, {"memory_ids": [str(m.id) for m in changed]}
                )
            return changed

    async def confirm(
        self, principal: Principal, memory_id: uuid.UUID, reason: str, key: RequestKey | None
    ) -> Memory:
        self._check_reason_and_key(reason, key, required=False)

        async def decide(conn: Conn, m: Memory) -> list[Any]:
            if m.status != Status.PENDING_CONFIRMATION:
                # Say what confirm is for, not that ACTIVE cannot move to ACTIVE.
                raise FailedPrecondition(
                    f"{m.name} is {m.status.value}: only PENDING_CONFIRMATION memories"
                    " can be confirmed",
                    [
                        PreconditionViolation(
                            "STATUS", m.name, f"is {m.status.value}, not PENDING_CONFIRMATION"
                        )
                    ],
                )
            plan: list[Any] = []
            if m.slot_key and m.status == Status.PENDING_CONFIRMATION:
                # Becoming ACTIVE takes the slot from its current holder first.
                holder = await store.lock_slot_holder(conn, m.space, m.slot_key)
                if holder is not None and holder.id != m.id:
                    # No slot key: it can name a person, and the audit log outlives
                    # a purge (as in a proposal's supersession).
                    note = f"its slot was taken by {m.name}"
                    plan.append((holder, Status.SUPERSEDED, {"superseded_by": m.id}, note))
            plan.append((m, Status.ACTIVE, {}, reason or "confirmed"))
            return plan

        return (await self.apply_transition(principal, memory_id, key, decide))[0]

    async def reject(
        self, principal: Principal, memory_id: uuid.UUID, reason: str, key: RequestKey | None
    ) -> Memory:
        self._check_reason_and_key(reason, key, required=False)

        async def decide(conn: Conn, m: Memory) -> list[Any]:
            note = f"rejected: {reason}" if reason else "rejected by reviewer"
            if m.status == Status.PENDING_CONFIRMATION:
                return [
                    (
                        m,
                        Status.RETRACTED,
                        {
                            "retract_time": datetime.now(UTC),
                            "retraction_reason": note,
                        },
                        note,
                    )
                ]
            return [(m, Status.REJECTED, {}, note)]

        return (await self.apply_transition(principal, memory_id, key, decide))[0]

    async def retract(
        self,
        principal: Principal,
        memory_id: uuid.UUID,
        reason: str,
        cascade: bool,
        key: RequestKey | None,
    ) -> tuple[Memory, list[Memory]]:
        self._check_reason_and_key(reason, key, required=True)

        async def decide(conn: Conn, m: Memory) -> list[Any]:
            now = datetime.now(UTC)
            plan: list[Any] = [
                (
                    m,
                    Status.RETRACTED,
                    {
                        "retract_time": now,
                        "retraction_reason": reason,
                    },
                    reason,
                )
            ]
            if cascade and m.status in (Status.ACTIVE, Status.PENDING_CONFIRMATION):
                seen = {m.id}
                frontier = [m.id]
                while frontier:
                    children = [
                        c for c in await store.dependents(conn, frontier) if c.id not in seen
                    ]
                    seen.update(c.id for c in children)
                    frontier = [c.id for c in children]
                    for child in children:
                        note = f"cascade from {m.name}: {reason}"
                        plan.append(
                            (
                                child,
                                Status.RETRACTED,
                                {
                                    "retract_time": now,
                                    "retraction_reason": note,
                                },
                                note,
                            )
                        )
            return plan

        changed = await self.apply_transition(principal, memory_id, key, decide)
        return changed[0], changed[1:]

    async def update_confidence(
        self,
        principal: Principal,
        memory_id: uuid.UUID,
        confidence: float,
        reason: str,
        key: RequestKey | None,
    ) -> Memory:
        v = Violations()
        check_unit_interval(v, "confidence", confidence)
        check_reason(v, "reason", reason, required=False)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                return (await self._replayed_memories(conn, replay["memory_ids"]))[0]
            memory = await self._locked(conn, memory_id)
            if memory.status not in LIVE_STATUSES:
                raise FailedPrecondition(
                    f"{memory.name} is {memory.status.value}; only live memories change confidence",
                    [PreconditionViolation("STATUS", memory.name, "memory is not live")],
                )
            if confidence < memory.confidence:
                raise FailedPrecondition(
                    f"confidence only increases: {memory.name} has {memory.confidence:g},"
                    f" requested {confidence:g}",
                    [PreconditionViolation("CONFIDENCE", memory.name, "would decrease")],
                )
            updated = memory
            if confidence > memory.confidence:
                updated = await store.update_memory(conn, memory.id, {"confidence": confidence})
                await store.enqueue_outbox(conn, tenant, [memory.id], "upsert")
                await store.append_audit(
                    conn,
                    tenant,
                    [
                        store.AuditDraft(
                            AuditAction.CONFIDENCE,
                            memory.id,
                            memory.space,
                            memory.status,
                            memory.status,
                            principal.actor,
                            reason or "confidence raised",
                            key.request_id if key else "",
                            {"from": repr(memory.confidence), "to": repr(confidence)},
                        )
                    ],
                )
            if key is not None:
                await store.save_request_result(
                    conn, key.request_id, {"memory_ids": [str(memory.id)]}
                )
            return updated
