"""Validation policies: per tenant (the default) and per space (an override).

A space with its own policy uses it whole; a space without one uses the tenant's.
Whole-policy override (rather than a field-by-field merge) keeps it obvious which
rules apply: GetPolicy on a space shows exactly what its proposals face.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engram_server.errors import Violations
from engram_server.lifecycle.model import Kind
from engram_server.lifecycle.schemas import schema_reference_problems
from engram_server.privacy.personal import PERSONAL_DATA_TYPES

REQUIRABLE_FIELDS = frozenset(
    {"session", "source", "slot_key", "topic", "structured_content", "tags", "thread"}
)
DEFAULT_VALIDATOR_TIMEOUT_MS = 1000
DEFAULT_WEBHOOK_TIMEOUT_MS = 2000
MAX_WEBHOOKS = 8
MAX_TIMEOUT_MS = 30_000
# Bounds that keep every later computation finite: a TTL is added to the write time
# (100 years), retention's stability is a duration in hours (100 years).
MAX_TTL_SECONDS = 100 * 366 * 86400
MAX_STABILITY_HOURS = 100 * 366 * 24.0
MAX_WEBHOOK_NAME = 64
MAX_WEBHOOK_URL = 2048
SPACE_CLASSES = frozenset({"", "canonical", "working", "correspondence"})


@dataclass(frozen=True)
class WebhookSpec:
    name: str
    url: str
    timeout_ms: int = DEFAULT_WEBHOOK_TIMEOUT_MS
    critical: bool = False


@dataclass(frozen=True)
class Policy:
    space: str = ""  # "" is the tenant default
    json_schema: dict[str, Any] | None = None
    json_schema_critical: bool = True
    min_confidence: float = 0.0
    min_confidence_critical: bool = False
    max_content_bytes: int = 0
    required_fields: tuple[str, ...] = ()
    webhooks: tuple[WebhookSpec, ...] = ()
    default_ttl_seconds: dict[str, int] = field(default_factory=dict)
    validator_timeout_ms: int = 0
    near_duplicate_threshold: float = 0.0
    retention_stability_hours: float = 0.0
    decay_exponents: dict[str, float] = field(default_factory=dict)
    # Personal-data types stored as written instead of redacted ("email", ...).
    allowed_personal_data: tuple[str, ...] = ()
    # Validators one at a time in declared order; the first critical failure stops.
    sequential_validators: bool = False
    # Where identical content is a duplicate: "SPACE", "SESSION" or "OFF".
    dedup_scope: str = "SPACE"
    # Evidence-weighted recall: delta per grade name ("OFFICIAL": 0.15); missing
    # grades keep the server default. `evidence_weights_disabled` turns it off.
    evidence_weights: dict[str, float] = field(default_factory=dict)
    evidence_weights_disabled: bool = False
    # The corroboration assessor: distinct agreeing sources for CORROBORATED (0 = 2).
    min_corroboration: int = 0
    assess_on_write: bool = False
    # "canonical", "working" or "correspondence"; "" = observed.
    pinned_space_class: str = ""
    etag: str = ""
    update_time: datetime | None = None

    @property
    def name(self) -> str:
        return f"spaces/{self.space}/policy" if self.space else "policy"

    def ttl_for(self, kind: Kind) -> int | None:
        seconds = self.default_ttl_seconds.get(kind.value)
        return seconds if seconds and seconds > 0 else None

    @property
    def local_timeout_seconds(self) -> float:
        return (self.validator_timeout_ms or DEFAULT_VALIDATOR_TIMEOUT_MS) / 1000.0

    def to_json(self) -> dict[str, Any]:
        return {
            "json_schema": self.json_schema,
            "json_schema_critical": self.json_schema_critical,
            "min_confidence": self.min_confidence,
            "min_confidence_critical": self.min_confidence_critical,
            "max_content_bytes": self.max_content_bytes,
            "required_fields": list(self.required_fields),
            "webhooks": [
                {"name": w.name, "url": w.url, "timeout_ms": w.timeout_ms, "critical": w.critical}
                for w in self.webhooks
            ],
            "default_ttl_seconds": dict(self.default_ttl_seconds),
            "validator_timeout_ms": self.validator_timeout_ms,
            "near_duplicate_threshold": self.near_duplicate_threshold,
            "retention_stability_hours": self.retention_stability_hours,
            "decay_exponents": dict(self.decay_exponents),
            "allowed_personal_data": list(self.allowed_personal_data),
            "sequential_validators": self.sequential_validators,
            "dedup_scope": self.dedup_scope,
            "evidence_weights": dict(self.evidence_weights),
            "evidence_weights_disabled": self.evidence_weights_disabled,
            "min_corroboration": self.min_corroboration,
            "assess_on_write": self.assess_on_write,
            "pinned_space_class": self.pinned_space_class,
        }

    @classmethod
    def from_json(
        cls, space: str, data: dict[str, Any], etag: str = "", update_time: datetime | None = None
    ) -> Policy:
        return cls(
            space=space,
            json_schema=data.get("json_schema"),
            json_schema_critical=bool(data.get("json_schema_critical", True)),
            min_confidence=float(data.get("min_confidence", 0.0)),
            min_confidence_critical=bool(data.get("min_confidence_critical", False)),
            max_content_bytes=int(data.get("max_content_bytes", 0)),
            required_fields=tuple(data.get("required_fields", ())),
            webhooks=tuple(
                WebhookSpec(
                    name=w["name"],
                    url=w["url"],
                    timeout_ms=int(w["timeout_ms"]),
                    critical=bool(w["critical"]),
                )
                for w in data.get("webhooks", ())
            ),
            default_ttl_seconds={k: int(v) for k, v in data.get("default_ttl_seconds", {}).items()},
            validator_timeout_ms=int(data.get("validator_timeout_ms", 0)),
            near_duplicate_threshold=float(data.get("near_duplicate_threshold", 0.0)),
            retention_stability_hours=float(data.get("retention_stability_hours", 0.0)),
            decay_exponents={k: float(v) for k, v in data.get("decay_exponents", {}).items()},
            allowed_personal_data=tuple(data.get("allowed_personal_data", ())),
            sequential_validators=bool(data.get("sequential_validators", False)),
            dedup_scope=str(data.get("dedup_scope", "SPACE")),
            evidence_weights={k: float(v) for k, v in (data.get("evidence_weights") or {}).items()},
            evidence_weights_disabled=bool(data.get("evidence_weights_disabled", False)),
            min_corroboration=int(data.get("min_corroboration", 0)),
            assess_on_write=bool(data.get("assess_on_write", False)),
            pinned_space_class=str(data.get("pinned_space_class", "")),
            etag=etag,
            update_time=update_time,
        )


# Why a URL may not be called (the server's egress rule), or None when it may.
UrlRefusal = Callable[[str], "str | None"]


def validate_policy(
    policy: Policy, server_max_content_bytes: int, url_refusal: UrlRefusal | None = None
) -> None:
    """Checks a policy before it is stored; every bad field is reported at once."""
    from jsonschema import SchemaError
    from jsonschema.validators import validator_for

    v = Violations()
    if policy.json_schema is not None:
        try:
            validator_for(policy.json_schema).check_schema(policy.json_schema)
        except SchemaError as exc:
            v.add("policy.json_schema", f"not a valid JSON Schema: {exc.message}")
        except (RecursionError, ValueError, TypeError, LookupError):
            v.add("policy.json_schema", "not a valid JSON Schema")
        else:
            for problem in schema_reference_problems(policy.json_schema):
                v.add("policy.json_schema", problem)
    if not 0.0 <= policy.min_confidence <= 1.0:  # NaN fails every comparison
        v.add("policy.min_confidence", "must be in [0, 1]")
    if not 0 <= policy.min_corroboration <= 100:
        v.add("policy.min_corroboration", "must be between 0 and 100")
    if policy.pinned_space_class not in SPACE_CLASSES:
        v.add("policy.pinned_space_class", "must be canonical, working, correspondence or empty")
    for grade, delta in policy.evidence_weights.items():
        if not -1.0 <= delta <= 1.0:  # also refuses NaN
            v.add(f"policy.evidence_weights.{grade.lower()}", "must be in [-1, 1]")
    if policy.max_content_bytes < 0 or policy.max_content_bytes > server_max_content_bytes:
        v.add(
            "policy.max_content_bytes",
            f"must be between 0 and the server limit {server_max_content_bytes}",
        )
    for i, name in enumerate(policy.required_fields):
        if name not in REQUIRABLE_FIELDS:
            v.add(
                f"policy.required_fields[{i}]",
                f"unknown field {name!r}; allowed: {', '.join(sorted(REQUIRABLE_FIELDS))}",
            )
    if len(policy.webhooks) > MAX_WEBHOOKS:
        v.add("policy.webhooks", f"at most {MAX_WEBHOOKS} webhooks")
    for i, hook in enumerate(policy.webhooks):
        if not hook.url.startswith(("http://", "https://")):
            v.add(f"policy.webhooks[{i}].url", "must be an http:// or https:// URL")
        elif len(hook.url) > MAX_WEBHOOK_URL:
            v.add(f"policy.webhooks[{i}].url", f"at most {MAX_WEBHOOK_URL} characters")
        elif url_refusal is not None and (refused := url_refusal(hook.url)) is not None:
            v.add(f"policy.webhooks[{i}].url", refused)
        if not 0 < hook.timeout_ms <= MAX_TIMEOUT_MS:
            v.add(f"policy.webhooks[{i}].timeout_ms", f"must be in (0, {MAX_TIMEOUT_MS}]")
        if not hook.name:
            v.add(f"policy.webhooks[{i}].name", "required")
        elif len(hook.name) > MAX_WEBHOOK_NAME:
            v.add(f"policy.webhooks[{i}].name", f"at most {MAX_WEBHOOK_NAME} characters")
    for kind_name, seconds in policy.default_ttl_seconds.items():
        if kind_name not in Kind.__members__:
            v.add(
                f"policy.default_ttl_seconds[{kind_name}]",
                "unknown kind; use the MemoryKind enum name such as MEMORY_KIND_EPISODIC",
            )
        elif not 0 < seconds <= MAX_TTL_SECONDS:
            v.add(
                f"policy.default_ttl_seconds[{kind_name}]",
                f"must be between 1 and {MAX_TTL_SECONDS} seconds (100 years)",
            )
    if not 0.0 <= policy.near_duplicate_threshold <= 1.0:
        v.add("policy.near_duplicate_threshold", "must be in [0, 1]; 0 turns it off")
    if not 0 <= policy.retention_stability_hours <= MAX_STABILITY_HOURS:
        v.add(
            "policy.retention_stability_hours",
            f"must be between 0 and {MAX_STABILITY_HOURS:.0f} (finite); 0 means the default",
        )
    for kind_name, exponent in policy.decay_exponents.items():
        if kind_name not in Kind.__members__:
            v.add(f"policy.decay_exponents[{kind_name}]", "unknown kind")
        elif not 0 < exponent <= 5:
            v.add(f"policy.decay_exponents[{kind_name}]", "must be in (0, 5]")
    for i, type_ in enumerate(policy.allowed_personal_data):
        if type_ not in PERSONAL_DATA_TYPES:
            v.add(
                f"policy.allowed_personal_data[{i}]",
                f"unknown personal-data type {type_!r};"
                f" allowed: {', '.join(sorted(PERSONAL_DATA_TYPES))}",
            )
    if not 0 <= policy.validator_timeout_ms <= MAX_TIMEOUT_MS:
        v.add("policy.validator_timeout_ms", f"must be in [0, {MAX_TIMEOUT_MS}]")
    v.raise_if_any()
