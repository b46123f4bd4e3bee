"""`google.protobuf.Timestamp` -> datetime, for every servicer.

A Timestamp is valid only from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z
with nanos in [0, 1e9) (timestamp.proto); anything else a client sends is refused
with INVALID_ARGUMENT naming the field, before it reaches datetime arithmetic or
PostgreSQL.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from engram_server.errors import InvalidArgument

MIN_SECONDS = -62135596800  # 0001-01-01T00:00:00Z
MAX_SECONDS = 253402300799  # 9999-12-31T23:59:59Z
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
OUT_OF_RANGE = "must be a valid timestamp between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z"


def to_datetime(ts: Timestamp, field_path: str) -> datetime:
    """`ts` as an aware UTC datetime; INVALID_ARGUMENT naming `field_path` if invalid."""
    if not MIN_SECONDS <= ts.seconds <= MAX_SECONDS or not 0 <= ts.nanos < 1_000_000_000:
        raise InvalidArgument.field(field_path, OUT_OF_RANGE)
    return _EPOCH + timedelta(seconds=ts.seconds, microseconds=ts.nanos // 1000)


def optional_time(message: Message, name: str, field_path: str) -> datetime | None:
    """`message.<name>` as a datetime, or None when the field is not set."""
    if not message.HasField(name):
        return None
    return to_datetime(getattr(message, name), field_path)
