"""`engram eval evidence`: the corroboration assessor on a labelled corpus of claims.

Each case of `data/claims.jsonl` is a claim with its source and the other memories
that bear on it, each labelled agree / contradict / unrelated by hand, plus the
grade the assessor should suggest. The evaluation runs the assessor's judge on
every (claim, other) pair and its grading rules on every case, in-process (no
server: the judge and the rules are what is measured), and reports

- CORROBORATED: precision and recall of the suggested grade over the cases;
- contradiction and agreement: precision and recall of the pair verdicts;
- grade accuracy over all cases,

for the deterministic path and, against any OpenAI-compatible endpoint (or Anthropic),
the LLM path: with `--llm-url`, or the server's `ENGRAM_LLM_*` settings.

    engram eval evidence [--out eval/results/evidence.md]
        [--llm-url URL --llm-model M [--llm-api-key K] [--llm-provider openai]] [--no-llm]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram_server.evidence.judge import Judgement, judge
from engram_server.lifecycle.model import (
    EvidenceLevel,
    Kind,
    Memory,
    Origin,
    Status,
    content_hash,
)

DEFAULT_DATASET = Path(__file__).parent / "data" / "claims.jsonl"
DEFAULT_OUT = "eval/results/evidence.md"
Judge = Callable[[Memory, Sequence[Memory]], Awaitable[list[Judgement]]]


def _memory(d: dict[str, Any], default_agent: str) -> Memory:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Memory(
        id=uuid.uuid4(),
        space="eval",
        session="",
        thread="",
        kind=Kind.SEMANTIC,
        content=d["content"],
        structured_content=None,
        source=d.get("source", ""),
        agent=d.get("agent", default_agent),
        confidence=1.0,
        importance=0.5,
        evidence_level=EvidenceLevel(d.get("evidence", "UNSPECIFIED")),
        tags=(),
        slot_key=d.get("slot_key", ""),
        topic="",
        depends_on=(),
        status=Status.ACTIVE,
        create_time=now,
        update_time=now,
        expire_time=None,
        retract_time=None,
        retraction_reason="",
        content_hash=content_hash(d["content"]),
        revision=1,
        superseded_by=None,
        validation_notes=(),
        attributes={},
        origin=Origin(d.get("origin", "")),
    )


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, predicted: bool, expected: bool) -> None:
        if predicted and expected:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif expected:
            self.fn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


@dataclass
class Score:
    cases: int = 0
    pairs: int = 0
    correct_grades: int = 0
    corroborated: Counts = field(default_factory=Counts)
    contradiction: Counts = field(default_factory=Counts)
    agreement: Counts = field(default_factory=Counts)
    misses: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "pairs": self.pairs,
            "grade_accuracy": round(self.correct_grades / self.cases, 3) if self.cases else 0.0,
            "corroborated_precision": round(self.corroborated.precision, 3),
            "corroborated_recall": round(self.corroborated.recall, 3),
            "contradiction_precision": round(self.contradiction.precision, 3),
            "contradiction_recall": round(self.contradiction.recall, 3),
            "agreement_precision": round(self.agreement.precision, 3),
            "agreement_recall": round(self.agreement.recall, 3),
        }


def load(path: Path | str = DEFAULT_DATASET) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


async def _deterministic(claim: Memory, others: Sequence[Memory]) -> list[Judgement]:
    return [judge(claim, o) for o in others]


async def evaluate(cases: Sequence[dict[str, Any]], judge_pairs: Judge = _deterministic) -> Score:
    from engram_server.services.evidence import decide_grade, independent_sources

    score = Score()
    for case in cases:
        claim = _memory(case["claim"], "writer")
        others = [_memory(o, f"other-{i}") for i, o in enumerate(case["others"])]
        verdicts = await judge_pairs(claim, others)
        supporting, contradicting, why = [], [], []
        for other, label, verdict in zip(others, case["others"], verdicts, strict=True):
            score.pairs += 1
            score.contradiction.add(verdict.verdict == "contradict", label["label"] == "contradict")
            score.agreement.add(verdict.verdict == "agree", label["label"] == "agree")
            if verdict.verdict != label["label"]:
                score.misses.append(
                    f"{case['id']}: {label['label']} judged {verdict.verdict} ({other.content!r})"
                )
            if verdict.verdict == "agree":
                supporting.append(other)
            elif verdict.verdict == "contradict":
                contradicting.append(other)
                why.append(verdict.explanation)
        level, _ = decide_grade(
            claim,
            contradicting,
            why,
            independent_sources(claim, supporting),
            case.get("min_corroboration") or 2,
        )
        score.cases += 1
        expected = case["expected"]
        score.correct_grades += level.value == expected
        score.corroborated.add(
            level == EvidenceLevel.CORROBORATED, expected == EvidenceLevel.CORROBORATED.value
        )
    return score


def markdown(scores: dict[str, Score], cases: int, pairs: int, note: str) -> str:
    lines = [
        "# Evidence: the corroboration assessor on labelled claims",
        "",
        f"{cases} claims, {pairs} labelled (claim, memory) pairs"
        " (`service/engram_server/evidence/data/claims.jsonl`), measured by"
        " `engram eval evidence`.",
        "",
        "| path | CORROBORATED precision | CORROBORATED recall | contradiction precision"
        " | contradiction recall | agreement precision | agreement recall | grade accuracy |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, s in scores.items():
        d = s.as_dict()
        lines.append(
            f"| {name} | {d['corroborated_precision']:.3f} | {d['corroborated_recall']:.3f}"
            f" | {d['contradiction_precision']:.3f} | {d['contradiction_recall']:.3f}"
            f" | {d['agreement_precision']:.3f} | {d['agreement_recall']:.3f}"
            f" | {d['grade_accuracy']:.3f} |"
        )
    lines += [
        "",
        "`dev`: the cases the judge's thresholds were set against; `heldout`: cases written"
        " afterwards and never tuned on.",
        "",
    ]
    if note:
        lines += [note, ""]
    for name, s in scores.items():
        if s.misses:
            lines += [f"Pair verdicts missed by `{name}`:", ""]
            lines += [f"- {m}" for m in s.misses]
            lines.append("")
    return "\n".join(lines)


# The LLM path reads the server's own LLM settings by default, so an operator who
# configured the server's model measures that model without repeating it.
_LLM_ENV = {
    "llm_url": "ENGRAM_LLM_URL",
    "llm_model": "ENGRAM_LLM_MODEL",
    "llm_provider": "ENGRAM_LLM_PROVIDER",
    "llm_api_key": "ENGRAM_LLM_API_KEY",
}
NO_LLM_NOTE = (
    "The LLM path (`use_llm` on AssessMemory) has no figures here: no model is reachable"
    " from the machine these results were measured on. Measure it with"
    " `engram eval evidence --llm-url URL --llm-model NAME` (or the server's"
    " `ENGRAM_LLM_*` settings) against any OpenAI-compatible endpoint. Its plumbing"
    " (prompt, JSON validation, mapping of verdicts, this report's LLM rows) is tested"
    " against the repository's local test chat server, which says nothing about a real"
    " model's quality."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram eval evidence",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET), help="labelled claims")
    parser.add_argument("--out", help=f"write the markdown report here (e.g. {DEFAULT_OUT})")
    parser.add_argument(
        "--llm-url",
        help="OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (enables the LLM"
        " path; default $ENGRAM_LLM_URL)",
    )
    parser.add_argument("--llm-model", help="model name (default $ENGRAM_LLM_MODEL)")
    parser.add_argument(
        "--llm-provider", help="openai (default) or anthropic (default $ENGRAM_LLM_PROVIDER)"
    )
    parser.add_argument("--llm-api-key", help="API key (default $ENGRAM_LLM_API_KEY)")
    parser.add_argument(
        "--llm-timeout", type=float, default=60.0, help="seconds per model call (default 60)"
    )
    parser.add_argument(
        "--no-llm", action="store_true", help="deterministic path only, even with $ENGRAM_LLM_*"
    )
    parser.add_argument("--note", default="", help="a sentence appended to the report")
    return parser


def llm_config(args: argparse.Namespace, env: dict[str, str]) -> Any:
    """The model the LLM path asks: flags first, then the server's `ENGRAM_LLM_*`
    settings; None when neither names a model endpoint (or with `--no-llm`)."""
    from engram_server.llm import LLMConfig

    if args.no_llm:
        return None
    given = {k: getattr(args, k) or env.get(v, "") for k, v in _LLM_ENV.items()}
    if not given["llm_url"] and not given["llm_provider"]:
        return None
    return LLMConfig(
        given["llm_provider"] or "openai",
        given["llm_url"],
        given["llm_model"] or "model",
        given["llm_api_key"],
        timeout_seconds=args.llm_timeout,
    )


async def _llm_score(config: Any, cases: Sequence[dict[str, Any]]) -> Score:
    from engram_server.evidence.llm_judge import JudgeReply, prompt, to_judgements
    from engram_server.llm.registry import PROVIDERS

    model = PROVIDERS[config.provider](config)

    async def judge_pairs(claim: Memory, others: Sequence[Memory]) -> list[Judgement]:
        reply = await model.complete_json(
            prompt(claim, others), schema=JudgeReply, tenant_id="eval", purpose="assess"
        )
        return to_judgements(claim, others, reply)

    try:
        return await evaluate(cases, judge_pairs)
    finally:
        await model.aclose()


def _by_split(cases: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    splits: dict[str, list[dict[str, Any]]] = {"all": list(cases)}
    for split in sorted({c.get("split", "dev") for c in cases}):
        splits[split] = [c for c in cases if c.get("split", "dev") == split]
    return splits


def main(argv: Sequence[str] | None = None) -> int:
    import os

    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    cases = load(args.dataset)
    splits = _by_split(cases)
    scores = {
        f"deterministic ({name})": asyncio.run(evaluate(part)) for name, part in splits.items()
    }
    config = llm_config(args, dict(os.environ))
    note = args.note
    if config is not None:
        for name, part in splits.items():
            scores[f"llm {config.model} ({name})"] = asyncio.run(_llm_score(config, part))
    else:
        note = f"{NO_LLM_NOTE} {note}".strip()
    for name, s in scores.items():
        print(json.dumps({"path": name, **s.as_dict()}))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        pairs = sum(len(c["others"]) for c in cases)
        Path(args.out).write_text(markdown(scores, len(cases), pairs, note), encoding="utf-8")
    return 0
