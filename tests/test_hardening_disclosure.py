"""Issue 22 §7: errors never reveal internal addresses or PostgreSQL's CONTEXT, and
database errors in the log never quote the row (memory content)."""

from __future__ import annotations

import logging
import socket
from typing import Any

import psycopg
import pytest
from engram_server.errors import Unavailable
from engram_server.lifecycle.model import Proposal
from engram_server.lifecycle.policy import Policy, WebhookSpec
from engram_server.lifecycle.validators import run_validators
from engram_server.platform import logscrub
from engram_server.platform.errors_mapping import to_rich_status
from engram_server.store.redis import RedisStore

SECRET_CONTENT = "patient 4711 takes warfarin"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_unreachable_redis_answers_without_its_address() -> None:
    port = _closed_port()
    store = RedisStore(f"redis://127.0.0.1:{port}/0")
    try:
        with pytest.raises(Unavailable) as err:
            await store.ping()
    finally:
        await store.close()
    status = to_rich_status(err.value)
    assert str(port) not in status.message and "127.0.0.1" not in status.message
    # The cause (with the address) is kept for the log.
    assert err.value.__cause__ is not None


async def test_database_errors_are_logged_without_detail_or_context(
    raw_pg: Any, caplog: pytest.LogCaptureFixture
) -> None:
    logscrub.install()
    await raw_pg.execute("CREATE TEMP TABLE scrub_probe (content text PRIMARY KEY)")
    await raw_pg.execute("INSERT INTO scrub_probe VALUES (%s)", (SECRET_CONTENT,))
    log = logging.getLogger("engram_server.test_scrub")
    with caplog.at_level(logging.INFO):
        try:
            # A duplicate key's DETAIL quotes the row; the CONTEXT of a PL/pgSQL
            # statement quotes it too.
            await raw_pg.execute(
                f"DO $$ BEGIN INSERT INTO scrub_probe VALUES ('{SECRET_CONTENT}'); END $$"
            )
        except psycopg.errors.UniqueViolation as exc:
            assert SECRET_CONTENT in str(exc)  # what the driver itself would print
            log.exception("write failed")
            log.warning("write failed: %s", exc)
            try:
                raise RuntimeError("wrapped") from exc
            except RuntimeError:
                log.exception("write failed again")
    text = "\n".join(caplog.text.splitlines())
    assert "UniqueViolation" in text and "23505" in text
    assert SECRET_CONTENT not in text
    assert "CONTEXT" not in text and "DETAIL" not in text


async def test_webhook_transport_errors_do_not_name_addresses() -> None:
    port = _closed_port()
    hook = WebhookSpec(name="check", url=f"http://127.0.0.1:{port}/v", timeout_ms=2000)

    async def refuse(spec: WebhookSpec, payload: dict[str, Any]) -> Any:
        raise OSError(f"[Errno 111] Connect call failed ('127.0.0.1', {port})")

    failures = await run_validators(
        Policy(webhooks=(hook,)), Proposal(space="s", content="x"), refuse
    )
    assert failures and str(port) not in failures[0].message
    assert "could not call the webhook" in failures[0].message
