"""Fuzzing every RPC of every service (issue 22, the proof).

Requests are drawn by Hypothesis from each method's input descriptor
(tests/fuzz_strategies.py), plus raw byte strings that are not valid protobuf at
all. For every one of them:

- the answer is never INTERNAL or UNKNOWN (nor a unary call hanging to its
  deadline, nor UNAVAILABLE while every store is up): bad input is the caller's
  fault and gets a status that says so;
- the server is healthy afterwards (the health service answers SERVING);
- a second tenant's valid traffic, running concurrently the whole time, never
  fails.

Every method also gets a fixed set of hostile requests that must be refused with
one particular code: RESOURCE_EXHAUSTED for a request just over
`max_request_bytes` and for one past the transport's limit, INVALID_ARGUMENT for
bytes no parser accepts (a field longer than the request, a truncated varint,
wire type 7, groups nested past protobuf's recursion limit) and for invalid UTF-8
or a NUL in the method's own string fields. Health and both reflection services
get the same hostile requests.

The budget is fixed and small (ENGRAM_FUZZ_EXAMPLES requests per method, 6 by
default, derandomized so CI runs the same requests every time); set it higher
locally to search harder.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from engram.v1 import (
    admin_pb2,
    decisions_pb2,
    evidence_pb2,
    lifecycle_pb2,
    pool_pb2,
    recall_pb2,
    recall_pb2_grpc,
    types_pb2,
)
from engram_server.platform.server import transport_receive_limit
from google.protobuf import field_mask_pb2
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.fuzz_strategies import RAW_BYTES, NamePool, request_strategy
from tests.lifecycle_helpers import propose

EXAMPLES = int(os.environ.get("ENGRAM_FUZZ_EXAMPLES", "6"))
UNARY_TIMEOUT = 60.0
STREAM_TIMEOUT = 3.0
SERVICES = (admin_pb2, decisions_pb2, evidence_pb2, lifecycle_pb2, pool_pb2, recall_pb2)
NEVER = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}


def every_method() -> list[MethodDescriptor]:
    return [
        method
        for module in SERVICES
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    ]


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if not value:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field on the wire."""
    return _varint((number << 3) | 2) + _varint(len(payload)) + payload


def padded(total: int) -> bytes:
    """Valid protobuf of exactly `total` bytes: one unknown field (1000) that every
    request type skips, so only the size is wrong."""
    tag = _varint((1000 << 3) | 2)
    body = total - len(tag) - 1
    while len(tag) + len(_varint(body)) + body != total:
        body -= 1
    return tag + _varint(body) + b"p" * body


@dataclass(frozen=True)
class Hostile:
    """A payload every method must refuse with `expected` (and nothing worse)."""

    label: str
    payload: bytes
    expected: grpc.StatusCode


INVALID = grpc.StatusCode.INVALID_ARGUMENT
TOO_BIG = grpc.StatusCode.RESOURCE_EXHAUSTED
# Bytes no request type can decode, whatever its fields.
UNDECODABLE = (
    ("a length-delimited field longer than the request", b"\x0a\xff\xff\xff\x0f\x01"),
    ("a truncated varint", b"\x08\xff\xff"),
    ("wire type 7", b"\x0f\x01"),
    # Unknown groups 101 deep: past protobuf's recursion limit (100).
    ("groups nested past the recursion limit", b"\xc3\x3e" * 101 + b"\xc4\x3e" * 101),
)


def hostile_payloads(method: MethodDescriptor, limit: int, ceiling: int) -> list[Hostile]:
    """Oversize and undecodable requests for `method`: just over the server's
    request limit and just past the transport's, bytes no parser accepts, and
    invalid UTF-8 and NUL in the method's own string fields (top level and one
    message deep), which parse as far as the field."""
    out = [
        Hostile("just over max_request_bytes", padded(limit + 1), TOO_BIG),
        Hostile("past the transport's limit", padded(ceiling + 1), TOO_BIG),
        *(Hostile(label, payload, INVALID) for label, payload in UNDECODABLE),
    ]
    for path, wrap in _string_fields(method.input_type):
        out.append(Hostile(f"invalid UTF-8 in {path}", wrap(b"\xc3\x28"), INVALID))
        out.append(Hostile(f"NUL in {path}", wrap(b"a\x00b"), INVALID))
    return out


