"""Token counts: the word-by-word path must give exactly the tokenizer's counts."""

from __future__ import annotations

import random
import string

import pytest
from engram_server.recall import tokens
from engram_server.recall.tokens import count_tokens, count_tokens_many


def tokenizer_count(text: str) -> int:
    return len(tokens._tokenizer().encode(text, add_special_tokens=False).ids)


WORDS = [
    "deploy",
    "Thursday",
    "KUBERNETES",
    "uncharacteristically",
    "qwzxv",
    "a1b2c3",
    "2026-11-30",
    "alice@example.com",
    "don't",
    "x" * 120,  # longer than WordPiece's word limit: one unknown token
    "https://example.com/a?b=c&d=e",
    "$3.50",
    "(see:",
    "naïve",
    "Привет",
    "東京",
    "🙂",
]


def corpus() -> list[str]:
    rng = random.Random(7)
    alphabet = string.printable + "\x00\x01\x08\x0b\x0c\x1c\x1f\x7f"
    texts = ["", " ", "\t\n\r", "Hello there, I prefer tea.", "A\x00B\x7fC", "end.\x1c"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90))) for _ in range(1500)]
    texts += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 25))) for _ in range(1500)]
    return texts


def test_counts_equal_the_tokenizers_on_a_fuzzed_corpus() -> None:
    texts = corpus()
    expected = [tokenizer_count(t) for t in texts]
    assert [count_tokens(t) for t in texts] == expected
    assert count_tokens_many(texts) == expected
    # Again, now that every word is remembered.
    assert [count_tokens(t) for t in texts] == expected


def test_non_ascii_text_is_counted_by_the_tokenizer() -> None:
    mixed = ["plain words", "café au lait", "", "Привет, мир", "tea"]
    assert count_tokens_many(mixed) == [tokenizer_count(t) for t in mixed]
    assert count_tokens("Привет, мир") == tokenizer_count("Привет, мир") > 0


def test_the_word_table_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_word_tokens", {})
    monkeypatch.setattr(tokens, "_WORD_CACHE_LIMIT", 50)
    text = " ".join(f"word{i}" for i in range(400)) + " " + "y" * 80
    assert count_tokens(text) == tokenizer_count(text)
    assert len(tokens._word_tokens) <= 50
    assert "y" * 80 not in tokens._word_tokens
