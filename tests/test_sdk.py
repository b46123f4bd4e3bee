"""The Python SDK: conversions, error decoding, retries, paging and resumable watch on a
small in-test gRPC server, then `engram.Client` / `engram.AsyncClient` against the real
server (real PostgreSQL and Redis).

The real server runs on the session's event loop, so the blocking `engram.Client`
is driven from a worker thread (`asyncio.to_thread`); `engram.AsyncClient` runs on
the loop itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from concurrent import futures
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import engram
import grpc
import pytest
from engram import _convert, _requests
from engram import types as t
from engram.errors import make_status
from engram.v1 import admin_pb2, lifecycle_pb2, lifecycle_pb2_grpc, types_pb2
from google.protobuf import struct_pb2, timestamp_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

_T = TypeVar("_T")


async def in_thread(fn: Callable[[], _T]) -> _T:
    return await asyncio.to_thread(fn)


def _stamp(value: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(value)
    return stamp


# -- conversions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sdk_enum", "proto_enum", "prefix"),
    [
        (t.MemoryKind, types_pb2.MemoryKind, "MEMORY_KIND_"),
        (t.MemoryStatus, types_pb2.MemoryStatus, "MEMORY_STATUS_"),
        (t.EvidenceLevel, types_pb2.EvidenceLevel, "EVIDENCE_LEVEL_"),
        (t.AuditAction, types_pb2.AuditAction, "AUDIT_ACTION_"),
        (t.ProposalOutcome, lifecycle_pb2.ProposalOutcome, "PROPOSAL_OUTCOME_"),
        (t.MemoryOrder, lifecycle_pb2.MemoryOrder, "MEMORY_ORDER_"),
    ],
)
def test_sdk_enums_mirror_the_proto_enums(sdk_enum: Any, proto_enum: Any, prefix: str) -> None:
    assert {m.value for m in sdk_enum} == {k.removeprefix(prefix) for k in proto_enum.keys()}


def test_memory_converts_to_python_types() -> None:
    created = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    structured = struct_pb2.Struct()
    structured.update({"employer": "Acme", "years": 3, "tags": ["a", "b"]})
    pb = types_pb2.Memory(
        name="memories/0b7c",
        space="team-a/agent-7",
        session="s1",
        kind=types_pb2.MEMORY_KIND_EPISODIC,
        content="Alice joined Acme",
        structured_content=structured,
        confidence=0.8,
        importance=0.5,
        evidence_level=types_pb2.EVIDENCE_LEVEL_CORROBORATED,
        tags=["hr", "people"],
        depends_on=["memories/1"],
        status=types_pb2.MEMORY_STATUS_ACTIVE,
        create_time=_stamp(created),
        etag="e1",
        revision=2,
        attributes={"team": "a"},
        access_count=4,
        last_access_time=_stamp(created + timedelta(days=1)),
    )
    memory = _convert.memory_out(pb)

    assert memory.id == "0b7c"
    assert memory.kind is engram.MemoryKind.EPISODIC
    assert memory.status == "ACTIVE" and not memory.status.terminal
    assert memory.evidence_level is engram.EvidenceLevel.CORROBORATED
    assert memory.create_time == created and memory.create_time.tzinfo is not None
    assert memory.update_time is None and memory.expire_time is None
    assert memory.structured_content == {"employer": "Acme", "years": 3, "tags": ["a", "b"]}
    assert memory.tags == ("hr", "people") and memory.attributes == {"team": "a"}
    assert memory.access_count == 4
    assert memory.last_access_time == created + timedelta(days=1)
    assert memory.raw is pb
    # `raw` stays out of equality and repr; to_dict gives plain JSON.
    assert memory == dataclasses.replace(memory, raw=None)
    assert "raw" not in repr(memory)
    data = json.loads(json.dumps(engram.to_dict(memory)))
    assert data["create_time"] == "2026-01-02T03:04:05+00:00"
    assert data["status"] == "ACTIVE" and "raw" not in data


def test_memory_without_structured_content_reads_none() -> None:
    memory = _convert.memory_out(types_pb2.Memory(name="memories/x", content="c"))
    assert memory.structured_content is None
    assert memory.kind is engram.MemoryKind.UNSPECIFIED


def test_unknown_enum_number_from_a_newer_server_reads_unspecified() -> None:
    assert _convert.enum_out(t.MemoryStatus, 999) is t.MemoryStatus.UNSPECIFIED


@pytest.mark.parametrize(
    "value",
    [
        "pending_confirmation",
        "PENDING_CONFIRMATION",
        "pending-confirmation",
        "MEMORY_STATUS_PENDING_CONFIRMATION",
        engram.MemoryStatus.PENDING_CONFIRMATION,
        3,
    ],
)
def test_enum_names_are_accepted_in_any_spelling(value: Any) -> None:
    assert _convert.enum_in(t.MemoryStatus, value, "status") == 3


def test_unknown_enum_name_is_invalid_argument_listing_the_choices() -> None:
    with pytest.raises(engram.InvalidArgument, match=r"unknown value 'opinion'.*semantic") as e:
        _convert.enum_in(t.MemoryKind, "opinion", "proposal.kind")
    assert e.value.fields == ["proposal.kind"]


def test_proposal_request_leaves_unset_optionals_unset() -> None:
    request = _requests.propose(t.MemoryProposal(space="s", content="c"), None)
    proposal = request.proposal
    assert proposal.kind == types_pb2.MEMORY_KIND_UNSPECIFIED
    assert proposal.confidence == 1.0
    assert not proposal.HasField("importance")
    assert not proposal.HasField("structured_content")
    assert not proposal.HasField("expire_time")
    assert len(request.request_id) == 36  # a generated UUID


def test_proposal_request_carries_every_field() -> None:
    before = datetime.now(UTC)
    request = _requests.propose(
        t.MemoryProposal(
            space="s",
            content="c",
            kind="procedural",
            confidence=0.0,
            importance=0.0,
            tags=["x"],
            depends_on=["abc"],
            structured={"k": [1, 2]},
            expire_time=timedelta(hours=1),
            evidence_level="official",
            attributes={"a": "b"},
        ),
        "req-1",
    )
    proposal = request.proposal
    assert request.request_id == "req-1"
    assert proposal.kind == types_pb2.MEMORY_KIND_PROCEDURAL
    assert proposal.HasField("importance") and proposal.importance == 0.0
    assert list(proposal.depends_on) == ["memories/abc"]
    assert proposal.evidence_level == types_pb2.EVIDENCE_LEVEL_OFFICIAL
    expires = proposal.expire_time.ToDatetime(tzinfo=UTC)
    assert before + timedelta(minutes=59) < expires < before + timedelta(minutes=61)
    assert dict(proposal.attributes) == {"a": "b"}


def test_expected_slot_memory_distinguishes_unset_from_empty() -> None:
    def proposal(expected: str | None) -> Any:
        item = t.MemoryProposal(space="s", content="c", expected_slot_memory=expected)
        return _requests.propose(item, None).proposal

    assert not proposal(None).HasField("expected_slot_memory")
    empty = proposal("")
    assert empty.HasField("expected_slot_memory") and empty.expected_slot_memory == ""
    assert proposal("abc").expected_slot_memory == "memories/abc"


async def test_slotted_write_as_compare_and_set(make_tenant: Any) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(tenant.address, tenant.secret) as client:
        first = await client.propose(
            "cas", "The build runs on Jenkins", slot_key="ci::runner", expected_slot_memory=""
        )
        assert first.memory is not None
        with pytest.raises(engram.Aborted):
            await client.propose(
                "cas", "The build runs on Travis", slot_key="ci::runner", expected_slot_memory=""
            )
        second = await client.propose(
            "cas",
            "The build runs on GitHub Actions",
            slot_key="ci::runner",
            expected_slot_memory=first.memory.name,
        )
        assert second.memory is not None
        # A writer still holding the first value loses and stores nothing.
        with pytest.raises(engram.Aborted):
            await client.propose(
                "cas",
                "The build runs on Buildkite",
                slot_key="ci::runner",
                expected_slot_memory=first.memory.name,
            )
        live = [m.content async for m in client.list("cas", statuses=["active"])]
        assert live == ["The build runs on GitHub Actions"]


def test_naive_datetimes_are_read_as_utc() -> None:
    stamp = _convert.time_in(datetime(2026, 5, 1, 12, 0), "expire_time")
    assert stamp.ToDatetime(tzinfo=UTC) == datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_revise_builds_the_update_mask_from_the_given_fields() -> None:
    request = _requests.revise(
        "m1",
        "etag-1",
        {"content": "new", "structured": {"a": 1}, "tags": ["t"], "source": None},
        None,
    )
    assert request.memory.name == "memories/m1" and request.memory.etag == "etag-1"
    assert list(request.update_mask.paths) == ["content", "source", "structured_content", "tags"]
    assert request.memory.content == "new"
    assert request.memory.source == ""  # in the mask, unset: the server clears it
    assert list(request.memory.tags) == ["t"]


def test_revise_refuses_fields_it_cannot_change() -> None:
    with pytest.raises(engram.InvalidArgument, match="status"):
        _requests.revise("m1", "e", {"status": "ACTIVE"}, None)
    with pytest.raises(engram.InvalidArgument, match="at least one"):
        _requests.revise("m1", "e", {}, None)


def test_policy_round_trips_with_short_kind_keys() -> None:
    policy = engram.Policy(
        name="spaces/a/policy",
        json_schema={"type": "object", "required": ["x"]},
        min_confidence=0.5,
        required_fields=("source",),
        webhooks=(engram.WebhookValidator(url="http://127.0.0.1:1/v", critical=True),),
        default_ttl_seconds={"episodic": 60},
    )
    pb = _convert.policy_in(policy)
    assert dict(pb.default_ttl_seconds) == {"MEMORY_KIND_EPISODIC": 60}
    back = _convert.policy_out(pb)
    assert back.default_ttl_seconds == {"EPISODIC": 60}
    assert back.json_schema == {"type": "object", "required": ["x"]}
    assert back.webhooks == policy.webhooks
    assert _requests.set_policy(back, "b", None).policy.name == "spaces/b/policy"


def test_policy_has_every_field_of_the_api_policy() -> None:
    """A field the SDK's Policy lacks is lost on a read-modify-write (get_policy,
    dataclasses.replace, set_policy) and cannot be set at all."""
    sdk = {f.name for f in dataclasses.fields(engram.Policy)}
    assert {f.name for f in lifecycle_pb2.Policy.DESCRIPTOR.fields} - sdk == set()


def test_policy_round_trips_privacy_and_evidence_settings() -> None:
    policy = engram.Policy(
        name="spaces/crm/policy",
        allowed_personal_data=("email", "phone"),
        evidence_weights=engram.EvidenceWeights(official=0.2, unverified=0.0),
        min_corroboration=3,
        assess_on_write=True,
        pinned_space_class="canonical",
    )
    pb = _convert.policy_in(policy)
    assert list(pb.allowed_personal_data) == ["email", "phone"]
    # An explicit 0.0 is sent (the grade gets no adjustment); None is left unset.
    assert pb.evidence_weights.HasField("unverified") and pb.evidence_weights.unverified == 0.0
    assert not pb.evidence_weights.HasField("corroborated")
    back = _convert.policy_out(pb)
    assert dataclasses.replace(back, raw=None) == policy
    assert _convert.policy_out(lifecycle_pb2.Policy()).evidence_weights is None
    with pytest.raises(engram.InvalidArgument, match=r"policy\.allowed_personal_data"):
        _convert.policy_in(engram.Policy(allowed_personal_data="email"))  # type: ignore[arg-type]
    with pytest.raises(engram.InvalidArgument, match=r"policy\.evidence_weights"):
        _convert.policy_in(engram.Policy(evidence_weights={"official": 0.2}))  # type: ignore[arg-type]


def test_admin_results_convert() -> None:
    key = _convert.api_key_out(
        admin_pb2.ApiKey(
            name="tenants/acme/apiKeys/k1",
            scopes=["read", "write"],
            revoke_time=_stamp(datetime(2026, 1, 1, tzinfo=UTC)),
        )
    )
    assert key.tenant == "tenants/acme" and key.revoked and key.scopes == ("read", "write")
    usage = _convert.usage_out(
        admin_pb2.Usage(name="tenants/acme/usage", memories_by_status={"MEMORY_STATUS_ACTIVE": 4})
    )
    assert usage.memories_by_status == {"ACTIVE": 4}
    assert _convert.api_key_name("k1", "acme") == "tenants/acme/apiKeys/k1"
    with pytest.raises(engram.InvalidArgument, match="tenant"):
        _convert.api_key_name("k1")


# -- a small server that answers with rich errors, flakes and pages -------------------


def _abort(
    context: grpc.ServicerContext, code: grpc.StatusCode, message: str, *details: Any
) -> Any:
    context.abort_with_status(rpc_status.to_status(make_status(code, message, details)))


class FakeLifecycle(lifecycle_pb2_grpc.LifecycleServiceServicer):
    """Canned answers keyed by the request, recording what the client sent."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: dict[str, list[Any]] = {}
        self.authorization: list[str] = []
        self.unavailable_first = 0  # ProposeMemory fails this many times per request id
        self.watch_cut_after = 2  # the first WatchTransitions stream breaks after N events

    def _record(self, method: str, request: Any, context: grpc.ServicerContext) -> int:
        with self.lock:
            self.calls.setdefault(method, []).append(request)
            self.authorization.extend(
                v for k, v in context.invocation_metadata() if k == "authorization"
            )
            return len(self.calls[method])

    def GetMemory(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._record("GetMemory", request, context)
        name = request.name
        if name.endswith("missing"):
            _abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"memory {name!r} not found",
                error_details_pb2.ResourceInfo(resource_type="memory", resource_name=name),
            )
        if name.endswith("bad"):
            _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "invalid argument",
                error_details_pb2.BadRequest(
                    field_violations=[
                        error_details_pb2.BadRequest.FieldViolation(
                            field="name", description="not a memory name"
                        ),
                        error_details_pb2.BadRequest.FieldViolation(
                            field="proposal.confidence", description="must be in [0, 1]"
                        ),
                    ]
                ),
            )
        if name.endswith("terminal"):
            _abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                "cannot move",
                error_details_pb2.PreconditionFailure(
                    violations=[
                        error_details_pb2.PreconditionFailure.Violation(
                            type="STATUS", subject=name, description="RETRACTED -> ACTIVE"
                        )
                    ]
                ),
            )
        if name.endswith("plain"):
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "needs scope read")
        if name.endswith("quota"):
            _abort(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "slow down",
                error_details_pb2.QuotaFailure(
                    violations=[
                        error_details_pb2.QuotaFailure.Violation(
                            subject="tenant:acme", description="10 requests/s"
                        )
                    ]
                ),
                error_details_pb2.RetryInfo(retry_delay={"seconds": 1, "nanos": 500_000_000}),
            )
        if name.endswith("down"):
            context.abort(grpc.StatusCode.UNAVAILABLE, "store down")
        return types_pb2.Memory(name=name, content="hello", status=types_pb2.MEMORY_STATUS_ACTIVE)

    def ProposeMemory(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._record("ProposeMemory", request, context)
        with self.lock:
            seen = sum(1 for r in self.calls["ProposeMemory"] if r.request_id == request.request_id)
        if seen <= self.unavailable_first:
            context.abort(grpc.StatusCode.UNAVAILABLE, "try again")
        memory = types_pb2.Memory(
            name="memories/new", content=request.proposal.content, space=request.proposal.space
        )
        return lifecycle_pb2.ProposeMemoryResponse(
            result=lifecycle_pb2.ProposalResult(
                outcome=lifecycle_pb2.PROPOSAL_OUTCOME_PENDING_CONFIRMATION,
                memory=memory,
                failures=[
                    lifecycle_pb2.ValidationFailure(
                        validator="confidence_threshold", critical=False, message="low"
                    )
                ],
            )
        )

    def ExpireDueMemories(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._record("ExpireDueMemories", request, context)
        context.abort(grpc.StatusCode.UNAVAILABLE, "no store")

    def ListMemories(self, request: Any, context: grpc.ServicerContext) -> Any:
        self._record("ListMemories", request, context)
        start = int(request.page_token or 0)
        size = request.page_size or 100
        names = [f"memories/m{i}" for i in range(5)][start : start + size]
        following = start + size
        return lifecycle_pb2.ListMemoriesResponse(
            memories=[types_pb2.Memory(name=n, content=n) for n in names],
            next_page_token=str(following) if following < 5 else "",
        )

    def WatchTransitions(self, request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        attempt = self._record("WatchTransitions", request, context)
        start = int(request.cursor or 0)
        for sequence in range(start + 1, 6):
            if attempt == 1 and sequence > self.watch_cut_after:
                context.abort(grpc.StatusCode.UNAVAILABLE, "replica restarting")
            yield lifecycle_pb2.WatchTransitionsResponse(
                cursor=str(sequence),
                entry=types_pb2.AuditEntry(
                    name=f"auditEntries/{sequence}",
                    sequence=sequence,
                    action=types_pb2.AUDIT_ACTION_TRANSITION,
                    memory="memories/m",
                    to_status=types_pb2.MEMORY_STATUS_ACTIVE,
                ),
            )


@pytest.fixture
def fake() -> Iterator[tuple[str, FakeLifecycle]]:
    servicer = FakeLifecycle()
    grpc_server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    lifecycle_pb2_grpc.add_LifecycleServiceServicer_to_server(servicer, grpc_server)
    port = grpc_server.add_insecure_port("127.0.0.1:0")
    grpc_server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        grpc_server.stop(None)


def test_every_call_sends_the_api_key(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    with engram.Client(address, "secret-1") as client:
        client.get("m1")
        list(client.list(page_size=2))
    assert servicer.authorization and set(servicer.authorization) == {"Bearer secret-1"}


def test_address_and_key_come_from_the_environment(
    fake: tuple[str, FakeLifecycle], monkeypatch: pytest.MonkeyPatch
) -> None:
    address, servicer = fake
    monkeypatch.setenv("ENGRAM_ADDRESS", address)
    monkeypatch.setenv("ENGRAM_API_KEY", "from-env")
    with engram.Client() as client:
        assert client.address == address
        assert client.get("memories/m1").content == "hello"
    assert servicer.authorization == ["Bearer from-env"]


def test_invalid_argument_names_every_field(fake: tuple[str, FakeLifecycle]) -> None:
    with engram.Client(fake[0], "k") as client, pytest.raises(engram.InvalidArgument) as info:
        client.get("memories/bad")
    error = info.value
    assert error.code is grpc.StatusCode.INVALID_ARGUMENT
    assert error.field_violations == [
        ("name", "not a memory name"),
        ("proposal.confidence", "must be in [0, 1]"),
    ]
    assert error.fields == ["name", "proposal.confidence"]
    assert (
        error.status is not None and error.status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    )
    assert isinstance(error.details[0], error_details_pb2.BadRequest)
    assert isinstance(error, engram.EngramError)


def test_not_found_carries_the_resource(fake: tuple[str, FakeLifecycle]) -> None:
    with engram.Client(fake[0], "k") as client, pytest.raises(engram.NotFound) as info:
        client.get("missing")
    assert info.value.resource_type == "memory"
    assert info.value.resource_name == "memories/missing"
    assert str(info.value) == "NOT_FOUND: memory 'memories/missing' not found"


def test_failed_precondition_and_quota_details(fake: tuple[str, FakeLifecycle]) -> None:
    with engram.Client(fake[0], "k") as client:
        with pytest.raises(engram.FailedPrecondition) as precondition:
            client.get("terminal")
        with pytest.raises(engram.ResourceExhausted) as quota:
            client.get("quota")
        with pytest.raises(engram.PermissionDenied) as denied:
            client.get("plain")
    assert precondition.value.violations == [("STATUS", "memories/terminal", "RETRACTED -> ACTIVE")]
    assert quota.value.quota_violations == [("tenant:acme", "10 requests/s")]
    assert quota.value.retry_delay == 1.5
    # A plain status (no details) still maps to its class, with an empty detail list.
    assert denied.value.status is None and denied.value.details == ()
    assert denied.value.message == "needs scope read"


def test_reads_are_retried_when_unavailable(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    with engram.Client(address, "k", max_attempts=3) as client, pytest.raises(engram.Unavailable):
        client.get("down")
    assert len(servicer.calls["GetMemory"]) == 3


def test_writes_retry_with_one_generated_request_id(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    servicer.unavailable_first = 2
    with engram.Client(address, "k") as client:
        result = client.propose("team-a", "Alice prefers Go", confidence=0.2)
    assert (
        result.pending and result.memory is not None and result.memory.content == "Alice prefers Go"
    )
    assert result.failures == (
        engram.ValidationFailure(validator="confidence_threshold", critical=False, message="low"),
    )
    ids = {r.request_id for r in servicer.calls["ProposeMemory"]}
    assert len(servicer.calls["ProposeMemory"]) == 3 and len(ids) == 1 and "" not in ids


def test_calls_without_request_id_are_not_retried(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    with engram.Client(address, "k") as client, pytest.raises(engram.Unavailable):
        client.expire_due()
    assert len(servicer.calls["ExpireDueMemories"]) == 1


def test_list_follows_pages_lazily(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    with engram.Client(address, "k") as client:
        names = [m.name for m in client.list(space="s", page_size=2)]
        assert names == [f"memories/m{i}" for i in range(5)]
        assert [r.page_token for r in servicer.calls["ListMemories"]] == ["", "2", "4"]
        first = next(iter(client.list(page_size=2)))
    assert first.name == "memories/m0"
    assert len(servicer.calls["ListMemories"]) == 4  # one page for the single item


def test_watch_resumes_after_the_last_delivered_event(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    with engram.Client(address, "k") as client:
        events = list(client.watch(space="s", statuses=["active"], cursor="0"))
    assert [e.entry.sequence for e in events] == [1, 2, 3, 4, 5]
    assert events[0].to_status is engram.MemoryStatus.ACTIVE
    requests = servicer.calls["WatchTransitions"]
    assert [r.cursor for r in requests] == ["0", "2"]
    assert list(requests[1].statuses) == [types_pb2.MEMORY_STATUS_ACTIVE]


def test_watch_without_resume_raises(fake: tuple[str, FakeLifecycle]) -> None:
    with engram.Client(fake[0], "k") as client, pytest.raises(engram.Unavailable):
        list(client.watch(cursor="0", resume=False))


async def test_async_client_has_the_same_behaviour(fake: tuple[str, FakeLifecycle]) -> None:
    address, servicer = fake
    servicer.unavailable_first = 1
    async with engram.AsyncClient(address, "async-key") as client:
        result = await client.propose("team-a", "async content")
        assert result.outcome is engram.ProposalOutcome.PENDING_CONFIRMATION
        with pytest.raises(engram.InvalidArgument) as info:
            await client.get("bad")
        assert info.value.fields == ["name", "proposal.confidence"]
        names = [m.name async for m in client.list(page_size=3)]
        events = [e.cursor async for e in client.watch(cursor="0")]
    assert names == [f"memories/m{i}" for i in range(5)]
    assert events == ["1", "2", "3", "4", "5"]
    assert len(servicer.calls["ProposeMemory"]) == 2
    assert set(servicer.authorization) == {"Bearer async-key"}


def test_connection_failure_is_unavailable() -> None:
    with engram.Client("127.0.0.1:1", "k", timeout=2, max_attempts=1) as client:
        with pytest.raises(engram.Unavailable) as info:
            client.get("m")
    assert info.value.status is None


# -- against the real server -----------------------------------------------------------


async def test_sync_client_walks_the_lifecycle(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    client = engram.Client(server.address, tenant.secret)
    try:
        result = await in_thread(
            lambda: client.propose(
                "team-a/agent-7",
                "Alice prefers Go",
                kind="semantic",
                confidence=0.9,
                tags=["people"],
                structured={"person": "alice", "language": "Go"},
            )
        )
        assert result.accepted and result.memory is not None
        memory = result.memory
        assert memory.status is engram.MemoryStatus.ACTIVE
        assert memory.structured_content == {"person": "alice", "language": "Go"}
        assert memory.create_time is not None and memory.create_time.tzinfo is not None

        got = await in_thread(lambda: client.get(memory.id))
        assert got == memory

        duplicate = await in_thread(lambda: client.propose("team-a/agent-7", "Alice prefers Go"))
        assert duplicate.duplicate and duplicate.memory is not None
        assert duplicate.memory.name == memory.name

        revised = await in_thread(
            lambda: client.revise(memory.name, memory.etag, content="Alice prefers Go and Rust")
        )
        assert revised.content == "Alice prefers Go and Rust" and revised.revision == 2
        with pytest.raises(engram.Aborted):
            await in_thread(lambda: client.revise(memory.name, memory.etag, content="stale"))

        raised = await in_thread(lambda: client.update_confidence(memory.name, 0.95, "seen again"))
        assert raised.confidence == pytest.approx(0.95)
        with pytest.raises(engram.FailedPrecondition):
            await in_thread(lambda: client.update_confidence(memory.name, 0.1))

        retracted = await in_thread(lambda: client.retract(memory.name, "wrong person"))
        assert retracted.memory.status is engram.MemoryStatus.RETRACTED
        with pytest.raises(engram.FailedPrecondition) as info:
            await in_thread(lambda: client.confirm(memory.name))
        assert info.value.status is not None

        entries = await in_thread(lambda: list(client.transitions(memory=memory.name)))
        assert [e.action for e in entries][:1] == [engram.AuditAction.TRANSITION]
        assert entries[-1].to_status is engram.MemoryStatus.RETRACTED
        assert [e.sequence for e in entries] == sorted(e.sequence for e in entries)
        revisions = await in_thread(lambda: list(client.revisions(memory.name)))
        assert [r.revision for r in revisions][:2] == [2, 1]
    finally:
        client.close()


async def test_list_iterates_across_pages(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    with engram.Client(server.address, tenant.secret) as client:
        results = await in_thread(
            lambda: client.batch_propose(
                [{"space": "pages", "content": f"fact {i}"} for i in range(7)]
                + [engram.MemoryProposal(space="other", content="elsewhere")]
            )
        )
        assert [r.outcome for r in results] == [engram.ProposalOutcome.ACCEPTED] * 8
        newest_first = await in_thread(
            lambda: [m.content for m in client.list(space="pages", page_size=3)]
        )
        oldest_first = await in_thread(
            lambda: [
                m.content for m in client.list(space="pages", page_size=2, order="create_time_asc")
            ]
        )
        active = await in_thread(lambda: list(client.list(statuses=["active"], kinds=["semantic"])))
    assert sorted(newest_first) == sorted(f"fact {i}" for i in range(7))
    assert oldest_first == list(reversed(newest_first))
    assert len(active) == 8


async def test_bad_input_raises_invalid_argument_naming_the_field(
    server: Any, make_tenant: Any
) -> None:
    tenant = await make_tenant()
    with engram.Client(server.address, tenant.secret) as client:
        with pytest.raises(engram.InvalidArgument) as info:
            await in_thread(lambda: client.propose("s", "text", confidence=1.5))
        assert any("confidence" in f for f in info.value.fields)
        with pytest.raises(engram.InvalidArgument) as empty:
            await in_thread(lambda: client.propose("s", "   "))
        assert any("content" in f for f in empty.value.fields)
        assert await in_thread(lambda: list(client.list(space="s"))) == []


async def test_foreign_memories_and_bad_keys(server: Any, make_tenant: Any) -> None:
    owner = await make_tenant()
    stranger = await make_tenant()
    async with engram.AsyncClient(server.address, owner.secret) as mine:
        result = await mine.propose("private", "owner's secret plan")
        assert result.memory is not None
    async with engram.AsyncClient(server.address, stranger.secret) as theirs:
        with pytest.raises(engram.NotFound):
            await theirs.get(result.memory.name)
        assert [m async for m in theirs.list()] == []
    async with engram.AsyncClient(server.address, "not-a-key") as nobody:
        with pytest.raises(engram.Unauthenticated):
            await nobody.get(result.memory.name)
    reader = await make_tenant(scopes=("read",))
    async with engram.AsyncClient(server.address, reader.secret) as read_only:
        with pytest.raises(engram.PermissionDenied):
            await read_only.propose("s", "writes need the write scope")


async def test_async_watch_delivers_transitions_in_order(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        proposed = await client.propose("watched", "to be confirmed", confidence=0.9)
        assert proposed.memory is not None
        await client.retract(proposed.memory.name, "changed my mind")
        seen: list[engram.TransitionEvent] = []
        stream = client.watch(space="watched", cursor="0")
        async for event in stream:
            seen.append(event)
            if event.to_status is engram.MemoryStatus.RETRACTED:
                break
        await stream.aclose()  # type: ignore[attr-defined]
        assert seen[-1].memory_name == proposed.memory.name
        resumed_from = seen[0].cursor
        again = client.watch(space="watched", cursor=resumed_from)
        first_after = await asyncio.wait_for(again.__anext__(), timeout=10)
        await again.aclose()  # type: ignore[attr-defined]
    assert first_after.cursor == seen[1].cursor


async def test_a_policy_read_modified_and_written_back_keeps_every_setting(
    server: Any, make_tenant: Any
) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        await client.set_policy(
            engram.Policy(
                allowed_personal_data=("email",),
                evidence_weights=engram.EvidenceWeights(official=0.25),
                min_corroboration=3,
                assess_on_write=True,
                pinned_space_class="canonical",
            ),
            space="crm",
        )
        policy = await client.get_policy("crm")
        updated = await client.set_policy(dataclasses.replace(policy, min_confidence=0.5))
        kept = await client.propose("crm", "Invoices go to ana@acme.com")
    assert updated.min_confidence == pytest.approx(0.5)
    assert updated.allowed_personal_data == ("email",)
    assert updated.evidence_weights == engram.EvidenceWeights(official=0.25)
    assert (updated.min_corroboration, updated.assess_on_write) == (3, True)
    assert updated.pinned_space_class == "canonical"
    assert kept.memory is not None and kept.memory.content == "Invoices go to ana@acme.com"


async def test_policy_purge_and_expiry(server: Any, make_tenant: Any) -> None:
    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        policy = await client.get_policy("strict")
        updated = await client.set_policy(
            dataclasses.replace(policy, min_confidence=0.7), space="strict"
        )
        assert updated.min_confidence == pytest.approx(0.7)
        held = await client.propose("strict", "maybe true", confidence=0.3)
        assert held.pending and held.failures
        assert held.memory is not None
        confirmed = await client.confirm(held.memory.name, "checked")
        assert confirmed.status is engram.MemoryStatus.ACTIVE

        expiring = await client.propose(
            "strict", "short lived", confidence=0.9, expire_time=timedelta(minutes=1)
        )
        assert expiring.memory is not None and expiring.memory.expire_time is not None
        # Expire "as of" a time past its expiry, so no test has to wait for the clock.
        expired = await client.expire_due(as_of=datetime.now(UTC) + timedelta(minutes=2))
        assert expiring.memory.name in expired.names
        state = await client.get(expiring.memory.name)
        assert state.status is engram.MemoryStatus.EXPIRED

        purged = await client.purge("strict", reason="erasure request #1")
        assert purged.purged_count == 2
        assert purged.tombstone is not None and purged.tombstone.action is engram.AuditAction.PURGE
        assert [m async for m in client.list(space="strict")] == []


async def test_admin_manages_tenants_and_keys(server: Any, platform_key: str) -> None:
    # Deleting a tenant waits for background work holding its rows (an indexing
    # batch being embedded): give the calls more than the default 10 s per attempt.
    async with engram.AsyncClient(server.address, platform_key, timeout=60) as platform:
        tenant_id = f"sdk-{datetime.now(UTC).strftime('%H%M%S%f')}"
        tenant = await platform.admin.create_tenant(tenant_id, "SDK test")
        assert tenant.tenant_id == tenant_id and tenant.display_name == "SDK test"
        assert (await platform.admin.get_tenant(tenant_id)).name == f"tenants/{tenant_id}"
        assert tenant_id in [t.tenant_id async for t in platform.admin.list_tenants(page_size=1)]

        created = await platform.admin.create_api_key(
            tenant_id, ["read", "write"], agent="agent-7", expire_time=timedelta(hours=1)
        )
        assert created.secret and created.api_key.agent == "agent-7"
        assert created.api_key.expire_time is not None
        async with engram.AsyncClient(server.address, created.secret) as agent:
            result = await agent.propose("agents/7", "bound to its agent")
            assert result.memory is not None and result.memory.agent == "agent-7"

        keys = [k async for k in platform.admin.list_api_keys(tenant_id)]
        assert [k.name for k in keys] == [created.api_key.name]
        revoked = await platform.admin.revoke_api_key(created.api_key.name)
        assert revoked.revoked
        async with engram.AsyncClient(server.address, created.secret) as agent:
            with pytest.raises(engram.Unauthenticated):
                await agent.get(result.memory.name)

        usage = await platform.admin.get_usage(tenant_id)
        assert usage.live_memories == 1 and usage.memories_by_status.get("ACTIVE") == 1
        deleted = await platform.admin.delete_tenant(tenant_id)
        assert sum(deleted.deleted_rows.values()) > 0
        with pytest.raises(engram.NotFound):
            await platform.admin.get_tenant(tenant_id)


def test_sync_and_async_clients_expose_the_same_methods() -> None:
    def public(cls: type) -> set[str]:
        return {n for n in dir(cls) if not n.startswith("_")}

    assert public(engram.Client) == public(engram.AsyncClient)
    assert public(engram.AdminClient) == public(engram.AsyncAdminClient)
