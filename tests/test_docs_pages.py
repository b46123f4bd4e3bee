"""Every docs page with ```python examples has a test that runs them
(tests/test_docs_<page>.py), so no example is an untested fragment."""

from __future__ import annotations

from pathlib import Path

from tests.docs_examples import DOCS, python_blocks

TESTS = Path(__file__).resolve().parent


def test_every_page_with_python_examples_has_a_test_that_runs_them() -> None:
    untested = []
    for page in sorted(DOCS.glob("*.md")):
        if not python_blocks(page.name):
            continue
        test = TESTS / f"test_docs_{page.stem.replace('-', '_')}.py"
        if not test.exists() or f'"{page.name}"' not in test.read_text():
            untested.append(page.name)
    assert untested == []
