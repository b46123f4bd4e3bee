"""`engram eval realtalk`: the REALTALK reader, its splits, and the run through the server.

The real data is never in the repository (its licence is not stated): these tests
write small files in REALTALK's shape.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from engram_server.evaluation import realtalk, realtalk_eval


def _chat(number: int, first: str = "Ana", second: str = "Ben") -> dict[str, Any]:
    """A two-session conversation in REALTALK's file format."""
    return {
        "name": {"speaker_1": first, "speaker_2": second},
        "session_1": [
            {"clean_text": "Hey! How was the weekend?", "speaker": first,
             "date_time": "29.12.2023, 22:42:04", "dia_id": "D1:1"},
            {"clean_text": f"Great, I went kayaking on Lake Bled {number}.", "speaker": second,
             "date_time": "29.12.2023, 22:43:10", "dia_id": "D1:2"},
            {"clean_text": "Was the water cold?", "speaker": first,
             "date_time": "29.12.2023, 22:44:00", "dia_id": "D1:3"},
            {"clean_text": "Freezing, but worth it.", "speaker": second,
             "date_time": "29.12.2023, 22:45:00", "dia_id": "D1:5"},
        ],
        "session_1_date_time": "29.12.2023, 22:42:04",
        "events_session_1": {"agent_a": [], "agent_b": []},
        "session_2": [
            {"clean_text": "My sister adopted a greyhound called Pixel.", "speaker": first,
             "date_time": "02.01.2024, 10:00:00", "dia_id": "D2:1"},
            {"clean_text": "Pixel is such a fun name for a dog!", "speaker": second,
             "date_time": "02.01.2024, 10:01:00", "dia_id": "D2:2"},
        ],
        "session_2_date_time": "02.01.2024, 10:00:00",
        "qa": [
            {"question": f"Where did {second} go kayaking?", "answer": "Lake Bled",
             "evidence": ["D1:2."], "category": 2},
            {"question": "How did the water feel and what pet joined the family?",
             "answer": "cold; a greyhound", "evidence": ["D1:3-D1:5", "D2:1;D2:2"],
             "category": 1},
            {"question": "Is it summer?", "answer": "no", "evidence": ["D1:4"], "category": 3},
        ],
    }  # fmt: skip


def _write(directory: Path, numbers: range) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for n in numbers:
        (directory / f"Chat_{n}_Ana_Ben.json").write_text(json.dumps(_chat(n)))
    (directory / "README.txt").write_text("not a conversation")
    return directory


def test_evidence_ids_are_normalised() -> None:
    assert realtalk.evidence_ids("D3:12") == ["D3:12"]
    assert realtalk.evidence_ids("D5:3.") == ["D5:3"]
    assert realtalk.evidence_ids("D5:12;D5:16") == ["D5:12", "D5:16"]
    assert realtalk.evidence_ids("D2:136; D2:137; D25:12") == ["D2:136", "D2:137", "D25:12"]
    assert realtalk.evidence_ids("D12:3-D12:5") == ["D12:3", "D12:4", "D12:5"]
    assert realtalk.evidence_ids("D12:3-5") == ["D12:3", "D12:4", "D12:5"]
    assert realtalk.evidence_ids("") == []


def test_a_file_becomes_speaker_prefixed_turns_with_sessions_and_times(tmp_path: Path) -> None:
    loaded = realtalk.load(_write(tmp_path / "rt", range(1, 3)))
    assert [c.id for c in loaded.conversations] == ["realtalk-01", "realtalk-02"]
    conversation = loaded.conversations[0]
    assert [t.text for t in conversation.turns[:2]] == [
        "Ana: Hey! How was the weekend?",
        "Ben: Great, I went kayaking on Lake Bled 1.",
    ]
    assert [t.session for t in conversation.turns] == ["session_1"] * 4 + ["session_2"] * 2
    assert conversation.turns[0].time == "2023-12-29T22:42:04Z"
    assert conversation.turns[1].id == "realtalk-01-D1:2"
    kayak, multi = conversation.questions  # the third names no turn (D1:4 is missing)
    assert (kayak.category, dict(kayak.answers)) == ("temporal", {"realtalk-01-D1:2": 2})
    assert multi.category == "multi-hop"
    assert set(multi.answers) == {f"realtalk-01-{d}" for d in ("D1:3", "D1:5", "D2:1", "D2:2")}
    # Per file: D1:4 of the range and of the third question name no turn.
    assert loaded.unresolved_evidence == 2 * 2
    assert loaded.dropped_questions == 2


def test_splits_keep_tuning_and_reporting_apart(tmp_path: Path) -> None:
    loaded = realtalk.load(_write(tmp_path / "rt", range(1, 11)))
    dev, report = loaded.split("dev"), loaded.split("report")
    assert [loaded.numbers[c.id] for c in dev] == [1, 2, 3, 4, 5]
    assert [loaded.numbers[c.id] for c in report] == [6, 7, 8, 9, 10]
    assert len(loaded.split("all")) == 10


def test_missing_data_is_skipped_with_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(realtalk.ENV_DIR, raising=False)
    assert realtalk_eval.main(["--bm25-only"]) == 0
    assert "skipped" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv(realtalk.ENV_DIR, str(empty))
    assert realtalk_eval.main(["--bm25-only"]) == 0
    assert "no REALTALK" in capsys.readouterr().err


def test_baseline_alone_reports_by_split_and_category(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(realtalk.ENV_DIR, str(_write(tmp_path / "rt", range(1, 11))))
    out = tmp_path / "rt.json"
    assert realtalk_eval.main(["--bm25-only", "--quiet", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert set(result["splits"]) == {"dev", "report", "all"}
    rows = result["splits"]["report"]["by_category"]
    assert set(rows) == {"overall", "multi-hop", "temporal"}
    assert rows["overall"]["questions"] == 10
    # The kayaking question names a rare word of its answer: BM25 finds it first.
    assert rows["temporal"]["mrr"]["bm25"]["mean"] == 1.0
    low, high = rows["overall"]["recall@10"]["bm25"]["ci95"]
    assert 0.0 <= low <= rows["overall"]["recall@10"]["bm25"]["mean"] <= high <= 1.0
    assert "## report split" in capsys.readouterr().out


async def test_through_the_server_one_tenant_per_conversation(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    server: object,
    platform_key: str,
) -> None:
    directory = _write(tmp_path / "rt", range(1, 3))
    out = tmp_path / "engram.json"
    args = [
        "--realtalk-dir", str(directory), "--split", "dev", "--quiet", "--out", str(out),
        "--address", server.address,  # type: ignore[attr-defined]
        "--api-key", platform_key,
    ]  # fmt: skip
    # In a thread: the command runs its own event loop, the server is on this one.
    assert await asyncio.to_thread(realtalk_eval.main, args) == 0
    result = json.loads(out.read_text())
    assert result["engram"]["turns"] == 12
    overall = result["splits"]["dev"]["by_category"]["overall"]
    assert overall["questions"] == 4
    # Six turns a conversation: every evidence turn is within the ten hits.
    assert overall["recall@10"]["engram"]["mean"] == 1.0
    temporal = result["splits"]["dev"]["by_category"]["temporal"]
    assert temporal["mrr"]["engram"]["mean"] == 1.0
