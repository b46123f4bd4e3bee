"""examples/: one complete program per language, each run by CI.

The Python example runs here, twice (every run uses a space and a pool of its own,
so it runs again and again), against a real server. The TypeScript, Go and Java
examples run in `scripts/test-clients` against its live server; this checks that
the script runs each of them.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
LANGUAGES = ("python", "typescript", "go", "java")


def _example_output() -> ModuleType:
    """clients/testing/example_output.py, which compares an example's output with
    examples/README.md (scripts/test-clients pipes every example through it)."""
    path = ROOT / "clients" / "testing" / "example_output.py"
    spec = importlib.util.spec_from_file_location("example_output", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example_output = _example_output()


def test_every_language_has_an_example_that_test_clients_runs() -> None:
    script = (ROOT / "scripts" / "test-clients").read_text()
    for language in LANGUAGES:
        assert (EXAMPLES / language).is_dir(), language
    assert "examples/python/main.py" in script
    assert '"$root/examples/go"' in script and "go run ." in script
    assert '"$root/examples/java"' in script and "exec:java" in script
    assert '"$root/examples/typescript"' in script and "npm start" in script
    for language in LANGUAGES:
        assert f"as_in_readme {language}" in script, language


def test_the_readme_shows_what_each_language_prints() -> None:
    # What the Python example prints (tested below) is the first block; Go and Java
    # print the same lines with each enum value by its full proto name.
    by_name = example_output.expected_lines("python")
    assert example_output.expected_lines("typescript") == by_name
    go = [
        line.replace("ACCEPTED", "PROPOSAL_OUTCOME_ACCEPTED")
        .replace("PUBLISHED to", "PUBLISH_OUTCOME_PUBLISHED to")
        .replace("watched: ", "watched: MEMORY_STATUS_")
        .replace("examples-python-", "examples-go-")
        for line in by_name
    ]
    assert example_output.expected_lines("go") == go
    # The check refuses the other block's spelling.
    printed = [line.replace("…", "01a24a2d-32cc").replace("-go-", "-java-") for line in go]
    assert example_output.mismatch(printed, "java") is None
    assert "PROPOSAL_OUTCOME_ACCEPTED" in (example_output.mismatch(printed, "python") or "")


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
        assert example_output.mismatch(lines, "python") is None, lines
