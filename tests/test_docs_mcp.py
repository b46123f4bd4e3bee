"""docs/mcp.md runs as written: the MCP Python client starts `engram mcp` over stdio
and calls it against a live server."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from tests.docs_examples import run_page


async def test_the_mcp_page_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", tenant.address)
    monkeypatch.setenv("ENGRAM_API_KEY", tenant.secret)
    # The page starts `engram` from PATH, as a host would.
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    await asyncio.to_thread(run_page, "mcp.md")
