# ruff: noqa: RUF001  (Russian test words)
"""The lexical analyzer and BM25 sparse vectors behind recall's word leg."""

from __future__ import annotations

import zlib

import pytest
from engram_server.lexical import (
    Analyzer,
    Bm25Params,
    SparseVector,
    analyze,
    document_vector,
    query_sparse_vector,
    query_vector,
    sparse_vector,
    term_id,
)


def test_english_stemming_joins_inflections() -> None:
    assert analyze("running") == analyze("runs") == analyze("run") == ["run"]
    assert analyze("memories") == analyze("memory")
    assert analyze("Connected connections") == ["connect", "connect"]


def test_russian_stemming_joins_inflections() -> None:
    assert analyze("бегать") == analyze("бегал") == analyze("бегали")
    assert analyze("Москва") == analyze("москвы")
    # Case and the letter yo do not split a word.
    assert analyze("Ёлка") == analyze("елка")


def test_mixed_language_text_is_stemmed_word_by_word() -> None:
    terms = analyze("Alice was running to the meeting, потом бегала в парке")
    assert "run" in terms and "meet" in terms
    assert analyze("бегала")[0] in terms and analyze("парке")[0] in terms


def test_stop_words_are_dropped_but_negations_kept() -> None:
    assert analyze("the and of a is") == []
    assert analyze("и в на что это") == []
    assert "not" in analyze("does not like tea")
    assert "не" in analyze("не любит чай")


def test_identifiers_and_numbers_are_kept_verbatim() -> None:
    terms = analyze("Set foo_bar in v2 of GPT-4 on x86_64, see release 2024 and node.js")
    for kept in ("foo_bar", "foo", "bar", "v2", "gpt-4", "gpt", "4", "x86_64", "2024", "node.js"):
        assert kept in terms
    # Identifiers are not stemmed ("releases" would stem, "foo_bars" stays whole).
    assert "foo_bars" in analyze("foo_bars")
    assert analyze("getUserName")[:4] == ["getusername", "get", "user", "name"]
    assert "c++" in analyze("C++ and C#") and "c#" in analyze("C++ and C#")


def test_possessives_and_apostrophes() -> None:
    assert analyze("John's") == ["john"]
    assert analyze("O'Brien") == analyze("OBrien")
    assert analyze("John\u2019s") == ["john"]


def test_compound_tokens_keep_whole_and_parts() -> None:
    terms = analyze("mail ann@example.com about team-a/agent-7")
    assert "ann@example.com" in terms and "exampl" in terms
    assert "team-a/agent-7" in terms and "agent" in terms and "7" in terms


def test_cjk_text_becomes_bigrams() -> None:
    assert analyze("北京烤鸭") == ["北京", "京烤", "烤鸭"]
    assert "手机" in analyze("iPhone手机")


def test_language_hint_picks_the_latin_stemmer() -> None:
    assert Analyzer("de").analyze("Häuser") == analyze("Häuser", "german")
    assert analyze("Häuser", "de") != analyze("Häuser")
    # Cyrillic is Russian-stemmed whatever the hint.
    assert analyze("бегали", "de") == analyze("бегали")
    with pytest.raises(ValueError):
        analyze("x", "klingon")


def test_long_tokens_are_truncated() -> None:
    assert analyze("x" * 200) == ["x" * 64]


def test_term_ids_are_stable_crc32() -> None:
    assert term_id("run") == zlib.crc32(b"run")
    assert term_id("бега") == zlib.crc32("бега".encode())
    assert 0 <= term_id("anything") < 2**32


def test_document_vector_is_bm25_term_frequency() -> None:
    params = Bm25Params(k1=1.2, b=0.75, avg_len=4.0)
    vector = document_vector(["run", "run", "fast", "car"], params)
    assert vector.indices == sorted(vector.indices)
    weights = dict(zip(vector.indices, vector.values, strict=True))
    # len == avg_len, so the length factor is 1: w = tf * (k1 + 1) / (tf + k1).
    assert weights[term_id("run")] == pytest.approx(2 * 2.2 / (2 + 1.2))
    assert weights[term_id("car")] == pytest.approx(2.2 / 2.2)
    # Longer documents weigh each occurrence less; repeats saturate.
    longer = document_vector(["run", "x1", "x2", "x3", "x4", "x5", "x6", "x7"], params)
    assert dict(zip(longer.indices, longer.values, strict=True))[term_id("run")] < 1.0
    many = document_vector(["run"] * 50, params)
    assert many.values[0] < params.k1 + 1


def test_query_vector_weighs_each_distinct_term_once() -> None:
    vector = query_vector(["run", "run", "fast"])
    assert sorted(vector.indices) == vector.indices
    assert vector.values == [1.0, 1.0]
    assert query_sparse_vector("who runs fast? running!") == vector


def test_sparse_vector_of_text_and_empty_text() -> None:
    vector = sparse_vector("Alice runs; Alice ran.")
    assert set(vector.indices) == {term_id("alic"), term_id("run"), term_id("ran")}
    assert not sparse_vector("the of and")
    assert sparse_vector("") == SparseVector()
    with pytest.raises(ValueError):
        SparseVector([1, 2], [1.0])
    with pytest.raises(ValueError):
        Bm25Params(b=2.0)
