"""The snapshot RPCs of RecallService: protobuf in, domain calls, protobuf out.

`SnapshotMethods` is a mixin: the RecallService servicer inherits it and provides
`self.ctx`.
"""

from __future__ import annotations

from typing import Any

import grpc
from engram.v1 import recall_pb2
from google.protobuf import empty_pb2

from engram_server.api import convert
from engram_server.platform.context import AppContext
from engram_server.platform.principal import current_principal
from engram_server.recall.snapshots import (
    ChangeType,
    Snapshot,
    SnapshotChange,
    parse_snapshot_name,
)
from engram_server.services.snapshots import SnapshotService, SnapshotSpec

Ctx = grpc.aio.ServicerContext[Any, Any]

_CHANGE_TYPES = {
    ChangeType.ADDED: recall_pb2.SNAPSHOT_CHANGE_TYPE_ADDED,
    ChangeType.REMOVED: recall_pb2.SNAPSHOT_CHANGE_TYPE_REMOVED,
    ChangeType.CHANGED: recall_pb2.SNAPSHOT_CHANGE_TYPE_CHANGED,
}


def snapshot_to_proto(s: Snapshot) -> recall_pb2.Snapshot:
    return recall_pb2.Snapshot(
        name=s.name,
        space=s.space,
        include_subspaces=s.include_subspaces,
        description=s.description,
        memory_count=s.memory_count,
        audit_sequence=s.audit_sequence,
        creator=s.creator,
        create_time=convert.dt_to_ts(s.create_time),
        labels=s.labels,
    )


def change_to_proto(c: SnapshotChange) -> recall_pb2.SnapshotChange:
    out = recall_pb2.SnapshotChange(
        change_type=_CHANGE_TYPES[c.change_type], changed_fields=list(c.changed_fields)
    )
    if c.before is not None:
        out.before.CopyFrom(convert.memory_to_proto(c.before))
    if c.after is not None:
        out.after.CopyFrom(convert.memory_to_proto(c.after))
    return out


class SnapshotMethods:
    """CreateSnapshot, GetSnapshot, ListSnapshots, RestoreSnapshot, DeleteSnapshot
    and DiffSnapshots."""

    ctx: AppContext

    @property
    def _snapshots(self) -> SnapshotService:
        return SnapshotService(self.ctx.db)

    async def CreateSnapshot(
        self, request: recall_pb2.CreateSnapshotRequest, context: Ctx
    ) -> recall_pb2.Snapshot:
        s = request.snapshot
        spec = SnapshotSpec(
            space=s.space,
            include_subspaces=s.include_subspaces,
            description=s.description,
            labels=dict(s.labels),
        )
        created = await self._snapshots.create(
            current_principal(),
            spec,
            request.snapshot_id,
            convert.request_key("CreateSnapshot", request),
        )
        return snapshot_to_proto(created)

    async def GetSnapshot(
        self, request: recall_pb2.GetSnapshotRequest, context: Ctx
    ) -> recall_pb2.Snapshot:
        snapshot = await self._snapshots.get(
            current_principal().tenant_id, parse_snapshot_name(request.name)
        )
        return snapshot_to_proto(snapshot)

    async def ListSnapshots(
        self, request: recall_pb2.ListSnapshotsRequest, context: Ctx
    ) -> recall_pb2.ListSnapshotsResponse:
        page, token = await self._snapshots.list_snapshots(
            current_principal().tenant_id, request.space, request.page_size, request.page_token
        )
        return recall_pb2.ListSnapshotsResponse(
            snapshots=[snapshot_to_proto(s) for s in page], next_page_token=token
        )

    async def RestoreSnapshot(
        self, request: recall_pb2.RestoreSnapshotRequest, context: Ctx
    ) -> recall_pb2.RestoreSnapshotResponse:
        outcome = await self._snapshots.restore(
            current_principal(),
            parse_snapshot_name(request.name),
            request.validate_only,
            request.reason,
            convert.request_key("RestoreSnapshot", request),
        )
        return recall_pb2.RestoreSnapshotResponse(
            retracted_count=outcome.retracted,
            recreated_count=outcome.recreated,
            revised_count=outcome.revised,
            unchanged_count=outcome.unchanged,
            validate_only=outcome.validate_only,
            audit_sequence=outcome.audit_sequence,
        )

    async def DeleteSnapshot(
        self, request: recall_pb2.DeleteSnapshotRequest, context: Ctx
    ) -> empty_pb2.Empty:
        await self._snapshots.delete(
            current_principal(),
            parse_snapshot_name(request.name),
            convert.request_key("DeleteSnapshot", request),
        )
        return empty_pb2.Empty()

    async def DiffSnapshots(
        self, request: recall_pb2.DiffSnapshotsRequest, context: Ctx
    ) -> recall_pb2.DiffSnapshotsResponse:
        base = parse_snapshot_name(request.base, "base")
        target = parse_snapshot_name(request.target, "target") if request.target else ""
        page = await self._snapshots.diff(
            current_principal().tenant_id, base, target, request.page_size, request.page_token
        )
        return recall_pb2.DiffSnapshotsResponse(
            changes=[change_to_proto(c) for c in page.changes],
            next_page_token=page.next_page_token,
            added_count=page.added,
            removed_count=page.removed,
            changed_count=page.changed,
        )
