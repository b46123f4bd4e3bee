"""The governed write path: proposals, transitions, revisions, expiry and purges.

Every change follows the same shape: validate input (nothing touched yet), run
the policy's validators outside any transaction (webhooks can be slow and must
not hold locks), then one transaction that claims the request id, writes the
change, queues derived-index work in the outbox and appends the audit rows last.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

import psycopg
from psycopg import AsyncCursor

from engram_server.errors import (
    Aborted,
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    PreconditionViolation,
    ResourceExhausted,
    Violations,
)
from engram_server.lifecycle.model import (
    EVIDENCE_ORDER,
    LIVE_STATUSES,
    REVISABLE_FIELDS,
    SLOT_MUST_BE_EMPTY,
    AuditAction,
    AuditEntry,
    EvidenceLevel,
    Memory,
    Outcome,
    Proposal,
    ProposalResult,
    Status,
    ValidationFailure,
    content_hash,
    memory_name,
    new_memory_id,
)
from engram_server.lifecycle.policy import Policy, UrlRefusal, validate_policy
from engram_server.lifecycle.states import check_transition
from engram_server.lifecycle.validation import (
    MAX_BATCH,
    check_proposal,
    check_reason,
    check_request_id,
    check_unit_interval,
)
from engram_server.lifecycle.validators import WebhookCaller, outcome_status, run_validators
from engram_server.platform.principal import SCOPE_ADMIN, SCOPE_OPERATOR, Principal
from engram_server.services.indexing import cache_keys
from engram_server.services.policy_cache import POLICY_CHANNEL, PolicyCache
from engram_server.services.privacy_gate import screen_proposals
from engram_server.store import decisions as decision_store
from engram_server.store import erasure as erasure_store
from engram_server.store import learning as learning_store
from engram_server.store import memories as store
from engram_server.store import policies as policy_store
from engram_server.store import snapshots as snapshot_store
from engram_server.store.embedding_cache import forget_in
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


class LifecycleService:
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

    # --- idempotency ---------------------------------------------------------

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

    # --- proposals -------------------------------------------------------------

    async def propose(
        self,
        principal: Principal,
        proposals: Sequence[Proposal],
        key: RequestKey | None,
        *,
        field_prefix: str = "proposal",
        batch: bool = False,
        on_results: ResultsHook | None = None,
        prescreened: frozenset[int] = frozenset(),
        within: InTransaction | None = None,
    ) -> list[ProposalResult]:
        """Screens, validates and writes `proposals` in one transaction.

        `within`: the caller's own work in that transaction (see `InTransaction`):
        for proposals derived from data read earlier, `guarded` refuses the write
        (ABORTED) if a purge of the space ran since; a conflict's MERGE resolves
        the conflict in the transaction that writes the merged memory. When the
        privacy boundary drops every proposal, nothing is written and it never runs.

        `prescreened`: positions of proposals the caller has already put through the
        privacy boundary in full (see `privacy_gate.screen_proposals`); only a
        service that built them from screened text may pass it.

        `on_results`, when given, may be called with the results before the
        transaction has finished (see `ResultsHook`); the list it gets is the one
        returned if the write completes as it expected.
        """
        v = Violations()
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        if batch and not proposals:
            v.add("proposals", "at least one proposal is required")
        if len(proposals) > MAX_BATCH:
            v.add("proposals", f"at most {MAX_BATCH} proposals per batch")
        official_at: list[str] = []
        for i, p in enumerate(proposals):
            path = f"{field_prefix}[{i}]" if batch else field_prefix
            check_proposal(v, path, p, self.max_content_bytes)
            if p.evidence_level == EvidenceLevel.OFFICIAL:
                official_at.append(f"{path}.evidence_level")
        v.raise_if_any()
        if official_at and not (principal.has(SCOPE_ADMIN) or principal.has(SCOPE_OPERATOR)):
            # A well-formed request the key may not make: a permission, not a shape.
            raise PermissionDenied(
                f"{official_at[0]}: OFFICIAL evidence may only be set with the operator or"
                " admin scope",
                SCOPE_OPERATOR,
            )

        # Privacy boundary (services/privacy_gate.py): a proposal carrying a
        # credential is dropped before anything stores or logs it; personal data
        # is redacted before validation, hashing and storage.
        gate = await screen_proposals(
            self,
            principal.tenant_id,
            proposals,
            field_prefix=field_prefix,
            batch=batch,
            prescreened=prescreened,
        )
        if not gate.changed:
            return await self._propose_screened(
                principal, proposals, key, batch=batch, on_results=on_results, within=within
            )
        written = (
            await self._propose_screened(
                principal,
                gate.kept,
                key,
                batch=batch,
                positions=gate.kept_index,
                within=within,
            )
            if gate.kept
            else []
        )
        return gate.merge(written)

    async def _propose_screened(
        self,
        principal: Principal,
        proposals: Sequence[Proposal],
        key: RequestKey | None,
        *,
        batch: bool,
        positions: Sequence[int] | None = None,
        on_results: ResultsHook | None = None,
        within: InTransaction | None = None,
    ) -> list[ProposalResult]:
        """Validators, near-duplicate checks and the write, for proposals that passed
        the privacy boundary. `positions` maps them back to the request's indexes
        (when the boundary dropped some) so errors name the caller's field."""
        tenant = principal.tenant_id
        limits = await self._limits_for({p.space for p in proposals}, tenant)
        if key is not None and any(limits[p.space].policy.webhooks for p in proposals):
            # A retry short-circuits before webhooks are called a second time.
            replay = await self._peek(tenant, key)
            if replay is not None:
                async with self.db.tenant_tx(tenant) as conn:
                    return await self._results_from_record(conn, replay)
        for i, p in enumerate(proposals):
            quota = limits[p.space].quota_max_content_bytes
            if quota and len(p.content.encode()) > quota:
                at = positions[i] if positions is not None else i
                raise ResourceExhausted(
                    f"content of {f'proposals[{at}]' if batch else 'proposal'} exceeds the"
                    f" tenant quota of {quota} bytes",
                    "max_content_bytes",
                    f"tenants/{tenant}",
                )
        failures: list[tuple[ValidationFailure, ...]] = []
        for p in proposals:
            checked = await run_validators(limits[p.space].policy, p, self.call_webhook)
            if p.review_note and not any(f.critical for f in checked):
                checked = (*checked, ValidationFailure("review", False, p.review_note))
            failures.append(checked)
        near: dict[int, uuid.UUID] = {}
        if self.near_duplicates is not None:
            for i, (p, fails) in enumerate(zip(proposals, failures, strict=True)):
                space_policy = limits[p.space].policy
                threshold = space_policy.near_duplicate_threshold
                # Reinforcement is dedup by similarity: it follows the space's dedup
                # scope (never with OFF, only within the session with SESSION).
                scope = space_policy.dedup_scope
                if threshold > 0 and not fails and not p.slot_key and scope != "OFF":
                    session = p.session if scope == "SESSION" else None
                    found = await self.near_duplicates(
                        tenant, p.space, p.content, threshold, session
                    )
                    if found is not None:
                        near[i] = found

        return await self._write_with_retries(
            principal, proposals, failures, limits, key, near, on_results, within
        )

    async def _write_with_retries(
        self,
        principal: Principal,
        proposals: Sequence[Proposal],
        failures: Sequence[tuple[ValidationFailure, ...]],
        limits: dict[str, policy_store.WriteLimits],
        key: RequestKey | None,
        near: dict[int, uuid.UUID],
        on_results: ResultsHook | None = None,
        within: InTransaction | None = None,
    ) -> list[ProposalResult]:
        """The proposals' write transaction, retried from the top after a race.

        The transaction runs pipelined: statements whose results are not read
        (revisions, edges, outbox, the idempotency record) travel with the next
        one that is, so a plain proposal costs about three round trips. Nothing in
        it catches a database error mid-way, which is what pipelining requires.
        """
        tenant = principal.tenant_id
        now = datetime.now(UTC)
        speculate = True
        for _ in range(WRITE_ATTEMPTS):
            try:
                async with self.db.tenant_tx(tenant, pipeline=True) as conn:
                    # Asked for now and read after the insert is sent: by then the
                    # answer is back, and the new rows' creation time is known
                    # without waiting for the insert.
                    clock = await store.send_transaction_now(conn)
                    replay = await self._replay(conn, tenant, key)
                    if replay is not None:
                        return await self._results_from_record(conn, replay)
                    if within is not None and within.before is not None:
                        await within.before(conn)
                    results = await self._write_proposals(
                        conn,
                        principal,
                        proposals,
                        failures,
                        limits,
                        now,
                        key,
                        near,
                        speculate,
                        clock=clock,
                        on_results=on_results,
                    )
                    if within is not None and within.after is not None:
                        await within.after(conn, results)
                    if key is not None:
                        await store.save_request_result(
                            conn, key.request_id, _results_record(results)
                        )
                return results
            except _SpeculationMissed:
                speculate = False
                continue
            except _WriteRace:
                continue
            except psycopg.errors.UniqueViolation as exc:
                if exc.diag.constraint_name not in RACY_CONSTRAINTS:
                    raise
                continue
        raise Aborted("too much contention on the same content or slot; retry the write")

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

    async def _write_proposals(
        self,
        conn: Conn,
        principal: Principal,
        proposals: Sequence[Proposal],
        failures: Sequence[tuple[ValidationFailure, ...]],
        limits: dict[str, policy_store.WriteLimits],
        now: datetime,
        key: RequestKey | None,
        near: dict[int, uuid.UUID],
        speculate: bool,
        *,
        clock: AsyncCursor[dict[str, Any]],
        on_results: ResultsHook | None = None,
    ) -> list[ProposalResult]:
        tenant = principal.tenant_id
        await self._check_dependencies(conn, proposals)
        reinforced = await self._reinforce(conn, principal, proposals, near, key)

        # Identical content already live in the space, or earlier in this batch,
        # becomes a DUPLICATE of that memory instead of a new row. When every
        # proposal would be stored live and none touches a slot or reinforces,
        # the insert's ON CONFLICT on the live-content index finds those duplicates
        # by itself (see below), so the up-front lookup is skipped: a round trip
        # saved on every plain write. Otherwise (a REJECTED row is not covered by
        # the index; supersession must not act on a duplicate) look first.
        # Content hashes normalise and hash the whole content: compute each once.
        slots = [
            (p.space, p.content_hash, dedup_key(limits[p.space].policy.dedup_scope, p))
            for p in proposals
        ]
        optimistic = not reinforced and all(
            not p.slot_key
            and p.expected_slot_holder is None
            and Status(outcome_status(fails)) in _INDEXED_STATUSES
            for p, fails in zip(proposals, failures, strict=True)
        )
        existing: dict[DedupSlot, Memory] = {}
        if not optimistic:
            existing = await self._live_by_hash(conn, slots)

        to_insert: list[store.NewMemory] = []
        first_in_batch: dict[DedupSlot, uuid.UUID] = {}
        for i, (p, fails) in enumerate(zip(proposals, failures, strict=True)):
            slot = slots[i]
            if slot in existing or slot in first_in_batch or i in reinforced:
                continue
            status = Status(outcome_status(fails))
            expire_time = p.expire_time
            if expire_time is None:
                ttl = limits[p.space].policy.ttl_for(p.kind)
                expire_time = now + timedelta(seconds=ttl) if ttl else None
            new_id = new_memory_id()
            first_in_batch[slot] = new_id
            to_insert.append(
                store.NewMemory(
                    id=new_id,
                    proposal=p,
                    agent=principal.actor,
                    status=status,
                    expire_time=expire_time,
                    validation_notes=tuple(f"{f.validator}: {f.message}" for f in fails),
                    content_hash=slot[1],
                    dedup_key=slot[2],
                )
            )

        to_insert, displaced = await self._supersede_slots(conn, principal, proposals, to_insert)
        request_id = key.request_id if key else ""
        if optimistic and speculate and to_insert:
            # The common case (plain new content, nothing displaced): every row
            # is expected to go in, so the audit rows, the outbox entries and the
            # counters are sent in the same round trip as the insert instead of
            # after reading it. Should any content turn out to be live already,
            # the transaction is abandoned and redone step by step (insert, read it,
            # look up what it skipped, then the audit).
            cursor = await store.send_insert_memories(conn, tenant, to_insert)
            drafts, edges, live_delta = self._proposal_audit(
                principal,
                [],
                [
                    (
                        n.id,
                        n.proposal.space,
                        n.status,
                        n.validation_notes,
                        n.superseded_by,
                    )
                    for n in to_insert
                ],
                request_id,
            )
            await store.insert_edges(conn, tenant, edges)
            await store.enqueue_outbox(conn, tenant, [n.id for n in to_insert], "upsert")
            await store.enqueue_assessments(
                conn,
                tenant,
                [
                    n.id
                    for n in to_insert
                    if n.status == Status.ACTIVE and limits[n.proposal.space].policy.assess_on_write
                ],
            )
            audit = await store.send_append_audit(conn, tenant, drafts, live_delta, entries=False)
            # While PostgreSQL inserts, the results are built (and handed to the
            # caller to render) from what was sent and the transaction's
            # timestamp; the inserted ids then confirm that every row went in,
            # or the write is redone.
            created = await store.read_transaction_now(clock)
            inserted = {n.id: store.new_memory_as_stored(n, created) for n in to_insert}
            results = self._results(slots, failures, first_in_batch, inserted, existing, reinforced)
            if on_results is not None:
                on_results(results)
            if await store.read_inserted_ids(cursor) != set(inserted):
                raise _SpeculationMissed
            _, live, max_live = await store.read_append_audit(audit, tenant)
            self._check_live_quota(tenant, live, max_live)
            return results
        else:
            inserted = {m.id: m for m in await store.insert_memories(conn, tenant, to_insert)}
            if len(inserted) != len(to_insert):
                skipped = [n for n in to_insert if n.id not in inserted]
                found = (
                    await self._live_by_hash(
                        conn, [(n.proposal.space, n.content_hash, n.dedup_key) for n in skipped]
                    )
                    if optimistic
                    else {}
                )
                if len(found) != len(skipped):
                    # A concurrent transaction committed identical content first (or
                    # changed it again since): start over, so that this proposal
                    # becomes a DUPLICATE of what is live then.
                    raise _WriteRace
                # Content already live (committed before this insert, or by a
                # transaction it waited for): DUPLICATEs of those memories, exactly
                # as if the lookup had run first. Nothing else was written for them.
                existing.update(found)
                for slot in found:
                    del first_in_batch[slot]
            drafts, edges, live_delta = self._proposal_audit(
                principal,
                displaced,
                [
                    (m.id, m.space, m.status, m.validation_notes, m.superseded_by)
                    for m in inserted.values()
                ],
                request_id,
            )
            await store.insert_edges(conn, tenant, edges)
            await store.enqueue_outbox(
                conn, tenant, [*(h.id for h, _ in displaced), *inserted], "upsert"
            )
            await store.enqueue_assessments(
                conn,
                tenant,
                [
                    m.id
                    for m in inserted.values()
                    if m.status == Status.ACTIVE and limits[m.space].policy.assess_on_write
                ],
            )
            _, live, max_live = await store.append_audit(
                conn, tenant, drafts, live_delta, entries=False
            )
        self._check_live_quota(tenant, live, max_live)
        return self._results(slots, failures, first_in_batch, inserted, existing, reinforced)

    @staticmethod
    def _check_live_quota(tenant: str, live: int, max_live: int) -> None:
        if max_live and live > max_live:
            raise ResourceExhausted(
                f"tenant would hold {live} live memories; the quota is {max_live}",
                "max_memories",
                f"tenants/{tenant}",
            )

    @staticmethod
    def _results(
        slots: Sequence[DedupSlot],
        failures: Sequence[tuple[ValidationFailure, ...]],
        first_in_batch: dict[DedupSlot, uuid.UUID],
        inserted: dict[uuid.UUID, Memory],
        existing: dict[DedupSlot, Memory],
        reinforced: dict[int, Memory],
    ) -> list[ProposalResult]:
        """Each proposal's outcome, in request order."""
        results: list[ProposalResult] = []
        seen: set[uuid.UUID] = set()
        for i, (slot, fails) in enumerate(zip(slots, failures, strict=True)):
            known_id = first_in_batch.get(slot)
            if i in reinforced and slot not in existing and known_id is None:
                results.append(ProposalResult(Outcome.REINFORCED, reinforced[i]))
            elif known_id is not None and known_id not in seen:
                seen.add(known_id)
                memory = inserted[known_id]
                outcome = {
                    Status.ACTIVE: Outcome.ACCEPTED,
                    Status.SUPERSEDED: Outcome.ACCEPTED,
                    Status.PENDING_CONFIRMATION: Outcome.PENDING_CONFIRMATION,
                    Status.REJECTED: Outcome.REJECTED,
                }[memory.status]
                results.append(ProposalResult(outcome, memory, fails))
            elif known_id is not None:
                results.append(ProposalResult(Outcome.DUPLICATE, inserted[known_id]))
            else:
                results.append(ProposalResult(Outcome.DUPLICATE, existing[slot]))
        return results

    def _proposal_audit(
        self,
        principal: Principal,
        displaced: Sequence[tuple[Memory, uuid.UUID]],
        written: Sequence[tuple[uuid.UUID, str, Status, tuple[str, ...], uuid.UUID | None]],
        request_id: str,
    ) -> tuple[list[store.AuditDraft], list[store.NewEdge], int]:
        """Audit rows, SUPERSEDES edges and the live-count change of a proposal
        write: `displaced` slot holders and their winners, and each written memory
        as (id, space, status, validation notes, superseded_by)."""
        drafts: list[store.AuditDraft] = []
        edges: list[store.NewEdge] = []
        live_delta = -len(displaced)
        for holder, winner in displaced:
            # No slot key: it can name a person ("dana::role"), and the audit log
            # outlives a purge; the memories themselves carry it.
            reason = f"its slot was taken by {memory_name(winner)}"
            drafts.append(
                store.AuditDraft(
                    AuditAction.TRANSITION,
                    holder.id,
                    holder.space,
                    Status.ACTIVE,
                    Status.SUPERSEDED,
                    principal.actor,
                    reason,
                    request_id,
                )
            )
            edges.append(store.NewEdge(winner, holder.id, "SUPERSEDES", reason, "supersession"))
        for memory_id, space, status, notes, superseded_by in written:
            reason = _failed_validators(notes)
            drafts.append(
                store.AuditDraft(
                    AuditAction.TRANSITION,
                    memory_id,
                    space,
                    None,
                    Status.PROPOSED,
                    principal.actor,
                    "proposed",
                    request_id,
                )
            )
            first = Status.ACTIVE if status == Status.SUPERSEDED else status
            drafts.append(
                store.AuditDraft(
                    AuditAction.TRANSITION,
                    memory_id,
                    space,
                    Status.PROPOSED,
                    first,
                    principal.actor,
                    reason,
                    request_id,
                )
            )
            if status == Status.SUPERSEDED and superseded_by is not None:
                note = f"its slot was taken by {memory_name(superseded_by)} in the same batch"
                drafts.append(
                    store.AuditDraft(
                        AuditAction.TRANSITION,
                        memory_id,
                        space,
                        Status.ACTIVE,
                        Status.SUPERSEDED,
                        principal.actor,
                        note,
                        request_id,
                    )
                )
                edges.append(
                    store.NewEdge(superseded_by, memory_id, "SUPERSEDES", note, "supersession")
                )
            if status in LIVE_STATUSES:
                live_delta += 1
        return drafts, edges, live_delta

    async def _live_by_hash(
        self, conn: Conn, slots: Sequence[DedupSlot]
    ) -> dict[DedupSlot, Memory]:
        """Live memories by (space, content hash, dedup key), for the given slots."""
        by_scope: dict[tuple[str, str], list[str]] = {}
        for space, h, key in slots:
            if not key.startswith(DEDUP_OFF_PREFIX):  # never a duplicate of anything
                by_scope.setdefault((space, key), []).append(h)
        found: dict[DedupSlot, Memory] = {}
        for (space, key), hashes in by_scope.items():
            for h, memory in (await store.find_live_by_hash(conn, space, hashes, key)).items():
                found[(space, h, key)] = memory
        return found

    async def _reinforce(
        self,
        conn: Conn,
        principal: Principal,
        proposals: Sequence[Proposal],
        near: dict[int, uuid.UUID],
        key: RequestKey | None,
    ) -> dict[int, Memory]:
        """Near-duplicate reinforcement: the ACTIVE memory a proposal nearly repeats
        gains importance and records the proposal's source, in this transaction."""
        done: dict[int, Memory] = {}
        for i, target_id in sorted(near.items()):
            target = await store.get_memory(conn, target_id, for_update=True)
            p = proposals[i]
            if target is None or target.status != Status.ACTIVE:
                continue  # changed since it was found: store the proposal normally
            if target.content_hash == p.content_hash:
                continue  # an exact duplicate, answered as DUPLICATE
            recorded = target.attributes.get("sources") or target.source
            sources = [s for s in recorded.split("; ") if s]
            if p.source and p.source not in sources:
                sources.append(p.source)
            attributes = dict(target.attributes)
            attributes["reinforcements"] = str(_count(attributes.get("reinforcements")) + 1)
            if sources:
                attributes["sources"] = "; ".join(sources)[:MAX_SOURCES_CHARS]
            importance = min(1.0, target.importance + REINFORCEMENT_STEP)
            updated = await store.update_memory(
                conn, target.id, {"importance": importance, "attributes": attributes}
            )
            await store.enqueue_outbox(conn, principal.tenant_id, [target.id], "upsert")
            await store.append_audit(
                conn,
                principal.tenant_id,
                [
                    store.AuditDraft(
                        AuditAction.REINFORCEMENT,
                        target.id,
                        target.space,
                        target.status,
                        target.status,
                        principal.actor,
                        # No quote of the proposal, nor its source (which can name a
                        # person; the memory's `sources` attribute keeps it): the
                        # audit log is append-only and outlives a purge of the space.
                        "reinforced by a near-duplicate proposal",
                        key.request_id if key else "",
                        {"importance": repr(importance)},
                    )
                ],
            )
            done[i] = updated
        return done

    async def _supersede_slots(
        self,
        conn: Conn,
        principal: Principal,
        proposals: Sequence[Proposal],
        to_insert: list[store.NewMemory],
    ) -> tuple[list[store.NewMemory], list[tuple[Memory, uuid.UUID]]]:
        """Slot-addressed supersession for a set of new memories.

        Within the batch the last ACTIVE memory for a slot wins and the earlier
        ones are stored already SUPERSEDED by it; the slot's current holder is
        superseded by the winner before the winner is inserted (the unique index
        allows one ACTIVE memory per slot). Compare-and-set proposals are checked
        against the holder here, under its row lock.
        """
        winners: dict[tuple[str, str], uuid.UUID] = {}
        for n in to_insert:
            if n.status == Status.ACTIVE and n.proposal.slot_key:
                winners[(n.proposal.space, n.proposal.slot_key)] = n.id
        if not winners and not any(p.expected_slot_holder is not None for p in proposals):
            return to_insert, []
        rewritten = [
            replace(n, status=Status.SUPERSEDED, superseded_by=winners[slot])
            if n.status == Status.ACTIVE
            and (slot := (n.proposal.space, n.proposal.slot_key)) in winners
            and winners[slot] != n.id
            else n
            for n in to_insert
        ]
        slots = {
            *winners,
            *((p.space, p.slot_key) for p in proposals if p.expected_slot_holder is not None),
        }
        by_id = {n.id: n for n in rewritten}
        now = datetime.now(UTC)
        # Bi-temporal: a memory superseded within the batch stopped holding when
        # its winner started to.
        rewritten = [
            replace(
                n,
                proposal=replace(
                    n.proposal, valid_to=closed_at(n.proposal, by_id[w].proposal, now)
                ),
            )
            if n.status == Status.SUPERSEDED
            and (w := n.superseded_by) is not None
            and n.proposal.valid_to is None
            else n
            for n in rewritten
        ]
        displaced: list[tuple[Memory, uuid.UUID]] = []
        for space, slot_key in sorted(slots):
            holder = await store.lock_slot_holder(conn, space, slot_key)
            for p in proposals:
                if (p.space, p.slot_key) != (space, slot_key) or p.expected_slot_holder is None:
                    continue
                actual: uuid.UUID | str = holder.id if holder else SLOT_MUST_BE_EMPTY
                if actual != p.expected_slot_holder:
                    shown = memory_name(holder.id) if holder else "nothing"
                    raise Aborted(
                        f"slot {slot_key} in space {space} now holds {shown}; re-read and retry"
                    )
            winner = winners.get((space, slot_key))
            if holder is not None and winner is not None:
                newcomer = by_id[winner].proposal
                changes: dict[str, Any] = {
                    "status": Status.SUPERSEDED.value,
                    "superseded_by": winner,
                }
                if holder.valid_to is None:
                    changes["valid_to"] = closed_at(holder, newcomer, now)
                await store.update_memory(conn, holder.id, changes)
                displaced.append((holder, winner))
                if EVIDENCE_ORDER[holder.evidence_level] > EVIDENCE_ORDER[newcomer.evidence_level]:
                    # The replacement stands; the conflict makes it reviewable.
                    await _open_conflict(
                        conn,
                        principal,
                        [holder.id, winner],
                        holder.space,
                        "supersession",
                        f"slot {slot_key}: a {newcomer.evidence_level.value} memory replaced a"
                        f" {holder.evidence_level.value} one",
                    )
        return rewritten, displaced

    async def _check_dependencies(self, conn: Conn, proposals: Sequence[Proposal]) -> None:
        wanted = {d for p in proposals for d in p.depends_on}
        if not wanted:
            return
        missing = wanted - await store.existing_ids(conn, wanted)
        if missing:
            first = sorted(missing)[0]
            raise NotFound(MEMORY, memory_name(first))

    # --- transitions -----------------------------------------------------------

    async def _locked(self, conn: Conn, memory_id: uuid.UUID) -> Memory:
        memory = await store.get_memory(conn, memory_id, for_update=True)
        if memory is None:
            raise NotFound(MEMORY, memory_name(memory_id))
        return memory

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

    def _check_reason_and_key(self, reason: str, key: RequestKey | None, *, required: bool) -> None:
        v = Violations()
        check_reason(v, "reason", reason, required=required)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()

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

    # --- revisions -------------------------------------------------------------

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

    # --- expiry and purge --------------------------------------------------------

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

    # --- policies ----------------------------------------------------------------

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
