"""The worked example of docs/evidence.md, run as written against a real server."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import engram
import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "evidence.md"


def _example() -> str:
    text = DOC.read_text()
    start = text.index("## A worked example (tested)")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1)


def _run() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(_example(), str(DOC), "exec"), namespace)
    namespace["client"].close()
    return namespace


async def test_docs_evidence_example_runs(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", t.address)
    monkeypatch.setenv("ENGRAM_API_KEY", t.secret)
    ns = await asyncio.to_thread(_run)
    assert ns["report"].suggested_level is engram.EvidenceLevel.UNVERIFIED
    assert ns["conflict"].detector == "official_pin"
    assert [m.status for m in ns["done"].changed_memories] == [engram.MemoryStatus.RETRACTED]
    top = ns["top"]
    assert top.memory.name == ns["official"].name and top.evidence_badge == "[official]"
    assert top.score == pytest.approx(top.breakdown.base_score + 0.15)
