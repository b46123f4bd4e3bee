"""Operator maintenance: repairs the server cannot make on its own while serving.

`attribute_session_decisions` finds the decisions IngestSession mined before it
recorded where a session came from (`source_space` / `source_session` on the
decision's memory). A purge finds the decisions derived from a space or session
by those attributes, so such decisions outlive the erasure of the conversation
they quote. Each one is

- re-attributed, when its session still exists in exactly one space that still
  holds the decision's words: the memory records the session's name, and its
  title is the sentence the session said, so the space is the one whose session
  of that name (a working-memory buffer in Redis, or memories of the session
  outside the decision spaces) contains that sentence. A later purge of that
  space or session then takes the decision along;
- removed otherwise, deleted as a purge deletes a memory (revisions, snapshot
  copies, cached vectors, index points; the decision, its anchors and commit
  links with it), with a PURGE entry in the audit log: the session is gone (so
  the conversation it quotes may already have been erased), or no space's session
  holds its words, or several do.

What remains impossible: a decision whose session was cleared or purged before
the repair cannot be told from one whose session a purge should have taken, so
every such decision goes (IngestSession on a session that still exists mines it
again); a session whose words several spaces hold cannot be attributed; and the
repair cannot bring back an erasure that already missed a decision: it only stops
the decision from outliving the next one.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from engram_server.decisions.model import decision_name
from engram_server.lifecycle.model import LIVE_STATUSES, AuditAction, memory_name
from engram_server.services.indexing import cache_keys
from engram_server.store import maintenance as maintenance_store
from engram_server.store import memories as store
from engram_server.store import snapshots as snapshot_store
from engram_server.store import tenants as tenant_store
from engram_server.store.embedding_cache import forget_in
from engram_server.store.postgres import Database
from engram_server.store.redis import tenant_prefix
from engram_server.store.working_memory import _enc, parse_entry

ACTOR = "engram maintenance"
REATTRIBUTED = "reattributed"
REMOVED = "removed"


@dataclass(frozen=True)
class SessionDecisionRepair:
    """What the repair did (or would do, without `apply`) to one decision."""

    tenant: str
    decision: str  # decisions/{id}
    memory: str  # memories/{id}
    session: str
    action: str  # REATTRIBUTED or REMOVED
    source_space: str  # the space it is attributed to ("" when removed)
    why: str


class SessionLookup:
    """Where a session still exists: buffers in Redis (when a client is given)."""

    def __init__(self, redis: Any | None) -> None:
        self.redis = redis

    async def buffer_texts(self, tenant: str, session: str) -> dict[str, list[str]]:
        """The messages of every buffer of `session`, per space."""
        if self.redis is None:
            return {}
        prefix = f"{tenant_prefix(tenant)}wm:s:"
        suffix = f":{_enc(session)}:msgs"
        out: dict[str, list[str]] = {}
        # Encoded names hold no glob characters (`*`, `?`, `[` are percent-encoded).
        async for key in self.redis.scan_iter(match=f"{prefix}*{suffix}", count=500):
            text = key.decode() if isinstance(key, bytes) else str(key)
            space = unquote(text[len(prefix) : -len(suffix)])
            entries = await self.redis.lrange(key, 0, -1)
            out[space] = [str(parse_entry(e).body.get("content", "")) for e in entries]
        return out


def _flat(text: str) -> str:
    return " ".join(text.split())


async def attribute_session_decisions(
    db: Database,
    lookup: SessionLookup,
    *,
    tenants: Sequence[str] = (),
    apply: bool = False,
) -> list[SessionDecisionRepair]:
    """Finds (and with `apply`, repairs) the unattributed session decisions of
    the given tenants (every tenant when none is given)."""
    if not tenants:
        tenants = await _all_tenants(db)
    out: list[SessionDecisionRepair] = []
    for tenant in tenants:
        out.extend(await _repair_tenant(db, lookup, tenant, apply))
    return out


async def _all_tenants(db: Database) -> list[str]:
    found: list[str] = []
    after: str | None = None
    while True:
        async with db.platform_tx() as conn:
            page = await tenant_store.list_tenants(conn, after, 500)
        found.extend(t.tenant_id for t in page)
        if len(page) < 500:
            return found
        after = page[-1].tenant_id


async def _repair_tenant(
    db: Database, lookup: SessionLookup, tenant: str, apply: bool
) -> list[SessionDecisionRepair]:
    async with db.tenant_tx(tenant) as conn:
        found = await maintenance_store.unattributed_session_decisions(conn)
        stored = {
            session: await maintenance_store.session_texts(conn, session)
            for session in {d.session for d in found if d.session}
        }
    buffered = {session: await lookup.buffer_texts(tenant, session) for session in stored}
    plans: list[SessionDecisionRepair] = []
    for d in found:
        texts: dict[str, list[str]] = {}
        for source in (stored.get(d.session, {}), buffered.get(d.session, {})):
            for space, contents in source.items():
                texts.setdefault(space, []).extend(contents)
        texts.pop(d.space, None)
        words = _flat(d.title)
        holding = sorted(s for s, contents in texts.items() if words in _flat(" ".join(contents)))
        if len(holding) == 1:
            source_space = holding[0]
            action, why = REATTRIBUTED, f"session {d.session!r} of {source_space!r} holds it"
        else:
            source_space, action = "", REMOVED
            if not texts:
                why = f"session {d.session!r} no longer exists"
            elif not holding:
                why = f"no session {d.session!r} holds its words"
            else:
                why = f"sessions {d.session!r} of {len(holding)} spaces hold its words"
        plans.append(
            SessionDecisionRepair(
                tenant,
                decision_name(d.decision_id),
                memory_name(d.memory_id),
                d.session,
                action,
                source_space,
                why,
            )
        )
    if apply and plans:
        await _apply(db, tenant, found, plans)
    return plans


async def _apply(
    db: Database,
    tenant: str,
    found: Sequence[maintenance_store.SessionDecision],
    plans: Sequence[SessionDecisionRepair],
) -> None:
    doomed: list[uuid.UUID] = []
    async with db.tenant_tx(tenant) as conn:
        for d, plan in zip(found, plans, strict=True):
            if plan.action == REATTRIBUTED:
                await maintenance_store.attribute_source(
                    conn, d.memory_id, plan.source_space, d.session
                )
            else:
                doomed.append(d.memory_id)
        if not doomed:
            return
        # As a purge deletes: the memory (its decision, anchors and commit links
        # go with it), its revisions, snapshot copies, cached vectors, index points.
        revised = await maintenance_store.revision_contents_of(conn, doomed)
        deleted = await store.delete_memories_by_id(conn, doomed)
        await snapshot_store.forget_copies(conn, [p.id for p in deleted])
        await store.enqueue_outbox(conn, tenant, [p.id for p in deleted], "delete")
        await store.forget_proposal_failures(conn, [p.id for p in deleted])
        stale = {k for c in (*revised, *(p.content for p in deleted)) for k in cache_keys(c)}
        await forget_in(conn, tenant, sorted(stale))
        live = sum(1 for p in deleted if p.status in LIVE_STATUSES)
        space_of = {d.memory_id: d.space for d in found}
        await store.append_audit(
            conn,
            tenant,
            [
                store.AuditDraft(
                    AuditAction.PURGE,
                    p.id,
                    space_of.get(p.id, ""),
                    None,
                    None,
                    ACTOR,
                    "purged a decision mined from a session that can no longer be attributed",
                )
                for p in deleted
            ],
            -live,
        )