def _string_fields(descriptor: Any) -> list[tuple[str, Any]]:
    """Up to two string fields of `descriptor` (or of its message fields, one level
    down), each with a function that encodes a value into a request."""
    found: list[tuple[str, Any]] = []
    for f in descriptor.fields:
        if f.type == FieldDescriptor.TYPE_STRING:
            found.append((f.name, lambda raw, n=f.number: _field(n, raw)))
    for f in descriptor.fields:
        inner = f.message_type
        if f.type != FieldDescriptor.TYPE_MESSAGE or inner is None:
            continue
        if inner.GetOptions().map_entry or inner.full_name.startswith("google.protobuf."):
            continue
        for g in inner.fields:
            if g.type == FieldDescriptor.TYPE_STRING:
                found.append(
                    (
                        f"{f.name}.{g.name}",
                        lambda raw, n=f.number, m=g.number: _field(n, _field(m, raw)),
                    )
                )
                break
    return found[:2]


@dataclass
class Finding:
    method: str
    code: str
    details: str
    request: str


@dataclass
class Fuzzer:
    """Sends fuzzed requests over a blocking channel (from a worker thread)."""

    address: str
    tenant_key: str
    platform_key: str
    # The server's max_request_bytes and its transport's receive limit.
    limit: int
    ceiling: int
    findings: list[Finding] = field(default_factory=list)
    calls: int = 0
    # Status code name -> count, over every call (shown when the test fails, and
    # with `pytest -s`: how deep the requests reached).
    codes: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.channel = grpc.insecure_channel(self.address)
        self.health = health_pb2_grpc.HealthStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def _metadata(self, method: MethodDescriptor) -> list[tuple[str, str]]:
        # AdminService with the platform key reaches the platform paths too (its
        # names pool holds only tenants made for fuzzing).
        key = self.platform_key if method.containing_service.name == "AdminService" else None
        return [("authorization", f"Bearer {key or self.tenant_key}")]

    def send(
        self,
        method: MethodDescriptor,
        payload: bytes,
        shown: str,
        expected: grpc.StatusCode | None = None,
        path: str | None = None,
    ) -> None:
        path = path or f"/{method.containing_service.full_name}/{method.name}"
        identity = {"request_serializer": None, "response_deserializer": None}
        metadata = self._metadata(method)
        self.calls += 1
        streaming = method.server_streaming or method.client_streaming
        code = "OK"
        try:
            if method.client_streaming and method.server_streaming:
                call = self.channel.stream_stream(path, **identity)
                for _ in call(iter([payload, payload]), timeout=STREAM_TIMEOUT, metadata=metadata):
                    pass
            elif method.client_streaming:
                self.channel.stream_unary(path, **identity)(
                    iter([payload]), timeout=UNARY_TIMEOUT, metadata=metadata
                )
            elif method.server_streaming:
                call = self.channel.unary_stream(path, **identity)
                for i, _ in enumerate(call(payload, timeout=STREAM_TIMEOUT, metadata=metadata)):
                    if i >= 2:
                        break
            else:
                self.channel.unary_unary(path, **identity)(
                    payload, timeout=UNARY_TIMEOUT, metadata=metadata
                )
        except grpc.RpcError as error:
            code = error.code().name
            self._judge(method, error, streaming, shown)
            if expected is not None and error.code() != expected:
                self.findings.append(
                    Finding(method.full_name, code, f"expected {expected.name}", shown[:500])
                )
        else:
            if expected is not None:
                self.findings.append(
                    Finding(method.full_name, "OK", f"expected {expected.name}", shown[:500])
                )
        self.codes[code] = self.codes.get(code, 0) + 1
        self._check_health(method, shown)

    def _judge(self, method: MethodDescriptor, error: Any, streaming: bool, shown: str) -> None:
        code = error.code()
        details = error.details() or ""
        bad = code in NEVER
        if code == grpc.StatusCode.DEADLINE_EXCEEDED and not streaming:
            bad = True  # a unary call must answer, not hang
        if code == grpc.StatusCode.UNAVAILABLE and not details.startswith("read-your-writes"):
            bad = True  # every store is up: nothing may be unavailable
        if bad:
            self.findings.append(Finding(method.full_name, code.name, details[:300], shown[:500]))

    def _check_health(self, method: MethodDescriptor, shown: str) -> None:
        reply = self.health.Check(health_pb2.HealthCheckRequest(), timeout=UNARY_TIMEOUT)
        if reply.status != health_pb2.HealthCheckResponse.SERVING:
            self.findings.append(Finding(method.full_name, "NOT_SERVING", "", shown[:500]))

    def fuzz(self, method: MethodDescriptor, names: NamePool) -> None:
        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(request_strategy(method.input_type, names))
        def structured(request: Message) -> None:
            self.send(method, request.SerializeToString(), repr(request))

        @settings(
            max_examples=max(2, EXAMPLES // 3),
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(RAW_BYTES)
        def raw(payload: bytes) -> None:
            self.send(method, payload, f"raw {payload!r}")

        structured()
        raw()
        for hostile in hostile_payloads(method, self.limit, self.ceiling):
            self.send(method, hostile.payload, hostile.label, hostile.expected)


@dataclass
class VictimTraffic:
    """A second tenant's ordinary reads and writes; every call must succeed."""

    ok: int = 0
    errors: list[str] = field(default_factory=list)


async def _victim(tenant: Any, stop: asyncio.Event, traffic: VictimTraffic) -> None:
    recall = recall_pb2_grpc.RecallServiceStub(tenant.channel)
    i = 0
    while not stop.is_set():
        i += 1
        try:
            memory = (await propose(tenant.lifecycle, "victim", f"victim fact number {i}")).memory
            got = await tenant.lifecycle.GetMemory(lifecycle_pb2.GetMemoryRequest(name=memory.name))
            assert got.content == f"victim fact number {i}", got
            await tenant.lifecycle.ListMemories(
                lifecycle_pb2.ListMemoriesRequest(space="victim", page_size=5)
            )
            await recall.Recall(recall_pb2.RecallRequest(query="victim fact", spaces=["victim"]))
            traffic.ok += 1
        except Exception as exc:  # every failure is a finding
            traffic.errors.append(f"{type(exc).__name__}: {exc}"[:300])
        await asyncio.sleep(0.05)


async def _seed(fuzz: Any, sacrificial: Any) -> tuple[NamePool, NamePool]:
    """Resources of the fuzzing tenant whose names the fuzzer may draw."""
    recall = recall_pb2_grpc.RecallServiceStub(fuzz.channel)
    memories = [(await propose(fuzz.lifecycle, "s", f"seed fact {i}")).memory for i in range(3)]
    await fuzz.lifecycle.ReviseMemory(
        lifecycle_pb2.ReviseMemoryRequest(
            memory=types_pb2.Memory(name=memories[0].name, etag=memories[0].etag, importance=0.9),
            update_mask=field_mask_pb2.FieldMask(paths=["importance"]),
        )
    )
    snapshots = [
        await recall.CreateSnapshot(
            recall_pb2.CreateSnapshotRequest(snapshot=recall_pb2.Snapshot(space="s"))
        )
        for _ in range(2)
    ]
    page = await fuzz.lifecycle.ListMemories(lifecycle_pb2.ListMemoriesRequest(page_size=1))
    await fuzz.lifecycle.AppendMessage(
        lifecycle_pb2.AppendMessageRequest(
            space="s",
            session="chat",
            message=lifecycle_pb2.SessionMessage(role="user", content="hello there"),
        )
    )
    names = NamePool()
    memory_names = [m.name for m in memories]
    for key in ("name", "memory", "depends_on", "memories", "source_memory", "target_memory"):
        names.add(key, *memory_names)
    names.add("name", *(s.name for s in snapshots), "policy", "spaces/s/policy", fuzz.name)
    names.add("base", snapshots[0].name)
    names.add("target", snapshots[1].name)
    names.add("page_token", page.next_page_token)
    names.add("parent", fuzz.name)
    names.add("session", "chat")
    names.add("space", "s")
    names.add("spaces", "s")
    names.add("slot_key", "user::language")
    names.add("cursor", "0", "1")
    admin = NamePool()
    admin.add("name", sacrificial.name, f"{sacrificial.name}/apiKeys/x")
    admin.add("parent", sacrificial.name)
    admin.add("tenant_id", "fuzz-made")
    return names, admin


def _run(fuzzer: Fuzzer, names: NamePool, admin: NamePool) -> Iterator[str]:
    for method in every_method():
        pool = admin if method.containing_service.name == "AdminService" else names
        fuzzer.fuzz(method, pool)
        yield method.full_name
    # The services every server carries beside Engram's (no key needed): the same
    # oversize and undecodable requests.
    for path, method in unauthenticated_methods():
        for hostile in hostile_payloads(method, fuzzer.limit, fuzzer.ceiling):
            fuzzer.send(method, hostile.payload, hostile.label, hostile.expected, path)


def unauthenticated_methods() -> list[tuple[str, MethodDescriptor]]:
    """(path, method) of health and both reflection versions (v1 shares v1alpha's
    messages)."""
    out = [
        (f"/{method.containing_service.full_name}/{method.name}", method)
        for module in (health_pb2, reflection_pb2)
        for service in module.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    ]
    reflect = reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"].methods[0]
    out.append((f"/grpc.reflection.v1.ServerReflection/{reflect.name}", reflect))
    return out


async def test_no_input_gets_internal_or_unknown_or_hurts_another_tenant(
    server: Any, make_tenant: Any, platform_key: str, settings: Any
) -> None:
    fuzz = await make_tenant()
    victim = await make_tenant()
    sacrificial = await make_tenant()
    names, admin = await _seed(fuzz, sacrificial)
    fuzzer = Fuzzer(
        server.address,
        fuzz.secret,
        platform_key,
        settings.max_request_bytes,
        transport_receive_limit(settings),
    )
    stop = asyncio.Event()
    traffic = VictimTraffic()
    victim_task = asyncio.create_task(_victim(victim, stop, traffic))
    try:
        done = await asyncio.to_thread(lambda: list(_run(fuzzer, names, admin)))
    finally:
        stop.set()
        await victim_task
        fuzzer.close()
    assert len(done) == len(every_method())
    print(f"fuzz: {fuzzer.calls} calls over {len(done)} methods: {sorted(fuzzer.codes.items())}")
    report = "\n".join(
        f"{f.method}: {f.code} {f.details!r}\n    {f.request}" for f in fuzzer.findings[:25]
    )
    assert not fuzzer.findings, (
        f"{len(fuzzer.findings)} findings in {fuzzer.calls} calls:\n{report}"
    )
    assert traffic.ok > 0
    assert not traffic.errors, traffic.errors[:10]


def test_the_strategies_cover_every_request_type() -> None:
    """Every method's input type can be drawn (a descriptor the strategies cannot
    handle would otherwise only show up as a fuzz run that fails to start)."""

    @settings(
        max_examples=3, derandomize=True, database=None, deadline=None, phases=[Phase.generate]
    )
    @given(st.data())
    def draw(data: st.DataObject) -> None:
        for method in every_method():
            request = data.draw(request_strategy(method.input_type, NamePool()))
            assert request.DESCRIPTOR.full_name == method.input_type.full_name
            request.SerializeToString()

    draw()
