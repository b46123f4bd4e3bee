"""Learn: facts from conversation turns, through the governed write path.

Every turn passes the privacy boundary first (a turn carrying a credential is
dropped whole; personal data is redacted), then either the deterministic extractor
or the tenant's LLM turns the screened turns into facts. LLM facts are verified
against the turns they cite; a fact the turns do not support is never stored as
supported: it is dropped or stored graded UNVERIFIED with confidence 0.2, the tag
`unverified` and no slot (so it cannot supersede what the user really said). All
facts of one call are one batch proposal: validators, dedup, slot supersession and
audit are the lifecycle service's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from enum import StrEnum

from engram_server.errors import (
    FailedPrecondition,
    InvalidArgument,
    PreconditionViolation,
    Unavailable,
    Violations,
)
from engram_server.learning import llm_extract
from engram_server.learning.extract import extract_facts
from engram_server.learning.model import Fact, Turn
from engram_server.lifecycle.model import Kind, Origin, Proposal, ProposalResult
from engram_server.lifecycle.validation import (
    MAX_BATCH,
    MAX_SHORT_TEXT,
    check_request_id,
    check_space,
)
from engram_server.llm import ChatModel, LLMError
from engram_server.llm.registry import LLMRegistry
from engram_server.platform.principal import Principal
from engram_server.privacy import PrivacyFinding
from engram_server.services.evidence import is_correspondence
from engram_server.services.lifecycle import LifecycleService, RequestKey
from engram_server.services.privacy_gate import screen_text
from engram_server.services.working_memory import ROLES, check_session

MAX_TURNS = 2000
MAX_TURN_BYTES = 64 * 1024
VERIFIED_CONFIDENCE = 0.7
UNVERIFIED_CONFIDENCE = 0.2
UNVERIFIED_TAG = "unverified"
LLM_SETTING = (
    "no LLM is configured for this tenant: set the tenant's LLM settings or the"
    " server-wide ENGRAM_LLM_PROVIDER / ENGRAM_LLM_MODEL, or call with use_llm=false"
)


class UnverifiedPolicy(StrEnum):
    STORE = "store"  # stored graded UNVERIFIED, low confidence, tagged, no slot
    DROP = "drop"  # not stored at all (still counted in unverified_count)


@dataclass(frozen=True)
class TurnInput:
    role: str
    content: str
    time: datetime | None = None


@dataclass(frozen=True)
class LearnOutcome:
    results: list[ProposalResult]
    findings: list[PrivacyFinding]
    unverified_count: int


def check_turns(v: Violations, turns: Sequence[TurnInput]) -> None:
    if not turns:
        v.add("turns", "at least one turn is required")
    if len(turns) > MAX_TURNS:
        v.add("turns", f"at most {MAX_TURNS} turns per call")
    for i, t in enumerate(turns[:MAX_TURNS]):
        if t.role not in ROLES:
            # As AppendMessage: the roles a conversation buffer holds.
            v.add(f"turns[{i}].role", f"must be one of {', '.join(ROLES)}")
        if not t.content.strip():
            v.add(f"turns[{i}].content", "required and must not be blank")
        elif len(t.content.encode()) > MAX_TURN_BYTES:
            v.add(f"turns[{i}].content", f"larger than the limit of {MAX_TURN_BYTES} bytes")


async def model_for(llm: LLMRegistry | None, tenant_id: str) -> ChatModel:
    """The tenant's chat model; FAILED_PRECONDITION naming the setting when none."""
    model = await llm.for_tenant(tenant_id) if llm is not None else None
    if model is None:
        raise FailedPrecondition(
            LLM_SETTING, [PreconditionViolation("LLM", "llm_provider", "no LLM configured")]
        )
    return model


async def screen_turns(
    lifecycle: LifecycleService,
    tenant_id: str,
    space: str,
    turns: Sequence[TurnInput],
    field: str = "turns",
) -> tuple[list[Turn], list[PrivacyFinding]]:
    """Turns after the privacy boundary; a dropped turn is left out (its index stays)."""
    screened: list[Turn] = []
    findings: list[PrivacyFinding] = []
    for i, t in enumerate(turns):
        result = await screen_text(
            lifecycle, tenant_id, space, t.content, f"{field}[{i}].content", sentences=True
        )
        findings.extend(result.findings)
        if result.text is not None and result.text.strip():
            screened.append(Turn(t.role.strip().lower(), result.text, i))
    return screened, findings


