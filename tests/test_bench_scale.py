"""`engram bench scale`: its refusals, its CPU accounting, and (with a Qdrant server)
a small run end to end."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from engram_server.bench import build_parser
from engram_server.bench.scale import options_from, tree_cpu_seconds

from tests.test_replicas import need_qdrant, qdrant_grpc_port, qdrant_url


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["scale", *argv])


def test_scale_needs_a_qdrant_server_and_sane_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_QDRANT_URL", raising=False)
    with pytest.raises(ValueError, match="--qdrant-url"):
        options_from(_args())
    with pytest.raises(ValueError, match="--memories must be positive"):
        options_from(_args("--qdrant-url", "http://q:6333", "--memories", "0"))
    with pytest.raises(ValueError, match="--index-threads"):
        options_from(_args("--qdrant-url", "http://q:6333", "--index-threads", "-1"))
    options = options_from(_args("--qdrant-url", "http://q:6333", "--index-threads", "0,2"))
    assert options.index_threads == (0, 2)


def test_cpu_of_a_process_tree_counts_its_descendants() -> None:
    # A child that spends about half a second of CPU in a grandchild of its own.
    burn = "import time\nt=time.process_time()\nwhile time.process_time()-t<0.5: pass\n"
    code = (
        "import subprocess, sys, time\n"
        f"p = subprocess.Popen([sys.executable, '-c', {burn!r}])\n"
        "p.wait(); time.sleep(30)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 30
        while tree_cpu_seconds(child.pid) < 0.4:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        child.kill()
        child.wait()


def test_a_small_run_reports_both_ratios(
    pg_server_url: str, redis_url: str, tmp_path: Path
) -> None:
    need_qdrant()
    out = tmp_path / "scale.json"
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from engram_server.bench import main; sys.exit(main())",
         "scale", "--qdrant-url", qdrant_url(), "--qdrant-grpc-port", qdrant_grpc_port(),
         "--database-url", pg_server_url,
         "--redis-url", redis_url, "--memories", "300", "--seconds", "2", "--warmup", "1",
         "--rounds", "1", "--index-threads", "1", "--processes", "1", "--connections", "4",
         "--out", str(out), "--quiet"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["machine"]["cpu_count"] >= 1
    assert {r["workers"] for r in report["serving"]["runs"]} == {1, 2}
    for run in report["serving"]["runs"]:
        assert run["calls"] > 0 and not run["failed"], run
        assert set(run["by_call"]) == {"Engage", "AppendMessage", "ProposeMemory", "Recall",
                                       "GetMemory"}  # fmt: skip
    assert report["serving"]["ratio"] > 0
    assert [r["indexers"] for r in report["catch_up"]["runs"]] == [1, 2]
    assert all(r["queued"] == 300 for r in report["catch_up"]["runs"])
    assert report["catch_up"]["by_threads"]["1"]["ratio"] > 0
    assert "Two workers / one" in out.with_suffix(".md").read_text()
