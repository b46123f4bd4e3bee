"""PoolService: pools, members, roles, groups, etags and the scope rules."""

from __future__ import annotations

from typing import Any

import grpc
from engram.v1 import admin_pb2, pool_pb2
from google.protobuf import field_mask_pb2

from tests.pool_helpers import (
    OWNER,
    READER,
    WRITER,
    code_of,
    expect,
    make_admin,
    make_agent,
    make_group,
)

NF = grpc.StatusCode.NOT_FOUND
PD = grpc.StatusCode.PERMISSION_DENIED


async def test_pool_lifecycle_roles_and_etags(make_tenant: Any) -> None:
    t = await make_tenant()
    alice = await make_agent(t, "team-a/alice")
    bob = await make_agent(t, "team-b/bob")
    pool = await alice.create_pool("shared", description="what we learned")
    assert pool.name == "pools/shared" and pool.creator == "team-a/alice"
    assert pool.member_count == 1 and pool.initial_trust == 0.5
    assert pool.quick_invalidation_window.seconds == 86400
    await expect(grpc.StatusCode.ALREADY_EXISTS, alice.create_pool("shared"))

    # Bob is not a member: the pool does not exist for him.
    await expect(NF, bob.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/shared")))
    listed = await bob.pool.ListPools(pool_pb2.ListPoolsRequest())
    assert list(listed.pools) == []

    member = await alice.add("pools/shared", "team-b/bob", READER)
    assert member.name.startswith("pools/shared/members/") and member.role == READER
    got = await bob.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/shared"))
    assert got.member_count == 2
    assert [p.name for p in (await bob.pool.ListPools(pool_pb2.ListPoolsRequest())).pools] == [
        "pools/shared"
    ]
    # A reader may not manage the pool.
    await expect(
        PD,
        bob.pool.UpdatePool(
            pool_pb2.UpdatePoolRequest(
                pool=pool_pb2.Pool(name="pools/shared", description="mine"),
                update_mask=field_mask_pb2.FieldMask(paths=["description"]),
            )
        ),
    )
    # Etags: a stale one is ABORTED; the current one updates.
    updated = await alice.pool.UpdatePool(
        pool_pb2.UpdatePoolRequest(
            pool=pool_pb2.Pool(name="pools/shared", description="v2", etag=pool.etag),
            update_mask=field_mask_pb2.FieldMask(paths=["description"]),
        )
    )
    assert updated.description == "v2" and updated.etag != pool.etag
    await expect(
        grpc.StatusCode.ABORTED,
        alice.pool.UpdatePool(
            pool_pb2.UpdatePoolRequest(
                pool=pool_pb2.Pool(name="pools/shared", description="v3", etag=pool.etag),
                update_mask=field_mask_pb2.FieldMask(paths=["description"]),
            )
        ),
    )
    await expect(
        grpc.StatusCode.ABORTED,
        alice.pool.DeletePool(pool_pb2.DeletePoolRequest(name="pools/shared", etag=pool.etag)),
    )
    # The last owner cannot leave or be demoted.
    members = await alice.pool.ListPoolMembers(
        pool_pb2.ListPoolMembersRequest(parent="pools/shared", principal="team-a/alice")
    )
    owner_name = members.members[0].name
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION,
        alice.pool.RemovePoolMember(pool_pb2.RemovePoolMemberRequest(name=owner_name)),
    )
    await expect(
        grpc.StatusCode.FAILED_PRECONDITION, alice.add("pools/shared", "team-a/alice", WRITER)
    )
    # With a second owner, the first may go.
    await alice.add("pools/shared", "team-b/bob", OWNER)
    await bob.pool.RemovePoolMember(pool_pb2.RemovePoolMemberRequest(name=owner_name))
    await expect(NF, alice.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/shared")))
    # Re-adding keeps the member name.
    again = await bob.add("pools/shared", "team-a/alice", READER)
    assert again.name == owner_name
    await bob.pool.DeletePool(pool_pb2.DeletePoolRequest(name="pools/shared"))
    await expect(NF, bob.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/shared")))


async def test_other_tenant_and_bad_names(make_tenant: Any) -> None:
    t1 = await make_tenant()
    t2 = await make_tenant()
    a1 = await make_agent(t1, "a")
    a2 = await make_agent(t2, "a")  # the same identity, in another tenant
    await a1.create_pool("p")
    assert await code_of(a2.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p"))) == NF
    assert (
        await code_of(a2.pool.ListPoolMembers(pool_pb2.ListPoolMembersRequest(parent="pools/p")))
        == NF
    )
    memory = await a2.remember("space-2", "tenant two's secret plan")
    # Publishing another tenant's memory: NOT_FOUND, never a hint.
    await expect(NF, a1.publish("pools/p", memory.name))
    err = await expect(
        grpc.StatusCode.INVALID_ARGUMENT, a1.pool.GetPool(pool_pb2.GetPoolRequest(name="pool/x"))
    )
    assert "name" in err.details()
    await expect(
        grpc.StatusCode.INVALID_ARGUMENT,
        a1.pool.RemovePoolMember(pool_pb2.RemovePoolMemberRequest(name="pools/p/members/zzz")),
    )
    # Unknown member of a pool one belongs to: NOT_FOUND.
    await expect(
        NF,
        a1.pool.RemovePoolMember(
            pool_pb2.RemovePoolMemberRequest(name="pools/p/members/" + "0" * 20)
        ),
    )


async def test_groups_join_pools_and_admins_manage(make_tenant: Any) -> None:
    t = await make_tenant()
    admin = await make_admin(t)
    owner = await make_agent(t, "owner")
    carol = await make_agent(t, "team-c/carol")
    dave = await make_agent(t, "team-c/dave")
    group = await make_group(admin, "team-c", ["team-c/carol", "team-c/dave"])
    assert list(group.members) == ["team-c/carol", "team-c/dave"]
    await owner.create_pool("p")
    await owner.add("pools/p", "groups/team-c", WRITER)
    for agent in (carol, dave):
        assert (await agent.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p"))).name == "pools/p"
    memory = await carol.remember("team-c", "The build cache lives on the NFS share")
    published = await carol.publish("pools/p", memory.name)
    assert published.outcome == pool_pb2.PUBLISH_OUTCOME_PUBLISHED
    # Dave leaves the team: his reads stop at once.
    await admin.admin.RemoveGroupMember(
        admin_pb2.RemoveGroupMemberRequest(group="groups/team-c", principal="team-c/dave")
    )
    await expect(NF, dave.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p")))
    # A tenant administrator manages any pool but reads its publications only as a member.
    assert (await admin.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p"))).member_count == 2
    assert [p.name for p in (await admin.pool.ListPools(pool_pb2.ListPoolsRequest())).pools] == [
        "pools/p"
    ]
    await expect(
        NF,
        admin.pool.ListPublications(pool_pb2.ListPublicationsRequest(parent="pools/p")),
    )
    await admin.add("pools/p", "team-c/dave", READER)
    assert (await dave.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p"))).name == "pools/p"
    # Groups are for administrators only.
    await expect(PD, owner.admin.ListGroups(admin_pb2.ListGroupsRequest()))
    listed = await admin.admin.ListGroups(admin_pb2.ListGroupsRequest())
    assert [g.name for g in listed.groups] == ["groups/team-c"]
    await admin.admin.DeleteGroup(admin_pb2.DeleteGroupRequest(name="groups/team-c"))
    await expect(NF, carol.pool.GetPool(pool_pb2.GetPoolRequest(name="pools/p")))
