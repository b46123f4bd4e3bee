"""The deterministic miner: one commit in, a decision draft or a reasoned skip out.

It reads the conventional signals of a commit message: the subject is the title,
sentences that give a reason (because, so that, to avoid, instead of, since,
otherwise...) are the rationale, "instead of X" / "rather than X" / "X was tried
but..." are alternatives, and measurements, review findings and issue or CVE
references are evidence, quoted exactly as written. Comments added in the diff
excerpts that give a reason are quoted too. The hunks give the anchors.

Every quote is cut out of its source by position and checked to occur in it
before it is kept (`verbatim`), so a quote can never be a paraphrase.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from engram_server.decisions.anchors import anchors_of, is_lockfile
from engram_server.decisions.identity import decision_identity
from engram_server.decisions.model import (
    Alternative,
    Commit,
    Draft,
    Evidence,
    Origin,
    Skip,
)
from engram_server.decisions.text import TRAILER, Span, flat, sentences

MAX_TITLE_CHARS = 200
MAX_QUOTE_CHARS = 400
MAX_EVIDENCE = 12
MAX_ALTERNATIVES = 6
MAX_RATIONALE_CHARS = 2000
MAX_STATEMENT_CHARS = 600
MAX_ANCHORS = 200

# -- what gives a reason ------------------------------------------------------------

_REASON = re.compile(
    r"\b(?:because|so that|so we|so it|so the|in order to|to avoid|to prevent|to keep"
    r"|to make sure|to ensure|to allow|to reduce|to speed|to fix|to support|to handle"
    r"|instead of|rather than|since (?!v?\d)|otherwise|due to|caused by|causes?|leads? to"
    r"|the reason|the problem|the issue|this (?:avoids|prevents|fixes|allows|means|makes"
    r"|ensures|keeps|reduces|improves)|which (?:means|caused|made|breaks)|as a result"
    r"|required (?:by|for)|needed (?:by|for|to)|is necessary|unnecessary|we need|needs to"
    r"|was (?:slow|broken|wrong|racy|flaky|unsafe)|too (?:slow|many|much|large|expensive)"
    r"|not thread-safe|deadlock|race condition|regression|workaround|work around"
    r"|does not work|doesn't work|did not work|didn't work|broke|breaks|fails?\b|failed)",
    re.IGNORECASE,
)
# The words that state a reason outright, as opposed to ones that only mention
# trouble ("fails", "regression") or a need: a sentence with one of these is
# the "why"; the others are the why only when no sentence states one.
_STATED_REASON = re.compile(
    r"[,;]\s*so\b|\b(?:because|so that|so (?:we|it|the|that|users?|callers?)|in order to"
    r"|to (?:avoid|prevent|keep|make sure|ensure|allow|reduce|fix|support|handle)|otherwise"
    r"|since (?!v?\d)|due to"
    r"|caused by|the reason|this (?:avoids|prevents|fixes|allows|means|makes|ensures|keeps"
    r"|reduces|improves)|which (?:means|caused|made|breaks)|as a result|instead of|rather than)\b",
    re.IGNORECASE,
)
# A sentence that sets itself aside from the change's point.
_SIDE_REMARK = re.compile(
    r"^(?:\(|note:?\b|nb:?\b|n\.b\.|also\b|incidentally|by the way|btw\b|ps:?\b|p\.s\."
    r"|unrelated|as a side|while (?:i was|we were|at it|here)|drive-by)",
    re.IGNORECASE,
)
MAX_REASON_SENTENCES = 3
_MEASUREMENT = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ms|µs|us|ns|s|secs?|seconds?|minutes?|mins?|hours?|h"
    r"|%|x|\u00d7|[KMGT]i?B|bytes?|[kKM]?req/s|rps|qps|ops/s|/s|fps|MHz|GHz|tokens|times"
    r"|lines|allocations?|allocs|percent|faster|slower)(?![\w])",
)
_REVIEW = re.compile(
    r"\b(?:review(?:er|ers|ed)?|audit(?:ed)?|benchmark(?:s|ed)?|profil(?:e|ed|ing)|measured"
    r"|found that|reported|flame ?graph)\b",
    re.IGNORECASE,
)
_REFERENCE = re.compile(
    r"(?:\bCVE-\d{4}-\d{4,}\b|\bGHSA-[\w-]+|(?<![\w&/])#\d+\b|\bGH-\d+\b"
    r"|https?://\S+/(?:issues|pull|pulls|merge_requests|bugs?|show_bug\.cgi)\S*)",
    re.IGNORECASE,
)
_CLOSES = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see)\b:?\s+(?:#\d+|GH-\d+|https?://\S+)",
    re.IGNORECASE,
)

# -- alternatives ---------------------------------------------------------------------

_ALT_END = r"(?=\s*(?:[,.;:)]|\s(?:because|since|as|which|but|so|and then|for)\b|$))"
_ALTERNATIVES = [
    re.compile(rf"\binstead of (?P<alt>.{{3,120}}?){_ALT_END}", re.IGNORECASE),
    re.compile(rf"\brather than (?P<alt>.{{3,120}}?){_ALT_END}", re.IGNORECASE),
    re.compile(
        r"(?:\b(?:we|I)(?: also)? |^(?:also )?)(?:considered|tried|evaluated|looked at)"
        rf" (?:using |adding |switching to )?(?P<alt>.{{3,120}}?){_ALT_END}",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:^|[.;]\s+)(?P<alt>[A-Z][^.;]{2,100}?) (?:was|were) (?:tried|considered|attempted)"
        r"(?: first)?,? but (?P<why>[^.;]{3,200})",
    ),
    re.compile(r"\balternatives?(?: considered)?: (?P<alt>[^.;\n]{3,120})", re.IGNORECASE),
]
_WHY_REJECTED = re.compile(
    r"\b(?:because|since|as|but|which)\b\s+(?P<why>[^.;]{3,200})", re.IGNORECASE
)

# -- skipping -------------------------------------------------------------------------

_FIXUP = re.compile(r"^(?:fixup|squash|amend)! ", re.IGNORECASE)
# A subject whose whole point is formatting: it leads (after an area or
# conventional prefix) with reformatting, a formatter's name or whitespace.
# "format" elsewhere in a subject names a feature (`res.format`, "add a --format
# option"), not a formatting pass, and a `style:` prefix is used for lint fixes
# and refactors as often as for formatting.
_FORMATTERS = (
    r"(?:cargo\s+fmt|go\s*fmt|gofmt|rustfmt|black|prettier|ruff\s+format|isort|clang-format"
    r"|yapf|autopep8|standardrb|rubocop\s+-a|ktlint|spotless|google-java-format|fmt)"
)
_FORMATTING = re.compile(
    r"^(?:(?:re)?format(?:ting|ted|s)?(?:\s+(?:the\s+|all\s+)?(?:code(?:\s*base)?|files?"
    r"|sources?|source\s+code|everything|all|tests?|project|repo(?:sitory)?))?"
    r"(?:\s+(?:with|using|by)\s+\S+)?\s*[.!]?$"
    r"|(?:fix(?:ed|es)?|apply|applied|run|ran|re-?run)\s+(?:the\s+)?(?:code\s+)?"
    r"(?:formatting|format|indentation|whitespace|style)(?:\s+(?:issues?|errors?|nits?))?"
    r"\s*[.!]?$"
    r"|(?:(?:run|ran|apply|applied|re-?run)\s+)?" + _FORMATTERS + r"(?:\s*[.!]?$|\s+(?:over|on"
    r"|to|for|with|the|all|code|files?|changes?|fixes|run|pass|everything)\b)"
    r"|(?:(?:fix|fixed|remove|removed|strip|trim|clean\s*up|cleanup)\s+)?(?:trailing\s+)?"
    r"(?:whitespaces?|spaces|tabs|indentation)(?:\s+(?:in|from|of)\s+\S+)?\s*[.!]?$"
    r"|whitespace\b"
    r"|formatting(?:\s+(?:fix(?:es)?|changes?|only|cleanup))?\s*[.!]?$"
    r"|lint(?:ing)?\s+fix(?:es)?|code\s+style|style\s+fix(?:es)?)",
    re.IGNORECASE,
)


def is_formatting_only(subject: str) -> bool:
    """Whether a subject says the commit only reformats (see `_FORMATTING`)."""
    text = _CONVENTIONAL.sub("", subject.strip(), count=1)
    text = _BRACKET_PREFIX.sub("", text)
    text = _AREA_PREFIX.sub("", text, count=1).strip()
    return bool(_FORMATTING.match(text))


_TRIVIAL = re.compile(
    r"^(?:(?:fix(?:ed)?|correct(?:ed)?) )?(?:a |some )?typos?\b|^wip\b|^tmp\b|^oops\b"
    r"|^(?:bump|update) (?:the )?version\b|^(?:release|version|prepare release|tag)\s*v?\d"
    r"|^v?\d+\.\d+(?:\.\d+)?\S*$|^merge (?:branch|remote-tracking branch|tag) "
    r"|^update (?:readme|changelog|changes|authors|contributors|copyright)\S*\s*$"
    r"|^(?:changelog|readme)\b",
    re.IGNORECASE,
)
_MERGE_SUBJECT = re.compile(r"^Merge (?:pull request|branch|remote-tracking branch|tag)\b")

# -- reverts --------------------------------------------------------------------------

_REVERT_SUBJECT = re.compile(r'^Revert\s+"(?P<title>.+)"\s*$')
_REAPPLY_SUBJECT = re.compile(r'^Reapply\s+"(?P<title>.+)"\s*$')
_REVERTS_SHA = re.compile(r"\bThis reverts commit (?P<sha>[0-9a-f]{7,64})\b", re.IGNORECASE)
_REPLACES_SHA = re.compile(
    r"\b(?:supersedes|replaces|superseding|replacing)\s+(?:commit\s+)?(?P<sha>[0-9a-f]{7,64})\b",
    re.IGNORECASE,
)

# -- titles ---------------------------------------------------------------------------

_CONVENTIONAL = re.compile(
    r"^(?P<type>feat|fix|perf|refactor|docs|test|tests|build|ci|chore|style|revert|deps"
    r"|security|sec)(?:\([^)]*\))?!?:\s*",
    re.IGNORECASE,
)
_BRACKET_PREFIX = re.compile(r"^(?:\[[^\]]{1,40}\]\s*)+")
_AREA_PREFIX = re.compile(r"^[\w./-]{1,40}:\s+(?=\S)")


@dataclass(frozen=True)
class Mined:
    """The result of mining one commit: a draft, or a skip with its reason."""

    draft: Draft | None
    skip: Skip | None = None
    # A commit this one explicitly replaces (its decision is superseded).
    replaces: str = ""


def clean_title(subject: str) -> tuple[str, str]:
    """(title, conventional type) from a subject line."""
    text = subject.strip()
    kind = ""
    conventional = _CONVENTIONAL.match(text)
    if conventional:
        kind = conventional.group("type").lower()
        text = text[conventional.end() :]
    text = _BRACKET_PREFIX.sub("", text).strip()
    first = text.split(" ", 1)[0]
    # A sentence starts with a capital; a path, a command or an identifier keeps its case.
    if text[:1].islower() and first.isalpha():
        text = text[:1].upper() + text[1:]
    return text[:MAX_TITLE_CHARS].strip(), kind


def question_for(title: str) -> str:
    base = title.rstrip(" .!")
    if not base:
        return ""
    first = base.split(" ", 1)[0]
    if (first.isupper() and len(first) > 1) or any(ch.isupper() for ch in first[1:]):
        lead = base  # an acronym or an identifier keeps its case
    else:
        lead = base[:1].lower() + base[1:]
    return f"Why {lead}?"


def verbatim(quote: str, source: str) -> bool:
    """Whether `quote` occurs exactly (byte for byte) in `source`."""
    return bool(quote) and quote in source


def mine(commit: Commit, *, max_anchors: int = MAX_ANCHORS) -> Mined:
    """Mines one commit. Pure: the same commit always gives the same result."""
    subject = commit.subject
    body = commit.body
    if not subject:
        return Mined(None, Skip("empty commit message"))
    if len(commit.parents) > 1 and not commit.files:
        return Mined(None, Skip("merge commit without a change of its own"))
    if _FIXUP.match(subject):
        return Mined(None, Skip("fixup commit, meant to be folded into another"))

    message = commit.message
    body_offset = message.find(body) if body else len(message)
    spans = [s for s in sentences(message, body_offset, len(body)) if not TRAILER.match(s.text)]
    # Each signal's pattern runs once over the whole message; sentences are then
    # tagged by the positions of the matches (a search per sentence cost 3x more).
    reason_at = _positions(_REASON, message, body_offset)
    reasons = [s for s in spans if _within(reason_at, s)]
    subject_reason = bool(_REASON.search(subject))
    stated_reason = bool(reasons) or subject_reason

    if commit.files and all(is_lockfile(f.path) for f in commit.files) and not stated_reason:
        return Mined(None, Skip("lockfile-only change without a stated reason"))
    if is_formatting_only(subject) and not stated_reason and not _REFERENCE.search(subject):
        return Mined(None, Skip("formatting only"))
    if _TRIVIAL.search(subject) and not body:
        return Mined(None, Skip("trivial change without a stated reason"))

    revert = _REVERT_SUBJECT.match(subject)
    reverted_sha = ""
    sha_match = _REVERTS_SHA.search(body)
    if sha_match:
        reverted_sha = sha_match.group("sha").lower()
    restores_title = ""
    title, kind = clean_title(subject)
    tags: list[str] = []
    if kind:
        tags.append(kind)
    if revert is not None or reverted_sha:
        tags.append("revert")
        inner = revert.group("title") if revert else ""
        twice = _REVERT_SUBJECT.match(inner) if inner else None
        if twice is not None:
            restores_title = clean_title(twice.group("title"))[0]
    reapply = _REAPPLY_SUBJECT.match(subject)
    if reapply is not None:
        restores_title = clean_title(reapply.group("title"))[0]
    if restores_title:
        tags.append("restore")
    if _MERGE_SUBJECT.match(subject):
        tags.append("merge")
    if not title:
        return Mined(None, Skip("empty commit message"))

    rationale_spans = reason_sentences([s for s in reasons if not _REVERTS_SHA.search(s.text)])
    rationale = " ".join(s.flat for s in rationale_spans)[:MAX_RATIONALE_CHARS]
    if not rationale and subject_reason:
        rationale = flat(subject)
    statement_spans = [
        s
        for s in spans
        if s not in rationale_spans
        and not _REVERTS_SHA.search(s.text)
        and not _only_reference(s.text)
        and len(s.text) > 12
    ][:2]
    statement = " ".join(s.flat for s in statement_spans)[:MAX_STATEMENT_CHARS] or title

    evidence = _evidence(commit, message, subject, spans)
    alternatives = _alternatives([flat(subject), *(s.flat for s in spans)])
    replaces = ""
    replaced = _REPLACES_SHA.search(body)
    if replaced:
        replaces = replaced.group("sha").lower()
    draft = Draft(
        identity=decision_identity(title, commit.author_time),
        title=title,
        statement=statement,
        rationale=rationale,
        question=question_for(title),
        decision_time=commit.author_time,
        author=commit.author_name,
        alternatives=tuple(alternatives),
        evidence=tuple(evidence),
        anchors=tuple(anchors_of(commit.sha, commit.files, max_anchors)),
        commits=(commit.sha,),
        tags=tuple(dict.fromkeys(tags)),
        origin=Origin.COMMIT,
        reverts=reverted_sha,
        restores_title=restores_title,
    )
    return Mined(draft, None, replaces)


# Case-insensitive scans of a whole message run as case-sensitive twins over its
# lower case (2.5x faster in CPython's re); valid because these two patterns are
# written in lower case and lowering keeps the offsets (checked per text).
_LOWER_TWINS = {
    _REASON: re.compile(_REASON.pattern),
    _REVIEW: re.compile(_REVIEW.pattern),
}


def reason_sentences(spans: Sequence[Span]) -> list[Span]:
    """The sentences that give the reason, in message order: those stating one
    outright ("because", "so that", "to avoid", "otherwise") and not set aside as
    a remark ("Also, ...", "(...)"); else the side remarks that state one; else
    the ones that only name trouble ("fails", "regression")."""
    stated = [s for s in spans if _STATED_REASON.search(s.text)]
    central = [s for s in stated if not _SIDE_REMARK.match(s.text)]
    return (central or stated or list(spans))[:MAX_REASON_SENTENCES]


def _positions(pattern: re.Pattern[str], text: str, start: int) -> list[int]:
    """Start offsets of `pattern`'s matches in `text` from `start` on, ascending."""
    twin = _LOWER_TWINS.get(pattern)
    if twin is not None:
        low = text.lower()
        if len(low) == len(text):
            return [m.start() for m in twin.finditer(low, start)]
    return [m.start() for m in pattern.finditer(text, start)]


