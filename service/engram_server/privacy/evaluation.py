"""Precision and recall of the privacy boundary on a labelled corpus.

A corpus row is `{"text": ..., "expect": [{"category", "type"}, ...], "note": ...}`;
an empty `expect` marks a look-alike that must pass untouched. Scoring is per
category at the row level (did the boundary act on a row that needed it, and
only on those) and per expected type (was that exact type named).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram_server.privacy.boundary import PrivacyBoundary, default_boundary
from engram_server.privacy.model import CREDENTIAL, PERSONAL_DATA


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


@dataclass
class Report:
    rows: int = 0
    positives: int = 0
    negatives: int = 0
    categories: dict[str, Score] = field(default_factory=dict)
    types: dict[str, Score] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)  # notes of wrong rows, never texts


def load_corpus(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def evaluate(rows: Iterable[dict[str, Any]], boundary: PrivacyBoundary | None = None) -> Report:
    b = boundary or default_boundary()
    report = Report(categories={CREDENTIAL: Score(), PERSONAL_DATA: Score()})
    for i, row in enumerate(rows):
        report.rows += 1
        expected = row["expect"]
        if expected:
            report.positives += 1
        else:
            report.negatives += 1
        found = b.screen(row["text"], "text").findings
        found_cats = {f.category for f in found}
        found_types = {f.type for f in found}
        wrong = False
        for cat, score in report.categories.items():
            want = any(e["category"] == cat for e in expected)
            got = cat in found_cats
            if want and got:
                score.tp += 1
            elif want:
                score.fn += 1
                wrong = True
            elif got:
                score.fp += 1
                wrong = True
            else:
                score.tn += 1
        for e in expected:
            s = report.types.setdefault(e["type"], Score())
            if e["type"] in found_types:
                s.tp += 1
            else:
                s.fn += 1
                wrong = True
        if wrong:
            label = row.get("note") or ",".join(e["type"] for e in expected) or "negative"
            report.misses.append(f"row {i}: {label} -> {sorted(found_types) or 'nothing'}")
    return report


def median_clean_screen_us(text: str, repeats: int = 2000) -> float:
    """Median cost in microseconds of screening one clean text."""
    b = default_boundary()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter_ns()
        b.screen(text, "proposal.content")
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return samples[len(samples) // 2] / 1000.0


def render_markdown(report: Report) -> str:
    lines = [
        f"Corpus: {report.rows} rows — {report.positives} positives,"
        f" {report.negatives} look-alike negatives.",
        "",
        "| category | precision | recall | TP | FP | FN | TN |",
        "|---|---|---|---|---|---|---|",
    ]
    for cat, s in report.categories.items():
        lines.append(
            f"| {cat} | {s.precision:.3f} | {s.recall:.3f} | {s.tp} | {s.fp} | {s.fn} | {s.tn} |"
        )
    lines += ["", "| type | rows | recall of the exact type |", "|---|---|---|"]
    for type_, s in sorted(report.types.items()):
        lines.append(f"| {type_} | {s.tp + s.fn} | {s.recall:.3f} |")
    if report.misses:
        lines += ["", "Rows scored wrong:", ""]
        lines += [f"- {m}" for m in report.misses]
    return "\n".join(lines) + "\n"


# Typical clean proposals (~200 bytes each) for the cost measurement.
TYPICAL_PROPOSALS = (
    "Alice prefers Go for backend services and wants every new service to ship with"
    " OpenTelemetry tracing enabled; she reviews the team's pull requests on Tuesdays and"
    " Thursdays before the weekly sync call.",
    "Decision: the billing service stays on PostgreSQL 16 with logical replication to the"
    " analytics cluster; the key tables are partitioned by month and archived to cold storage"
    " after 90 days.",
    "The deploy pipeline runs integration tests against a real Redis 7.2 instance; flaky tests"
    " are quarantined by tagging them and a follow-up ticket is opened in the platform backlog"
    " within a day.",
    "Bob is the owner of the payments API. He asked that breaking changes be announced two"
    " sprints ahead in the #payments channel and documented at"
    " https://docs.internal/payments/changelog.",
)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def scan_clean_dataset(path: Path) -> tuple[int, int]:
    """(strings screened, strings with any finding) over a JSONL file that holds no
    secrets or personal data: every finding there is a false positive."""
    b = default_boundary()
    total = flagged = 0
    for row in load_corpus(path):
        for text in _strings(row):
            total += 1
            flagged += bool(b.screen_sentences(text, "text").findings)
    return total, flagged


def main() -> None:
    """Scores tests/data/privacy_corpus.jsonl and writes eval/results/privacy.md."""
    import statistics
    import sys

    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()
    report = evaluate(load_corpus(root / "tests" / "data" / "privacy_corpus.jsonl"))
    costs = [median_clean_screen_us(t) for t in TYPICAL_PROPOSALS]
    text = (
        "# Privacy boundary: precision and recall\n\n"
        "Measured by `python -m engram_server.privacy.evaluation` on"
        " `tests/data/privacy_corpus.jsonl` (asserted by `tests/test_privacy.py`). The corpus"
        " was written alongside the detectors: it is a regression set, not an independent"
        " benchmark.\n\n" + render_markdown(report) + "\n## Cost on the Propose path\n\n"
        f"Median time to screen one clean proposal of about 200 bytes: "
        f"{statistics.median(costs):.1f} µs (per text: "
        + ", ".join(f"{c:.1f}" for c in costs)
        + " µs; single core, CPython 3.11, machine shared with other work).\n"
    )
    conversations = root / "eval" / "datasets" / "conversations.jsonl"
    if conversations.exists():
        total, flagged = scan_clean_dataset(conversations)
        text += (
            "\n## False positives on ordinary conversation\n\n"
            f"Every string of `eval/datasets/conversations.jsonl` (chat turns, names,"
            f" times, ids) screened in sentence mode: {flagged} of {total} had a finding.\n"
        )
    text += (
        "\n## Known misses\n\n"
        "A batch of 23 strings written after the detectors (not tuned on) had 8 misses;"
        " 6 were fixed and those strings are now in the corpus. Still not detected, by choice"
        " (the same shapes are common in prose):\n\n"
        "- a password given as a plain word or without an assignment"
        " (`password: letmein`, `use passwd Ab12Cd34 for the kiosk`);\n"
        "- short PINs and codes (`my pin is 4821`);\n"
        "- credentials with no recognisable prefix or keyword (a bare UUID-shaped API key);\n"
        "- phone numbers without a country code outside North American and leading-0"
        " national formats.\n"
    )
    out = root / "eval" / "results" / "privacy.md"
    out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
