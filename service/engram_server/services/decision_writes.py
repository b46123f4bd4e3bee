"""What every DecisionsService write shares: a decision's backing memory (its
text, proposed through the lifecycle write path, screened once) and the storing
of drafts as decisions, found again by identity or created."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

from engram_server.decisions.model import Alternative, Anchor, Draft, Evidence
from engram_server.errors import FailedPrecondition, PreconditionViolation
from engram_server.lifecycle.model import Kind, Memory, Proposal
from engram_server.lifecycle.model import Outcome as ProposalOutcome
from engram_server.platform.principal import Principal
from engram_server.privacy import Screened, default_boundary
from engram_server.services.decision_core import DecisionsCore
from engram_server.services.decision_inputs import MAX_MEMORY_CHARS
from engram_server.services.lifecycle import InTransaction, guarded, hold_erasure_epoch
from engram_server.store import decisions as store
from engram_server.store.erasure import ErasureGuard


def memory_text(
    repository: str,
    title: str,
    statement: str,
    rationale: str,
    alternatives: Sequence[Alternative],
    evidence: Sequence[Evidence],
    anchors: Sequence[Anchor],
    when: datetime,
    first_commit: str,
) -> str:
    """The backing memory's content: what recall matches a question against."""
    parts = [title.rstrip(".") + "."]
    if statement and statement != title:
        parts.append(statement)
    if rationale:
        parts.append(f"Why: {rationale[:800]}")
    if alternatives:
        parts.append("Alternatives considered: " + "; ".join(a.description for a in alternatives))
    if evidence:
        parts.append(
            "Evidence: " + " | ".join(" ".join(e.quote.split())[:200] for e in evidence[:3])
        )
    places = list(dict.fromkeys(f"{a.path} {a.symbol}".strip() for a in anchors))[:6]
    if places:
        parts.append("Code: " + ", ".join(places))
    parts.append(origin_line(repository, when, first_commit))
    return "\n".join(parts)[:MAX_MEMORY_CHARS]


def origin_line(repository: str, when: datetime, first_commit: str) -> str:
    """The memory's last line: the repository, the date and the first commit."""
    origin = f"{repository}, {when.date().isoformat()}"
    if first_commit:
        origin += f", commit {first_commit[:12]}"
    return f"({origin})"


