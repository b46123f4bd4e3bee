"""Time in queries: a day or period the query names ranks memories said then higher."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.evaluation.remote import said_at
from engram_server.recall.when import Window, resolve, time_match
from google.protobuf import timestamp_pb2

from tests.lifecycle_helpers import proposal

# Against the embedded engine, and a real Qdrant server when ENGRAM_TEST_QDRANT_URL is set.
pytestmark = pytest.mark.vector_backends

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES
NOW = datetime(2024, 3, 14, 9, 30, tzinfo=UTC)  # a Thursday


def days(text: str) -> list[tuple[date, date, bool]]:
    return [(w.first, w.last, w.any_year) for w in resolve(text, NOW).windows]


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        ("What did Elise buy on 7 Jan 2024?", date(2024, 1, 7), date(2024, 1, 7)),
        ("what kind of pasta on 29th of December, 2023", date(2023, 12, 29), date(2023, 12, 29)),
        ("naps on January 6 2024?", date(2024, 1, 6), date(2024, 1, 6)),
        ("Feb 29, 2024 plans", date(2024, 2, 29), date(2024, 2, 29)),
        ("what is planned on 10.01.2024?", date(2024, 1, 10), date(2024, 1, 10)),
        ("the log of 2024-01-21", date(2024, 1, 21), date(2024, 1, 21)),
        ("where was she in the first week of 2024", date(2024, 1, 1), date(2024, 1, 7)),
        ("trips in May 2023", date(2023, 5, 1), date(2023, 5, 31)),
        ("what happened yesterday", date(2024, 3, 13), date(2024, 3, 13)),
        ("what did we decide last week", date(2024, 3, 4), date(2024, 3, 10)),
        ("three days ago", date(2024, 3, 11), date(2024, 3, 11)),
        ("last May", date(2023, 5, 1), date(2023, 5, 31)),
        ("last Monday", date(2024, 3, 11), date(2024, 3, 11)),
        ("next month", date(2024, 4, 1), date(2024, 4, 30)),
    ],
)
def test_named_days_and_periods_resolve(text: str, first: date, last: date) -> None:
    assert days(text) == [(first, last, False)]


def test_a_day_without_a_year_matches_that_day_of_any_year() -> None:
    (window,) = resolve("What did Kate cook on 29 Dec?", NOW).windows
    assert window.any_year
    assert window.distance(date(2019, 12, 29)) == 0
    assert window.distance(date(2024, 12, 30)) == 1
    assert window.distance(date(2025, 1, 1)) == 3  # across the new year
    assert window.distance(date(2024, 6, 1)) != 0


def test_words_that_are_not_times_name_nothing() -> None:
    for text in (
        "When did Kate start skiing?",
        "Which country did Elise visit in 2021?",  # a bare year: what was done then
        "She may come over",
        "We march on Friday",
        "the 3 dogs and 12 cats",
        "",
    ):
        assert not resolve(text, NOW), text


def test_the_time_words_can_be_cut_from_the_query() -> None:
    resolved = resolve("What did Elise buy on 7 Jan 2024?", NOW)
    assert resolved.without_spans("What did Elise buy on 7 Jan 2024?") == "What did Elise buy on ?"


def test_match_is_full_inside_and_falls_off_around_a_window() -> None:
    windows = [Window(date(2024, 1, 7), date(2024, 1, 7))]
    assert time_match(windows, date(2024, 1, 7), 1, 1) == 1.0
    assert time_match(windows, date(2024, 1, 8), 1, 1) == pytest.approx(0.5)
    assert time_match(windows, date(2024, 1, 6), 1, 1) == pytest.approx(0.5)
    assert time_match(windows, date(2024, 1, 6), 0, 1) == 0.0
    assert time_match(windows, date(2024, 1, 9), 1, 1) == 0.0
    assert time_match([], date(2024, 1, 7), 1, 1) == 0.0


def test_eval_turns_carry_the_time_they_were_said() -> None:
    stamp = said_at("2024-01-07T10:00:00Z")
    assert stamp is not None
    assert stamp.ToDatetime(tzinfo=UTC) == datetime(2024, 1, 7, 10, tzinfo=UTC)
    assert said_at("yesterday-ish") is None


def _at(day: datetime) -> timestamp_pb2.Timestamp:
    out = timestamp_pb2.Timestamp()
    out.FromDatetime(day)
    return out


async def test_a_memory_said_on_the_named_day_ranks_first(make_tenant: Any) -> None:
    t = await make_tenant()
    said = {
        "Ana: I bought fresh bread at the market": datetime(2024, 1, 3, 18, tzinfo=UTC),
        "Ana: I bought a lamp at the market": datetime(2024, 1, 7, 18, tzinfo=UTC),
        "Ana: I bought flowers at the market": datetime(2024, 1, 12, 18, tzinfo=UTC),
    }
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("chat", text, session="s1", valid_from=_at(when))
                for text, when in said.items()
            ]
            + [proposal("chat", "Ana: I bought a rug at the market", session="s2")]
        )
    )
    names = [r.memory.name for r in response.results]
    recall = recall_pb2_grpc.RecallServiceStub(t.channel)

    async def ranked(query: str) -> list[str]:
        found = await recall.Recall(
            recall_pb2.RecallRequest(query=query, spaces=["chat"], k=10, consistency=RYW)
        )
        return [h.memory.name for h in found.hits]

    # Four purchases said alike; the day a question names picks the one said then.
    for day, expected in (("3 Jan 2024", 0), ("7 Jan 2024", 1), ("January 12, 2024", 2)):
        hits = await ranked(f"What did Ana buy at the market on {day}?")
        assert hits[0] == names[expected], day
    # Said the day after still counts, at half: above the same text said days off.
    assert (await ranked("What did Ana buy at the market on 6 Jan 2024?"))[0] == names[1]


async def test_other_tenants_memories_on_the_named_day_stay_out(make_tenant: Any) -> None:
    ours, theirs = await make_tenant(), await make_tenant()
    day = datetime(2024, 1, 7, 12, tzinfo=UTC)
    await theirs.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", "Bo: I bought a boat on 7 Jan 2024", valid_from=_at(day))]
        )
    )
    mine = await ours.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", "Ana: I bought a kite", valid_from=_at(day))]
        )
    )
    found = await recall_pb2_grpc.RecallServiceStub(ours.channel).Recall(
        recall_pb2.RecallRequest(
            query="what was bought on 7 Jan 2024", spaces=["chat"], k=10, consistency=RYW
        )
    )
    assert [h.memory.name for h in found.hits] == [mine.results[0].memory.name]


def _ts(moment: datetime) -> timestamp_pb2.Timestamp:
    out = timestamp_pb2.Timestamp()
    out.FromDatetime(moment)
    return out


FIRST_DAY = datetime(1, 1, 1, tzinfo=UTC)
LAST_DAY = datetime(9999, 12, 31, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("query", "now"),
    [
        ("what happened 10000 years ago", None),
        ("what did we do 99999999 days ago", None),
        ("what did we do 999999 weeks ago", None),
        ("what happens next year", LAST_DAY),
        ("anything planned for tomorrow", LAST_DAY),
        ("what did we decide next month", LAST_DAY),
        ("next Tuesday", LAST_DAY),
        ("this weekend", LAST_DAY),
        ("what happened yesterday", FIRST_DAY),
        ("last year", FIRST_DAY),
        ("two years ago", FIRST_DAY),
        ("last Monday", FIRST_DAY),
        ("last month", FIRST_DAY),
        ("three days before tomorrow", LAST_DAY),
        ("trips in May", None),  # any year: said in year 1 and in 9999
        ("the week after the Lisbon trip", None),  # the event was told in 9999
    ],
)
async def test_times_past_the_calendar_name_no_window(
    make_tenant: Any, query: str, now: datetime | None
) -> None:
    """A time a query names (or a `now` it is resolved against) that falls outside
    the calendar Engram stores, years 1 to 9999, names no window: the recall ranks
    as if no time was named, instead of failing on date arithmetic. Memories said
    on the first and last days of that calendar take part in the ranking."""
    t = await make_tenant()
    await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[
                proposal("chat", "The Lisbon trip in May was lovely", valid_from=_ts(FIRST_DAY)),
                proposal("chat", "The Lisbon trip was booked", valid_from=_ts(LAST_DAY)),
            ]
        )
    )
    request = recall_pb2.RecallRequest(
        query=query, spaces=["chat"], k=5, consistency=RYW, skip_access_tracking=True
    )
    if now is not None:
        request.now.CopyFrom(_ts(now))
    found = await recall_pb2_grpc.RecallServiceStub(t.channel).Recall(request)
    assert all(h.breakdown.base_score >= 0 for h in found.hits)
