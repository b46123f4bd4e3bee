"""`engram bench recall` end to end at toy sizes: the harness runs and the report has
every figure. Performance itself is never asserted here (see bench/results/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engram_server.bench import corpus, main
from engram_server.bench.recall import distinct_questions, questions_per_size

TOY = [
    "recall",
    "--sizes",
    "60,150",
    "--neighbours",
    "2",
    "--neighbor-memories",
    "20",
    "--queries",
    "8",
    "--warmup",
    "2",
    "--batch-size",
    "50",
    "--quiet",
]


def test_corpus_is_reproducible_and_distinct() -> None:
    first = corpus.memories("s", 500)
    assert first == corpus.memories("s", 500)
    assert len(set(first)) == 500
    assert first != corpus.memories("t", 500)
    assert corpus.queries("q", 30) == corpus.queries("q", 30)


def test_bench_questions_are_distinct() -> None:
    # A repeated question would be answered from the server's query-vector cache
    # and would not measure the query embedding.
    questions = distinct_questions("7-q", 320)
    assert len(questions) == len(set(questions)) == 320
    assert questions == distinct_questions("7-q", 320)
    assert len(set(corpus.queries("7-q", 320))) < 320  # what the plain draw gives


def test_bench_recall_toy_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pg_server_url: str
) -> None:
    out = tmp_path / "recall.json"
    assert main([*TOY, "--database-url", pg_server_url, "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["benchmark"] == "recall"
    assert report["machine"]["cpu_count"] >= 1
    assert report["server"]["embedding_model"]
    assert report["neighbour_indexing"]["memories"] == 40
    assert [lv["memories"] for lv in report["levels"]] == [60, 150]
    assert [lv["indexing"]["memories"] for lv in report["levels"]] == [60, 90]
    for level in report["levels"]:
        assert level["indexing"]["memories_per_second"] > 0
        assert level["first_recall_after_load_seconds"] >= 0
        for figure in (level["engram_recall"], level["bm25"]):
            assert figure["samples"] == 8
            assert 0 <= figure["min_ms"] <= figure["p50_ms"] <= figure["p99_ms"] <= figure["max_ms"]
        assert level["mean_hits"] > 0  # Recall answers from the measured tenant's memories
        assert set(level["ratio_engram_to_bm25"]) == {"p50", "p99"}
    assert [g["goal"] for g in report["goals"]] == [
        "Recall p50",
        "Recall p99",
        "Indexing throughput",
    ]
    markdown = out.with_suffix(".md").read_text()
    assert "| 150 |" in markdown
    assert "First Recall after each load" in markdown
    assert markdown in capsys.readouterr().out


def test_bench_recall_rejects_bad_options(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["recall", "--sizes", "100,50", "--out", str(tmp_path / "x.json")])
    with pytest.raises(SystemExit):
        main(["recall", "--address", "127.0.0.1:1", "--out", str(tmp_path / "x.json")])


def test_each_size_asks_questions_no_other_size_asked() -> None:
    sets = questions_per_size("seed-q", 120, 3)
    assert [len(s) for s in sets] == [120, 120, 120]
    asked = [q for s in sets for q in s]
    assert len(set(asked)) == len(asked)
    assert sets == questions_per_size("seed-q", 120, 3)  # reproducible


def test_bench_recall_times_depth_mode_beside_the_standard_recall(
    tmp_path: Path, pg_server_url: str
) -> None:
    out = tmp_path / "recall.json"
    assert main([*TOY, "--database-url", pg_server_url, "--depth", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["config"]["depth"] is True
    for level in report["levels"]:
        depth = level["depth_recall"]
        assert depth["samples"] == level["engram_recall"]["samples"] == 8
        assert 0 <= depth["min_ms"] <= depth["p50_ms"] <= depth["p99_ms"] <= depth["max_ms"]
        assert set(level["ratio_depth_to_standard"]) == {"p50", "p99"}
    assert "| 150, depth mode |" in out.with_suffix(".md").read_text()
