"""Pools: memory shared across agents and teams (`client.pools`).

Every PoolService RPC has a method here, and the groups of agent identities that
join pools as one member have theirs too (`create_group` and the rest: tenant
administrators). Results are the frozen dataclasses of `engram.pool_types` (exported
from `engram` too): `Pool`, `PoolMember`, `Publication`, `PublishResult`,
`AgentTrust`, `Topic`, and on the streams `SyncEvent` (`sync`) and `TopicEvent`
(`subscribe`); groups are `engram.Group`, pool recall an `engram.RecallResult`. Each
keeps its message in `raw`. Lists are iterators that fetch the next page only when
needed; `sync` and `subscribe` are streams.

Writes send a `request_id` (yours, or a fresh UUID per call), so the SDK retries
them on UNAVAILABLE without ever applying one twice.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from google.protobuf import field_mask_pb2

from engram import _convert as c
from engram import _pool_convert as pc
from engram import _requests, errors
from engram import pool_types as pt
from engram import types as t
from engram._base import AsyncClientBase, ClientBase, rpc
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

_T = TypeVar("_T")

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


def role(value: Any, field: str = "role") -> Any:
    """A role as the API's enum value: 1-3, or `reader` / `writer` / `owner`."""
    return c.proto_enum_in(pool_pb2.PoolRole, "POOL_ROLE_", value, field)


def visibility(value: Any, field: str = "visibility") -> Any:
    if value == "" and isinstance(value, str):
        return pool_pb2.PUBLICATION_VISIBILITY_UNSPECIFIED
    return c.proto_enum_in(pool_pb2.PublicationVisibility, "PUBLICATION_VISIBILITY_", value, field)


def _state(value: Any, field: str) -> Any:
    return c.proto_enum_in(pool_pb2.PublicationState, "PUBLICATION_STATE_", value, field)


def _list(values: Any, field: str) -> list[Any]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise errors.invalid_argument(field, f"expected a list, got {type(values).__name__}")
    return list(values)


def _duration(message: Any, value: Any, field: str) -> None:
    if value is None:
        return
    if not isinstance(value, timedelta):
        raise errors.invalid_argument(field, f"expected a timedelta, got {type(value).__name__}")
    message.FromTimedelta(value)


def _pool(value: Any, field: str = "name") -> str:
    return pool_name(c.text_in(value, field))


# -- PoolService requests, shared by PoolClient and the client mixins ---------------


def create_request(
    display_name: Any,
    pool_id: Any,
    description: Any,
    gate: Any,
    default_visibility: Any,
    initial_trust: Any,
    quick_invalidation_window: Any,
    labels: Any,
    request_id: Any,
) -> pool_pb2.CreatePoolRequest:
    pool = c.fill(
        pool_pb2.Pool(),
        "pool.",
        display_name=c.text_in(display_name, "pool.display_name"),
        description=description,
        gate=pc.gate_in(gate, "pool.gate"),
        default_visibility=visibility(default_visibility, "pool.default_visibility"),
        initial_trust=initial_trust,
        labels=labels,
    )
    _duration(
        pool.quick_invalidation_window,
        quick_invalidation_window,
        "pool.quick_invalidation_window",
    )
    return c.fill(
        pool_pb2.CreatePoolRequest(),
        pool=pool,
        pool_id=pool_id,
        request_id=_requests.request_id(request_id),
    )


def update_request(
    pool: Any, etag: Any, request_id: Any, fields: Mapping[str, Any]
) -> pool_pb2.UpdatePoolRequest:
    value = c.fill(pool_pb2.Pool(), "pool.", name=_pool(pool, "pool.name"), etag=etag)
    for key, new in fields.items():
        if key == "default_visibility":
            value.default_visibility = visibility(new, "pool.default_visibility")
        elif key == "gate":
            c.fill(value, "pool.", gate=pc.gate_in(new, "pool.gate"))
        elif key == "quick_invalidation_window":
            _duration(value.quick_invalidation_window, new, "pool.quick_invalidation_window")
        else:
            c.fill(value, "pool.", **{key: new})
    return c.fill(
        pool_pb2.UpdatePoolRequest(),
        pool=value,
        update_mask=field_mask_pb2.FieldMask(paths=sorted(fields)),
        request_id=_requests.request_id(request_id),
    )


