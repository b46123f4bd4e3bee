"""Time anchored on another event or date: "four weeks after he broke his wrist".

`when` resolves times that stand on their own ("in May 2024", "last week"). A
question can also name a time by its distance from something else: "what did
Oskar start doing about four weeks after he broke his wrist?", "the week after
his dog's birthday", "the Friday before 10.01.2024". `parse` finds such an
expression: an offset (a number of days, weeks or months, "the day / week /
weekend / month", a weekday, "shortly"), a direction (after / before) and the
anchor (the rest of the clause). An anchor that is a date `when` understands
gives the window at once (`window_from`); an event anchor needs the day it
happened, which Recall takes from the memories that tell it (`anchor_days`: the
candidates it already holds whose text covers the anchor's words), then the
window is computed from that day the same way.

Conservative by design: a bare "after X" with no offset, an anchor phrase with
no content word, or an event no candidate clearly tells yields nothing, and
Recall then ranks exactly as without this module. English only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from engram_server.lexical.analyzer import analyze
from engram_server.recall import when

# Counts told in words: when's (one to ten), and the larger and vaguer ones an
# offset from an event is told with ("a couple of weeks", "fifteen days").
_NUMBERS = {
    **when.NUMBER_WORDS,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "a couple of": 2,
    "a few": 3,
    "several": 4,
}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30}
_B = r"(?<![\w-])"
_NUMBER = (
    r"(?P<n>\d{1,3}|"
    + "|".join(sorted((re.escape(k) for k in _NUMBERS), key=len, reverse=True))
    + r")(?P<half>\s+and\s+a\s+half)?"
)
_DIRECTION = r"(?P<dir>after|before|later\s+than|earlier\s+than|following|prior\s+to)"
# The anchor: the rest of the clause (up to a stop mark or a new clause).
# A dot, colon or comma between digits ("10.01.2024", "January 7, 2024") is part of it.
_ANCHOR = (
    r"\s+(?P<anchor>(?:[^?.!;,:\n]|[.,:/](?=\s*\d))+?)"
    r"\s*(?=$|[?!;\n]|[.,:](?!\s*\d)|\s+(?:and|but|or|while|when)\s)"
)
_HEDGE = r"(?P<hedge>about|around|roughly|approximately|nearly|almost|some|maybe|like)\s+"

_COUNTED = re.compile(
    _B + rf"(?:{_HEDGE})?" + _NUMBER + r"\s+(?P<unit>day|week|month)s?\s+" + _DIRECTION + _ANCHOR,
    re.IGNORECASE,
)
_THE_PERIOD = re.compile(
    _B
    + r"the\s+(?:(?P<nth>first|second|same)\s+)?(?P<period>day|week|weekend|month|"
    + "|".join(when.WEEKDAYS)
    + r")\s+"
    + _DIRECTION
    + _ANCHOR,
    re.IGNORECASE,
)
_WEEKDAY = re.compile(
    _B + r"(?:on\s+)?(?P<period>" + "|".join(when.WEEKDAYS) + r")\s+" + _DIRECTION + _ANCHOR,
    re.IGNORECASE,
)
_SHORTLY = re.compile(
    _B + r"(?P<hedge>shortly|just|right|soon|immediately)\s+" + _DIRECTION + _ANCHOR,
    re.IGNORECASE,
)
# Every expression above holds one of these words; a query without one costs one scan.
_ANY_DIRECTION = re.compile(r"after|before|later|earlier|following|prior", re.IGNORECASE)
# An anchor made only of these names no event: "the week before last", "two days
# later than planned".
_NOT_EVENTS = {
    "he", "she", "they", "i", "we", "you", "it", "that", "this", "then", "now",
    "last", "next", "planned", "expected", "scheduled", "usual", "agreed",
}  # fmt: skip


@dataclass(frozen=True)
class Anchored:
    """One anchored time expression of a query.

    The target window is `first`..`last` days from the anchor day, after it when
    `after`, before it otherwise (then `first` counts back from the anchor's first
    day); `weekday`, when set, names the one weekday nearest the anchor that way."""

    span: tuple[int, int]
    after: bool
    first: int
    last: int
    anchor: str
    weekday: int | None = None

    def window_from(self, anchor: when.Window) -> when.Window | None:
        """The target window, given the anchor's own window (None when it falls
        outside the calendar)."""
        return when.in_calendar(self._window_from, anchor)

    def _window_from(self, anchor: when.Window) -> when.Window:
        if self.weekday is not None:
            if self.after:
                ahead = (self.weekday - anchor.last.weekday()) % 7 or 7
                day = anchor.last + timedelta(days=ahead)
            else:
                back = (anchor.first.weekday() - self.weekday) % 7 or 7
                day = anchor.first - timedelta(days=back)
            return when.Window(day, day, anchor.any_year)
        if self.after:
            first = anchor.last + timedelta(days=self.first)
            return when.Window(first, anchor.last + timedelta(days=self.last), anchor.any_year)
        return when.Window(
            anchor.first - timedelta(days=self.last),
            anchor.first - timedelta(days=self.first),
            anchor.any_year,
        )

    def terms(self) -> tuple[str, ...]:
        """The anchor's index terms (what a memory telling the event should hold),
        without the words of a time it names ("his birthday in May")."""
        return tuple(dict.fromkeys(analyze(_without_time(self.anchor))))


def parse(text: str) -> Anchored | None:
    """The first anchored time expression of `text`, if any."""
    if not _ANY_DIRECTION.search(text):
        return None
    found: list[Anchored] = []
    for m in _COUNTED.finditer(text):
        found.append(_counted(m))
    for m in _THE_PERIOD.finditer(text):
        found.append(_the_period(m))
    for m in _WEEKDAY.finditer(text):
        found.append(_anchored(m, 1, 7, when.WEEKDAYS[m.group("period").lower()]))
    for m in _SHORTLY.finditer(text):
        found.append(_anchored(m, 0, 3))
    found = [a for a in found if _has_content(a.anchor)]
    return min(found, key=lambda a: a.span[0]) if found else None


def resolve(
    text: str, now: datetime | date, named: when.Resolved
) -> tuple[Anchored | None, when.Resolved]:
    """The anchored expression of `text`, and the windows to rank by once a date
    anchor is applied: a date anchor's own window (which `when` found as a time of
    its own) is replaced by the target window; an event anchor leaves `named` as is
    until its day is found (`with_anchor_days`)."""
    anchored = parse(text)
    if anchored is None:
        return None, named
    own = when.resolve(anchored.anchor, now)
    if not own or anchored.terms():
        return anchored, named  # an event (maybe with a time of its own), or nothing known
    windows = tuple(w for a in own.windows if (w := anchored.window_from(a)) is not None)
    return None, _replace_inside(named, anchored.span, windows)


def with_anchor_days(
    named: when.Resolved, anchored: Anchored, days: Sequence[date]
) -> when.Resolved:
    """`named` with the target windows of an event anchor said on `days`."""
    if not days:
        return named
    targets = (anchored.window_from(when.Window(d, d)) for d in days)
    windows = tuple(w for w in targets if w is not None)
    return _replace_inside(named, anchored.span, windows)


@dataclass(frozen=True)
class Told:
    """A candidate memory that may tell the anchor event: its text, the day it was
    said, its relevance to the whole query (for ties) and what names it."""

    text: str
    said: date | None
    score: float
    key: object = None


@dataclass(frozen=True)
class Anchor:
    """The days the anchor event was told, and the candidates that tell it (they
    answer part of the question: it presupposes the event)."""

    days: tuple[date, ...] = ()
    told: frozenset[object] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.days)


NO_ANCHOR = Anchor()


# At most this many distinct days (a day or two apart counting as one) may tell
# the anchor event equally well; beyond that nothing is clear and nothing is used.
MAX_ANCHOR_DAYS = 2
_SAME_EVENT_DAYS = 2


def find_anchor(terms: Sequence[str], candidates: Iterable[Told]) -> Anchor:
    """The anchor event, from the candidates that cover its terms best: every term
    when it has one or two, at least half (and two) otherwise. Candidates without a
    day are skipped. Terms are matched as word prefixes of the text (the index terms
    are stems), which costs one regular expression per candidate instead of
    analysing its text. Told on more than `MAX_ANCHOR_DAYS` days: nothing."""
    if not terms:
        return NO_ANCHOR
    need = len(terms) if len(terms) <= 2 else max(2, (len(terms) + 1) // 2)
    pattern = re.compile(r"(?<![a-z0-9])(" + "|".join(map(_prefix, terms)) + ")", re.IGNORECASE)
    best = 0
    told: list[Told] = []
    for c in candidates:
        if c.said is None:
            continue
        covered = len({_stem_of(m, terms) for m in pattern.findall(c.text)})
        if covered < need or covered < best:
            continue
        if covered > best:
            best, told = covered, []
        told.append(c)
    told.sort(key=lambda c: -c.score)
    days: list[date] = []
    for c in told:
        assert c.said is not None
        if all(abs((c.said - d).days) > _SAME_EVENT_DAYS for d in days):
            days.append(c.said)
    if not days or len(days) > MAX_ANCHOR_DAYS:
        return NO_ANCHOR
    return Anchor(tuple(days), frozenset(c.key for c in told))


# ---- the pieces ---------------------------------------------------------------


def _prefix(term: str) -> str:
    """A term as the start of a word: a stem cut to "i" also starts with "y"
    ("tini" for "tiny")."""
    if len(term) > 3 and term.endswith("i"):
        return re.escape(term[:-1]) + "[iy]"
    return re.escape(term)


def _stem_of(found: str, terms: Sequence[str]) -> str:
    found = found.lower()
    return found[:-1] + "i" if found.endswith("y") and found[:-1] + "i" in terms else found


def _count(m: re.Match[str]) -> float:
    raw = re.sub(r"\s+", " ", m.group("n").lower())
    n = float(raw) if raw.isdigit() else float(_NUMBERS[raw])
    return n + (0.5 if m.group("half") else 0.0)


def _counted(m: re.Match[str]) -> Anchored:
    days = _count(m) * _UNIT_DAYS[m.group("unit").lower()]
    # A told distance is rounded ("about four weeks" is 25-31 days): a fifth of
    # it either way, at least a day (days) or half a week (weeks and months).
    minimum = 1 if m.group("unit").lower() == "day" else 3
    slack = max(minimum, round(days * 0.2))
    centre = round(days)
    return _anchored(m, max(1, centre - slack), centre + slack)


def _the_period(m: re.Match[str]) -> Anchored:
    period = m.group("period").lower()
    if period in when.WEEKDAYS:
        return _anchored(m, 1, 7, when.WEEKDAYS[period])
    first, last = {"day": (1, 1), "week": (1, 9), "weekend": (1, 8), "month": (1, 35)}[period]
    return _anchored(m, first, last)


def _anchored(m: re.Match[str], first: int, last: int, weekday: int | None = None) -> Anchored:
    direction = re.sub(r"\s+", " ", m.group("dir").lower())
    after = direction in {"after", "later than", "following"}
    return Anchored(m.span(), after, first, last, m.group("anchor").strip(), weekday)


def _without_time(anchor: str) -> str:
    # The spans `when` finds do not depend on the day it resolves against.
    return when.resolve(anchor, _ANY_DAY).without_spans(anchor)


_ANY_DAY = date(2000, 1, 1)


def _has_content(anchor: str) -> bool:
    words = re.findall(r"[\w']+", anchor.lower())
    return bool(words) and not all(w in _NOT_EVENTS for w in words)


def _replace_inside(
    named: when.Resolved, span: tuple[int, int], windows: tuple[when.Window, ...]
) -> when.Resolved:
    start, end = span
    kept = [
        (w, s) for w, s in zip(named.windows, named.spans, strict=True) if not start <= s[0] < end
    ]
    return when.Resolved(
        tuple(w for w, _ in kept) + windows, tuple(s for _, s in kept) + (span,) * len(windows)
    )
