"""Dream: the offline curation pass over one space (report, then apply).

The plan is deterministic (`learning.dream`). With `use_llm`, the tenant's model
reviews it under the deployment's policy text: it may veto a proposed merge and
may propose deprecating memories it judges obsolete under the policy, but only
memories of the space that are not protected, and never past the ratio cap.

In a decision space it also looks across the decisions' recorded outcomes: a
tag or directory shared by decisions that keep missing their expectations is a
"pattern" action, and applying it proposes a PATTERN memory held for review
(PENDING_CONFIRMATION), never published on its own.

Applying performs each action as its own audited change through the lifecycle
service: a merge supersedes the duplicate by the kept memory (SUPERSEDES edge), a
deprecation retracts, a tag action is a revision, a relation is a RELATED edge
with an EDGE audit entry. Each action re-reads its memory under a row lock; one
that changed since the plan (no longer ACTIVE, now protected, revised) is
skipped, and only the actions performed are returned.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from engram_server.errors import Aborted, FailedPrecondition, Unavailable, Violations
from engram_server.learning import dream as planner
from engram_server.learning.dream import PlannedAction
from engram_server.lifecycle.model import (
    Kind,
    Memory,
    Proposal,
    Status,
    memory_name,
)
from engram_server.lifecycle.model import Outcome as ProposalOutcome
from engram_server.lifecycle.validation import check_space
from engram_server.llm import ChatMessage, ChatModel, LLMError
from engram_server.llm.registry import LLMRegistry
from engram_server.platform.principal import Principal
from engram_server.services.learn import model_for
from engram_server.services.lifecycle import LifecycleService, PurgedMeanwhile, guarded
from engram_server.store import erasure as erasure_store
from engram_server.store import learning as learning_store
from engram_server.store import memories as store
from engram_server.store.erasure import ErasureGuard
from engram_server.store.postgres import Conn

MAX_POLICY_CHARS = 8000
LLM_SAMPLE = 60

REVIEW_PROMPT = """You curate an AI agent's long-term memory. You get memories of one
space and a list of proposed merges (a duplicate superseded by the memory kept).
Follow the deployment policy. Answer only a JSON object:
{"veto": [names of duplicates that must NOT be merged],
 "deprecate": [{"memory": name, "reason": str}]}
