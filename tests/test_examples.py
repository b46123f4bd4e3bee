"""examples/: one complete program per language, each run by CI.

The Python example runs here, twice (every run uses a space and a pool of its own,
so it runs again and again), against a real server. The TypeScript, Go and Java
examples run in `scripts/test-clients` against its live server; this checks that
the script runs each of them.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
LANGUAGES = ("python", "typescript", "go", "java")
CONTENT = r"The staging cluster restarts every night at 02:00\."
EXPECTED = [
    r"proposed: ACCEPTED memories/\S+",
    r"recalled: \d+\.\d\d " + CONTENT,
    r"published: PUBLISHED to pools/examples-python-[0-9a-f]{8}",
    r"through pools/examples-python-[0-9a-f]{8}: " + CONTENT,
    r"watched: PROPOSED memories/\S+",
    r"watched: ACTIVE memories/\S+",
]


def test_every_language_has_an_example_that_test_clients_runs() -> None:
    script = (ROOT / "scripts" / "test-clients").read_text()
    for language in LANGUAGES:
        assert (EXAMPLES / language).is_dir(), language
    assert "examples/python/main.py" in script
    assert '"$root/examples/go"' in script and "go run ." in script
    assert '"$root/examples/java"' in script and "exec:java" in script
    assert '"$root/examples/typescript"' in script and "npm start" in script


def _run_example(address: str, key: str) -> list[str]:
    env = {**os.environ, "ENGRAM_ADDRESS": address, "ENGRAM_API_KEY": key}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "python" / "main.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


async def test_the_python_example_runs_to_its_end_and_again(make_tenant: Any) -> None:
    t = await make_tenant()
    for _ in range(2):
        lines = await asyncio.to_thread(_run_example, t.address, t.secret)
        assert len(lines) == len(EXPECTED), lines
        for line, pattern in zip(lines, EXPECTED, strict=True):
            assert re.fullmatch(pattern, line), (line, pattern)
