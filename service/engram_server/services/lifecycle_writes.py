"""Proposals, the write path's main door: screening, validators, deduplication,
reinforcement, slot supersession and quotas, written in one transaction each and
retried when a concurrent writer trips a unique index."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from psycopg import AsyncCursor

from engram_server.errors import Aborted, NotFound, PermissionDenied, ResourceExhausted, Violations
from engram_server.lifecycle.model import (
    EVIDENCE_ORDER,
    LIVE_STATUSES,
    SLOT_MUST_BE_EMPTY,
    AuditAction,
    EvidenceLevel,
    Memory,
    Outcome,
    Proposal,
    ProposalResult,
    Status,
    ValidationFailure,
    memory_name,
    new_memory_id,
)
from engram_server.lifecycle.validation import MAX_BATCH, check_proposal, check_request_id
from engram_server.lifecycle.validators import outcome_status, run_validators
from engram_server.platform.principal import SCOPE_ADMIN, SCOPE_OPERATOR, Principal
from engram_server.services.lifecycle_core import (
    _INDEXED_STATUSES,
    DEDUP_OFF_PREFIX,
    MAX_SOURCES_CHARS,
    MEMORY,
    RACY_CONSTRAINTS,
    REINFORCEMENT_STEP,
    WRITE_ATTEMPTS,
    DedupSlot,
    InTransaction,
    LifecycleCore,
    RequestKey,
    ResultsHook,
    _count,
    _failed_validators,
    _open_conflict,
    _results_record,
    _SpeculationMissed,
    _WriteRace,
    closed_at,
    dedup_key,
)
from engram_server.services.privacy_gate import screen_proposals
from engram_server.store import memories as store
from engram_server.store import policies as policy_store
from engram_server.store.postgres import Conn


class LifecycleWrites(LifecycleCore):
    """Proposals: the write path for new memories."""

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
