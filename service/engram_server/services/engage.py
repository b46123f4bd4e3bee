"""Engage and the screened append shared by AppendMessage, Engage and Reflect.

Every message the API buffers is screened by the privacy boundary first
(`screen_message`, then `buffer_screened`; `buffer_message` does both): a buffer is
storage, so credentials never land there and personal data is redacted per the
space's policy.

Engage does three independent things at once (buffer the turn, recall for it, read
the session's sent set), then keeps only memories the session was not sent yet,
renders them under the token budget and records them as sent, once per request id.
"""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engram_server.privacy.model import PrivacyFinding
from engram_server.recall.context import (
    ContextFormat,
    ContextResult,
    CountTokens,
    build_context,
)
from engram_server.recall.tokens import count_tokens
from engram_server.services.insights import Insight, insights_for
from engram_server.services.privacy_gate import screen_text
from engram_server.services.recall import MAX_QUERY_CHARS, Hit, RecallQuery, RecallService
from engram_server.services.working_memory import AppendResult, BufferedMessage, WorkingMemory

if TYPE_CHECKING:
    from engram_server.services.lifecycle import LifecycleService


@dataclass(frozen=True)
class Buffered:
    """What buffering one message did."""

    # None when the privacy boundary dropped the whole message (nothing buffered).
    result: AppendResult | None
    findings: tuple[PrivacyFinding, ...]
    # Buffer size after the call (also when nothing was buffered).
    buffered_messages: int
    buffered_tokens: int


async def screen_message(
    lifecycle: LifecycleService, tenant: str, space: str, content: str, field: str
) -> tuple[str | None, tuple[PrivacyFinding, ...]]:
    """The text that may be buffered (None: nothing may) and what the boundary did."""
    screened = await screen_text(lifecycle, tenant, space, content, field, sentences=True)
    text = screened.text if screened.text is not None and screened.text.strip() else None
    return text, tuple(screened.findings)


async def buffer_screened(
    wm: WorkingMemory,
    tenant: str,
    space: str,
    session: str,
    message: BufferedMessage,
    text: str | None,
    findings: tuple[PrivacyFinding, ...],
    request_id: str,
    path: str,
    fingerprint: str = "",
) -> Buffered:
    if text is None:
        count, tokens = await wm.stats(tenant, space, session)
        return Buffered(None, findings, count, tokens)
    clean = dataclasses.replace(message, content=text)
    result = await wm.append_result(
        tenant, space, session, clean, request_id, path=path, fingerprint=fingerprint
    )
    return Buffered(result, findings, result.buffered_messages, result.buffered_tokens)


async def buffer_message(
    lifecycle: LifecycleService,
    wm: WorkingMemory,
    tenant: str,
    space: str,
    session: str,
    message: BufferedMessage,
    request_id: str,
    *,
    path: str = "message",
    content_field: str = "",
    fingerprint: str = "",
) -> Buffered:
    """Validates, screens and buffers one message.

    A message whose every line carries a credential is dropped whole: the call still
    succeeds (the conversation goes on), reports the finding, and buffers nothing.
    """
    wm.validate_append(space, session, message, request_id, path=path)
    text, findings = await screen_message(
        lifecycle, tenant, space, message.content, content_field or f"{path}.content"
    )
    return await buffer_screened(
        wm, tenant, space, session, message, text, findings, request_id, path, fingerprint
    )


@dataclass(frozen=True)
class EngageRequest:
    tenant: str
    space: str
    session: str
    message: BufferedMessage
    # Recall settings; `query` is filled in from the screened message.
    query: RecallQuery
    token_budget: int
    format: ContextFormat
    group_by_kind: bool
    cite: bool
    badges: bool
    resend: bool
    request_id: str
    deadline: float | None
    # Identifies the request its request_id came with (see WorkingMemory.append_result).
    fingerprint: str = ""
    # Return the belief-grounded insight brief (services/insights.py).
    insights: bool = False


@dataclass(frozen=True)
class EngageResult:
    buffered: Buffered
    context: ContextResult | None
    # The hits rendered into the context, best first.
    hits: list[Hit]
    suppressed: int
    insights: list[Insight] = dataclasses.field(default_factory=list)


def line_cached_counter() -> CountTokens:
    """An exact token counter for one context build that tokenizes each line once.

    WordPiece pre-tokenizes on whitespace, so a text's count is the sum of its
    lines' counts. `build_context` re-counts the whole block for every memory it
    tries; with this counter each rendered line is tokenized only the first time,
    which makes filling k memories linear instead of quadratic in tokenizer work.
    """
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        total = 0
        for line in text.split("\n"):
            tokens = cache.get(line)
            if tokens is None:
                tokens = cache[line] = count_tokens(line)
            total += tokens
        return total

    return count


def _recall_text(text: str) -> str:
    # The newest words of a long message say most about what it needs now.
    return text if len(text) <= MAX_QUERY_CHARS else text[-MAX_QUERY_CHARS:]


class Engage:
    def __init__(
        self, lifecycle: LifecycleService, wm: WorkingMemory, recall: RecallService
    ) -> None:
        self.lifecycle = lifecycle
        self.wm = wm
        self.recall = recall

    async def __call__(self, req: EngageRequest) -> EngageResult:
        wm = self.wm
        request_id = f"engage:{req.request_id}" if req.request_id else ""
        wm.validate_append(req.space, req.session, req.message, req.request_id)
        text, findings = await screen_message(
            self.lifecycle, req.tenant, req.space, req.message.content, "message.content"
        )

        async def buffer() -> Buffered:
            return await buffer_screened(
                wm,
                req.tenant,
                req.space,
                req.session,
                req.message,
                text,
                findings,
                request_id,
                "message",
                req.fingerprint,
            )

        async def recall() -> list[Hit]:
            if text is None:
                return []
            q = dataclasses.replace(req.query, query=_recall_text(text))
            return (await self.recall.recall(req.tenant, q, req.deadline)).hits

        async def already_sent() -> tuple[set[str], list[str] | None]:
            if req.resend:
                return set(), None
            sent, own = await asyncio.gather(
                wm.sent(req.tenant, req.space, req.session),
                wm.sent_for_request(req.tenant, req.space, req.session, request_id)
                if request_id
                else _none(),
            )
            return sent, own

        buffered, hits, (sent, own) = await asyncio.gather(buffer(), recall(), already_sent())
        if own is not None:
            # A retry: what the first attempt sent counts as not sent yet, so the
            # retry answers like the first attempt did.
            sent -= set(own)
        fresh = [h for h in hits if h.memory.name not in sent]
        suppressed = len(hits) - len(fresh)
        context: ContextResult | None = None
        rendered: list[Hit] = []
        if fresh:
            context = build_context(
                [h.memory for h in fresh],
                req.token_budget,
                line_cached_counter(),
                req.format,
                group_by_kind=req.group_by_kind,
                cite=req.cite,
                badges=req.badges,
            )
            cited = set(context.cited)
            rendered = [h for h in fresh if h.memory.name in cited]
        if buffered.result is not None or rendered:
            await wm.mark_sent(
                req.tenant,
                req.space,
                req.session,
                [h.memory.name for h in rendered],
                request_id or f"auto-{uuid.uuid4().hex}",
            )
        brief: list[Insight] = []
        if req.insights:
            brief = await insights_for(
                self.lifecycle.db, req.tenant, [h.memory for h in rendered or hits]
            )
        return EngageResult(buffered, context, rendered, suppressed, brief)


async def _none() -> None:
    return None
