"""The embedder contract shared by every provider.

Vectors travel as float32 numpy arrays: a batch is one `(n, dimension)` matrix
whose rows are L2-normalised, so a dot product is a cosine similarity and a
caller can hand rows to the vector index without copying them one by one.
"""

from __future__ import annotations

import contextvars
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from engram_server.errors import Unavailable

Vector = npt.NDArray[np.float32]
"""One embedding: shape `(dimension,)`, float32, unit length."""

Matrix = npt.NDArray[np.float32]
"""A batch of embeddings: shape `(n, dimension)`, float32, rows of unit length."""

# In a model id, what follows this names the arithmetic the stored vectors were
# computed with (e.g. `all-MiniLM-L6-v2-onnx-int8+dynamic`): the same model, so an
# index of another variant can be rebuilt from PostgreSQL without an operator.
VARIANT_SEPARATOR = "+"

# Set while a caller waits for what is being embedded (a read-your-writes read
# driving the indexing of its tenant): in-process models then embed at the
# caller's priority instead of as background work (`minilm.BACKGROUND_NICENESS`).
AWAITED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "engram_embed_awaited", default=False
)


def same_model(a: str, b: str) -> bool:
    """Whether two model ids name one model, perhaps computed differently."""
    return a.split(VARIANT_SEPARATOR, 1)[0] == b.split(VARIANT_SEPARATOR, 1)[0]


class EmbeddingError(Unavailable):
    """An embedder could not produce vectors (missing model, failing endpoint).

    A caller sees UNAVAILABLE: the request was fine, a dependency was not.
    """


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length dense vectors of one fixed model."""

    @property
    def name(self) -> str:
        """The model id. Vectors of different names never share an index or cache."""
        ...

    @property
    def dimension(self) -> int:
        """The vector length. Known after `load()` (or from configuration)."""
        ...

    async def load(self) -> None:
        """Prepares the embedder (loads a model, learns a dimension). Idempotent."""
        ...

    async def embed(self, texts: Sequence[str]) -> Matrix:
        """One row per text, in order. An empty input gives a `(0, dimension)` matrix."""
        ...

    async def embed_query(self, text: str) -> Vector:
        """The vector of one search query."""
        ...

    async def close(self) -> None:
        """Releases connections and sessions."""
        ...


def l2_normalise(matrix: npt.NDArray[np.floating]) -> Matrix:
    """Rows scaled to unit length (an all-zero row stays zero instead of NaN)."""
    values = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(values, axis=1, keepdims=True)
    scaled: Matrix = (values / np.maximum(norms, np.float32(1e-12))).astype(np.float32, copy=False)
    return scaled


def empty_matrix(dimension: int) -> Matrix:
    return np.zeros((0, dimension), dtype=np.float32)
