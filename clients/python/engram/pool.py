"""Pools: memory shared across agents and teams (`client.pools`).

Every PoolService RPC has a method here, and the groups of agent identities that
join pools as one member have theirs too (`create_group` and the rest: tenant
administrators). Results are the API's protobuf messages (`engram.v1.pool_pb2`):
`Pool`, `PoolMember`, `Publication`, `PublishMemoryResponse`, `AgentTrust`,
`Topic`, `SyncPoolResponse`, `SubscribeTopicResponse`. Lists are iterators that
fetch the next page only when needed; `sync` and `subscribe` are streams.

Writes send a `request_id` (yours, or a fresh UUID per call), so the SDK retries
them on UNAVAILABLE without ever applying one twice.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import field_mask_pb2

from engram import errors
from engram.v1 import (
    admin_pb2,
    admin_pb2_grpc,
    pool_pb2,
    pool_pb2_grpc,
    recall_pb2,
    recall_pb2_grpc,
)

if TYPE_CHECKING:
    from engram.client import _Transport

READER = pool_pb2.POOL_ROLE_READER
WRITER = pool_pb2.POOL_ROLE_WRITER
OWNER = pool_pb2.POOL_ROLE_OWNER
_RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
_EVENTUAL = recall_pb2.READ_CONSISTENCY_UNSPECIFIED
_ROLES = {"reader": READER, "writer": WRITER, "owner": OWNER}
_VISIBILITIES = {
    "": pool_pb2.PUBLICATION_VISIBILITY_UNSPECIFIED,
    "pool": pool_pb2.PUBLICATION_VISIBILITY_POOL,
    "contributors": pool_pb2.PUBLICATION_VISIBILITY_CONTRIBUTORS,
    "tenant": pool_pb2.PUBLICATION_VISIBILITY_TENANT,
}


def pool_name(pool: str) -> str:
    """`shared` or `pools/shared` -> `pools/shared`."""
    return pool if pool.startswith("pools/") else f"pools/{pool}"


def group_name(group: str) -> str:
    return group if group.startswith("groups/") else f"groups/{group}"


def role(value: int | str) -> Any:
    """A role as the API's enum value: 1-3, or `reader` / `writer` / `owner`."""
    if isinstance(value, str):
        try:
            return _ROLES[value.lower()]
        except KeyError:
            raise ValueError(f"unknown role {value!r}: reader, writer or owner") from None
    return value


def visibility(value: int | str) -> Any:
    if isinstance(value, str):
        try:
            return _VISIBILITIES[value.lower()]
        except KeyError:
            raise ValueError(f"unknown visibility {value!r}: pool, contributors, tenant") from None
    return value


def _rid(request_id: str | None) -> str:
    return request_id or str(uuid.uuid4())


def gate(
    *,
    min_utility: float = 0.0,
    allowed_kinds: Iterable[Any] = (),
    review_below_evidence_level: Any = 0,
    review_below_trust: float = 0.0,
    require_review: bool = False,
) -> pool_pb2.PublishGate:
    """A publish gate (see PublishGate in pool.proto)."""
    return pool_pb2.PublishGate(
        min_utility=min_utility,
        allowed_kinds=list(allowed_kinds),
        review_below_evidence_level=review_below_evidence_level,
        review_below_trust=review_below_trust,
        require_review=require_review,
    )