Propose a deprecation only for a memory that is clearly obsolete, wrong or useless
under the policy; when unsure, propose nothing."""


class _Deprecation(BaseModel):
    memory: str
    reason: str = Field(default="", max_length=500)


class ReviewReply(BaseModel):
    veto: list[str] = Field(default_factory=list)
    deprecate: list[_Deprecation] = Field(default_factory=list)


@dataclass(frozen=True)
class DreamOutcome:
    actions: list[PlannedAction] = field(default_factory=list)
    applied: bool = False


class DreamService:
    def __init__(self, lifecycle: LifecycleService, llm: LLMRegistry | None) -> None:
        self.lifecycle = lifecycle
        self.llm = llm

    async def dream(
        self,
        principal: Principal,
        space: str,
        dry_run: bool,
        max_ratio: float,
        policy_text: str,
        use_llm: bool,
    ) -> DreamOutcome:
        v = Violations()
        check_space(v, "space", space)
        if math.isnan(max_ratio) or not 0.0 <= max_ratio <= 1.0:
            v.add("max_deprecation_ratio", "must be in (0, 1]; 0 means the default 0.1")
        if len(policy_text) > MAX_POLICY_CHARS:
            v.add("policy_text", f"at most {MAX_POLICY_CHARS} characters")
        v.raise_if_any()
        ratio = max_ratio or planner.DEFAULT_MAX_RATIO
        tenant = principal.tenant_id
        model = await model_for(self.llm, tenant) if use_llm else None
        async with self.lifecycle.db.tenant_tx(tenant) as conn:
            # Before the memories: a pattern derived from them is not stored if
            # the space is purged meanwhile (`store.erasure`).
            guard = ErasureGuard(space, await erasure_store.current(conn, tenant, space))
            memories = await learning_store.active_memories(conn, space)
            related = await learning_store.edge_pairs(conn, [m.id for m in memories], "RELATED")
        actions = planner.plan(memories, ratio, set(related))
        if model is not None:
            actions = await self._review(model, tenant, memories, actions, ratio, policy_text)
        actions += await self._patterns(tenant, space, memories)
        if dry_run:
            return DreamOutcome(actions, False)
        done: list[PlannedAction] = []
        for action in actions:
            if await self._apply(principal, action, guard):
                done.append(action)
        return DreamOutcome(done, True)

    # --- LLM review ----------------------------------------------------------

    async def _review(
        self,
        model: ChatModel,
        tenant: str,
        memories: list[Memory],
        actions: list[PlannedAction],
        ratio: float,
        policy_text: str,
    ) -> list[PlannedAction]:
        merges = [a for a in actions if a.action == "merge"]
        shown = {m.id: m for a in merges for m in a.memories}
        for m in memories:
            if len(shown) >= LLM_SAMPLE:
                break
            shown.setdefault(m.id, m)
        lines = [
            f"{m.name} [{m.kind.value}{', protected' if planner.is_protected(m) else ''}]:"
            f" {m.content[:300]}"
            for m in shown.values()
        ]
        merge_lines = [f"{a.memories[0].name} -> kept {a.memories[1].name}" for a in merges]
        messages = [
            ChatMessage("system", REVIEW_PROMPT),
            ChatMessage(
                "user",
                f"Deployment policy:\n{policy_text or '(none)'}\n\nMemories:\n"
                + "\n".join(lines)
                + "\n\nProposed merges:\n"
                + ("\n".join(merge_lines) or "(none)"),
            ),
        ]
        try:
            reply = await model.complete_json(
                messages,
                schema=ReviewReply,
                tenant_id=tenant,
                purpose="dream",
            )
        except LLMError as error:
            raise Unavailable(f"the LLM failed during Dream: {error}") from error
        vetoed = set(reply.veto)
        kept = [a for a in actions if not (a.action == "merge" and a.memories[0].name in vetoed)]
        cap = planner.deprecation_cap(len(memories), ratio)
        used = sum(1 for a in kept if a.action in ("merge", "deprecate"))
        deprecated = {a.memories[0].id for a in kept if a.action == "merge"}
        for item in reply.deprecate:
            wanted = _id_of(item.memory)
            target = shown.get(wanted) if wanted is not None else None
            if target is None or planner.is_protected(target) or target.id in deprecated:
                continue  # only shown, unprotected memories; each once
            if used >= cap:
                break
            used += 1
            deprecated.add(target.id)
            kept.append(
                PlannedAction(
                    "deprecate",
                    (target,),
                    f"obsolete under the deployment policy: {item.reason or 'no reason given'}",
                    {"transition": "RETRACTED", "by": "llm"},
                )
            )
        # Tags and relations for a memory now deprecated are moot.
        return [
            a
            for a in kept
            if a.action in ("merge", "deprecate") or not any(m.id in deprecated for m in a.memories)
        ]

    # --- apply ---------------------------------------------------------------

    # --- patterns across decision outcomes ---------------------------------------

    async def _patterns(
        self, tenant: str, space: str, memories: list[Memory]
    ) -> list[PlannedAction]:
        """In a decision space: one "pattern" action per set of decisions that
        share a tag or a directory and keep missing their expectations
        (`decisions.patterns`); applying one proposes a PATTERN memory held for
        review."""
        from engram_server.decisions.patterns import find_patterns
        from engram_server.store import decisions as decision_store

        async with self.lifecycle.db.tenant_tx(tenant) as conn:
            rated = await decision_store.rated_in_space(conn, space)
        if not rated:
            return []
        by_id = {m.id: m for m in memories}
        out = []
        for pattern in find_patterns(rated):
            backing = tuple(by_id[d.memory_id] for d in pattern.decisions if d.memory_id in by_id)
            out.append(
                PlannedAction(
                    "pattern",
                    backing,
                    f"{pattern.description} went wrong {len(pattern.decisions)} of"
                    f" {pattern.with_outcome} times",
                    {
                        "feature": pattern.feature,
                        "decisions": [d.name for d in pattern.decisions],
                        "content": pattern.content(space),
                    },
                )
            )
        return out

    async def _pattern(
        self, principal: Principal, action: PlannedAction, guard: ErasureGuard
    ) -> bool:
        """Proposes the pattern memory held for review (PENDING_CONFIRMATION);
        not when the space was purged since its decisions were read."""
        space = action.memories[0].space if action.memories else ""
        if not space:
            return False
        decisions = [str(d) for d in action.detail.get("decisions", [])]
        proposal = Proposal(
            space=space,
            content=str(action.detail["content"]),
            kind=Kind.PATTERN,
            source="dream:decision-outcomes",
            confidence=0.6,
            importance=0.7,
            # Ungraded, like everything Engram derives: only SetEvidenceLevel and the
            # assessor grade a memory.
            tags=("pattern", "dream"),
            attributes={"pattern_of": str(action.detail["feature"])[:1024]},
            review_note=(
                f"held for review: a pattern Dream found in {len(decisions)} decision outcomes;"
                " confirm or retract it"
            ),
        )
        try:
            (result,) = await self.lifecycle.propose(
                principal, [proposal], None, within=guarded(principal.tenant_id, guard)
            )
        except PurgedMeanwhile:
            return False
        if result.memory is None:
            return False
        action.detail["pattern_memory"] = result.memory.name
        action.detail["status"] = result.memory.status.value
        return result.outcome in (ProposalOutcome.PENDING_CONFIRMATION,)

    async def _apply(
        self, principal: Principal, action: PlannedAction, guard: ErasureGuard
    ) -> bool:
        if action.action == "pattern":
            return await self._pattern(principal, action, guard)
        if action.action in ("merge", "deprecate"):
            return await self._deprecate(principal, action)
        if action.action == "tag":
            return await self._tag(principal, action)
        if action.action == "relate":
            a, b = action.memories
            async with self.lifecycle.db.tenant_tx(principal.tenant_id) as conn:
                added = await learning_store.add_edges(
                    conn,
                    principal.tenant_id,
                    [store.NewEdge(a.id, b.id, "RELATED", f"dream: {action.reason}", "dream")],
                    principal.actor,
                )
            return bool(added)
        if action.action == "conflict":
            return await self._conflict(principal, action)
        return False

    async def _conflict(self, principal: Principal, action: PlannedAction) -> bool:
        """Opens a conflict for a contradiction (unless the pair ever had one)."""
        from engram_server.services.lifecycle import _open_conflict
        from engram_server.store import evidence as evidence_store

        a, b = action.memories
        async with self.lifecycle.db.tenant_tx(principal.tenant_id) as conn:
            if await evidence_store.conflict_for(conn, [a.id, b.id]) is not None:
                return False
            for m in (a, b):
                current = await store.get_memory(conn, m.id)
                if current is None or current.status != Status.ACTIVE:
                    return False
            await _open_conflict(
                conn, principal, [a.id, b.id], a.space, "dream", f"dream: {action.reason}"
            )
        return True

    async def _deprecate(self, principal: Principal, action: PlannedAction) -> bool:
        target = action.memories[0]
        keeper = action.memories[1] if action.action == "merge" else None

        async def decide(conn: Conn, m: Memory) -> list[Any]:
            if m.status != Status.ACTIVE or planner.is_protected(m) or m.etag != target.etag:
                return []  # changed since the plan: leave it alone
            if keeper is None:
                reason = f"dream: {action.reason}"
                return [
                    (
                        m,
                        Status.RETRACTED,
                        {"retract_time": datetime.now(UTC), "retraction_reason": reason},
                        reason,
                    )
                ]
            kept = await store.get_memory(conn, keeper.id)
            if kept is None or kept.status != Status.ACTIVE:
                return []
            return [(m, Status.SUPERSEDED, {"superseded_by": keeper.id}, f"dream: {action.reason}")]

        # The lifecycle's one audited transition transaction (row lock, state
        # machine check, SUPERSEDES edge, outbox, audit).
        changed = await self.lifecycle.apply_transition(principal, target.id, None, decide)
        return bool(changed)

    async def _tag(self, principal: Principal, action: PlannedAction) -> bool:
        memory = action.memories[0]
        added = [str(t) for t in action.detail.get("tags_added", [])]
        try:
            await self.lifecycle.revise(
                principal, memory.id, memory.etag, {"tags": (*memory.tags, *added)}, None
            )
        except (Aborted, FailedPrecondition):
            return False  # revised, deprecated or made invalid since the plan
        return True


def _id_of(name: str) -> uuid.UUID | None:
    raw = name.strip().removeprefix("memories/")
    try:
        return uuid.UUID(raw)
    except ValueError:
        return None


__all__ = ["DreamOutcome", "DreamService", "memory_name"]
