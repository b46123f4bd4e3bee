"""Names, roles, visibility, the publish gate and the trust formula of pools."""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from engram_server.errors import InvalidArgument, Violations
from engram_server.platform.principal import Principal

POOL_ID = re.compile(r"^[a-z][a-z0-9-]{0,62}$")
# Server-assigned pool ids are UUIDs, which may start with a digit.
POOL_NAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
GROUP_ID = POOL_ID
MEMBER_ID = re.compile(r"^[0-9a-f]{20}$")
MAX_PRINCIPAL = 256
MAX_TOPIC = 128
MAX_TEXT = 2048
MAX_LABELS = 64
DEFAULT_INITIAL_TRUST = 0.5
DEFAULT_QUICK_WINDOW_SECONDS = 24 * 3600.0
VISIBILITIES = ("POOL", "CONTRIBUTORS", "TENANT")
EVIDENCE_RANK = {
    "UNSPECIFIED": 0,
    "UNVERIFIED": 1,
    "SINGLE_SOURCE": 2,
    "CORROBORATED": 3,
    "OFFICIAL": 4,
}


class Role(IntEnum):
    NONE = 0
    READER = 1
    WRITER = 2
    OWNER = 3


def visible_to(role: int) -> tuple[str, ...]:
    """The publication visibilities a caller with `role` may read (0: non-member)."""
    if role >= Role.WRITER:
        return VISIBILITIES
    if role >= Role.READER:
        return ("POOL", "TENANT")
    return ("TENANT",)


def audience(role: int) -> str:
    """The slot audience a member reads in SyncPool."""
    return "contributors" if role >= Role.WRITER else "readers"


def identities(principal: Principal) -> list[str]:
    """The member principals a caller matches: its agent identity (or its key's
    name for a key bound to no agent), and its key's own name."""
    out = [principal.actor]
    key = f"apiKeys/{principal.key_id}"
    if key not in out:
        out.append(key)
    return out


def member_id(principal: str) -> str:
    """A member's id, derived from its principal: a member removed and added again
    keeps its name, and its trust record stays addressable."""
    return hashlib.sha256(principal.encode()).hexdigest()[:20]


# --- names -----------------------------------------------------------------------


def pool_name(pool_id: str) -> str:
    return f"pools/{pool_id}"


def parse_pool_name(name: str, path: str = "name") -> str:
    if not name:
        raise InvalidArgument.field(path, "required")
    prefix, _, pool_id = name.partition("/")
    if prefix != "pools" or not POOL_NAME_ID.match(pool_id):
        raise InvalidArgument.field(path, "must look like pools/{pool}")
    return pool_id


def parse_child(name: str, collection: str, path: str = "name") -> tuple[str, str]:
    """`pools/{pool}/{collection}/{id}` -> (pool, id)."""
    if not name:
        raise InvalidArgument.field(path, "required")
    parts = name.split("/", 3)
    if len(parts) != 4 or parts[0] != "pools" or parts[2] != collection or not parts[3]:
        raise InvalidArgument.field(path, f"must look like pools/{{pool}}/{collection}/{{id}}")
    if not POOL_NAME_ID.match(parts[1]):
        raise InvalidArgument.field(path, "must look like pools/{pool}/...")
    return parts[1], parts[3]


def parse_member_name(name: str, path: str = "name") -> tuple[str, str]:
    pool_id, member = parse_child(name, "members", path)
    if not MEMBER_ID.match(member):
        raise InvalidArgument.field(path, "member id is not one this server assigned")
    return pool_id, member


def parse_trust_name(name: str, path: str = "name") -> tuple[str, str]:
    if not name.endswith("/trust"):
        raise InvalidArgument.field(path, "must look like pools/{pool}/members/{member}/trust")
    return parse_member_name(name[: -len("/trust")], path)


def parse_publication_name(name: str, path: str = "name") -> tuple[str, uuid.UUID]:
    pool_id, raw = parse_child(name, "publications", path)
    try:
        return pool_id, uuid.UUID(raw)
    except ValueError as exc:
        raise InvalidArgument.field(path, "publication id must be a UUID") from exc


def parse_topic_name(name: str, path: str = "name") -> tuple[str, str]:
    pool_id, topic = parse_child(name, "topics", path)
    if len(topic) > MAX_TOPIC:
        raise InvalidArgument.field(path, f"topic at most {MAX_TOPIC} characters")
    return pool_id, topic


def publication_name(pool_id: str, publication_id: uuid.UUID) -> str:
    return f"pools/{pool_id}/publications/{publication_id}"


def member_name(pool_id: str, member: str) -> str:
    return f"pools/{pool_id}/members/{member}"


def group_name(group_id: str) -> str:
    return f"groups/{group_id}"


def parse_group_name(name: str, path: str = "name") -> str:
    if not name:
        raise InvalidArgument.field(path, "required")
    prefix, _, group_id = name.partition("/")
    if prefix != "groups" or not GROUP_ID.match(group_id):
        raise InvalidArgument.field(path, "must look like groups/{group}")
    return group_id


