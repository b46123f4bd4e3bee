"""Snapshots of a space: take, read, delete, compare and restore.

Writes follow the lifecycle write path's shape: validate input first (nothing
touched yet), then one transaction that claims the request id, writes, queues
derived-index work in the outbox and appends the audit rows last. A restore
changes memories only through lifecycle moves the state machine allows, each
with its audit row, all in that one transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import psycopg

from engram_server.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PreconditionViolation,
    ResourceExhausted,
    Violations,
)
from engram_server.lifecycle.model import (
    LIVE_STATUSES,
    AuditAction,
    Memory,
    Proposal,
    Status,
    content_hash,
    memory_name,
    new_memory_id,
)
from engram_server.lifecycle.states import check_transition
from engram_server.lifecycle.validation import check_reason, check_request_id, check_space
from engram_server.platform.principal import Principal
from engram_server.recall import snapshots as model
from engram_server.recall.snapshots import (
    SNAPSHOT_ID_PATTERN,
    DiffPage,
    RestorePlan,
    Snapshot,
    snapshot_name,
)
from engram_server.services.lifecycle import RequestKey, dedup_key
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.store import memories as store
from engram_server.store import policies as policy_store
from engram_server.store import snapshots as snapshot_store
from engram_server.store.postgres import Conn, Database

SNAPSHOT = "snapshot"
MAX_DESCRIPTION = 2048
MAX_LABELS = 64
# How long a paged diff against "now" keeps the state its first page read.
DIFF_VIEW_TTL = timedelta(hours=1)
# Transient diff views take ids no snapshot can have ('~' is outside [a-z0-9_-]).
_VIEW_PREFIX = "~now-"


@dataclass(frozen=True)
class SnapshotSpec:
    """What a caller asks to snapshot."""

    space: str
    include_subspaces: bool = False
    description: str = ""
    labels: dict[str, str] | None = None


@dataclass(frozen=True)
class RestoreOutcome:
    retracted: int
    recreated: int
    revised: int
    unchanged: int
    validate_only: bool
    audit_sequence: int


class SnapshotService:
    def __init__(self, db: Database) -> None:
        self.db = db

    # --- idempotency ----------------------------------------------------------------

    @staticmethod
    async def _claim(conn: Conn, tenant: str, key: RequestKey | None) -> dict[str, Any] | None:
        """Claims `key` for this transaction, or returns the first outcome's record."""
        if key is None:
            return None
        prior = await store.claim_request(conn, tenant, key.request_id, key.method, key.fingerprint)
        if prior is None:
            return None
        if prior["method"] != key.method or prior["fingerprint"] != key.fingerprint:
            raise InvalidArgument.field("request_id", "was already used for a different request")
        record: dict[str, Any] = prior["result"]
        return record

    # --- create, read, delete ---------------------------------------------------------

    async def create(
        self, principal: Principal, spec: SnapshotSpec, snapshot_id: str, key: RequestKey | None
    ) -> Snapshot:
        v = Violations()
        check_space(v, "snapshot.space", spec.space)
        if snapshot_id and not SNAPSHOT_ID_PATTERN.match(snapshot_id):
            v.add("snapshot_id", "1-63 characters of [a-z0-9_-]")
        if len(spec.description) > MAX_DESCRIPTION:
            v.add("snapshot.description", f"at most {MAX_DESCRIPTION} characters")
        labels = spec.labels or {}
        if len(labels) > MAX_LABELS:
            v.add("snapshot.labels", f"at most {MAX_LABELS} entries")
        for label, value in labels.items():
            if not label or len(label) > 63 or len(value) > 256:
                v.add(f"snapshot.labels[{label}]", "keys 1-63 characters, values at most 256")
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()

        tenant = principal.tenant_id
        new_id = snapshot_id or str(uuid.uuid4())
        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._claim(conn, tenant, key)
            if replay is not None:
                return await self._existing(conn, replay["snapshot_id"])
            if await snapshot_store.get_snapshot(conn, new_id) is not None:
                raise AlreadyExists(SNAPSHOT, snapshot_name(new_id))  # before copying anything
            # Holding the audit counter until commit makes the copy exactly the
            # state after entry `head`: no other change can commit meanwhile.
            head = await snapshot_store.lock_audit_head(conn)
            await snapshot_store.delete_expired_views(conn)
            live = await snapshot_store.live_in_scope(conn, spec.space, spec.include_subspaces)
            captured = model.capture(live)
            created = await snapshot_store.insert_snapshot(
                conn,
                tenant,
                snapshot_store.NewSnapshot(
                    id=new_id,
                    space=spec.space,
                    include_subspaces=spec.include_subspaces,
                    description=spec.description,
                    labels=labels,
                    audit_sequence=head + 1,
                    creator=principal.actor,
                ),
                captured,
            )
            if created is None:
                raise AlreadyExists(SNAPSHOT, snapshot_name(new_id))
            entries, _, _ = await store.append_audit(
                conn,
                tenant,
                [
                    store.AuditDraft(
                        AuditAction.SNAPSHOT,
                        None,
                        spec.space,
                        None,
                        None,
                        principal.actor,
                        f"took {created.name}"
                        + (f": {spec.description}" if spec.description else ""),
                        key.request_id if key else "",
                        {
                            "snapshot": created.name,
                            "operation": "create",
                            "memory_count": str(created.memory_count),
                            "include_subspaces": str(spec.include_subspaces).lower(),
                        },
                    )
                ],
            )
            assert entries[0].sequence == created.audit_sequence, "audit counter was locked"
            if key is not None:
                await store.save_request_result(conn, key.request_id, {"snapshot_id": new_id})
            return created

    async def _existing(self, conn: Conn, snapshot_id: str) -> Snapshot:
        found = await snapshot_store.get_snapshot(conn, snapshot_id)
        if found is None:
            raise NotFound(SNAPSHOT, snapshot_name(snapshot_id))
        return found

    async def get(self, tenant: str, snapshot_id: str) -> Snapshot:
        async with self.db.tenant_tx(tenant) as conn:
            return await self._existing(conn, snapshot_id)

    async def list_snapshots(
        self, tenant: str, space: str, requested_size: int, token: str
    ) -> tuple[list[Snapshot], str]:
        v = Violations()
        check_space(v, "space", space, required=False)
        v.raise_if_any()
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("snapshots", space)
        position = decode_token(token, fingerprint)
        after = None
        if position is not None:
            try:
                after = (datetime.fromisoformat(position["t"]), str(position["i"]))
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        async with self.db.tenant_tx(tenant) as conn:
            rows = await snapshot_store.list_snapshots(conn, space, size + 1, after)
        page, more = rows[:size], len(rows) > size
        next_token = ""
        if more:
            last = page[-1]
            next_token = encode_token(
                {"t": last.create_time.isoformat(), "i": last.id}, fingerprint
            )
        return page, next_token

    async def delete(self, principal: Principal, snapshot_id: str, key: RequestKey | None) -> None:
        v = Violations()
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        async with self.db.tenant_tx(tenant) as conn:
            if await self._claim(conn, tenant, key) is not None:
                return
            deleted = await snapshot_store.delete_snapshot(conn, snapshot_id)
            if deleted is None:
                raise NotFound(SNAPSHOT, snapshot_name(snapshot_id))
            await store.append_audit(
                conn,
                tenant,
                [
                    store.AuditDraft(
                        AuditAction.SNAPSHOT,
                        None,
                        deleted.space,
                        None,
                        None,
                        principal.actor,
                        f"deleted {deleted.name}",
                        key.request_id if key else "",
                        {"snapshot": deleted.name, "operation": "delete"},
                    )
                ],
            )
            if key is not None:
                await store.save_request_result(conn, key.request_id, {"snapshot_id": snapshot_id})

    # --- diff ----------------------------------------------------------------------------

    async def diff(
        self, tenant: str, base_id: str, target_id: str, requested_size: int, token: str
    ) -> DiffPage:
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("snapshot-diff", base_id, target_id)
        position = decode_token(token, fingerprint)
        after: uuid.UUID | None = None
        view_id = ""
        if position is not None:
            try:
                after = uuid.UUID(position["k"])
                view_id = str(position.get("v", ""))
            except (KeyError, ValueError, TypeError, AttributeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc

        async with self.db.tenant_tx(tenant) as conn:
            base = await self._existing(conn, base_id)
            made_view = False
            if target_id:
                target = await snapshot_store.get_snapshot(conn, target_id)
                if target is None:
                    raise NotFound(SNAPSHOT, snapshot_name(target_id))
                if (target.space, target.include_subspaces) != (
                    base.space,
                    base.include_subspaces,
                ):
                    raise InvalidArgument.field(
                        "target", f"must be a snapshot of the same space as {base.name}"
                    )
                compared_with = target.id
            elif view_id:
                view = await snapshot_store.get_view(conn, view_id)
                if view is None or (view.space, view.include_subspaces) != (
                    base.space,
                    base.include_subspaces,
                ):
                    raise InvalidArgument.field(
                        "page_token",
                        "has expired: the state it pages through is gone; start again",
                    )
                compared_with = view.id
            else:
                compared_with = await self._take_view(conn, tenant, base)
                made_view = True

            rows = await snapshot_store.diff_page(conn, base.id, compared_with, after, size + 1)
            page, more = rows[:size], len(rows) > size
            added, removed, changed = await snapshot_store.diff_counts(conn, base.id, compared_with)
            next_token = ""
            if more:
                next_position = {"k": str(page[-1].match_key)}
                if not target_id:
                    next_position["v"] = compared_with
                next_token = encode_token(next_position, fingerprint)
            elif made_view:
                # One page held the whole diff: nobody will page through this view.
                await snapshot_store.delete_view(conn, compared_with)
        return DiffPage(
            changes=[model.change_between(r.before, r.after) for r in page],
            next_page_token=next_token,
            added=added,
            removed=removed,
            changed=changed,
        )

    async def _take_view(self, conn: Conn, tenant: str, base: Snapshot) -> str:
        """Copies the base's space as it is now, for this diff and its later pages."""
        await snapshot_store.delete_expired_views(conn)
        now = await store.transaction_now(conn)
        live = await snapshot_store.live_in_scope(conn, base.space, base.include_subspaces)
        view_id = f"{_VIEW_PREFIX}{uuid.uuid4().hex}"
        await snapshot_store.insert_snapshot(
            conn,
            tenant,
            snapshot_store.NewSnapshot(
                id=view_id,
                space=base.space,
                include_subspaces=base.include_subspaces,
                description="",
                labels={},
                audit_sequence=await store.audit_head(conn),
                creator="",
                view_expire_time=now + DIFF_VIEW_TTL,
            ),
            model.capture(live),
        )
        return view_id

    # --- restore ---------------------------------------------------------------------------

    async def restore(
        self,
        principal: Principal,
        snapshot_id: str,
        validate_only: bool,
        reason: str,
        key: RequestKey | None,
    ) -> RestoreOutcome:
        v = Violations()
        check_reason(v, "reason", reason, required=False)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id

        if validate_only:
            async with self.db.tenant_tx(tenant) as conn:
                snap = await self._existing(conn, snapshot_id)
                live = await snapshot_store.live_in_scope(conn, snap.space, snap.include_subspaces)
                copies = await snapshot_store.load_copies(conn, snap.id)
                scopes = await _dedup_scopes(conn, copies, live)
                plan = model.plan_restore(copies, live, await store.transaction_now(conn), scopes)
            return _outcome(plan, validate_only=True, sequence=0)

        async with self.db.tenant_tx(tenant) as conn:
            replay = await self._claim(conn, tenant, key)
            if replay is not None:
                return RestoreOutcome(
                    retracted=int(replay["retracted"]),
                    recreated=int(replay["recreated"]),
                    revised=int(replay["revised"]),
                    unchanged=int(replay["unchanged"]),
                    validate_only=False,
                    audit_sequence=int(replay["sequence"]),
                )
            # A concurrent delete waits for the restore to finish.
            found = await snapshot_store.get_snapshot(conn, snapshot_id, for_share=True)
            if found is None:
                raise NotFound(SNAPSHOT, snapshot_name(snapshot_id))
            snap = found
            # Lock order: the space's memories, then the audit counter (the order
            # every lifecycle write uses, so the two never deadlock), then read the
            # space again: it now includes whatever committed in between, and
            # nothing else can commit until this transaction does.
            await snapshot_store.live_in_scope(
                conn, snap.space, snap.include_subspaces, for_update=True
            )
            await snapshot_store.lock_audit_head(conn)
            live = await snapshot_store.live_in_scope(
                conn, snap.space, snap.include_subspaces, for_update=True
            )
            copies = await snapshot_store.load_copies(conn, snap.id)
            now = await store.transaction_now(conn)
            scopes = await _dedup_scopes(conn, copies, live)
            plan = model.plan_restore(copies, live, now, scopes)
            try:
                sequence = await self._apply(conn, principal, snap, plan, reason, key, now, scopes)
            except psycopg.errors.UniqueViolation as exc:
                # Only a snapshot that broke today's rules can get here, e.g. one
                # taken before ACTIVE slots were unique, holding two holders of a slot.
                raise FailedPrecondition(
                    f"{snap.name} cannot be restored: two of its memories would hold the"
                    " same content or slot",
                    [PreconditionViolation("UNIQUE", snap.name, "conflicting memories")],
                ) from exc
            outcome = _outcome(plan, validate_only=False, sequence=sequence)
            if key is not None:
                await store.save_request_result(
                    conn,
                    key.request_id,
                    {
                        "retracted": outcome.retracted,
                        "recreated": outcome.recreated,
                        "revised": outcome.revised,
                        "unchanged": outcome.unchanged,
                        "sequence": outcome.audit_sequence,
                    },
                )
            return outcome

    async def _apply(
        self,
        conn: Conn,
        principal: Principal,
        snap: Snapshot,
        plan: RestorePlan,
        reason: str,
        key: RequestKey | None,
        now: datetime,
        scopes: Mapping[str, str],
    ) -> int:
        """Carries out a restore plan; returns the sequence of its last audit entry.

        Memories it brings back or whose content or session it reverts take the
        dedup key of their space's dedup scope now, as a proposal would."""
        tenant = principal.tenant_id
        actor = principal.actor
        request_id = key.request_id if key else ""
        note = f"restored snapshot {snap.name}" + (f": {reason}" if reason else "")
        link = {"snapshot": snap.name}
        drafts: list[store.AuditDraft] = []
        touched: list[uuid.UUID] = []
        live_delta = 0

        # Retractions first: they free content hashes the other steps may reuse.
        for m in plan.retract:
            check_transition(m.name, m.status, Status.RETRACTED)
            await store.update_memory(
                conn,
                m.id,
                {"status": Status.RETRACTED.value, "retract_time": now, "retraction_reason": note},
            )
            drafts.append(
                store.AuditDraft(
                    AuditAction.TRANSITION,
                    m.id,
                    m.space,
                    m.status,
                    Status.RETRACTED,
                    actor,
                    note,
                    request_id,
                    link,
                )
            )
            touched.append(m.id)
            live_delta -= 1

        rekeyed = [r for r in plan.revert if "content" in r.changes or "session" in r.changes]
        await snapshot_store.park_unique_values(
            conn,
            content_of=[r.current.id for r in rekeyed],
            slot_of=[r.current.id for r in plan.revert if "slot_key" in r.changes],
        )
        revised: list[Memory] = []
        for r in plan.revert:
            columns = _columns(r.changes)
            if "content" in r.changes or "session" in r.changes:
                reverted = r.current.to_proposal(**r.changes)
                columns["content_hash"] = content_hash(reverted.content)
                columns["dedup_key"] = dedup_key(scopes.get(reverted.space, "SPACE"), reverted)
            if r.changes:
                columns["revision"] = r.current.revision + 1
            if r.confirm:
                check_transition(r.current.name, r.current.status, Status.ACTIVE)
                columns["status"] = Status.ACTIVE.value
            updated = await store.update_memory(conn, r.current.id, columns)
            if r.changes:
                revised.append(updated)
                fields = ",".join(sorted(r.changes))
                drafts.append(
                    store.AuditDraft(
                        AuditAction.REVISION,
                        r.current.id,
                        r.current.space,
                        r.current.status,
                        r.current.status,
                        actor,
                        f"{note} (revised {fields.replace(',', ', ')})",
                        request_id,
                        {**link, "revision": str(updated.revision), "fields": fields},
                    )
                )
            if r.confirm:
                drafts.append(
                    store.AuditDraft(
                        AuditAction.TRANSITION,
                        r.current.id,
                        r.current.space,
                        r.current.status,
                        Status.ACTIVE,
                        actor,
                        note,
                        request_id,
                        link,
                    )
                )
            touched.append(r.current.id)
        await store.insert_revisions(conn, tenant, revised, actor)

        new_ids = {item.match_key: new_memory_id() for item in plan.recreate}
        to_insert = []
        for item in plan.recreate:
            proposal = _proposal(item, model.recreated_dependencies(item, new_ids, plan.kept))
            to_insert.append(
                store.NewMemory(
                    id=new_ids[item.match_key],
                    proposal=proposal,
                    agent=item.memory.agent,
                    status=item.memory.status,
                    expire_time=item.memory.expire_time,
                    validation_notes=item.memory.validation_notes,
                    dedup_key=dedup_key(scopes.get(proposal.space, "SPACE"), proposal),
                )
            )
        inserted = await store.insert_memories(conn, tenant, to_insert)
        if len(inserted) != len(to_insert):
            # Identical content committed concurrently in the space: the plan is stale.
            raise Aborted(f"the space of {snap.name} changed during the restore; retry the restore")
        for m in sorted(inserted, key=lambda m: m.id.int):
            original = model.restored_from(m)
            details = {**link, model.RESTORED_FROM: memory_name(original) if original else ""}
            check_transition(m.name, Status.PROPOSED, m.status)
            drafts.append(
                store.AuditDraft(
                    AuditAction.TRANSITION,
                    m.id,
                    m.space,
                    None,
                    Status.PROPOSED,
                    actor,
                    note,
                    request_id,
                    details,
                )
            )
            drafts.append(
                store.AuditDraft(
                    AuditAction.TRANSITION,
                    m.id,
                    m.space,
                    Status.PROPOSED,
                    m.status,
                    actor,
                    note,
                    request_id,
                    details,
                )
            )
            touched.append(m.id)
            live_delta += m.status in LIVE_STATUSES

        if not drafts:
            return 0
        await store.enqueue_outbox(conn, tenant, touched, "upsert")
        entries, live, max_live = await store.append_audit(conn, tenant, drafts, live_delta)
        if live_delta > 0 and max_live and live > max_live:
            raise ResourceExhausted(
                f"restoring {snap.name} would leave {live} live memories; the quota is {max_live}",
                "max_memories",
                f"tenants/{tenant}",
            )
        return entries[-1].sequence


def _outcome(plan: RestorePlan, *, validate_only: bool, sequence: int) -> RestoreOutcome:
    return RestoreOutcome(
        retracted=len(plan.retract),
        recreated=len(plan.recreate),
        revised=len(plan.revert),
        unchanged=plan.unchanged,
        validate_only=validate_only,
        audit_sequence=sequence,
    )


def _columns(changes: dict[str, Any]) -> dict[str, Any]:
    """Domain values of reverted fields -> column values."""
    out: dict[str, Any] = {}
    for name, value in changes.items():
        if name == "kind":
            value = value.value
        elif name == "tags":
            value = list(value)
        out[name] = value
    return out


async def _dedup_scopes(
    conn: Conn, copies: Sequence[model.CapturedMemory], live: Sequence[Memory]
) -> dict[str, str]:
    """The dedup scope of every space a restore touches (its policy's now)."""
    spaces = {c.memory.space for c in copies} | {m.space for m in live}
    return {
        space: (await policy_store.effective_policy(conn, space)).policy.dedup_scope
        for space in sorted(spaces)
    }


def _proposal(item: model.CapturedMemory, depends_on: tuple[uuid.UUID, ...]) -> Proposal:
    return item.memory.to_proposal(
        depends_on=depends_on, attributes=model.restored_attributes(item)
    )
