"""`engram bench decisions` and `engram eval decisions` end to end at toy sizes.

Only the plumbing is checked (every figure present, ranks computed); performance
and quality figures live in bench/results/ and eval/results/.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

from engram_server.bench import main as bench_main
from engram_server.evaluation import main as eval_main

from tests.conftest import RunningServer
from tests.test_decisions import T0, commit_all, git, lines, new_repo


async def test_bench_decisions_at_toy_size(
    server: RunningServer, platform_key: str, pg_server_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "decisions.json"
    argv = [
        "decisions",
        "--commits",
        "60",
        "--files",
        "12",
        "--queries",
        "3",
        "--batch-size",
        "25",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--database-url",
        pg_server_url,
        "--out",
        str(out),
        "--quiet",
    ]
    assert await asyncio.to_thread(bench_main, argv) == 0
    report = json.loads(out.read_text())
    assert report["commits"] == 60 and report["decisions_created"] > 30
    assert report["ingest_commits_per_second"] > 0
    assert report["explain_code"]["samples"] == 3 == report["search_decisions"]["samples"]
    assert "ExplainCode p50" in out.with_suffix(".md").read_text()


async def test_eval_decisions_on_a_local_repository(
    server: RunningServer, platform_key: str, tmp_path: Path
) -> None:
    repo = new_repo(tmp_path / "tiny")
    (repo / "a.py").write_text(lines(10))
    commit_all(repo, "Add a", T0)
    (repo / "a.py").write_text(lines(10).replace("line 3\n", "retry = 3\n"))
    wanted = commit_all(
        repo,
        "Retry uploads three times\n\nThe storage API drops the first request after idling.",
        T0 + timedelta(hours=1),
    )
    head = git(repo, "rev-parse", "HEAD")
    data = tmp_path / "data"
    data.mkdir()
    (data / "repositories.json").write_text(
        json.dumps({"tiny": {"url": "", "commit": head, "language": "Python"}})
    )
    (data / "tiny.jsonl").write_text(
        json.dumps(
            {
                "id": "t-1",
                "category": "workaround",
                "question": "Why are uploads attempted several times?",
                "answers": [wanted],
            }
        )
        + "\n"
    )
    out = tmp_path / "result.json"
    argv = [
        "decisions",
        "--dataset-dir",
        str(data),
        "--repo",
        f"tiny={repo}",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--out",
        str(out),
        "--quiet",
    ]
    assert await asyncio.to_thread(eval_main, argv) == 0
    report = json.loads(out.read_text())
    tiny = report["repositories"]["tiny"]
    assert tiny["commits"] == 2 and tiny["answer_commits_mined"] == "1/1"
    assert set(tiny["ranks"]["t-1"]) == {"engram", "git-grep", "bm25"}
    assert tiny["ranks"]["t-1"]["engram"] == 1
