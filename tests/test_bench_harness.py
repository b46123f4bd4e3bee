"""What every `engram bench` shares (`bench/harness.py`): the same server options and
refusals, the same --sizes rules, and the environment of a server it starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_server.bench import harness, main

# Every benchmark that measures one server, running or started by the bench.
SERVER_BENCHES = {
    "lifecycle": [],
    "recall": [],
    "pool": [],
    "decisions": [],
    "decisions-corpus": ["some/repo"],
    "working-memory": [],
    "evidence": [],
}
SIZED_BENCHES = ("lifecycle", "recall", "working-memory", "evidence")


@pytest.mark.parametrize("bench", sorted(SERVER_BENCHES))
def test_every_bench_needs_a_key_for_a_running_server(
    bench: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("ENGRAM_API_KEY", raising=False)
    argv = [bench, *SERVER_BENCHES[bench], "--address", "127.0.0.1:1"]
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--out", str(tmp_path / "x.json"), "--quiet"])
    assert exit_info.value.code == 2
    assert "--address needs --api-key" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("bench", SIZED_BENCHES)
def test_every_sized_bench_refuses_sizes_out_of_order(
    bench: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([bench, "--sizes", "300,200"])
    assert exit_info.value.code == 2
    assert "--sizes: sizes must be positive and strictly ascending" in capsys.readouterr().err


def test_sizes_accept_underscores_and_refuse_words() -> None:
    assert harness.sizes("10_000, 100000") == (10_000, 100_000)
    with pytest.raises(Exception, match="not a list of sizes"):
        harness.sizes("ten")
    with pytest.raises(Exception, match="positive"):
        harness.sizes("0,10")


def test_a_started_server_keeps_only_the_callers_settings_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ENGRAM_DATABASE_URL", "postgresql://callers-own/db")
    monkeypatch.setenv("ENGRAM_API_KEY", "callers-key")
    monkeypatch.setenv("ENGRAM_CONFIG", str(tmp_path / "engram.toml"))
    env = harness.server_env(
        "postgresql://scratch/db",
        "redis://r/0",
        "token",
        "127.0.0.1:5",
        tmp_path / "data",
        ENGRAM_LOG_LEVEL="INFO",
        ENGRAM_VECTOR_BACKEND="qdrant",
    )
    assert env["ENGRAM_DATABASE_URL"] == "postgresql://scratch/db"
    assert "ENGRAM_API_KEY" not in env
    assert env["ENGRAM_CONFIG"] == str(tmp_path / "engram.toml")
    assert env["ENGRAM_LOG_LEVEL"] == "INFO"  # what a bench adds wins
    assert env["ENGRAM_VECTOR_BACKEND"] == "qdrant"
    assert env["ENGRAM_BOOTSTRAP_TOKEN"] == "token"
    assert env["ENGRAM_DATA_DIR"] == str(tmp_path / "data")
