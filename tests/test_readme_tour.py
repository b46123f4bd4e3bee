"""The README's Python tour, run as written against a real server."""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from engram_server.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _tour_code() -> str:
    text = README.read_text()
    start = text.index("From Python:")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None
    return block.group(1)  # as written: its watch loop ends by itself


def _tour_commands() -> list[list[str]]:
    """The tour's `engram` commands before the Python block, as argv lists: the
    `export` line and the background `watch &` left out (the test sets the
    environment, and a watch started at the live end prints nothing here)."""
    text = README.read_text()
    start = text.index("## A five-minute tour")
    block = re.search(r"```bash\n(.*?)```", text[start:], re.S)
    assert block is not None
    commands = []
    for line in block.group(1).replace("\\\n", " ").splitlines():
        argv = shlex.split(line, comments=True)
        if not argv or argv[0] == "export" or argv[-1] == "&":
            continue
        assert argv[0] == ".venv/bin/engram", line
        commands.append(argv[1:])
    assert commands and commands[0][:2] == ["memory", "propose"]
    return commands


# A watch line: "<cursor> <status>" and the memory's name, when the entry has one.
WATCH_LINE = re.compile(r"\d+ [A-Z_]+( memories/\S+)?")


def _expected_watch_lines() -> list[str]:
    """The README's block of what the watch loop prints, without the comments."""
    text = README.read_text()
    start = text.index("the loop replays")
    block = re.search(r"```text\n(.*?)```", text[start:], re.S)
    assert block is not None
    return [line.split("#")[0].rstrip() for line in block.group(1).splitlines()]


def _watch_lines(printed: str) -> list[str]:
    """What the tour's watch loop printed, memory ids shortened as the README does."""
    return [
        re.sub(r"memories/\S+", "memories/…", line.rstrip())
        for line in printed.splitlines()
        if WATCH_LINE.fullmatch(line.rstrip())
    ]


async def test_readme_python_tour_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    t = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", t.address)
    monkeypatch.setenv("ENGRAM_API_KEY", t.secret)
    # The commands before it, as a reader runs them first.
    for argv in _tour_commands():
        assert await asyncio.to_thread(main, argv) == 0, argv
    # The sync client blocks, so the tour runs in a thread beside the server's loop.
    # Twice, in the same space: a reader may run the block again.
    first_run: list[str] = []
    for run in (1, 2):
        namespace = await asyncio.to_thread(_run_tour)
        watched = _watch_lines(namespace["printed"])
        if run == 1:
            # Exactly what the README shows (a new tenant's log starts at 1).
            assert watched == _expected_watch_lines()
            first_run = watched
        else:
            # The replay, then this run's own five: 11 to 15.
            assert watched[: len(first_run)] == first_run
            assert [line.split()[0] for line in watched[len(first_run) :]] == [
                str(n) for n in range(11, 16)
            ]
        memory, pending = namespace["checks"]
        assert memory.status == "RETRACTED"
        assert memory.content == "Deploys happen on Tuesdays"
        assert pending.status == "ACTIVE"
        assert namespace["pending"].outcome == ("PENDING_CONFIRMATION" if run == 1 else "DUPLICATE")
        # The recall step found the revised memory (it was still ACTIVE then).
        recalled = [hit.memory.content for hit in namespace["turn"].hits]
        assert "Deploys happen on Tuesdays" in recalled
        assert "Deploys happen on Tuesdays" in namespace["turn"].context
        # The watch loop stopped at this run's retraction, as the README shows.
        assert namespace["event"].entry.memory == memory.name
        assert namespace["event"].entry.to_status == "RETRACTED"


def _run_tour() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(_tour_code(), str(README), "exec"), namespace)
    namespace["printed"] = printed.getvalue()
    client = namespace["client"]
    namespace["checks"] = (
        client.get(namespace["result"].memory.name),
        client.get(namespace["pending"].memory.name),
    )
    return namespace
