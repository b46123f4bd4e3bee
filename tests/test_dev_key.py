"""`engram serve --dev` keeps its dev key in the data dir across restarts."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import grpc
from engram.v1 import admin_pb2, admin_pb2_grpc
from engram_server.platform.server import DEV_KEY_FILE, _banner, _dev_key, read_dev_key
from engram_server.tenancy.bootstrap import DEV_TENANT

from tests.conftest import open_channel


async def _works(address: str, secret: str) -> bool:
    channel = open_channel(address, secret)
    try:
        await admin_pb2_grpc.AdminServiceStub(channel).GetTenant(
            admin_pb2.GetTenantRequest(name=f"tenants/{DEV_TENANT}")
        )
        return True
    except grpc.aio.AioRpcError as err:
        assert err.code() == grpc.StatusCode.UNAUTHENTICATED
        return False
    finally:
        await channel.close()


async def test_dev_key_is_kept_private_and_reused_until_rotated(
    server: Any, tmp_path: Path
) -> None:
    data_dir = str(tmp_path / "data")
    first = await _dev_key(server.ctx, data_dir, new_key=False)
    key_file = Path(data_dir) / DEV_KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert read_dev_key(data_dir) == first
    # A restart keeps it.
    assert await _dev_key(server.ctx, data_dir, new_key=False) == first
    assert await _works(server.address, first)
    # --new-key rotates it: the old one stops working.
    rotated = await _dev_key(server.ctx, data_dir, new_key=True)
    assert rotated != first
    assert read_dev_key(data_dir) == rotated
    assert await _works(server.address, rotated)
    assert not await _works(server.address, first)
    # A stored key the database no longer knows (a reset database) is replaced.
    key_file.write_text("egk_0000000000000000_not-a-key\n")
    key_file.chmod(0o644)
    fresh = await _dev_key(server.ctx, data_dir, new_key=False)
    assert fresh not in (rotated, "egk_0000000000000000_not-a-key")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert await _works(server.address, fresh)


def test_banner_commands_work_as_printed(tmp_path: Path) -> None:
    banner = _banner("127.0.0.1:50051", "egk_x_y", None, str(tmp_path))
    key_file = tmp_path / DEV_KEY_FILE
    assert f"ENGRAM_API_KEY=$(cat {key_file})" in banner
    assert ".venv/bin/engram memory list" in banner
    assert "ENGRAM_BOOTSTRAP_TOKEN=" in banner and "scripts/dev" in banner
    assert "--new-key" in banner
