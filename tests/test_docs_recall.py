"""docs/recall.md runs as written: the SDK's recall and context, and the generated
stub with the key as metadata, answer what the page's comments show."""

from __future__ import annotations

from typing import Any

import pytest

from tests.docs_examples import run_page_as


async def test_the_recall_page_runs(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "recall.md", monkeypatch)
    shown = [line.split(" ", 1) for line in capsys.readouterr().out.splitlines()[:2]]
    # The page shows 0.93: a score's last digit moves with how the texts were
    # batched for embedding, so it is compared to within a hundredth.
    assert [text for _, text in shown] == [
        "Alice prefers Go for backend services 1",
        "Deploys happen on Tuesdays 0",
    ]
    assert abs(float(shown[0][0]) - 0.93) <= 0.011 and float(shown[1][0]) == 0.0
    block = namespace["block"].text.splitlines()
    assert [line.split(" (memories/")[0] for line in block] == [
        "## Facts",
        "- Alice prefers Go for backend services",
        "",
        "## How-tos",
        "- Deploys happen on Tuesdays",
    ]
    assert [hit.memory.content for hit in namespace["response"].hits] == [
        "Alice prefers Go for backend services",
        "Deploys happen on Tuesdays",
    ]
