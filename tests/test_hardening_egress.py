"""No request a tenant can aim: JSON Schema references stay inside the schema, and
webhooks and tenant LLM endpoints only reach what the operator allows."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import grpc
import httpx
import pytest
from engram.v1 import admin_pb2, lifecycle_pb2
from engram_server.lifecycle.policy import WebhookSpec
from engram_server.lifecycle.schemas import first_schema_error, schema_reference_problems
from engram_server.platform.egress import EgressPolicy, EgressRefused, GuardedTransport
from engram_server.platform.webhooks import HttpWebhookCaller
from google.protobuf import field_mask_pb2, struct_pb2

from tests.lifecycle_helpers import PENDING, field_violations, propose


class _Recorder(BaseHTTPRequestHandler):
    """Records every request; answers a valid verdict, or a redirect on /redirect."""

    hits: list[str]
    redirect_to = ""

    def _answer(self) -> None:
        type(self).hits.append(self.path)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("location", type(self).redirect_to)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        payload = json.dumps({"valid": True, "message": "", "type": "object"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = _answer
    do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


def _serve(host: str) -> tuple[ThreadingHTTPServer, type[_Recorder]]:
    handler = type("Recorder", (_Recorder,), {"hits": []})
    server = ThreadingHTTPServer((host, 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler


@pytest.fixture
def recorder() -> Iterator[tuple[str, type[_Recorder]]]:
    server, handler = _serve("127.0.0.1")
    yield f"http://127.0.0.1:{server.server_address[1]}", handler
    server.shutdown()


@pytest.fixture
def forbidden_recorder() -> Iterator[tuple[str, type[_Recorder]]]:
    """A server on 127.0.0.2: loopback, and not in the suite's `outbound_allow`."""
    server, handler = _serve("127.0.0.2")
    yield f"http://127.0.0.2:{server.server_address[1]}", handler
    server.shutdown()


def _schema_policy(space: str, schema: dict[str, Any]) -> lifecycle_pb2.SetPolicyRequest:
    struct = struct_pb2.Struct()
    struct.update(schema)
    return lifecycle_pb2.SetPolicyRequest(
        policy=lifecycle_pb2.Policy(name=f"spaces/{space}/policy", json_schema=struct)
    )


@pytest.mark.parametrize(
    "ref",
    [
        "http://127.0.0.1:{port}/x.json",
        "file:///etc/passwd",
        "https://json-schema.org/draft/2020-12/schema",
        "other.json#/a",
    ],
)
async def test_schema_with_an_outside_reference_is_refused_at_set_policy(
    make_tenant: Any, recorder: tuple[str, type[_Recorder]], ref: str
) -> None:
    url, handler = recorder
    ref = ref.format(port=url.rsplit(":", 1)[1])
    t = await make_tenant()
    schema = {"type": "object", "properties": {"a": {"$ref": ref}}}
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.SetPolicy(_schema_policy("s", schema))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["policy.json_schema"]
    assert "outside the schema" in (err.value.details() or "")
    assert handler.hits == []


async def test_schema_with_local_references_works(make_tenant: Any) -> None:
    t = await make_tenant()
    schema = {
        "$defs": {"name": {"type": "string", "minLength": 2}},
        "type": "object",
        "properties": {"who": {"$ref": "#/$defs/name"}},
        "required": ["who"],
        "const_like": {"const": {"$ref": "http://not-a-reference/just-data"}},
    }
    await t.lifecycle.SetPolicy(_schema_policy("s", schema))
    good = await propose(t.lifecycle, "s", "fine", structured_content=_struct({"who": "Al"}))
    assert good.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    bad = await propose(t.lifecycle, "s", "short", structured_content=_struct({"who": "A"}))
    assert bad.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_PENDING_CONFIRMATION
    assert bad.failures[0].validator == "json_schema"
    assert "at who" in bad.failures[0].message

    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.SetPolicy(_schema_policy("s", {"$ref": "#/$defs/missing"}))
    assert "does not resolve" in (err.value.details() or "")


async def test_a_schema_that_refers_to_itself_without_end_fails_its_validator(
    make_tenant: Any,
) -> None:
    """A reference that loops without reading further into the instance never ends
    (jsonschema recurses until Python stops it): the proposal fails the validator,
    instead of the write failing with INTERNAL."""
    t = await make_tenant()
    looping = {
        "type": "object",
        "properties": {"who": {"type": "string"}},
        "if": {"properties": {"who": {"const": "loop"}}, "required": ["who"]},
        "then": {"$ref": "#"},
    }
    await t.lifecycle.SetPolicy(_schema_policy("s", looping))
    good = await propose(t.lifecycle, "s", "fine", structured_content=_struct({"who": "Al"}))
    assert good.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
    loops = await propose(t.lifecycle, "s", "loops", structured_content=_struct({"who": "loop"}))
    assert loops.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_PENDING_CONFIRMATION
    assert loops.failures[0].validator == "json_schema"
    assert "refers to itself" in loops.failures[0].message


