"""Builds the configured embedder from Settings."""

from __future__ import annotations

from engram_server.embeddings import bge
from engram_server.embeddings.base import Embedder
from engram_server.embeddings.minilm import MODEL_ID, MiniLMEmbedder
from engram_server.embeddings.openai_compat import OpenAICompatibleEmbedder
from engram_server.platform.config import Settings

PROVIDERS = ("minilm", "bge", "openai")
# Names under which the in-process model may be asked for.
_MINILM_NAMES = frozenset(
    {"", MODEL_ID, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}
)


def build_embedder(settings: Settings) -> Embedder:
    """The embedder `settings.embedding_provider` names; raises ValueError on bad settings."""
    provider = settings.embedding_provider.strip().lower()
    if provider == "minilm":
        if settings.embedding_model not in _MINILM_NAMES:
            raise ValueError(
                f"embedding_model {settings.embedding_model!r}: the minilm provider runs "
                f'only {MODEL_ID}; use embedding_provider = "openai" for other models'
            )
        return MiniLMEmbedder(
            threads=max(1, settings.embedding_threads),
            batch_threads=settings.embedding_index_threads or None,
            query_kernels=settings.embedding_query_kernels,
            index_kernels=settings.embedding_index_kernels,
        )
    if provider == "bge":
        if settings.embedding_model not in bge.NAMES:
            raise ValueError(
                f"embedding_model {settings.embedding_model!r}: the bge provider runs "
                f"only {bge.MODEL_ID}"
            )
        return bge.BgeSmallEmbedder(
            model_dir=settings.embedding_model_dir,
            threads=max(1, settings.embedding_threads),
            batch_threads=settings.embedding_index_threads or None,
        )
    if provider == "openai":
        if not settings.embedding_url:
            raise ValueError('embedding_url is required with embedding_provider = "openai"')
        if not settings.embedding_model:
            raise ValueError('embedding_model is required with embedding_provider = "openai"')
        return OpenAICompatibleEmbedder(
            settings.embedding_url,
            settings.embedding_model,
            api_key=settings.embedding_api_key,
            dimension=settings.embedding_dimension,
            timeout_seconds=settings.embedding_timeout_seconds,
        )
    expected = ", ".join(PROVIDERS)
    raise ValueError(f"embedding_provider {settings.embedding_provider!r}: expected {expected}")
