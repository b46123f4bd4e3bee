"""`engram admin ...`: bootstrap (direct to the database), tenants, keys, usage (over gRPC)."""

from __future__ import annotations

import argparse
import asyncio

import engram

from engram_server.cli import common
from engram_server.cli.common import Commands, UsageError


def register(commands: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    admin = commands.add_parser("admin", help="bootstrap, tenants, API keys and usage")
    sub = admin.add_subparsers(dest="admin_command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "bootstrap",
        help="ensure tenant `default` and a platform-admin key equal to the token",
        description=(
            "Connects to the database directly (ENGRAM_DATABASE_URL / ENGRAM_REDIS_URL or "
            "--config), applies pending migrations, and ensures tenant `default` with a "
            "platform-admin API key whose secret is the token. Idempotent."
        ),
    )
    p.add_argument("--token", help="the key's secret (default: $ENGRAM_BOOTSTRAP_TOKEN)")
    p.add_argument("--config", help="TOML settings file")
    p.add_argument("--database-url", help="PostgreSQL URL (default: $ENGRAM_DATABASE_URL)")
    p.add_argument("--redis-url", help="Redis URL (default: $ENGRAM_REDIS_URL)")
    p.set_defaults(handler=bootstrap)

    _register_tenants(sub, parent)
    _register_keys(sub, parent)

    p = sub.add_parser("usage", help="a tenant's usage", parents=[parent])
    p.add_argument("--tenant", required=True, help="tenant id or tenants/{id}")
    p.set_defaults(handler=usage)


def _register_tenants(
    sub: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser
) -> None:
    tenants = sub.add_parser("tenants", help="create, list, get and delete tenants")
    tsub = tenants.add_subparsers(dest="tenants_command", metavar="COMMAND", required=True)

    p = tsub.add_parser("create", help="create a tenant", parents=[parent])
    p.add_argument("tenant_id", help="3-63 characters of [a-z0-9-], starting with a letter")
    p.add_argument("--display-name", default="")
    p.add_argument("--rps", type=int, default=0, help="requests per second (0: unlimited)")
    p.add_argument("--max-memories", type=int, default=0, help="live memories (0: unlimited)")
    p.add_argument("--max-content-bytes", type=int, default=0, help="(0: server limit)")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=tenants_create)

    p = tsub.add_parser("list", help="list tenants", parents=[parent])
    p.set_defaults(handler=tenants_list)

    p = tsub.add_parser("get", help="show a tenant", parents=[parent])
    p.add_argument("tenant", help="tenant id or tenants/{id}")
    p.set_defaults(handler=tenants_get)

    p = tsub.add_parser(
        "update",
        help="change a tenant's display name, quota or LLM provider",
        parents=[parent],
        description=(
            "Only the options given change. A tenant administrator may change only its "
            "own tenant's LLM settings. The LLM API key is read from the environment "
            "variable named by --llm-api-key-env, never from the command line, and is "
            "never shown again."
        ),
    )
    p.add_argument("tenant", help="tenant id or tenants/{id}")
    p.add_argument("--display-name")
    p.add_argument("--rps", type=int, help="requests per second (0: unlimited)")
    p.add_argument("--max-memories", type=int, help="live memories (0: unlimited)")
    p.add_argument("--max-content-bytes", type=int, help="(0: server limit)")
    p.add_argument("--llm-provider", choices=("openai", "anthropic"))
    p.add_argument("--llm-url", help="base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--llm-model", help="model id")
    p.add_argument("--llm-api-key-env", metavar="VAR", help="environment variable with the key")
    p.add_argument("--llm-timeout", type=float, help="seconds per LLM call, retries included")
    p.add_argument("--clear-llm", action="store_true", help="remove the tenant's own LLM settings")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=tenants_update)

    p = tsub.add_parser("delete", help="delete a tenant and everything it owns", parents=[parent])
    p.add_argument("tenant", help="tenant id or tenants/{id}")
    p.add_argument("--yes", action="store_true", help="confirm the deletion")
    p.set_defaults(handler=tenants_delete)


def _register_keys(sub: Commands[argparse.ArgumentParser], parent: argparse.ArgumentParser) -> None:
    keys = sub.add_parser("keys", help="create, list, revoke and delete API keys")
    ksub = keys.add_subparsers(dest="keys_command", metavar="COMMAND", required=True)

    p = ksub.add_parser(
        "create", help="mint an API key (the secret is shown once)", parents=[parent]
    )
    p.add_argument("--tenant", required=True, help="tenant id or tenants/{id}")
    p.add_argument(
        "--scopes", required=True, help="comma-separated: read, write, admin, operator, platform"
    )
    p.add_argument("--agent", default="", help="bind every write to this agent identity")
    p.add_argument("--expires-in", type=common.seconds, help="seconds until the key expires")
    p.add_argument("--display-name", default="")
    p.add_argument("--request-id", help="idempotency key (default: a fresh UUID)")
    p.set_defaults(handler=keys_create)

    p = ksub.add_parser("list", help="list a tenant's keys (never their secrets)", parents=[parent])
    p.add_argument("--tenant", required=True, help="tenant id or tenants/{id}")
    p.add_argument("--show-revoked", action="store_true")
    p.set_defaults(handler=keys_list)

    for name, handler, help_text in (
        ("revoke", keys_revoke, "revoke a key; it is refused from then on"),
        ("delete", keys_delete, "delete a key record entirely"),
    ):
        p = ksub.add_parser(name, help=help_text, parents=[parent])
        p.add_argument("key", help="tenants/{t}/apiKeys/{k}, or the key id with --tenant")
        p.add_argument("--tenant", help="the key's tenant, when KEY is a bare id")
        p.set_defaults(handler=handler)


