"""`engram eval learn`: how many expected facts each Learn path recovers.

    engram eval learn [--dataset PATH] [--out eval/results/learn.md]
                      [--llm-url URL --llm-model NAME [--llm-provider openai]
                       [--llm-api-key KEY]]

The dataset (`learning/data/conversations.jsonl`, shipped with the package) holds
multi-turn conversations, small talk and distractors included, each with the facts a
careful human would keep: keywords that must all occur in the fact, the expected
slot key ("" for none) and kind. An extracted fact matches an expected one when it
contains every keyword (stemmed, or verbatim); matching is one-to-one, in order.

Reported per path: fact recall (expected facts recovered), precision (extracted
facts that match an expected one), slot accuracy (matched facts with the expected
slot key, "" included) and kind accuracy. The LLM path runs only with --llm-url;
its facts are verified against their source turns exactly as Learn does, and only
supported facts count as recovered (unsupported ones are reported separately).
Extraction runs in-process (no server, no privacy screening: the dataset holds no
personal data worth redacting).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram_server.learning import llm_extract
from engram_server.learning.extract import extract_facts
from engram_server.learning.model import Fact, Turn
from engram_server.learning.text import terms
from engram_server.llm import ChatModel, LLMConfig, LLMError

DEFAULT_DATASET = Path(__file__).parent / "data" / "conversations.jsonl"
DEFAULT_OUT = "eval/results/learn.md"


@dataclass(frozen=True)
class Expected:
    keywords: tuple[str, ...]
    slot: str
    kind: str


@dataclass(frozen=True)
class Conversation:
    id: str
    turns: tuple[Turn, ...]
    expected: tuple[Expected, ...]
    # "dev": the rules were tuned on it; "heldout": written afterwards, never tuned on.
    split: str = "dev"


@dataclass
class Score:
    expected: int = 0
    extracted: int = 0
    matched: int = 0
    slot_correct: int = 0
    kind_correct: int = 0
    unverified: int = 0
    errors: int = 0
    misses: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "expected": self.expected,
            "extracted": self.extracted,
            "matched": self.matched,
            "recall": _ratio(self.matched, self.expected),
            "precision": _ratio(self.matched, self.extracted),
            "slot_accuracy": _ratio(self.slot_correct, self.matched),
            "kind_accuracy": _ratio(self.kind_correct, self.matched),
            "unverified": self.unverified,
            "errors": self.errors,
        }


def _ratio(a: int, b: int) -> float:
    return round(a / b, 3) if b else 0.0


def load(path: Path | str = DEFAULT_DATASET) -> list[Conversation]:
    out: list[Conversation] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        raw = json.loads(line)
        turns = tuple(Turn(t["role"], t["content"], i) for i, t in enumerate(raw["turns"]))
        expected = tuple(
            Expected(tuple(e["keywords"]), e.get("slot", ""), e.get("kind", "SEMANTIC"))
            for e in raw["expected"]
        )
        out.append(Conversation(raw["id"], turns, expected, raw.get("split", "dev")))
    return out


def _contains(fact: Fact, keyword: str) -> bool:
    if keyword.lower() in fact.content.lower():
        return True
    wanted = set(terms(keyword))
    return bool(wanted) and wanted <= set(terms(fact.content))


def score(conversation: Conversation, facts: Sequence[Fact], into: Score) -> None:
    """Adds one conversation's one-to-one matching to `into`."""
    into.expected += len(conversation.expected)
    into.extracted += len(facts)
    used: set[int] = set()
    for e in conversation.expected:
        for i, fact in enumerate(facts):
            if i in used or not all(_contains(fact, k) for k in e.keywords):
                continue
            used.add(i)
            into.matched += 1
            into.slot_correct += fact.slot_key == e.slot
            into.kind_correct += fact.kind.value == e.kind
            break
        else:
            into.misses.append(f"{conversation.id}: {' '.join(e.keywords)}")


def evaluate_rules(conversations: Sequence[Conversation]) -> Score:
    result = Score()
    for c in conversations:
        score(c, extract_facts(c.turns), result)
    return result


async def evaluate_llm(conversations: Sequence[Conversation], model: ChatModel) -> Score:
    result = Score()
    for c in conversations:
        facts: list[Fact] = []
        for batch in llm_extract.batches(c.turns):
            try:
                reply = await model.complete_json(
                    llm_extract.messages_for(batch),
                    schema=llm_extract.ExtractionReply,
                    tenant_id="eval",
                    purpose="eval-learn",
                )
            except LLMError:
                result.errors += 1
                continue
            facts.extend(llm_extract.to_facts(reply, batch))
        supported = [f for f in facts if f.verified]
        result.unverified += len(facts) - len(supported)
        score(c, supported, result)
    return result


def markdown(scores: dict[str, Score], conversations: int, note: str) -> str:
    lines = [
        "# Learn: fact extraction on the labelled conversations",
        "",
        f"{conversations} conversations, {next(iter(scores.values())).expected} expected facts"
        " (`service/engram_server/learning/data/conversations.jsonl`), measured by"
        " `engram eval learn`.",
        "",
        "| path | recall | precision | slot accuracy | kind accuracy | extracted | unverified |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, s in scores.items():
        d = s.as_dict()
        lines.append(
            f"| {name} | {d['recall']:.3f} | {d['precision']:.3f} | {d['slot_accuracy']:.3f}"
            f" | {d['kind_accuracy']:.3f} | {d['extracted']} | {d['unverified']} |"
        )
    lines += [
        "",
        "`dev`: the conversations the deterministic rules were developed against;"
        " `heldout`: conversations written after the rules were frozen and never tuned on."
        " The held-out row is the fair estimate for conversations the rules have not seen.",
        "",
        note,
        "",
    ]
    for name, s in scores.items():
        if s.misses:
            lines += [f"Missed by `{name}`: " + "; ".join(s.misses), ""]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="engram eval learn",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--dataset", default=str(DEFAULT_DATASET), help="labelled conversations")
    parser.add_argument("--out", help=f"write the markdown report here (e.g. {DEFAULT_OUT})")
    parser.add_argument("--llm-url", help="OpenAI-compatible base URL (enables the LLM path)")
    parser.add_argument("--llm-model", default="", help="model name for the LLM path")
    parser.add_argument("--llm-provider", default="openai", help="openai or anthropic")
    parser.add_argument("--llm-api-key", default="", help="API key for the LLM path")
    parser.add_argument("--note", default="", help="a sentence appended to the report")
    return parser


async def _llm_score(args: argparse.Namespace, conversations: list[Conversation]) -> Score:
    from engram_server.llm.registry import PROVIDERS

    config = LLMConfig(args.llm_provider, args.llm_url, args.llm_model or "model", args.llm_api_key)
    model = PROVIDERS[args.llm_provider](config)
    try:
        return await evaluate_llm(conversations, model)
    finally:
        await model.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    conversations = load(args.dataset)
    scores = {"deterministic (all)": evaluate_rules(conversations)}
    for split in sorted({c.split for c in conversations}):
        part = [c for c in conversations if c.split == split]
        scores[f"deterministic ({split})"] = evaluate_rules(part)
    if args.llm_url:
        scores["llm (all)"] = asyncio.run(_llm_score(args, conversations))
    for name, s in scores.items():
        print(json.dumps({"path": name, **s.as_dict()}))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(markdown(scores, len(conversations), args.note), encoding="utf-8")
    return 0