def delete_request(pool: Any, etag: Any, request_id: Any) -> pool_pb2.DeletePoolRequest:
    return c.fill(
        pool_pb2.DeletePoolRequest(),
        name=_pool(pool),
        etag=etag,
        request_id=_requests.request_id(request_id),
    )


def add_member_request(
    pool: Any, principal: Any, member_role: Any, request_id: Any
) -> pool_pb2.AddPoolMemberRequest:
    member = c.fill(
        pool_pb2.PoolMember(),
        "member.",
        principal=c.text_in(principal, "member.principal"),
        role=role(member_role, "member.role"),
    )
    return c.fill(
        pool_pb2.AddPoolMemberRequest(),
        parent=_pool(pool, "parent"),
        member=member,
        request_id=_requests.request_id(request_id),
    )


def remove_member_request(member: Any, request_id: Any) -> pool_pb2.RemovePoolMemberRequest:
    return pool_pb2.RemovePoolMemberRequest(
        name=c.text_in(member, "name"), request_id=_requests.request_id(request_id)
    )


def members_request(
    pool: Any, principal: Any, member_role: Any, page_size: Any
) -> pool_pb2.ListPoolMembersRequest:
    return c.fill(
        pool_pb2.ListPoolMembersRequest(),
        parent=_pool(pool, "parent"),
        principal=principal,
        role=role(member_role),
        page_size=page_size,
    )


def publish_request(
    pool: Any, memory: Any, topic: Any, visibility_: Any, request_id: Any
) -> pool_pb2.PublishMemoryRequest:
    return c.fill(
        pool_pb2.PublishMemoryRequest(),
        pool=_pool(pool, "pool"),
        memory=c.text_in(memory, "memory"),
        topic=topic,
        visibility=visibility(visibility_),
        request_id=_requests.request_id(request_id),
    )


def unpublish_request(
    publication: Any, reason: Any, request_id: Any
) -> pool_pb2.UnpublishMemoryRequest:
    return c.fill(
        pool_pb2.UnpublishMemoryRequest(),
        name=c.text_in(publication, "name"),
        reason=reason,
        request_id=_requests.request_id(request_id),
    )


def review_request(
    publication: Any, approve: Any, note: Any, request_id: Any
) -> pool_pb2.ReviewPublicationRequest:
    decision = (
        pool_pb2.REVIEW_DECISION_APPROVE
        if c.flag(approve, "decision")
        else pool_pb2.REVIEW_DECISION_REJECT
    )
    return c.fill(
        pool_pb2.ReviewPublicationRequest(),
        name=c.text_in(publication, "name"),
        decision=decision,
        note=note,
        request_id=_requests.request_id(request_id),
    )


def publications_request(
    pool: Any, states: Any, topic: Any, publisher: Any, memory: Any, page_size: Any
) -> pool_pb2.ListPublicationsRequest:
    return c.fill(
        pool_pb2.ListPublicationsRequest(),
        parent=_pool(pool, "parent"),
        states=[_state(x, f"states[{i}]") for i, x in enumerate(_list(states, "states"))],
        topic=topic,
        publisher=publisher,
        memory=memory,
        page_size=page_size,
    )


def trust_request(member: Any) -> pool_pb2.GetAgentTrustRequest:
    name = c.text_in(member, "name")
    return pool_pb2.GetAgentTrustRequest(name=name if name.endswith("/trust") else f"{name}/trust")


def sync_request(
    pool: Any, cursor: Any, topic: Any, follow: Any, omit_old_content: Any = False
) -> pool_pb2.SyncPoolRequest:
    return c.fill(
        pool_pb2.SyncPoolRequest(),
        pool=_pool(pool, "pool"),
        cursor=cursor,
        topic=topic,
        follow=follow,
        omit_old_content=omit_old_content,
    )


def subscribe_request(pool: Any, topic: Any, cursor: Any) -> pool_pb2.SubscribeTopicRequest:
    name = f"{_pool(pool, 'name')}/topics/{c.text_in(topic, 'name')}"
    return c.fill(pool_pb2.SubscribeTopicRequest(), name=name, cursor=cursor)


