"""Per-tenant LLM settings through AdminService.UpdateTenant, the SDK and the CLI.

Who may change what, the write-only API key, validation, isolation between
tenants, the registry following changes, and tenant deletion purging the rows.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import engram
import grpc
import psycopg
import pytest
from engram.v1 import admin_pb2
from engram_server.platform.context import AppContext
from engram_server.store.llm_config import get_tenant_llm_config
from google.protobuf import field_mask_pb2

from tests.conftest import RunningServer
from tests.test_admin import bad_fields, expect, expect_invalid
from tests.test_cli import run

Code = grpc.StatusCode
SECRET = "sk-live-0123456789abcdef0123456789abcdef"


def llm_update(
    name: str, *paths: str, api_key: str = SECRET, **llm: Any
) -> admin_pb2.UpdateTenantRequest:
    settings = {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m1"}
    settings.update(llm)
    return admin_pb2.UpdateTenantRequest(
        tenant=admin_pb2.Tenant(name=name, llm=admin_pb2.LlmSettings(api_key=api_key, **settings)),
        update_mask=field_mask_pb2.FieldMask(paths=list(paths or ["llm"])),
    )


def no_secret(*messages: Any) -> None:
    for message in messages:
        assert SECRET.encode() not in message.SerializeToString()
        assert not message.llm.api_key


async def test_platform_admin_sets_llm_and_the_key_is_never_returned(
    make_tenant: Any, app: AppContext
) -> None:
    tenant = await make_tenant()
    updated = await tenant.platform_admin.UpdateTenant(llm_update(tenant.name))
    assert updated.llm.provider == "openai"
    assert updated.llm.base_url == "http://127.0.0.1:9/v1"
    assert updated.llm.model == "m1"
    assert updated.llm.api_key_set
    assert updated.llm.timeout_seconds == 30.0
    got = await tenant.admin.GetTenant(admin_pb2.GetTenantRequest(name=tenant.name))
    listed = await tenant.platform_admin.ListTenants(admin_pb2.ListTenantsRequest(page_size=1000))
    [in_list] = [t for t in listed.tenants if t.name == tenant.name]
    no_secret(updated, got, in_list)
    assert got.llm == updated.llm == in_list.llm
    stored = await get_tenant_llm_config(app.db, tenant.tenant_id)
    assert stored is not None and stored.api_key == SECRET  # kept server-side for calls


async def test_tenant_admin_updates_only_its_own_llm(make_tenant: Any, app: AppContext) -> None:
    a, b = await make_tenant(), await make_tenant()
    updated = await a.admin.UpdateTenant(llm_update(a.name, provider="anthropic", base_url=""))
    assert updated.llm.provider == "anthropic"

    # Another tenant: as if it did not exist, and nothing is written.
    await expect(a.admin.UpdateTenant(llm_update(b.name)), Code.NOT_FOUND)
    assert await get_tenant_llm_config(app.db, b.tenant_id) is None

    # Display name and quota are the platform's business.
    rename = admin_pb2.UpdateTenantRequest(
        tenant=admin_pb2.Tenant(name=a.name, display_name="mine now"),
        update_mask=field_mask_pb2.FieldMask(paths=["display_name"]),
    )
    await expect(a.admin.UpdateTenant(rename), Code.PERMISSION_DENIED)
    lift = admin_pb2.UpdateTenantRequest(
        tenant=admin_pb2.Tenant(
            name=a.name, quota=admin_pb2.TenantQuota(requests_per_second=1_000_000)
        ),
        update_mask=field_mask_pb2.FieldMask(paths=["quota", "llm"]),
    )
    await expect(a.admin.UpdateTenant(lift), Code.PERMISSION_DENIED)
    got = await a.admin.GetTenant(admin_pb2.GetTenantRequest(name=a.name))
    assert got.display_name == a.tenant_id and got.quota.requests_per_second == 0
    assert got.llm.provider == "anthropic"  # the refused call changed nothing

    # A key without the admin scope may not change settings at all.
    reader = a.channel_for(await a.new_key(scopes=("read", "write")))
    from engram.v1 import admin_pb2_grpc

    stub = admin_pb2_grpc.AdminServiceStub(reader)
    await expect(stub.UpdateTenant(llm_update(a.name)), Code.PERMISSION_DENIED)


async def test_platform_admin_updates_display_name_and_quota(make_tenant: Any) -> None:
    tenant = await make_tenant()
    request = admin_pb2.UpdateTenantRequest(
        tenant=admin_pb2.Tenant(
            name=tenant.name,
            display_name="Renamed",
            quota=admin_pb2.TenantQuota(max_memories=500),
        ),
    )  # no mask: every field the request sets
    updated = await tenant.platform_admin.UpdateTenant(request)
    assert updated.display_name == "Renamed"
    assert updated.quota.max_memories == 500
    assert not updated.HasField("llm")


async def test_api_key_is_kept_only_for_the_same_host(make_tenant: Any, app: AppContext) -> None:
    tenant = await make_tenant()
    admin = tenant.admin
    await admin.UpdateTenant(llm_update(tenant.name))
    # Changing the model alone keeps the key.
    kept = await admin.UpdateTenant(llm_update(tenant.name, "llm.model", api_key="", model="m2"))
    assert kept.llm.model == "m2" and kept.llm.api_key_set
    # The whole settings again without a key, same host: still kept.
    kept = await admin.UpdateTenant(llm_update(tenant.name, api_key="", model="m3"))
    assert kept.llm.api_key_set
    stored = await get_tenant_llm_config(app.db, tenant.tenant_id)
    assert stored is not None and stored.api_key == SECRET
    # A new host never receives the old key.
    moved = await admin.UpdateTenant(
        llm_update(tenant.name, "llm.base_url", api_key="", base_url="https://other.example/v1")
    )
    assert moved.llm.base_url == "https://other.example/v1"
    assert not moved.llm.api_key_set
    stored = await get_tenant_llm_config(app.db, tenant.tenant_id)
    assert stored is not None and stored.api_key == ""
    # Naming `llm.api_key` alone with an empty value removes a key.
    await admin.UpdateTenant(llm_update(tenant.name, "llm.api_key"))
    cleared = await admin.UpdateTenant(llm_update(tenant.name, "llm.api_key", api_key=""))
    assert not cleared.llm.api_key_set


async def test_bad_settings_are_invalid_and_write_nothing(
    make_tenant: Any, app: AppContext
) -> None:
    tenant = await make_tenant()
    admin = tenant.admin
    await expect_invalid(
        admin.UpdateTenant(llm_update(tenant.name, provider="gpt")), "tenant.llm.provider"
    )
    await expect_invalid(admin.UpdateTenant(llm_update(tenant.name, model="")), "tenant.llm.model")
    await expect_invalid(
        admin.UpdateTenant(llm_update(tenant.name, base_url="ftp://x")), "tenant.llm.base_url"
    )
    await expect_invalid(
        admin.UpdateTenant(llm_update(tenant.name, timeout_seconds=-1)),
        "tenant.llm.timeout_seconds",
    )
    await expect_invalid(
        admin.UpdateTenant(llm_update(tenant.name, api_key="two words")), "tenant.llm.api_key"
    )
    await expect_invalid(admin.UpdateTenant(llm_update(tenant.name, "llm.colour")), "update_mask")
    await expect_invalid(admin.UpdateTenant(llm_update("tenants/Bad!")), "tenant.name")
    empty = admin_pb2.UpdateTenantRequest(tenant=admin_pb2.Tenant(name=tenant.name))
    await expect_invalid(admin.UpdateTenant(empty), "update_mask")
    err = await expect(
        admin.UpdateTenant(llm_update(tenant.name, provider="gpt", model="")),
        Code.INVALID_ARGUMENT,
    )
    assert {"tenant.llm.provider", "tenant.llm.model"} <= set(bad_fields(err))
    assert SECRET not in (err.details() or "")
    assert await get_tenant_llm_config(app.db, tenant.tenant_id) is None


async def test_clearing_llm_falls_back_and_the_registry_follows(
    make_tenant: Any, app: AppContext
) -> None:
    tenant = await make_tenant()
    assert app.llm is not None
    assert await app.llm.for_tenant(tenant.tenant_id) is None  # cached as "no LLM"
    await tenant.admin.UpdateTenant(llm_update(tenant.name, model="m-live"))
    model = await app.llm.for_tenant(tenant.tenant_id)  # the update invalidated the cache
    assert model is not None and model.model == "m-live"
    cleared = await tenant.admin.UpdateTenant(llm_update(tenant.name, provider="", api_key=""))
    assert not cleared.HasField("llm")
    got = await tenant.admin.GetTenant(admin_pb2.GetTenantRequest(name=tenant.name))
    assert not got.HasField("llm")
    assert await app.llm.for_tenant(tenant.tenant_id) is None


async def test_settings_rows_are_isolated_by_rls(make_tenant: Any, database_url: str) -> None:
    a, b = await make_tenant(), await make_tenant()
    await a.admin.UpdateTenant(llm_update(a.name))
    async with await psycopg.AsyncConnection.connect(database_url) as conn:
        await conn.execute("SET ROLE engram_app")
        await conn.execute("SELECT set_config('engram.tenant_id', %s, false)", (b.tenant_id,))
        cur = await conn.execute("SELECT count(*) FROM tenant_llm_config")
        row = await cur.fetchone()
        assert row is not None and row[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            await conn.execute(
                "INSERT INTO tenant_llm_config (tenant_id, provider, model)"
                " VALUES (%s, 'openai', 'x')",
                (a.tenant_id,),
            )


async def test_tenant_deletion_purges_settings_and_usage(
    make_tenant: Any, raw_pg: psycopg.AsyncConnection[Any]
) -> None:
    doomed = await make_tenant()
    await doomed.admin.UpdateTenant(llm_update(doomed.name))
    await raw_pg.execute(
        "INSERT INTO llm_usage (tenant_id, provider, model, day, requests, prompt_tokens,"
        " completion_tokens) VALUES (%s, 'openai', 'm1', current_date, 3, 10, 5)",
        (doomed.tenant_id,),
    )
    result = await doomed.platform_admin.DeleteTenant(
        admin_pb2.DeleteTenantRequest(name=doomed.name)
    )
    assert result.deleted_rows["tenant_llm_config"] == 1
    assert result.deleted_rows["llm_usage"] == 1
    for table in ("tenant_llm_config", "llm_usage"):
        cur = await raw_pg.execute(
            f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (doomed.tenant_id,)
        )
        row = await cur.fetchone()
        assert row is not None and row[0] == 0


async def test_a_tenant_recreated_under_a_deleted_ones_id_does_not_get_its_llm(
    make_tenant: Any, app: AppContext
) -> None:
    doomed = await make_tenant()
    assert app.llm is not None
    await doomed.admin.UpdateTenant(llm_update(doomed.name, model="m-old"))
    model = await app.llm.for_tenant(doomed.tenant_id)  # cached, as any LLM call does
    assert model is not None and model.model == "m-old"
    await doomed.platform_admin.DeleteTenant(admin_pb2.DeleteTenantRequest(name=doomed.name))
    await doomed.platform_admin.CreateTenant(
        admin_pb2.CreateTenantRequest(tenant_id=doomed.tenant_id)
    )
    # The new tenant has no LLM of its own: the deleted one's endpoint and key are
    # not used for it.
    assert await app.llm.for_tenant(doomed.tenant_id) is None


# -- SDK and CLI ---------------------------------------------------------------------


async def test_sdk_and_cli_update_llm_settings(
    server: RunningServer,
    make_tenant: Any,
    app: AppContext,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tenant = await make_tenant()

    def sdk_calls() -> tuple[engram.Tenant, engram.Tenant]:
        with engram.Client(server.address, tenant.secret) as client:
            first = client.admin.update_tenant(
                tenant.tenant_id,
                llm=engram.LlmSettings(
                    provider="anthropic", model="claude-x", api_key=SECRET, timeout_seconds=12
                ),
            )
            return first, client.admin.get_tenant(tenant.tenant_id)

    first, again = await asyncio.to_thread(sdk_calls)
    assert first.llm == again.llm
    assert again.llm is not None
    assert (again.llm.provider, again.llm.model, again.llm.timeout_seconds) == (
        "anthropic",
        "claude-x",
        12.0,
    )
    assert again.llm.api_key_set and again.llm.api_key == ""

    # The CLI reads the key from the environment only, and keeps unnamed fields.
    monkeypatch.setenv("TEST_LLM_KEY", "sk-from-env-42")
    conn = ("--address", server.address, "--api-key", tenant.secret)
    code, out, err = await run(
        capsys,
        "admin",
        "tenants",
        "update",
        tenant.tenant_id,
        "--llm-provider",
        "openai",
        "--llm-url",
        "http://127.0.0.1:8000/v1",
        "--llm-api-key-env",
        "TEST_LLM_KEY",
        "--json",
        *conn,
    )
    assert code == 0, err
    shown = json.loads(out)["llm"]
    assert shown["provider"] == "openai" and shown["model"] == "claude-x"
    assert shown["timeout_seconds"] == 12.0 and shown["api_key_set"] is True
    assert "sk-from-env-42" not in out + err
    stored = await get_tenant_llm_config(app.db, tenant.tenant_id)
    assert stored is not None and stored.api_key == "sk-from-env-42"

    code, out, err = await run(
        capsys, "admin", "tenants", "update", tenant.tenant_id, "--clear-llm", "--json", *conn
    )
    assert code == 0, err
    assert json.loads(out).get("llm") is None
    code, _, err = await run(
        capsys, "admin", "tenants", "update", tenant.tenant_id, "--display-name", "x", *conn
    )
    assert code == 1 and "PERMISSION_DENIED" in err
    code, _, err = await run(
        capsys,
        "admin",
        "tenants",
        "update",
        tenant.tenant_id,
        "--llm-api-key-env",
        "TEST_LLM_UNSET_VAR",
        *conn,
    )
    assert code == 2 and "TEST_LLM_UNSET_VAR" in err
