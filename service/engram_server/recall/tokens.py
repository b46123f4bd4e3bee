"""Token counting with a real tokenizer: the embedding model's WordPiece vocabulary.

It ships with the model package, so counting needs no download; it is close to
(and for English text usually above) the counts of common chat-model tokenizers,
which keeps a budget conservative.
"""

from __future__ import annotations

import functools

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
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)
