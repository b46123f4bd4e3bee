"""The governed write path: proposals, transitions, revisions, expiry and purges.

Every change follows the same shape: validate input (nothing touched yet), run
the policy's validators outside any transaction (webhooks can be slow and must
not hold locks), then one transaction that claims the request id, writes the
change, queues derived-index work in the outbox and appends the audit rows last.

`LifecycleService` joins the parts: lifecycle_core (shared state, idempotency,
locks), lifecycle_writes (proposals), lifecycle_transitions, lifecycle_revisions;
expiry, purges and policies are here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime

from engram_server.errors import Aborted, Violations
from engram_server.lifecycle.model import LIVE_STATUSES, AuditAction, AuditEntry, Memory, Status
from engram_server.lifecycle.policy import Policy, validate_policy
from engram_server.lifecycle.validation import check_reason, check_request_id
from engram_server.platform.principal import Principal
from engram_server.services.indexing import cache_keys
from engram_server.services.lifecycle_core import (
    SYSTEM_ACTOR,
    InTransaction,
    Move,
    PurgedMeanwhile,
    RequestKey,
    _delete_scope,
    _hold_audit_counter,
    _open_conflict,
    closed_at,
    dedup_key,
    guarded,
    hold_erasure_epoch,
    move_in_tx,
    parse_memory_name,
)
from engram_server.services.lifecycle_revisions import LifecycleRevisions
from engram_server.services.lifecycle_transitions import LifecycleTransitions
from engram_server.services.lifecycle_writes import LifecycleWrites
from engram_server.services.policy_cache import POLICY_CHANNEL
from engram_server.store import decisions as decision_store
from engram_server.store import erasure as erasure_store
from engram_server.store import memories as store
from engram_server.store import policies as policy_store
from engram_server.store import snapshots as snapshot_store
from engram_server.store.embedding_cache import forget_in

# Names other modules import from here; they live in lifecycle_core.
__all__ = [
    "SYSTEM_ACTOR",
    "InTransaction",
    "LifecycleService",
    "Move",
    "PurgedMeanwhile",
    "RequestKey",
    "_open_conflict",
    "closed_at",
    "dedup_key",
    "guarded",
    "hold_erasure_epoch",
    "move_in_tx",
    "parse_memory_name",
]


class LifecycleService(LifecycleWrites, LifecycleTransitions, LifecycleRevisions):
    async def expire_due(
        self, tenant: str, actor: str, as_of: datetime | None, limit: int, space: str = ""
    ) -> list[Memory]:
        from engram_server.lifecycle.validation import check_space

        v = Violations()
        if limit < 0 or limit > 10_000:
            v.add("limit", "must be between 0 and 10000")
        check_space(v, "space", space, required=False)
        v.raise_if_any()
        async with self.db.tenant_tx(tenant) as conn:
            when = as_of or await store.transaction_now(conn)
            expired = await store.expire_due(conn, when, limit or 1000, space)
            if not expired:
                return []
            await store.enqueue_outbox(conn, tenant, [m.id for m in expired], "upsert")
            await store.append_audit(
                conn,
                tenant,
                [
                    store.AuditDraft(
                        AuditAction.TRANSITION,
                        m.id,
                        m.space,
                        Status.ACTIVE,
                        Status.EXPIRED,
                        actor,
                        f"expire_time {m.expire_time.isoformat() if m.expire_time else ''} passed",
                    )
                    for m in expired
                ],
                -len(expired),
            )
            return expired

    async def purge(
        self,
        principal: Principal,
        space: str,
        session: str,
        reason: str,
        key: RequestKey | None,
        erase_buffers: Callable[[], Awaitable[object]] | None = None,
    ) -> tuple[int, AuditEntry]:
        """Deletes a space's (or one session's) memories for good.

        `erase_buffers` clears the matching conversation buffers (Redis). It runs
        inside the purge's transaction, after the space's erasure epoch is raised
        and before the commit, so a Consolidate that read a buffer before it was
        cleared cannot store its summary after the purge (see `store.erasure`),
        and a failure there leaves nothing purged. A retry of an already
        committed purge (same request id) runs it again.
        """
        from engram_server.lifecycle.validation import check_space

        v = Violations()
        check_space(v, "space", space)
        check_reason(v, "reason", reason, required=True)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                if erase_buffers is not None:
                    await erase_buffers()
                entries = await store.list_audit(conn, None, "", replay["sequence"] - 1, 1)
                return int(replay["count"]), entries[0]
            await erasure_store.advance(conn, tenant, space)
            if erase_buffers is not None:
                await erase_buffers()
            repositories = (
                await decision_store.repositories_in(conn, space) if not session else set()
            )
            revised, deleted = await _delete_scope(conn, space, session)
            # Lock order, as every audited write: the scope's memory rows, then the
            # tenant's audit counter. Held from here until commit, nothing else
            # commits; what committed while the delete above waited for it is
            # visible now and goes too: a memory a restore brought back, or a
            # snapshot's copies of what was deleted (taken before this delete
            # committed, unseen by its trigger). The purge never waits for a row
            # while it holds the counter: a write that locked such a row (one
            # just restored, say) waits for the counter itself, and the two would
            # deadlock. So the counter is taken with the scope's rows locked, or
            # let go again and the rows deleted first.
            while not await _hold_audit_counter(conn, space, session):
                more_revised, more = await _delete_scope(conn, space, session, again=True)
                revised, deleted = [*revised, *more_revised], [*deleted, *more]
            late_revised, late = await _delete_scope(conn, space, session, again=True)
            revised, deleted = [*revised, *late_revised], [*deleted, *late]
            await snapshot_store.forget_copies(conn, [p.id for p in deleted])
            if not session:
                # A decision space's commit and file-change records are kept per
                # repository, beside its decisions: they go with the space.
                await decision_store.forget_commit_records(conn, space, repositories)
            live = sum(1 for p in deleted if p.status in LIVE_STATUSES)
            await store.enqueue_outbox(conn, tenant, [p.id for p in deleted], "delete")
            await store.forget_proposal_failures(conn, [p.id for p in deleted])
            # The vectors cached for indexing are derived from the content (and
            # from every earlier revision's): an erasure takes them in the same
            # commit. Indexing forgets what it caches for them meanwhile.
            stale = {k for c in (*revised, *(p.content for p in deleted)) for k in cache_keys(c)}
            await forget_in(conn, tenant, sorted(stale))
            scope = f"space {space}" + (f", session {session}" if session else "")
            entries, _, _ = await store.append_audit(
                conn,
                tenant,
                [
                    store.AuditDraft(
                        AuditAction.PURGE,
                        None,
                        space,
                        None,
                        None,
                        principal.actor,
                        f"purged {scope}: {reason}",
                        key.request_id if key else "",
                        {"purged_count": str(len(deleted)), "session": session},
                    )
                ],
                -live,
            )
            if key is not None:
                await store.save_request_result(
                    conn, key.request_id, {"count": len(deleted), "sequence": entries[0].sequence}
                )
            return len(deleted), entries[0]

    async def get_policy(self, tenant: str, space: str) -> Policy:
        async with self.db.tenant_tx(tenant) as conn:
            policy = await policy_store.get_policy(conn, space)
        # A space without its own policy reports the tenant default under its name.
        return replace(policy, space=space) if policy.space != space else policy

    async def set_policy(
        self, principal: Principal, policy: Policy, key: RequestKey | None
    ) -> Policy:
        validate_policy(policy, self.max_content_bytes, self.url_refusal)
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._replay(conn, tenant, key)
            if replay is not None:
                return await policy_store.get_policy(conn, policy.space)
            stored_etag = await policy_store.lock_policy_etag(conn, policy.space)
            if policy.etag and policy.etag != stored_etag:
                raise Aborted(f"{policy.name} changed since it was read (etag mismatch)")
            saved = await policy_store.put_policy(conn, tenant, policy)
            await conn.execute("SELECT pg_notify(%s, %s)", (POLICY_CHANNEL, tenant))
            await store.append_audit(
                conn,
                tenant,
                [
                    store.AuditDraft(
                        AuditAction.POLICY,
                        None,
                        policy.space,
                        None,
                        None,
                        principal.actor,
                        f"policy {policy.name} set",
                        key.request_id if key else "",
                        {"etag": saved.etag},
                    )
                ],
            )
            if key is not None:
                await store.save_request_result(conn, key.request_id, {"etag": saved.etag})
        self.policies.invalidate_tenant(tenant)
        return saved
