"""Time named in a query, resolved to date windows that memories' `valid_from` can match.

"What did Elise buy on 7 Jan 2024?", "where was she in May?", "what did we decide
last week?": the question names *when*, and the memory that answers it was said
then (or just after: people tell what they did the day before). Neither leg sees
it: the lexical one matches the words "jan" and "2024" at best, the dense one not
at all. `resolve` finds such expressions and turns each into a `Window` of
calendar days; Recall adds a bounded bonus to candidates whose `valid_from`
falls in one (`time_match`), so a turn said on that day moves up among the
candidates the legs found, and nothing else changes when a query names no time.

Understood (case-insensitive, English):

- a day: "7 Jan 2024", "7th of January", "January 7, 2024", "Jan 7th", "2024-01-07",
  "07.01.2024" (day first); without a year, the day of any year;
- a month: "in May", "May 2024", "in early/late May", "the first week of 2024",
  "the first week of January";
- relative to the query's `now`: "today", "yesterday", "the day before yesterday",
  "N days/weeks/months ago", "last/this/next week|month|year|weekend",
  "last Monday", "last May"/"this May". A bare "on Friday" is left alone: it is
  as often "the Friday before <some date>" as the last one.

A bare year ("in 2023") names no window: conversations mostly speak of years as
what was done then ("I started skiing in 2013"), not when it was said.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import MAXYEAR, MINYEAR, date, datetime, timedelta
from typing import ParamSpec

P = ParamSpec("P")

MONTHS = {
    name: number
    for number in range(1, 13)
    for name in (calendar.month_name[number].lower(), calendar.month_abbr[number].lower())
}
MONTHS["sept"] = 9
WEEKDAYS = {calendar.day_name[i].lower(): i for i in range(7)}
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_ORDINAL_WEEKS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}

_MONTH = r"(?P<{}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{}>(?:19|20)\d\d)"
_B = r"(?<![\w-])"
_E = r"(?![\w])"

_DAY_MONTH = re.compile(
    _B
    + _DAY.format("day")
    + r"(?:\s+of)?\s+"
    + _MONTH.format("month")
    + r"(?:,?\s+"
    + _YEAR.format("year")
    + ")?"
    + _E,
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    _B
    + _MONTH.format("month")
    + r"\s+"
    + _DAY.format("day")
    + r"(?:,?\s+"
    + _YEAR.format("year")
    + ")?"
    + _E,
    re.IGNORECASE,
)
_ISO_DAY = re.compile(_B + r"(?P<year>(?:19|20)\d\d)-(?P<month>[01]?\d)-(?P<day>[0-3]?\d)" + _E)
_DOTTED_DAY = re.compile(
    _B + r"(?P<day>[0-3]?\d)[./](?P<month>[01]?\d)[./](?P<year>(?:19|20)\d\d)" + _E
)
_WEEK_OF = re.compile(
    _B
    + r"(?P<nth>first|second|third|fourth|last)\s+week\s+of\s+(?:"
    + _MONTH.format("month")
    + r"(?:,?\s+"
    + _YEAR.format("myear")
    + r")?|"
    + _YEAR.format("year")
    + ")"
    + _E,
    re.IGNORECASE,
)
_MONTH_ALONE = re.compile(
    _B
    + r"(?:(?P<rel>last|this|next|in|during|early|late|mid|of)(?:\s+(?:early|late|mid))?[-\s]+)?"
    + _MONTH.format("month")
    + r"(?:,?\s+"
    + _YEAR.format("year")
    + ")?"
    + _E,
    re.IGNORECASE,
)
_AGO = re.compile(
    _B + r"(?P<n>\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?P<unit>day|week|month|year)s?\s+ago" + _E,
    re.IGNORECASE,
)
_RELATIVE_PERIOD = re.compile(
    _B + r"(?P<rel>last|this|next|past)\s+(?P<unit>week|weekend|month|year)" + _E, re.IGNORECASE
)
_RELATIVE_WEEKDAY = re.compile(
    _B + r"(?P<rel>last|this|next)\s+(?P<weekday>" + "|".join(WEEKDAYS) + r")" + _E,
    re.IGNORECASE,
)
_DAY_WORDS = re.compile(
    _B + r"(?P<word>the\s+day\s+before\s+yesterday|yesterday|today|tonight|tomorrow)" + _E,
    re.IGNORECASE,
)


# Every expression below holds one of these: a query without any is answered
# without running the others (most queries; about 0.2 ms saved on a busy core).
_ANY_TIME_WORD = re.compile(
    r"\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|day|week|month|year|tonight|tomorrow",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Window:
    """Calendar days [first, last], or with `year` None the same days in any year
    (first and last then carry a placeholder leap year)."""

    first: date
    last: date
    any_year: bool = False

    def distance(self, day: date) -> int:
        """Days from `day` to the window (0 inside, negative before it)."""
        if self.any_year:
            best: int | None = None
            # The neighbouring years only where the calendar has them.
            for year in range(max(MINYEAR, day.year - 1), min(MAXYEAR, day.year + 1) + 1):
                shifted = _in_year(self, year)
                d = shifted.distance(day)
                if best is None or abs(d) < abs(best):
                    best = d
            return best if best is not None else 0
        if day < self.first:
            return (day - self.first).days
        if day > self.last:
            return (day - self.last).days
        return 0


@dataclass(frozen=True)
class Resolved:
    """The windows a query names and the spans of its text they came from."""

    windows: tuple[Window, ...]
    spans: tuple[tuple[int, int], ...]

    def __bool__(self) -> bool:
        return bool(self.windows)

    def without_spans(self, text: str) -> str:
        """`text` with the time expressions cut out (the words left to search)."""
        out, position = [], 0
        for start, end in sorted(self.spans):
            out.append(text[position:start])
            position = max(position, end)
        out.append(text[position:])
        return re.sub(r"\s+", " ", " ".join(out)).strip()


NOTHING = Resolved((), ())


def resolve(text: str, now: datetime | date) -> Resolved:
    """Every date window `text` names, resolved against `now` where relative."""
    if not _ANY_TIME_WORD.search(text):
        return NOTHING
    today = now.date() if isinstance(now, datetime) else now
    windows: list[Window] = []
    spans: list[tuple[int, int]] = []

    def taken(m: re.Match[str]) -> bool:
        return any(s < m.end() and m.start() < e for s, e in spans)

    def add(m: re.Match[str], window: Window | None) -> None:
        if window is not None:
            windows.append(window)
            spans.append(m.span())

    for pattern in (_ISO_DAY, _DOTTED_DAY, _DAY_MONTH, _MONTH_DAY):
        for m in pattern.finditer(text):
            if not taken(m):
                add(m, _day(m))
    for m in _WEEK_OF.finditer(text):
        if not taken(m):
            add(m, _week_of(m))
    for m in _MONTH_ALONE.finditer(text):
        if not taken(m):
            add(m, in_calendar(_month, m, today))
    for m in _AGO.finditer(text):
        if not taken(m):
            add(m, in_calendar(_ago, m, today))
    for m in _RELATIVE_PERIOD.finditer(text):
        if not taken(m):
            add(m, in_calendar(_period, m, today))
    for m in _RELATIVE_WEEKDAY.finditer(text):
        if not taken(m):
            add(m, in_calendar(_weekday, m, today))
    for m in _DAY_WORDS.finditer(text):
        if not taken(m):
            add(m, in_calendar(_day_word, m.group("word"), today))
    return Resolved(tuple(windows), tuple(spans)) if windows else NOTHING


def in_calendar(
    build: Callable[P, Window | None], *args: P.args, **kwargs: P.kwargs
) -> Window | None:
    """The window `build(*args)` makes, or None when it would fall outside years 1..9999
    ("10000 years ago", "tomorrow" on 9999-12-31): such a time names no window,
    so the query ranks as if it named none."""
    try:
        return build(*args, **kwargs)
    except (OverflowError, ValueError):
        return None


def time_match(windows: Iterable[Window], said: date, before: int, after: int) -> float:
    """1 when `said` falls in a window, falling linearly to 0 at `before` days
    before it and `after` days after it (things are told after they happen); the
    best over the windows."""
    best = 0.0
    for window in windows:
        d = window.distance(said)
        if d == 0:
            return 1.0
        reach = after if d > 0 else before
        if reach > 0 and abs(d) <= reach:
            best = max(best, 1.0 - abs(d) / (reach + 1))
    return best


# ---- the pieces ---------------------------------------------------------------

_PLACEHOLDER_YEAR = 2000  # a leap year, so 29 February is a day


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _in_year(window: Window, year: int) -> Window:
    first = _safe_date(year, window.first.month, window.first.day) or date(year, 2, 28)
    span = (window.last - window.first).days
    return Window(first, first + timedelta(days=span))


def _day(m: re.Match[str]) -> Window | None:
    month_text = m.group("month")
    month = MONTHS.get(month_text.lower().rstrip(".")) if not month_text.isdigit() else None
    if month is None:
        month = int(month_text) if month_text.isdigit() else 0
    year_text = m.group("year")
    year = int(year_text) if year_text else _PLACEHOLDER_YEAR
    day = _safe_date(year, month, int(m.group("day"))) if 1 <= month <= 12 else None
    if day is None:
        return None
    return Window(day, day, any_year=not year_text)


def _month_window(year: int, month: int, any_year: bool, part: str | None = None) -> Window:
    last_day = calendar.monthrange(year, month)[1]
    first, last = 1, last_day
    if part == "early":
        last = 10
    elif part == "mid":
        first, last = 10, 20
    elif part == "late":
        first = 20
    return Window(date(year, month, first), date(year, month, last), any_year)


def _month(m: re.Match[str], today: date) -> Window | None:
    month = MONTHS[m.group("month").lower().rstrip(".")]
    rel = (m.group("rel") or "").lower()
    word = m.group("month").lower()
    if not rel and not m.group("year") and word in {"may", "march", "mar", "jun", "dec", "sept"}:
        return None  # "may" the verb, "march" the verb: only with a preposition or year
    if m.group("year"):
        part = rel if rel in {"early", "late", "mid"} else None
        return _month_window(int(m.group("year")), month, False, part)
    if rel == "last":
        year = today.year if month < today.month else today.year - 1
        return _month_window(year, month, False)
    if rel == "this":
        return _month_window(today.year, month, False)
    if rel == "next":
        year = today.year if month > today.month else today.year + 1
        return _month_window(year, month, False)
    part = rel if rel in {"early", "late", "mid"} else None
    return _month_window(_PLACEHOLDER_YEAR, month, True, part)


def _week_of(m: re.Match[str]) -> Window | None:
    nth = _ORDINAL_WEEKS[m.group("nth").lower()]
    if m.group("month"):
        month = MONTHS[m.group("month").lower().rstrip(".")]
        year_text = m.group("myear")
        year = int(year_text) if year_text else _PLACEHOLDER_YEAR
        whole = _month_window(year, month, not year_text)
    else:
        year = int(m.group("year"))
        whole = Window(date(year, 1, 1), date(year, 12, 31))
    if nth > 0:
        first = whole.first + timedelta(days=7 * (nth - 1))
    else:
        first = whole.last - timedelta(days=6)
    return Window(first, first + timedelta(days=6), whole.any_year)


def _ago(m: re.Match[str], today: date) -> Window:
    raw = m.group("n").lower()
    n = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
    unit = m.group("unit").lower()
    if unit == "day":
        day = today - timedelta(days=n)
        return Window(day, day)
    if unit == "week":
        middle = today - timedelta(days=7 * n)
        return Window(middle - timedelta(days=3), middle + timedelta(days=3))
    if unit == "month":
        year, month = _shift_month(today.year, today.month, -n)
        return _month_window(year, month, False)
    return Window(date(today.year - n, 1, 1), date(today.year - n, 12, 31))


def _period(m: re.Match[str], today: date) -> Window:
    rel, unit = m.group("rel").lower(), m.group("unit").lower()
    step = {"last": -1, "past": -1, "this": 0, "next": 1}[rel]
    if unit in {"week", "weekend"}:
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        if unit == "weekend":
            return Window(monday + timedelta(days=5), monday + timedelta(days=6))
        if rel == "past":
            return Window(today - timedelta(days=7), today)
        return Window(monday, monday + timedelta(days=6))
    if unit == "month":
        year, month = _shift_month(today.year, today.month, step)
        return _month_window(year, month, False)
    year = today.year + step
    return Window(date(year, 1, 1), date(year, 12, 31))


def _weekday(m: re.Match[str], today: date) -> Window:
    rel, target = m.group("rel").lower(), WEEKDAYS[m.group("weekday").lower()]
    back = (today.weekday() - target) % 7
    if rel == "next":
        ahead = (target - today.weekday()) % 7 or 7
        day = today + timedelta(days=ahead)
    elif rel == "last":
        day = today - timedelta(days=back or 7)
    else:  # "this": the most recent such day, today included
        day = today - timedelta(days=back)
    return Window(day, day)


def _day_word(word: str, today: date) -> Window:
    word = re.sub(r"\s+", " ", word.lower())
    offset = {
        "the day before yesterday": -2,
        "yesterday": -1,
        "today": 0,
        "tonight": 0,
        "tomorrow": 1,
    }[word]
    day = today + timedelta(days=offset)
    return Window(day, day)


def _shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1
