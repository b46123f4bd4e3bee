"""docs/working-memory.md runs as written: session buffers, the AppendMessages stream
(sync and async), Engage and Reflect answer what the page's comments show."""

from __future__ import annotations

from typing import Any

import engram
import pytest

from tests.docs_examples import run_page_as


async def test_the_working_memory_page_runs(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "working-memory.md", monkeypatch)
    shown = capsys.readouterr().out.splitlines()

    assert shown[0] == "0 7 1 7"
    assert [m.content for m in namespace["window"].messages] == [
        "I moved to Lisbon last month.",
        "Lovely city!",
    ]
    assert [(s.session, s.message_count) for s in namespace["sessions"]] == [("chat-7", 2)]
    assert shown[3] == "2"
    # AppendMessages: two buffered, one refused, one dropped, in order.
    assert shown[4:8] == [
        "0 1",
        "1 2",
        "refused: INVALID_ARGUMENT ['message.content']",
        "dropped: ['aws_access_key']",
    ]
    # The async stream.
    assert shown[8:10] == ["0 Hi, I'm planning the offsite.", "1 Somewhere warm, please."]
    turn = namespace["turn"]
    assert turn.context.startswith("## Facts\n- The office canteen closes at 14:00 (memories/")
    assert [hit.memory.content for hit in turn.hits] == ["The office canteen closes at 14:00"]
    assert turn.message.index == 0
    later = namespace["later"]
    assert (later.suppressed_count, later.context) == (1, "")
    reflected = namespace["result"]
    assert [(r.outcome, r.memory.session) for r in reflected.results] == [
        (engram.ProposalOutcome.ACCEPTED, "chat-7")
    ]
    assert reflected.privacy_findings == ()
