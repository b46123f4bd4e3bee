"""The validator pipeline a proposal passes before it is stored.

Each validator is critical (a failure rejects) or not (a failure holds the memory
for confirmation), and each runs under a timeout that counts as its failure. Local
validators are pure; HTTP webhooks are reached through an injected caller so this
module stays free of I/O.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from engram_server.lifecycle.model import Proposal, ValidationFailure
from engram_server.lifecycle.policy import Policy, WebhookSpec
from engram_server.lifecycle.schemas import first_schema_error

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WebhookVerdict:
    valid: bool
    message: str


class WebhookCaller(Protocol):
    """POSTs a proposal to a validator URL; raises on transport errors/timeouts."""

    def __call__(self, hook: WebhookSpec, payload: dict[str, Any]) -> Awaitable[WebhookVerdict]: ...


def proposal_payload(p: Proposal) -> dict[str, Any]:
    """The JSON a webhook validator receives."""
    return {
        "space": p.space,
        "proposal": {
            "space": p.space,
            "session": p.session,
            "thread": p.thread,
            "kind": p.kind.value,
            "content": p.content,
            "structured_content": p.structured_content,
            "source": p.source,
            "confidence": p.confidence,
            "importance": p.importance,
            "evidence_level": p.evidence_level.value,
            "tags": list(p.tags),
            "slot_key": p.slot_key,
            "topic": p.topic,
            "attributes": dict(p.attributes),
        },
    }


def _required_fields(policy: Policy, p: Proposal) -> list[ValidationFailure]:
    missing = [name for name in policy.required_fields if not getattr(p, name)]
    return [
        ValidationFailure("required_fields", True, f"{name} is required by policy", name)
        for name in missing
    ]


def _size(policy: Policy, p: Proposal) -> list[ValidationFailure]:
    if policy.max_content_bytes and len(p.content.encode()) > policy.max_content_bytes:
        return [
            ValidationFailure(
                "size_limit",
                True,
                f"content exceeds the policy limit of {policy.max_content_bytes} bytes",
                "content",
            )
        ]
    return []


def _confidence(policy: Policy, p: Proposal) -> list[ValidationFailure]:
    if p.confidence < policy.min_confidence:
        return [
            ValidationFailure(
                "confidence_threshold",
                policy.min_confidence_critical,
                f"confidence {p.confidence:g} is below the threshold {policy.min_confidence:g}",
                "confidence",
            )
        ]
    return []


def _schema(policy: Policy, p: Proposal) -> list[ValidationFailure]:
    if policy.json_schema is None:
        return []
    if p.structured_content is None:
        return [
            ValidationFailure(
                "json_schema",
                policy.json_schema_critical,
                "structured_content is required by the policy's JSON Schema",
                "structured_content",
            )
        ]
    error = first_schema_error(policy.json_schema, p.structured_content)
    if error is None:
        return []
    return [
        ValidationFailure("json_schema", policy.json_schema_critical, error, "structured_content")
    ]


LocalValidator = Callable[[Policy, Proposal], list[ValidationFailure]]
LOCAL_VALIDATORS: tuple[tuple[str, LocalValidator, bool], ...] = (
    # (name, check, runs in a worker thread so its timeout can be enforced)
    ("required_fields", _required_fields, False),
    ("size_limit", _size, False),
    ("confidence_threshold", _confidence, False),
    ("json_schema", _schema, True),
)


async def _run_local(
    name: str, check: LocalValidator, threaded: bool, policy: Policy, p: Proposal
) -> list[ValidationFailure]:
    if not threaded or policy.json_schema is None:
        # Only a schema check can run long; without one, a thread hop is pure cost.
        return check(policy, p)
    try:
        return await asyncio.wait_for(
            asyncio.to_thread(check, policy, p), policy.local_timeout_seconds
        )
    except TimeoutError:
        critical = policy.json_schema_critical if name == "json_schema" else True
        return [ValidationFailure(name, critical, "validator timed out")]


def _failure_kind(exc: Exception) -> str:
    if isinstance(exc, RuntimeError) and str(exc).startswith(("HTTP ", "response must be")):
        return str(exc)  # our own words about the webhook's answer
    if getattr(exc, "shown_to_caller", False):
        return str(exc)
    return f"could not call the webhook ({type(exc).__name__})"


async def _run_webhook(
    hook: WebhookSpec, payload: dict[str, Any], call: WebhookCaller
) -> list[ValidationFailure]:
    try:
        verdict = await asyncio.wait_for(call(hook, payload), hook.timeout_ms / 1000.0)
    except TimeoutError:
        return [ValidationFailure(hook.name, hook.critical, "webhook validator timed out")]
    except Exception as exc:  # any transport failure counts as this validator failing
        # Only the failure's kind goes back to the tenant: transport text can name
        # addresses and ports the tenant's URL reached inside the deployment.
        log.info("webhook validator %s failed", hook.name, exc_info=True)
        return [
            ValidationFailure(
                hook.name, hook.critical, f"webhook validator failed: {_failure_kind(exc)}"
            )
        ]
    if verdict.valid:
        return []
    message = _storable(verdict.message)
    return [ValidationFailure(hook.name, hook.critical, message or "rejected by webhook")]


# A webhook's message is kept on the memory and in its answer, like a reason.
MAX_WEBHOOK_MESSAGE_CHARS = 1024


def _storable(message: str) -> str:
    """A webhook's words as text PostgreSQL can store: JSON can spell a NUL or a
    lone surrogate, which its text columns (and UTF-8) cannot hold; bounded."""
    cleaned = message.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")
    return cleaned[:MAX_WEBHOOK_MESSAGE_CHARS]


def needs_async(policy: Policy) -> bool:
    return policy.json_schema is not None or bool(policy.webhooks)


async def run_validators(
    policy: Policy, p: Proposal, call_webhook: WebhookCaller
) -> tuple[ValidationFailure, ...]:
    """Runs every validator (webhooks concurrently) and returns the failures; with
    `policy.sequential_validators`, one at a time in declared order until the first
    critical failure."""
    if policy.sequential_validators:
        return await _run_in_order(policy, p, call_webhook)
    failures: list[ValidationFailure] = []
    for name, check, threaded in LOCAL_VALIDATORS:
        failures.extend(await _run_local(name, check, threaded, policy, p))
    if policy.webhooks:
        payload = proposal_payload(p)
        results = await asyncio.gather(
            *(_run_webhook(hook, payload, call_webhook) for hook in policy.webhooks)
        )
        for result in results:
            failures.extend(result)
    return tuple(failures)


async def _run_in_order(
    policy: Policy, p: Proposal, call_webhook: WebhookCaller
) -> tuple[ValidationFailure, ...]:
    failures: list[ValidationFailure] = []
    for name, check, threaded in LOCAL_VALIDATORS:
        found = await _run_local(name, check, threaded, policy, p)
        failures.extend(found)
        if any(f.critical for f in found):
            return tuple(failures)
    payload = proposal_payload(p) if policy.webhooks else {}
    for hook in policy.webhooks:
        found = await _run_webhook(hook, payload, call_webhook)
        failures.extend(found)
        if any(f.critical for f in found):
            break
    return tuple(failures)


def outcome_status(failures: tuple[ValidationFailure, ...]) -> str:
    """ACTIVE when all passed, REJECTED on a critical failure, else PENDING_CONFIRMATION."""
    if not failures:
        return "ACTIVE"
    if any(f.critical for f in failures):
        return "REJECTED"
    return "PENDING_CONFIRMATION"
