"""Idempotent pool writes replay only for the caller that made them.

A request id is claimed per tenant, and a retry with the same id and body returns
the first outcome without running the write again. The pool's role checks run
inside that write, so a replay for anyone else would hand a non-member (or a
member whose role is too low) the stored result of an owner's write: the pool,
its publications and review notes, which a non-member must not learn exist.
"""

from __future__ import annotations

from typing import Any

import grpc
from engram.v1 import pool_pb2

from tests.lifecycle_helpers import field_violations
from tests.pool_helpers import READER, expect, make_agent


async def test_a_pool_write_replays_only_for_its_caller(make_tenant: Any) -> None:
    t = await make_tenant()
    owner = await make_agent(t, "owner")
    reader = await make_agent(t, "reader")
    outsider = await make_agent(t, "outsider")
    await owner.create_pool("replayed", gate=pool_pb2.PublishGate(require_review=True))
    await owner.add("pools/replayed", "reader", READER)
    memory = await owner.remember("owner-notes", "The release train leaves on Thursdays")

    publish = pool_pb2.PublishMemoryRequest(
        pool="pools/replayed", memory=memory.name, request_id="publish-release-train"
    )
    first = await owner.pool.PublishMemory(publish)
    assert first.outcome == pool_pb2.PUBLISH_OUTCOME_HELD_FOR_REVIEW
    review = pool_pb2.ReviewPublicationRequest(
        name=first.publication.name,
        decision=pool_pb2.REVIEW_DECISION_REJECT,
        note="not for the whole team",
        request_id="review-release-train",
    )
    reviewed = await owner.pool.ReviewPublication(review)

    # The caller's own retry replays the first outcome.
    assert await owner.pool.PublishMemory(publish) == first
    assert await owner.pool.ReviewPublication(review) == reviewed

    # Anyone else sending the same request with the same id gets nothing of it:
    # not the held publication, not the review, not even that the pool exists.
    for caller in (outsider, reader):
        for call in (caller.pool.PublishMemory(publish), caller.pool.ReviewPublication(review)):
            err = await expect(grpc.StatusCode.INVALID_ARGUMENT, call)
            assert field_violations(err) == ["request_id"]
            assert "replayed" not in (err.details() or "")

    # The write itself still answers as it would without a request id.
    await expect(
        grpc.StatusCode.NOT_FOUND,
        outsider.pool.PublishMemory(
            pool_pb2.PublishMemoryRequest(pool="pools/replayed", memory=memory.name)
        ),
    )
