"""Token counting with a real tokenizer: the embedding model's WordPiece vocabulary.

It ships with the model package, so counting needs no download; it is close to
(and for English text usually above) the counts of common chat-model tokenizers,
which keeps a budget conservative.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from tokenizers import Tokenizer

from engram_server.embeddings.minilm import _TOKENIZER_LOCATIONS, _find_packaged_file

TOKENIZER_NAME = "all-MiniLM-L6-v2 WordPiece"


@functools.cache
def _tokenizer() -> Tokenizer:
    tokenizer = Tokenizer.from_file(
        str(_find_packaged_file(_TOKENIZER_LOCATIONS, "tokenizer.json"))
    )
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def count_tokens(text: str) -> int:
    if not text:
        return 0
    # A single text stays on the calling thread (the batch call below may hand its
    # work to the tokenizer's thread pool).
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def count_tokens_many(texts: Sequence[str]) -> list[int]:
    """Token counts of many texts in one tokenizer call.

    `encode_batch_fast` skips the character offsets counting never needs, and a
    batch crosses into the tokenizer once: per short message it costs about half
    of one `encode` each (measured 15-20 µs against 40 µs).
    """
    if not texts:
        return []
    encoded = _tokenizer().encode_batch_fast(list(texts), add_special_tokens=False)
    return [len(e.ids) if text else 0 for text, e in zip(texts, encoded, strict=True)]
