"""LLM token usage per tenant, provider, model and UTC day (`llm_usage`).

One upsert per provider reply; AdminService.GetUsage reports the totals per
provider. Tenant-scoped: only a `tenant_tx` of the tenant sees its rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from engram_server.store.postgres import Conn, Database

if TYPE_CHECKING:
    from engram_server.llm.base import LLMUsage


@dataclass(frozen=True)
class UsageRow:
    provider: str
    model: str
    day: date
    requests: int
    prompt_tokens: int
    completion_tokens: int


async def add_usage(conn: Conn, usage: LLMUsage) -> None:
    await conn.execute(
        "INSERT INTO llm_usage AS u (tenant_id, provider, model, day, requests,"
        " prompt_tokens, completion_tokens)"
        " VALUES (%s, %s, %s, (now() AT TIME ZONE 'UTC')::date, 1, %s, %s)"
        " ON CONFLICT (tenant_id, provider, model, day) DO UPDATE SET"
        " requests = u.requests + 1,"
        " prompt_tokens = u.prompt_tokens + excluded.prompt_tokens,"
        " completion_tokens = u.completion_tokens + excluded.completion_tokens,"
        " update_time = now()",
        (
            usage.tenant_id,
            usage.provider,
            usage.model,
            usage.prompt_tokens,
            usage.completion_tokens,
        ),
    )


async def record_usage(db: Database, usage: LLMUsage) -> None:
    """Adds one reply's usage to the tenant's counters (its own transaction)."""
    async with db.tenant_tx(usage.tenant_id) as conn:
        await add_usage(conn, usage)


async def tokens_by_provider(conn: Conn, tenant_id: str) -> dict[str, int]:
    """Prompt plus completion tokens per provider, all days."""
    cur = await conn.execute(
        "SELECT provider, sum(prompt_tokens + completion_tokens) AS tokens"
        " FROM llm_usage WHERE tenant_id = %s GROUP BY provider",
        (tenant_id,),
    )
    return {row["provider"]: int(row["tokens"]) for row in await cur.fetchall()}


async def usage_rows(conn: Conn, tenant_id: str) -> list[UsageRow]:
    cur = await conn.execute(
        "SELECT provider, model, day, requests, prompt_tokens, completion_tokens"
        " FROM llm_usage WHERE tenant_id = %s ORDER BY day, provider, model",
        (tenant_id,),
    )
    return [
        UsageRow(
            row["provider"],
            row["model"],
            row["day"],
            int(row["requests"]),
            int(row["prompt_tokens"]),
            int(row["completion_tokens"]),
        )
        for row in await cur.fetchall()
    ]