def bootstrap(args: argparse.Namespace) -> int:
    # Server modules (psycopg pools, Redis, telemetry) load only for this command.
    from engram_server.platform.config import load_settings
    from engram_server.platform.server import build_context
    from engram_server.tenancy.bootstrap import ensure_bootstrap_token

    settings = load_settings(args.config, database_url=args.database_url, redis_url=args.redis_url)
    token = args.token or settings.bootstrap_token
    if not token:
        raise UsageError("no token: pass --token or set ENGRAM_BOOTSTRAP_TOKEN")

    async def run() -> None:
        ctx = await build_context(settings)
        try:
            await ensure_bootstrap_token(ctx, token)
        finally:
            await ctx.close()

    asyncio.run(run())
    print("bootstrap key ensured: tenant `default`, scopes platform and admin")
    print("use it as ENGRAM_API_KEY (or --api-key) for `engram admin ...`")
    return 0


def tenants_create(args: argparse.Namespace) -> int:
    quota = engram.TenantQuota(
        requests_per_second=args.rps,
        max_memories=args.max_memories,
        max_content_bytes=args.max_content_bytes,
    )
    with common.make_client(args) as client:
        tenant = client.admin.create_tenant(
            args.tenant_id, args.display_name, quota=quota, request_id=args.request_id
        )
        common.output(args).item(tenant)
    return 0


def tenants_list(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        common.output(args).rows(client.admin.list_tenants())
    return 0


def tenants_get(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        common.output(args).item(client.admin.get_tenant(args.tenant))
    return 0


def tenants_update(args: argparse.Namespace) -> int:
    import os

    quota_flags = (args.rps, args.max_memories, args.max_content_bytes)
    llm_flags = (args.llm_provider, args.llm_url, args.llm_model, args.llm_api_key_env)
    wants_llm = any(v is not None for v in llm_flags) or args.llm_timeout is not None
    if wants_llm and args.clear_llm:
        raise UsageError("--clear-llm cannot be combined with other --llm-* options")
    api_key = ""
    if args.llm_api_key_env:
        api_key = os.environ.get(args.llm_api_key_env, "")
        if not api_key:
            raise UsageError(f"environment variable {args.llm_api_key_env} is empty or unset")
    with common.make_client(args) as client:
        current: engram.Tenant | None = None
        if any(v is not None for v in quota_flags) or wants_llm:
            # Unnamed fields keep their current values.
            current = client.admin.get_tenant(args.tenant)
        quota = None
        if current is not None and any(v is not None for v in quota_flags):
            now_quota = current.quota
            quota = engram.TenantQuota(
                requests_per_second=now_quota.requests_per_second if args.rps is None else args.rps,
                max_memories=(
                    now_quota.max_memories if args.max_memories is None else args.max_memories
                ),
                max_content_bytes=(
                    now_quota.max_content_bytes
                    if args.max_content_bytes is None
                    else args.max_content_bytes
                ),
            )
        llm = None
        if current is not None and wants_llm:
            now = current.llm or engram.LlmSettings()
            llm = engram.LlmSettings(
                provider=args.llm_provider or now.provider,
                base_url=now.base_url if args.llm_url is None else args.llm_url,
                model=args.llm_model or now.model,
                api_key=api_key,
                timeout_seconds=now.timeout_seconds
                if args.llm_timeout is None
                else args.llm_timeout,
            )
        try:
            tenant = client.admin.update_tenant(
                args.tenant,
                display_name=args.display_name,
                quota=quota,
                llm=llm,
                clear_llm=args.clear_llm,
                request_id=args.request_id,
            )
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        common.output(args).item(tenant)
    return 0


def tenants_delete(args: argparse.Namespace) -> int:
    if not args.yes:
        raise UsageError(
            f"deleting tenant {args.tenant!r} removes all its memories, keys and audit log "
            "for good; add --yes"
        )
    with common.make_client(args) as client:
        result = client.admin.delete_tenant(args.tenant)
    out = common.output(args)
    if out.as_json:
        out.item(result)
    else:
        out.line(f"deleted {args.tenant}")
        for table, count in sorted(result.deleted_rows.items()):
            out.line(f"  {table}: {count} rows")
        out.line(f"  cache keys: {result.deleted_cache_keys}")
    return 0


def keys_create(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        created = client.admin.create_api_key(
            args.tenant,
            common.split_list([args.scopes]),
            display_name=args.display_name,
            agent=args.agent,
            expire_time=args.expires_in,
            request_id=args.request_id,
        )
    out = common.output(args)
    if out.as_json:
        out.item(created)
    else:
        out.item(created.api_key)
        out.line(f"secret  {created.secret}")
        out.line("(the secret is shown only this once)")
    return 0


def keys_list(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        keys = client.admin.list_api_keys(args.tenant, show_revoked=args.show_revoked)
        common.output(args).rows(keys)
    return 0


def keys_revoke(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        common.output(args).item(client.admin.revoke_api_key(args.key, tenant=args.tenant))
    return 0


def keys_delete(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        client.admin.delete_api_key(args.key, tenant=args.tenant)
    common.output(args).item({"deleted": args.key})
    return 0


def usage(args: argparse.Namespace) -> int:
    with common.make_client(args) as client:
        common.output(args).item(client.admin.get_usage(args.tenant))
    return 0
