"""The assessor's LLM path: the tenant's chat model judges agree / contradict /
unrelated for the claim and each candidate, in one call.

The model sees only the statements (screened by the LLM privacy boundary like
every prompt). A candidate the reply leaves out counts as unrelated; a failed call
fails the assessment (UNAVAILABLE) instead of grading on half an answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from engram_server.errors import Unavailable
from engram_server.evidence.judge import Judgement, features, jaccard
from engram_server.lifecycle.model import Memory
from engram_server.llm import ChatMessage, LLMError
from engram_server.platform.context import AppContext

MAX_STATEMENT_CHARS = 600

_INSTRUCTIONS = (
    "You compare a CLAIM with numbered STATEMENTS from a memory store. For each"
    " statement decide whether it agrees with the claim (states the same fact),"
    " contradicts it (both cannot be true at once), or is unrelated (a different"
    " subject, or compatible details). Judge only the text; do not use outside"
    " knowledge."
)


class PairVerdict(BaseModel):
    index: int = Field(ge=0)
    verdict: Literal["agree", "contradict", "unrelated"]
    reason: str = Field(default="", max_length=300)


class JudgeReply(BaseModel):
    judgements: list[PairVerdict] = Field(default_factory=list, max_length=100)


def prompt(claim: Memory, candidates: Sequence[Memory]) -> list[ChatMessage]:
    lines = [f"CLAIM: {claim.content[:MAX_STATEMENT_CHARS]}", "STATEMENTS:"]
    lines += [f"{i}. {c.content[:MAX_STATEMENT_CHARS]}" for i, c in enumerate(candidates)]
    return [ChatMessage("system", _INSTRUCTIONS), ChatMessage("user", "\n".join(lines))]


def to_judgements(
    claim: Memory, candidates: Sequence[Memory], reply: JudgeReply
) -> list[Judgement]:
    by_index = {j.index: j for j in reply.judgements if j.index < len(candidates)}
    out: list[Judgement] = []
    claim_terms = features(claim.content).terms
    for i, candidate in enumerate(candidates):
        similarity = jaccard(claim_terms, features(candidate.content).terms)
        j = by_index.get(i)
        if j is None:
            out.append(Judgement("unrelated", similarity, "the model did not judge it"))
        else:
            out.append(Judgement(j.verdict, similarity, f"model: {j.reason or j.verdict}"))
    return out


JudgePairs = Callable[[Memory, Sequence[Memory]], Awaitable[list[Judgement]]]


async def llm_judge(ctx: AppContext, tenant: str) -> JudgePairs:
    """A pair judge backed by the tenant's model; FAILED_PRECONDITION when none."""
    from engram_server.services.learn import model_for

    model = await model_for(ctx.llm, tenant)

    async def judge_pairs(claim: Memory, candidates: Sequence[Memory]) -> list[Judgement]:
        if not candidates:
            return []
        try:
            reply = await model.complete_json(
                prompt(claim, candidates), schema=JudgeReply, tenant_id=tenant, purpose="assess"
            )
        except LLMError as error:
            raise Unavailable(f"the LLM failed during AssessMemory: {error}") from error
        return to_judgements(claim, candidates, reply)

    return judge_pairs
