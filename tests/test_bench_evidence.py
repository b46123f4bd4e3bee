"""`engram bench evidence` and `engram eval graph` end to end at toy sizes, against
the test server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from engram_server.bench import main as bench_main
from engram_server.evaluation import main as eval_main


async def test_bench_evidence_toy(server: Any, platform_key: str, tmp_path: Path) -> None:
    out = tmp_path / "evidence.json"
    argv = [
        "evidence",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--sizes",
        "60,120",
        "--questions",
        "4",
        "--assessments",
        "3",
        "--warmup",
        "1",
        "--quiet",
        "--out",
        str(out),
    ]
    # In a worker thread: the test server runs on this event loop.
    assert await asyncio.to_thread(bench_main, argv) == 0
    report = json.loads(out.read_text())
    assert report["benchmark"] == "evidence"
    assert [level["memories"] for level in report["levels"]] == [60, 120]
    for level in report["levels"]:
        assert level["recall_plain"]["samples"] == 4
        assert level["assess_memory"]["samples"] == 3
        assert level["ratio_graph_to_plain"]["p50"] > 0
    assert isinstance(report["goals"]["met"], bool)
    assert "| 120 |" in out.with_suffix(".md").read_text()


async def test_eval_graph_toy(server: Any, platform_key: str, tmp_path: Path) -> None:
    out = tmp_path / "graph.md"
    argv = [
        "graph",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--distractors",
        "40",
        "--out",
        str(out),
    ]
    assert await asyncio.to_thread(eval_main, argv) == 0
    result = json.loads(out.with_suffix(".json").read_text())
    assert result["chains"] >= 15
    # Strictly additive: graph expansion never loses what plain Recall found.
    for row in result["rows"]:
        assert row["graph_found"] or not row["plain_found"]
    assert result["graph_answer_returned"] >= result["plain_recall_at_k"]
    assert "graph on (1 hop)" in out.read_text()
