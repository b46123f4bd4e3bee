"""The README's Decisions walkthrough, run as written on a clone of this repository.

The commands are read from the README's bash block; each `engram` line runs
in-process against the test server, from the root of a fresh clone (the git
line runs as a shell command there).
"""

from __future__ import annotations

import asyncio
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import run

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def walkthrough() -> list[str]:
    """The commands of the README's Decisions block, continuation lines joined."""
    text = README.read_text()
    start = text.index("## Why is this code like this?")
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block is not None
    joined = block.group(1).replace("\\\n", " ")
    return [line.split("  #")[0].strip() for line in joined.splitlines() if line.strip()]


def fresh_clone(tmp_path: Path) -> Path:
    """A clone of this repository's committed history (what a reader starts from)."""
    clone = tmp_path / "engram"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
        check=True,
        capture_output=True,
    )
    return clone


def is_shallow(clone: Path) -> bool:
    done = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--is-shallow-repository"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip() == "true"


def guard(command: str, clone: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["bash", "-c", command], cwd=clone, check=False)


async def test_readme_decisions_walkthrough_runs(
    server: Any,
    make_tenant: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commands = walkthrough()
    assert [c.split()[:3] for c in commands[1:]] == [
        [".venv/bin/engram", "decisions", "ingest"],
        [".venv/bin/engram", "decisions", "explain"],
        [".venv/bin/engram", "decisions", "search"],
    ]
    tenant = await make_tenant()
    clone = await asyncio.to_thread(fresh_clone, tmp_path)
    monkeypatch.chdir(clone)
    monkeypatch.setenv("ENGRAM_ADDRESS", server.address)
    monkeypatch.setenv("ENGRAM_API_KEY", tenant.secret)
    full_history = not await asyncio.to_thread(is_shallow, clone)
    if full_history:
        # The guard line: a no-op on a full clone.
        done = await asyncio.to_thread(guard, commands[0], clone)
        assert done.returncode == 0

    outputs = []
    for command in commands[1:]:
        argv = shlex.split(command)[1:]
        code, out, err = await run(capsys, *argv)
        assert code == 0, f"{command}: {err}"
        outputs.append(out)
        if argv[1] == "ingest":
            # Running it again changes nothing.
            code, again, err = await run(capsys, *argv)
            assert code == 0, err
            assert "0 decisions created, 0 updated" in again
            assert server.ctx.recall is not None
            await server.ctx.recall.worker.wait_until_indexed(tenant.tenant_id, 120)
    ingested, explained, searched = outputs
    assert re.search(r"engram: \d+ commits read", ingested)
    assert "## Why service/engram_server/lifecycle/model.py is like this" in explained
    if full_history:
        # The decisions anchored on new_memory_id come first; search finds the commit
        # that made memory ids time-ordered, with its reason, and names it.
        first = explained.split("\n### ")[1:3]
        assert any("(new_memory_id)" in section for section in first)
        assert "Review mend: the id layout's masks stand before the function" in explained
        assert re.search(
            r"Time-ordered memory ids \(UUID v7\).*\[77b04660d386\].*\n\s+why: .*right-hand pages",
            searched,
        )
