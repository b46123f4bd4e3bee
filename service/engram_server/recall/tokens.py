"""Token counting with a real tokenizer: the embedding model's WordPiece vocabulary.

It ships with the model package, so counting needs no download; it is close to
(and for English text usually above) the counts of common chat-model tokenizers,
which keeps a budget conservative.

Counting sits on hot paths (every buffered message, every line of a rendered
context), and the tokenizer's own per-call work (normalising, offsets, building an
encoding) costs 20-60 µs even for a short message. WordPiece splits each word on
its own, so a text's count is the sum of its words' counts: for ASCII text (most
chat) the words are cut here exactly as the tokenizer's normaliser and
pre-tokenizer would cut them, and each distinct word is tokenized once and
remembered. That is 4-10 µs a message, and the counts are the tokenizer's (a test
checks them against it on a fuzzed corpus). Other text goes to the tokenizer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from tokenizers import Tokenizer

from engram_server.embeddings.minilm import _TOKENIZER_LOCATIONS, _find_packaged_file

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece"

# The BERT normaliser drops control characters (all but tab, newline and carriage
# return), then lower-cases; its pre-tokenizer splits on whitespace and makes each
# punctuation character a word of its own. In ASCII, punctuation is every printable
# character that is not a letter or a digit.
_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ASCII_WORDS = re.compile(r"[a-z0-9]+|[^ \t\n\ra-z0-9]")
# Word counts remembered; the table is emptied when it reaches this size, so odd
# inputs cannot grow it without bound. Longer words are counted but not kept.
_WORD_CACHE_LIMIT = 200_000
_CACHED_WORD_CHARS = 64

_word_tokens: dict[str, int] = {}


@functools.cache
def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(
        str(_find_packaged_file(_TOKENIZER_LOCATIONS, "tokenizer.json"))
    )
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _tokenizer_count(text: str) -> int:
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def _word_count(word: str) -> int:
    tokens = _tokenizer_count(word)
    if len(word) <= _CACHED_WORD_CHARS:
        if len(_word_tokens) >= _WORD_CACHE_LIMIT:
            _word_tokens.clear()
        _word_tokens[word] = tokens
    return tokens


def _ascii_count(text: str) -> int:
    text = text.lower()
    if _ASCII_CONTROL.search(text):
        text = _ASCII_CONTROL.sub("", text)
    known = _word_tokens.get
    total = 0
    for word in _ASCII_WORDS.findall(text):
        tokens = known(word)
        total += tokens if tokens is not None else _word_count(word)
    return total


def count_tokens(text: str) -> int:
    if not text:
        return 0
    if text.isascii():
        return _ascii_count(text)
    return _tokenizer_count(text)


def count_tokens_many(texts: Sequence[str]) -> list[int]:
    """Token counts of many texts: ASCII ones word by word as `count_tokens` does,
    the others in one tokenizer call (`encode_batch_fast` skips the character
    offsets counting never needs)."""
    counts = [_ascii_count(text) if text.isascii() else -1 for text in texts]
    others = [i for i, tokens in enumerate(counts) if tokens < 0]
    if others:
        encoded = _tokenizer().encode_batch_fast(
            [texts[i] for i in others], add_special_tokens=False
        )
        for i, encoding in zip(others, encoded, strict=True):
            counts[i] = len(encoding.ids)
    return counts
