"""The client documents show their tours exactly as the client suites run them.

Each `docs/clients-*.md` marks its tour with `<!-- tour: PATH -->` before a fenced
block; the block must equal the region between `tour:start` and `tour:end` in
PATH (dedented), which the TypeScript, Go or Java suite executes
(scripts/test-clients). So a documented example cannot drift from running code.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("clients-*.md"))
MARKED = re.compile(r"<!-- tour: (?P<path>\S+) -->\n```\w*\n(?P<code>.*?)```", re.S)


def region(path: Path) -> str:
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().endswith("tour:start"))
    end = next(i for i, line in enumerate(lines) if line.strip().endswith("tour:end"))
    return textwrap.dedent("\n".join(lines[start + 1 : end])) + "\n"


def test_every_client_has_a_document() -> None:
    assert {d.name for d in DOCS} >= {
        "clients-typescript.md",
        "clients-go.md",
        "clients-java.md",
    }


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_the_tour_is_the_tested_code(doc: Path) -> None:
    tours = list(MARKED.finditer(doc.read_text()))
    assert tours, f"{doc.name} has no <!-- tour: ... --> block"
    for tour in tours:
        assert tour["code"] == region(ROOT / tour["path"]), f"{doc.name}: {tour['path']}"
