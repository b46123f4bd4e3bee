"""docs/decisions.md's Python example runs as written. Its `ingest_repository(".")`
reads the current directory's git history: here a small repository of two commits,
not the project's own history."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

import engram
import pytest

from tests.docs_examples import run_page


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ana",
        "GIT_AUTHOR_EMAIL": "ana@example.com",
        "GIT_COMMITTER_NAME": "Ana",
        "GIT_COMMITTER_EMAIL": "ana@example.com",
    }
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def _small_repository(repo: Path) -> None:
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "cache.py").write_text("SIZE = 100\n")
    _git(repo, "add", "cache.py")
    _git(repo, "commit", "-q", "-m", "Add a response cache")
    (repo / "cache.py").write_text("SIZE = 100\nTTL = 60\n")
    _git(
        repo,
        "commit",
        "-q",
        "-am",
        "Expire cached responses after a minute\n\nBecause prices change during the day.",
    )


async def test_the_decisions_page_runs(
    make_tenant: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tenant = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", tenant.address)
    monkeypatch.setenv("ENGRAM_API_KEY", tenant.secret)
    _small_repository(tmp_path / "shop")
    monkeypatch.chdir(tmp_path / "shop")
    namespace = await asyncio.to_thread(run_page, "decisions.md")
    shown = capsys.readouterr().out.splitlines()
    mined = namespace["mined"]
    assert (mined.processed_commits, mined.skipped_commits) == (2, 0)
    assert shown[0] == f"2 {mined.created_decisions} 0" and mined.created_decisions >= 1
    why = namespace["why"]
    assert why.context.startswith("## Why svc/rerank.py is like this")
    assert shown[-2:] == [
        "LINES Run reranking on one worker",
        "['Move backups to 02:00']",
    ]
    top = next(iter(why))
    assert top.match is engram.AnchorMatch.LINES
    assert [m.title for m in namespace["missed"]] == ["Move backups to 02:00"]