def _within(positions: Sequence[int], span: Span) -> bool:
    at = bisect.bisect_left(positions, span.start)
    return at < len(positions) and positions[at] < span.end


def _only_reference(text: str) -> bool:
    return bool(_CLOSES.fullmatch(text.strip().rstrip(".")))


def _evidence(commit: Commit, message: str, subject: str, spans: Sequence[Span]) -> list[Evidence]:
    out: list[Evidence] = []
    seen: set[str] = set()

    def keep(quote: str, source: str, origin: Origin, path: str = "") -> None:
        quote = quote.strip()
        if len(quote) > MAX_QUOTE_CHARS or quote in seen or len(out) >= MAX_EVIDENCE:
            return
        if not verbatim(quote, source):
            return
        seen.add(quote)
        out.append(Evidence(quote, origin, commit.sha, path))

    for ref in _REFERENCE.finditer(subject):
        keep(ref.group(0), message, Origin.COMMIT)
    start = spans[0].start if spans else len(message)
    signals = sorted(
        [
            *_positions(_MEASUREMENT, message, start),
            *_positions(_REVIEW, message, start),
            *_positions(_CLOSES, message, start),
            *_positions(_REFERENCE, message, start),
        ]
    )
    for span in spans:
        if _within(signals, span):
            keep(_narrow(span.text), message, Origin.COMMIT)
    for f in commit.files:
        for h in f.hunks:
            for quote in _reasoned_comments(h.excerpt):
                keep(quote, h.excerpt, Origin.DIFF, f.path)
    for quote in _reasoned_comments(commit.diff_excerpt):
        keep(quote, commit.diff_excerpt, Origin.DIFF)
    return out


