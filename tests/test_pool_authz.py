"""The authorisation matrix: every PoolService RPC for every kind of caller.

Callers: the owner, a writer, a reader, a member through its group (WRITER), a
removed member, a non-member, a tenant administrator that is no member, and an
agent of the same name in another tenant. Non-members never learn that the pool
exists (NOT_FOUND); members whose role is too low get PERMISSION_DENIED.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
from engram.v1 import pool_pb2
from google.protobuf import field_mask_pb2

from tests.pool_helpers import (
    OWNER,
    READER,
    WRITER,
    code_of,
    make_admin,
    make_agent,
    make_group,
)

OK = grpc.StatusCode.OK
NF = grpc.StatusCode.NOT_FOUND
PD = grpc.StatusCode.PERMISSION_DENIED

CALLERS = ["owner", "writer", "reader", "grouped", "removed", "outsider", "admin", "foreign"]
# caller -> the code of each RPC (same order as RPCS below).
MEMBER_READS = dict.fromkeys(
    [
        "GetPool",
        "ListPoolMembers",
        "GetPublication",
        "ListPublications",
        "GetAgentTrust",
        "ListAgentTrusts",
        "SyncPool",
        "ListTopics",
        "SubscribeTopic",
    ],
    OK,
)
OWNER_ONLY = dict.fromkeys(
    ["UpdatePool", "AddPoolMember", "RemovePoolMember", "UnpublishMemory", "ReviewPublication"],
    PD,
)
NOT_FOUND_ALL = dict.fromkeys([*MEMBER_READS, *OWNER_ONLY, "PublishMemory"], NF)
EXPECTED: dict[str, dict[str, grpc.StatusCode]] = {
    "owner": {**MEMBER_READS, **dict.fromkeys(OWNER_ONLY, OK), "PublishMemory": OK},
    "writer": {**MEMBER_READS, **OWNER_ONLY, "PublishMemory": OK},
    "grouped": {**MEMBER_READS, **OWNER_ONLY, "PublishMemory": OK},
    "reader": {**MEMBER_READS, **OWNER_ONLY, "PublishMemory": PD},
    "removed": NOT_FOUND_ALL,
    "outsider": NOT_FOUND_ALL,
    "foreign": NOT_FOUND_ALL,
    # Manages any pool; reads publications only as a member.
    "admin": {
        **NOT_FOUND_ALL,
        **dict.fromkeys(
            [
                "GetPool",
                "ListPoolMembers",
                "GetAgentTrust",
                "ListAgentTrusts",
                "UpdatePool",
                "AddPoolMember",
                "RemovePoolMember",
            ],
            OK,
        ),
    },
}
DELETE_EXPECTED = {
    "owner": OK,
    "writer": PD,
    "reader": PD,
    "grouped": PD,
    "removed": NF,
    "outsider": NF,
    "admin": OK,
    "foreign": NF,
}


async def _first(stream: Any) -> Any:
    async for message in stream:
        return message
    return None


async def test_authorisation_matrix(make_tenant: Any) -> None:
    t = await make_tenant()
    other = await make_tenant()
    admin = await make_admin(t)
    agents = {
        "owner": await make_agent(t, "owner"),
        "writer": await make_agent(t, "writer"),
        "reader": await make_agent(t, "reader"),
        "grouped": await make_agent(t, "team/gina"),
        "removed": await make_agent(t, "gone"),
        "outsider": await make_agent(t, "outsider"),
        "admin": admin,
        "foreign": await make_agent(other, "owner"),
    }
    owner = agents["owner"]
    await make_group(admin, "team", ["team/gina"])
    counter = itertools.count()

    async def setup(pool_id: str, *, review: bool = False) -> None:
        gate = pool_pb2.PublishGate(require_review=review)
        await owner.create_pool(pool_id, gate=gate)
        await owner.add(f"pools/{pool_id}", "writer", WRITER)
        await owner.add(f"pools/{pool_id}", "reader", READER)
        await owner.add(f"pools/{pool_id}", "groups/team", WRITER)
        gone = await owner.add(f"pools/{pool_id}", "gone", WRITER)
        await owner.pool.RemovePoolMember(pool_pb2.RemovePoolMemberRequest(name=gone.name))

    await setup("p")
    await setup("h", review=True)
    base = await owner.remember("o", "The deploy window is 10-12", importance=0.9)
    publication = (await owner.publish("pools/p", base.name, topic="t")).publication.name
    writer_member = (await owner.add("pools/p", "writer", WRITER)).name

    async def fresh_memory(agent: Any) -> str:
        memory = await agent.remember(
            f"s-{next(counter)}", f"fact number {next(counter)}", importance=0.9
        )
        return str(memory.name)

    async def fresh_publication(pool: str) -> str:
        memory = await fresh_memory(owner)
        return str((await owner.publish(pool, memory)).publication.name)

    async def victim() -> str:
        return str((await owner.add("pools/p", "victim", READER)).name)

    def rpcs(agent: Any) -> dict[str, Callable[[], Awaitable[Any]]]:
        stub = agent.pool

        async def publish() -> Any:
            memory = await fresh_memory(agent) if agent.name or agent is admin else ""
            return await stub.PublishMemory(
                pool_pb2.PublishMemoryRequest(pool="pools/p", memory=memory)
            )

        async def unpublish() -> Any:
            return await stub.UnpublishMemory(
                pool_pb2.UnpublishMemoryRequest(name=await fresh_publication("pools/p"))
            )

        async def review() -> Any:
            return await stub.ReviewPublication(
                pool_pb2.ReviewPublicationRequest(
                    name=await fresh_publication("pools/h"),
                    decision=pool_pb2.REVIEW_DECISION_APPROVE,
                )
            )

        async def remove() -> Any:
            return await stub.RemovePoolMember(
                pool_pb2.RemovePoolMemberRequest(name=await victim())
            )

        return {
            "GetPool": lambda: stub.GetPool(pool_pb2.GetPoolRequest(name="pools/p")),
            "UpdatePool": lambda: stub.UpdatePool(
                pool_pb2.UpdatePoolRequest(
                    pool=pool_pb2.Pool(name="pools/p", description="x"),
                    update_mask=field_mask_pb2.FieldMask(paths=["description"]),
                )
            ),
            "AddPoolMember": lambda: stub.AddPoolMember(
                pool_pb2.AddPoolMemberRequest(
                    parent="pools/p", member=pool_pb2.PoolMember(principal="x", role=READER)
                )
            ),
            "RemovePoolMember": remove,
            "ListPoolMembers": lambda: stub.ListPoolMembers(
                pool_pb2.ListPoolMembersRequest(parent="pools/p")
            ),
            "PublishMemory": publish,
            "UnpublishMemory": unpublish,
            "ReviewPublication": review,
            "GetPublication": lambda: stub.GetPublication(
                pool_pb2.GetPublicationRequest(name=publication)
            ),
            "ListPublications": lambda: stub.ListPublications(
                pool_pb2.ListPublicationsRequest(parent="pools/p")
            ),
            "GetAgentTrust": lambda: stub.GetAgentTrust(
                pool_pb2.GetAgentTrustRequest(name=writer_member + "/trust")
            ),
            "ListAgentTrusts": lambda: stub.ListAgentTrusts(
                pool_pb2.ListAgentTrustsRequest(parent="pools/p")
            ),
            "SyncPool": lambda: _first(stub.SyncPool(pool_pb2.SyncPoolRequest(pool="pools/p"))),
            "ListTopics": lambda: stub.ListTopics(pool_pb2.ListTopicsRequest(parent="pools/p")),
            "SubscribeTopic": lambda: _first(
                stub.SubscribeTopic(
                    pool_pb2.SubscribeTopicRequest(name="pools/p/topics/t", cursor="0")
                )
            ),
        }

    # The writer has a trust record to get: it published once.
    await agents["writer"].publish("pools/p", await fresh_memory(agents["writer"]))
    mismatches = []
    for caller in CALLERS:
        for rpc, call in rpcs(agents[caller]).items():
            got = await asyncio.wait_for(code_of(call()), 10)
            want = EXPECTED[caller][rpc]
            if got != want:
                mismatches.append(f"{caller} {rpc}: {got.name}, expected {want.name}")
    # DeletePool, each on a pool of its own with the same members.
    for i, caller in enumerate(CALLERS):
        pool_id = f"d{i}"
        await setup(pool_id)
        got = await code_of(
            agents[caller].pool.DeletePool(pool_pb2.DeletePoolRequest(name=f"pools/{pool_id}"))
        )
        if got != DELETE_EXPECTED[caller]:
            mismatches.append(
                f"{caller} DeletePool: {got.name}, expected {DELETE_EXPECTED[caller].name}"
            )
    assert not mismatches, "\n".join(mismatches)
    _ = OWNER


async def test_publication_count_counts_what_the_caller_can_read(make_tenant: Any) -> None:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    writer = await make_agent(t, "writer")
    reader = await make_agent(t, "reader")
    admin = await make_admin(t)
    await owner.create_pool("p")
    await owner.add("pools/p", "writer", WRITER)
    await owner.add("pools/p", "reader", READER)
    for content, visibility in (
        ("for the pool", pool_pb2.PUBLICATION_VISIBILITY_POOL),
        ("for contributors", pool_pb2.PUBLICATION_VISIBILITY_CONTRIBUTORS),
        ("second for contributors", pool_pb2.PUBLICATION_VISIBILITY_CONTRIBUTORS),
        ("for the tenant", pool_pb2.PUBLICATION_VISIBILITY_TENANT),
    ):
        publisher = owner if visibility == pool_pb2.PUBLICATION_VISIBILITY_TENANT else writer
        memory = await publisher.remember("w", content, importance=0.9)
        await publisher.publish("pools/p", memory.name, visibility=visibility)
    for agent, expected in ((writer, 4), (owner, 4), (reader, 2), (admin, 1)):
        got = await agent.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p"))
        assert got.publication_count == expected, agent.name
        # What the caller can list agrees.
        if agent is not admin:
            listed = await agent.pool.ListPublications(
                pool_pb2.ListPublicationsRequest(
                    parent="pools/p", states=[pool_pb2.PUBLICATION_STATE_PUBLISHED]
                )
            )
            assert len(listed.publications) == expected, agent.name
    pools = await reader.pool.ListPools(pool_pb2.ListPoolsRequest())
    assert [(p.name, p.publication_count) for p in pools.pools] == [("pools/p", 2)]
    pools = await writer.pool.ListPools(pool_pb2.ListPoolsRequest())
    assert [(p.name, p.publication_count) for p in pools.pools] == [("pools/p", 4)]
