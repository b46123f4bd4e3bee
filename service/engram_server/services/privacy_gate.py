"""Where the write paths meet the privacy boundary.

Proposals are screened before anything else looks at them (validators, content
hashing, dedup, storage, audit): a proposal whose content, structured content,
source, tags or attributes carry a credential is dropped — rejected with a
critical `privacy` failure, nothing stored — and personal data is replaced by
typed placeholders unless the space's policy allows that type.

Screening is deterministic, so a retried request (same request_id) screens to
the same proposals and replays the same first outcome. The policy is read only
when personal data was actually found, so clean proposals never wait on it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from engram_server.lifecycle.model import Outcome, Proposal, ProposalResult, ValidationFailure
from engram_server.privacy import (
    CREDENTIAL,
    DROPPED,
    PERSONAL_DATA,
    PrivacyBoundary,
    PrivacyFinding,
    Screened,
    default_boundary,
)
from engram_server.store import policies as policy_store

if TYPE_CHECKING:
    from engram_server.services.lifecycle import LifecycleService

PRIVACY_VALIDATOR = "privacy"


async def allowed_personal_data(
    service: LifecycleService, tenant_id: str, space: str
) -> frozenset[str]:
    """The personal-data types the space's effective policy lets through."""
    limits = service.policies.get(tenant_id, space)
    if limits is None:
        async with service.db.tenant_tx(tenant_id) as conn:
            limits = await policy_store.effective_policy(conn, space)
        service.policies.put(tenant_id, space, limits)
    return frozenset(limits.policy.allowed_personal_data)


async def screen_text(
    service: LifecycleService,
    tenant_id: str,
    space: str,
    text: str,
    field: str,
    *,
    sentences: bool,
) -> Screened:
    """Screens one text for `space`: as an atom (`sentences=False`: a credential
    drops it all) or as conversation (`sentences=True`: only the sentences or
    lines carrying a credential go)."""
    boundary = default_boundary()
    screen = boundary.screen_sentences if sentences else boundary.screen
    first = screen(text, field)
    if not _has_personal_data(first.findings):
        return first
    allow = await allowed_personal_data(service, tenant_id, space)
    return screen(text, field, allow=allow) if allow else first


def _has_personal_data(findings: Sequence[PrivacyFinding]) -> bool:
    return any(f.category == PERSONAL_DATA for f in findings)


def _struct_strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(field path, string) for every string inside structured content."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _struct_strings(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _struct_strings(v, f"{path}[{i}]")


