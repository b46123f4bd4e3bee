"""Who said a turn, and whom it addresses: a name used to address the listener
("Thanks, Luca!") does not make a turn about that person, and a question naming
a speaker favours that speaker's turns without lifting turns that do not answer."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2, recall_pb2, recall_pb2_grpc
from engram_server.lexical.addressee import addressee_text, speaker_prefix, without_speaker
from engram_server.lexical.sparse import sparse_vector, term_id, weighted_terms
from engram_server.lifecycle.model import EvidenceLevel, Kind
from engram_server.recall.scoring import MemorySignals, RankingParams, final_score, score
from engram_server.recall.speakers import query_words, speaker_match
from engram_server.services.indexing import dense_text

from tests.lifecycle_helpers import proposal

RYW = recall_pb2.READ_CONSISTENCY_READ_YOUR_WRITES


@pytest.mark.parametrize(
    ("text", "addressed"),
    [
        ("Anytime, Luca. Talk soon!", "Luca"),
        ("Thanks, Luca!", "Luca"),
        ("Hi Emi! How was the concert?", "Emi"),
        ("Luca, did the lessons start?", "Luca"),
        ("How was it, Emi?", "Emi"),
        ("Kate: Hey Elise, good morning!", "Elise"),
        ("Talk soon, Mary Ann!", "Mary Ann"),
        ("Elise: Hahaha yes Emi, that is so true", "Emi"),
        # Names the turn is about, and sentence openers, are not addressees.
        ("Kate: I went to Art Basel with Emi.", ""),
        ("Honestly, I loved it.", ""),
        ("Monday, I start the new job.", ""),
        ("Thanks, you too!", ""),
        ("Hey, quick check-in.", ""),
        ("Emi said Luca, Kate and Ana will come.", ""),
        ("Bella, I am so happy for you!", "Bella"),
        # Places after a comma, appositions, lists, and introductions are not either.
        ("I'm from Houston, Texas.", ""),
        ("I have also visited Mexico, however, Cancun!", ""),
        ("Harvey, the slick lawyer, wins every case.", ""),
        ("Tampa, Fort Lauderdale and Miami.", ""),
        ("Haha, I'm Kate.", ""),
        ("Ultimately, the decision is yours.", ""),
    ],
)
def test_names_addressing_the_listener_are_found_at_sentence_edges(
    text: str, addressed: str
) -> None:
    assert addressee_text(text) == addressed


def test_an_addressed_name_counts_for_its_share_of_a_word() -> None:
    plain = weighted_terms("Thanks, Luca!", addressee_weight=1.0)
    addressed = weighted_terms("Thanks, Luca!", addressee_weight=0.2)
    assert addressed["luca"] == pytest.approx(0.2 * plain["luca"])
    assert addressed["thank"] == plain["thank"]
    assert weighted_terms("Thanks, Luca!", addressee_weight=0.0)["luca"] == 0.0
    # One "Luca" addresses the listener, the other is what the sentence is about.
    text = "Thanks, Luca! Luca's guitar sounded great."
    mixed = weighted_terms(text, addressee_weight=0.2)
    assert mixed["luca"] == pytest.approx(0.6 * weighted_terms(text, addressee_weight=1.0)["luca"])
    # By default an addressed name is left out of the lexical index.
    assert sparse_vector("Thanks, Luca!").indices == [term_id("thank")]
    about = sparse_vector("Luca plays the guitar")
    assert term_id("luca") in about.indices


def test_a_speaker_is_a_name_or_a_role_before_a_colon() -> None:
    assert speaker_prefix("Emi: I ran a marathon") == ("Emi", 5)
    assert speaker_prefix("Mary Ann: fine") == ("Mary Ann", 10)
    assert speaker_prefix("assistant: try a podcast") == ("assistant", 11)
    for text in ("TODO: fix the build", "Meeting with Bob: we chose Kafka", "http://x", "plain"):
        assert speaker_prefix(text) is None
        assert without_speaker(text) == text
    assert without_speaker("Emi: I ran a marathon") == "I ran a marathon"
    words = query_words("What did Emi's husband bake?")
    assert speaker_match("Emi: my husband bakes sourdough", words) == 1.0
    assert speaker_match("Kate: I baked bread", words) == 0.0
    assert speaker_match("no speaker here, Emi", words) == 0.0


def test_a_speakers_turn_is_embedded_without_its_speaker_under_its_own_key() -> None:
    key, text = dense_text("hash-of-content", "Emi: I ran a half marathon")
    assert text == "I ran a half marathon"
    assert key != "hash-of-content"
    # The same words said by someone else share the vector; other memories keep
    # their content and its hash.
    assert dense_text("other-hash", "Kate: I ran a half marathon") == (key, text)
    assert dense_text("hash", "TODO: book the flights") == ("hash", "TODO: book the flights")


def test_the_speaker_match_adds_its_weight_to_the_base_score() -> None:
    signals = MemorySignals(
        kind=Kind.EPISODIC,
        importance=0.5,
        access_count=0,
        create_time=datetime(2024, 1, 1, tzinfo=UTC),
        last_access_time=None,
        evidence_level=EvidenceLevel.UNSPECIFIED,
        slot_key="",
    )
    now = datetime(2024, 1, 1, tzinfo=UTC)
    params = RankingParams()
    plain = score((0.5, 0.5), 0.0, signals, now, params)
    matched = score((0.5, 0.5), 0.0, signals, now, params, speaker_match=1.0)
    assert matched.speaker_match == 1.0
    assert matched.final > plain.final
    assert matched.final == pytest.approx(
        final_score((0.5, 0.5), 0.0, signals, now, params, 0.0, 1.0)
    )
    off = RankingParams(speaker_weight=0.0)
    assert score((0.5, 0.5), 0.0, signals, now, off, speaker_match=1.0).final == pytest.approx(
        score((0.5, 0.5), 0.0, signals, now, off).final
    )


async def _recall(t: Any, query: str) -> list[str]:
    found = await recall_pb2_grpc.RecallServiceStub(t.channel).Recall(
        recall_pb2.RecallRequest(query=query, spaces=["chat"], k=10, consistency=RYW)
    )
    return [h.memory.name for h in found.hits]


async def _propose(t: Any, contents: list[str]) -> list[str]:
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("chat", c, session="s1") for c in contents]
        )
    )
    return [r.memory.name for r in response.results]


async def test_a_question_naming_the_user_finds_their_turn_above_the_goodbyes(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    own, thanks, goodbye, *_ = await _propose(
        t,
        [
            "I really like jazz, mostly old Coltrane records these days.",
            "Thanks, Luca! Enjoy your evening.",
            "Anytime, Luca. Talk soon!",
            "I like the new office chair.",
            "Would you like some tea?",
            "My sister likes hiking in the rain.",
            "The weather has been awful all week.",
        ],
    )
    # "Luca" is the rarest word of the question, and only the goodbyes say it.
    for question in ("What music does Luca like?", "What does Luca like to listen to?"):
        order = await _recall(t, question)
        assert order.index(own) < order.index(thanks)
        assert order.index(own) < order.index(goodbye)


async def test_a_turn_by_the_named_speaker_ranks_first_when_both_say_the_same(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    kate, emi = await _propose(
        t,
        [
            "Kate: I want to try the new ramen place downtown",
            "Emi: I want to try the new ramen place downtown too",
        ],
    )
    assert (await _recall(t, "What did Emi say about the ramen place?"))[0] == emi
    assert (await _recall(t, "What did Kate say about the ramen place?"))[0] == kate


async def test_a_question_about_a_persons_husband_finds_their_own_line(
    make_tenant: Any,
) -> None:
    t = await make_tenant()
    own, greeting, _ = await _propose(
        t,
        [
            "Emi: my husband has been baking sourdough every weekend",
            "Kate: Hi Emi! How are you?",
            "Kate: I finally cleaned the garage",
        ],
    )
    order = await _recall(t, "What is Emi's husband baking?")
    assert order[0] == own
    assert greeting not in order or order.index(greeting) > order.index(own)


async def test_the_named_speaker_does_not_lift_turns_that_do_not_answer(
    make_tenant: Any,
) -> None:
    # Asked about Kate, but only Emi ran the race: the answer is Emi's turn, above
    # everything Kate said about other things.
    t = await make_tenant()
    race, *_ = await _propose(
        t,
        [
            "Emi: I ran my first half marathon on Sunday, so proud",
            "Kate: coffee first, then work",
            "Kate: my cat knocked over a plant again",
            "Kate: I think I'll go to bed early tonight",
        ],
    )
    assert (await _recall(t, "When did Kate run a half marathon?"))[0] == race


async def test_speakers_never_cross_tenants(make_tenant: Any) -> None:
    ours, theirs = await make_tenant(), await make_tenant()
    await _propose(theirs, ["Emi: I want to try the new ramen place downtown"])
    mine = await _propose(ours, ["Kate: the ramen place downtown is closed"])
    assert await _recall(ours, "What did Emi say about the ramen place?") == mine
