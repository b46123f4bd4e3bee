"""Revisions: a memory's fields changed in place or as a superseding version,
passed through the privacy boundary as a proposal would be."""

from __future__ import annotations

import uuid
from typing import Any

from engram_server.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    NotFound,
    PreconditionViolation,
    Violations,
)
from engram_server.lifecycle.model import (
    REVISABLE_FIELDS,
    AuditAction,
    Memory,
    Proposal,
    Status,
    content_hash,
    memory_name,
)
from engram_server.lifecycle.validation import check_proposal, check_reason, check_request_id
from engram_server.lifecycle.validators import run_validators
from engram_server.platform.principal import Principal
from engram_server.services.lifecycle_core import (
    _SCREENED_FIELDS,
    DEDUP_OFF_PREFIX,
    MEMORY,
    LifecycleCore,
    RequestKey,
    _apply,
    _columns,
    dedup_key,
)
from engram_server.services.privacy_gate import screen_proposals
from engram_server.store import memories as store


class LifecycleRevisions(LifecycleCore):
    """Revise: change a memory in place or supersede it with a new version."""

    async def revise(
        self,
        principal: Principal,
        memory_id: uuid.UUID,
        etag: str,
        changes: dict[str, Any],
        key: RequestKey | None,
        reason: str = "",
    ) -> Memory:
        v = Violations()
        check_reason(v, "reason", reason, required=False)
        if not changes:
            v.add("update_mask", "required: name at least one field to change")
        for field in changes:
            if field not in REVISABLE_FIELDS:
                v.add("update_mask", f"field {field!r} cannot be revised")
        if not etag:
            v.add("memory.etag", "required: send the etag you read")
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        replay = await self._peek(tenant, key)
        if replay is not None:
            async with self.db.tenant_tx(tenant) as conn:
                return (await self._replayed_memories(conn, replay["memory_ids"]))[0]

        async with self.db.tenant_tx(tenant) as conn:
            current = await store.get_memory(conn, memory_id)
        if current is None:
            raise NotFound(MEMORY, memory_name(memory_id))
        revised = _apply(current, changes)
        changes = await self._screen_revision(tenant, revised, changes)
        revised = _apply(current, changes)
        v = Violations()
        check_proposal(v, "memory", revised, self.max_content_bytes)
        v.raise_if_any()
        limits = (await self._limits_for({revised.space}, tenant))[revised.space]
        failures = await run_validators(limits.policy, revised, self.call_webhook)
        if failures:
            raise FailedPrecondition(
                "the revision fails the space policy: "
                + "; ".join(f"{f.validator}: {f.message}" for f in failures),
                [PreconditionViolation("POLICY", f.validator, f.message) for f in failures],
            )

        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                return (await self._replayed_memories(conn, replay["memory_ids"]))[0]
            memory = await self._locked(conn, memory_id)
            if memory.etag != etag:
                raise Aborted(
                    f"{memory.name} changed since it was read (etag mismatch); re-read and retry"
                )
            if memory.status not in (Status.ACTIVE, Status.PENDING_CONFIRMATION):
                raise FailedPrecondition(
                    f"{memory.name} is {memory.status.value}; only ACTIVE or PENDING_CONFIRMATION"
                    " memories can be revised",
                    [PreconditionViolation("STATUS", memory.name, "memory is not revisable")],
                )
            revised = _apply(memory, changes)
            if (
                memory.status == Status.ACTIVE
                and revised.slot_key
                and revised.slot_key != memory.slot_key
            ):
                # One ACTIVE memory per slot: a revision does not take a held slot
                # (the unique index would refuse it); a proposal of the new value does.
                holder = await store.lock_slot_holder(conn, memory.space, revised.slot_key)
                if holder is not None:
                    raise FailedPrecondition(
                        f"the slot memory.slot_key names is held by {holder.name}; propose"
                        " the new value to supersede it, or retract it first",
                        [PreconditionViolation("SLOT", holder.name, "slot is held")],
                    )
            column_changes = _columns(revised, changes)
            new_hash = content_hash(revised.content)
            stored_key = await store.dedup_key_of(conn, memory.id)
            new_key = stored_key
            if new_hash != memory.content_hash or revised.session != memory.session:
                # What defines a duplicate changed: the memory takes the key a proposal
                # of the revised content would get under the space's dedup scope now
                # (a session revision moves a session-scoped memory to its new session).
                new_key = dedup_key(limits.policy.dedup_scope, revised)
            if (new_hash, new_key) != (memory.content_hash, stored_key):
                if not new_key.startswith(DEDUP_OFF_PREFIX):
                    clash = (
                        await store.find_live_by_hash(conn, memory.space, [new_hash], new_key)
                    ).get(new_hash)
                    if clash is not None and clash.id != memory.id:
                        raise AlreadyExists(MEMORY, clash.name)
                column_changes["content_hash"] = new_hash
                column_changes["dedup_key"] = new_key
            column_changes["revision"] = memory.revision + 1
            updated = await store.update_memory(conn, memory.id, column_changes)
            await store.insert_revisions(conn, tenant, [updated], principal.actor)
            await store.enqueue_outbox(conn, tenant, [memory.id], "upsert")
            await store.append_audit(
                conn,
                tenant,
                [
                    store.AuditDraft(
                        AuditAction.REVISION,
                        memory.id,
                        memory.space,
                        memory.status,
                        memory.status,
                        principal.actor,
                        reason or "revised " + ", ".join(sorted(changes)),
                        key.request_id if key else "",
                        {"revision": str(updated.revision), "fields": ",".join(sorted(changes))},
                    )
                ],
            )
            if key is not None:
                await store.save_request_result(
                    conn, key.request_id, {"memory_ids": [str(memory.id)]}
                )
            return updated

    async def _screen_revision(
        self, tenant: str, revised: Proposal, changes: dict[str, Any]
    ) -> dict[str, Any]:
        """Passes the revised memory through the privacy boundary, as a proposal
        would: a credential refuses the revision (nothing is stored), personal data
        in a revised field is redacted unless the space's policy allows it."""
        screening = await screen_proposals(
            self, tenant, [revised], field_prefix="memory", batch=False
        )
        if screening.dropped:
            result = screening.dropped[0]
            v = Violations()
            for failure in result.failures:
                v.add(failure.field or "memory.content", failure.message)
            v.raise_if_any()
        if not screening.findings:
            return changes
        screened = screening.kept[0]
        return {
            name: getattr(screened, name) if name in _SCREENED_FIELDS else value
            for name, value in changes.items()
        }
