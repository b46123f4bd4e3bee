"""The commit leg of answering: BM25F over whole commits, origin routing, confidence.

A decision is found by the commit it came from, read whole: its subject, its
body and trailers, the paths it changed (old names of renames included), the
code context its hunks name (the enclosing function or section git prints after
`@@`, and the comment lines it added), the names its diff introduced or removed,
and the lines it added to documentation (a changelog entry, a README section, a
man page's option text, which say what the change does in its users' words).
Each field is scored with its own length normalisation and weight (BM25F): a
two-word subject that names the question's words is not buried under a long
body that repeats them once each, and a word in the subject counts more than
the same word deep in a body.

Origin questions ("when was X first added", "what was it called before",
"where did X come from") ask about the commit that introduced X, not the later
ones that mention it. For those, each specific word of the question also votes
for the oldest commit that carries it in its subject, paths or code context, as
strongly as that commit carries it: an initial import that mentions every word
once among thousands of lines is not where each of them came from.
Recency questions ("why did the crates adopt the newest edition") are their
mirror: each word votes for the newest commit carrying it.

`confidence` says how much of the question the best commit covers (the share of
the question's inverse document frequency it matches), times the share of the
names the question uses (SQLite, PCRE2, HTTP/3: words written with a capital or
a digit) that the repository's history mentions anywhere. A question about
something the history never mentions matches only common words, or names a
thing no commit, path or diff ever did, and the answer then abstains.

Pure: no I/O; the terms come from `lexical.analyze`, the same for documents and
questions.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from engram.git import is_documentation

from engram_server.decisions.model import Commit
from engram_server.lexical import analyze

FIELDS = ("subject", "body", "paths", "code", "symbols", "docs")


@dataclass(frozen=True)
class FieldParams:
    weight: float
    b: float  # length normalisation: 0 none, 1 full


# Tuned on the development questions (eval/datasets/decisions, dev split).
PARAMS: dict[str, FieldParams] = {
    "subject": FieldParams(3.0, 0.75),
    "body": FieldParams(1.0, 0.75),
    "paths": FieldParams(1.0, 0.5),
    "code": FieldParams(0.5, 0.75),
    "symbols": FieldParams(1.0, 0.75),
    # Prose like a body's, weighed like one; it does not vote for origins: a README
    # mentions an option in many later commits, not only in the one that added it.
    "docs": FieldParams(1.0, 0.75),
}
K1 = 1.2
_FIELD_PARAMS = tuple(PARAMS[name] for name in FIELDS)
_ALL_FIELDS = tuple(range(len(FIELDS)))
# The saturation of a word said once in an average-length subject: the strength of
# an origin vote from the commit that names a word in its subject.
_SUBJECT_ONCE = PARAMS["subject"].weight / (K1 + PARAMS["subject"].weight)
# Origin routing: how much an "oldest commit carrying this word" vote weighs,
# relative to the word's BM25F contribution, and which fields count as carrying it.
ORIGIN_WEIGHT = 1.0
ORIGIN_FIELDS = ("subject", "paths", "code", "symbols")
# Words a question uses to ask, which say nothing about what it asks about.
QUESTION_WORDS = frozenset(
    analyze(
        """why when what which who whom whose where how does did do was were is are has
        have had happen happened ever still now no not longer anymore get got make made
        use used project repository repo code commit change changed"""
    )
)
# What a question asks for, in the words commits use for it: "no longer" asks
# about a removal, "called before" about a rename. These terms are added to the
# question's, at EXPANSION_WEIGHT.
EXPANSION_WEIGHT = 0.7
_INTENTS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), tuple(analyze(words)))
    for pattern, words in (
        (
            r"\b(?:no longer|any ?more|stop(?:ped|s)?|drop(?:ped|s)?|remov\w*|taken out"
            r"|took out|got rid|get rid|delet\w*|gone|went away|disappear\w*|dead"
            r"|what happened to)\b",
            "remove drop delete replace switch",
        ),
        (
            r"\b(?:first (?:added|introduced)|introduc\w*|originally|come from|came from)\b",
            "add introduce initial",
        ),
        (
            r"\b(?:called before|named before|old name|former name|previous name|renam\w*"
            r"|(?:was|were) (?:\S+ ){1,8}?(?:called|named) (?:in|before|at first|originally)"
            r"|used to be called|new name)\b",
            "rename deprecate",
        ),
        (
            r"\b(?:mov(?:e|ed|es) (?:from|to|out|away)|switch\w*|migrat\w*|replac\w*"
            r"|in favou?r of|port(?:ed)? to|convert\w*|instead of)\b",
            "switch migrate replace port move",
        ),
        (
            r"\b(?:minimum|msrv|raised?|bump\w*|requir\w* (?:version|\d)|upgrad\w*|newer)\b",
            "bump upgrade minimum",
        ),
        (
            r"\b(?:workaround|work around|special[- ]case|skip\w*|disabl\w*)\b",
            "workaround avoid",
        ),
    )
)
# A question about a removal ("why was X taken out", "no longer") is not answered
# by the commit that added X: a commit whose subject leads with an adding verb
# scores OPPOSITE_ACTION times its score for it.
OPPOSITE_ACTION = 0.6
_ADDING = frozenset(analyze("add added adds adding introduce introduced implement support create"))
# ...nor by one that updates X, which was still there then.
_KEEPING = _ADDING | frozenset(analyze("update updated bump bumped upgrade upgraded"))
_REMOVING = frozenset(analyze("remove removed removes drop dropped delete deleted revert reverted"))
_SHORT_FLAG = re.compile(r"(?<![\w-])-([A-Za-z0-9])\b")
# Words that make a question an origin question: they vote for no commit's age.
_ORIGIN_WORDS = frozenset(
    analyze(
        "first firstly added add introduced introduce original originally called named"
        " renamed before earlier former previous old come came created born appeared"
        " appear implemented implement supported shipped landed written became become"
        " since version release inception origin"
    )
)
_ORIGIN = re.compile(
    r"\b(?:first(?:ly)?\s+(?:added|introduced|appeared|appear|created|written|implemented"
    r"|used|supported|shipped|landed)|(?:was|were)\s+(?:\S+\s+){0,6}?(?:introduced|added|"
    r"created|born)\b|introduc(?:e|ed|es|ing|tion)\b|original(?:ly)?\b|called\s+before"
    r"|named\s+before|(?:old|previous|former|earlier)\s+name|renamed\s+from|used\s+to\s+be"
    r"\s+called|(?:was|were)\s+(?:\S+\s+){1,8}?(?:called|named)\s+(?:in|at\s+first|originally)\b"
    r"|come\s+from|came\s+from|(?:since|in)\s+which\s+(?:version|release)"
    r"|how\s+long\s+has|inception|origin(?:s|ated)?\b)",
    re.IGNORECASE,
)


# Recency questions ("why did X adopt the newest edition", "the latest change to
# Y") ask about the newest of several similar commits: each specific word votes
# for the newest commit carrying it, as origin questions vote for the oldest.
_LATEST = re.compile(r"\b(?:newest|latest|most\s+recent(?:ly)?|recently)\b", re.IGNORECASE)
_LATEST_WORDS = frozenset(analyze("newest latest most recent recently"))


def is_origin_question(question: str) -> bool:
    """Whether `question` asks where something came from (its first commit)."""
    return bool(_ORIGIN.search(question))


def _leads_with(doc: Document, verbs: frozenset[str]) -> bool:
    """Whether the subject's first word, or its second after an area prefix
    (`walk: add ...`, `feat: add ...`), is one of `verbs`."""
    return any(word in verbs for word in doc.fields.get("subject", ())[:2])


def document_terms(commit: Commit) -> dict[str, list[str]]:
    """The index terms of one commit, per field."""
    subject, body = commit.subject, commit.body
    paths: list[str] = []
    code: list[str] = []
    symbols: list[str] = []
    docs: list[str] = []
    # Documentation a commit adds beside a change of code describes that change; a
    # commit of documentation alone describes what was already there (a README
    # tweak is not where an option came from), so its lines count as hunk context.
    describes_change = any(not is_documentation(f.path) for f in commit.files)
    for f in commit.files:
        symbols.extend(f.added_symbols)
        symbols.extend(f.removed_symbols)
        paths.append(f.path)
        if f.old_path and f.old_path != f.path:
            paths.append(f.old_path)
        prose = describes_change and is_documentation(f.path)
        for h in f.hunks:
            if h.section:
                code.append(h.section)
            if h.excerpt:
                (docs if prose else code).append(h.excerpt)
    if commit.diff_excerpt:
        code.append(commit.diff_excerpt)
    return {
        "subject": analyze(subject),
        "body": analyze(body),
        "paths": analyze("\n".join(dict.fromkeys(paths))),
        "code": analyze("\n".join(dict.fromkeys(code))),
        "symbols": analyze("\n".join(dict.fromkeys(symbols))),
        "docs": analyze("\n".join(dict.fromkeys(docs))),
    }


def question_terms(question: str) -> list[str]:
    """The question's terms, without the words that only make it a question (a
    one-letter word only as a short option: `-L`)."""
    terms = [
        t for t in analyze(question) if t not in QUESTION_WORDS and (len(t) > 1 or t.isdigit())
    ]
    terms += [m.group(1).lower() for m in _SHORT_FLAG.finditer(question)]
    return list(dict.fromkeys(terms))


def expansion_terms(question: str, terms: Sequence[str]) -> list[str]:
    """The words commits use for what the question asks (a removal, a rename...),
    beside its own `terms`."""
    out: dict[str, None] = {}
    for pattern, words in _INTENTS:
        if pattern.search(question):
            out.update((w, None) for w in words if w not in terms)
    return list(out)


_SENTENCE_END = re.compile(r"[.?!:;]\s+")
_WORD = re.compile(r"\w[\w/.+#-]*")


def question_names(question: str) -> list[str]:
    """The names a question uses: words, past the first of each sentence, written
    with a capital letter or a digit and holding a letter (`SQLite`, `PCRE2`,
    `HTTP/3`, `res.sendFile`). Plain numbers are left out: a version is written in
    too many ways ("1.44", "1.44.0", "v1.44") to say that a history never has it."""
    out: dict[str, None] = {}
    for sentence in _SENTENCE_END.split(question):
        for position, match in enumerate(_WORD.finditer(sentence)):
            word = match.group(0).rstrip(".-/")
            if position == 0 or len(word) < 2 or not any(ch.isalpha() for ch in word):
                continue
            if any(ch.isupper() or ch.isdigit() for ch in word):
                out[word] = None
    return list(out)


@dataclass(frozen=True)
class Query:
    terms: tuple[str, ...]
    expansions: tuple[str, ...]  # weigh EXPANSION_WEIGHT
    origin: bool  # asks for the commit that introduced something
    names: tuple[str, ...] = ()  # `question_names`
    removal: bool = False  # asks why something was removed or stopped
    latest: bool = False  # asks for the newest commit about something


def parse_query(question: str) -> Query:
    terms = question_terms(question)
    return Query(
        tuple(terms),
        tuple(expansion_terms(question, terms)),
        is_origin_question(question),
        tuple(question_names(question)),
        bool(_INTENTS[0][0].search(question)),
        bool(_LATEST.search(question)) and not is_origin_question(question),
    )


@dataclass(frozen=True)
class Document:
    sha: str
    decision_id: uuid.UUID
    commit_time: datetime
    fields: dict[str, Sequence[str]]


@dataclass(frozen=True)
class Scored:
    decision_id: uuid.UUID
    sha: str
    score: float
    origin: bool  # the oldest commit carrying one of the question's words


class CommitIndex:
    """An in-memory BM25F index over the commits of one repository."""

    def __init__(self) -> None:
        self.documents: list[Document] = []
        self.shas: dict[str, int] = {}
        # term -> [(document, frequency per field)]
        self._postings: dict[str, list[tuple[int, tuple[int, ...]]]] = {}
        self._lengths: list[tuple[int, ...]] = []
        self._totals = [0] * len(FIELDS)

    def __len__(self) -> int:
        return len(self.documents)

    def add(self, doc: Document) -> None:
        index = len(self.documents)
        self.documents.append(doc)
        self.shas[doc.sha] = index
        counts: dict[str, list[int]] = {}
        lengths = []
        for f, name in enumerate(FIELDS):
            terms = doc.fields.get(name, ())
            lengths.append(len(terms))
            self._totals[f] += len(terms)
            for term in terms:
                counts.setdefault(term, [0] * len(FIELDS))[f] += 1
        self._lengths.append(tuple(lengths))
        for term, tf in counts.items():
            self._postings.setdefault(term, []).append((index, tuple(tf)))

    def idf(self, term: str) -> float:
        n = len(self._postings.get(term, ()))
        count = len(self.documents)
        return math.log(1.0 + (count - n + 0.5) / (n + 0.5))

    def search(self, query: Query, limit: int) -> list[Scored]:
        """The best commits for `query`, one per decision, best first."""
        terms, expansions, origin = query.terms, query.expansions, query.origin
        if not self.documents or not terms:
            return []
        count = len(self.documents)
        averages = [max(total / count, 1.0) for total in self._totals]
        scores: dict[int, float] = {}
        oldest: dict[int, float] = {}
        newest: dict[int, float] = {}
        origin_fields = [FIELDS.index(name) for name in ORIGIN_FIELDS]
        weights = {t: EXPANSION_WEIGHT for t in expansions} | {t: 1.0 for t in terms}
        for term, weight in weights.items():
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = self.idf(term) * weight
            for doc, tf in postings:
                scores[doc] = scores.get(doc, 0.0) + idf * self._saturation(
                    doc, tf, _ALL_FIELDS, averages
                )
            # An origin question's words vote for the oldest commit carrying them,
            # a recency question's for the newest; the words that only make it
            # such a question vote for none.
            votes, pick = (
                (oldest, min)
                if origin and term not in _ORIGIN_WORDS
                else (newest, max)
                if query.latest and term not in _LATEST_WORDS
                else (None, min)
            )
            if votes is not None and weight == 1.0:
                carriers = [(d, tf) for d, tf in postings if any(tf[f] for f in origin_fields)]
                if carriers:
                    chosen, carried = pick(carriers, key=lambda c: self.documents[c[0]].commit_time)
                    # As strongly as that commit carries the word: an initial import
                    # that mentions it once among thousands of lines casts a faint vote.
                    strength = self._saturation(chosen, carried, origin_fields, averages)
                    votes[chosen] = votes.get(chosen, 0.0) + idf * strength / _SUBJECT_ONCE
        for votes in (oldest, newest):
            for doc, bonus in votes.items():
                scores[doc] = scores.get(doc, 0.0) + ORIGIN_WEIGHT * bonus
        opposite = _KEEPING if query.removal else _REMOVING if origin else None
        if opposite is not None:
            for doc in scores:
                if _leads_with(self.documents[doc], opposite):
                    scores[doc] *= OPPOSITE_ACTION
        ranked = sorted(scores.items(), key=lambda item: -item[1])
        out: list[Scored] = []
        seen: set[uuid.UUID] = set()
        for doc, score in ranked:
            d = self.documents[doc]
            if d.decision_id in seen:
                continue
            seen.add(d.decision_id)
            out.append(Scored(d.decision_id, d.sha, score, doc in oldest))
            if len(out) >= limit:
                break
        return out

    def _saturation(
        self, doc: int, tf: tuple[int, ...], fields: Sequence[int], averages: Sequence[float]
    ) -> float:
        """BM25F's saturated term weight of one word in `doc` over `fields`: each
        field's frequency, length-normalised and weighted, summed, then saturated."""
        lengths = self._lengths[doc]
        weighted = 0.0
        for f in fields:
            if tf[f]:
                p = _FIELD_PARAMS[f]
                norm = 1.0 - p.b + p.b * lengths[f] / averages[f]
                weighted += p.weight * tf[f] / norm
        return weighted / (K1 + weighted)

    def mentions(self, name: str) -> bool:
        """Whether any commit's message, paths or diff uses the word `name` (its
        whole form as the analyser keeps it: `pcre2`, `http/3`)."""
        terms = analyze(name)
        if not terms:
            return False
        if terms[0] in self._postings:
            return True
        # A hyphenated name is mentioned when all its words are: a history says
        # "DNS over HTTPS" or `DnsOverHttps` for "DNS-over-HTTPS". A slash or dot
        # joins parts that are common on their own (`HTTP/2`, `res.send`).
        parts = name.split("-")
        return len(parts) > 1 and all(
            all(t in self._postings for t in analyze(part)) for part in parts
        )

    def confidence(self, query: Query, shas: Iterable[str]) -> float:
        """How well the best of `shas` explains the question (0-1): its
        `coverage`, times the share of the question's names the history mentions."""
        covered = max((self.coverage(query.terms, sha) for sha in shas), default=0.0)
        if not query.names:
            return covered
        mentioned = sum(1 for name in query.names if self.mentions(name))
        return covered * mentioned / len(query.names)

    def coverage(self, terms: Sequence[str], sha: str) -> float:
        """The share of the question's IDF mass that the commit `sha` matches (a
        word the history never uses weighs as much as the rarest one)."""
        doc = self.shas.get(sha)
        if doc is None or not terms:
            return 0.0
        count = len(self.documents)
        unseen = math.log(1.0 + (count + 0.5) / 0.5)
        total = matched = 0.0
        for term in terms:
            postings = self._postings.get(term)
            idf = self.idf(term) if postings else unseen
            total += idf
            if postings and any(d == doc for d, _ in postings):
                matched += idf
        return matched / total if total else 0.0


def merge_ranked(lists: Iterable[Sequence[Scored]], limit: int) -> list[Scored]:
    """Results of several repositories' indexes, best score first."""
    merged = sorted((s for one in lists for s in one), key=lambda s: -s.score)
    return merged[:limit]
