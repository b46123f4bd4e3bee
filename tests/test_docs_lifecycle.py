"""docs/lifecycle.md runs as written: propose, list, revise, retract and the audit
trail answer what the page's comments show."""

from __future__ import annotations

from typing import Any

import engram
import pytest

from tests.docs_examples import run_page_as


async def test_the_lifecycle_page_runs(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "lifecycle.md", monkeypatch)
    shown = capsys.readouterr().out.splitlines()
    r = namespace["r"]
    assert r.outcome is engram.ProposalOutcome.ACCEPTED
    assert shown[0] == f"ACCEPTED {r.memory.name}" and r.memory.name.startswith("memories/")
    assert shown[1:] == [
        "['Alice prefers Go for backend services']",
        "2 Alice prefers Rust",
        "RETRACTED ()",
        # A new tenant's audit log starts at 1.
        "1 TRANSITION UNSPECIFIED -> PROPOSED",
        "2 TRANSITION PROPOSED -> ACTIVE",
        "3 REVISION ACTIVE -> ACTIVE",
        "4 TRANSITION ACTIVE -> RETRACTED",
    ]
