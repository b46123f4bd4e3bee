"""The README's Python tour, run as written against a real server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _tour_code() -> str:
    text = README.read_text()
    start = text.index("From Python:")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1)  # as written: its watch loop ends by itself


async def test_readme_python_tour_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    t = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", t.address)
    monkeypatch.setenv("ENGRAM_API_KEY", t.secret)
    # The sync client blocks, so the tour runs in a thread beside the server's loop.
    # Twice, in the same space: a reader may run the block again.
    for run in (1, 2):
        namespace = await asyncio.to_thread(_run_tour)
        memory, pending = namespace["checks"]
        assert memory.status == "RETRACTED"
        assert memory.content == "Deploys happen on Tuesdays"
        assert pending.status == "ACTIVE"
        assert namespace["pending"].outcome == ("PENDING_CONFIRMATION" if run == 1 else "DUPLICATE")
        # The recall step found the revised memory (it was still ACTIVE then).
        recalled = [hit.memory.content for hit in namespace["turn"].hits]
        assert "Deploys happen on Tuesdays" in recalled
        assert "Deploys happen on Tuesdays" in namespace["turn"].context
        # The watch loop stopped at this run's retraction, as the README shows.
        assert namespace["event"].entry.memory == memory.name
        assert namespace["event"].entry.to_status == "RETRACTED"


DOCS = README.parent / "docs"


async def test_recall_page_example_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/recall.md's first example, as written (it once raised NameError)."""
    t = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", t.address)
    monkeypatch.setenv("ENGRAM_API_KEY", t.secret)
    text = (DOCS / "recall.md").read_text()
    block = re.search(r"```python\n(.*?)```", text, re.S)
    assert block is not None
    namespace: dict[str, Any] = {}
    await asyncio.to_thread(exec, compile(block.group(1), "docs/recall.md", "exec"), namespace)
    contents = [hit.memory.content for hit in namespace["response"].hits]
    assert "Alice prefers Go for backend services" in contents


def _run_tour() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(_tour_code(), str(README), "exec"), namespace)
    client = namespace["client"]
    namespace["checks"] = (
        client.get(namespace["result"].memory.name),
        client.get(namespace["pending"].memory.name),
    )
    return namespace
