"""Snapshots of a space: identity across restores, comparison, restore plans.

A snapshot copies the live memories of a space. Two states of a space (two
snapshots, or a snapshot and now) are compared memory by memory, matched by
identity: a memory's own id, or, for a memory a restore re-created, the id of
the original it names in its `restored_from` attribute. That identity is the
memory's *match key*.

Restoring never rewrites history, because terminal statuses stay terminal. The
plan a restore carries out, computed here from the snapshot and the live
memories, is made of ordinary lifecycle moves only:
- a live memory the snapshot does not hold is retracted;
- a live memory the snapshot holds with other content or metadata is revised
  back (a new revision), and a PENDING_CONFIRMATION one the snapshot holds as
  ACTIVE is confirmed; an ACTIVE one is never moved back to pending, and its
  confidence and evidence level are kept: they record corroboration gathered
  since, and only ever grow;
- a snapshot memory that is no longer live is re-created as a new memory (same
  content and metadata, `restored_from` naming the original), unless its
  content is live again in the space under another memory, which then stands
  for it, or its expire_time has passed, so it would only expire again.

Pure logic: no I/O, no protobuf.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from engram_server.errors import InvalidArgument
from engram_server.lifecycle.model import (
    MEMORY_NAME_PREFIX,
    REVISABLE_FIELDS,
    Memory,
    Status,
    memory_name,
)

SNAPSHOT_NAME_PREFIX = "snapshots/"
SNAPSHOT_ID_PATTERN = re.compile(r"^[a-z0-9_-]{1,63}$")
# Links a re-created memory to the original it stands for.
RESTORED_FROM = "restored_from"
# Statuses a snapshot copies: what recall can see.
SNAPSHOT_STATUSES = (Status.ACTIVE, Status.PENDING_CONFIRMATION)

# Memory fields a diff compares, by their proto names, in proto order. Left out:
# identity and bookkeeping (name, create/update time, revision, etag,
# content_hash, which follows content) and fields only terminal memories use.
COMPARED_FIELDS = (
    "space",
    "session",
    "thread",
    "kind",
    "content",
    "structured_content",
    "source",
    "agent",
    "confidence",
    "importance",
    "evidence_level",
    "tags",
    "slot_key",
    "topic",
    "depends_on",
    "status",
    "expire_time",
    "attributes",
)

# What a restore sets back: exactly the fields ReviseMemory may change.
REVERTIBLE_FIELDS = REVISABLE_FIELDS


# --- names ---------------------------------------------------------------------


def snapshot_name(snapshot_id: str) -> str:
    return f"{SNAPSHOT_NAME_PREFIX}{snapshot_id}"


def parse_snapshot_name(name: str, field_path: str = "name") -> str:
    """`snapshots/{id}` -> id, or INVALID_ARGUMENT naming `field_path`."""
    if not name:
        raise InvalidArgument.field(field_path, "required")
    prefix, _, raw = name.partition("/")
    if prefix + "/" != SNAPSHOT_NAME_PREFIX or not SNAPSHOT_ID_PATTERN.match(raw):
        raise InvalidArgument.field(
            field_path, "must look like snapshots/{snapshot}, with 1-63 characters of [a-z0-9_-]"
        )
    return raw


def restored_from(memory: Memory) -> uuid.UUID | None:
    """The original a memory was re-created from, if its attribute names one."""
    raw = memory.attributes.get(RESTORED_FROM, "")
    if not raw.startswith(MEMORY_NAME_PREFIX):
        return None
    try:
        return uuid.UUID(raw.removeprefix(MEMORY_NAME_PREFIX))
    except ValueError:
        return None


# --- the model -------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    id: str
    space: str
    include_subspaces: bool
    description: str
    labels: dict[str, str]
    memory_count: int
    audit_sequence: int
    creator: str
    create_time: datetime

    @property
    def name(self) -> str:
        return snapshot_name(self.id)


@dataclass(frozen=True)
class CapturedMemory:
    """One memory as a state of a space holds it."""

    match_key: uuid.UUID
    memory: Memory
    # `memory.depends_on`, each entry replaced by its match key, same order.
    depends_on_keys: tuple[uuid.UUID, ...]
    fingerprint: str


class ChangeType(StrEnum):
    ADDED = "ADDED"
    REMOVED = "REMOVED"
    CHANGED = "CHANGED"


@dataclass(frozen=True)
class SnapshotChange:
    change_type: ChangeType
    before: Memory | None
    after: Memory | None
    changed_fields: tuple[str, ...] = ()


@dataclass(frozen=True)
class DiffPage:
    changes: list[SnapshotChange]
    next_page_token: str
    added: int
    removed: int
    changed: int


# --- capturing a state -----------------------------------------------------------


def assign_match_keys(memories: Iterable[Memory]) -> dict[uuid.UUID, uuid.UUID]:
    """Memory id -> match key, for memories that are live together.

    A memory takes its original's id when it names one that no other memory of
    the set holds (the original itself, or an older re-creation of it); anything
    else keeps its own id. Keys are therefore unique within the set, and the
    answer depends only on the set, not on the order it was read in.
    """
    ordered = sorted(memories, key=lambda m: (m.create_time, m.id.int))
    own_ids = {m.id for m in ordered}
    keys: dict[uuid.UUID, uuid.UUID] = {}
    claimed: set[uuid.UUID] = set()
    for m in ordered:
        original = restored_from(m)
        if original is not None and original not in own_ids and original not in claimed:
            claimed.add(original)
            keys[m.id] = original
        else:
            keys[m.id] = m.id
    return keys


def comparable(memory: Memory, depends_on_keys: Sequence[uuid.UUID]) -> dict[str, Any]:
    """The compared fields of a memory as plain JSON values.

    Identity-bearing values are normalised so a re-created memory equals its
    original: dependencies by match key, `restored_from` dropped. Tags compare as
    a set, times in UTC.
    """
    expire = memory.expire_time.astimezone(UTC).isoformat() if memory.expire_time else None
    return {
        "space": memory.space,
        "session": memory.session,
        "thread": memory.thread,
        "kind": memory.kind.value,
        "content": memory.content,
        "structured_content": memory.structured_content,
        "source": memory.source,
        "agent": memory.agent,
        "confidence": memory.confidence,
        "importance": memory.importance,
        "evidence_level": memory.evidence_level.value,
        "tags": sorted(memory.tags),
        "slot_key": memory.slot_key,
        "topic": memory.topic,
        "depends_on": sorted(str(k) for k in depends_on_keys),
        "status": memory.status.value,
        "expire_time": expire,
        "attributes": {k: v for k, v in memory.attributes.items() if k != RESTORED_FROM},
    }


def fingerprint(memory: Memory, depends_on_keys: Sequence[uuid.UUID]) -> str:
    encoded = json.dumps(
        comparable(memory, depends_on_keys),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(encoded.encode()).hexdigest()


def capture(memories: Sequence[Memory]) -> list[CapturedMemory]:
    """The state of a space made of these live memories, ordered by match key."""
    keys = assign_match_keys(memories)
    captured = []
    for m in memories:
        dep_keys = tuple(keys.get(d, d) for d in m.depends_on)
        captured.append(CapturedMemory(keys[m.id], m, dep_keys, fingerprint(m, dep_keys)))
    return sorted(captured, key=lambda c: c.match_key.int)


def changed_fields(before: CapturedMemory, after: CapturedMemory) -> tuple[str, ...]:
    old = comparable(before.memory, before.depends_on_keys)
    new = comparable(after.memory, after.depends_on_keys)
    return tuple(f for f in COMPARED_FIELDS if old[f] != new[f])


def change_between(before: CapturedMemory | None, after: CapturedMemory | None) -> SnapshotChange:
    if before is None:
        assert after is not None
        return SnapshotChange(ChangeType.ADDED, None, after.memory)
    if after is None:
        return SnapshotChange(ChangeType.REMOVED, before.memory, None)
    return SnapshotChange(
        ChangeType.CHANGED, before.memory, after.memory, changed_fields(before, after)
    )


# --- restore plans -----------------------------------------------------------------


@dataclass(frozen=True)
class Revert:
    """A live memory set back to its snapshot values."""

    current: Memory
    item: CapturedMemory
    # Field -> snapshot value, for the REVERTIBLE_FIELDS that differ.
    changes: dict[str, Any]
    # PENDING_CONFIRMATION now, ACTIVE in the snapshot: confirm it.
    confirm: bool


@dataclass
class RestorePlan:
    retract: list[Memory] = field(default_factory=list)
    revert: list[Revert] = field(default_factory=list)
    recreate: list[CapturedMemory] = field(default_factory=list)
    # Already equal, or lapsed (expire_time passed: not brought back to expire again).
    unchanged: int = 0
    # Match key -> the live memory that stands for that snapshot memory.
    kept: dict[uuid.UUID, Memory] = field(default_factory=dict)


def _tags_equal(a: Sequence[str], b: Sequence[str]) -> bool:
    return sorted(a) == sorted(b)


def revert_changes(current: Memory, snapshot: Memory) -> dict[str, Any]:
    """The REVERTIBLE_FIELDS of `current` that differ from `snapshot`, with the
    snapshot's values. `current` keeps its own `restored_from` link."""
    attributes = {k: v for k, v in snapshot.attributes.items() if k != RESTORED_FROM}
    if RESTORED_FROM in current.attributes:
        attributes[RESTORED_FROM] = current.attributes[RESTORED_FROM]
    target: dict[str, Any] = {f: getattr(snapshot, f) for f in REVERTIBLE_FIELDS}
    target["attributes"] = attributes
    changes: dict[str, Any] = {}
    for name, value in target.items():
        now_value = getattr(current, name)
        same = _tags_equal(now_value, value) if name == "tags" else now_value == value
        if not same:
            changes[name] = value
    return changes


