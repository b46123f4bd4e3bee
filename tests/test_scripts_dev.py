"""`scripts/dev` prints a few lines a person reads; the log goes to a file, and the
previous run's log is kept as dev.log.1."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from tests.deploy_helpers import ROOT, free_port, fresh_database

READY = "Stop with Ctrl-C"


def test_scripts_dev_prints_the_useful_block_and_logs_the_rest(
    tmp_path: Path, pg_server_url: str, redis_url: str
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    # An earlier run's log: this run keeps it as dev.log.1.
    (data_dir / "dev.log").write_text("the earlier run's log\n")
    with fresh_database(pg_server_url, "engram_dev_script") as database_url:
        env = {
            **os.environ,
            "ENGRAM_LISTEN": f"127.0.0.1:{free_port()}",
            "ENGRAM_DATA_DIR": str(data_dir),
            "ENGRAM_DATABASE_URL": database_url,
            "ENGRAM_REDIS_URL": redis_url,
        }
        dev = subprocess.Popen(
            [str(ROOT / "scripts" / "dev")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        shown: list[str] = []
        try:
            assert dev.stdout is not None
            deadline = time.monotonic() + 180
            while time.monotonic() < deadline:
                line = dev.stdout.readline()
                if not line:
                    break
                shown.append(line.rstrip("\n"))
                if READY in line:
                    break
        finally:
            os.killpg(dev.pid, signal.SIGINT)
            rest, _ = dev.communicate(timeout=60)
        shown += rest.splitlines()
    terminal = "\n".join(shown)
    assert any(READY in line for line in shown), terminal
    assert any(line.startswith("Engram is serving on 127.0.0.1:") for line in shown), terminal
    # A short block: no log lines, no migrations, no store start-up.
    assert len(shown) <= 30, terminal
    assert not [line for line in shown if " INFO " in line or " WARNING " in line], terminal
    log = (data_dir / "dev.log").read_text()
    assert "applied" in log or "migrat" in log, log[-2000:]
    assert "the earlier run's log" not in log
    assert (data_dir / "dev.log.1").read_text() == "the earlier run's log\n"
    assert any(
        f"log is in {data_dir / 'dev.log'}, the previous run's in {data_dir / 'dev.log.1'}" in line
        for line in shown
    ), terminal
