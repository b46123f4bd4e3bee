"""The README's "Shared memory across teams" walkthrough, both blocks run as written
against a real server: the CLI block, then the Python one."""

from __future__ import annotations

import asyncio
import re
import shlex
from pathlib import Path
from typing import Any

import engram
import pytest
from engram_server.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def _section() -> str:
    text = README.read_text()
    start = text.index("## Shared memory across teams")
    return text[start : text.index("\n## ", start + 1)]


def _cli_lines() -> list[list[str]]:
    block = re.search(r"```bash\n(.*?)```", _section(), re.S)
    assert block is not None
    lines = [shlex.split(line) for line in block.group(1).splitlines() if line.strip()]
    assert all(argv[0] == ".venv/bin/engram" for argv in lines)
    return [argv[1:] for argv in lines]


def _python(tenant_id: str) -> str:
    block = re.search(r"```python\n(.*?)```", _section(), re.S)
    assert block is not None
    code = block.group(1)
    assert 'TENANT = "dev"' in code  # the dev server's tenant; here, the test's
    return code.replace('TENANT = "dev"', f"TENANT = {tenant_id!r}")


def _run_python(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace


async def test_readme_pool_walkthrough_runs(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", t.address)
    monkeypatch.setenv("ENGRAM_API_KEY", t.secret)
    for argv in _cli_lines():
        assert await asyncio.to_thread(main, argv) == 0, argv
    namespace = await asyncio.to_thread(_run_python, _python(t.tenant_id))
    note = namespace["note"]
    # The other team read Ana's memory through the pool, weighted by her trust.
    hits = namespace["answer"].hits
    assert [(h.pool, h.memory.name) for h in hits] == [("pools/ops", note.name)]
    assert 0 < hits[0].breakdown.trust <= 1
    # The retraction in her own space withdrew it from the pool, and counted.
    assert namespace["withdrawn"].state == engram.PublicationState.WITHDRAWN
    # (The sync client blocks: away from the loop the server runs on.)
    listed = await asyncio.to_thread(lambda: list(namespace["admin"].pools.trusts("ops")))
    trusts = {x.principal: x for x in listed}
    assert trusts["blue/ana"].quickly_invalidated_count == 1
    assert trusts["blue/ana"].score < 0.5
    for client in ("admin", "ana", "li"):
        namespace[client].close()
