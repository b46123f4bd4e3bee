"""`engram bench lifecycle` end to end at toy sizes: the harness runs and the report
has every figure. Performance itself is never asserted here (see bench/results/)."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from engram_server.bench import main

from tests.conftest import RunningServer

LATENCIES = ("p50_ms", "p99_ms", "mean_ms", "min_ms", "max_ms", "samples")
ENGRAM_FIGURES = (
    "propose",
    "propose_indexing",
    "batch_propose",
    "batch_propose_indexing",
    "batch_propose_concurrent",
    "get",
    "list_first_page",
    "list_deep_page",
    "round_trip",
)
FLOOR_FIGURES = (
    "insert_one",
    "insert_one_indexing",
    "insert_batch",
    "insert_batch_indexing",
    "insert_batch_concurrent",
    "get",
    "list_first_page",
    "list_deep_page",
    "round_trip",
)
RATIOS = (
    "propose_p50",
    "propose_p99",
    "propose_indexing_p50",
    "propose_indexing_p99",
    "batch_propose",
    "batch_propose_indexing",
    "batch_propose_concurrent",
    "get_p50",
    "get_p99",
    "list_first_page_p50",
    "list_first_page_p99",
    "list_deep_page_p50",
    "list_deep_page_p99",
    "round_trip_p50",
    "round_trip_p99",
)
TOY = [
    "--samples",
    "20",
    "--neighbor-memories",
    "30",
    "--idle-batches",
    "1",
    "--clients",
    "2",
    "--concurrent-batches",
    "2",
    "--quiet",
]


def _check_figure(figure: dict[str, Any], samples: int) -> None:
    if "items_per_second" in figure:
        assert figure["items"] > 0
        assert figure["items_per_second"] > 0
        figure = figure["batch"]
    else:
        assert figure["samples"] == samples
    for key in LATENCIES:
        assert figure[key] >= 0, key
    assert figure["min_ms"] <= figure["p50_ms"] <= figure["p99_ms"] <= figure["max_ms"]


def _check_report(out: Path, sizes: list[int]) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(out.read_text())
    assert report["benchmark"] == "lifecycle"
    assert report["machine"]["cpu_count"] >= 1
    assert report["machine"]["postgres"]["server_version"]
    assert [lv["memories"] for lv in report["levels"]] == sizes
    for level in report["levels"]:
        assert level["index_caught_up"] is True
        # The untimed Recall after settling ran against the server's search index.
        assert level["first_recall_seconds"] > 0
        assert set(level["engram"]) == set(ENGRAM_FIGURES)
        assert set(level["floor"]) == set(FLOOR_FIGURES)
        for figure in (*level["engram"].values(), *level["floor"].values()):
            _check_figure(figure, samples=20)
        assert set(level["ratio_to_floor"]) == set(RATIOS)
        assert all(r > 0 for r in level["ratio_to_floor"].values())
    assert [g["goal"] for g in report["goals"]] == [
        "ProposeMemory p50",
        "ProposeMemory p50 vs floor",
        "BatchProposeMemories throughput",
        "BatchProposeMemories throughput, concurrent clients",
        "GetMemory p50",
    ]
    assert all(isinstance(g["met"], bool) for g in report["goals"])
    markdown = out.with_suffix(".md").read_text()
    assert f"| ProposeMemory p50 | {sizes[0]} |" in markdown
    assert "| GetMemory p50 | <= 1.5 ms |" in markdown
    assert f"| Bare round trip (gRPC health check / SELECT 1) p50 | {sizes[0]} |" in markdown
    assert "s for the first Recall" in markdown
    return report


def test_bench_starts_its_own_server(
    pg_server_url: str, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results" / "lifecycle.json"
    argv = [
        "lifecycle",
        *TOY,
        "--sizes",
        "200,600",
        "--tenants",
        "2",
        "--database-url",
        pg_server_url,
        "--redis-url",
        redis_url,
        "--out",
        str(out),
    ]
    # asyncio.run in a worker thread: this thread's event loop belongs to pytest.
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(main, argv).result() == 0
    report = _check_report(out, [200, 600])
    assert "child process" in report["method"]["server"]
    assert "| ListMemories, deep page p99 |" in capsys.readouterr().out


async def test_bench_against_a_running_server(
    server: RunningServer, platform_key: str, pg_server_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "lifecycle.json"
    argv = [
        "lifecycle",
        *TOY,
        "--sizes",
        "100",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--database-url",
        pg_server_url,
        "--out",
        str(out),
    ]
    assert await asyncio.to_thread(main, argv) == 0
    report = _check_report(out, [100])
    assert server.address in report["method"]["server"]


def test_bench_refuses_bad_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["lifecycle", "--sizes", "300,200"])
    assert exit_info.value.code == 2
    assert "ascending" in capsys.readouterr().err


def test_bench_refuses_sizes_closer_than_a_level_writes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 20 samples + 5 warm-up, twice, plus one idle batch and two concurrent ones of
    # 100: 350 memories.
    with pytest.raises(SystemExit) as exit_info:
        main(["lifecycle", *TOY, "--sizes", "200,550"])
    assert exit_info.value.code == 2
    assert "too close" in capsys.readouterr().err


async def test_pool_bench_against_a_running_server(
    server: RunningServer, platform_key: str, pg_server_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "pool.json"
    argv = [
        "pool",
        "--slots", "10",
        "--rounds", "2",
        "--churn", "0.2",
        "--sync-every", "0",
        "--deliveries", "5",
        "--recall-size", "40",
        "--questions", "3",
        "--address", server.address,
        "--api-key", platform_key,
        "--database-url", pg_server_url,
        "--out", str(out),
    ]  # fmt: skip
    assert await asyncio.to_thread(main, argv) == 0
    report = json.loads(out.read_text())
    assert 0 < report["sync"]["ratio"] < 1
    assert report["sync"]["delta_messages"] == 4  # two slots rewritten per round
    uniform, skewed = report["sync_workloads"]
    assert (uniform["workload"], skewed["workload"]) == ("uniform", "skewed")
    # Skewed writes may hit one slot twice in a round: it then syncs once.
    assert skewed["delta_messages"] == round(skewed["distinct_slots_per_round"] * 2)
    assert skewed["delta_messages"] <= 4
    assert report["delivery"]["received"] == 5
    assert report["recall"]["plain"]["samples"] == 3
    assert out.with_suffix(".md").read_text().startswith("# Engram pool benchmark")
