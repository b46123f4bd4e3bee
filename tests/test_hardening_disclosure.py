"""Issue 22 §7: errors never reveal internal addresses or PostgreSQL's CONTEXT, and
database errors in the log never quote the row (memory content)."""

from __future__ import annotations

import logging
import socket
from typing import Any

import grpc
import psycopg
import pytest
from engram.errors import from_rpc_error
from engram_server.errors import Unavailable
from engram_server.lifecycle.model import Proposal
from engram_server.lifecycle.policy import Policy, WebhookSpec
from engram_server.lifecycle.validators import run_validators
from engram_server.platform import logscrub
from engram_server.platform.errors_mapping import to_rich_status
from engram_server.store.redis import RedisStore
from google.rpc import error_details_pb2

from tests.lifecycle_helpers import propose, status_details

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


def reference_of(err: grpc.aio.AioRpcError) -> str:
    """The error id an INTERNAL or UNAVAILABLE answer carries (message and details)."""
    status = status_details(err)
    infos = [
        info
        for info in (_unpacked(d, error_details_pb2.ErrorInfo) for d in status.details)
        if info is not None
    ]
    requests = [
        info
        for info in (_unpacked(d, error_details_pb2.RequestInfo) for d in status.details)
        if info is not None
    ]
    assert len(infos) == 1 and len(requests) == 1, status
    error_id = infos[0].metadata["error_id"]
    assert error_id and requests[0].request_id == error_id
    assert f"(error id {error_id})" in (err.details() or "")
    assert any(d.Is(error_details_pb2.RetryInfo.DESCRIPTOR) for d in status.details)
    return str(error_id)


def _unpacked(packed: Any, cls: Any) -> Any:
    if not packed.Is(cls.DESCRIPTOR):
        return None
    item = cls()
    packed.Unpack(item)
    return item


async def test_a_database_failure_answers_internal_with_an_error_id_in_the_log(
    make_tenant: Any, raw_pg: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """A real PostgreSQL error inside a write (a trigger that fails for this one
    tenant, quoting the row in its DETAIL and CONTEXT): the caller gets a stable
    message, a retry hint and an error id; the log line with that id holds the
    error's class and SQLSTATE, never its DETAIL or the content; other tenants
    write on."""
    t = await make_tenant()
    other = await make_tenant()
    function = f"fail_probe_{t.tenant_id.replace('-', '_')}"
    await raw_pg.execute(
        f"CREATE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$"
        " BEGIN RAISE EXCEPTION 'probe failure in relation memories'"
        " USING DETAIL = 'row content: ' || NEW.content, ERRCODE = 'XX000'; END $$"
    )
    await raw_pg.execute(
        f"CREATE TRIGGER {function} BEFORE INSERT ON memories FOR EACH ROW"
        f" WHEN (NEW.tenant_id = '{t.tenant_id}') EXECUTE FUNCTION {function}()"
    )
    try:
        with caplog.at_level(logging.ERROR, logger="engram_server"):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await propose(t.lifecycle, "s", SECRET_CONTENT)
            assert (await propose(other.lifecycle, "s", "unaffected")).memory.name
    finally:
        await raw_pg.execute(f"DROP TRIGGER {function} ON memories")
        await raw_pg.execute(f"DROP FUNCTION {function}()")
    assert err.value.code() == grpc.StatusCode.INTERNAL
    details = err.value.details() or ""
    assert details.startswith("internal error (error id ")
    assert "retry" in details
    for leak in (SECRET_CONTENT, "probe failure", "memories", "XX000", "INSERT"):
        assert leak not in details
    error_id = reference_of(err.value)
    assert from_rpc_error(err.value).error_id == error_id  # the SDK's view
    lines = [r for r in caplog.records if error_id in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in caplog.records]
    logged = caplog.text
    assert "InternalError_" in logged and "XX000" in logged and "probe failure" in logged
    assert SECRET_CONTENT not in logged and "row content" not in logged
    # The caller's retry succeeds once the cause is gone.
    assert (await propose(t.lifecycle, "s", "after the fix")).memory.name
