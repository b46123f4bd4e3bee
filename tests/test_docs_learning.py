"""docs/learning.md runs as written: Learn's deterministic path and Consolidate
answer what the page's comments show."""

from __future__ import annotations

from typing import Any

import engram
import pytest

from tests.docs_examples import run_page_as


async def test_the_learning_page_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "learning.md", monkeypatch)
    learned = [
        (r.outcome, r.memory.kind, r.memory.slot_key, r.memory.content)
        for r in namespace["learned"].results
    ]
    assert learned == [
        ("ACCEPTED", "SEMANTIC", "user::location", "I moved to Lisbon last month."),
        ("ACCEPTED", "SEMANTIC", "user::role", "I'm a data engineer at Globex."),
    ]
    done = namespace["done"]
    assert (done.summary.kind, done.summary.session) == (engram.MemoryKind.SUMMARY, "s1")
    assert [(m.kind, m.content) for m in done.records] == [
        ("ENTITY", "Kafka"),
        ("DECISION", "We decided to use Kafka for events."),
        ("SEMANTIC", "Alice owns the billing service."),
        ("QUESTION", "Should we migrate reporting to Kafka?"),
    ]
    assert namespace["again"].already_consolidated
    assert namespace["again"].summary.name == done.summary.name
