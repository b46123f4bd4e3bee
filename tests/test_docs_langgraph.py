"""docs/langgraph.md runs as written against a live server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langgraph")

from tests.docs_examples import run_page


async def test_the_langgraph_page_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", tenant.address)
    monkeypatch.setenv("ENGRAM_API_KEY", tenant.secret)
    namespace = await asyncio.to_thread(run_page, "langgraph.md")
    assert namespace["result"]["recalled"] == ["I prefer short answers"]
