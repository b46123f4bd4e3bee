"""scripts/gen-protos on a Python without the generators changes nothing.

It used to delete the committed Python stubs first and then fail on the missing
grpcio-tools, in a checkout set up by scripts/dev (whose .venv has the embedded
extras, not the dev ones), leaving the SDK without its stubs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_gen_protos_without_the_generators_keeps_the_stubs_and_says_what_to_install(
    tmp_path: Path,
) -> None:
    # A copy of the script in a tree of its own, with one committed stub.
    (tmp_path / "scripts").mkdir()
    shutil.copy2(ROOT / "scripts" / "gen-protos", tmp_path / "scripts" / "gen-protos")
    stubs = tmp_path / "clients" / "python" / "engram" / "v1"
    stubs.mkdir(parents=True)
    (stubs / "lifecycle_pb2.py").write_text("# committed\n")
    # A Python without grpcio-tools: a bare virtual environment.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", tmp_path / "bare"], check=True)
    done = subprocess.run(
        [tmp_path / "scripts" / "gen-protos"],
        env={**os.environ, "PYTHON": str(tmp_path / "bare" / "bin" / "python")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert "scripts/ensure-venv dev" in done.stderr and "nothing was changed" in done.stderr
    assert (stubs / "lifecycle_pb2.py").read_text() == "# committed\n"
    assert not (tmp_path / "tools").exists()