def _struct_keys(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(path of the object, key) for every key inside structured content."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path, k
            yield from _struct_keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _struct_keys(v, f"{path}[{i}]")


def _rebuild_struct(value: Any, path: str, texts: dict[str, str]) -> Any:
    if isinstance(value, str):
        return texts.get(path, value)
    if isinstance(value, dict):
        return {k: _rebuild_struct(v, f"{path}.{k}", texts) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuild_struct(v, f"{path}[{i}]", texts) for i, v in enumerate(value)]
    return value


def _texts(p: Proposal, path: str) -> list[tuple[str, str]]:
    """Every screened string of a proposal with its field path."""
    out = [(f"{path}.content", p.content)]
    if p.source:
        out.append((f"{path}.source", p.source))
    out.extend((f"{path}.tags[{i}]", t) for i, t in enumerate(p.tags))
    for k, val in p.attributes.items():
        out.append((f"{path}.attributes[{k}]", val))
    if p.structured_content:
        out.extend(_struct_strings(p.structured_content, f"{path}.structured_content"))
    return out


def _screen_one(
    boundary: PrivacyBoundary, p: Proposal, path: str, allow: frozenset[str]
) -> tuple[Proposal | None, tuple[PrivacyFinding, ...]]:
    """The screened proposal (None when dropped) and what was found."""
    findings: list[PrivacyFinding] = []
    changed: dict[str, str] = {}
    dropped = False
    for field_path, text in _texts(p, path):
        screened = boundary.screen(text, field_path, allow=allow)
        findings.extend(screened.findings)
        if screened.text is None:
            dropped = True
        elif screened.text != text:
            changed[field_path] = screened.text
    # Attribute and structured-content keys are names, not content, but a key can
    # still be a pasted secret. The finding names the object holding it, not the key.
    keys = [(f"{path}.attributes", key) for key in p.attributes]
    if p.structured_content:
        keys.extend(_struct_keys(p.structured_content, f"{path}.structured_content"))
    for holder, key in keys:
        key_types = boundary.credentials.types(key)
        if key_types:
            dropped = True
            findings.extend(PrivacyFinding(CREDENTIAL, t, DROPPED, holder) for t in key_types)
    if dropped:
        return None, tuple(f for f in findings if f.category == CREDENTIAL)
    if not changed:
        return p, tuple(findings)
    return (
        replace(
            p,
            content=changed.get(f"{path}.content", p.content),
            source=changed.get(f"{path}.source", p.source),
            tags=tuple(changed.get(f"{path}.tags[{i}]", t) for i, t in enumerate(p.tags)),
            attributes={
                k: changed.get(f"{path}.attributes[{k}]", v) for k, v in p.attributes.items()
            },
            structured_content=(
                _rebuild_struct(p.structured_content, f"{path}.structured_content", changed)
                if p.structured_content
                else p.structured_content
            ),
        ),
        tuple(findings),
    )


def _dropped_result(findings: tuple[PrivacyFinding, ...]) -> ProposalResult:
    """REJECTED, nothing stored: one critical failure per field that carried a
    credential, naming the credential types (never the value)."""
    by_field: dict[str, list[str]] = {}
    for f in findings:
        types = by_field.setdefault(f.field, [])
        if f.type not in types:
            types.append(f.type)
    failures = tuple(
        ValidationFailure(
            validator=PRIVACY_VALIDATOR,
            critical=True,
            message=(
                f"a credential ({', '.join(types)}) was found; the proposal was dropped"
                " and nothing was stored"
            ),
            field=field_path,
        )
        for field_path, types in by_field.items()
    )
    return ProposalResult(Outcome.REJECTED, None, failures, findings)


@dataclass
class ProposalScreening:
    """The proposals that go on to the write path and what happened to the rest."""

    kept: list[Proposal] = field(default_factory=list)
    kept_index: list[int] = field(default_factory=list)
    dropped: dict[int, ProposalResult] = field(default_factory=dict)
    findings: dict[int, tuple[PrivacyFinding, ...]] = field(default_factory=dict)
    total: int = 0

    @property
    def changed(self) -> bool:
        """Whether anything was dropped or redacted (else the input goes on as is)."""
        return bool(self.dropped or self.findings)

    def merge(self, written: Sequence[ProposalResult]) -> list[ProposalResult]:
        """One result per original proposal, in request order: the write path's
        results for the kept ones (with their redaction findings), the privacy
        rejections for the dropped ones."""
        by_index = dict(zip(self.kept_index, written, strict=True))
        out: list[ProposalResult] = []
        for i in range(self.total):
            if i in self.dropped:
                out.append(self.dropped[i])
            else:
                out.append(replace(by_index[i], privacy_findings=self.findings.get(i, ())))
        return out


async def screen_proposals(
    service: LifecycleService,
    tenant_id: str,
    proposals: Sequence[Proposal],
    *,
    field_prefix: str,
    batch: bool,
    prescreened: frozenset[int] = frozenset(),
) -> ProposalScreening:
    """`prescreened`: positions of proposals whose every text the caller has already
    screened for the proposal's space (decisions built from screened commits);
    they go on as they are, so no text is screened twice."""
    boundary = default_boundary()
    out = ProposalScreening(total=len(proposals))
    allowed: dict[str, frozenset[str]] = {}
    for i, p in enumerate(proposals):
        if i in prescreened:
            out.kept.append(p)
            out.kept_index.append(i)
            continue
        path = f"{field_prefix}[{i}]" if batch else field_prefix
        screened, findings = _screen_one(boundary, p, path, frozenset())
        if screened is not None and _has_personal_data(findings):
            if p.space not in allowed:
                allowed[p.space] = await allowed_personal_data(service, tenant_id, p.space)
            if allowed[p.space]:
                screened, findings = _screen_one(boundary, p, path, allowed[p.space])
        if screened is None:
            out.dropped[i] = _dropped_result(findings)
            continue
        out.kept.append(screened)
        out.kept_index.append(i)
        if findings:
            out.findings[i] = findings
    return out
