"""Every RPC of every `engram.v1` service has a method on `engram.Client` and on
`engram.AsyncClient`, found by the `@rpc("engram.v1.Service.Method")` mark the SDK
puts on the method that wraps it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import engram
import engram.v1
from engram._base import RPC_ATTRIBUTE
from google.protobuf.descriptor import ServiceDescriptor

# Services whose SDK methods are being written as mixins of their own
# (clients/python/engram/<area>.py, joined to Client and AsyncClient by one line in
# each class statement). Remove an entry when its mixin lands: from then on a missing
# method fails this test, and `test_pending_services_are_still_pending` fails while
# a covered service is still listed here.
PENDING_MIXINS: set[str] = set()


def _services() -> Iterator[ServiceDescriptor]:
    for info in pkgutil.iter_modules(engram.v1.__path__):
        if not info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"engram.v1.{info.name}")
        yield from module.DESCRIPTOR.services_by_name.values()


def _all_rpcs() -> dict[str, list[str]]:
    return {s.full_name: [f"{s.full_name}.{m.name}" for m in s.methods] for s in _services()}


def _wrapped(cls: type[Any]) -> dict[str, str]:
    """RPC full name -> the name of the method of `cls` that wraps it."""
    out: dict[str, str] = {}
    for name, member in inspect.getmembers(cls):
        full = getattr(member, RPC_ATTRIBUTE, None)
        if full is not None and not name.startswith("_"):
            assert full not in out, f"{full} is wrapped twice: {out[full]} and {name}"
            out[full] = name
    return out


def test_the_services_are_found() -> None:
    services = _all_rpcs()
    assert {"engram.v1.LifecycleService", "engram.v1.RecallService"} <= set(services)
    assert "engram.v1.AdminService" in services


def test_every_rpc_has_a_sync_and_an_async_method() -> None:
    sync, aio = _wrapped(engram.Client), _wrapped(engram.AsyncClient)
    missing = [
        f"{rpc}: sync={rpc in sync} async={rpc in aio}"
        for service, rpcs in _all_rpcs().items()
        if service not in PENDING_MIXINS
        for rpc in rpcs
        if rpc not in sync or rpc not in aio
    ]
    assert missing == []


def test_pending_services_are_still_pending() -> None:
    sync, aio = _wrapped(engram.Client), _wrapped(engram.AsyncClient)
    services = _all_rpcs()
    for service in PENDING_MIXINS:
        assert service in services, f"{service} is not a service of engram.v1"
        covered = all(rpc in sync and rpc in aio for rpc in services[service])
        assert not covered, f"{service} is fully wrapped now: remove it from PENDING_MIXINS"


def test_marks_name_real_rpcs() -> None:
    known = {rpc for rpcs in _all_rpcs().values() for rpc in rpcs}
    for cls in (engram.Client, engram.AsyncClient):
        assert set(_wrapped(cls)) <= known


def test_both_clients_wrap_each_rpc_under_the_same_name() -> None:
    assert _wrapped(engram.Client) == _wrapped(engram.AsyncClient)


def test_async_methods_are_coroutines_or_async_iterators() -> None:
    for rpc, name in _wrapped(engram.AsyncClient).items():
        method = getattr(engram.AsyncClient, name)
        sync_method = getattr(engram.Client, name)
        sync_returns = str(inspect.signature(sync_method).return_annotation)
        returns = str(inspect.signature(method).return_annotation)
        if "Iterator" in sync_returns:
            assert "AsyncIterator" in returns, f"{rpc}: {name} should return an AsyncIterator"
        else:
            assert inspect.iscoroutinefunction(method), f"{rpc}: {name} should be async"


def test_the_admin_attribute_keeps_working() -> None:
    client = engram.Client("127.0.0.1:1", "k")
    try:
        assert isinstance(client.admin, engram.AdminClient)
        assert client.admin.channel is client.channel
        assert client.admin._transport is client._transport
    finally:
        client.close()


def _message_types(annotation: Any) -> list[Any]:
    """The protobuf message classes named anywhere in a type annotation."""
    import typing

    from google.protobuf.message import Message

    found = []
    if isinstance(annotation, type) and issubclass(annotation, Message):
        found.append(annotation)
    for arg in typing.get_args(annotation):
        found += _message_types(arg)
    return found


def test_pool_evidence_and_decision_methods_return_dataclasses_not_messages() -> None:
    import typing

    from engram.evidence import AsyncEvidenceClient, EvidenceClient
    from engram.pool import PoolClient

    areas = ("PoolService", "EvidenceService", "DecisionsService")
    checked = 0
    for cls in (engram.Client, engram.AsyncClient, PoolClient, EvidenceClient, AsyncEvidenceClient):
        for name, member in inspect.getmembers(cls, inspect.isfunction):
            full = getattr(member, RPC_ATTRIBUTE, None) or ""
            if name.startswith("_"):
                continue
            sdk_client = cls in (engram.Client, engram.AsyncClient)
            if sdk_client and not any(f".{area}." in full for area in areas):
                continue  # the other areas' methods have their own tests
            returned = typing.get_type_hints(member).get("return")
            assert _message_types(returned) == [], f"{cls.__name__}.{name} -> {returned}"
            checked += 1
    assert checked > 60


def test_sdk_enums_name_every_value_of_their_proto_enum() -> None:
    from engram import _convert

    for cls, (wrapper, prefix) in _convert._ENUMS.items():
        names = [str(n).removeprefix(prefix) for n in wrapper.keys()]
        assert [m.value for m in cls] == names, cls.__name__
