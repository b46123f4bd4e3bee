"""Checks what an example program printed against examples/README.md.

    go run . | .venv/bin/python clients/testing/example_output.py go

passes the program's output through to stdout and exits 1, saying which line
differs, when it does not match the README's block for that language: the first
`text` block for Python and TypeScript (enum values by name), the second for Go
and Java (by their full proto name). In a block, `…` stands for a memory id, the
score may be any number with two decimals, and the pool's suffix any 8 hex digits.
Terminal colour codes (Maven writes some even in batch mode) are not compared.
scripts/test-clients pipes every example through it; tests/test_examples.py uses
it for the Python example.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "examples" / "README.md"
ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
BLOCK_OF = {"python": 0, "typescript": 0, "go": 1, "java": 1}


def expected_lines(language: str) -> list[str]:
    """The README's block for `language`, as written."""
    blocks = re.findall(r"```text\n(.*?)```", README.read_text(), re.S)
    return blocks[BLOCK_OF[language]].splitlines()


def pattern(line: str, language: str) -> re.Pattern[str]:
    """A README line as a pattern for one run of `language`'s example."""
    text = re.escape(line)
    text = text.replace(re.escape("memories/…"), r"memories/\S+")
    text = re.sub(r"examples\\-[a-z]+\\-[0-9a-f]{8}", rf"examples-{language}-[0-9a-f]{{8}}", text)
    text = re.sub(r"^recalled:\\ \d+\\\.\d+", r"recalled:\\ \\d+\\.\\d\\d", text)
    return re.compile(text)


def mismatch(printed: list[str], language: str) -> str | None:
    """Why `printed` is not what the README shows for `language`, or None."""
    expected = expected_lines(language)
    if len(printed) != len(expected):
        return f"{len(printed)} lines printed, the README shows {len(expected)}"
    for got, want in zip(printed, expected, strict=True):
        if not pattern(want, language).fullmatch(got):
            return f"printed {got!r} where the README shows {want!r}"
    return None


def main(language: str) -> int:
    printed = sys.stdin.read()
    sys.stdout.write(printed)
    why = mismatch(ANSI_CODE.sub("", printed).splitlines(), language)
    if why is not None:
        print(
            f"example_output: the {language} example's output is not examples/README.md's: {why}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
