"""The labelled dataset: long multi-session conversations and questions about them.

File format (JSON Lines, UTF-8): one conversation per line.

    {
      "id": "c01",                      conversation id; one Engram space each
      "user": "Maya",                   the user's first name
      "asked_at": "2023-03-14T09:00:00Z",  when the questions are asked (after
                                        the last session)
      "turns": [                        chronological
        {"id": "c01-s1-t01",            unique in the file
         "session": "s1",               session id, unique in the conversation
         "role": "user",                "user" or "assistant"
         "time": "2023-01-02T18:04:00Z",
         "text": "Hey, morning!"},
        ...
      ],
      "questions": [
        {"id": "c01-q01",               unique in the file
         "text": "Where does Maya work these days?",
         "category": "update",          see `scenarios.CATEGORIES`
         "scenario": "job",             the scenario that planted the answer
         "answers": {"c01-s4-t17": 2}}, turn id -> grade: 2 answers the question,
                                        1 supports the answer (needed to connect
                                        it to the question); at least one 2
        ...
      ]
    }

Turn texts are distinct within a conversation (identical content in one space
would be stored once).

Harder questions, written by hand against the shipped conversations, live in a
sibling file (`conversations.hard.jsonl` beside `conversations.jsonl`, see
`hard_path`), one question a line, naming its conversation:

    {"conversation": "c01", "id": "c01-h01", "text": "...",
     "category": "multi_hop_sessions", "answers": {"c01-s1-t45": 2, ...}}

Their categories (`HARD_CATEGORIES`) model what the generated ones do not:
evidence in several sessions, time relative to another event or a calendar
period (answerable from the turns' times, which the evaluation sends as each
memory's `valid_from`), a question naming one person about another's turn, and
paraphrase worded away from the answer's words. `load_with_hard` adds them
to the conversations; the generator never writes that file.

The shipped file `eval/datasets/conversations.jsonl` is `generate()` with the
defaults below; regenerate it with
`engram eval --generate eval/datasets/conversations.jsonl`. Generation is
deterministic (seeded, no network, no model) and independent of PYTHONHASHSEED.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from engram_server.evaluation.chatter import Chatter
from engram_server.evaluation.scenarios import CATEGORIES, USER_NAMES, Exchange, Picker, draw

DEFAULT_SEED = 20240611
DEFAULT_CONVERSATIONS = 36
SCENARIOS_PER_CONVERSATION = 10
MIN_SESSIONS, MAX_SESSIONS = 4, 6
MIN_SESSION_TURNS, MAX_SESSION_TURNS = 20, 60
ROLES = ("user", "assistant")
HARD_CATEGORIES = ("multi_hop_sessions", "temporal_relative", "other_speaker", "paraphrase_hard")
HARD_SUFFIX = ".hard.jsonl"
GRADES = (1, 2)
_EPOCH = datetime(2023, 1, 2, tzinfo=UTC)


@dataclass(frozen=True)
class Turn:
    id: str
    session: str
    role: str
    time: str
    text: str


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    category: str
    scenario: str
    answers: Mapping[str, int]

    @property
    def primary(self) -> tuple[str, ...]:
        return tuple(t for t, g in self.answers.items() if g == 2)


@dataclass(frozen=True)
class Conversation:
    id: str
    user: str
    asked_at: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "user": self.user,
            "asked_at": self.asked_at,
            "turns": [
                {"id": t.id, "session": t.session, "role": t.role, "time": t.time, "text": t.text}
                for t in self.turns
            ],
            "questions": [
                {
                    "id": q.id,
                    "text": q.text,
                    "category": q.category,
                    "scenario": q.scenario,
                    "answers": dict(q.answers),
                }
                for q in self.questions
            ],
        }


# -- reading and writing -------------------------------------------------------------


def parse(data: Mapping[str, Any]) -> Conversation:
    """A conversation from its JSON object; ValueError names what is wrong."""
    try:
        conversation = Conversation(
            id=str(data["id"]),
            user=str(data["user"]),
            asked_at=str(data["asked_at"]),
            turns=tuple(
                Turn(
                    str(t["id"]), str(t["session"]), str(t["role"]), str(t["time"]), str(t["text"])
                )
                for t in data["turns"]
            ),
            questions=tuple(
                Question(
                    id=str(q["id"]),
                    text=str(q["text"]),
                    category=str(q["category"]),
                    scenario=str(q.get("scenario", "")),
                    answers={str(k): int(v) for k, v in q["answers"].items()},
                )
                for q in data["questions"]
            ),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed conversation: {exc!r}") from exc
    check(conversation)
    return conversation


def check(conversation: Conversation) -> None:
    """Raises ValueError unless every question's answers are turns of the conversation."""
    where = f"conversation {conversation.id}"
    turn_ids = [t.id for t in conversation.turns]
    if not turn_ids:
        raise ValueError(f"{where}: no turns")
    if len(set(turn_ids)) != len(turn_ids):
        raise ValueError(f"{where}: duplicate turn ids")
    for turn in conversation.turns:
        if turn.role not in ROLES:
            raise ValueError(f"{where}: turn {turn.id} has role {turn.role!r}")
        if not turn.text.strip():
            raise ValueError(f"{where}: turn {turn.id} is blank")
    known = set(turn_ids)
    for question in conversation.questions:
        if not question.text.strip():
            raise ValueError(f"{where}: question {question.id} is blank")
        if question.category not in CATEGORIES + HARD_CATEGORIES:
            raise ValueError(f"{where}: question {question.id} has category {question.category!r}")
        if not question.primary:
            raise ValueError(f"{where}: question {question.id} has no answer of grade 2")
        for turn_id, grade in question.answers.items():
            if turn_id not in known:
                raise ValueError(f"{where}: question {question.id} names unknown turn {turn_id}")
            if grade not in GRADES:
                raise ValueError(f"{where}: question {question.id} grades {turn_id} {grade}")


