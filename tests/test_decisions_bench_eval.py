"""`engram bench decisions` and `engram eval decisions` end to end at toy sizes.

Only the plumbing is checked (every figure present, ranks computed); performance
and quality figures live in bench/results/ and eval/results/.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from engram_server.bench import main as bench_main
from engram_server.evaluation import main as eval_main
from engram_server.evaluation.decisions import (
    Outcome,
    Question,
    RepoRun,
    _report,
    abstention,
    build_parser,
    in_split,
    load_questions,
    markdown,
    questions_to_ask,
    split_of,
)

from tests.conftest import RunningServer
from tests.test_decisions import T0, commit_all, git, lines, new_repo


async def test_bench_decisions_at_toy_size(
    server: RunningServer, platform_key: str, pg_server_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "decisions.json"
    argv = [
        "decisions",
        "--commits",
        "60",
        "--files",
        "12",
        "--queries",
        "3",
        "--batch-size",
        "25",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--database-url",
        pg_server_url,
        "--out",
        str(out),
        "--quiet",
    ]
    assert await asyncio.to_thread(bench_main, argv) == 0
    report = json.loads(out.read_text())
    assert report["commits"] == 60 and report["decisions_created"] > 30
    assert report["ingest_commits_per_second"] > 0
    assert report["explain_code"]["samples"] == 3 == report["search_decisions"]["samples"]
    assert "ExplainCode p50" in out.with_suffix(".md").read_text()


async def test_eval_decisions_on_a_local_repository(
    server: RunningServer, platform_key: str, tmp_path: Path
) -> None:
    repo = new_repo(tmp_path / "tiny")
    (repo / "a.py").write_text(lines(10))
    commit_all(repo, "Add a", T0)
    (repo / "a.py").write_text(lines(10).replace("line 3\n", "retry = 3\n"))
    wanted = commit_all(
        repo,
        "Retry uploads three times\n\nThe storage API drops the first request after idling.",
        T0 + timedelta(hours=1),
    )
    head = git(repo, "rev-parse", "HEAD")
    data = tmp_path / "data"
    data.mkdir()
    (data / "repositories.json").write_text(
        json.dumps({"tiny": {"url": "", "commit": head, "language": "Python"}})
    )
    questions = [
        {
            "id": "t-1",
            "repo": "tiny",
            "kind": "workaround",
            "split": "dev",
            "question": "Why are uploads attempted several times?",
            "answers": [wanted],
        },
        {
            "id": "t-2",
            "repo": "tiny",
            "kind": "no-answer",
            "split": "test",
            "question": "Why was the cache moved to Redis?",
            "answers": [],
        },
        # The older files name a category and leave the split to the id's hash.
        {"id": "t-3", "category": "identifier", "question": "What is a?", "answers": [wanted]},
    ]
    (data / "tiny.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    out = tmp_path / "result.json"
    argv = [
        "decisions",
        "--dataset-dir",
        str(data),
        "--repo",
        f"tiny={repo}",
        "--address",
        server.address,
        "--api-key",
        platform_key,
        "--out",
        str(out),
        "--quiet",
    ]
    assert await asyncio.to_thread(eval_main, argv) == 0
    report = json.loads(out.read_text())
    tiny = report["repositories"]["tiny"]
    assert tiny["commits"] == 2 and tiny["answer_commits_mined"] == "1/1"
    assert tiny["commits_invalid"] == 0 and tiny["read_error"] == ""
    outcome = tiny["outcomes"]["t-1"]
    assert set(outcome["ranks"]) == {"engram", "git-grep", "bm25"}
    assert outcome["ranks"]["engram"] == 1 and outcome["top_score"] > 0
    assert tiny["outcomes"]["t-3"]["split"] == split_of("t-3")
    assert set(report["splits"]) == {"dev", "test", "all"}
    everything = report["splits"]["all"]
    # The question without an answer is scored for abstention, not for rank.
    assert everything["overall"]["engram"]["questions"] == 2
    assert set(everything["kinds"]) == {"workaround", "identifier"}
    assert everything["abstention"]["no_answer_questions"] == 1
    assert report["splits"]["dev"]["repositories"]["tiny"]["engram"]["questions"] == (
        1 + (split_of("t-3") == "dev")
    )
    text = out.with_suffix(".md").read_text()
    assert "## Split: dev" in text and "### By kind of question" in text

    # One split only, and an answer that is not in the history stops the run.
    argv[argv.index("--out") + 1] = str(tmp_path / "test-only.json")
    assert await asyncio.to_thread(eval_main, [*argv, "--split", "test"]) == 0
    test_only = json.loads((tmp_path / "test-only.json").read_text())
    assert set(test_only["splits"]) == {"test"}
    assert set(test_only["repositories"]["tiny"]["outcomes"]) == {
        q["id"] for q in questions if q.get("split", split_of(str(q["id"]))) == "test"
    }
    questions[0]["answers"] = ["0" * 40]
    (data / "tiny.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    with pytest.raises(ValueError, match=r"t-1: answer 0{40} is not reachable"):
        await asyncio.to_thread(eval_main, argv)


def test_question_files_are_checked_when_loaded(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        json.dumps({"id": "x-1", "kind": "no-answer", "question": "?", "answers": ["a" * 40]})
    )
    with pytest.raises(ValueError, match="answers must be empty exactly when kind is"):
        load_questions(path)
    path.write_text(json.dumps({"id": "x-1", "kind": "origin", "question": "?", "answers": []}))
    with pytest.raises(ValueError, match="answers must be empty"):
        load_questions(path)
    path.write_text(
        json.dumps(
            {"id": "x-1", "kind": "origin", "split": "train", "question": "?", "answers": ["a"]}
        )
    )
    with pytest.raises(ValueError, match="split must be one of"):
        load_questions(path)


def test_the_shipped_question_files_are_well_formed() -> None:
    """Every repository of the manifest has questions either in both dev and
    test or only in holdout, and some without an answer; ids are unique and a
    dev or test question's split is the one its id hashes to."""
    data = Path(__file__).resolve().parents[1] / "eval" / "datasets" / "decisions"
    manifest = json.loads((data / "repositories.json").read_text())
    seen: set[str] = set()
    splits_of_repos = []
    for name, spec in manifest.items():
        assert len(spec["commit"]) == 40
        questions = load_questions(data / f"{name}.jsonl")
        splits = {q.split for q in questions}
        assert splits in ({"dev", "test"}, {"holdout"}), name
        splits_of_repos.append(splits)
        assert any(not q.answerable for q in questions), name
        for q in questions:
            assert q.id not in seen, q.id
            assert q.split == "holdout" or q.split == split_of(q.id), q.id
            assert all(len(sha) == 40 for sha in q.answers), q.id
            seen.add(q.id)
    assert splits_of_repos.count({"dev", "test"}) >= 8
    assert splits_of_repos.count({"holdout"}) >= 4


