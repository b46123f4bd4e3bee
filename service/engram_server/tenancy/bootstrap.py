"""The first keys of a deployment: the bootstrap platform key and the dev key.

`engram serve` calls `ensure_bootstrap_token` when `ENGRAM_BOOTSTRAP_TOKEN` is set
(scripts, Kubernetes); `engram serve --dev` calls `ensure_dev_key` and prints the
secret. Both are safe to run from many replicas at once.
"""

from __future__ import annotations

import psycopg

from engram_server.platform import auth
from engram_server.platform.context import AppContext
from engram_server.platform.principal import (
    SCOPE_ADMIN,
    SCOPE_OPERATOR,
    SCOPE_PLATFORM,
    SCOPE_READ,
    SCOPE_WRITE,
)
from engram_server.store import api_keys, tenants
from engram_server.tenancy.model import ApiKeySpec

BOOTSTRAP_TENANT = "default"
BOOTSTRAP_KEY_ID = "bootstrap"
# Platform administration only: reading or writing memories needs a key that is
# given those scopes explicitly.
BOOTSTRAP_SCOPES = frozenset({SCOPE_PLATFORM, SCOPE_ADMIN})
MIN_BOOTSTRAP_TOKEN_CHARS = 16
# The token is chosen by the operator, not generated, so its prefix may be most of
# its entropy: only this many characters are kept for recognition.
BOOTSTRAP_SHOWN_PREFIX_CHARS = 4

DEV_TENANT = "dev"
DEV_KEY_DISPLAY_NAME = "engram serve --dev"
DEV_SCOPES = frozenset({SCOPE_READ, SCOPE_WRITE, SCOPE_ADMIN, SCOPE_OPERATOR})


async def ensure_bootstrap_token(ctx: AppContext, token: str) -> None:
    """Ensures tenant `default` and key `bootstrap` whose secret is `token`.

    Idempotent: with the same token nothing changes. A different token replaces the
    stored hash (rotation), and the old token stops working on every replica.
    """
    if len(token) < MIN_BOOTSTRAP_TOKEN_CHARS:
        raise ValueError(
            f"the bootstrap token must be at least {MIN_BOOTSTRAP_TOKEN_CHARS} characters "
            f"(got {len(token)}); generate one with `openssl rand -hex 32`"
        )
    try:
        async with ctx.db.platform_tx() as conn:
            await tenants.ensure_tenant(conn, BOOTSTRAP_TENANT, "Default")
            changed = await api_keys.put_fixed_key(
                conn,
                BOOTSTRAP_TENANT,
                BOOTSTRAP_KEY_ID,
                display_name="bootstrap (ENGRAM_BOOTSTRAP_TOKEN)",
                scopes=BOOTSTRAP_SCOPES,
                secret=token,
                shown_prefix=token[:BOOTSTRAP_SHOWN_PREFIX_CHARS],
            )
    except psycopg.errors.UniqueViolation as exc:
        raise ValueError(
            "the bootstrap token is already the secret of another API key; choose another"
        ) from exc
    if changed:
        auth.invalidate_key(BOOTSTRAP_TENANT, BOOTSTRAP_KEY_ID)


async def ensure_dev_key(ctx: AppContext, keep: str | None = None) -> str:
    """Ensures tenant `dev` and a dev key; returns its secret.

    `keep` is the secret printed by an earlier start (the caller stores it): while
    it is still a live dev key it is returned unchanged. Otherwise (first start,
    `--new-key`, a database reset) a fresh key is minted and the dev keys of
    earlier starts are deleted (other keys of the tenant are left alone). Only
    hashes are stored, so the database alone could never print a key again.
    """
    async with ctx.db.platform_tx() as conn:
        await tenants.ensure_tenant(conn, DEV_TENANT, "Development")
        if keep:
            found = await api_keys.lookup_by_secret(conn, keep)
            if (
                found is not None
                and found.tenant_id == DEV_TENANT
                and found.revoke_time is None
                and found.expire_time is None
            ):
                return keep
    key_id = api_keys.new_key_id()
    secret = api_keys.new_secret(key_id)
    spec = ApiKeySpec(
        tenant_id=DEV_TENANT,
        display_name=DEV_KEY_DISPLAY_NAME,
        scopes=DEV_SCOPES,
        agent=None,
        expire_time=None,
    )
    async with ctx.db.platform_tx() as conn:
        replaced = await api_keys.delete_keys_named(conn, DEV_TENANT, DEV_KEY_DISPLAY_NAME)
        await api_keys.insert_key(conn, spec, key_id, secret)
    for old_key_id in replaced:
        auth.invalidate_key(DEV_TENANT, old_key_id)
    return secret
