"""The scope table: complete for the API, and read/write/admin where expected."""

from __future__ import annotations

import importlib
import pkgutil

import engram.v1
import pytest
from engram_server.platform.scopes import (
    ADMIN_OR_PLATFORM,
    READ,
    REQUIRED_SCOPES,
    WRITE,
    ScopeTable,
    is_public,
)


def api_methods() -> dict[str, tuple[str, str]]:
    """Every RPC declared in protos/engram/v1: full name -> (service, method)."""
    found: dict[str, tuple[str, str]] = {}
    for module_info in pkgutil.iter_modules(engram.v1.__path__):
        if not module_info.name.endswith("_pb2"):
            continue
        module = importlib.import_module(f"engram.v1.{module_info.name}")
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                found[f"/{service.full_name}/{method.name}"] = (service.name, method.name)
    return found


def test_every_rpc_of_the_api_has_a_scope() -> None:
    missing = sorted(set(api_methods()) - set(REQUIRED_SCOPES))
    assert missing == [], f"add these to platform/scopes.py: {missing}"


def test_the_table_names_no_rpc_that_does_not_exist() -> None:
    stale = sorted(set(REQUIRED_SCOPES) - set(api_methods()))
    assert stale == []


def test_lifecycle_reads_need_read_and_writes_need_write() -> None:
    for full_name, (service, method) in api_methods().items():
        if service != "LifecycleService":
            continue
        if method.startswith(("Get", "List", "Watch")) and method != "GetSessionWindow":
            assert REQUIRED_SCOPES[full_name] == READ, full_name
    lifecycle = "/engram.v1.LifecycleService/"
    assert REQUIRED_SCOPES[lifecycle + "GetSessionWindow"] == READ
    for method in ("ProposeMemory", "ReviseMemory", "AppendMessage", "Learn"):
        assert REQUIRED_SCOPES[lifecycle + method] == WRITE


def test_every_admin_rpc_takes_admin_or_platform() -> None:
    admin = {n for n, (service, _) in api_methods().items() if service == "AdminService"}
    assert admin
    assert {REQUIRED_SCOPES[n] for n in admin} == {ADMIN_OR_PLATFORM}


def test_platform_is_not_a_superset() -> None:
    assert all("platform" not in scopes or "admin" in scopes for scopes in REQUIRED_SCOPES.values())


def test_unknown_methods_are_denied_and_extras_can_be_added() -> None:
    table = ScopeTable()
    assert table.required("/engram.v1.LifecycleService/NoSuchMethod") is None
    table.add({"/engram.v1.LifecycleService/NoSuchMethod": ["read"]})
    assert table.required("/engram.v1.LifecycleService/NoSuchMethod") == READ


@pytest.mark.parametrize(
    ("method", "public"),
    [
        ("/grpc.health.v1.Health/Check", True),
        ("/grpc.health.v1.Health/Watch", True),
        ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", True),
        ("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", True),
        ("/engram.v1.LifecycleService/GetMemory", False),
        ("/grpc.health.v1.HealthX/Check", False),
    ],
)
def test_only_health_and_reflection_are_public(method: str, public: bool) -> None:
    assert is_public(method) is public
