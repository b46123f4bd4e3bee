"""docs/langgraph.md runs as written against a live server."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langgraph")

from tests.docs_examples import run_page_as


async def test_the_langgraph_page_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "langgraph.md", monkeypatch)
    assert namespace["result"]["recalled"] == ["I prefer short answers"]