class LearnService:
    def __init__(
        self,
        lifecycle: LifecycleService,
        llm: LLMRegistry | None,
        unverified: UnverifiedPolicy = UnverifiedPolicy.STORE,
        llm_timeout_seconds: float | None = None,
    ) -> None:
        self.lifecycle = lifecycle
        self.llm = llm
        self.unverified = unverified
        # None: each request gets the tenant's configured LLM timeout.
        self.llm_timeout_seconds = llm_timeout_seconds

    async def learn(
        self,
        principal: Principal,
        space: str,
        session: str,
        turns: Sequence[TurnInput],
        use_llm: bool,
        key: RequestKey | None,
    ) -> LearnOutcome:
        v = Violations()
        check_space(v, "space", space)
        if session:
            # The rule AppendMessage and Consolidate apply; Learn may go without one.
            check_session(v, "session", session)
        check_turns(v, turns)
        if key is not None:
            check_request_id(v, "request_id", key.request_id)
        v.raise_if_any()
        tenant = principal.tenant_id
        model = await model_for(self.llm, tenant) if use_llm else None
        screened, findings = await screen_turns(self.lifecycle, tenant, space, turns)
        if model is not None:
            facts = await self._llm_facts(model, tenant, screened)
        else:
            facts = extract_facts(screened)
        unverified = sum(1 for f in facts if not f.verified)
        kept = [f for f in facts if f.verified or self.unverified == UnverifiedPolicy.STORE]
        proposals = [
            _proposal(f, space, session, "llm" if model else "rules", model is not None)
            for f in kept
        ]
        proposals = [
            _with_provenance(p, f, turns, model is not None)
            for p, f in zip(proposals, kept, strict=True)
        ]
        if await is_correspondence(self.lifecycle, tenant, space):
            # Claims in correspondence are events, not facts: attributed and dated.
            proposals = [_as_event(p, f, turns) for p, f in zip(proposals, kept, strict=True)]
        if len(proposals) > MAX_BATCH:
            # One call is one batch (one idempotency record); say so rather than
            # storing part of the conversation.
            raise InvalidArgument.field(
                "turns", f"yields {len(proposals)} facts, more than {MAX_BATCH}; split the turns"
            )
        results: list[ProposalResult] = []
        if proposals:
            results = await self.lifecycle.propose(
                principal, proposals, key, field_prefix="facts", batch=True
            )
        return LearnOutcome(results, findings, unverified)

    async def _llm_facts(self, model: ChatModel, tenant: str, turns: Sequence[Turn]) -> list[Fact]:
        facts: list[Fact] = []
        seen: set[str] = set()
        for batch in llm_extract.batches(turns):
            try:
                reply = await model.complete_json(
                    llm_extract.messages_for(batch),
                    schema=llm_extract.ExtractionReply,
                    tenant_id=tenant,
                    purpose="learn",
                    timeout_seconds=self.llm_timeout_seconds,
                )
            except LLMError as error:
                # Nothing of this call is stored: a partial extraction would look
                # like a complete one to the caller.
                raise Unavailable(f"the LLM failed during Learn: {error}") from error
            for fact in llm_extract.to_facts(reply, batch):
                if fact.content.casefold() not in seen:
                    seen.add(fact.content.casefold())
                    facts.append(fact)
        return facts


def _speaker(fact: Fact, turns: Sequence[TurnInput]) -> str:
    roles = {turns[i].role.strip().lower() for i in fact.source_turns if i < len(turns)}
    if roles == {"user"}:
        return "the user"
    if len(roles) == 1:
        return f"the {roles.pop()}"
    return "the conversation"


def _said_at(fact: Fact, turns: Sequence[TurnInput]) -> datetime | None:
    times = [turns[i].time for i in fact.source_turns if i < len(turns) and turns[i].time]
    return min(t for t in times if t is not None) if times else None


def _with_provenance(
    p: Proposal, fact: Fact, turns: Sequence[TurnInput], from_llm: bool
) -> Proposal:
    """Origin (who stated it) and, when the turns are dated, when it was said."""
    roles = {turns[i].role.strip().lower() for i in fact.source_turns if i < len(turns)}
    origin = Origin.USER_STATED if roles == {"user"} and not from_llm else Origin.AGENT_INFERRED
    return replace(p, origin=origin, valid_from=_said_at(fact, turns))


def _as_event(p: Proposal, fact: Fact, turns: Sequence[TurnInput]) -> Proposal:
    when = _said_at(fact, turns) or datetime.now(UTC)
    content = f'{_speaker(fact, turns)} said "{p.content}" on {when.date().isoformat()}'
    attributes = dict(p.attributes)
    if p.slot_key:
        attributes["claimed_slot_key"] = p.slot_key
    attributes["attributed"] = "correspondence space"
    return replace(
        p,
        content=content,
        kind=Kind.EVENT,
        slot_key="",
        attributes=attributes,
        valid_from=when,
    )


def _proposal(fact: Fact, space: str, session: str, method: str, from_llm: bool) -> Proposal:
    turns = ",".join(str(i) for i in fact.source_turns)
    source = f"learn:{session}#turns[{turns}]" if session else f"learn#turns[{turns}]"
    attributes = {"learned_by": method, "support": f"{fact.support:.2f}"}
    if fact.verified:
        confidence = VERIFIED_CONFIDENCE if not from_llm else round(0.5 + 0.4 * fact.support, 2)
        return Proposal(
            space=space,
            content=fact.content,
            kind=fact.kind,
            session=session,
            source=source[:MAX_SHORT_TEXT],
            confidence=confidence,
            importance=fact.importance,
            tags=fact.tags,
            slot_key=fact.slot_key,
            attributes=attributes,
        )
    if fact.slot_key:
        attributes["proposed_slot_key"] = fact.slot_key
    attributes["verification"] = "unsupported by its source turns"
    return Proposal(
        space=space,
        content=fact.content,
        kind=fact.kind,
        session=session,
        source=source[:MAX_SHORT_TEXT],
        confidence=UNVERIFIED_CONFIDENCE,
        importance=min(fact.importance, 0.3),
        tags=(*[t for t in fact.tags if t != UNVERIFIED_TAG], UNVERIFIED_TAG)[-32:],
        attributes=attributes,
    )
