"""Space profiles: a space's knowledge dynamics, by aggregation alone (no LLM).

Classification (thresholds of the seed's profiler):
- canonical: stability >= 0.6, churn <= 0.4 and, when any live memory is graded,
  evidence >= 0.3 (ungraded spaces are not penalised);
- correspondence: churn >= 0.6 and stability <= 0.4;
- working: everything else. A space without live memories is not classified and no
  run is kept ("no data" is not a label).

A class pinned on the space (Policy.pinned_space_class) is never relabelled: the
profile reports the pin as `space_class`, the observation beside it, and `drift`
when they disagree. Each run is kept (unless `dry_run`) so drift can be listed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from engram.v1 import evidence_pb2
from google.protobuf import json_format

from engram_server.api import convert
from engram_server.errors import InvalidArgument, Violations
from engram_server.lifecycle.validation import check_space
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.services import paging
from engram_server.services.evidence import EvidenceService
from engram_server.store import evidence as evidence_store

# A live memory at least this old and never revised counts as settled.
SETTLED_AGE = timedelta(days=7)
_CLASSES = {
    "": evidence_pb2.SPACE_CLASS_UNSPECIFIED,
    "canonical": evidence_pb2.SPACE_CLASS_CANONICAL,
    "working": evidence_pb2.SPACE_CLASS_WORKING,
    "correspondence": evidence_pb2.SPACE_CLASS_CORRESPONDENCE,
}


def classify(churn: float, stability: float, evidence: float, graded: bool) -> str:
    if stability >= 0.6 and churn <= 0.4 and (not graded or evidence >= 0.3):
        return "canonical"
    if churn >= 0.6 and stability <= 0.4:
        return "correspondence"
    return "working"


def parse_profile_name(name: str) -> str:
    if not (name.startswith("spaces/") and name.endswith("/profile")) or len(name) <= len(
        "spaces//profile"
    ):
        raise InvalidArgument.field("name", "must look like spaces/{space}/profile")
    return name[len("spaces/") : -len("/profile")]


_STATS_SQL = """
WITH m AS (
  SELECT * FROM memories WHERE space = %(space)s OR (%(sub)s AND space LIKE %(prefix)s)
)
SELECT
  (SELECT count(*) FROM m) AS total,
  (SELECT count(*) FROM m WHERE status IN ('ACTIVE', 'PENDING_CONFIRMATION')) AS live,
  (SELECT coalesce(jsonb_object_agg(kind, n), '{}') FROM
     (SELECT kind, count(*) n FROM m GROUP BY kind) k) AS by_kind,
  (SELECT coalesce(jsonb_object_agg(status, n), '{}') FROM
     (SELECT status, count(*) n FROM m GROUP BY status) s) AS by_status,
  (SELECT coalesce(jsonb_object_agg(evidence_level, n), '{}') FROM
     (SELECT evidence_level, count(*) n FROM m
       WHERE status IN ('ACTIVE', 'PENDING_CONFIRMATION') GROUP BY evidence_level) e)
    AS by_evidence,
  (SELECT coalesce(avg(revision), 0) FROM m) AS revisions_per_memory,
  (SELECT count(*) FROM memory_revisions r JOIN m ON m.id = r.memory_id
    WHERE r.revision > 1 AND r.create_time >= %(start)s AND r.create_time < %(end)s)
    AS revisions_in_window,
  (SELECT count(*) FROM m WHERE status IN ('SUPERSEDED', 'RETRACTED', 'EXPIRED')
    AND update_time >= %(start)s AND update_time < %(end)s) AS deprecated_in_window,
  (SELECT count(*) FROM m WHERE create_time >= %(start)s AND create_time < %(end)s)
    AS created_in_window,
  (SELECT count(*) FROM m WHERE status IN ('SUPERSEDED', 'RETRACTED', 'EXPIRED'))
    AS deprecated,
  (SELECT count(*) FROM m WHERE status IN ('ACTIVE', 'PENDING_CONFIRMATION')
    AND revision = 1 AND create_time <= %(settled)s) AS settled,
  (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM %(end)s - create_time))
     FROM m WHERE status IN ('ACTIVE', 'PENDING_CONFIRMATION')) AS median_age