def test_all_means_dev_and_test_and_holdout_is_asked_for_by_name(tmp_path: Path) -> None:
    # holdout ids are exempt from the parity rule: "h-2" hashes to either split.
    rows = [("d-1", split_of("d-1")), ("h-1", "holdout"), ("h-2", "holdout")]
    with_holdout = tmp_path / "mixed.jsonl"
    with_holdout.write_text(
        "".join(
            json.dumps({"id": i, "kind": "origin", "split": s, "question": "?", "answers": ["a"]})
            + "\n"
            for i, s in rows
        )
    )
    (tmp_path / "old.jsonl").write_text(
        json.dumps({"id": "o-1", "category": "identifier", "question": "?", "answers": ["b"]})
        + "\n"
    )
    questions = load_questions(with_holdout)
    assert [q.split for q in questions] == [s for _, s in rows]
    assert [q.id for q in in_split(questions, "all")] == ["d-1"]
    assert [q.id for q in in_split(questions, "holdout")] == ["h-1", "h-2"]
    assert build_parser().parse_args(["--split", "holdout"]).split == "holdout"
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--split", "train"])

    # A repository without a question in the split is left out, so not ingested.
    manifest = {"mixed": {}, "old": {}}
    assert list(questions_to_ask(tmp_path, manifest, "", "holdout")) == ["mixed"]
    assert set(questions_to_ask(tmp_path, manifest, "", "all")) == {"mixed", "old"}
    with pytest.raises(SystemExit, match="--split holdout: no questions in old"):
        questions_to_ask(tmp_path, manifest, "old", "holdout")
    with pytest.raises(SystemExit, match=r"not in repositories\.json: gone"):
        questions_to_ask(tmp_path, manifest, "gone", "all")


def test_abstention_is_scored_against_the_questions_without_an_answer() -> None:
    def asked(answers: tuple[str, ...], said: bool | None, score: float) -> Any:
        question = Question(f"q{score}", "no-answer" if not answers else "origin", "?", answers)
        return question, Outcome({"engram": None}, top_score=score, abstained=said)

    pairs = [
        asked((), True, 0.1),  # right to abstain
        asked((), False, 0.2),  # should have abstained
        asked(("a",), True, 0.3),  # abstained on a question that has an answer
        asked(("b",), False, 0.9),
    ]
    scored = abstention(pairs)
    assert scored["signal"] and scored["abstained"] == 2
    assert scored["precision"] == 0.5 and scored["recall"] == 0.5
    assert scored["top_score_no_answer"] == {"median": 0.15, "min": 0.1, "max": 0.2}
    assert scored["top_score_answerable"]["median"] == 0.6
    # A server without the signal: only the scores are reported.
    silent = abstention([asked((), None, 0.1), asked(("a",), None, 0.5)])
    assert not silent["signal"] and "precision" not in silent


def test_the_report_counts_repositories_above_bm25_and_abstentions() -> None:
    def run(name: str, engram: int | None, bm25: int | None, said: bool | None) -> RepoRun:
        answered = Question(f"{name}-1", "origin", "?", ("a",), "dev")
        unanswerable = Question(f"{name}-2", "no-answer", "?", (), "dev")
        repo = RepoRun(name, "Go", "0" * 40, questions=[answered, unanswerable])
        repo.outcomes = {
            answered.id: Outcome({"engram": engram, "git-grep": None, "bm25": bm25}, 0.9, False),
            unanswerable.id: Outcome({"engram": None, "git-grep": None, "bm25": None}, 0.2, said),
        }
        return repo

    one = run("one", 1, None, True)
    one.invalid, one.invalid_examples = 1, ["0123456789ab: commits[0].author_time: out of range"]
    report = _report([one, run("two", 4, 2, False)], "dev")
    dev = report["splits"]["dev"]
    assert set(report["splits"]) == {"dev"}
    assert dev["overall"]["engram"]["mrr@10"] == (1 + 1 / 4) / 2
    assert dev["abstention"]["abstained"] == 1 and dev["abstention"]["recall"] == 0.5
    text = markdown(report)
    assert "Engram above BM25 in 1 of 2" in text and "| one ✓ |" in text
    assert "Engram abstained on 1 questions in all: precision 1.000, recall 0.500" in text
    assert "- one 0123456789ab: commits[0].author_time: out of range" in text