def _narrow(text: str) -> str:
    """A long sentence is quoted by its first line that carries the signal."""
    if len(text) <= MAX_QUOTE_CHARS:
        return text
    for line in text.splitlines():
        line = line.strip()
        if line and (_MEASUREMENT.search(line) or _REFERENCE.search(line) or _REVIEW.search(line)):
            return line[:MAX_QUOTE_CHARS] if len(line) > MAX_QUOTE_CHARS else line
    return text[:MAX_QUOTE_CHARS]


_COMMENT = re.compile(r"^\+?\s*(?:#|//|--|/?\*+|;;)\s?(?P<text>.+?)\s*(?:\*/)?$")


def _reasoned_comments(excerpt: str) -> list[str]:
    """Comment text on added lines of a diff excerpt that gives a reason."""
    if not excerpt or not (_REASON.search(excerpt) or _MEASUREMENT.search(excerpt)):
        return []
    out: list[str] = []
    for line in excerpt.splitlines():
        if line.startswith("-") or line.startswith("---") or line.startswith("+++"):
            continue
        match = _COMMENT.match(line)
        if match is None:
            continue
        text = match.group("text").strip()
        if len(text) >= 12 and (_REASON.search(text) or _MEASUREMENT.search(text)):
            out.append(text)
    return out


def _alternatives(texts: Sequence[str]) -> list[Alternative]:
    out: list[Alternative] = []
    seen: set[str] = set()
    for text in texts:
        for pattern in _ALTERNATIVES:
            for match in pattern.finditer(text):
                alt = match.group("alt").strip(" ,;:\"'`")
                if len(alt) < 3 or alt.lower() in seen:
                    continue
                why = ""
                groups = match.groupdict()
                if groups.get("why"):
                    why = groups["why"].strip()
                else:
                    rest = text[match.end() :]
                    reason = _WHY_REJECTED.search(rest[:240])
                    if reason and reason.start() < 20:
                        why = reason.group("why").strip()
                seen.add(alt.lower())
                out.append(Alternative(alt, why))
                if len(out) >= MAX_ALTERNATIVES:
                    return out
    return out
