"""Runs the ```python blocks of a page under docs/, top to bottom, in one namespace."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from typing import Any

import engram
import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def python_blocks(page: str) -> list[str]:
    text = (DOCS / page).read_text()
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)


def run_page(page: str, namespace: dict[str, Any] | None = None) -> dict[str, Any]:
    """Executes every python block of `page`; a failing block names its position."""
    namespace = {} if namespace is None else namespace
    namespace.setdefault("__name__", "__docs__")
    blocks = python_blocks(page)
    assert blocks, f"docs/{page} has no python examples"
    for index, code in enumerate(blocks):
        exec(compile(code, f"docs/{page} block {index + 1}", "exec"), namespace)
    return namespace


def delete_tenant_if_left(address: str, platform_key: str, tenant: str) -> None:
    """Deletes `tenant` if a page's example left it (a run that failed part way), so
    the next page that creates it starts clean."""
    with engram.Client(address, platform_key) as client, contextlib.suppress(engram.NotFound):
        client.admin.delete_tenant(tenant)


async def run_page_as(tenant: Any, page: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Runs `page` with `tenant`'s address and key in ENGRAM_ADDRESS / ENGRAM_API_KEY,
    as a reader's shell would have them, in a thread: its examples block."""
    monkeypatch.setenv("ENGRAM_ADDRESS", tenant.address)
    monkeypatch.setenv("ENGRAM_API_KEY", tenant.secret)
    return await asyncio.to_thread(run_page, page)
