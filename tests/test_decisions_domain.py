"""The deterministic miner, anchors and fusion, on hand-written commits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engram_server.decisions.anchors import carry, hunk_positions, symbol_of
from engram_server.decisions.answer import (
    MIN_SPREAD,
    Candidate,
    Match,
    fuse,
    render_context,
    spread,
)
from engram_server.decisions.extract import clean_title, mine, verbatim
from engram_server.decisions.identity import decision_identity, default_space, normalise_title
from engram_server.decisions.model import (
    ChangeType,
    Commit,
    Decision,
    FileChange,
    Hunk,
    LineSpan,
    Origin,
)

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)
SHA = "a" * 40


def commit(message: str, files: tuple[FileChange, ...] = (), **kw: object) -> Commit:
    return Commit(sha=kw.pop("sha", SHA), message=message, author_time=T0, files=files, **kw)  # type: ignore[arg-type]


def span(start_count: tuple[int, int] | None) -> LineSpan | None:
    """(start, count) as git's hunk header gives it."""
    if start_count is None:
        return None
    start, count = start_count
    return LineSpan(start, start + count - 1)


def hunk(old: tuple[int, int] | None, new: tuple[int, int] | None, section: str = "") -> Hunk:
    return Hunk(span(old), span(new), section, "")


EXECUTOR = """perf(rerank): run reranking on a single-worker executor

The cross-encoder is not thread-safe, so concurrent calls corrupted scores.
Instead of a lock around every call, a single worker serialises them because
it keeps the event loop free.

Measured p50 went from 41 ms to 12 ms under 8 concurrent requests.
A thread pool was tried first, but it deadlocked under load.

Closes #412
Signed-off-by: Dev <dev@example.com>
"""


def test_rationale_alternatives_evidence_and_anchors() -> None:
    files = (
        FileChange(
            "svc/rerank.py",
            change_type=ChangeType.MODIFIED,
            hunks=(hunk((40, 2), (40, 5), "def rerank_async(query, docs):"),),
        ),
    )
    mined = mine(commit(EXECUTOR, files))
    d = mined.draft
    assert d is not None and mined.skip is None
    assert d.title == "Run reranking on a single-worker executor"
    assert "perf" in d.tags
    assert "not thread-safe" in d.rationale and "keeps the event loop free" in d.rationale
    assert d.question == "Why run reranking on a single-worker executor?"
    alts = {a.description: a.reason_rejected for a in d.alternatives}
    assert "a lock around every call" in alts
    assert alts.get("A thread pool") == "it deadlocked under load"
    quotes = [e.quote for e in d.evidence]
    assert "Measured p50 went from 41 ms to 12 ms under 8 concurrent requests." in quotes
    assert "Closes #412" in quotes
    assert all(verbatim(q, EXECUTOR) for q in quotes)
    assert not any("Signed-off-by" in q for q in quotes)
    (anchor,) = d.anchors
    assert anchor.path == "svc/rerank.py"
    assert anchor.lines == LineSpan(40, 44)
    assert anchor.symbol == "rerank_async"
    assert anchor.commit_sha == SHA


def test_quotes_are_verbatim_spans_even_across_wrapped_lines() -> None:
    message = (
        "Cache parsed configs\n\nParsing took 120 ms per request on the\nlarge tenant config.\n"
    )
    d = mine(commit(message)).draft
    assert d is not None
    (e,) = d.evidence
    assert e.quote == "Parsing took 120 ms per request on the\nlarge tenant config."
    assert e.quote in message and e.origin == Origin.COMMIT


def test_diff_comment_quotes_come_from_the_excerpt() -> None:
    excerpt = "+# Retry twice because the DNS resolver drops the first query\n+retries = 2\n"
    files = (FileChange("net.py", hunks=(Hunk(None, LineSpan(3, 4), "", excerpt),)),)
    d = mine(commit("Retry DNS lookups", files)).draft
    assert d is not None
    (e,) = d.evidence
    assert e.quote == "Retry twice because the DNS resolver drops the first query"
    assert e.origin == Origin.DIFF and e.path == "net.py"


def test_skips_say_why() -> None:
    merge = mine(commit("Merge branch 'x'", parents=("1" * 40, "2" * 40)))
    assert merge.draft is None and merge.skip is not None
    assert "merge" in merge.skip.reason
    lock = mine(commit("Bump deps", (FileChange("package-lock.json"), FileChange("yarn.lock"))))
    assert lock.skip is not None and "lockfile" in lock.skip.reason
    reasoned_lock = mine(
        commit("Pin urllib3 because 2.0 breaks the proxy tests", (FileChange("poetry.lock"),))
    )
    assert reasoned_lock.draft is not None
    fmt = mine(commit("Run black over the code base"))
    assert fmt.skip is not None and fmt.skip.reason == "formatting only"
    for subject in ("cargo fmt", "Fix trailing whitespace", "src: reformat", "Formatting fixes"):
        skipped = mine(commit(subject))
        assert skipped.skip is not None and skipped.skip.reason == "formatting only", subject
    # "format" that names a feature, whitespace the program handles, and a `style:`
    # prefix on a lint fix are changes of their own.
    for subject in (
        "Use http-errors for res.format error",
        "Add a bunch of command line options for controlling I/O format",
        "Trim trailing whitespaces after processing ANSI sequences",
        "style: remove eprintln macro",
        "Prettier error output",
    ):
        assert mine(commit(subject)).draft is not None, subject
    typo = mine(commit("Fix typo"))
    assert typo.skip is not None and "trivial" in typo.skip.reason
    fixup = mine(commit("fixup! Add cache"))
    assert fixup.skip is not None


