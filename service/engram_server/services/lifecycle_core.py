"""What the write path's use cases share: request ids and idempotent replays,
erasure guards, the space's write limits, row locks and the helpers that move
memories between states. `services.lifecycle` joins the parts: proposals
(lifecycle_writes), transitions (lifecycle_transitions), revisions
(lifecycle_revisions), and expiry, purges and policies itself.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import psycopg

from engram_server.errors import Aborted, InvalidArgument, NotFound, Violations
from engram_server.lifecycle.model import (
    LIVE_STATUSES,
    AuditAction,
    Memory,
    Outcome,
    Proposal,
    ProposalResult,
    Status,
    ValidationFailure,
    memory_name,
)
from engram_server.lifecycle.policy import UrlRefusal
from engram_server.lifecycle.states import check_transition
from engram_server.lifecycle.validation import check_reason, check_request_id
from engram_server.lifecycle.validators import WebhookCaller
from engram_server.platform.principal import Principal
from engram_server.services.policy_cache import PolicyCache
from engram_server.store import decisions as decision_store
from engram_server.store import erasure as erasure_store
from engram_server.store import learning as learning_store
from engram_server.store import memories as store
from engram_server.store import policies as policy_store
from engram_server.store import snapshots as snapshot_store
from engram_server.store.erasure import ErasureGuard
from engram_server.store.postgres import Conn, Database

SYSTEM_ACTOR = "system"
MEMORY = "memory"
WRITE_ATTEMPTS = 5
# Unique indexes a concurrent writer can trip; the write is retried from the top.
RACY_CONSTRAINTS = frozenset({"memories_live_slot", "memories_live_content"})


# Statuses the live-content unique index covers (its ON CONFLICT finds duplicates).
_INDEXED_STATUSES = frozenset({Status.PROPOSED, Status.ACTIVE, Status.PENDING_CONFIRMATION})


# Receives a write's results as soon as they are known, possibly while the
# database is still executing the write, so a caller can render its response in
# that time instead of after. It may not be called at all (the results are then
# only returned), and the write can still fail after it: its output is only for
# the response to the same call, and only when the list returned is the one it got.
ResultsHook = Callable[[list[ProposalResult]], None]


@dataclass(frozen=True)
class InTransaction:
    """Work a caller adds to a proposal write's own transaction, run again with
    every retry of it. `before` runs first (after the idempotency check), `after`
    with the results once the memories are written; either may raise to refuse
    the whole write, so that nothing of it is stored.

    Locks taken in `before` come ahead of the write's own (the memory rows, then
    the tenant's audit counter): a caller that needs more rows locked than the
    write takes locks them there, in the order its other paths use."""

    before: Callable[[Conn], Awaitable[None]] | None = None
    after: Callable[[Conn, list[ProposalResult]], Awaitable[None]] | None = None


class _WriteRace(Exception):
    """A concurrent transaction changed what this write was based on."""


class _SpeculationMissed(Exception):
    """A speculative write met content that is already live: redo it step by step."""


def _results_record(results: Sequence[ProposalResult]) -> dict[str, Any]:
    return {
        "results": [
            {
                "outcome": r.outcome.value,
                "memory_id": str(r.memory.id) if r.memory else "",
                "failures": [f.__dict__ for f in r.failures],
            }
            for r in results
        ]
    }


# A proposal's place in the dedup index: (space, content hash, dedup key).
DedupSlot = tuple[str, str, str]
DEDUP_OFF_PREFIX = "off:"


def dedup_key(scope: str, p: Proposal) -> str:
    """Where identical content counts as a duplicate, by the space policy's scope:
    anywhere in the space (""), within one session, or nowhere (a key of its own)."""
    if scope == "SESSION":
        return f"session:{p.session}"
    if scope == "OFF":
        return f"{DEDUP_OFF_PREFIX}{uuid.uuid4().hex}"
    return ""


@dataclass(frozen=True)
class RequestKey:
    """An idempotency key: the client's request_id, the method, and a fingerprint
    of the request body (so reusing an id for a different request is refused)."""

    request_id: str
    method: str
    fingerprint: str


def parse_memory_name(name: str, field: str = "name") -> uuid.UUID:
    if not name:
        raise InvalidArgument.field(field, "required")
    prefix, _, raw = name.partition("/")
    if prefix != "memories" or not raw:
        raise InvalidArgument.field(field, "must look like memories/{memory}")
    try:
        return uuid.UUID(raw)
    except ValueError as exc:
        raise InvalidArgument.field(field, "memory id must be a UUID") from exc


class NearDuplicateFinder(Protocol):
    """Finds an ACTIVE memory of a space (of one session of it, when `session` is
    not None) that a proposal nearly repeats."""

    def __call__(
        self, tenant: str, space: str, content: str, threshold: float, session: str | None
    ) -> Awaitable[uuid.UUID | None]: ...


REINFORCEMENT_STEP = 0.05
MAX_SOURCES_CHARS = 1024


class PurgedMeanwhile(Aborted):
    """A derived write refused because its space was purged after its source data
    was read; maps to ABORTED (retrying works from what is left)."""


async def hold_erasure_epoch(conn: Conn, tenant: str, guard: ErasureGuard) -> None:
    """Refuses a derived write (ABORTED) when the space was purged after its
    source data was read; otherwise holds the space's epoch until the caller's
    transaction ends, so a purge starting now erases what it writes too."""
    if not await erasure_store.unchanged(conn, tenant, guard):
        raise PurgedMeanwhile(
            f"spaces/{guard.space} was purged while this write's source data was being"
            " read; nothing derived from it was stored (retry to work from what is left)"
        )


def guarded(tenant: str, guard: ErasureGuard) -> InTransaction:
    """The write refuses unless its space's erasure epoch is still `guard`'s."""

    async def hold(conn: Conn) -> None:
        await hold_erasure_epoch(conn, tenant, guard)

    return InTransaction(before=hold)


class LifecycleCore:
    """State and helpers every part of the write path uses."""

    def __init__(
        self,
        db: Database,
        call_webhook: WebhookCaller,
        max_content_bytes: int,
        near_duplicates: NearDuplicateFinder | None = None,
        *,
        url_refusal: UrlRefusal | None = None,
    ) -> None:
        self.db = db
        self.call_webhook = call_webhook
        self.url_refusal = url_refusal
        self.max_content_bytes = max_content_bytes
        self.near_duplicates = near_duplicates
        self.policies = PolicyCache()

    async def _replay(
        self, conn: Conn, tenant_id: str, key: RequestKey | None
    ) -> dict[str, Any] | None:
        """Claims `key` in this transaction, or returns the first outcome's record."""
        if key is None:
            return None
        prior = await store.claim_request(
            conn, tenant_id, key.request_id, key.method, key.fingerprint
        )
        if prior is None:
            return None
        if prior["method"] != key.method or prior["fingerprint"] != key.fingerprint:
            raise InvalidArgument.field("request_id", "was already used for a different request")
        result: dict[str, Any] = prior["result"]
        return result

    async def _peek(self, tenant_id: str, key: RequestKey | None) -> dict[str, Any] | None:
        if key is None:
            return None
        async with self.db.tenant_tx(tenant_id) as conn:
            return await self._peek_in(conn, key)

    async def _peek_in(self, conn: Conn, key: RequestKey | None) -> dict[str, Any] | None:
        """The first outcome of `key`, if a committed write already used it."""
        if key is None:
            return None
        prior = await store.peek_request(conn, key.request_id)
        if prior is None:
            return None
        if prior["method"] != key.method or prior["fingerprint"] != key.fingerprint:
            raise InvalidArgument.field("request_id", "was already used for a different request")
        result: dict[str, Any] = prior["result"]
        return result

    async def _memories_by_id(self, conn: Conn, ids: Sequence[str]) -> dict[str, Memory]:
        found: dict[str, Memory] = {}
        for raw in dict.fromkeys(ids):
            memory = await store.get_memory(conn, uuid.UUID(raw))
            if memory is not None:
                found[raw] = memory
        return found

    async def _replayed_memories(self, conn: Conn, ids: Sequence[str]) -> list[Memory]:
        """The memories a replayed write answers with, the one it named first: a
        retry after a purge took that one is NOT_FOUND, as a read of it would be
        (the others a purge took are left out)."""
        by_id = await self._memories_by_id(conn, ids)
        if ids[0] not in by_id:
            raise NotFound(MEMORY, memory_name(uuid.UUID(ids[0])))
        return [by_id[i] for i in ids if i in by_id]

    async def _results_from_record(
        self, conn: Conn, record: dict[str, Any]
    ) -> list[ProposalResult]:
        by_id = await self._memories_by_id(conn, [r["memory_id"] for r in record["results"]])
        results = []
        for r in record["results"]:
            memory = by_id.get(r["memory_id"])
            if memory is None:  # purged since the first attempt
                raise NotFound(MEMORY, memory_name(uuid.UUID(r["memory_id"])))
            failures = tuple(ValidationFailure(**f) for f in r["failures"])
            results.append(ProposalResult(Outcome(r["outcome"]), memory, failures))
        return results

    async def _limits_for(
        self, spaces: set[str], tenant: str
    ) -> dict[str, policy_store.WriteLimits]:
        limits: dict[str, policy_store.WriteLimits] = {}
        missing = []
        for space in spaces:
            cached = self.policies.get(tenant, space)
            if cached is None:
                missing.append(space)
            else:
                limits[space] = cached
        if missing:
            async with self.db.tenant_tx(tenant) as conn:
                for space in missing:
                    limits[space] = await policy_store.effective_policy(conn, space)
                    self.policies.put(tenant, space, limits[space])
        return limits

    async def _locked(self, conn: Conn, memory_id: uuid.UUID) -> Memory:
        memory = await store.get_memory(conn, memory_id, for_update=True)
        if memory is None:
            raise NotFound(MEMORY, memory_name(memory_id))
        return memory

    def _check_reason_and_key(self, reason: str, key: RequestKey | None, *, required: bool) -> None:
        v = Violations()
        check_reason(v, "reason", reason, required=required)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()


