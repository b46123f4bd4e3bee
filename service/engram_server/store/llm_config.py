"""A tenant's own LLM provider settings (`tenant_llm_config`, one row per tenant).

The API key is stored for the server's own calls and leaves this module only
inside an `LLMConfig` handed to a provider; everything shown to users reports
just whether one is set. Every change is announced on `engram_llm_config` in the
same transaction, so each replica's `LLMRegistry` drops its cached model at commit.
"""

from __future__ import annotations

from typing import Any

from engram_server.llm import LLMConfig
from engram_server.store.postgres import Conn, Database

CHANGES_CHANNEL = "engram_llm_config"


def _config(row: dict[str, Any]) -> LLMConfig:
    return LLMConfig(
        provider=row["provider"],
        base_url=row["base_url"],
        model=row["model"],
        api_key=row["api_key"],
        timeout_seconds=float(row["timeout_seconds"]),
    )


async def read_config(conn: Conn, tenant_id: str) -> LLMConfig | None:
    cur = await conn.execute(
        "SELECT provider, base_url, model, api_key, timeout_seconds"
        " FROM tenant_llm_config WHERE tenant_id = %s",
        (tenant_id,),
    )
    row = await cur.fetchone()
    return None if row is None else _config(row)


async def read_configs(conn: Conn, tenant_ids: list[str]) -> dict[str, LLMConfig]:
    """Settings of several tenants (platform transaction), keyed by tenant id."""
    if not tenant_ids:
        return {}
    cur = await conn.execute(
        "SELECT tenant_id, provider, base_url, model, api_key, timeout_seconds"
        " FROM tenant_llm_config WHERE tenant_id = ANY(%s)",
        (tenant_ids,),
    )
    return {row["tenant_id"]: _config(row) for row in await cur.fetchall()}


async def write_config(conn: Conn, tenant_id: str, config: LLMConfig | None) -> None:
    """Stores (or with None removes) the tenant's settings and announces the change."""
    if config is None:
        await conn.execute("DELETE FROM tenant_llm_config WHERE tenant_id = %s", (tenant_id,))
    else:
        await conn.execute(
            "INSERT INTO tenant_llm_config"
            " (tenant_id, provider, base_url, model, api_key, timeout_seconds)"
            " VALUES (%s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (tenant_id) DO UPDATE SET provider = excluded.provider,"
            " base_url = excluded.base_url, model = excluded.model,"
            " api_key = excluded.api_key, timeout_seconds = excluded.timeout_seconds,"
            " update_time = now()",
            (
                tenant_id,
                config.provider,
                config.base_url,
                config.model,
                config.api_key,
                config.timeout_seconds,
            ),
        )
    await notify_changed(conn, tenant_id)


async def notify_changed(conn: Conn, tenant_id: str) -> None:
    """Tells every replica (at commit) to forget the tenant's cached LLM choice."""
    await conn.execute("SELECT pg_notify(%s, %s)", (CHANGES_CHANNEL, tenant_id))


async def set_tenant_llm_config(db: Database, tenant_id: str, config: LLMConfig | None) -> None:
    """Sets the tenant's own LLM (None: back to the server-wide one, if any)."""
    async with db.tenant_tx(tenant_id) as conn:
        await write_config(conn, tenant_id, config)


async def get_tenant_llm_config(db: Database, tenant_id: str) -> LLMConfig | None:
    """The tenant's own LLM settings, or None when it has none."""
    async with db.tenant_tx(tenant_id) as conn:
        return await read_config(conn, tenant_id)