def _duplicate_slot(memory: Memory, scopes: Mapping[str, str]) -> tuple[str, ...] | None:
    """Where identical content may be live only once, by the space's dedup scope
    (None: anywhere, DEDUP_SCOPE_OFF)."""
    scope = scopes.get(memory.space, "SPACE")
    if scope == "OFF":
        return None
    if scope == "SESSION":
        return (memory.space, memory.content_hash, memory.session)
    return (memory.space, memory.content_hash)


def plan_restore(
    items: Sequence[CapturedMemory],
    live: Sequence[Memory],
    now: datetime,
    scopes: Mapping[str, str] | None = None,
) -> RestorePlan:
    """What makes `live` (the space's live memories now) equal to `items`.

    `scopes` maps a space to its policy's dedup scope (SPACE when absent)."""
    scopes = scopes or {}
    keys = assign_match_keys(live)
    unmatched_live = {keys[m.id]: m for m in live}
    pairs: list[tuple[Memory, CapturedMemory]] = []
    unmatched_items: list[CapturedMemory] = []
    for item in sorted(items, key=lambda c: c.match_key.int):
        current = unmatched_live.get(item.match_key)
        if current is not None and current.space == item.memory.space:
            del unmatched_live[item.match_key]
            pairs.append((current, item))
        else:
            unmatched_items.append(item)

    # Identical content is live at most once per space (per session, with the
    # SESSION dedup scope): if it is live under another memory, that memory stands
    # for the snapshot's. With dedup OFF, copies of one text coexist.
    by_content: dict[tuple[str, ...], uuid.UUID] = {}
    for k, m in unmatched_live.items():
        slot = _duplicate_slot(m, scopes)
        if slot is not None:
            by_content[slot] = k
    plan = RestorePlan()
    for item in unmatched_items:
        slot = _duplicate_slot(item.memory, scopes)
        holder = by_content.pop(slot, None) if slot is not None else None
        if holder is not None:
            pairs.append((unmatched_live.pop(holder), item))
        elif item.memory.expire_time is not None and item.memory.expire_time <= now:
            plan.unchanged += 1
        else:
            plan.recreate.append(item)

    plan.retract.extend(sorted(unmatched_live.values(), key=lambda m: m.id.int))
    for current, item in sorted(pairs, key=lambda p: p[1].match_key.int):
        plan.kept[item.match_key] = current
        changes = revert_changes(current, item.memory)
        confirm = (
            current.status == Status.PENDING_CONFIRMATION and item.memory.status == Status.ACTIVE
        )
        if changes or confirm:
            plan.revert.append(Revert(current, item, changes, confirm))
        else:
            plan.unchanged += 1
    return plan


def recreated_dependencies(
    item: CapturedMemory, new_ids: dict[uuid.UUID, uuid.UUID], kept: dict[uuid.UUID, Memory]
) -> tuple[uuid.UUID, ...]:
    """`depends_on` of a re-created memory: each dependency the restore brings back
    (re-created or kept live) is pointed at that memory, so cascades follow it;
    any other keeps the id the snapshot recorded."""
    out: list[uuid.UUID] = []
    for raw, key in zip(item.memory.depends_on, item.depends_on_keys, strict=True):
        if key in new_ids:
            out.append(new_ids[key])
        elif key in kept:
            out.append(kept[key].id)
        else:
            out.append(raw)
    return tuple(out)


def restored_attributes(item: CapturedMemory) -> dict[str, str]:
    """Attributes of a re-created memory: the snapshot's, plus the link to the original."""
    return {**item.memory.attributes, RESTORED_FROM: memory_name(item.match_key)}
