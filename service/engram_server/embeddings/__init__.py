"""Dense embeddings for recall: the in-process default model, a remote
OpenAI-compatible provider, and a per-tenant cache so no text is embedded twice."""

from engram_server.embeddings.base import Embedder, EmbeddingError, Matrix, Vector, l2_normalise
from engram_server.embeddings.cache import CachedEmbedder, EmbeddingCacheStore
from engram_server.embeddings.factory import build_embedder
from engram_server.embeddings.minilm import MiniLMEmbedder
from engram_server.embeddings.openai_compat import OpenAICompatibleEmbedder

__all__ = [
    "CachedEmbedder",
    "Embedder",
    "EmbeddingCacheStore",
    "EmbeddingError",
    "Matrix",
    "MiniLMEmbedder",
    "OpenAICompatibleEmbedder",
    "Vector",
    "build_embedder",
    "l2_normalise",
]