"""

_DEPTH_SQL = """
WITH RECURSIVE chain(id, depth) AS (
  SELECT id, 1 FROM memories
   WHERE (space = %(space)s OR (%(sub)s AND space LIKE %(prefix)s))
     AND status = 'SUPERSEDED' AND superseded_by IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM memories o WHERE o.superseded_by = memories.id)
  UNION ALL
  SELECT m.superseded_by, c.depth + 1 FROM chain c JOIN memories m ON m.id = c.id
   WHERE m.superseded_by IS NOT NULL AND c.depth < 64
)
SELECT greatest(coalesce(max(depth), 0) - 1, 0) AS depth FROM chain
"""


async def compute_profile(
    ctx: AppContext,
    tenant: str,
    space: str,
    include_subspaces: bool,
    window_days: int,
    now: datetime,
    pinned: str,
) -> evidence_pb2.SpaceProfile:
    start = now - timedelta(days=window_days)
    escaped = space.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    params: dict[str, Any] = {
        "space": space,
        "sub": include_subspaces,
        "prefix": escaped + "/%",
        "start": start,
        "end": now,
        "settled": now - SETTLED_AGE,
    }
    async with ctx.db.tenant_tx(tenant) as conn:
        cur = await conn.execute(_STATS_SQL, params)
        stats = await cur.fetchone()
        cur = await conn.execute(_DEPTH_SQL, params)
        depth_row = await cur.fetchone()
    assert stats is not None and depth_row is not None
    total = int(stats["total"])
    live = int(stats["live"])
    by_evidence = {k: int(v) for k, v in stats["by_evidence"].items()}
    graded = sum(n for k, n in by_evidence.items() if k != "UNSPECIFIED")
    strong = by_evidence.get("CORROBORATED", 0) + by_evidence.get("OFFICIAL", 0)
    evidence = strong / live if live and graded else 0.0
    churn = min(
        1.0,
        (int(stats["revisions_in_window"]) + int(stats["deprecated_in_window"])) / max(1, total),
    )
    stability = int(stats["settled"]) / live if live else 0.0
    observed = classify(churn, stability, evidence, graded > 0) if live else ""
    shown = pinned or observed
    profile = evidence_pb2.SpaceProfile(
        name=f"spaces/{space}/profile",
        space=space,
        space_class=_CLASSES[shown] if live or pinned else evidence_pb2.SPACE_CLASS_UNSPECIFIED,
        churn=churn,
        stability=stability,
        evidence_score=evidence,
        deprecation_ratio=int(stats["deprecated"]) / total if total else 0.0,
        live_memory_count=live,
        total_memory_count=total,
        memories_by_kind={f"MEMORY_KIND_{k}": int(v) for k, v in stats["by_kind"].items()},
        memories_by_status={f"MEMORY_STATUS_{k}": int(v) for k, v in stats["by_status"].items()},
        live_memories_by_evidence={f"EVIDENCE_LEVEL_{k}": v for k, v in by_evidence.items()},
        revisions_per_memory=float(stats["revisions_per_memory"]),
        max_supersession_depth=int(depth_row["depth"]),
        pinned_class=_CLASSES[pinned],
        observed_class=_CLASSES[observed],
        drift=bool(pinned and observed and pinned != observed),
    )
    if stats["median_age"] is not None:
        profile.median_live_age.FromTimedelta(timedelta(seconds=float(stats["median_age"])))
    convert.set_time(profile.window_start_time, start)
    convert.set_time(profile.window_end_time, now)
    return profile


async def get_space_profile(
    ctx: AppContext, service: EvidenceService, request: evidence_pb2.GetSpaceProfileRequest
) -> evidence_pb2.SpaceProfile:
    v = Violations()
    space = ""
    try:
        space = parse_profile_name(request.name)
        check_space(v, "name", space)
    except InvalidArgument as exc:
        v.items.extend(exc.violations)
    if not 0 <= request.window_days <= 3650:
        v.add("window_days", "must be between 0 and 3650")
    v.raise_if_any()
    tenant = current_principal().tenant_id
    now = convert.ts_to_dt(request.now, "now") if request.HasField("now") else datetime.now(UTC)
    window_days = request.window_days or 30
    # The window and the settled age are counted back from `now`: both must stay
    # after 0001-01-01, the earliest time a datetime (and a Timestamp) can hold.
    reach = max(timedelta(days=window_days), SETTLED_AGE)
    if now - datetime.min.replace(tzinfo=UTC) < reach:
        raise InvalidArgument.field(
            "now", f"must be at least {reach.days} days after 0001-01-01T00:00:00Z"
        )
    limits = (await service.lifecycle._limits_for({space}, tenant))[space]
    profile = await compute_profile(
        ctx,
        tenant,
        space,
        request.include_subspaces,
        window_days,
        now,
        limits.policy.pinned_space_class,
    )
    computed = datetime.now(UTC)
    if not request.dry_run and profile.live_memory_count:
        async with ctx.db.tenant_tx(tenant) as conn:
            computed = await evidence_store.insert_profile(
                conn,
                tenant,
                space,
                {
                    **json_format.MessageToDict(profile),
                    "observed_class": _name(profile.observed_class),
                },
                profile.drift,
            )
    convert.set_time(profile.compute_time, computed)
    return profile


def _name(number: int) -> str:
    for name, value in _CLASSES.items():
        if value == number:
            return name
    return ""


async def list_space_profiles(
    ctx: AppContext, request: evidence_pb2.ListSpaceProfilesRequest
) -> evidence_pb2.ListSpaceProfilesResponse:
    v = Violations()
    size = v.collect(paging.page_size, request.page_size) or 0
    if request.space:
        check_space(v, "space", request.space)
    v.raise_if_any()
    fingerprint = paging.filter_fingerprint("ListSpaceProfiles", request.space, request.drift_only)
    after = paging.time_id_position(request.page_token, fingerprint)
    async with ctx.db.tenant_tx(current_principal().tenant_id) as conn:
        rows = await evidence_store.list_profiles(
            conn, space=request.space, drift_only=request.drift_only, limit=size + 1, after=after
        )
    rows, token = paging.time_id_page(rows, size, fingerprint, lambda r: (r[1], r[0]))
    profiles = []
    for _, created, data in rows:
        stored = {k: v for k, v in data.items() if k != "observed_class"}
        profile = json_format.ParseDict(
            stored, evidence_pb2.SpaceProfile(), ignore_unknown_fields=True
        )
        convert.set_time(profile.compute_time, created)
        profiles.append(profile)
    return evidence_pb2.ListSpaceProfilesResponse(profiles=profiles, next_page_token=token)
