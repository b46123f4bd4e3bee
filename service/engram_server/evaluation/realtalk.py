"""REALTALK: real long conversations with evidence labels, read from a directory.

REALTALK (Lee et al., 2025) is ten 21-day messaging conversations between real
people, each with about seventy questions whose `evidence` names the turns
(`D3:12`) that answer them. Its licence is not stated, so the data is never
shipped with Engram: `engram eval realtalk` reads the files `Chat_<n>_*.json`
from `--realtalk-dir` or `$ENGRAM_EVAL_REALTALK_DIR`, and skips the dataset with
a message when neither names a directory that holds them.

Every file becomes one `dataset.Conversation`:

- a turn per message, its text "SPEAKER: text" (who said it is part of the
  memory), its session the file's `session_<n>`, its time the message's own
  `date_time` (ISO 8601, UTC assumed); its id `<conversation>-<dia_id>`;
- a question per `qa` entry whose evidence names at least one turn of the file.
  Evidence ids are written loosely in places ("D5:3.", "D5:12;D5:16",
  "D12:3-D12:5"): they are split, trimmed and ranges expanded; ids that still
  name no turn are dropped (and counted, `Loaded.unresolved_evidence`).

Categories follow the dataset's numbers: 1 multi-hop (evidence over several
turns, often several sessions), 2 temporal, 3 commonsense (the answer is
inferred from the turns rather than said in them).

The conversations are split by number: 1-5 are the dev split (weights and
levers are tuned on them) and 6-10 the report split (only ever measured), so a
gain on the report split is not an artefact of tuning.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram_server.evaluation.dataset import Conversation, Question, Turn

ENV_DIR = "ENGRAM_EVAL_REALTALK_DIR"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "commonsense"}
DEV_SPLIT = frozenset(range(1, 6))
REPORT_SPLIT = frozenset(range(6, 11))
SPLITS = {"dev": DEV_SPLIT, "report": REPORT_SPLIT}

_FILE = re.compile(r"^Chat_(\d+)_.*\.json$")
_SESSION = re.compile(r"^session_(\d+)$")
_EVIDENCE_ID = re.compile(r"D(\d+):(\d+)")
_RANGE = re.compile(r"D(\d+):(\d+)\s*-\s*(?:D(\d+):)?(\d+)")


class DatasetMissing(RuntimeError):
    """No REALTALK directory was given, or it holds no conversation files."""


@dataclass(frozen=True)
class Loaded:
    conversations: tuple[Conversation, ...]
    numbers: Mapping[str, int]  # conversation id -> its file's number
    unresolved_evidence: int  # evidence ids that named no turn
    dropped_questions: int  # questions left without any resolvable evidence

    def split(self, name: str) -> list[Conversation]:
        """The conversations of a split ("dev", "report" or "all")."""
        if name == "all":
            return list(self.conversations)
        wanted = SPLITS[name]
        return [c for c in self.conversations if self.numbers[c.id] in wanted]


def directory(explicit: str | None) -> Path:
    """The REALTALK directory from `explicit` or the environment; DatasetMissing
    when none is set or it holds no `Chat_<n>_*.json` file."""
    chosen = explicit or os.environ.get(ENV_DIR, "")
    if not chosen:
        raise DatasetMissing(
            f"REALTALK not configured: pass --realtalk-dir or set ${ENV_DIR} to the directory"
            " holding its Chat_<n>_*.json files (the data is not shipped with Engram)"
        )
    path = Path(chosen)
    if not path.is_dir() or not any(_FILE.match(p.name) for p in path.iterdir()):
        raise DatasetMissing(f"no REALTALK Chat_<n>_*.json files in {path}")
    return path


def load(path: Path) -> Loaded:
    """Every conversation file of the directory, ordered by its number."""
    files = sorted(
        (int(m.group(1)), p) for p in path.iterdir() if (m := _FILE.match(p.name)) is not None
    )
    conversations: list[Conversation] = []
    numbers: dict[str, int] = {}
    unresolved = dropped = 0
    for number, file in files:
        conversation, missing, lost = parse(f"realtalk-{number:02d}", json.loads(file.read_text()))
        conversations.append(conversation)
        numbers[conversation.id] = number
        unresolved += missing
        dropped += lost
    return Loaded(tuple(conversations), numbers, unresolved, dropped)


def parse(conversation_id: str, data: Mapping[str, Any]) -> tuple[Conversation, int, int]:
    """One file's conversation, the count of evidence ids that named no turn,
    and the count of questions dropped for want of any evidence."""
    sessions = sorted(
        (int(m.group(1)), key)
        for key, value in data.items()
        if (m := _SESSION.match(key)) is not None and isinstance(value, list)
    )
    turns: list[Turn] = []
    for _, key in sessions:
        for message in data[key]:
            text = str(message.get("clean_text") or message.get("text") or "").strip()
            if not text:
                continue
            speaker = str(message["speaker"]).strip()
            turns.append(
                Turn(
                    id=f"{conversation_id}-{message['dia_id']}",
                    session=key,
                    role="user",
                    time=_iso(str(message.get("date_time") or data.get(f"{key}_date_time", ""))),
                    text=f"{speaker}: {text}",
                )
            )
    known = {t.id for t in turns}
    questions: list[Question] = []
    unresolved = dropped = 0
    for number, qa in enumerate(data.get("qa", []), 1):
        answers: dict[str, int] = {}
        for raw in qa.get("evidence") or []:
            ids = evidence_ids(str(raw))
            if not ids:
                unresolved += 1
            for dia_id in ids:
                turn_id = f"{conversation_id}-{dia_id}"
                if turn_id in known:
                    answers[turn_id] = 2
                else:
                    unresolved += 1
        if not answers:
            dropped += 1
            continue
        questions.append(
            Question(
                id=f"{conversation_id}-q{number:03d}",
                text=str(qa["question"]),
                category=CATEGORIES.get(
                    int(qa.get("category", 0)), f"category-{qa.get('category')}"
                ),
                scenario="",
                answers=answers,
            )
        )
    first_time = turns[0].time if turns else ""
    last_time = max((t.time for t in turns), default=first_time)
    user = (
        str(data.get("name", {}).get("speaker_1", "")) if isinstance(data.get("name"), dict) else ""
    )
    return (
        Conversation(conversation_id, user, last_time, tuple(turns), tuple(questions)),
        unresolved,
        dropped,
    )


def evidence_ids(raw: str) -> list[str]:
    """The dialogue ids one evidence entry names: `D3:12` as is, lists split,
    trailing punctuation ignored, `D12:3-D12:5` (or `D12:3-5`) expanded to its
    three turns."""
    out: list[str] = []
    position = 0
    for ranged in _RANGE.finditer(raw):
        out.extend(
            f"D{m.group(1)}:{m.group(2)}"
            for m in _EVIDENCE_ID.finditer(raw, position, ranged.start())
        )
        session, start, end = int(ranged.group(1)), int(ranged.group(2)), int(ranged.group(4))
        if int(ranged.group(3) or session) == session and start <= end <= start + 50:
            out.extend(f"D{session}:{n}" for n in range(start, end + 1))
        else:
            out.extend((f"D{session}:{start}", f"D{ranged.group(3)}:{end}"))
        position = ranged.end()
    out.extend(f"D{m.group(1)}:{m.group(2)}" for m in _EVIDENCE_ID.finditer(raw, position))
    return list(dict.fromkeys(out))


def _iso(text: str) -> str:
    """`29.12.2023, 22:42:04` as ISO 8601 (UTC assumed); the text itself if it is
    in another shape."""
    try:
        return (
            datetime.strptime(text.strip(), "%d.%m.%Y, %H:%M:%S")
            .replace(tzinfo=UTC)
            .isoformat()
            .replace("+00:00", "Z")
        )
    except ValueError:
        return text


def summary(loaded: Loaded, conversations: Iterable[Conversation]) -> dict[str, Any]:
    chosen: Sequence[Conversation] = list(conversations)
    by_category: dict[str, int] = {}
    for c in chosen:
        for q in c.questions:
            by_category[q.category] = by_category.get(q.category, 0) + 1
    return {
        "conversations": [loaded.numbers[c.id] for c in chosen],
        "turns": sum(len(c.turns) for c in chosen),
        "sessions": sum(len({t.session for t in c.turns}) for c in chosen),
        "questions": sum(len(c.questions) for c in chosen),
        "questions_by_category": dict(sorted(by_category.items())),
    }
