"""Times anchored on another date or event: "the week after his dog's birthday"."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.recall import anchored, when
from engram_server.recall.anchored import Told, find_anchor, parse
from google.protobuf import timestamp_pb2

from tests.lifecycle_helpers import proposal

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
NOW = datetime(2024, 3, 14, 9, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "after", "first", "last", "anchor"),
    [
        ("What did Oskar start doing about four weeks after he broke his wrist?",
         True, 22, 34, "he broke his wrist"),
        ("What funding news did Jonas share the week after his dog's birthday?",
         True, 1, 9, "his dog's birthday"),
        ("What was celebrated about two and a half weeks before his wife's promotion?",
         False, 14, 22, "his wife's promotion"),
        ("Which restaurant did Oskar mention three days after the outage postmortem?",
         True, 2, 4, "the outage postmortem"),
        ("What happened eighteen days after her dentist change and why?",
         True, 14, 22, "her dentist change"),
        ("the day before the exam", False, 1, 1, "the exam"),
        ("what did she cook a few days after the trip, then?", True, 2, 4, "the trip"),
    ],
)  # fmt: skip
def test_offset_direction_and_anchor_are_parsed(
    text: str, after: bool, first: int, last: int, anchor: str
) -> None:
    found = parse(text)
    assert found is not None
    assert (found.after, found.first, found.last, found.anchor) == (after, first, last, anchor)
    assert text[found.span[0] : found.span[1]].endswith(anchor)


@pytest.mark.parametrize(
    "text",
    [
        "What did she do before going to bed?",  # no offset: "before" alone is too vague
        "What did Kate do after the concert?",
        "Where did they go two weeks ago?",  # not anchored: `when` resolves it
        "What happened three days after he?",  # no content word to anchor on
        "what did we do the week before last?",
        "It arrived two days later than planned.",
        "Which books did Elise read last year?",
    ],
)
def test_no_anchored_expression(text: str) -> None:
    assert parse(text) is None


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        # 10 Jan 2024 is a Wednesday; the Friday before it is the 5th.
        ("What did Paola make on Friday before 10.01.2024?", date(2024, 1, 5), date(2024, 1, 5)),
        ("the Monday after 7 Jan 2024", date(2024, 1, 8), date(2024, 1, 8)),
        ("What was Kate watching shortly before 7 Jan 2024?", date(2024, 1, 4), date(2024, 1, 7)),
        ("two weeks after January 7, 2024", date(2024, 1, 18), date(2024, 1, 24)),
        ("the week before 2024-03-01", date(2024, 2, 21), date(2024, 2, 29)),
    ],
)
def test_a_date_anchor_gives_the_window_at_once(text: str, first: date, last: date) -> None:
    expression, named = anchored.resolve(text, NOW, when.resolve(text, NOW))
    assert expression is None  # nothing left to find among the memories
    # The anchor date's own window is replaced by the one it anchors.
    assert [(w.first, w.last) for w in named.windows] == [(first, last)]


def test_an_event_anchor_waits_for_its_day() -> None:
    text = "What did Jonas share the week after his dog's birthday in May?"
    named = when.resolve(text, NOW)
    expression, unchanged = anchored.resolve(text, NOW, named)
    assert expression is not None and unchanged == named
    assert expression.terms() == ("dog", "birthday")
    resolved = anchored.with_anchor_days(named, expression, [date(2024, 5, 3)])
    # "in May" was part of the anchor: only the week after the birthday remains.
    assert [(w.first, w.last) for w in resolved.windows] == [(date(2024, 5, 4), date(2024, 5, 12))]
    assert anchored.with_anchor_days(named, expression, []) == named


def _told(text: str, day: date | None, score: float = 0.5) -> Told:
    return Told(text, day, score, key=text)


def anchor_days(terms: tuple[str, ...], candidates: list[Told]) -> list[date]:
    return list(find_anchor(terms, candidates).days)


def test_the_anchor_day_is_that_of_the_memory_covering_its_words() -> None:
    terms = ("broke", "wrist")
    days = anchor_days(
        terms,
        [
            _told("OSKAR: my wrist is fine now", date(2024, 2, 20), 0.9),
            _told("OSKAR: I broke my wrist skiing!", date(2024, 1, 10), 0.4),
            _told("OSKAR: I started climbing again", None, 1.0),
        ],
    )
    assert days == [date(2024, 1, 10)]
    found = find_anchor(terms, [_told("OSKAR: I broke my wrist skiing!", date(2024, 1, 10))])
    assert found.told == {"OSKAR: I broke my wrist skiing!"}  # the turn that tells it


def test_stems_match_the_words_they_come_from() -> None:
    terms = tuple(parse("about three weeks after she described her tiny flat?").terms())  # type: ignore[union-attr]
    assert terms == ("describ", "tini", "flat")
    days = anchor_days(terms, [_told("HANNAH: our flat is so tiny", date(2024, 4, 2))])
    assert days == [date(2024, 4, 2)]


def test_no_anchor_day_when_nothing_or_too_much_tells_the_event() -> None:
    terms = ("dog", "birthday")
    # Only half the words: not the event.
    assert anchor_days(terms, [_told("my dog barks", date(2024, 1, 1))]) == []
    # Told on many different days: which one is meant is not clear.
    many = [_told("the dog's birthday party", date(2024, m, 1)) for m in range(1, 5)]
    assert anchor_days(terms, many) == []
    # Told twice a day apart (one event) plus once more: two days, best first.
    two = [
        _told("dog birthday cake", date(2024, 1, 1), 0.3),
        _told("the dog's birthday!", date(2024, 1, 2), 0.8),
        _told("another dog birthday", date(2024, 6, 1), 0.5),
    ]
    assert anchor_days(terms, two) == [date(2024, 1, 2), date(2024, 6, 1)]
    assert anchor_days((), two) == []


def _at(day: datetime) -> timestamp_pb2.Timestamp:
    out = timestamp_pb2.Timestamp()
    out.FromDatetime(day)
    return out


ANCHOR = "Jonas: Today is my dog's birthday, Bruno turned five"
IN_WINDOW = "Jonas: The seed round closed, funding news at last"
SAID = {
    ANCHOR: datetime(2024, 3, 1, 18, tzinfo=UTC),
    IN_WINDOW: datetime(2024, 3, 6, 18, tzinfo=UTC),
    "Jonas: I can share funding news: the bank wants a meeting": datetime(2024, 2, 9, tzinfo=UTC),
    "Jonas: Funding news to share: investors want the deck": datetime(2024, 4, 20, tzinfo=UTC),
    "Jonas: My dog ate my sock": datetime(2024, 3, 20, tzinfo=UTC),
}
QUESTION = "What funding news did Jonas share the week after his dog's birthday?"


async def _propose(t: Any, said: dict[str, datetime]) -> dict[str, str]:
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("chat", text, session=f"s{i}", valid_from=_at(when))
                for i, (text, when) in enumerate(said.items())
            ]
        )
    )
    return {r.memory.name: text for r, text in zip(response.results, said, strict=True)}


async def _ranked(t: Any, query: str, names: dict[str, str]) -> list[str]:
    found = await recall_pb2_grpc.RecallServiceStub(t.channel).Recall(
        recall_pb2.RecallRequest(query=query, spaces=["chat"], k=10, consistency=RYW)
    )
    return [names[h.memory.name] for h in found.hits]


async def test_the_turn_said_the_week_after_the_anchor_event_ranks_first(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    names = await _propose(t, SAID)
    # Without the anchored time, a same-topic turn said at another time leads.
    outside = [text for text in SAID if "unding news" in text and text != IN_WINDOW]
    plain = await _ranked(t, "What funding news did Jonas share?", names)
    assert plain.index(IN_WINDOW) > min(plain.index(text) for text in outside)
    hits = await _ranked(t, QUESTION, names)
    # Said the week after the birthday: above every same-topic turn said at other times.
    assert hits.index(IN_WINDOW) < min(hits.index(text) for text in outside)
    assert ANCHOR in hits[:3]  # the anchor turn itself stays findable


async def test_another_tenants_memories_never_anchor_a_query(make_tenant: Any) -> None:
    ours, theirs = await make_tenant(), await make_tenant()
    # Their dog's birthday was five days before our in-window turn; ours is not told.
    await _propose(theirs, {ANCHOR: SAID[ANCHOR]})
    mine = {text: when for text, when in SAID.items() if text != ANCHOR}
    names = await _propose(ours, mine)
    outside = [text for text in mine if "unding news" in text and text != IN_WINDOW]
    hits = await _ranked(ours, QUESTION, names)
    assert hits.index(IN_WINDOW) > min(hits.index(text) for text in outside)


async def test_a_date_anchor_moves_the_window_off_the_date_it_names(make_tenant: Any) -> None:
    t = await make_tenant()
    # 10 Jan 2024 is a Wednesday; the Friday before it is the 5th.
    said = {
        "Paola: I baked a lemon cake": datetime(2024, 1, 5, 17, tzinfo=UTC),
        "Paola: I baked a carrot cake": datetime(2024, 1, 10, 17, tzinfo=UTC),
        "Paola: I baked an apple cake": datetime(2024, 1, 1, 17, tzinfo=UTC),
    }
    names = await _propose(t, said)
    on_the_day = await _ranked(t, "What cake did Paola bake on 10.01.2024?", names)
    assert on_the_day[0] == "Paola: I baked a carrot cake"
    before = await _ranked(t, "What cake did Paola bake on the Friday before 10.01.2024?", names)
    assert before[0] == "Paola: I baked a lemon cake"


async def test_a_retracted_memory_never_anchors_a_query(make_tenant: Any) -> None:
    t = await make_tenant()
    names = await _propose(t, SAID)
    anchor_name = next(name for name, text in names.items() if text == ANCHOR)
    await t.lifecycle.RetractMemory(
        lifecycle_pb2.RetractMemoryRequest(name=anchor_name, reason="said in jest")
    )
    outside = [text for text in SAID if "unding news" in text and text != IN_WINDOW]
    hits = await _ranked(t, QUESTION, names)
    assert ANCHOR not in hits
    assert hits.index(IN_WINDOW) > min(hits.index(text) for text in outside)
