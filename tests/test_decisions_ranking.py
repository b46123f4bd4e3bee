"""Answering why-questions from whole commits: origin questions, identifiers only
in the diff, short subjects, the reason sentence, abstaining, and blame in explain.

Each history is a real git repository built here and read by the SDK's reader.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from engram.git import is_documentation, read_commits
from engram.v1 import decisions_pb2 as D
from engram_server.api.decisions import commit_from_proto
from engram_server.decisions.extract import mine
from engram_server.decisions.model import Commit
from engram_server.decisions.ranking import (
    CommitIndex,
    Document,
    document_terms,
    is_origin_question,
    parse_query,
    question_names,
)
from engram_server.lexical import analyze
from engram_server.services.decisions import ABSTAIN_BELOW

from tests.conftest import MakeTenant, RunningServer, TestTenant
from tests.test_cli import run
from tests.test_decisions import T0, commit_all, git, indexed, lines, new_repo, stub

REPO = "github.com/acme/ranked"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path / "repo")


async def ingest_repo(t: TestTenant, repo: Path) -> None:
    response = await stub(t).IngestCommits(
        D.IngestCommitsRequest(repository=REPO, commits=list(read_commits(str(repo), "HEAD")))
    )
    assert not response.invalid_commits


async def search(t: TestTenant, query: str, k: int = 5) -> D.SearchDecisionsResponse:
    response: D.SearchDecisionsResponse = await stub(t).SearchDecisions(
        D.SearchDecisionsRequest(query=query, repository=REPO, k=k)
    )
    return response


def write(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


async def test_an_origin_question_finds_the_commit_that_introduced_the_name(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    write(repo, "src/cli.py", lines(5))
    commit_all(repo, "Start the command line tool", T0)
    write(repo, "src/pattern_cache.py", "class Cache:\n    pass\n")
    introduced = commit_all(repo, "Keep compiled patterns between searches", T0 + timedelta(1))
    for day, (subject, body) in enumerate(
        [
            (
                "Make pattern_cache safe to share between threads",
                "pattern_cache was shared by every worker, so two searches could evict"
                " each other's entries. The pattern_cache lock now guards eviction.",
            ),
            (
                "Clear pattern_cache when the configuration is reloaded",
                "A reload changed the flags but pattern_cache kept patterns compiled with"
                " the old ones, because pattern_cache entries were keyed by text only.",
            ),
            (
                "Bound pattern_cache to 512 entries",
                "An unbounded pattern_cache grew without limit in long sessions, so"
                " pattern_cache now evicts the least recently used entry.",
            ),
        ],
        start=2,
    ):
        write(repo, "src/pattern_cache.py", f"class Cache:\n    size = {day}\n")
        commit_all(repo, f"{subject}\n\n{body}", T0 + timedelta(day))
    await ingest_repo(t, repo)
    await indexed(server, t)

    assert is_origin_question("When was pattern_cache first added?")
    found = await search(t, "When was pattern_cache first added?")
    assert list(found.hits[0].decision.commits) == [introduced]
    # A question that is not about the origin still prefers the commits about it.
    found = await search(t, "why is pattern_cache bounded to 512 entries?")
    assert found.hits[0].decision.title == "Bound pattern_cache to 512 entries"


async def test_an_identifier_only_in_the_diff_finds_its_commit(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    body = "".join(f"    step({i});\n" for i in range(1, 21))
    for i in range(8):
        write(repo, f"src/mod{i}.rs", f"fn helper_{i}() {{\n{body}}}\n")
    write(repo, "src/mod7.rs", f"fn max_columns_preview() {{\n{body}}}\n")
    commit_all(repo, "Lay out the crate", T0)
    # The option is named only by the function around the hunk of the eighth file
    # (git's hunk header): neither the message nor the first files' anchors say it.
    for i in range(7):
        write(repo, f"src/mod{i}.rs", f"fn helper_{i}() {{\n{body.replace('(3)', '(33)')}}}\n")
    write(repo, "src/mod7.rs", f"fn max_columns_preview() {{\n{body.replace('(12)', '(0)')}}}\n")
    wanted = commit_all(
        repo,
        "Show a preview of long lines instead of dropping them\n\nUsers lost context"
        " when a long line was dropped, so keep its start.",
        T0 + timedelta(1),
    )
    write(repo, "src/mod0.rs", f"fn helper_0() {{\n{body.replace('(5)', '(55)')}}}\n")
    commit_all(
        repo,
        "Count columns in bytes because counting characters was slow",
        T0 + timedelta(2),
    )
    await ingest_repo(t, repo)
    await indexed(server, t)

    found = await search(t, "Why does max_columns_preview exist?")
    assert found.hits and list(found.hits[0].decision.commits) == [wanted]


async def test_a_question_in_a_changelog_entrys_words_finds_the_commit_that_wrote_it(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    write(repo, "CHANGELOG.md", "# Changelog\n")
    write(repo, "src/layout.go", "package tui\n\nfunc layout() {}\n")
    commit_all(repo, "Lay out the finder", T0)
    # The subject and the code say none of the question's words; the changelog
    # entry the commit added says them all (a Markdown bullet, not a comment).
    write(
        repo,
        "CHANGELOG.md",
        "# Changelog\n\n- Added `--layout=reverse` to show the prompt at the top of the screen\n",
    )
    write(
        repo,
        "src/layout.go",
        "package tui\n\n// Reverse flips the rows.\nfunc layout(reverse bool) { flip(reverse) }\n",
    )
    wanted = commit_all(
        repo,
        "Support an alternative layout (#88)\n\nTall terminals put the input far from the"
        " eyes, so offer the other order.",
        T0 + timedelta(1),
    )
    # Later changes with their own entries, each saying one of the question's words.
    changelog = (repo / "CHANGELOG.md").read_text()
    for day, (subject, entry) in enumerate(
        (
            (
                "Fix prompt colours\n\nThey were unreadable on light themes, so use the defaults.",
                "- Fixed unreadable colours of the prompt on light terminal themes",
            ),
            (
                "Redraw the screen on resize\n\nStale rows stayed because nothing cleared them.",
                "- Fixed stale rows left behind on the screen after a resize",
            ),
            (
                "Keep the header on top\n\nScrolling hid it, so pin it above the list.",
                "- The header stays on top of the list while scrolling",
            ),
        ),
        2,
    ):
        changelog += entry + "\n"
        write(repo, "CHANGELOG.md", changelog)
        write(repo, f"src/fix{day}.go", f"package tui\n\nfunc fix{day}() {{}}\n")
        commit_all(repo, subject, T0 + timedelta(day))

    # Documentation alone, later: it describes what is there, not where it came from.
    write(repo, "README.md", "Pass --layout=reverse to show the prompt at the top of the screen.\n")
    described = commit_all(
        repo,
        "Describe the reverse layout in the README\n\nNew users missed it, so say it.",
        T0 + timedelta(5),
    )

    commits = {c.sha: c for c in read_commits(str(repo), "HEAD")}
    read = commits[wanted]
    excerpts = {f.path: "".join(h.excerpt for h in f.hunks) for f in read.files}
    assert "show the prompt at the top of the screen" in excerpts["CHANGELOG.md"]
    # Of code, only its comment lines leave the machine.
    assert excerpts["src/layout.go"] == "+// Reverse flips the rows.\n"
    converted = commit_from_proto(0, read).commit
    assert converted is not None
    terms = document_terms(converted)
    assert "prompt" in terms["docs"] and "prompt" not in terms["code"]
    readme = commit_from_proto(0, commits[described]).commit
    assert readme is not None
    assert not document_terms(readme)["docs"] and "prompt" in document_terms(readme)["code"]

    await ingest_repo(t, repo)
    await indexed(server, t)
    found = await search(t, "When could the prompt first be shown at the top of the screen?")
    assert found.hits and list(found.hits[0].decision.commits) == [wanted]


def test_documentation_is_told_from_code_by_its_path() -> None:
    for path in (
        "README.md",
        "docs/guide.rst",
        "CHANGELOG",
        "CHANGES.rst",
        "History.md",
        "README-zh.md",
        "man/man1/fzf.1",
        "changelog.d/123.feature",
        "requirements.txt",
    ):
        assert is_documentation(path), path
    for path in ("src/news.go", "src/history.rs", "CMakeLists.txt", "lib/readme_parser.py"):
        assert not is_documentation(path), path


async def test_names_the_diff_introduced_answer_which_change_introduced_them(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    write(repo, "src/actions.go", "package fzf\n\nconst (\n\tactAccept = iota\n)\n")
    commit_all(repo, "Parse key bindings", T0)
    write(
        repo,
        "src/actions.go",
        "package fzf\n\nconst (\n\tactAccept = iota\n\tactWait\n)\n",
    )
    introduced = commit_all(
        repo, "Add an action that blocks until the search completes", T0 + timedelta(1)
    )
    write(
        repo,
        "src/actions.go",
        "package fzf\n\nconst (\n\tactAccept = iota\n\tactWait // blocks\n)\n",
    )
    commit_all(repo, "Explain what each action does", T0 + timedelta(2))
    write(repo, "src/other.go", 'package fzf\n\nvar secretToken = "ghp_0123456789abcdefghij"\n')
    commit_all(repo, "Keep the token out of the logs", T0 + timedelta(3))
    sent = list(read_commits(str(repo), "HEAD"))
    names = {n for c in sent for f in c.files for n in f.added_symbols}
    # Moved or edited names are on both sides of a change: not introduced by it.
    assert [list(f.added_symbols) for f in sent[1].files] == [["actWait"]]
    assert [list(f.added_symbols) for f in sent[2].files] == [[]]
    # Names only, never the code or literals they were on.
    assert "secretToken" in names and not any("ghp_" in n for n in names)
    await ingest_repo(t, repo)
    await indexed(server, t)

    found = await search(t, "Which change introduced actWait?")
    assert list(found.hits[0].decision.commits) == [introduced]


async def test_a_short_subject_is_not_buried_under_long_newer_bodies(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    write(repo, "Cargo.toml", "[dependencies]\ntokio = 1\n")
    commit_all(repo, "Start", T0)
    write(repo, "Cargo.toml", "[dependencies]\n")
    short = commit_all(repo, "Drop the tokio runtime", T0 + timedelta(1))
    # Newer, longer commits use the same words, scattered over long bodies.
    filler = (
        " The walker dropped entries when the runtime of a search was long, because the"
        " tokio based test harness timed out; the runtime checks were dropped from the"
        " harness so tokio could run them, and the walker was reshaped around it."
    )
    for day in range(2, 6):
        write(repo, "src/lib.rs", f"// {day}\n")
        commit_all(
            repo,
            f"Reorganise the walker, step {day}\n\nThis reshapes the walker so the runtime"
            f" of the tokio tests dropped.{filler}",
            T0 + timedelta(day),
        )
    await ingest_repo(t, repo)
    await indexed(server, t)

    found = await search(t, "why was the tokio runtime dropped?")
    assert list(found.hits[0].decision.commits) == [short]


def test_the_why_is_the_sentence_that_gives_the_reason_not_a_side_remark() -> None:
    message = (
        "Read configuration files lazily\n\n"
        "Also, the old loader fails on an empty HOME, which was noticed on the way.\n"
        "The files are now read on first use because most commands never look at them"
        " and reading them cost 30 ms at start-up.\n"
    )
    draft = mine(Commit("a" * 40, message, T0)).draft
    assert draft is not None
    assert draft.rationale.startswith("The files are now read on first use because")
    assert "empty HOME" not in draft.rationale
    # With no stated reason, a sentence that only names the trouble is still the why.
    draft = mine(Commit("b" * 40, "Pin the parser\n\nThe parser fails on nested tables.", T0)).draft
    assert draft is not None and draft.rationale == "The parser fails on nested tables."


async def test_search_abstains_when_nothing_explains_the_question(
    server: RunningServer, make_tenant: MakeTenant, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = await make_tenant()
    other = await make_tenant()
    write(repo, "pool.py", lines(10))
    commit_all(
        repo,
        "Cap the connection pool at four connections\n\nThe database allows 20 clients"
        " and five workers share it, so each may hold at most four.",
        T0,
    )
    write(repo, "retry.py", lines(10))
    commit_all(
        repo,
        "Retry idempotent requests once because the load balancer drops idle sockets",
        T0 + timedelta(1),
    )
    await ingest_repo(t, repo)
    await indexed(server, t)

    answered = await search(t, "why is the connection pool capped at four?")
    assert not answered.abstained and answered.confidence >= ABSTAIN_BELOW
    assert answered.hits[0].decision.title == "Cap the connection pool at four connections"
    unanswered = await search(t, "why was the GraphQL schema stitched with Apollo federation?")
    assert unanswered.abstained and unanswered.confidence < ABSTAIN_BELOW
    conn = ("--address", server.address, "--api-key", t.secret)
    code, out, err = await run(
        capsys,
        "decisions",
        "search",
        "why was GraphQL federation adopted?",
        "--repository",
        REPO,
        *conn,
    )
    assert code == 0, err
    assert out.startswith("No recorded decision explains this (confidence 0.")
    # Another tenant's history neither answers nor leaks into the confidence.
    foreign: D.SearchDecisionsResponse = await stub(other).SearchDecisions(
        D.SearchDecisionsRequest(query="why is the connection pool capped at four?")
    )
    assert not foreign.hits and foreign.confidence == 0.0


async def test_a_removal_question_is_answered_by_the_removal_not_the_addition(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    write(repo, "walker.go", lines(10))
    added = (
        "Add --walker-path-sep to choose the separator of walker output paths\n\n"
        "The walker output paths use the separator of the platform; --walker-path-sep"
        " chooses another separator character for walker paths."
    )
    commit_all(repo, added, T0)
    write(repo, "walker.go", lines(12))
    commit_all(repo, "Remove --walker-path-sep again", T0 + timedelta(1))
    await ingest_repo(t, repo)
    await indexed(server, t)

    removal = await search(t, "Why was the walker path separator option taken out?")
    assert removal.hits[0].decision.title.startswith("Remove --walker-path-sep")
    # Asked when it came, the addition answers.
    origin = await search(t, "When was the walker path separator option first added?")
    assert origin.hits[0].decision.title.startswith("Add --walker-path-sep")


async def test_a_question_naming_what_the_history_never_mentions_abstains(
    server: RunningServer, make_tenant: MakeTenant, repo: Path
) -> None:
    t = await make_tenant()
    write(repo, "history.py", lines(10))
    commit_all(
        repo,
        "Keep the search history of past queries in a database file\n\nThe search"
        " history of past queries is read once at start-up and appended to after each"
        " query, so a database file of one line a query is enough.",
        T0,
    )
    write(repo, "regex.py", lines(10))
    commit_all(repo, "Switch regular expressions to Oniguruma for named groups", T0 + timedelta(1))
    await ingest_repo(t, repo)
    await indexed(server, t)

    # Its common words match the first commit well; the database it names never
    # appears in any message, path or diff.
    sqlite = await search(
        t, "Why is the search history of past queries kept in a SQLite database file?"
    )
    assert sqlite.hits and sqlite.abstained and sqlite.confidence < ABSTAIN_BELOW
    # A name the history does use is no reason to abstain.
    named = await search(t, "Why were regular expressions switched to Oniguruma?")
    assert not named.abstained and named.confidence >= ABSTAIN_BELOW
    assert named.hits[0].decision.title.startswith("Switch regular expressions to Oniguruma")


def test_question_names_are_words_with_a_capital_or_a_digit_past_the_first() -> None:
    assert question_names("Why did Express adopt TypeScript? When was HTTP/3 added?") == [
        "Express",
        "TypeScript",
        "HTTP/3",
    ]
    # Plain numbers, one-letter options and the sentence's first word are not names.
    assert question_names("Why is tokio 1.44 required, and why -L?") == []


def test_a_hyphenated_name_is_mentioned_when_its_words_are() -> None:
    index = CommitIndex()
    index.add(
        Document(
            "c" * 40,
            uuid.uuid4(),
            T0,
            {"subject": ["dns", "https", "resolv"], "symbols": ["dnsoverhttp"]},
        )
    )
    assert index.mentions("DNS-over-HTTPS")
    # A slash joins parts that are common on their own: the whole name must appear.
    assert not index.mentions("DNS/3")
    assert not index.mentions("SQLite")


def test_what_a_question_asks_for_is_read_from_its_common_phrasings() -> None:
    # "any more" asks about a removal, "what was X called in" about an origin.
    assert parse_query("Why can't it be built for Kotlin/JS any more?").removal
    assert is_origin_question("What was the okhttp3 package called in OkHttp 2?")
    assert "renam" in parse_query("What was the okhttp3 package called in OkHttp 2?").expansions
    assert not parse_query("Why is the pool capped at four?").removal
    # "what happened to" asks about a removal; a rename is often a deprecation.
    assert parse_query("What happened to the old inner literal extractor?").removal
    assert "deprec" in parse_query("What was the proxy argument called before?").expansions
    # "newest" asks for the newest commit about something, never with origin routing.
    assert parse_query("Why did the crates adopt the newest edition?").latest
    assert not parse_query("When was the newest parser first added?").latest


def test_a_latest_question_votes_for_the_newest_commit_carrying_its_words() -> None:
    index = CommitIndex()
    for day in range(8):  # the rest of the history: other words
        index.add(
            Document(f"f{day}".ljust(40, "0"), uuid.uuid4(), T0, {"subject": [f"other{day}"]})
        )
    ids = [uuid.uuid4() for _ in range(3)]
    for day, (year, decision_id) in enumerate(zip((2015, 2018, 2021), ids, strict=True)):
        fields = {"subject": analyze(f"crates: move to the {year} edition")}
        index.add(Document(f"{day}" * 40, decision_id, T0 + timedelta(days=day + 1), fields))
    newest = index.search(parse_query("Why did the crates move to the newest edition?"), 3)
    assert newest[0].decision_id == ids[2]
    assert newest[0].score > newest[1].score
    first = index.search(parse_query("When did the crates first move to an edition?"), 3)
    assert first[0].decision_id == ids[0]


def test_the_verb_that_makes_an_origin_question_votes_for_no_commit() -> None:
    # "first implemented" asks for an origin; the oldest commit that says
    # "implement" (about something else) is not where the command came from.
    index = CommitIndex()
    for day in range(8):
        index.add(
            Document(f"f{day}".ljust(40, "0"), uuid.uuid4(), T0, {"subject": [f"other{day}"]})
        )
    subjects = [
        "Implement smart case",
        "Run a command for each result",
        "Run the command in the result's directory",
    ]
    ids = [uuid.uuid4() for _ in subjects]
    for day, (subject, decision_id) in enumerate(zip(subjects, ids, strict=True)):
        fields = {"subject": analyze(subject)}
        index.add(Document(f"{day}" * 40, decision_id, T0 + timedelta(days=day + 1), fields))
    found = index.search(
        parse_query("When was running a command for every result first implemented?"), 3
    )
    assert [s.decision_id for s in found[:2]] == ids[1:]


async def test_explain_names_the_commit_that_last_changed_the_lines_and_where_anchors_are_now(
    server: Any, make_tenant: MakeTenant, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = await make_tenant()
    conn = ("--address", server.address, "--api-key", t.secret, "--repository", REPO)
    write(repo, "model.py", lines(12))
    commit_all(repo, "Add the scoring model", T0)
    write(repo, "model.py", lines(12).replace("line 6\n", "threshold = 0.7\n"))
    tuned = commit_all(
        repo,
        "Raise the match threshold to 0.7\n\nAt 0.5 half the matches were noise, so"
        " raise it until reviewers stopped rejecting them.",
        T0 + timedelta(1),
    )
    tuned_text = lines(12).replace("line 6\n", "threshold = 0.7\n")
    write(repo, "model.py", lines(20, "header") + tuned_text)
    commit_all(
        repo,
        "Document the model's inputs at the top because callers kept guessing them",
        T0 + timedelta(2),
    )
    code, _, err = await run(capsys, "decisions", "ingest", str(repo), "--quiet", *conn)
    assert code == 0, err
    await indexed(server, t)

    code, out, err = await run(
        capsys, "decisions", "explain", "model.py", "--lines", "26", "--repo-path", str(repo), *conn
    )
    assert code == 0, err
    assert (
        f"Lines 26 of model.py were introduced or last changed by {tuned[:12]}"
        " (2024-05-02, Dev): Raise the match threshold to 0.7" in out
    )
    # The tuning decision's anchor is shown where its line is now (6 + 20 lines above).
    assert "`model.py:26-26`" in out
    first = out.index("### ")
    assert out[first:].startswith("### Raise the match threshold to 0.7")

    # Whole file, no lines: every anchor is still shown at the asked revision.
    code, out, err = await run(
        capsys, "decisions", "explain", "model.py", "--repo-path", str(repo), *conn
    )
    assert code == 0, err
    assert "`model.py:26-26`" in out and "`model.py:6-6`" not in out

    # Another tenant naming the same commits learns nothing.
    other = await make_tenant()
    foreign = await stub(other).ExplainCode(
        D.ExplainCodeRequest(
            repository=REPO,
            path="model.py",
            lines=D.LineRange(start_line=26, end_line=26),
            blame_commits=[tuned],
        )
    )
    assert not foreign.explanations

    # Blame commits are checked like every field.
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub(t).ExplainCode(
            D.ExplainCodeRequest(repository=REPO, path="model.py", blame_commits=["abc"])
        )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "blame_commits[0]" in str(caught.value.details()) + str(caught.value.trailing_metadata())


async def test_explain_shows_anchor_lines_exactly_across_merged_branches(
    server: Any, make_tenant: MakeTenant, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    t = await make_tenant()
    conn = ("--address", server.address, "--api-key", t.secret, "--repository", REPO)
    write(repo, "model.py", lines(12))
    commit_all(repo, "Add the scoring model", T0)
    # A side branch tunes line 6 two days later ...
    git(repo, "checkout", "-q", "-b", "tuning")
    write(repo, "model.py", lines(12).replace("line 6\n", "threshold = 0.7\n"))
    tuned = commit_all(
        repo,
        "Raise the match threshold to 0.7\n\nAt 0.5 half the matches were noise, so"
        " raise it until reviewers stopped rejecting them.",
        T0 + timedelta(2),
    )
    # ... while main had put a header on top the day before; then both meet.
    git(repo, "checkout", "-q", "main")
    write(repo, "model.py", lines(20, "header") + lines(12))
    commit_all(repo, "Document the model's inputs at the top for callers", T0 + timedelta(1))
    stamp = (T0 + timedelta(3)).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    git(
        repo,
        "merge",
        "-q",
        "--no-edit",
        "tuning",
        env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
    )
    assert (repo / "model.py").read_text().splitlines()[25] == "threshold = 0.7"
    code, _, err = await run(capsys, "decisions", "ingest", str(repo), "--quiet", *conn)
    assert code == 0, err
    await indexed(server, t)

    # In commit-time order the header came before the tuning, so the server alone
    # cannot carry the tuned line past it; it also says where the lines were recorded.
    head = git(repo, "rev-parse", "HEAD")
    answer = await stub(t).ExplainCode(
        D.ExplainCodeRequest(repository=REPO, path="model.py", revision=head)
    )
    carried = [
        a
        for e in answer.explanations
        if list(e.decision.commits) == [tuned]
        for a in e.matched_anchors
    ]
    assert carried and carried[0].recorded_commit_sha == tuned
    assert carried[0].recorded_lines.start_line == 6
    # The CLI has the repository: git's own diff puts the line where it is now.
    code, out, err = await run(
        capsys, "decisions", "explain", "model.py", "--repo-path", str(repo), *conn
    )
    assert code == 0, err
    tuned_block = out[out.index("### Raise the match threshold to 0.7") :]
    assert "`model.py:26-26`" in tuned_block.split("\n### ")[0]


def test_an_initial_import_that_mentions_every_word_once_is_not_where_each_came_from() -> None:
    # Origin votes go to the oldest commit carrying each word, as strongly as it
    # carries it: the first commit of a repository names nearly everything once
    # among thousands of lines, and must not outvote the commit that added the thing.
    index = CommitIndex()
    filler = " ".join(f"word{n}" for n in range(3000))
    initial = uuid.uuid4()
    index.add(
        Document(
            "a" * 40,
            initial,
            T0,
            {
                "subject": analyze("Initial import"),
                "code": analyze(f"{filler} json text type parse holds piece {filler}"),
            },
        )
    )
    for day in range(20):
        fields = {"subject": analyze(f"Tidy module{day}"), "code": analyze(f"module{day} json")}
        index.add(
            Document(f"{day:02d}".ljust(40, "0"), uuid.uuid4(), T0 + timedelta(day + 1), fields)
        )
    raw_value = uuid.uuid4()
    index.add(
        Document(
            "b" * 40,
            raw_value,
            T0 + timedelta(30),
            {
                "subject": analyze("Implement RawValue type"),
                "body": analyze("A RawValue holds a piece of JSON text without parsing it."),
                "symbols": analyze("RawValue"),
            },
        )
    )
    found = index.search(
        parse_query(
            "When was the type that holds a piece of JSON text without parsing it first added?"
        ),
        3,
    )
    assert found[0].decision_id == raw_value


def test_a_dependency_that_went_away_is_answered_by_the_switch_that_replaced_it() -> None:
    # "Why doesn't it depend on ryu any more?" is answered by the commit that
    # switched from ryu to something else as often as by one that dropped it.
    index = CommitIndex()
    subjects = [
        "Drop num-traits dependency",
        "Drop nightly dependency of compiletest",
        "Update ryu to 1.0.5",
        "Use ryu for float printing",
        "Switch from ryu to zmij for float formatting",
        *(f"Tidy module{n}" for n in range(20)),
    ]
    ids = [uuid.uuid4() for _ in subjects]
    for day, (subject, decision_id) in enumerate(zip(subjects, ids, strict=True)):
        fields = {"subject": analyze(subject), "paths": analyze("Cargo.toml")}
        index.add(Document(f"{day:02d}".ljust(40, "0"), decision_id, T0 + timedelta(day), fields))
    query = parse_query("Why doesn't the crate depend on ryu any more?")
    assert {"replac", "switch"} <= set(query.expansions)
    assert ids[4] in [s.decision_id for s in index.search(query, 3)]
