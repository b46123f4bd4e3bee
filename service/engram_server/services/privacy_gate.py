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

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from engram_server.lifecycle.model import Outcome, Proposal, ProposalResult, ValidationFailure
from engram_server.privacy import (
    CREDENTIAL,
    PERSONAL_DATA,
    PrivacyBoundary,
    PrivacyFinding,
    Screened,
    default_boundary,
)
from engram_server.store import policies as policy_store

if TYPE_CHECKING:
    from engram_server.services.policy_cache import PolicyCache
    from engram_server.store.postgres import Database


class PolicySource(Protocol):
    """What the gate reads a space's policy through: the write path's database and
    its policy cache (LifecycleService is one), so the gate needs no use case."""

    db: Database
    policies: PolicyCache


PRIVACY_VALIDATOR = "privacy"


async def allowed_personal_data(
    service: PolicySource, tenant_id: str, space: str
) -> frozenset[str]:
    """The personal-data types the space's effective policy lets through."""
    limits = service.policies.get(tenant_id, space)
    if limits is None:
        async with service.db.tenant_tx(tenant_id) as conn:
            limits = await policy_store.effective_policy(conn, space)
        service.policies.put(tenant_id, space, limits)
    return frozenset(limits.policy.allowed_personal_data)


async def screen_text(
    service: PolicySource,
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


class _ProposalScreen:
    """Screens every string and every key of one proposal, building the screened
    values as it goes (never through a map keyed by printed paths, where a key
    `"a.b"` beside `{"a": {"b": ...}}` names the same field twice)."""

    def __init__(self, boundary: PrivacyBoundary, allow: frozenset[str]) -> None:
        self.boundary = boundary
        self.allow = allow
        self.findings: list[PrivacyFinding] = []
        self.dropped = False
        self.collisions: list[str] = []

    def text(self, text: str, field_path: str) -> str:
        screened = self.boundary.screen(text, field_path, allow=self.allow)
        self.findings.extend(screened.findings)
        if screened.text is None:
            self.dropped = True
            return text
        return screened.text

    def key(self, key: str, holder: str) -> str:
        """A key of attributes or structured content: a credential drops the
        proposal, personal data is redacted. Findings name the object holding the
        key, never the key."""
        screened = self.boundary.screen(key, holder, allow=self.allow)
        self.findings.extend(screened.findings)
        if screened.text is None:
            self.dropped = True
            return key
        return screened.text

    def mapping(self, items: dict[str, Any], holder: str, value_path: str) -> dict[str, Any]:
        """`value_path` formats the path of one value from its (screened) key."""
        out: dict[str, Any] = {}
        for k, v in items.items():
            new_key = self.key(k, holder)
            if new_key in out:
                self.collisions.append(holder)
            out[new_key] = self.value(v, value_path.format(new_key))
        return out

    def value(self, value: Any, path: str) -> Any:
        if isinstance(value, str):
            return self.text(value, path)
        if isinstance(value, dict):
            return self.mapping(value, path, f"{path}.{{}}")
        if isinstance(value, list):
            return [self.value(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value


def _screen_one(
    boundary: PrivacyBoundary, p: Proposal, path: str, allow: frozenset[str]
) -> tuple[Proposal | ProposalResult | None, tuple[PrivacyFinding, ...]]:
    """The screened proposal (None when dropped, a REJECTED result when its keys
    collide once redacted) and what was found."""
    screen = _ProposalScreen(boundary, allow)
    content = screen.text(p.content, f"{path}.content")
    source = screen.text(p.source, f"{path}.source") if p.source else p.source
    tags = tuple(screen.text(t, f"{path}.tags[{i}]") for i, t in enumerate(p.tags))
    attributes = screen.mapping(p.attributes, f"{path}.attributes", f"{path}.attributes[{{}}]")
    structured = (
        screen.value(p.structured_content, f"{path}.structured_content")
        if p.structured_content
        else p.structured_content
    )
    if screen.dropped:
        return None, tuple(f for f in screen.findings if f.category == CREDENTIAL)
    findings = tuple(screen.findings)
    if screen.collisions:
        return _colliding_keys_result(screen.collisions, findings), findings
    if not findings:
        return p, findings
    return (
        replace(
            p,
            content=content,
            source=source,
            tags=tags,
            attributes=attributes,
            structured_content=structured,
        ),
        findings,
    )


def _colliding_keys_result(
    holders: Sequence[str], findings: tuple[PrivacyFinding, ...]
) -> ProposalResult:
    """REJECTED, nothing stored: two keys of one object that become the same key
    once personal data is redacted would otherwise overwrite each other."""
    failures = tuple(
        ValidationFailure(
            validator=PRIVACY_VALIDATOR,
            critical=True,
            message=(
                "two keys of this object hold personal data that redacts to the same"
                " placeholder, so one value would overwrite the other; use keys that"
                " do not hold personal data (nothing was stored)"
            ),
            field=holder,
        )
        for holder in dict.fromkeys(holders)
    )
    return ProposalResult(Outcome.REJECTED, None, failures, findings)


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
    service: PolicySource,
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
        if isinstance(screened, ProposalResult):
            out.dropped[i] = screened
            continue
        out.kept.append(screened)
        out.kept_index.append(i)
        if findings:
            out.findings[i] = findings
    return out