def test_reverts_and_restores() -> None:
    revert = mine(
        commit('Revert "Use a thread pool for IO"\n\nThis reverts commit ' + "b" * 40 + ".\n")
    ).draft
    assert revert is not None
    assert revert.reverts == "b" * 40 and "revert" in revert.tags
    restore = mine(
        commit(
            'Revert "Revert "Use a thread pool for IO""\n\nThis reverts commit ' + "c" * 40 + "."
        )
    ).draft
    assert restore is not None
    assert restore.reverts == "c" * 40 and restore.restores_title == "Use a thread pool for IO"


def test_identity_is_sha_free_and_survives_squash_suffixes() -> None:
    a = mine(commit(EXECUTOR, sha="1" * 40)).draft
    b = mine(commit(EXECUTOR.replace("executor\n", "executor (#77)\n", 1), sha="2" * 40)).draft
    assert a is not None and b is not None
    assert a.identity == b.identity
    assert normalise_title("Fix  the Cache. ") == normalise_title("fix the cache (#12)")
    assert decision_identity("x", T0) != decision_identity("x", T0 + timedelta(seconds=1))


def test_titles_and_spaces() -> None:
    assert clean_title("feat(api)!: add paging") == ("Add paging", "feat")
    assert clean_title("[core] Drop py2") == ("Drop py2", "")
    assert default_space("github.com/acme/api") == "decisions/github.com/acme/api"
    odd = default_space("a/" * 9 + "b")
    assert odd.startswith("decisions/") and odd.count("/") == 1


def test_symbols_from_hunk_headers() -> None:
    assert symbol_of("def rerank_async(query, docs):") == "rerank_async"
    assert symbol_of("class Cache:") == "Cache"
    assert symbol_of("func (s *Server) Serve(l net.Listener) error {") == "Serve"
    assert symbol_of("pub fn search_path(&self, path: &Path) -> Result<()> {") == "search_path"
    assert symbol_of("impl<'a> Iterator for Lines<'a> {") == "Lines"
    assert symbol_of("static int parse_args(int argc, char **argv)") == "parse_args"
    assert symbol_of("") == ""


def test_carrying_lines_through_hunks() -> None:
    span = LineSpan(20, 24)
    # Three lines inserted above: the span moves down by three.
    assert carry(span, hunk_positions([hunk(None, (5, 3))])) == LineSpan(23, 27)
    # Two lines deleted above: up by two.
    assert carry(span, hunk_positions([hunk((3, 2), None)])) == LineSpan(18, 22)
    # A change below the span leaves it where it is.
    assert carry(span, hunk_positions([hunk((40, 1), (40, 6))])) == span
    # The span's last two lines replaced by five: it grows to cover them.
    assert carry(span, hunk_positions([hunk((23, 2), (23, 5))])) == LineSpan(20, 27)
    # All its lines deleted: gone.
    assert carry(span, hunk_positions([hunk((18, 10), None)])) is None
    # Insert above, then replace inside: both apply.
    moved = carry(span, hunk_positions([hunk(None, (1, 2)), hunk((21, 1), (23, 3))]))
    assert moved == LineSpan(22, 28)


def _decision(title: str, *, status: str = "ACTIVE", days: int = 0, sup: object = None) -> Decision:
    import uuid

    return Decision(
        id=uuid.uuid4(),
        repository="r",
        space="decisions/r",
        identity=title,
        memory_id=uuid.uuid4(),
        title=title,
        statement=title,
        rationale=f"because of {title}",
        question="",
        alternatives=(),
        evidence=(),
        anchors=(),
        commits=("f" * 40,),
        decision_time=T0 + timedelta(days=days),
        create_time=T0,
        update_time=T0,
        author="",
        tags=(),
        origin=Origin.COMMIT,
        status=status,
        superseded_by=sup,  # type: ignore[arg-type]
    )


