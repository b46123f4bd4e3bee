"""Issue 22 §3: input that used to reach the server's internals now gets a clean
INVALID_ARGUMENT naming the field (timestamps, page tokens, policy values)."""

from __future__ import annotations

import base64
import json
from typing import Any

import grpc
import pytest
from engram.v1 import admin_pb2, lifecycle_pb2, recall_pb2, recall_pb2_grpc, types_pb2
from engram_server import page_tokens
from google.protobuf import field_mask_pb2, timestamp_pb2

from tests.lifecycle_helpers import field_violations, proposal, propose

BEFORE_YEAR_1 = timestamp_pb2.Timestamp(seconds=-62135596801)
AFTER_YEAR_9999 = timestamp_pb2.Timestamp(seconds=253402300800)
BAD_NANOS = timestamp_pb2.Timestamp(seconds=0, nanos=-1)


async def _invalid(call: Any, field: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert field in field_violations(err.value), field_violations(err.value)


@pytest.mark.parametrize("bad", [BEFORE_YEAR_1, AFTER_YEAR_9999, BAD_NANOS])
async def test_out_of_range_timestamps_name_the_field(make_tenant: Any, bad: Any) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    memory = (await propose(t.lifecycle, "s", "a fact to revise")).memory

    await _invalid(
        t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(proposal=proposal("s", "x", expire_time=bad))
        ),
        "proposal.expire_time",
    )
    await _invalid(
        t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(create_time_start=bad)),
        "create_time_start",
    )
    await _invalid(
        t.lifecycle.ExpireDueMemories(lifecycle_pb2.ExpireDueMemoriesRequest(as_of=bad)),
        "as_of",
    )
    await _invalid(recall.Recall(recall_pb2.RecallRequest(query="q", spaces=["s"], now=bad)), "now")
    await _invalid(
        recall.Recall(
            recall_pb2.RecallRequest(
                query="q", spaces=["s"], filter=recall_pb2.RecallFilter(create_time_end=bad)
            )
        ),
        "filter.create_time_end",
    )
    await _invalid(
        t.lifecycle.AppendMessage(
            lifecycle_pb2.AppendMessageRequest(
                space="s",
                session="chat",
                message=lifecycle_pb2.SessionMessage(role="user", content="hi", time=bad),
            )
        ),
        "message.time",
    )
    await _invalid(
        t.lifecycle.ReviseMemory(
            lifecycle_pb2.ReviseMemoryRequest(
                memory=types_pb2.Memory(name=memory.name, expire_time=bad),
                update_mask=field_mask_pb2.FieldMask(paths=["expire_time"]),
            )
        ),
        "memory.expire_time",
    )
    await _invalid(
        t.lifecycle.Learn(
            lifecycle_pb2.LearnRequest(
                space="s",
                turns=[lifecycle_pb2.ConversationTurn(role="user", content="hi", time=bad)],
            )
        ),
        "turns[0].time",
    )
    await _invalid(
        t.admin.CreateApiKey(
            admin_pb2.CreateApiKeyRequest(
                parent=t.name, api_key=admin_pb2.ApiKey(scopes=["read"], expire_time=bad)
            )
        ),
        "api_key.expire_time",
    )


def _forged(position: Any, fingerprint: str = "0" * 16) -> str:
    """A token in the unsigned format the server used to accept."""
    raw = json.dumps({"p": position, "f": fingerprint}).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _altered(token: str) -> str:
    """`token` with one character of its payload changed."""
    payload, _, mac = token.partition(".")
    flipped = "A" if payload[5] != "A" else "B"
    return f"{payload[:5]}{flipped}{payload[6:]}.{mac}"


