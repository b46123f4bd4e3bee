"""Patterns across decision outcomes, for the Dream State pass over a decision space.

One outcome says how one decision turned out; several that share something say
more: when decisions with the same tag, or anchored in the same directory, keep
missing their expectations, that is worth a memory of its own ("decisions about
caching in src/cache/ missed 3 of 4 times"). Dream proposes it held for review
(PENDING_CONFIRMATION): a person confirms or retracts it, it never becomes
ACTIVE on its own.

Pure: the same decisions always give the same patterns, in the same order.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from engram_server.decisions.model import Decision, Outcome

MIN_DECISIONS = 3  # decisions that went wrong before a pattern is worth proposing
MIN_SHARE = 2 / 3  # of the decisions with an outcome that share the feature
MAX_PATTERNS = 10
# Tags every mined decision may carry: they say nothing about what it is about.
_PLAIN_TAGS = frozenset({"decision", "revert", "restore", "merge"})
_WENT_WRONG = (Outcome.MISSED, Outcome.PARTIALLY_MET)


@dataclass(frozen=True)
class Pattern:
    feature: str  # "tag:caching" or "path:src/cache/"
    decisions: tuple[Decision, ...]  # those that went wrong, oldest first
    with_outcome: int  # decisions sharing the feature with any outcome

    @property
    def description(self) -> str:
        kind, _, value = self.feature.partition(":")
        where = f"tagged '{value}'" if kind == "tag" else f"anchored in {value}"
        return f"decisions {where}"

    def content(self, space: str) -> str:
        """The pattern memory's text: the finding, then each decision behind it."""
        lines = [
            f"Pattern in {space}: {self.description} missed or only partly met their"
            f" expectations {len(self.decisions)} of {self.with_outcome} times.",
        ]
        for d in self.decisions:
            latest = d.outcomes[-1] if d.outcomes else None
            summary = f": {latest.summary}" if latest and latest.summary else ""
            lines.append(f"- {d.title} ({d.outcome.value}{summary})")
        return "\n".join(lines)[:4000]


def _features(d: Decision) -> set[str]:
    found = {f"tag:{t}" for t in d.tags if t not in _PLAIN_TAGS}
    for a in d.anchors:
        directory = a.path.rsplit("/", 1)[0] + "/" if "/" in a.path else ""
        if directory:
            found.add(f"path:{directory}")
    return found


def find_patterns(decisions: Sequence[Decision]) -> list[Pattern]:
    """Features shared by at least MIN_DECISIONS decisions that went wrong, which
    are at least MIN_SHARE of the decisions with an outcome sharing it. A feature
    whose decisions are exactly those of a broader one already found is left out."""
    rated = sorted(
        (d for d in decisions if d.outcome != Outcome.UNSPECIFIED),
        key=lambda d: (d.decision_time, str(d.id)),
    )
    members: dict[str, list[Decision]] = defaultdict(list)
    for d in rated:
        for feature in _features(d):
            members[feature].append(d)
    found: list[Pattern] = []
    seen: set[frozenset[str]] = set()
    for feature in sorted(members, key=lambda f: (-len(members[f]), f)):
        group = members[feature]
        wrong = [d for d in group if d.outcome in _WENT_WRONG]
        if len(wrong) < MIN_DECISIONS or len(wrong) < MIN_SHARE * len(group):
            continue
        key = frozenset(str(d.id) for d in wrong)
        if key in seen:
            continue
        seen.add(key)
        found.append(Pattern(feature, tuple(wrong), len(group)))
        if len(found) >= MAX_PATTERNS:
            break
    return found
