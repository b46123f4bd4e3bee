"""PoolService's publishing: PublishMemory through the pool's gate, withdrawal,
review, reading publications, and the publishers' trust (pool_access.py says how
access is checked and in which order writers lock)."""

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from engram.v1 import pool_pb2
from psycopg.types.json import Jsonb

from engram_server.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from engram_server.lifecycle.model import AuditAction, memory_name
from engram_server.platform.principal import SCOPE_READ, SCOPE_WRITE, Principal
from engram_server.pools import model
from engram_server.pools.model import Gate, GateInput, Role
from engram_server.services.lifecycle import RequestKey
from engram_server.services.paging import decode_token, encode_token, filter_fingerprint, page_size
from engram_server.services.pool_access import (
    LIVE_STATES,
    TRUST_COLUMNS,
    PoolAccess,
    caller_role,
    fetch_all,
    fetch_one,
    findings_to_proto,
    lock_audit,
    privacy_findings,
    publication_to_proto,
    publisher_trust,
    trust_to_proto,
)
from engram_server.store import memories as store
from engram_server.store.memories import AuditDraft
from engram_server.store.postgres import Conn


class PoolPublishing(PoolAccess):
    """PublishMemory ... ListAgentTrusts: publications, reviews and trust."""

    # -- publishing ------------------------------------------------------------

    async def _after_published(
        self, conn: Conn, tenant: str, pool_id: str, pub: dict[str, Any]
    ) -> None:
        """A publication became PUBLISHED: move its slot, tell its topic, count it."""
        row = await fetch_one(
            conn,
            "SELECT engram_pool_slot_sync(%s, %s, %s) AS displaced",
            (tenant, pool_id, pub["slot"]),
        )
        displaced = row["displaced"] if row else None
        if displaced is not None and displaced != pub["id"]:
            await conn.execute(
                "SELECT engram_pool_topic_event(%s, %s, %s, 'REPLACED')",
                (tenant, pool_id, displaced),
            )
        await conn.execute(
            "SELECT engram_pool_topic_event(%s, %s, %s, 'PUBLISHED')", (tenant, pool_id, pub["id"])
        )
        await conn.execute(
            "INSERT INTO pool_trust AS t (tenant_id, pool_id, principal, published_count)"
            " VALUES (%s, %s, %s, 1) ON CONFLICT (tenant_id, pool_id, principal) DO UPDATE"
            " SET published_count = t.published_count + 1, update_time = now()",
            (tenant, pool_id, pub["publisher"]),
        )
        await store.enqueue_outbox(conn, tenant, [pub["memory_id"]], "upsert")

    async def _audit_publication(
        self,
        conn: Conn,
        tenant: str,
        principal: Principal,
        memory_id: uuid.UUID,
        space: str,
        pool_id: str,
        publication: str,
        event: str,
        reason: str,
        key: RequestKey | None,
    ) -> None:
        details = {"pool": model.pool_name(pool_id), "event": event}
        if publication:
            details["publication"] = publication
        await store.append_audit(
            conn,
            tenant,
            [
                AuditDraft(
                    AuditAction.PUBLICATION,
                    memory_id,
                    space,
                    None,
                    None,
                    principal.actor,
                    reason,
                    key.request_id if key else "",
                    details,
                )
            ],
            entries=False,
        )

    async def publish(
        self,
        principal: Principal,
        pool_id: str,
        memory_id: uuid.UUID,
        topic: str,
        visibility: str,
        key: RequestKey | None,
    ) -> pool_pb2.PublishMemoryResponse:
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.PublishMemoryResponse:
            mrow = await fetch_one(conn, store.GET_MEMORY_SQL + " FOR SHARE", (memory_id,))
            # The pool row before the membership rows (DeletePool's order).
            pool, role = await self._authorise_locked(
                conn, principal, pool_id, Role.WRITER, "PublishMemory"
            )
            if not principal.has(SCOPE_READ):
                raise PermissionDenied(
                    "publishing needs the 'read' scope: only memories the caller could read",
                    SCOPE_READ,
                )
            if mrow is None:
                raise NotFound("memory", memory_name(memory_id))
            memory = store.row_to_memory(mrow)
            chosen = visibility or pool["default_visibility"]
            if chosen == "TENANT" and role < Role.OWNER:
                raise PermissionDenied("publishing with TENANT visibility needs the OWNER role")
            await lock_audit(conn)
            existing = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND memory_id = %s"
                " AND state IN ('PUBLISHED', 'PENDING_REVIEW')",
                (pool_id, memory_id),
            )
            if existing is not None:
                out = pool_pb2.PublishMemoryResponse(
                    outcome=pool_pb2.PUBLISH_OUTCOME_ALREADY_PUBLISHED,
                    publication=publication_to_proto(existing),
                )
                return out
            trust = await publisher_trust(conn, pool_id, principal.actor)
            findings = model.evaluate_gate(
                Gate.from_json(pool["gate"]),
                GateInput(
                    status=memory.status.value,
                    kind=memory.kind.value,
                    confidence=memory.confidence,
                    importance=memory.importance,
                    evidence_level=memory.evidence_level.value,
                    trust=trust,
                    privacy=privacy_findings(memory.content, memory.source),
                ),
            )
            found = [f.to_json() for f in findings]
            if any(f.refuses for f in findings):
                await self._audit_publication(
                    conn,
                    tenant,
                    principal,
                    memory.id,
                    memory.space,
                    pool_id,
                    "",
                    "refused",
                    "; ".join(f.message for f in findings if f.refuses),
                    key,
                )
                out = pool_pb2.PublishMemoryResponse(
                    outcome=pool_pb2.PUBLISH_OUTCOME_REFUSED, findings=findings_to_proto(found)
                )
                return out
            state = "PENDING_REVIEW" if findings else "PUBLISHED"
            publication_id = uuid.uuid4()
            pub = await fetch_one(
                conn,
                "INSERT INTO publications (tenant_id, pool_id, id, memory_id, publisher, state,"
                " visibility, topic, slot_key, slot, utility, findings, published_time)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
                " CASE WHEN %s THEN clock_timestamp() END) RETURNING *",
                (
                    tenant,
                    pool_id,
                    publication_id,
                    memory.id,
                    principal.actor,
                    state,
                    chosen,
                    topic or memory.topic,
                    memory.slot_key,
                    memory.slot_key or memory_name(memory.id),
                    model.utility(memory.confidence, memory.importance),
                    Jsonb(found),
                    state == "PUBLISHED",
                ),
            )
            assert pub is not None
            if state == "PUBLISHED":
                await self._after_published(conn, tenant, pool_id, pub)
            name = model.publication_name(pool_id, publication_id)
            await self._audit_publication(
                conn,
                tenant,
                principal,
                memory.id,
                memory.space,
                pool_id,
                name,
                state.lower(),
                "; ".join(f.message for f in findings),
                key,
            )
            out = pool_pb2.PublishMemoryResponse(
                outcome=(
                    pool_pb2.PUBLISH_OUTCOME_PUBLISHED
                    if state == "PUBLISHED"
                    else pool_pb2.PUBLISH_OUTCOME_HELD_FOR_REVIEW
                ),
                publication=publication_to_proto(pub),
                findings=findings_to_proto(found),
            )
            return out

        return await self._write(principal, key, pool_pb2.PublishMemoryResponse, write)

    async def unpublish(
        self,
        principal: Principal,
        pool_id: str,
        publication_id: uuid.UUID,
        reason: str,
        key: RequestKey | None,
    ) -> pool_pb2.Publication:
        if len(reason) > model.MAX_TEXT:
            raise InvalidArgument.field("reason", f"at most {model.MAX_TEXT} characters")
        tenant = principal.tenant_id

        async def write(conn: Conn) -> pool_pb2.Publication:
            _, role = await self._authorise_locked(
                conn, principal, pool_id, Role.READER, "UnpublishMemory"
            )
            await lock_audit(conn)
            pub = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND id = %s FOR UPDATE",
                (pool_id, publication_id),
            )
            name = model.publication_name(pool_id, publication_id)
            if pub is None or not self._can_see(pub, role, principal):
                raise NotFound("publication", name)
            mine = pub["publisher"] in model.identities(principal)
            if not mine and role < Role.OWNER:
                raise PermissionDenied("only its publisher or an owner may withdraw a publication")
            if not mine and not principal.has(SCOPE_WRITE):
                raise PermissionDenied("this API key lacks the 'write' scope", SCOPE_WRITE)
            if pub["state"] not in LIVE_STATES:
                raise FailedPrecondition(
                    f"publication {name} is {pub['state']}; only live ones can be withdrawn"
                )
            updated = await fetch_one(
                conn,
                "UPDATE publications SET state = 'WITHDRAWN', withdraw_reason = %s,"
                " update_time = clock_timestamp() WHERE pool_id = %s AND id = %s RETURNING *",
                (reason or "withdrawn", pool_id, publication_id),
            )
            assert updated is not None
            if pub["state"] == "PUBLISHED":
                await conn.execute(
                    "SELECT engram_pool_slot_sync(%s, %s, %s)", (tenant, pool_id, pub["slot"])
                )
                await conn.execute(
                    "SELECT engram_pool_topic_event(%s, %s, %s, 'WITHDRAWN')",
                    (tenant, pool_id, publication_id),
                )
                await store.enqueue_outbox(conn, tenant, [pub["memory_id"]], "upsert")
            mrow = await fetch_one(
                conn, "SELECT space FROM memories WHERE id = %s", (pub["memory_id"],)
            )
            await self._audit_publication(
                conn,
                tenant,
                principal,
                pub["memory_id"],
                mrow["space"] if mrow else "",
                pool_id,
                name,
                "withdrawn",
                reason,
                key,
            )
            out = publication_to_proto(updated)
            return out

        return await self._write(principal, key, pool_pb2.Publication, write)

    async def review(
        self,
        principal: Principal,
        pool_id: str,
        publication_id: uuid.UUID,
        approve: bool,
        note: str,
        key: RequestKey | None,
    ) -> pool_pb2.Publication:
        if len(note) > model.MAX_TEXT:
            raise InvalidArgument.field("note", f"at most {model.MAX_TEXT} characters")
        tenant = principal.tenant_id
        name = model.publication_name(pool_id, publication_id)

        async def write(conn: Conn) -> pool_pb2.Publication:
            peek = await fetch_one(
                conn,
                "SELECT memory_id FROM publications WHERE pool_id = %s AND id = %s",
                (pool_id, publication_id),
            )
            if peek is not None:  # memory rows first (lock order)
                await conn.execute(store.GET_MEMORY_SQL + " FOR SHARE", (peek["memory_id"],))
            await self._authorise_locked(conn, principal, pool_id, Role.OWNER, "ReviewPublication")
            await lock_audit(conn)
            pub = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND id = %s FOR UPDATE",
                (pool_id, publication_id),
            )
            if pub is None:
                raise NotFound("publication", name)
            if pub["state"] != "PENDING_REVIEW":
                raise FailedPrecondition(
                    f"publication {name} is {pub['state']}, not PENDING_REVIEW;"
                    " only held publications are reviewed"
                )
            mrow = await fetch_one(
                conn, "SELECT status, space FROM memories WHERE id = %s", (pub["memory_id"],)
            )
            if approve and (mrow is None or mrow["status"] != "ACTIVE"):
                raise FailedPrecondition(f"the memory of {name} is no longer ACTIVE")
            updated = await fetch_one(
                conn,
                "UPDATE publications SET state = %s, reviewer = %s, review_note = %s,"
                " update_time = clock_timestamp(),"
                " published_time = CASE WHEN %s THEN clock_timestamp() ELSE published_time END"
                " WHERE pool_id = %s AND id = %s RETURNING *",
                (
                    "PUBLISHED" if approve else "REJECTED",
                    principal.actor,
                    note,
                    approve,
                    pool_id,
                    publication_id,
                ),
            )
            assert updated is not None
            if approve:
                await self._after_published(conn, tenant, pool_id, updated)
            await self._audit_publication(
                conn,
                tenant,
                principal,
                pub["memory_id"],
                mrow["space"] if mrow else "",
                pool_id,
                name,
                "approved" if approve else "rejected",
                note,
                key,
            )
            out = publication_to_proto(updated)
            return out

        return await self._write(principal, key, pool_pb2.Publication, write)

    @staticmethod
    def _can_see(pub: dict[str, Any], role: int, principal: Principal) -> bool:
        """Whether a caller with `role` may read this publication."""
        if pub["visibility"] not in model.visible_to(role):
            return False
        if pub["state"] in ("PENDING_REVIEW", "REJECTED"):
            return role >= Role.OWNER or pub["publisher"] in model.identities(principal)
        if role == 0:  # a TENANT publication read by a non-member: only while live
            return bool(pub["state"] == "PUBLISHED")
        return True

    async def get_publication(
        self, principal: Principal, pool_id: str, publication_id: uuid.UUID
    ) -> pool_pb2.Publication:
        """Members within the publication's visibility; anyone of the tenant with
        `read` for a live TENANT publication. NOT_FOUND for everyone else."""
        name = model.publication_name(pool_id, publication_id)
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            role = await caller_role(conn, principal, pool_id)
            pub = await fetch_one(
                conn,
                "SELECT * FROM publications WHERE pool_id = %s AND id = %s",
                (pool_id, publication_id),
            )
        if not principal.has(SCOPE_READ) or pub is None or not self._can_see(pub, role, principal):
            raise NotFound("publication", name)
        return publication_to_proto(pub)

    async def list_publications(
        self,
        principal: Principal,
        pool_id: str,
        states: Sequence[str],
        topic: str,
        publisher: str,
        memory_id: uuid.UUID | None,
        requested_size: int,
        token: str,
    ) -> pool_pb2.ListPublicationsResponse:
        size = page_size(requested_size)
        wanted = list(states) or list(LIVE_STATES)
        fingerprint = filter_fingerprint(
            "publications", pool_id, sorted(wanted), topic, publisher, str(memory_id or "")
        )
        position = decode_token(token, fingerprint)
        after: tuple[datetime, uuid.UUID] | None = None
        if position is not None:
            try:
                after = (datetime.fromisoformat(position["t"]), uuid.UUID(position["i"]))
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            _, role = await self._authorise(
                conn, principal, pool_id, Role.READER, "ListPublications", manage=False
            )
            see_all_held = role >= Role.OWNER
            rows = await fetch_all(
                conn,
                "SELECT * FROM publications WHERE pool_id = %(pool)s AND state = ANY(%(states)s)"
                " AND visibility = ANY(%(vis)s)"
                " AND (%(all_held)s OR state NOT IN ('PENDING_REVIEW', 'REJECTED')"
                "      OR publisher = ANY(%(ids)s))"
                " AND (%(topic)s = '' OR topic = %(topic)s)"
                " AND (%(publisher)s = '' OR publisher = %(publisher)s)"
                " AND (%(memory)s::uuid IS NULL OR memory_id = %(memory)s::uuid)"
                " AND (%(after_t)s::timestamptz IS NULL"
                "      OR (create_time, id) < (%(after_t)s, %(after_i)s::uuid))"
                " ORDER BY create_time DESC, id DESC LIMIT %(n)s",
                {
                    "pool": pool_id,
                    "states": wanted,
                    "vis": list(model.visible_to(role)),
                    "all_held": see_all_held,
                    "ids": model.identities(principal),
                    "topic": topic,
                    "publisher": publisher,
                    "memory": memory_id,
                    "after_t": after[0] if after else None,
                    "after_i": after[1] if after else None,
                    "n": size + 1,
                },
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            last = rows[-1]
            next_token = encode_token(
                {"t": last["create_time"].isoformat(), "i": str(last["id"])}, fingerprint
            )
        return pool_pb2.ListPublicationsResponse(
            publications=[publication_to_proto(r) for r in rows], next_page_token=next_token
        )

    # -- trust -----------------------------------------------------------------

    async def get_trust(
        self, principal: Principal, pool_id: str, member: str
    ) -> pool_pb2.AgentTrust:
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            await self._authorise(
                conn, principal, pool_id, Role.READER, "GetAgentTrust", manage=True
            )
            rows = await fetch_all(
                conn,
                f"SELECT x.principal, {TRUST_COLUMNS} FROM ("
                " SELECT principal FROM pool_members WHERE pool_id = %(pool)s AND id = %(member)s"
                " UNION SELECT principal FROM pool_trust WHERE pool_id = %(pool)s) x"
                " JOIN pools pl ON pl.id = %(pool)s"
                " LEFT JOIN pool_trust t ON t.pool_id = %(pool)s AND t.principal = x.principal",
                {"pool": pool_id, "member": member},
            )
        for row in rows:
            if model.member_id(row["principal"]) == member:
                return trust_to_proto(pool_id, row)
        raise NotFound("agent trust", model.member_name(pool_id, member) + "/trust")

    async def list_trusts(
        self, principal: Principal, pool_id: str, requested_size: int, token: str
    ) -> pool_pb2.ListAgentTrustsResponse:
        size = page_size(requested_size)
        fingerprint = filter_fingerprint("trusts", pool_id)
        position = decode_token(token, fingerprint)
        after_score: float | None = None
        after_principal = ""
        if position is not None:
            try:
                after_score = float(position["s"])
                after_principal = str(position["p"])
            except (KeyError, ValueError, TypeError) as exc:
                raise InvalidArgument.field(
                    "page_token", "not a page token issued by this method"
                ) from exc
        async with self.db.tenant_tx(principal.tenant_id) as conn:
            await self._authorise(
                conn, principal, pool_id, Role.READER, "ListAgentTrusts", manage=True
            )
            rows = await fetch_all(
                conn,
                f"SELECT * FROM (SELECT t.principal, {TRUST_COLUMNS} FROM pool_trust t"
                " JOIN pools pl ON pl.id = t.pool_id WHERE t.pool_id = %(pool)s) r"
                " WHERE %(s)s::float8 IS NULL OR r.trust_score < %(s)s"
                "  OR (r.trust_score = %(s)s AND r.principal > %(p)s)"
                " ORDER BY r.trust_score DESC, r.principal LIMIT %(n)s",
                {"pool": pool_id, "s": after_score, "p": after_principal, "n": size + 1},
            )
        next_token = ""
        if len(rows) > size:
            rows = rows[:size]
            next_token = encode_token(
                {"s": repr(float(rows[-1]["trust_score"])), "p": rows[-1]["principal"]}, fingerprint
            )
        return pool_pb2.ListAgentTrustsResponse(
            agent_trusts=[trust_to_proto(pool_id, r) for r in rows], next_page_token=next_token
        )
