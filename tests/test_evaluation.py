"""`engram eval`: metrics, the dataset generator, the BM25 baseline and the runner."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest
from engram_server.evaluation import dataset, main, metrics, report, runner
from engram_server.evaluation.bm25 import BM25, STOP_WORDS, tokenize
from engram_server.evaluation.dataset import Conversation, Question, Turn
from engram_server.evaluation.remote import IndexWait, Ingested

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "eval" / "datasets" / "conversations.jsonl"
MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip

# -- metrics ----------------------------------------------------------------------------

RANKED = ["a", "b", "c", "d"]
GRADED = {"b": 2, "d": 1, "x": 1}  # "x" was never returned


def test_recall_at_k_counts_every_graded_turn() -> None:
    assert metrics.recall_at_k(RANKED, GRADED, 1) == 0.0
    assert metrics.recall_at_k(RANKED, GRADED, 2) == pytest.approx(1 / 3)
    assert metrics.recall_at_k(RANKED, GRADED, 4) == pytest.approx(2 / 3)
    assert metrics.recall_at_k(RANKED, GRADED, 100) == pytest.approx(2 / 3)


def test_reciprocal_rank_is_that_of_the_first_graded_turn() -> None:
    assert metrics.reciprocal_rank(RANKED, GRADED) == 0.5
    assert metrics.reciprocal_rank(["d", "b"], GRADED) == 1.0
    assert metrics.reciprocal_rank(["a", "c"], GRADED) == 0.0
    assert metrics.reciprocal_rank([], GRADED) == 0.0


def test_graded_ndcg_by_hand() -> None:
    # b (grade 2) at rank 2, d (grade 1) at rank 4; gain 2^g - 1, discount log2(rank + 1).
    dcg = 3 / math.log2(3) + 1 / math.log2(5)
    ideal = 3 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # grades 2, 1, 1
    assert metrics.ndcg_at_k(RANKED, GRADED, 10) == pytest.approx(dcg / ideal)
    assert metrics.ndcg_at_k(RANKED, GRADED, 10) == pytest.approx(0.56246, abs=1e-5)
    # Cut at 3: d falls out of the ranking, and the ideal keeps its best three grades.
    assert metrics.ndcg_at_k(RANKED, GRADED, 3) == pytest.approx((3 / math.log2(3)) / ideal)


def test_ndcg_prefers_the_primary_answer_first() -> None:
    relevant = {"p": 2, "s": 1}
    assert metrics.ndcg_at_k(["p", "s"], relevant) == pytest.approx(1.0)
    swapped = metrics.ndcg_at_k(["s", "p"], relevant)
    assert 0 < swapped < 1
    assert swapped == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))
    assert metrics.ndcg_at_k(["n", "m"], relevant) == 0.0


def test_metrics_refuse_bad_input() -> None:
    with pytest.raises(ValueError, match="distinct"):
        metrics.recall_at_k(["a", "a"], {"a": 2}, 1)
    with pytest.raises(ValueError, match="relevant"):
        metrics.reciprocal_rank(["a"], {"a": 0})
    with pytest.raises(ValueError, match="k must"):
        metrics.ndcg_at_k(["a"], {"a": 2}, 0)


def test_paired_bootstrap_interval() -> None:
    assert metrics.paired_bootstrap_ci([1.0] * 20, [0.5] * 20) == pytest.approx((0.5, 0.5))
    system = [1.0, 0.0] * 50
    baseline = [0.0] * 100
    low, high = metrics.paired_bootstrap_ci(system, baseline, seed=3)
    assert low < 0.5 < high
    assert (low, high) == metrics.paired_bootstrap_ci(system, baseline, seed=3)
    with pytest.raises(ValueError):
        metrics.paired_bootstrap_ci([1.0], [1.0, 2.0])


# -- the dataset ------------------------------------------------------------------------


def test_generation_is_deterministic_and_seeded() -> None:
    first = dataset.dumps(dataset.generate(seed=11, conversations=4))
    assert first == dataset.dumps(dataset.generate(seed=11, conversations=4))
    assert first != dataset.dumps(dataset.generate(seed=12, conversations=4))


def test_generation_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "import hashlib, sys; from engram_server.evaluation import dataset as d;"
        " sys.stdout.write(hashlib.sha256(d.dumps(d.generate(5, 3)).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1


def test_the_shipped_dataset_is_the_generator_output() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == dataset.dumps(dataset.generate()), (
        "the generator changed: run `engram eval --generate eval/datasets/conversations.jsonl`"
        " and `engram eval` again"
    )


def test_the_shipped_dataset_is_sound() -> None:
    conversations = dataset.load(SHIPPED)
    summary = dataset.summary(conversations)
    assert summary["conversations"] >= 30
    assert summary["questions"] >= 300
    assert set(summary["questions_by_category"]) == {
        "keyword", "paraphrase", "update", "multi_hop", "assistant",
    }  # fmt: skip
    assert SHIPPED.stat().st_size < 5 * 1024 * 1024
    for conversation in conversations:
        turns = {t.id: t for t in conversation.turns}
        sessions = sorted({t.session for t in conversation.turns}, key=lambda s: int(s[1:]))
        assert len(sessions) >= dataset.MIN_SESSIONS
        texts = [t.text for t in conversation.turns]
        assert len(set(texts)) == len(texts), conversation.id
        for question in conversation.questions:
            assert question.primary, question.id
            for turn_id in question.answers:
                assert turn_id in turns, (question.id, turn_id)
            if question.category == "assistant":
                assert any(turns[t].role == "assistant" for t in question.primary)
            if question.category == "multi_hop":
                assert 1 in question.answers.values()


def test_paraphrase_questions_share_few_words_with_their_answers() -> None:
    conversations = dataset.generate(conversations=8)
    overlaps: list[float] = []
    for conversation in conversations:
        text = {t.id: t.text for t in conversation.turns}
        for question in conversation.questions:
            if question.category != "paraphrase":
                continue
            asked = set(tokenize(question.text, STOP_WORDS)) - {conversation.user.lower()}
            answer = set(tokenize(" ".join(text[t] for t in question.primary), STOP_WORDS))
            overlaps.append(len(asked & answer) / len(asked))
    assert overlaps
    assert metrics.mean(overlaps) < 0.2


def test_the_shipped_hard_questions_are_sound() -> None:
    assert dataset.hard_path(SHIPPED).name == "conversations.hard.jsonl"
    generated = dataset.load(SHIPPED)
    conversations = dataset.load_with_hard(SHIPPED)
    assert [c.id for c in conversations] == [c.id for c in generated]
    hard = [
        (conversation, question)
        for conversation, plain in zip(conversations, generated, strict=True)
        for question in conversation.questions[len(plain.questions) :]
    ]
    assert 60 <= len(hard) <= 120
    assert {q.category for _, q in hard} == set(dataset.HARD_CATEGORIES)
    for conversation, question in hard:
        turns = {t.id: t for t in conversation.turns}
        assert question.id.startswith(conversation.id + "-h"), question.id
        assert question.primary and all(t in turns for t in question.answers), question.id
        sessions = {turns[t].session for t in question.answers}
        if question.category == "multi_hop_sessions":
            assert len(sessions) >= 2, question.id
        if question.category == "temporal_relative":
            # Either a calendar period the answer was said in, or an anchor event
            # (grade 1) told in another session: answerable from the turns' times.
            text = question.text.lower()
            named = [m for m in MONTHS if f"{m} 20" in text]
            anchors = {turns[t].session for t, g in question.answers.items() if g == 1}
            primary = {turns[t].session for t in question.primary}
            if named:
                month = MONTHS.index(named[0]) + 1
                assert all(int(turns[t].time[5:7]) == month for t in question.primary)
            else:
                assert anchors and anchors.isdisjoint(primary), question.id


def test_load_hard_refuses_labels_that_name_no_turn(tmp_path: Path) -> None:
    base = _write(tmp_path / "d.jsonl", [_conversation_json(answers={"t1": 2})])
    hard = dataset.hard_path(base)
    assert not hard.exists() and dataset.load_with_hard(base) == dataset.load(base)
    row = {"conversation": "c1", "id": "h1", "text": "who?", "category": "other_speaker"}
    _write(hard, [{**row, "answers": {"t2": 2, "t1": 1}}])
    merged = dataset.load_with_hard(base)
    assert [q.id for q in merged[0].questions] == ["q1", "h1"]
    assert dataset.summary(merged)["questions_by_category"] == {"keyword": 1, "other_speaker": 1}
    for bad, message in (
        ({**row, "answers": {"t9": 2}}, "unknown turn t9"),
        ({**row, "conversation": "c9", "answers": {"t1": 2}}, "unknown conversation"),
        ({**row, "category": "keyword", "answers": {"t1": 2}}, "not one of"),
        ({**row, "id": "q1", "answers": {"t1": 2}}, "duplicate question ids"),
        ({**row, "answers": {"t1": 1}}, "no answer of grade 2"),
        (row, "malformed"),
    ):
        _write(hard, [bad])
        with pytest.raises(ValueError, match=message):
            dataset.load_with_hard(base)


def _write(path: Path, rows: Sequence[Mapping[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _conversation_json(**question: object) -> dict[str, object]:
    return {
        "id": "c1",
        "user": "Ana",
        "asked_at": "2024-01-01T00:00:00Z",
        "turns": [
            {"id": "t1", "session": "s1", "role": "user", "time": "x", "text": "hello"},
            {"id": "t2", "session": "s1", "role": "assistant", "time": "x", "text": "hi"},
        ],
        "questions": [
            {"id": "q1", "text": "greeting?", "category": "keyword", **question},
        ],
    }


def test_load_rejects_answers_that_are_not_turns(tmp_path: Path) -> None:
    good = _write(tmp_path / "good.jsonl", [_conversation_json(answers={"t1": 2, "t2": 1})])
    assert dataset.load(good)[0].questions[0].primary == ("t1",)
    for answers, message in (
        ({"t9": 2}, "unknown turn"),
        ({"t1": 1}, "no answer of grade 2"),
        ({"t1": 2, "t2": 3}, "grades t2 3"),
    ):
        bad = _write(tmp_path / "bad.jsonl", [_conversation_json(answers=answers)])
        with pytest.raises(ValueError, match=message):
            dataset.load(bad)
    twice = _write(tmp_path / "twice.jsonl", [_conversation_json(answers={"t1": 2})] * 2)
    with pytest.raises(ValueError, match="duplicate conversation ids"):
        dataset.load(twice)


def test_dump_and_load_round_trip(tmp_path: Path) -> None:
    conversations = dataset.generate(seed=3, conversations=2)
    dataset.dump(conversations, tmp_path / "d.jsonl")
    assert dataset.load(tmp_path / "d.jsonl") == conversations


# -- the BM25 baseline ------------------------------------------------------------------

TOY = [
    ("t1", "What a lovely morning, what a lovely day."),
    ("t2", "My sister Ines moved to Tromsø last spring."),
    ("t3", "The weather in the north is cold."),
    ("t4", "Where does the time go?"),
]


def test_bm25_ranks_the_exact_keyword_answer_first() -> None:
    index = BM25(TOY)
    assert index.search("Where does Ines live now?", 3)[0] == "t2"
    assert index.search("TROMSØ", 3) == ["t2"]


def test_bm25_ignores_stop_words_and_unknown_words() -> None:
    index = BM25(TOY)
    assert index.search("what is the", 10) == []
    assert index.search("zebra", 10) == []
    assert tokenize("Where's Ines?") == ["where", "s", "ines"]
    # Without the stop list the function words count, as in the plainest BM25.
    plain = BM25(TOY, stop_words=frozenset())
    assert {"t1", "t3", "t4"} <= set(plain.search("what is the", 10))


def test_bm25_score_by_hand() -> None:
    docs = [("a", "red fish"), ("b", "blue fish blue"), ("c", "green tree")]
    index = BM25(docs, stop_words=frozenset())
    n, average = 3, 7 / 3
    idf_blue = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))
    idf_fish = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))
    norm_b = 1 - 0.75 + 0.75 * 3 / average
    expected = idf_blue * 2 * 2.2 / (2 + 1.2 * norm_b) + idf_fish * 1 * 2.2 / (1 + 1.2 * norm_b)
    assert index.scores("blue fish")["b"] == pytest.approx(expected)
    assert index.search("blue fish", 5) == ["b", "a"]


def test_bm25_breaks_ties_by_document_order() -> None:
    index = BM25([("x", "kestrel"), ("y", "kestrel"), ("z", "kestrel")])
    assert index.search("kestrel", 2) == ["x", "y"]
    with pytest.raises(ValueError):
        BM25([("x", "a"), ("x", "b")])


# -- the runner -------------------------------------------------------------------------


def _tiny() -> list[Conversation]:
    turns = tuple(
        Turn(f"t{i}", "s1", "user", "2024-01-01T00:00:00Z", text)
        for i, text in enumerate(
            ("Kestrel ships in May.", "I adopted a beagle.", "Lunch was nice.", "Kestrel slipped.")
        )
    )
    questions = (
        Question("q1", "When does Kestrel ship?", "update", "project", {"t3": 2, "t0": 1}),
        Question("q2", "What dog do I have?", "paraphrase", "pet", {"t1": 2}),
    )
    return [Conversation("c1", "Ana", "2024-02-01T00:00:00Z", turns, questions)]


def test_turns_of_hits_maps_memories_back_to_turns() -> None:
    turns_by_memory = {"memories/1": ["t1"], "memories/2": ["t2", "t5"]}
    hits = [
        ("memories/2", {"turn_id": "t2"}),  # a memory that two identical turns became
        ("memories/9", {"turn_id": "t7"}),  # written by someone else: its attribute
        ("memories/8", {}),  # not a turn of the dataset
        ("memories/1", {"turn_id": "t1"}),
        ("memories/3", {"turn_id": "t5"}),  # t5 already listed, at its better rank
    ]
    assert runner.turns_of_hits(hits, turns_by_memory) == ["t2", "t5", "t7", "t1"]


def test_score_system_with_an_injected_retriever() -> None:
    conversations = _tiny()
    asked: list[tuple[str, int]] = []

    def oracle(conversation: Conversation, question: Question, k: int) -> list[str]:
        asked.append((question.id, k))
        best_first = sorted(question.answers, key=lambda t: -question.answers[t])
        return [*best_first, "t2", *best_first]  # repeats are dropped, not double-counted

    scores = runner.score_system("oracle", conversations, oracle, (1, 3))
    assert asked == [("q1", 10), ("q2", 10)]
    assert scores.means() == {
        "recall@1": pytest.approx((0.5 + 1) / 2),
        "recall@3": 1.0,
        "mrr": 1.0,
        "ndcg@10": pytest.approx(1.0),
    }
    assert scores.questions[0].ranked == ("t3", "t0", "t2")
    assert scores.means("paraphrase")["recall@1"] == 1.0

    def nothing(conversation: Conversation, question: Question, k: int) -> list[str]:
        return []

    empty = runner.score_system("nothing", conversations, nothing, (1, 3))
    assert set(empty.means().values()) == {0.0}
    compared = runner.compare(scores, empty, resamples=200)
    assert compared["mrr"]["delta"] == 1.0
    assert compared["mrr"]["relative"] is None
    assert compared["recall@1"]["nothing"] == 0.0


def test_bm25_retriever_searches_the_questions_own_conversation() -> None:
    conversations = _tiny()
    scores = runner.score_system(
        "bm25", conversations, runner.bm25_retriever(conversations), (1, 5)
    )
    first = scores.questions[0]
    assert set(first.ranked) == {"t0", "t3"}  # only the turns naming Kestrel
    assert scores.questions[1].reciprocal_rank == 0.0  # "dog" is not in "beagle"


def test_parse_ks() -> None:
    assert runner.parse_ks("10,1, 3,3") == (1, 3, 10)
    assert runner.depth((1, 3)) == 10
    assert runner.depth((1, 20)) == 20
    for bad in ("", "0,1", "a", "101"):
        with pytest.raises(ValueError):
            runner.parse_ks(bad)


def test_report_puts_both_systems_side_by_side(tmp_path: Path) -> None:
    path = tmp_path / "tiny.jsonl"
    dataset.dump(_tiny(), path)
    _write(
        dataset.hard_path(path),
        [
            {
                "conversation": "c1",
                "id": "h1",
                "text": "Which pet joined the family?",
                "category": "paraphrase_hard",
                "answers": {"t1": 2},
            }
        ],
    )
    conversations = dataset.load_with_hard(path)
    baseline = runner.score_system("bm25", conversations, runner.bm25_retriever(conversations))
    rankings = {"q1": ["t3", "t0"], "q2": ["t1"], "h1": ["t2", "t1"]}
    engram = runner.EngramRun(
        scores=runner.score_system("engram", conversations, runner.rankings_retriever(rankings)),
        ingested=Ingested({"m/0": ["t0"], "m/1": ["t1", "t2"]}, seconds=0.5),
        index_wait=IndexWait(1.0, True, "model", "embedded"),
        latencies=(0.01, 0.02),
        embedding_model="model",
        server_mode="a test",
    )
    built = report.build(
        dataset_path=path,
        conversations=conversations,
        baseline=baseline,
        engram=engram,
        started_at=datetime(2024, 1, 1, tzinfo=UTC),
        duration_seconds=1.0,
    )
    overall = built["results"]["overall"]
    assert list(overall) == ["recall@1", "recall@3", "recall@5", "recall@10", "mrr", "ndcg@10"]
    assert overall["mrr"]["engram"] == 1.0
    assert overall["mrr"]["delta"] == pytest.approx(1.0 - overall["mrr"]["bm25"])
    assert built["ingest"]["merged_turns"] == 1
    assert built["results"]["by_category"]["paraphrase"]["questions"] == 1
    assert built["questions"][1]["engram"]["ranked"] == ["t1"]
    # The generated questions alone make the overall figures; the hard one is apart.
    assert overall["mrr"]["engram"] == 1.0 and overall["recall@10"]["engram"] == 1.0
    hard = built["results"]["hard"]
    assert hard["categories"] == ["paraphrase_hard"] and hard["questions"] == 1
    assert hard["overall"]["mrr"]["engram"] == 0.5
    mrr = built["results"]["by_category"]["paraphrase_hard"]["intervals"]["mrr"]
    assert mrr["engram"] == {"mean": 0.5, "ci95": [0.5, 0.5]}
    assert mrr["delta"] == pytest.approx(0.5 - mrr["bm25"]["mean"])
    assert built["dataset"]["hard_path"].endswith("tiny.hard.jsonl")
    json.dumps(built)  # serialisable as is
    text = report.markdown(built)
    assert "| mrr |" in text and "| paraphrase | 1 |" in text
    assert "| paraphrase_hard (1) | " in text and "overall, harder" in text


def test_cli_generates_and_scores_the_baseline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from engram_server.cli import main as engram

    path = tmp_path / "d.jsonl"
    assert engram(["eval", "--generate", str(path), "--conversations", "2", "--seed", "5"]) == 0
    assert dataset.load(path) == dataset.generate(seed=5, conversations=2)
    out = tmp_path / "bm25.json"
    args = ["--bm25-only", "--dataset", str(path), "--k", "1,5", "--out", str(out), "--quiet"]
    assert main(args) == 0
    assert "| all |" in capsys.readouterr().out
    assert set(json.loads(out.read_text())["means"]["all"]) == {
        "recall@1", "recall@5", "mrr", "ndcg@10",
    }  # fmt: skip
    with pytest.raises(SystemExit):
        main(["--k", "0"])


# -- against the real server ------------------------------------------------------------


async def test_end_to_end_on_a_small_dataset(
    tmp_path: Path, server: object, platform_key: str
) -> None:
    """Ingest, wait for the index, Recall and score, through the test server."""
    path = tmp_path / "one.jsonl"
    dataset.dump(dataset.generate(seed=9, conversations=1), path)
    options = runner.Options(
        dataset=path,
        ks=(1, 5, 10),
        address=server.address,  # type: ignore[attr-defined]
        api_key=platform_key,
        database_url="",
        redis_url="",
        bm25_only=False,
        index_timeout=120.0,
        deadline=60.0,
        quiet=True,
    )
    conversations, baseline, engram = await runner.run(options)
    assert engram is not None
    turns = len(conversations[0].turns)
    assert engram.ingested.turns == turns
    assert engram.ingested.memories == turns  # distinct texts: one memory per turn
    assert len(engram.scores.questions) == len(baseline.questions)
    assert all(q.ranked for q in engram.scores.questions)  # every question got turn ids back
    # Keyword questions share a rare name with their answer: found near the top.
    keyword = [q for q in engram.scores.questions if q.category == "keyword"]
    assert keyword and metrics.mean([q.recall[10] for q in keyword]) >= 0.8
