"""docs/python-sdk.md: every example runs against a live server, and the RPC table
names every SDK method."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engram
import pytest
from engram._base import RPC_ATTRIBUTE

from tests.docs_examples import DOCS, run_page_as


async def test_the_python_sdk_page_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "python-sdk.md", monkeypatch)
    assert namespace["found"].hits and namespace["restored"].retracted_count == 1


def test_the_rpc_table_lists_every_method() -> None:
    text = Path(DOCS / "python-sdk.md").read_text()
    names = {
        name
        for name in dir(engram.Client)
        if getattr(getattr(engram.Client, name), RPC_ATTRIBUTE, None) and not name.startswith("_")
    }
    missing = sorted(name for name in names if f"`{name}`" not in text)
    assert missing == []