class _RowHeld(psycopg.Rollback):
    """A row of the purge's scope is held by another write."""


async def _hold_audit_counter(conn: Conn, space: str, session: str) -> bool:
    """Takes the tenant's audit counter with every memory of the scope locked
    (True), or takes nothing (False: a concurrent write holds one of the rows and
    may be waiting for the counter; delete the scope again, waiting for it)."""
    held = True
    async with conn.transaction():  # a savepoint: its rollback lets the counter go
        await snapshot_store.lock_audit_head(conn)
        if not await store.lock_scope(conn, space, session):
            held = False
            raise _RowHeld()
    return held


async def _delete_scope(
    conn: Conn, space: str, session: str, *, again: bool = False
) -> tuple[list[str], list[store.Purged]]:
    """Deletes a space's (or one session's) memories and what was derived from
    them in other spaces; returns every content their revisions recorded and the
    deleted memories. `again`: a later pass of the same purge, whose scans of
    derived data run only when it found memories the first pass did not."""
    if again and not await store.scope_has_memories(conn, space, session):
        # Nothing committed in the scope since: no scan of what derives from it.
        return [], []
    # Consolidate keeps the names a session mentions as ENTITY memories without a
    # session (other sessions share them): those only purged memories pointed at go.
    mentioned = await learning_store.entities_mentioned_in(conn, space, session) if session else []
    revised = await store.revision_contents(conn, space, session)
    deleted = await store.delete_memories(conn, space, session)
    orphans = await learning_store.unmentioned_consolidated_entities(conn, space, mentioned)
    if orphans:
        deleted = [*deleted, *await store.delete_memories_by_id(conn, orphans)]
    # Decisions mined from the purged sessions or quoting purged memories live in
    # their repository's space: their backing memories go too (and so, in turn,
    # do decisions quoting those).
    derived = await decision_store.memories_derived_from(
        conn, space, session, {p.id for p in deleted}
    )
    while derived:
        taken = await store.delete_memories_by_id(conn, derived)
        deleted = [*deleted, *taken]
        derived = (
            await decision_store.memories_derived_from(conn, space, session, {p.id for p in taken})
            if taken
            else []
        )
    return revised, deleted