class PoolClient:
    """PoolService and AdminService groups, over the client's channel and retries."""

    def __init__(self, channel: grpc.Channel, transport: _Transport) -> None:
        self._stub = pool_pb2_grpc.PoolServiceStub(channel)
        self._admin = admin_pb2_grpc.AdminServiceStub(channel)
        self._recall = recall_pb2_grpc.RecallServiceStub(channel)
        self._transport = transport

    def _call(self, method: Any, request: Any, *, retryable: bool = True) -> Any:
        return self._transport.unary(method, request, retryable=retryable)

    # -- pools -----------------------------------------------------------------

    def create(
        self,
        display_name: str,
        *,
        pool_id: str = "",
        description: str = "",
        gate: pool_pb2.PublishGate | None = None,
        default_visibility: int | str = 0,
        initial_trust: float = 0.0,
        quick_invalidation_window: timedelta | None = None,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> pool_pb2.Pool:
        pool = pool_pb2.Pool(
            display_name=display_name,
            description=description,
            default_visibility=visibility(default_visibility),
            initial_trust=initial_trust,
            labels=dict(labels or {}),
        )
        if gate is not None:
            pool.gate.CopyFrom(gate)
        if quick_invalidation_window is not None:
            pool.quick_invalidation_window.FromTimedelta(quick_invalidation_window)
        request = pool_pb2.CreatePoolRequest(
            pool=pool, pool_id=pool_id, request_id=_rid(request_id)
        )
        return self._call(self._stub.CreatePool, request)  # type: ignore[no-any-return]

    def get(self, pool: str) -> pool_pb2.Pool:
        return self._call(self._stub.GetPool, pool_pb2.GetPoolRequest(name=pool_name(pool)))  # type: ignore[no-any-return]

    def list(self, *, page_size: int = 0) -> Iterator[pool_pb2.Pool]:
        return self._transport.pages(
            self._stub.ListPools,
            pool_pb2.ListPoolsRequest(page_size=page_size),
            lambda r: r.pools,
        )

    def update(
        self,
        pool: str,
        *,
        etag: str = "",
        request_id: str | None = None,
        **fields: Any,
    ) -> pool_pb2.Pool:
        """Changes the named fields: display_name, description, gate,
        default_visibility, initial_trust, labels, quick_invalidation_window."""
        value = pool_pb2.Pool(name=pool_name(pool), etag=etag)
        for key, new in fields.items():
            if key == "gate":
                value.gate.CopyFrom(new)
            elif key == "labels":
                value.labels.update(new)
            elif key == "default_visibility":
                value.default_visibility = visibility(new)
            elif key == "quick_invalidation_window":
                value.quick_invalidation_window.FromTimedelta(new)
            else:
                setattr(value, key, new)
        request = pool_pb2.UpdatePoolRequest(
            pool=value,
            update_mask=field_mask_pb2.FieldMask(paths=sorted(fields)),
            request_id=_rid(request_id),
        )
        return self._call(self._stub.UpdatePool, request)  # type: ignore[no-any-return]

    def delete(self, pool: str, *, etag: str = "", request_id: str | None = None) -> None:
        request = pool_pb2.DeletePoolRequest(
            name=pool_name(pool), etag=etag, request_id=_rid(request_id)
        )
        self._call(self._stub.DeletePool, request)

    # -- members ---------------------------------------------------------------

    def add_member(
        self, pool: str, principal: str, member_role: int | str, *, request_id: str | None = None
    ) -> pool_pb2.PoolMember:
        """Adds an agent identity, `apiKeys/{key}` or `groups/{group}`, or changes its role."""
        request = pool_pb2.AddPoolMemberRequest(
            parent=pool_name(pool),
            member=pool_pb2.PoolMember(principal=principal, role=role(member_role)),
            request_id=_rid(request_id),
        )
        return self._call(self._stub.AddPoolMember, request)  # type: ignore[no-any-return]

    def remove_member(self, member: str, *, request_id: str | None = None) -> None:
        """Removes `pools/{pool}/members/{member}` (see `members` for the name)."""
        request = pool_pb2.RemovePoolMemberRequest(name=member, request_id=_rid(request_id))
        self._call(self._stub.RemovePoolMember, request)

    def members(
        self, pool: str, *, principal: str = "", member_role: int | str = 0, page_size: int = 0
    ) -> Iterator[pool_pb2.PoolMember]:
        request = pool_pb2.ListPoolMembersRequest(
            parent=pool_name(pool),
            principal=principal,
            role=role(member_role),
            page_size=page_size,
        )
        return self._transport.pages(self._stub.ListPoolMembers, request, lambda r: r.members)

    # -- publications ----------------------------------------------------------

    def publish(
        self,
        pool: str,
        memory: str,
        *,
        topic: str = "",
        visibility_: int | str = 0,
        request_id: str | None = None,
    ) -> pool_pb2.PublishMemoryResponse:
        """Offers a memory to a pool through its gate: PUBLISHED, HELD_FOR_REVIEW
        (with the findings) or REFUSED (with the reasons)."""
        request = pool_pb2.PublishMemoryRequest(
            pool=pool_name(pool),
            memory=memory,
            topic=topic,
            visibility=visibility(visibility_),
            request_id=_rid(request_id),
        )
        return self._call(self._stub.PublishMemory, request)  # type: ignore[no-any-return]

    def unpublish(
        self, publication: str, reason: str = "", *, request_id: str | None = None
    ) -> pool_pb2.Publication:
        request = pool_pb2.UnpublishMemoryRequest(
            name=publication, reason=reason, request_id=_rid(request_id)
        )
        return self._call(self._stub.UnpublishMemory, request)  # type: ignore[no-any-return]

    def review(
        self, publication: str, approve: bool, note: str = "", *, request_id: str | None = None
    ) -> pool_pb2.Publication:
        request = pool_pb2.ReviewPublicationRequest(
            name=publication,
            decision=pool_pb2.REVIEW_DECISION_APPROVE
            if approve
            else pool_pb2.REVIEW_DECISION_REJECT,
            note=note,
            request_id=_rid(request_id),
        )
        return self._call(self._stub.ReviewPublication, request)  # type: ignore[no-any-return]

    def get_publication(self, publication: str) -> pool_pb2.Publication:
        request = pool_pb2.GetPublicationRequest(name=publication)
        return self._call(self._stub.GetPublication, request)  # type: ignore[no-any-return]

    def publications(
        self,
        pool: str,
        *,
        states: Iterable[Any] = (),
        topic: str = "",
        publisher: str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> Iterator[pool_pb2.Publication]:
        request = pool_pb2.ListPublicationsRequest(
            parent=pool_name(pool),
            states=list(states),
            topic=topic,
            publisher=publisher,
            memory=memory,
            page_size=page_size,
        )
        return self._transport.pages(self._stub.ListPublications, request, lambda r: r.publications)

    def recall(
        self,
        query: str,
        pools: Iterable[str],
        *,
        spaces: Iterable[str] = (),
        k: int = 0,
        topic: str = "",
        read_your_writes: bool = False,
    ) -> recall_pb2.RecallResponse:
        """Recall over the caller's `spaces` and the `pools` it may read, in one
        ranking; each hit's `pool` names the pool it came through and its
        breakdown's `trust` the publisher's trust there."""
        request = recall_pb2.RecallRequest(
            consistency=_RYW if read_your_writes else _EVENTUAL,
            query=query,
            pools=[pool_name(p) for p in pools],
            spaces=list(spaces),
            k=k,
            filter=recall_pb2.RecallFilter(topic=topic),
        )
        return self._call(self._recall.Recall, request)  # type: ignore[no-any-return]

    # -- trust -----------------------------------------------------------------

    def trust(self, member: str) -> pool_pb2.AgentTrust:
        """`pools/{pool}/members/{member}` (or its `/trust` name) -> the trust record."""
        name = member if member.endswith("/trust") else f"{member}/trust"
        return self._call(self._stub.GetAgentTrust, pool_pb2.GetAgentTrustRequest(name=name))  # type: ignore[no-any-return]

    def trusts(self, pool: str, *, page_size: int = 0) -> Iterator[pool_pb2.AgentTrust]:
        request = pool_pb2.ListAgentTrustsRequest(parent=pool_name(pool), page_size=page_size)
        return self._transport.pages(self._stub.ListAgentTrusts, request, lambda r: r.agent_trusts)

    # -- sync and topics -------------------------------------------------------

    def sync(
        self, pool: str, *, cursor: str = "", topic: str = "", follow: bool = False
    ) -> Iterator[pool_pb2.SyncPoolResponse]:
        """Slot deltas since `cursor`, then (with `follow`) live ones. Keep each
        message's `cursor` to resume after it."""
        request = pool_pb2.SyncPoolRequest(
            pool=pool_name(pool), cursor=cursor, topic=topic, follow=follow
        )
        return self._stream(self._stub.SyncPool, request)

    def topics(self, pool: str, *, page_size: int = 0) -> Iterator[pool_pb2.Topic]:
        request = pool_pb2.ListTopicsRequest(parent=pool_name(pool), page_size=page_size)
        return self._transport.pages(self._stub.ListTopics, request, lambda r: r.topics)

    def subscribe(
        self, pool: str, topic: str, *, cursor: str = ""
    ) -> Iterator[pool_pb2.SubscribeTopicResponse]:
        """A topic channel's events: from the live end (cursor ""), from the first
        event ("0"), or after a previous event's cursor."""
        request = pool_pb2.SubscribeTopicRequest(
            name=f"{pool_name(pool)}/topics/{topic}", cursor=cursor
        )
        return self._stream(self._stub.SubscribeTopic, request)

    def _stream(self, method: Any, request: Any) -> Iterator[Any]:
        try:
            yield from method(request, metadata=self._transport.metadata)
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error

    # -- groups (tenant administrators) ----------------------------------------

    def create_group(
        self,
        group_id: str,
        display_name: str = "",
        *,
        description: str = "",
        members: Iterable[str] = (),
        request_id: str | None = None,
    ) -> admin_pb2.Group:
        request = admin_pb2.CreateGroupRequest(
            group_id=group_id,
            group=admin_pb2.Group(display_name=display_name, description=description),
            request_id=_rid(request_id),
        )
        group: admin_pb2.Group = self._call(self._admin.CreateGroup, request)
        for member in members:
            group = self.add_group_member(group_id, member)
        return group

    def get_group(self, group: str) -> admin_pb2.Group:
        return self._call(self._admin.GetGroup, admin_pb2.GetGroupRequest(name=group_name(group)))  # type: ignore[no-any-return]

    def groups(self, *, page_size: int = 0) -> Iterator[admin_pb2.Group]:
        return self._transport.pages(
            self._admin.ListGroups,
            admin_pb2.ListGroupsRequest(page_size=page_size),
            lambda r: r.groups,
        )

    def add_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> admin_pb2.Group:
        request = admin_pb2.AddGroupMemberRequest(
            group=group_name(group), principal=principal, request_id=_rid(request_id)
        )
        return self._call(self._admin.AddGroupMember, request)  # type: ignore[no-any-return]

    def remove_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> admin_pb2.Group:
        request = admin_pb2.RemoveGroupMemberRequest(
            group=group_name(group), principal=principal, request_id=_rid(request_id)
        )
        return self._call(self._admin.RemoveGroupMember, request)  # type: ignore[no-any-return]

    def delete_group(self, group: str, *, request_id: str | None = None) -> None:
        request = admin_pb2.DeleteGroupRequest(name=group_name(group), request_id=_rid(request_id))
        self._call(self._admin.DeleteGroup, request)