class DecisionWrites(DecisionsCore):
    """Backing memories and stored drafts, shared by ingest and stated decisions."""

    async def _propose(
        self,
        principal: Principal,
        repository: str,
        space: str,
        drafts: dict[str, Draft],
        identities: Sequence[str],
        session: str = "",
        *,
        screened: bool = False,
        source_space: str = "",
        within: InTransaction | None = None,
    ) -> tuple[dict[str, Memory | None], dict[str, str]]:
        """Backing memories for new decisions, one batch proposal; and why each
        refused one was refused.

        `screened`: the drafts come from commits `_screen` screened for `space`
        (every text of theirs: message, excerpts, paths, sections), so the
        lifecycle does not screen their memories a second time. What the memory
        adds is checked here: the repository name, and the joins between the
        screened pieces (the text without its origin line, screened whole as an
        atom, with the repository appended); the origin line's date and
        abbreviated sha are formatted here from a timestamp and a checked hex
        sha. A memory whose check finds anything goes through the lifecycle's
        full screen as any proposal does.

        `source_space`: the drafts were mined from `session` of that space; the
        memories say so, for a purge of that space or session to find them."""
        if not identities:
            return {}, {}
        boundary = default_boundary()
        clean_repository = screened and boundary.screen(repository, "repository") == Screened(
            repository
        )
        proposals = []
        prescreened: set[int] = set()
        for n, identity in enumerate(identities):
            d = drafts[identity]
            proposals.append(
                Proposal(
                    space=space,
                    content=memory_text(
                        repository,
                        d.title,
                        d.statement,
                        d.rationale,
                        d.alternatives,
                        d.evidence,
                        d.anchors,
                        d.decision_time,
                        d.commits[0] if d.commits else "",
                    ),
                    kind=Kind.DECISION,
                    session=session,
                    source=f"git:{d.commits[0]}" if d.commits else f"decision:{d.origin.value}",
                    confidence=0.9 if d.rationale else 0.7,
                    importance=0.7 if d.rationale else 0.5,
                    tags=tuple(dict.fromkeys(("decision", *d.tags)))[:16],
                    attributes={
                        "repository": repository[:1024],
                        "decision_identity": identity,
                        **(
                            {"source_space": source_space, "source_session": session}
                            if source_space
                            else {}
                        ),
                    },
                )
            )
            if clean_repository:
                content = proposals[-1].content
                origin = origin_line(repository, d.decision_time, d.commits[0] if d.commits else "")
                if content.endswith("\n" + origin):
                    body = content[: -len(origin)] + f"({repository})"
                    if boundary.screen(body, "content") == Screened(body):
                        prescreened.add(n)
        results = await self.lifecycle.propose(
            principal,
            proposals,
            None,
            field_prefix="decisions",
            batch=True,
            prescreened=frozenset(prescreened),
            within=within,
        )
        out: dict[str, Memory | None] = {}
        refusals: dict[str, str] = {}
        for identity, r in zip(identities, results, strict=True):
            stored = r.outcome in (
                ProposalOutcome.ACCEPTED,
                ProposalOutcome.PENDING_CONFIRMATION,
                ProposalOutcome.DUPLICATE,
                ProposalOutcome.REINFORCED,
            )
            out[identity] = r.memory if stored and r.memory is not None else None
            if out[identity] is None:
                why = "; ".join(f"{f.validator}: {f.message}" for f in r.failures)
                refusals[identity] = (
                    f"the decision's memory was refused ({why or r.outcome.value.lower()})"
                )
        return out, refusals

    async def _store_drafts(
        self,
        principal: Principal,
        repository: str,
        space: str,
        drafts: Sequence[Draft],
        session: str = "",
        source_space: str = "",
        guard: ErasureGuard | None = None,
    ) -> tuple[list[uuid.UUID], int]:
        """Stored decisions for stated drafts (found again by identity, or created
        with their backing memories); the ids in order, and how many are new.

        `guard`: the erasure epoch of the space the drafts were read from, taken
        before they were; both writes refuse (ABORTED) once a purge of it ran."""
        tenant = principal.tenant_id
        by_identity = {d.identity: d for d in drafts}
        async with self.db.tenant_tx(tenant) as conn:
            held = await store.by_identity(conn, repository, list(by_identity))
        new = [i for i in by_identity if i not in held]
        memories, refusals = await self._propose(
            principal,
            repository,
            space,
            by_identity,
            new,
            session,
            source_space=source_space,
            within=guarded(tenant, guard) if guard is not None else None,
        )
        ids = {i: d.id for i, d in held.items()}
        created = 0
        async with self.db.tenant_tx(tenant) as conn:
            if guard is not None:
                # A purge since the memories were written took them along.
                await hold_erasure_epoch(conn, tenant, guard)
            linked = await store.by_memories(
                conn, [m.id for m in memories.values() if m is not None]
            )
            rows: list[store.NewDecision] = []
            anchors: list[tuple[uuid.UUID, Anchor]] = []
            for identity in new:
                memory = memories.get(identity)
                if memory is None:
                    raise FailedPrecondition(
                        refusals.get(identity, "the decision's memory was not stored"),
                        [PreconditionViolation("POLICY", space, "decision memory refused")],
                    )
                if memory.id in linked:
                    ids[identity] = linked[memory.id].id
                    continue
                d = by_identity[identity]
                decision_id = uuid.uuid4()
                ids[identity] = decision_id
                created += 1
                rows.append(
                    store.NewDecision(
                        decision_id,
                        repository,
                        identity,
                        space,
                        memory.id,
                        d.title,
                        d.statement,
                        d.rationale,
                        d.question,
                        d.alternatives,
                        d.evidence,
                        d.commits,
                        d.decision_time,
                        d.author or principal.actor,
                        d.tags,
                        d.origin,
                        d.expectations,
                    )
                )
                anchors.extend((decision_id, a) for a in d.anchors)
            await store.insert_decisions(conn, tenant, rows)
            await store.save_anchors(conn, tenant, repository, anchors)
        return [ids[d.identity] for d in drafts], created