def parent_page_request(message: Any, pool: Any, page_size: Any) -> Any:
    return c.fill(message, parent=_pool(pool, "parent"), page_size=page_size)


def _rid(request_id: str | None) -> str:
    return request_id or str(uuid.uuid4())


def gate(
    *,
    min_utility: float = 0.0,
    allowed_kinds: Iterable[Any] = (),
    review_below_evidence_level: Any = 0,
    review_below_trust: float = 0.0,
    require_review: bool = False,
) -> pt.PublishGate:
    """A publish gate (see PublishGate in pool.proto). Kinds and the evidence level
    are members, short or full names, or numbers; a bad one raises InvalidArgument."""
    kinds = tuple(
        c.enum_out(t.MemoryKind, c.enum_in(t.MemoryKind, k, f"gate.allowed_kinds[{i}]"))
        for i, k in enumerate(_list(allowed_kinds, "gate.allowed_kinds"))
    )
    level = c.enum_in(
        t.EvidenceLevel, review_below_evidence_level, "gate.review_below_evidence_level"
    )
    return pt.PublishGate(
        min_utility=min_utility,
        allowed_kinds=kinds,
        review_below_evidence_level=c.enum_out(t.EvidenceLevel, level),
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

    # -- PoolService ----------------------------------------------------------

    def create(
        self,
        display_name: str,
        *,
        pool_id: str = "",
        description: str = "",
        gate: pt.PublishGate | pool_pb2.PublishGate | None = None,
        default_visibility: int | str = 0,
        initial_trust: float = 0.0,
        quick_invalidation_window: timedelta | None = None,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> pt.Pool:
        request = create_request(
            display_name,
            pool_id,
            description,
            gate,
            default_visibility,
            initial_trust,
            quick_invalidation_window,
            labels,
            request_id,
        )
        return pc.pool_out(self._call(self._stub.CreatePool, request))

    def get(self, pool: str) -> pt.Pool:
        request = pool_pb2.GetPoolRequest(name=_pool(pool))
        return pc.pool_out(self._call(self._stub.GetPool, request))

    def list(self, *, page_size: int = 0) -> Iterator[pt.Pool]:
        request = c.fill(pool_pb2.ListPoolsRequest(), page_size=page_size)
        return self._transport.pages(
            self._stub.ListPools, request, lambda r: map(pc.pool_out, r.pools)
        )

    def update(
        self,
        pool: str,
        *,
        etag: str = "",
        request_id: str | None = None,
        **fields: Any,
    ) -> pt.Pool:
        """Changes the named fields: display_name, description, gate,
        default_visibility, initial_trust, labels, quick_invalidation_window."""
        request = update_request(pool, etag, request_id, fields)
        return pc.pool_out(self._call(self._stub.UpdatePool, request))

    def delete(self, pool: str, *, etag: str = "", request_id: str | None = None) -> None:
        request = delete_request(pool, etag, request_id)
        self._call(self._stub.DeletePool, request)

    def add_member(
        self, pool: str, principal: str, member_role: int | str, *, request_id: str | None = None
    ) -> pt.PoolMember:
        """Adds an agent identity, `apiKeys/{key}` or `groups/{group}`, or changes its role."""
        request = add_member_request(pool, principal, member_role, request_id)
        return pc.member_out(self._call(self._stub.AddPoolMember, request))

    def remove_member(self, member: str, *, request_id: str | None = None) -> None:
        """Removes `pools/{pool}/members/{member}` (see `members` for the name)."""
        request = remove_member_request(member, request_id)
        self._call(self._stub.RemovePoolMember, request)

    def members(
        self, pool: str, *, principal: str = "", member_role: int | str = 0, page_size: int = 0
    ) -> Iterator[pt.PoolMember]:
        request = members_request(pool, principal, member_role, page_size)
        return self._transport.pages(
            self._stub.ListPoolMembers, request, lambda r: map(pc.member_out, r.members)
        )

    def publish(
        self,
        pool: str,
        memory: str,
        *,
        topic: str = "",
        visibility_: int | str = 0,
        request_id: str | None = None,
    ) -> pt.PublishResult:
        """Offers a memory to a pool through its gate: PUBLISHED, HELD_FOR_REVIEW
        (with the findings) or REFUSED (with the reasons)."""
        request = publish_request(pool, memory, topic, visibility_, request_id)
        return pc.publish_out(self._call(self._stub.PublishMemory, request))

    def unpublish(
        self, publication: str, reason: str = "", *, request_id: str | None = None
    ) -> pt.Publication:
        request = unpublish_request(publication, reason, request_id)
        return pc.publication_out(self._call(self._stub.UnpublishMemory, request))

    def review(
        self, publication: str, approve: bool, note: str = "", *, request_id: str | None = None
    ) -> pt.Publication:
        request = review_request(publication, approve, note, request_id)
        return pc.publication_out(self._call(self._stub.ReviewPublication, request))

    def get_publication(self, publication: str) -> pt.Publication:
        request = pool_pb2.GetPublicationRequest(name=c.text_in(publication, "name"))
        return pc.publication_out(self._call(self._stub.GetPublication, request))

    def publications(
        self,
        pool: str,
        *,
        states: Iterable[Any] = (),
        topic: str = "",
        publisher: str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> Iterator[pt.Publication]:
        request = publications_request(pool, states, topic, publisher, memory, page_size)
        return self._transport.pages(
            self._stub.ListPublications, request, lambda r: map(pc.publication_out, r.publications)
        )

    def trust(self, member: str) -> pt.AgentTrust:
        """`pools/{pool}/members/{member}` (or its `/trust` name) -> the trust record."""
        request = trust_request(member)
        return pc.trust_out(self._call(self._stub.GetAgentTrust, request))

    def trusts(self, pool: str, *, page_size: int = 0) -> Iterator[pt.AgentTrust]:
        request = parent_page_request(pool_pb2.ListAgentTrustsRequest(), pool, page_size)
        return self._transport.pages(
            self._stub.ListAgentTrusts, request, lambda r: map(pc.trust_out, r.agent_trusts)
        )

    def sync(
        self,
        pool: str,
        *,
        cursor: str = "",
        topic: str = "",
        follow: bool = False,
        omit_old_content: bool = False,
    ) -> Iterator[pt.SyncEvent]:
        """Slot deltas since `cursor`, then (with `follow`) live ones. Keep each
        message's `cursor` to resume after it. `omit_old_content`: each delta's
        `old_memory` by its identity only (a follower that keeps what it was sent)."""
        request = sync_request(pool, cursor, topic, follow, omit_old_content)
        return self._stream(self._stub.SyncPool, request, pc.sync_out)

    def topics(self, pool: str, *, page_size: int = 0) -> Iterator[pt.Topic]:
        request = parent_page_request(pool_pb2.ListTopicsRequest(), pool, page_size)
        return self._transport.pages(
            self._stub.ListTopics, request, lambda r: map(pc.topic_out, r.topics)
        )

    def subscribe(self, pool: str, topic: str, *, cursor: str = "") -> Iterator[pt.TopicEvent]:
        """A topic channel's events: from the live end (cursor ""), from the first
        event ("0"), or after a previous event's cursor."""
        request = subscribe_request(pool, topic, cursor)
        return self._stream(self._stub.SubscribeTopic, request, pc.topic_event_out)

    def recall(
        self,
        query: str,
        pools: Iterable[str],
        *,
        spaces: Iterable[str] = (),
        k: int = 0,
        topic: str = "",
        read_your_writes: bool = False,
    ) -> t.RecallResult:
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
        return c.recall_out(self._call(self._recall.Recall, request))

    def _stream(self, method: Any, request: Any, convert: Callable[[Any], _T]) -> Iterator[_T]:
        try:
            for response in method(request, metadata=self._transport.metadata):
                yield convert(response)
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
    ) -> t.Group:
        request = admin_pb2.CreateGroupRequest(
            group_id=group_id,
            group=admin_pb2.Group(display_name=display_name, description=description),
            request_id=_rid(request_id),
        )
        group = c.group_out(self._call(self._admin.CreateGroup, request))
        for member in members:
            group = self.add_group_member(group_id, member)
        return group

    def get_group(self, group: str) -> t.Group:
        request = admin_pb2.GetGroupRequest(name=group_name(group))
        return c.group_out(self._call(self._admin.GetGroup, request))

    def groups(self, *, page_size: int = 0) -> Iterator[t.Group]:
        return self._transport.pages(
            self._admin.ListGroups,
            admin_pb2.ListGroupsRequest(page_size=page_size),
            lambda r: map(c.group_out, r.groups),
        )

    def add_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> t.Group:
        request = admin_pb2.AddGroupMemberRequest(
            group=group_name(group), principal=principal, request_id=_rid(request_id)
        )
        return c.group_out(self._call(self._admin.AddGroupMember, request))

    def remove_group_member(
        self, group: str, principal: str, *, request_id: str | None = None
    ) -> t.Group:
        request = admin_pb2.RemoveGroupMemberRequest(
            group=group_name(group), principal=principal, request_id=_rid(request_id)
        )
        return c.group_out(self._call(self._admin.RemoveGroupMember, request))

    def delete_group(self, group: str, *, request_id: str | None = None) -> None:
        request = admin_pb2.DeleteGroupRequest(name=group_name(group), request_id=_rid(request_id))
        self._call(self._admin.DeleteGroup, request)


class PoolMixin(ClientBase):
    """PoolService as methods of `engram.Client` (`client.pools` has the same calls
    under shorter names, plus pool recall and groups)."""

    @property
    def _pool_stub(self) -> pool_pb2_grpc.PoolServiceStub:
        return self._stub_of(pool_pb2_grpc.PoolServiceStub)

    @rpc("engram.v1.PoolService.CreatePool")
    def create_pool(
        self,
        display_name: str,
        *,
        pool_id: str = "",
        description: str = "",
        gate: pt.PublishGate | pool_pb2.PublishGate | None = None,
        default_visibility: int | str = 0,
        initial_trust: float = 0.0,
        quick_invalidation_window: timedelta | None = None,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> pt.Pool:
        request = create_request(
            display_name,
            pool_id,
            description,
            gate,
            default_visibility,
            initial_trust,
            quick_invalidation_window,
            labels,
            request_id,
        )
        return pc.pool_out(self._unary(self._pool_stub.CreatePool, request, retryable=True))

    @rpc("engram.v1.PoolService.GetPool")
    def get_pool(self, pool: str) -> pt.Pool:
        request = pool_pb2.GetPoolRequest(name=_pool(pool))
        return pc.pool_out(self._unary(self._pool_stub.GetPool, request, retryable=True))

    @rpc("engram.v1.PoolService.ListPools")
    def list_pools(self, *, page_size: int = 0) -> Iterator[pt.Pool]:
        request = c.fill(pool_pb2.ListPoolsRequest(), page_size=page_size)
        return self._pages(self._pool_stub.ListPools, request, lambda r: map(pc.pool_out, r.pools))

    @rpc("engram.v1.PoolService.UpdatePool")
    def update_pool(
        self,
        pool: str,
        *,
        etag: str = "",
        request_id: str | None = None,
        **fields: Any,
    ) -> pt.Pool:
        """Changes the named fields: display_name, description, gate,
        default_visibility, initial_trust, labels, quick_invalidation_window."""
        request = update_request(pool, etag, request_id, fields)
        return pc.pool_out(self._unary(self._pool_stub.UpdatePool, request, retryable=True))

    @rpc("engram.v1.PoolService.DeletePool")
    def delete_pool(self, pool: str, *, etag: str = "", request_id: str | None = None) -> None:
        request = delete_request(pool, etag, request_id)
        self._unary(self._pool_stub.DeletePool, request, retryable=True)

    @rpc("engram.v1.PoolService.AddPoolMember")
    def add_pool_member(
        self, pool: str, principal: str, member_role: int | str, *, request_id: str | None = None
    ) -> pt.PoolMember:
        """Adds an agent identity, `apiKeys/{key}` or `groups/{group}`, or changes its role."""
        request = add_member_request(pool, principal, member_role, request_id)
        return pc.member_out(self._unary(self._pool_stub.AddPoolMember, request, retryable=True))

    @rpc("engram.v1.PoolService.RemovePoolMember")
    def remove_pool_member(self, member: str, *, request_id: str | None = None) -> None:
        """Removes `pools/{pool}/members/{member}` (see `members` for the name)."""
        request = remove_member_request(member, request_id)
        self._unary(self._pool_stub.RemovePoolMember, request, retryable=True)

    @rpc("engram.v1.PoolService.ListPoolMembers")
    def list_pool_members(
        self, pool: str, *, principal: str = "", member_role: int | str = 0, page_size: int = 0
    ) -> Iterator[pt.PoolMember]:
        request = members_request(pool, principal, member_role, page_size)
        return self._pages(
            self._pool_stub.ListPoolMembers, request, lambda r: map(pc.member_out, r.members)
        )

    @rpc("engram.v1.PoolService.PublishMemory")
    def publish_memory(
        self,
        pool: str,
        memory: str,
        *,
        topic: str = "",
        visibility_: int | str = 0,
        request_id: str | None = None,
    ) -> pt.PublishResult:
        """Offers a memory to a pool through its gate: PUBLISHED, HELD_FOR_REVIEW
        (with the findings) or REFUSED (with the reasons)."""
        request = publish_request(pool, memory, topic, visibility_, request_id)
        return pc.publish_out(self._unary(self._pool_stub.PublishMemory, request, retryable=True))

    @rpc("engram.v1.PoolService.UnpublishMemory")
    def unpublish_memory(
        self, publication: str, reason: str = "", *, request_id: str | None = None
    ) -> pt.Publication:
        request = unpublish_request(publication, reason, request_id)
        return pc.publication_out(
            self._unary(self._pool_stub.UnpublishMemory, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.ReviewPublication")
    def review_publication(
        self, publication: str, approve: bool, note: str = "", *, request_id: str | None = None
    ) -> pt.Publication:
        request = review_request(publication, approve, note, request_id)
        return pc.publication_out(
            self._unary(self._pool_stub.ReviewPublication, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.GetPublication")
    def get_publication(self, publication: str) -> pt.Publication:
        request = pool_pb2.GetPublicationRequest(name=c.text_in(publication, "name"))
        return pc.publication_out(
            self._unary(self._pool_stub.GetPublication, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.ListPublications")
    def list_publications(
        self,
        pool: str,
        *,
        states: Iterable[Any] = (),
        topic: str = "",
        publisher: str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> Iterator[pt.Publication]:
        request = publications_request(pool, states, topic, publisher, memory, page_size)
        return self._pages(
            self._pool_stub.ListPublications,
            request,
            lambda r: map(pc.publication_out, r.publications),
        )

    @rpc("engram.v1.PoolService.GetAgentTrust")
    def get_agent_trust(self, member: str) -> pt.AgentTrust:
        """`pools/{pool}/members/{member}` (or its `/trust` name) -> the trust record."""
        request = trust_request(member)
        return pc.trust_out(self._unary(self._pool_stub.GetAgentTrust, request, retryable=True))

    @rpc("engram.v1.PoolService.ListAgentTrusts")
    def list_agent_trusts(self, pool: str, *, page_size: int = 0) -> Iterator[pt.AgentTrust]:
        request = parent_page_request(pool_pb2.ListAgentTrustsRequest(), pool, page_size)
        return self._pages(
            self._pool_stub.ListAgentTrusts, request, lambda r: map(pc.trust_out, r.agent_trusts)
        )

    @rpc("engram.v1.PoolService.SyncPool")
    def sync_pool(
        self,
        pool: str,
        *,
        cursor: str = "",
        topic: str = "",
        follow: bool = False,
        omit_old_content: bool = False,
    ) -> Iterator[pt.SyncEvent]:
        """Slot deltas since `cursor`, then (with `follow`) live ones. Keep each
        message's `cursor` to resume after it. `omit_old_content`: each delta's
        `old_memory` by its identity only (a follower that keeps what it was sent)."""
        request = sync_request(pool, cursor, topic, follow, omit_old_content)
        return self._server_stream(self._pool_stub.SyncPool, request, pc.sync_out)

    @rpc("engram.v1.PoolService.ListTopics")
    def list_topics(self, pool: str, *, page_size: int = 0) -> Iterator[pt.Topic]:
        request = parent_page_request(pool_pb2.ListTopicsRequest(), pool, page_size)
        return self._pages(
            self._pool_stub.ListTopics, request, lambda r: map(pc.topic_out, r.topics)
        )

    @rpc("engram.v1.PoolService.SubscribeTopic")
    def subscribe_topic(
        self, pool: str, topic: str, *, cursor: str = ""
    ) -> Iterator[pt.TopicEvent]:
        """A topic channel's events: from the live end (cursor ""), from the first
        event ("0"), or after a previous event's cursor."""
        request = subscribe_request(pool, topic, cursor)
        return self._server_stream(self._pool_stub.SubscribeTopic, request, pc.topic_event_out)


class AsyncPoolMixin(AsyncClientBase):
    """PoolService as methods of `engram.AsyncClient` (streams are async iterators)."""

    @property
    def _pool_stub(self) -> Any:
        return self._stub_of(pool_pb2_grpc.PoolServiceStub)

    @rpc("engram.v1.PoolService.CreatePool")
    async def create_pool(
        self,
        display_name: str,
        *,
        pool_id: str = "",
        description: str = "",
        gate: pt.PublishGate | pool_pb2.PublishGate | None = None,
        default_visibility: int | str = 0,
        initial_trust: float = 0.0,
        quick_invalidation_window: timedelta | None = None,
        labels: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> pt.Pool:
        request = create_request(
            display_name,
            pool_id,
            description,
            gate,
            default_visibility,
            initial_trust,
            quick_invalidation_window,
            labels,
            request_id,
        )
        return pc.pool_out(await self._unary(self._pool_stub.CreatePool, request, retryable=True))

    @rpc("engram.v1.PoolService.GetPool")
    async def get_pool(self, pool: str) -> pt.Pool:
        request = pool_pb2.GetPoolRequest(name=_pool(pool))
        return pc.pool_out(await self._unary(self._pool_stub.GetPool, request, retryable=True))

    @rpc("engram.v1.PoolService.ListPools")
    def list_pools(self, *, page_size: int = 0) -> AsyncIterator[pt.Pool]:
        request = c.fill(pool_pb2.ListPoolsRequest(), page_size=page_size)
        return self._pages(self._pool_stub.ListPools, request, lambda r: map(pc.pool_out, r.pools))

    @rpc("engram.v1.PoolService.UpdatePool")
    async def update_pool(
        self,
        pool: str,
        *,
        etag: str = "",
        request_id: str | None = None,
        **fields: Any,
    ) -> pt.Pool:
        """Changes the named fields: display_name, description, gate,
        default_visibility, initial_trust, labels, quick_invalidation_window."""
        request = update_request(pool, etag, request_id, fields)
        return pc.pool_out(await self._unary(self._pool_stub.UpdatePool, request, retryable=True))

    @rpc("engram.v1.PoolService.DeletePool")
    async def delete_pool(
        self, pool: str, *, etag: str = "", request_id: str | None = None
    ) -> None:
        request = delete_request(pool, etag, request_id)
        await self._unary(self._pool_stub.DeletePool, request, retryable=True)

    @rpc("engram.v1.PoolService.AddPoolMember")
    async def add_pool_member(
        self, pool: str, principal: str, member_role: int | str, *, request_id: str | None = None
    ) -> pt.PoolMember:
        """Adds an agent identity, `apiKeys/{key}` or `groups/{group}`, or changes its role."""
        request = add_member_request(pool, principal, member_role, request_id)
        return pc.member_out(
            await self._unary(self._pool_stub.AddPoolMember, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.RemovePoolMember")
    async def remove_pool_member(self, member: str, *, request_id: str | None = None) -> None:
        """Removes `pools/{pool}/members/{member}` (see `members` for the name)."""
        request = remove_member_request(member, request_id)
        await self._unary(self._pool_stub.RemovePoolMember, request, retryable=True)

    @rpc("engram.v1.PoolService.ListPoolMembers")
    def list_pool_members(
        self, pool: str, *, principal: str = "", member_role: int | str = 0, page_size: int = 0
    ) -> AsyncIterator[pt.PoolMember]:
        request = members_request(pool, principal, member_role, page_size)
        return self._pages(
            self._pool_stub.ListPoolMembers, request, lambda r: map(pc.member_out, r.members)
        )

    @rpc("engram.v1.PoolService.PublishMemory")
    async def publish_memory(
        self,
        pool: str,
        memory: str,
        *,
        topic: str = "",
        visibility_: int | str = 0,
        request_id: str | None = None,
    ) -> pt.PublishResult:
        """Offers a memory to a pool through its gate: PUBLISHED, HELD_FOR_REVIEW
        (with the findings) or REFUSED (with the reasons)."""
        request = publish_request(pool, memory, topic, visibility_, request_id)
        return pc.publish_out(
            await self._unary(self._pool_stub.PublishMemory, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.UnpublishMemory")
    async def unpublish_memory(
        self, publication: str, reason: str = "", *, request_id: str | None = None
    ) -> pt.Publication:
        request = unpublish_request(publication, reason, request_id)
        return pc.publication_out(
            await self._unary(self._pool_stub.UnpublishMemory, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.ReviewPublication")
    async def review_publication(
        self, publication: str, approve: bool, note: str = "", *, request_id: str | None = None
    ) -> pt.Publication:
        request = review_request(publication, approve, note, request_id)
        return pc.publication_out(
            await self._unary(self._pool_stub.ReviewPublication, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.GetPublication")
    async def get_publication(self, publication: str) -> pt.Publication:
        request = pool_pb2.GetPublicationRequest(name=c.text_in(publication, "name"))
        return pc.publication_out(
            await self._unary(self._pool_stub.GetPublication, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.ListPublications")
    def list_publications(
        self,
        pool: str,
        *,
        states: Iterable[Any] = (),
        topic: str = "",
        publisher: str = "",
        memory: str = "",
        page_size: int = 0,
    ) -> AsyncIterator[pt.Publication]:
        request = publications_request(pool, states, topic, publisher, memory, page_size)
        return self._pages(
            self._pool_stub.ListPublications,
            request,
            lambda r: map(pc.publication_out, r.publications),
        )

    @rpc("engram.v1.PoolService.GetAgentTrust")
    async def get_agent_trust(self, member: str) -> pt.AgentTrust:
        """`pools/{pool}/members/{member}` (or its `/trust` name) -> the trust record."""
        request = trust_request(member)
        return pc.trust_out(
            await self._unary(self._pool_stub.GetAgentTrust, request, retryable=True)
        )

    @rpc("engram.v1.PoolService.ListAgentTrusts")
    def list_agent_trusts(self, pool: str, *, page_size: int = 0) -> AsyncIterator[pt.AgentTrust]:
        request = parent_page_request(pool_pb2.ListAgentTrustsRequest(), pool, page_size)
        return self._pages(
            self._pool_stub.ListAgentTrusts, request, lambda r: map(pc.trust_out, r.agent_trusts)
        )

    @rpc("engram.v1.PoolService.SyncPool")
    def sync_pool(
        self,
        pool: str,
        *,
        cursor: str = "",
        topic: str = "",
        follow: bool = False,
        omit_old_content: bool = False,
    ) -> AsyncIterator[pt.SyncEvent]:
        """Slot deltas since `cursor`, then (with `follow`) live ones. Keep each
        message's `cursor` to resume after it. `omit_old_content`: each delta's
        `old_memory` by its identity only (a follower that keeps what it was sent)."""
        request = sync_request(pool, cursor, topic, follow, omit_old_content)
        return self._server_stream(self._pool_stub.SyncPool, request, pc.sync_out)

    @rpc("engram.v1.PoolService.ListTopics")
    def list_topics(self, pool: str, *, page_size: int = 0) -> AsyncIterator[pt.Topic]:
        request = parent_page_request(pool_pb2.ListTopicsRequest(), pool, page_size)
        return self._pages(
            self._pool_stub.ListTopics, request, lambda r: map(pc.topic_out, r.topics)
        )

    @rpc("engram.v1.PoolService.SubscribeTopic")
    def subscribe_topic(
        self, pool: str, topic: str, *, cursor: str = ""
    ) -> AsyncIterator[pt.TopicEvent]:
        """A topic channel's events: from the live end (cursor ""), from the first
        event ("0"), or after a previous event's cursor."""
        request = subscribe_request(pool, topic, cursor)
        return self._server_stream(self._pool_stub.SubscribeTopic, request, pc.topic_event_out)
