"""Request pieces shared by Recall, BuildContext and Engage: the filter, the
bi-temporal times, formats and pools."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from engram.v1 import recall_pb2, types_pb2

from engram_server.api import convert
from engram_server.api.timestamps import optional_time
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.model import EvidenceLevel, Kind
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.pools import recall as pool_recall
from engram_server.pools.model import identities
from engram_server.pools.recall import parse_pools
from engram_server.recall.context import ContextFormat
from engram_server.services.recall import RecallQuery

CONTEXT_FORMATS = {
    recall_pb2.CONTEXT_FORMAT_UNSPECIFIED: ContextFormat.MARKDOWN,
    recall_pb2.CONTEXT_FORMAT_MARKDOWN: ContextFormat.MARKDOWN,
    recall_pb2.CONTEXT_FORMAT_PLAIN: ContextFormat.PLAIN,
    recall_pb2.CONTEXT_FORMAT_XML: ContextFormat.XML,
    recall_pb2.CONTEXT_FORMAT_JSON: ContextFormat.JSON,
}


def filter_fields(f: recall_pb2.RecallFilter, v: Violations) -> dict[str, Any]:
    """The `RecallQuery` fields a `RecallFilter` sets; bad enum values go to `v`
    under `filter.*`."""
    kinds = [
        convert.enum_name(types_pb2.MemoryKind, x, "MEMORY_KIND_", f"filter.kinds[{i}]", v)
        for i, x in enumerate(f.kinds)
    ]
    evidence = convert.enum_name(
        types_pb2.EvidenceLevel,
        f.min_evidence_level,
        "EVIDENCE_LEVEL_",
        "filter.min_evidence_level",
        v,
    )
    return {
        "kinds": tuple(Kind(x) for x in kinds if x and x != "UNSPECIFIED"),
        "tags": tuple(f.tags),
        "topic": f.topic,
        "session": f.session,
        "create_time_start": optional_time(f, "create_time_start", "filter.create_time_start"),
        "create_time_end": optional_time(f, "create_time_end", "filter.create_time_end"),
        "min_evidence_level": (EvidenceLevel(evidence) if evidence else EvidenceLevel.UNSPECIFIED),
        "include_superseded": f.include_superseded,
        "include_expired": f.include_expired,
        "slot_key": f.slot_key,
    }


def bitemporal_times(
    request: recall_pb2.RecallRequest | recall_pb2.BuildContextRequest | recall_pb2.EngageRequest,
    v: Violations,
) -> tuple[datetime | None, datetime | None]:
    """The request's `valid_at` and `known_at` (None when unset); a bad one is
    recorded in `v` and read as unset."""
    times: list[datetime | None] = []
    for field in ("valid_at", "known_at"):
        try:
            times.append(optional_time(request, field, field))
        except InvalidArgument as exc:
            v.items.extend(exc.violations)
            times.append(None)
    return times[0], times[1]


async def with_pools(ctx: AppContext, q: RecallQuery, pools: Any) -> RecallQuery:
    """`q` with the requested pools and the caller's identities, against which the
    recall's own read checks its membership (pools.recall)."""
    if not pools:
        return q
    v = Violations()
    pool_ids = parse_pools(pools, v)
    v.raise_if_any()
    scopes = tuple(pool_recall.PoolScope(p) for p in pool_ids)
    return replace(q, pools=scopes, reader=tuple(identities(current_principal())))