async def test_forged_and_altered_page_tokens_are_refused_by_every_list(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)
    first = (await propose(t.lifecycle, "s", "first fact")).memory
    await propose(t.lifecycle, "s", "second fact")
    await t.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=first.name, importance=0.7, etag=first.etag),
            update_mask=field_mask_pb2.FieldMask(paths=["importance"]),
        )
    )
    snaps = [
        await recall.CreateSnapshot(
            recall_pb2.CreateSnapshotRequest(snapshot=recall_pb2.Snapshot(space="s"))
        )
        for _ in range(2)
    ]
    await t.new_key(scopes=["read"])

    page = await t.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(page_size=1))
    assert page.next_page_token
    # A genuine token still pages.
    rest = await t.lifecycle.ListMemories(
        lifecycle_pb2.ListMemoriesRequest(page_size=1, page_token=page.next_page_token)
    )
    assert len(rest.memories) == 1

    for token in (
        _forged({"t": "not-a-time", "i": 12}),
        _forged({"r": "x"}),
        _altered(page.next_page_token),
        page.next_page_token + "x",
        "...",
        "\u00e9t\u00e9.x",
    ):
        await _invalid(
            t.lifecycle.ListMemories(
                lifecycle_pb2.ListMemoriesRequest(page_size=1, page_token=token)
            ),
            "page_token",
        )
        await _invalid(
            t.lifecycle.ListMemoryRevisions(
                lifecycle_pb2.ListMemoryRevisionsRequest(name=first.name, page_token=token)
            ),
            "page_token",
        )
        await _invalid(
            t.lifecycle.ListAuditEntries(lifecycle_pb2.ListAuditEntriesRequest(page_token=token)),
            "page_token",
        )
        await _invalid(
            recall.ListSnapshots(recall_pb2.ListSnapshotsRequest(page_token=token)), "page_token"
        )
        await _invalid(
            recall.DiffSnapshots(
                recall_pb2.DiffSnapshotsRequest(
                    base=snaps[0].name, target=snaps[1].name, page_token=token
                )
            ),
            "page_token",
        )
        await _invalid(
            t.admin.ListApiKeys(admin_pb2.ListApiKeysRequest(parent=t.name, page_token=token)),
            "page_token",
        )
        await _invalid(
            t.platform_admin.ListTenants(admin_pb2.ListTenantsRequest(page_token=token)),
            "page_token",
        )


async def test_replicas_share_the_page_token_key(server: Any, settings: Any) -> None:
    """Every replica reads the key from PostgreSQL: a token issued under it verifies
    after the key is loaded again (as another replica would), and a configured
    secret replaces it."""
    import dataclasses

    from engram_server.platform.server import configure_page_tokens

    token = page_tokens.seal(b"position")
    await configure_page_tokens(settings, server.ctx.db)
    assert page_tokens.unseal(token) == b"position"
    try:
        await configure_page_tokens(
            dataclasses.replace(settings, page_token_secret="s" * 40), server.ctx.db
        )
        with pytest.raises(Exception, match="not a page token"):
            page_tokens.unseal(token)
    finally:
        await configure_page_tokens(settings, server.ctx.db)
    assert page_tokens.unseal(token) == b"position"


BAD_POLICIES = [
    (
        "TTL of 2^63-1",
        {"default_ttl_seconds": {"MEMORY_KIND_EPISODIC": 2**63 - 1}},
        "policy.default_ttl_seconds[EPISODIC]",
    ),
    (
        "retention NaN",
        {"retention_stability_hours": float("nan")},
        "policy.retention_stability_hours",
    ),
    (
        "retention infinite",
        {"retention_stability_hours": float("inf")},
        "policy.retention_stability_hours",
    ),
    (
        "threshold NaN",
        {"near_duplicate_threshold": float("nan")},
        "policy.near_duplicate_threshold",
    ),
    ("min_confidence NaN", {"min_confidence": float("nan")}, "policy.min_confidence"),
    (
        "decay NaN",
        {"decay_exponents": {"MEMORY_KIND_EPISODIC": float("nan")}},
        "policy.decay_exponents[EPISODIC]",
    ),
    (
        "long webhook name",
        {"webhooks": [lifecycle_pb2.WebhookValidator(name="w" * 65, url="https://example.com")]},
        "policy.webhooks[0].name",
    ),
]


@pytest.mark.parametrize(
    ("label", "fields", "field"), BAD_POLICIES, ids=[b[0] for b in BAD_POLICIES]
)
async def test_policy_values_that_would_break_writes_are_refused(
    make_tenant: Any, label: str, fields: dict[str, Any], field: str
) -> None:
    t = await make_tenant()
    await _invalid(
        t.lifecycle.SetPolicy(
            lifecycle_pb2.SetPolicyRequest(policy=lifecycle_pb2.Policy(name="policy", **fields))
        ),
        field,
    )
    # The tenant's writes keep working.
    assert (await propose(t.lifecycle, "s", "still writable")).memory.name