Move = tuple[Memory, Status, dict[str, Any], str]


async def move_in_tx(
    conn: Conn,
    principal: Principal,
    plan: Sequence[Move],
    key: RequestKey | None,
    *,
    edge_creator: str = "supersession",
    audit_entries: bool = True,
) -> list[Memory]:
    """Status transitions, each (memory, new status, changes, reason), in the caller's
    transaction: checked against the state machine, with their audit rows, outbox
    entries and the live count; a supersession also gets its SUPERSEDES edge and
    closes the old fact's `valid_to` (unless `changes` sets it)."""
    tenant = principal.tenant_id
    changed: list[Memory] = []
    drafts: list[store.AuditDraft] = []
    edges: list[store.NewEdge] = []
    live_delta = 0
    for target, new_status, changes, reason in plan:
        check_transition(target.name, target.status, new_status)
        if new_status == Status.SUPERSEDED and changes.get("superseded_by"):
            edges.append(
                store.NewEdge(
                    changes["superseded_by"], target.id, "SUPERSEDES", reason, edge_creator
                )
            )
        if (
            new_status == Status.SUPERSEDED
            and target.valid_to is None
            and "valid_to" not in changes
        ):
            changes = {**changes, "valid_to": closed_at(target, None, datetime.now(UTC))}
        changed.append(
            await store.update_memory(conn, target.id, {"status": new_status.value, **changes})
        )
        drafts.append(
            store.AuditDraft(
                AuditAction.TRANSITION,
                target.id,
                target.space,
                target.status,
                new_status,
                principal.actor,
                reason,
                key.request_id if key else "",
            )
        )
        live_delta += (new_status in LIVE_STATUSES) - (target.status in LIVE_STATUSES)
    if changed:
        await store.insert_edges(conn, tenant, edges)
        await store.enqueue_outbox(conn, tenant, [m.id for m in changed], "upsert")
        await store.append_audit(conn, tenant, drafts, live_delta, entries=audit_entries)
    return changed


