"""Domain -> protobuf conversion of memories: every enum value and instant maps exactly."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
from engram.v1 import types_pb2
from engram_server.api import convert
from engram_server.lifecycle.model import EvidenceLevel, Kind, Status
from engram_server.store.memories import row_to_memory
from google.protobuf.timestamp_pb2 import Timestamp


def _row(**overrides: object) -> dict[str, object]:
    now = datetime.now(UTC)
    row: dict[str, object] = dict(
        id=uuid.uuid4(), space="team", session="s1", thread="t", kind="SEMANTIC",
        content="Alice prefers Go", structured_content=None, source="test", agent="key",
        confidence=0.8, importance=0.5, evidence_level="UNSPECIFIED", tags=["a"], slot_key="",
        topic="", depends_on=[], status="ACTIVE", create_time=now, update_time=now,
        expire_time=None, retract_time=None, retraction_reason="", content_hash="ab" * 32,
        revision=1, superseded_by=None, validation_notes=[], attributes={}, access_count=0,
        last_access_time=None,
    )  # fmt: skip
    row.update(overrides)
    return row


@pytest.mark.parametrize(
    "instant",
    [
        datetime(2026, 11, 29, 18, 0, 0, 123456, tzinfo=UTC),
        datetime(1965, 3, 1, 12, 0, 0, 999999, tzinfo=UTC),  # before the epoch
        datetime(2030, 1, 1, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        datetime(1970, 1, 1, tzinfo=UTC),
    ],
)
def test_every_time_field_matches_timestamp_from_datetime(instant: datetime) -> None:
    memory = row_to_memory(
        _row(
            create_time=instant,
            update_time=instant,
            expire_time=instant,
            retract_time=instant,
            last_access_time=instant,
        )
    )
    expected = Timestamp()
    expected.FromDatetime(instant)
    out = convert.memory_to_proto(memory)
    for field in ("create_time", "update_time", "expire_time", "retract_time"):
        assert getattr(out, field) == expected, field
    assert out.last_access_time == expected


def test_unset_times_and_references_stay_unset() -> None:
    out = convert.memory_to_proto(row_to_memory(_row()))
    for field in ("expire_time", "retract_time", "last_access_time", "structured_content"):
        assert not out.HasField(field), field
    assert out.superseded_by == "" and list(out.depends_on) == []


@pytest.mark.parametrize("kind", list(Kind))
def test_kinds_map_by_name(kind: Kind) -> None:
    out = convert.memory_to_proto(row_to_memory(_row(kind=kind.value)))
    assert types_pb2.MemoryKind.Name(out.kind) == f"MEMORY_KIND_{kind.value}"


@pytest.mark.parametrize("status", list(Status))
def test_statuses_map_by_name(status: Status) -> None:
    out = convert.memory_to_proto(row_to_memory(_row(status=status.value)))
    assert types_pb2.MemoryStatus.Name(out.status) == f"MEMORY_STATUS_{status.value}"


@pytest.mark.parametrize("level", list(EvidenceLevel))
def test_evidence_levels_map_by_name(level: EvidenceLevel) -> None:
    out = convert.memory_to_proto(row_to_memory(_row(evidence_level=level.value)))
    assert types_pb2.EvidenceLevel.Name(out.evidence_level) == f"EVIDENCE_LEVEL_{level.value}"


def test_references_become_resource_names() -> None:
    dep, successor = uuid.uuid4(), uuid.uuid4()
    out = convert.memory_to_proto(row_to_memory(_row(depends_on=[dep], superseded_by=successor)))
    assert list(out.depends_on) == [f"memories/{dep}"]
    assert out.superseded_by == f"memories/{successor}"