def load(path: str | Path) -> list[Conversation]:
    """Reads a dataset file; ValueError (with the line number) if it is not valid."""
    conversations: list[Conversation] = []
    with Path(path).open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                conversations.append(parse(json.loads(line)))
            except (ValueError, json.JSONDecodeError) as exc:
                raise ValueError(f"{path}:{number}: {exc}") from exc
    _check_unique([c.id for c in conversations], "conversation ids")
    _check_unique([t.id for c in conversations for t in c.turns], "turn ids")
    _check_unique([q.id for c in conversations for q in c.questions], "question ids")
    return conversations


def hard_path(path: str | Path) -> Path:
    """The harder questions' file beside a dataset: `x.jsonl` -> `x.hard.jsonl`."""
    dataset_path = Path(path)
    return dataset_path.with_name(dataset_path.stem + HARD_SUFFIX)


def load_hard(path: str | Path, conversations: Sequence[Conversation]) -> list[Conversation]:
    """`conversations` with the questions of the file at `path` appended to theirs.

    ValueError (with the line number) for a line that names an unknown
    conversation, a turn that is not one of its conversation's, a category that is
    not a hard one, or a question id already used.
    """
    by_id = {c.id: c for c in conversations}
    added: dict[str, list[Question]] = {c.id: [] for c in conversations}
    with Path(path).open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                conversation_id = str(data["conversation"])
                if conversation_id not in by_id:
                    raise ValueError(f"unknown conversation {conversation_id!r}")
                question = Question(
                    id=str(data["id"]),
                    text=str(data["text"]),
                    category=str(data["category"]),
                    scenario=str(data.get("scenario", "")),
                    answers={str(k): int(v) for k, v in data["answers"].items()},
                )
                if question.category not in HARD_CATEGORIES:
                    raise ValueError(
                        f"question {question.id} has category {question.category!r},"
                        f" not one of {', '.join(HARD_CATEGORIES)}"
                    )
                conversation = by_id[conversation_id]
                check(replace(conversation, questions=(question,)))
            except (KeyError, TypeError, AttributeError) as exc:
                raise ValueError(f"{path}:{number}: malformed question: {exc!r}") from exc
            except (ValueError, json.JSONDecodeError) as exc:
                raise ValueError(f"{path}:{number}: {exc}") from exc
            added[conversation_id].append(question)
    merged = [replace(c, questions=c.questions + tuple(added[c.id])) for c in conversations]
    _check_unique([q.id for c in merged for q in c.questions], "question ids")
    return merged


def load_with_hard(path: str | Path) -> list[Conversation]:
    """The dataset at `path` plus its harder questions when their file exists."""
    conversations = load(path)
    extra = hard_path(path)
    return load_hard(extra, conversations) if extra.exists() else conversations


def _check_unique(ids: Sequence[str], what: str) -> None:
    repeated = [i for i, n in Counter(ids).items() if n > 1]
    if repeated:
        raise ValueError(f"duplicate {what}: {', '.join(repeated[:5])}")