def closed_at(old: Memory | Proposal, new: Memory | Proposal | None, now: datetime) -> datetime:
    """When a superseded fact stopped holding: the newcomer's `valid_from` (else
    now), never before the old fact's own `valid_from`."""
    end = (new.valid_from if new is not None else None) or now
    if old.valid_from is not None and end < old.valid_from:
        return old.valid_from
    return end


async def _open_conflict(
    conn: Conn,
    principal: Principal,
    ids: Sequence[uuid.UUID],
    space: str,
    detector: str,
    reason: str,
) -> None:
    """Opens a conflict (unless these memories ever had one) with its audit row."""
    from engram_server.store import evidence as evidence_store

    opened = await evidence_store.insert_conflict(
        conn, principal.tenant_id, space, ids, detector, reason
    )
    if opened is None:
        return
    await store.append_audit(
        conn,
        principal.tenant_id,
        [
            store.AuditDraft(
                AuditAction.CONFLICT,
                ids[0],
                space,
                None,
                None,
                principal.actor,
                # The reason stays on the conflict, which a purge deletes: it can
                # quote the memories (a slot key, "100 against 500"), and the
                # audit log is append-only.
                f"conflict opened ({detector})",
                details={"conflict": opened.name, "memories": ",".join(str(i) for i in ids)},
            )
        ],
        entries=False,
    )


def _count(recorded: str | None) -> int:
    """A count kept in an attribute; a proposal may have set the attribute to
    anything, which counts as none yet."""
    try:
        return max(0, int(recorded or "0"))
    except ValueError:
        return 0


def _failed_validators(notes: Sequence[str]) -> str:
    """An audit reason for a proposal's validation notes ("validator: message"):
    the validators' names only. Their messages can quote the content (a JSON
    Schema's "'Ann Lee' is not of type 'integer'", a webhook's or a review's
    words) and the audit log outlives a purge; the memory keeps the notes."""
    if not notes:
        return "all validators passed"
    names = dict.fromkeys(note.split(": ", 1)[0] for note in notes)
    return "failed validators: " + ", ".join(names)


# Revisable fields the privacy boundary screens (and may redact).
_SCREENED_FIELDS = frozenset({"content", "source", "tags", "attributes", "structured_content"})


def _apply(memory: Memory, changes: dict[str, Any]) -> Proposal:
    """The proposal a revision amounts to: the memory with `changes` applied."""
    return memory.to_proposal(**changes)


def _columns(revised: Proposal, changes: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in changes:
        value = getattr(revised, field)
        if field == "kind":
            value = value.value
        elif field == "tags":
            value = list(value)
        out[field] = value
    return out