def check_principal(v: Violations, path: str, principal: str, *, groups: bool) -> None:
    """An agent identity, `apiKeys/{key}`, or (with `groups`) `groups/{group}`."""
    if not principal:
        v.add(path, "required")
        return
    if len(principal) > MAX_PRINCIPAL or principal != principal.strip():
        v.add(path, f"at most {MAX_PRINCIPAL} characters, no surrounding spaces")
        return
    if any(ord(c) < 32 for c in principal):
        v.add(path, "must not contain control characters")
        return
    if principal.startswith("groups/"):
        if not groups:
            v.add(path, "a group cannot be a member of a group")
        elif not GROUP_ID.match(principal[len("groups/") :]):
            v.add(path, "must look like groups/{group}")
    elif principal.startswith("apiKeys/") and not principal[len("apiKeys/") :]:
        v.add(path, "must look like apiKeys/{api_key}")


def check_topic(v: Violations, path: str, topic: str) -> None:
    if len(topic) > MAX_TOPIC:
        v.add(path, f"at most {MAX_TOPIC} characters")
    elif any(ord(c) < 32 for c in topic):
        v.add(path, "must not contain control characters")


# --- the gate ----------------------------------------------------------------------


@dataclass(frozen=True)
class Gate:
    min_utility: float = 0.0
    allowed_kinds: tuple[str, ...] = ()
    review_below_evidence_level: str = "UNSPECIFIED"
    review_below_trust: float = 0.0
    require_review: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "min_utility": self.min_utility,
            "allowed_kinds": list(self.allowed_kinds),
            "review_below_evidence_level": self.review_below_evidence_level,
            "review_below_trust": self.review_below_trust,
            "require_review": self.require_review,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Gate:
        return cls(
            min_utility=float(d.get("min_utility", 0.0)),
            allowed_kinds=tuple(d.get("allowed_kinds", ())),
            review_below_evidence_level=str(d.get("review_below_evidence_level", "UNSPECIFIED")),
            review_below_trust=float(d.get("review_below_trust", 0.0)),
            require_review=bool(d.get("require_review", False)),
        )


@dataclass(frozen=True)
class Finding:
    rule: str
    refuses: bool
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "refuses": self.refuses, "message": self.message}


@dataclass(frozen=True)
class GateInput:
    status: str
    kind: str
    confidence: float
    importance: float
    evidence_level: str
    trust: float
    privacy: tuple[str, ...] = field(default=())


def utility(confidence: float, importance: float) -> float:
    return confidence * importance


def evaluate_gate(gate: Gate, m: GateInput) -> list[Finding]:
    """Every rule the memory does not pass; hard rules refuse, soft rules hold."""
    out: list[Finding] = []
    if m.status != "ACTIVE":
        out.append(Finding("memory_status", True, f"memory is {m.status}, not ACTIVE"))
    u = utility(m.confidence, m.importance)
    if gate.min_utility and u < gate.min_utility:
        out.append(Finding("min_utility", True, f"utility {u:.2f} is below {gate.min_utility:.2f}"))
    if gate.allowed_kinds and m.kind not in gate.allowed_kinds:
        out.append(
            Finding(
                "allowed_kinds",
                True,
                f"kind {m.kind} is not one of {', '.join(gate.allowed_kinds)}",
            )
        )
    if m.privacy:
        out.append(
            Finding("privacy", True, f"the memory carries {', '.join(sorted(set(m.privacy)))}")
        )
    wanted = EVIDENCE_RANK.get(gate.review_below_evidence_level, 0)
    if wanted and EVIDENCE_RANK.get(m.evidence_level, 0) < wanted:
        out.append(
            Finding(
                "review_below_evidence_level",
                False,
                f"evidence {m.evidence_level} is below {gate.review_below_evidence_level}",
            )
        )
    if gate.review_below_trust and m.trust < gate.review_below_trust:
        out.append(
            Finding(
                "review_below_trust",
                False,
                f"publisher trust {m.trust:.2f} is below {gate.review_below_trust:.2f}",
            )
        )
    if gate.require_review:
        out.append(Finding("require_review", False, "the pool reviews every publication"))
    return out


# --- trust ----------------------------------------------------------------------------

# Pseudo-observations behind the prior: a publisher starts at the pool's initial
# trust, worth this many observations.
PRIOR_WEIGHT = 2.0
# A quick invalidation weighs as much as this many uses.
INVALIDATION_WEIGHT = 2.0


def trust_score(
    initial: float, published: int, used: int, confirmed: int, quickly_invalidated: int
) -> float:
    """A publisher's trust: a Beta estimate that starts at the pool's initial trust.

    successes = confirmed + min(used, published)  (uses count at most once per
    publication on average, like ai-knot's min(1, used/published));
    failures = 2 x quickly_invalidated;
    trust = (2 x initial + successes) / (2 + successes + failures).
    docs/pool.md compares it with ai-knot's formula.
    """
    successes = confirmed + min(used, published)
    failures = INVALIDATION_WEIGHT * quickly_invalidated
    score = (PRIOR_WEIGHT * initial + successes) / (PRIOR_WEIGHT + successes + failures)
    if math.isnan(score):
        return initial
    return min(1.0, max(0.0, score))


# The same formula in SQL, over columns of pool_trust `t` and pools `p`.
TRUST_SQL = (
    "LEAST(1.0, GREATEST(0.0, (2.0 * {initial} + {c} + LEAST({u}, {p}))"
    " / (2.0 + {c} + LEAST({u}, {p}) + 2.0 * {q})))"
)


def trust_sql(initial: str, t: str) -> str:
    return TRUST_SQL.format(
        initial=initial,
        c=f"coalesce({t}.confirmed_count, 0)",
        u=f"coalesce({t}.used_count, 0)",
        p=f"coalesce({t}.published_count, 0)",
        q=f"coalesce({t}.quickly_invalidated_count, 0)",
    )