def dumps(conversations: Iterable[Conversation]) -> str:
    return "".join(
        json.dumps(c.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n"
        for c in conversations
    )


def dump(conversations: Iterable[Conversation], path: str | Path) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(dumps(conversations), encoding="utf-8")


def summary(conversations: Sequence[Conversation]) -> dict[str, Any]:
    """Counts for reports: conversations, sessions, turns, questions by category."""
    categories = Counter(q.category for c in conversations for q in c.questions)
    return {
        "conversations": len(conversations),
        "sessions": sum(len({t.session for t in c.turns}) for c in conversations),
        "turns": sum(len(c.turns) for c in conversations),
        "questions": sum(categories.values()),
        "questions_by_category": {
            k: categories[k] for k in CATEGORIES + HARD_CATEGORIES if categories[k]
        },
    }


# -- generation -------------------------------------------------------------------------


@dataclass
class _Slot:
    """A planted exchange waiting for its place in a session."""

    scenario: int
    exchange: Exchange


@dataclass
class _Session:
    exchanges: int  # including the greeting and the closing
    planted: list[_Slot] = field(default_factory=list)


def generate(
    seed: int = DEFAULT_SEED, conversations: int = DEFAULT_CONVERSATIONS
) -> list[Conversation]:
    """The dataset for `seed`: same arguments, same conversations, byte for byte."""
    if conversations < 1:
        raise ValueError("conversations must be at least 1")
    return [_conversation(seed, index) for index in range(conversations)]


def _conversation(seed: int, index: int) -> Conversation:
    # A string seed is hashed with SHA-512 by `random`, never with hash(), so the
    # stream does not depend on PYTHONHASHSEED.
    rng = random.Random(f"engram-eval/{seed}/{index}")
    conv_id = f"c{index + 1:02d}"
    user = USER_NAMES[index % len(USER_NAMES)]
    picker = Picker(rng, user)
    chatter = Chatter(rng, user)
    scenarios = draw(picker, SCENARIOS_PER_CONVERSATION)

    sessions = [
        _Session(rng.randint(MIN_SESSION_TURNS, MAX_SESSION_TURNS) // 2)
        for _ in range(rng.randint(MIN_SESSIONS, MAX_SESSIONS))
    ]
    last = len(sessions) - 1
    for number, scenario in enumerate(scenarios):
        session_of: dict[str, int] = {}
        followed = {e.after for e in scenario.exchanges if e.after}
        for exchange in scenario.exchanges:
            if exchange.after:
                low, high = session_of[exchange.after] + 1, last
            else:
                # A fact that a later exchange updates leaves room after it.
                low, high = 0, last - 1 if exchange.key in followed else last
            where = rng.randint(low, high)
            if exchange.key:
                session_of[exchange.key] = where
            sessions[where].planted.append(_Slot(number, exchange))

    turns: list[Turn] = []
    keyed: list[dict[str, str]] = [{} for _ in scenarios]
    clock = _EPOCH + timedelta(days=3 * index)
    for s, session in enumerate(sessions):
        clock = clock.replace(hour=0, minute=0, second=0) + timedelta(
            days=rng.randint(2, 21), hours=rng.randint(7, 21), minutes=rng.randint(0, 59)
        )
        session_id = f"s{s + 1}"
        middle = max(session.exchanges - 2, len(session.planted))
        positions = sorted(rng.sample(range(middle), len(session.planted)))
        rng.shuffle(session.planted)
        at = dict(zip(positions, session.planted, strict=True))
        pairs: list[tuple[tuple[str, str], _Slot | None]] = [(chatter.greeting(), None)]
        for position in range(middle):
            slot = at.get(position)
            if slot is None:
                pairs.append((chatter.small_talk(), None))
                continue
            reply = slot.exchange.assistant
            if reply is None:
                reply = chatter.acknowledgement()
            else:
                chatter.used.add(reply)
            said = chatter.pad(slot.exchange.user)
            chatter.used.add(said)
            pairs.append(((said, reply), slot))
        pairs.append((chatter.closing(), None))
        number_in_session = 0
        for (user_line, assistant_line), slot in pairs:
            for role, text in (("user", user_line), ("assistant", assistant_line)):
                clock += timedelta(seconds=rng.randint(15, 150))
                number_in_session += 1
                turn = Turn(
                    id=f"{conv_id}-{session_id}-t{number_in_session:02d}",
                    session=session_id,
                    role=role,
                    time=_iso(clock),
                    text=text,
                )
                turns.append(turn)
                if slot is not None:
                    key = slot.exchange.key if role == "user" else slot.exchange.assistant_key
                    if key:
                        keyed[slot.scenario][key] = turn.id

    questions: list[Question] = []
    for number, scenario in enumerate(scenarios):
        for ask in scenario.asks:
            questions.append(
                Question(
                    id=f"{conv_id}-q{len(questions) + 1:02d}",
                    text=ask.text,
                    category=ask.category,
                    scenario=scenario.name,
                    answers={keyed[number][key]: grade for key, grade in ask.answers.items()},
                )
            )
    asked_at = (clock + timedelta(days=1)).replace(hour=9, minute=0, second=0)
    conversation = Conversation(conv_id, user, _iso(asked_at), tuple(turns), tuple(questions))
    check(conversation)
    texts = [t.text for t in turns]
    if len(set(texts)) != len(texts):
        raise ValueError(f"conversation {conv_id}: repeated turn text")
    return conversation


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