def _struct(data: dict[str, Any]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(data)
    return struct


def test_a_stored_schema_with_a_remote_reference_never_fetches(
    recorder: tuple[str, type[_Recorder]],
) -> None:
    """Even a schema that reached storage some other way resolves nothing remote."""
    url, handler = recorder
    schema = {"$ref": f"{url}/x.json"}
    assert schema_reference_problems(schema)
    error = first_schema_error(schema, {"a": 1})
    assert error is not None and "does not resolve" in error
    assert handler.hits == []


@pytest.mark.parametrize(
    "target",
    [
        "http://127.0.0.2:8080/hook",
        "http://[::1]:8080/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/hook",
        "http://192.168.1.1/hook",
        "http://[::ffff:127.0.0.2]/hook",
        # IPv6 forms that carry a forbidden IPv4 address: NAT64 (the metadata
        # endpoint, loopback), local-use NAT64, 6to4, IPv4-compatible, SIIT.
        "http://[64:ff9b::a9fe:a9fe]/latest/meta-data",
        "http://[64:ff9b::7f00:2]:8080/hook",
        "http://[64:ff9b:1::7f00:2]/hook",
        "http://[2002:7f00:2::1]/hook",
        "http://[2002:a00:1::]/hook",
        "http://[::127.0.0.2]/hook",
        "http://[::ffff:0:7f00:2]/hook",
        "ftp://example.com/hook",
        # No URL parser accepts these.
        "http://[::1/hook",
        "http://[not-an-address]/hook",
    ],
)
async def test_webhook_to_a_forbidden_address_is_refused_at_set_policy(
    make_tenant: Any, target: str
) -> None:
    t = await make_tenant()
    hook = lifecycle_pb2.WebhookValidator(name="h", url=target, timeout_ms=1000)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.SetPolicy(
            lifecycle_pb2.SetPolicyRequest(
                policy=lifecycle_pb2.Policy(name="spaces/s/policy", webhooks=[hook])
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["policy.webhooks[0].url"]


async def test_webhook_redirect_into_a_forbidden_target_is_not_followed(
    make_tenant: Any,
    recorder: tuple[str, type[_Recorder]],
    forbidden_recorder: tuple[str, type[_Recorder]],
) -> None:
    url, handler = recorder
    forbidden_url, forbidden = forbidden_recorder
    handler.redirect_to = f"{forbidden_url}/hook"
    t = await make_tenant()
    hook = lifecycle_pb2.WebhookValidator(name="h", url=f"{url}/redirect", timeout_ms=2000)
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/s/policy", webhooks=[hook])
        )
    )
    held = await propose(t.lifecycle, "s", "a fact")
    assert held.memory.status == PENDING
    assert "HTTP 302" in held.failures[0].message
    assert handler.hits == ["/redirect"]
    assert forbidden.hits == []


async def test_webhook_caller_refuses_names_and_addresses_outside_the_rule(
    recorder: tuple[str, type[_Recorder]],
) -> None:
    url, handler = recorder
    port = url.rsplit(":", 1)[1]
    caller = HttpWebhookCaller(EgressPolicy.parse(""))
    try:
        for target in (f"{url}/hook", f"http://localhost:{port}/hook"):
            with pytest.raises(EgressRefused):
                await caller(WebhookSpec(name="h", url=target), {"proposal": {}})
    finally:
        await caller.close()
    assert handler.hits == []

    allowed = HttpWebhookCaller(EgressPolicy.parse("127.0.0.0/8"))
    try:
        verdict = await allowed(WebhookSpec(name="h", url=f"{url}/hook"), {"proposal": {}})
    finally:
        await allowed.close()
    assert verdict.valid
    assert handler.hits == ["/hook"]


async def test_guarded_transport_connects_to_the_checked_address(
    recorder: tuple[str, type[_Recorder]],
) -> None:
    """A name the operator allows resolves as usual; the Host header keeps the name."""
    url, handler = recorder
    handler.hits.clear()
    port = url.rsplit(":", 1)[1]
    policy = EgressPolicy.parse("localhost")
    async with httpx.AsyncClient(transport=GuardedTransport(policy)) as client:
        response = await client.get(f"http://localhost:{port}/x")
    assert response.status_code == 200
    assert handler.hits == ["/x"]
    assert EgressPolicy.parse("").refusal("http://8.8.8.8/") is None
    assert EgressPolicy.parse("", "https").refusal("http://8.8.8.8/") is not None


async def test_tenant_llm_endpoint_follows_the_same_rule(make_tenant: Any) -> None:
    t = await make_tenant()
    for base_url, refused in (
        ("http://169.254.169.254/v1", True),
        ("http://127.0.0.2:9/v1", True),
        ("http://[::1/v1", True),  # no parser accepts it
        ("http://127.0.0.1:9/v1", False),  # allowed by the suite's outbound_allow
    ):
        request = admin_pb2.UpdateTenantRequest(
            tenant=admin_pb2.Tenant(
                name=t.name,
                llm=admin_pb2.LlmSettings(provider="openai", base_url=base_url, model="m"),
            ),
            update_mask=field_mask_pb2.FieldMask(paths=["llm"]),
        )
        if refused:
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await t.admin.UpdateTenant(request)
            assert field_violations(err.value) == ["tenant.llm.base_url"]
        else:
            updated = await t.admin.UpdateTenant(request)
            assert updated.llm.base_url == base_url


# IPv6 forms of 127.0.0.2 (loopback, outside the suite's outbound_allow).
_FORMS_OF_LOOPBACK = {
    "nat64": "64:ff9b::7f00:2",
    "nat64-local": "64:ff9b:1::7f00:2",
    "6to4": "2002:7f00:2::1",
    "compatible": "::127.0.0.2",
    "siit": "::ffff:0:7f00:2",
    "mapped": "::ffff:127.0.0.2",
    "plain": "127.0.0.2",
}


@pytest.fixture
async def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Answers for host names under `.engram.test`, on the event loop the server
    resolves with: each name maps to a list of answers (one per lookup, the last
    repeated), each answer a list of addresses; `calls` counts lookups."""
    import asyncio
    import socket

    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    table: dict[str, Any] = {"calls": {}}

    async def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if not name.endswith(".engram.test"):
            return await real(host, port, *args, **kwargs)
        n = table["calls"].get(name, 0)
        table["calls"][name] = n + 1
        answers = table[name]
        addresses = answers[min(n, len(answers) - 1)]
        return [
            (
                socket.AF_INET6 if ":" in a else socket.AF_INET,
                socket.SOCK_STREAM,
                6,
                "",
                (a, int(port or 0), 0, 0) if ":" in a else (a, int(port or 0)),
            )
            for a in addresses
        ]

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    return table


async def _hook_verdict(t: Any, url: str) -> Any:
    hook = lifecycle_pb2.WebhookValidator(name="h", url=url, timeout_ms=3000)
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/s/policy", webhooks=[hook])
        )
    )
    return await propose(t.lifecycle, "s", f"a fact for {url}")


async def test_names_resolving_to_ipv6_forms_of_a_forbidden_address_are_never_called(
    make_tenant: Any, forbidden_recorder: tuple[str, type[_Recorder]], dns: dict[str, Any]
) -> None:
    """A listener on 127.0.0.2: a webhook whose name resolves to any IPv6 form
    carrying that address is refused before a connection is made."""
    url, handler = forbidden_recorder
    port = url.rsplit(":", 1)[1]
    t = await make_tenant()
    for form, address in _FORMS_OF_LOOPBACK.items():
        name = f"{form}.engram.test"
        dns[name] = [[address]]
        held = await _hook_verdict(t, f"http://{name}:{port}/hook")
        assert held.memory.status == PENDING, form
        assert "not allowed" in held.failures[0].message, (form, held.failures[0].message)
    assert handler.hits == []


async def test_a_name_is_resolved_once_and_the_checked_address_is_called(
    make_tenant: Any, dns: dict[str, Any]
) -> None:
    """DNS rebinding: the name answers an allowed address (127.0.0.1, in the
    suite's outbound_allow) when checked and a forbidden one (127.0.0.2) at every
    later lookup. The call goes to the checked address, on the same port."""
    allowed, allowed_handler = _serve("127.0.0.1")
    port = allowed.server_address[1]
    forbidden = ThreadingHTTPServer(
        ("127.0.0.2", port), type("Recorder", (_Recorder,), {"hits": []})
    )
    forbidden_handler: Any = forbidden.RequestHandlerClass
    threading.Thread(target=forbidden.serve_forever, daemon=True).start()
    try:
        t = await make_tenant()
        dns["rebind.engram.test"] = [["127.0.0.1"], ["127.0.0.2"]]
        verdict = await _hook_verdict(t, f"http://rebind.engram.test:{port}/hook")
        assert verdict.outcome == lifecycle_pb2.PROPOSAL_OUTCOME_ACCEPTED
        assert allowed_handler.hits == ["/hook"]
        assert forbidden_handler.hits == []
        assert dns["calls"]["rebind.engram.test"] == 1
        # Every address of an answer is checked: one forbidden address refuses it.
        dns["mixed.engram.test"] = [["127.0.0.1", "64:ff9b::7f00:2"]]
        held = await _hook_verdict(t, f"http://mixed.engram.test:{port}/hook")
        assert "not allowed" in held.failures[0].message
        assert allowed_handler.hits == ["/hook"]
    finally:
        allowed.shutdown()
        forbidden.shutdown()