def test_fusion_is_lexicographic_and_reversals_come_with_replacements() -> None:
    anchored = _decision("anchored")
    similar = _decision("similar")
    new = _decision("new approach", days=2)
    old = _decision("old approach", status="SUPERSEDED", sup=new.id)
    cands = [
        Candidate(similar, Match.SEMANTIC, 50.0),
        Candidate(anchored, Match.FILE, 0.01),
        Candidate(old, Match.LINES, 1.0),
    ]
    ranked = fuse(cands, 10, {new.id: new}, include_superseded=True)
    assert [c.decision.title for c in ranked] == [
        "new approach",
        "old approach",
        "anchored",
        "similar",
    ]
    assert ranked[1].replacement is new
    # Hidden, the reversed decision leaves its replacement in its place.
    hidden = fuse(cands, 10, {new.id: new}, include_superseded=False)
    assert [(c.decision.title, c.match, c.score) for c in hidden] == [
        ("new approach", Match.LINES, 1.0),
        ("anchored", Match.FILE, 0.01),
        ("similar", Match.SEMANTIC, 50.0),
    ]
    assert all(c.decision.status != "SUPERSEDED" for c in hidden)


def test_a_replacement_found_on_its_own_ranks_by_its_own_score_when_the_old_is_hidden() -> None:
    similar = _decision("similar")
    new = _decision("new approach", days=2)
    old = _decision("old approach", status="SUPERSEDED", sup=new.id)
    cands = [
        Candidate(old, Match.SEMANTIC, 2.0),
        Candidate(similar, Match.SEMANTIC, 1.0),
        Candidate(new, Match.SEMANTIC, 0.5),
    ]
    hidden = fuse(cands, 10, {new.id: new}, include_superseded=False)
    assert [(c.decision.title, c.score) for c in hidden] == [
        ("similar", 1.0),
        ("new approach", 0.5),
    ]


def test_context_stays_under_budget() -> None:
    cands = [Candidate(_decision(f"decision {i}"), Match.FILE, 1.0) for i in range(30)]
    count = lambda text: len(text.split())  # noqa: E731
    text, tokens = render_context(cands, "Why", 60, count)
    assert 0 < tokens <= 60 and text.startswith("## Why")
    assert render_context(cands, "Why", 1, count) == ("", 0)


def test_llm_reply_is_checked_against_the_commit() -> None:
    from engram_server.decisions.llm import DecisionReply, check, containment

    c = commit(EXECUTOR)
    base = mine(c).draft
    assert base is not None
    reply = DecisionReply.model_validate(
        {
            "rationale": "Invented: the GPU driver leaks memory.",
            "evidence": ["Closes #412", "Latency dropped 90 %"],
            "alternatives": [{"description": "Rewrite it in Go"}],
        }
    )
    checked = check(reply, c, base)
    assert checked.draft is not None
    assert checked.rejected_quotes == 1 and checked.rationale_rejected
    assert checked.draft.rationale == base.rationale
    assert "Latency dropped 90 %" not in [e.quote for e in checked.draft.evidence]
    assert "Rewrite it in Go" not in [a.description for a in checked.draft.alternatives]
    assert containment("not thread-safe scores", EXECUTOR) == 1.0
    skipped = check(DecisionReply(is_decision=False, skip_reason="chore"), c, base)
    assert skipped.draft is None and skipped.skip_reason == "chore"


def test_titles_keep_the_case_of_paths_and_identifiers() -> None:
    assert clean_title("docs/decisions.md: the reference")[0] == "docs/decisions.md: the reference"
    assert clean_title("fix: handle empty input")[0] == "Handle empty input"
    assert clean_title("rerank_async: one worker")[0] == "rerank_async: one worker"


def test_the_meaning_leg_spreads_crowded_similarities_over_their_range() -> None:
    # Cosines of one question to its nearest decisions crowd into a narrow band;
    # spread, the nearest counts fully and the farthest found not at all.
    spread_out = spread({"scrollbar": 0.66, "border": 0.58, "preview": 0.55})
    assert spread_out["scrollbar"] == 1.0
    assert spread_out["preview"] == 0.0
    assert abs(spread_out["border"] - 3 / 11) < 1e-9


def test_a_text_found_by_its_words_only_neither_scores_nor_widens_the_range() -> None:
    spread_out = spread({"near": 0.52, "nearer": 0.66, "words only": 0.0, "odd": -0.1})
    assert spread_out == {"near": 0.0, "nearer": 1.0, "words only": 0.0, "odd": 0.0}


def test_one_or_equal_similarities_count_fully_when_positive() -> None:
    assert spread({"only": 0.4}) == {"only": 1.0}
    assert spread({"a": 0.5, "b": 0.5}) == {"a": 1.0, "b": 1.0}
    assert spread({"a": 0.0}) == {"a": 0.0}
    assert spread({}) == {}


def test_a_band_narrower_than_noise_is_not_stretched_to_the_full_range() -> None:
    # Two texts a few thousandths of cosine apart (the batch a text is embedded in
    # moves it that much): the farther keeps nearly all of the nearer's score.
    narrow = spread({"add": 0.7294, "remove": 0.7213})
    assert narrow["add"] == 1.0 and abs(narrow["remove"] - 0.919) < 1e-6
    # At MIN_SPREAD or wider, the band is stretched as before.
    wide = spread({"near": 0.70, "far": 0.70 - MIN_SPREAD})
    assert wide["near"] == 1.0 and abs(wide["far"]) < 1e-9
