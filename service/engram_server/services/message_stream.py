"""AppendMessages: buffering a stream of messages, a batch at a time.

The API reads a stream's requests as they come and hands over whatever has
arrived since the last batch. Every message goes through the same checks as
AppendMessage (validation, the privacy boundary, the tenant's rate quota), and
the messages that pass are appended in one Redis round trip
(`WorkingMemory.append_many`). A message that fails gets its own error; the
others of the batch are unaffected. Only a failure that no later message could
escape (Redis unreachable) is raised, which ends the stream.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from engram_server.errors import EngramError, Unavailable
from engram_server.privacy.model import PrivacyFinding
from engram_server.services.engage import Buffered, screen_message
from engram_server.services.working_memory import (
    AppendResult,
    BufferedMessage,
    PendingAppend,
    WorkingMemory,
)

if TYPE_CHECKING:
    from engram_server.platform.interceptors.ratelimit import RateLimitInterceptor
    from engram_server.services.lifecycle import LifecycleService


@dataclass(frozen=True)
class StreamedMessage:
    """One request of the stream, decoded."""

    space: str
    session: str
    # None when the request carried no message (reported as a missing field).
    message: BufferedMessage | None
    # Namespaced like AppendMessage's, so either RPC replays the other's outcome.
    request_id: str = ""
    fingerprint: str = ""


@dataclass(frozen=True)
class _Passed:
    """A message that passed every check, with what the boundary found in it."""

    index: int
    append: PendingAppend
    findings: tuple[PrivacyFinding, ...]


@dataclass(frozen=True)
class _Dropped:
    """A message the privacy boundary dropped whole: nothing of it is buffered."""

    index: int
    target: tuple[str, str]
    findings: tuple[PrivacyFinding, ...]


async def buffer_messages(
    lifecycle: LifecycleService,
    wm: WorkingMemory,
    rate_limit: RateLimitInterceptor | None,
    tenant: str,
    messages: Sequence[StreamedMessage],
) -> list[Buffered | EngramError]:
    """What became of each message, in order: buffered (or dropped whole by the
    privacy boundary, as AppendMessage does) or refused with its error."""
    outcomes: list[Buffered | EngramError | None] = [None] * len(messages)
    admitted = len(messages)
    if rate_limit is not None:
        admitted = await rate_limit.admit(tenant, len(messages))
    passed: list[_Passed] = []
    dropped: list[_Dropped] = []
    for i, streamed in enumerate(messages):
        if i >= admitted:
            assert rate_limit is not None
            outcomes[i] = rate_limit.exceeded(tenant, await rate_limit.quota(tenant))
            continue
        try:
            message = _checked(wm, streamed)
            text, findings = await screen_message(
                lifecycle, tenant, streamed.space, message.content, "message.content"
            )
        except Unavailable:
            raise
        except EngramError as exc:
            outcomes[i] = exc
            continue
        if text is None:
            dropped.append(_Dropped(i, (streamed.space, streamed.session), findings))
            continue
        clean = dataclasses.replace(message, content=text)
        append = PendingAppend(
            streamed.space, streamed.session, clean, streamed.request_id, streamed.fingerprint
        )
        passed.append(_Passed(i, append, findings))

    # A dropped message reports the buffer as it stood at its turn: after the last
    # earlier message of the batch to the same session, else as read before the
    # batch's appends (rare, so one read per such session is fine).
    before_batch = {d.target: await wm.stats(tenant, *d.target) for d in dropped}
    results = await wm.append_many(tenant, [p.append for p in passed])
    appended: dict[tuple[str, str], list[tuple[int, AppendResult]]] = {}
    for p, result in zip(passed, results, strict=True):
        if isinstance(result, EngramError):
            outcomes[p.index] = result
            continue
        outcomes[p.index] = Buffered(
            result, p.findings, result.buffered_messages, result.buffered_tokens
        )
        appended.setdefault((p.append.space, p.append.session), []).append((p.index, result))
    for d in dropped:
        earlier = [r for j, r in appended.get(d.target, []) if j < d.index]
        count, tokens = (
            (earlier[-1].buffered_messages, earlier[-1].buffered_tokens)
            if earlier
            else before_batch[d.target]
        )
        outcomes[d.index] = Buffered(None, d.findings, count, tokens)
    return [o for o in outcomes if o is not None]


def _checked(wm: WorkingMemory, streamed: StreamedMessage) -> BufferedMessage:
    """The message, or InvalidArgument naming every bad field (as AppendMessage)."""
    wm.validate_append(streamed.space, streamed.session, streamed.message, streamed.request_id)
    assert streamed.message is not None  # validate_append refuses a missing one
    return streamed.message
