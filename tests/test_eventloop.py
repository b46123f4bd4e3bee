"""The server's event loop: uvloop by default, asyncio's own loop on request."""

from __future__ import annotations

import asyncio

import pytest
from engram_server.cli import main
from engram_server.platform.config import load_settings
from engram_server.platform.eventloop import check_event_loop, loop_factory, loop_name, run


async def _running_loop_name() -> str:
    return loop_name(asyncio.get_running_loop())


def test_uvloop_is_the_default() -> None:
    assert load_settings(env={}).event_loop == "uvloop"
    assert run(_running_loop_name(), loop_factory("uvloop")) == "uvloop"


def test_asyncio_runs_the_standard_loop() -> None:
    assert loop_factory("asyncio") is None
    assert run(_running_loop_name(), loop_factory("asyncio")) == "asyncio"
    assert load_settings(env={"ENGRAM_EVENT_LOOP": "asyncio"}).event_loop == "asyncio"


def test_unknown_loop_is_refused_naming_the_setting() -> None:
    with pytest.raises(ValueError, match="setting event_loop: expected one of uvloop, asyncio"):
        check_event_loop("trio")


def test_serve_refuses_an_unknown_loop_before_starting(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ENGRAM_EVENT_LOOP", "tornado")
    assert main(["serve"]) == 2
    assert "setting event_loop" in capsys.readouterr().err


async def test_the_suite_runs_on_the_servers_loop() -> None:
    assert await _running_loop_name() == "uvloop"
