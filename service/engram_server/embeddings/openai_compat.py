"""An embedder that calls any OpenAI-compatible `POST {base_url}/embeddings` endpoint.

Works with OpenAI itself and with the many servers that copy its API (vLLM, TEI,
Ollama, LiteLLM, llama.cpp). Rate limits (429) and server errors (5xx) are retried
with capped exponential backoff and jitter, honouring `Retry-After`; other client
errors are configuration mistakes and fail at once.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from engram_server.embeddings.base import (
    EmbeddingError,
    Matrix,
    Vector,
    empty_matrix,
    l2_normalise,
)

_RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_PROBE_TEXT = "dimension probe"


class OpenAICompatibleEmbedder:
    """Remote embeddings; the dimension is configured or learnt from the first reply."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "",
        dimension: int = 0,
        timeout_seconds: float = 30.0,
        max_retries: int = 4,
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 8.0,
        batch_size: int = 128,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if not base_url:
            raise ValueError("an OpenAI-compatible embedder needs a base URL")
        if not model:
            raise ValueError("an OpenAI-compatible embedder needs a model name")
        if dimension < 0 or max_retries < 0 or batch_size < 1 or timeout_seconds <= 0:
            raise ValueError("dimension, retries, batch size and timeout must be positive")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._api_key = api_key
        self._dimension = dimension
        self._timeout = httpx.Timeout(timeout_seconds, connect=min(timeout_seconds, 10.0))
        self._max_retries = max_retries
        self._backoff = backoff_seconds
        self._max_backoff = max_backoff_seconds
        self._batch_size = batch_size
        self._transport = transport
        self._client: httpx.AsyncClient | None = None
        self.requests_sent = 0  # attempts, retries included; for metrics and tests

    @property
    def name(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        if not self._dimension:
            raise EmbeddingError(f"the dimension of {self._model} is not known before load()")
        return self._dimension

    async def load(self) -> None:
        if not self._dimension:
            await self.embed([_PROBE_TEXT])

    async def embed(self, texts: Sequence[str]) -> Matrix:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not one string")
        batch = list(texts)
        if not batch:
            return empty_matrix(self._dimension)
        parts = [
            await self._embed_chunk(batch[start : start + self._batch_size])
            for start in range(0, len(batch), self._batch_size)
        ]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    async def embed_query(self, text: str) -> Vector:
        matrix = await self.embed([text])
        vector: Vector = matrix[0]
        return vector

    async def close(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- one request --------------------------------------------------------------

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            headers = {"Content-Type": "application/json"}
            if self._api_key:
                headers["Authorization"] = f"Bearer {self._api_key}"
            self._client = httpx.AsyncClient(
                headers=headers, timeout=self._timeout, transport=self._transport
            )
        return self._client

    async def _embed_chunk(self, texts: list[str]) -> Matrix:
        body = {"model": self._model, "input": texts}
        reply = await self._post_with_retries(body)
        return self._parse(reply, len(texts))

    async def _post_with_retries(self, body: dict[str, Any]) -> Any:
        attempt = 0
        while True:
            self.requests_sent += 1
            retry_after: float | None = None
            try:
                response = await self._http().post(self._url, json=body)
            except httpx.TransportError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code < 300:
                    try:
                        return response.json()
                    except ValueError as exc:
                        raise EmbeddingError(f"{self._url} answered with invalid JSON") from exc
                problem = f"HTTP {response.status_code}: {response.text[:200]}"
                if response.status_code not in _RETRYABLE_STATUS:
                    raise EmbeddingError(f"embedding request to {self._url} failed: {problem}")
                retry_after = _retry_after_seconds(response)
            if attempt >= self._max_retries:
                raise EmbeddingError(
                    f"embedding request to {self._url} failed after {attempt + 1} attempts: "
                    f"{problem}"
                )
            await asyncio.sleep(self._delay(attempt, retry_after))
            attempt += 1

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._max_backoff)
        ceiling = min(self._max_backoff, self._backoff * (2**attempt))
        # Full jitter: replicas that failed together do not retry together.
        return random.uniform(ceiling / 2, ceiling)

    def _parse(self, reply: Any, expected: int) -> Matrix:
        try:
            items = sorted(reply["data"], key=lambda item: int(item.get("index", 0)))
            rows = [item["embedding"] for item in items]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise EmbeddingError(f"{self._url} answered without a `data` list") from exc
        if len(rows) != expected:
            raise EmbeddingError(f"{self._url} returned {len(rows)} vectors for {expected} texts")
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingError(f"{self._url} returned vectors that are not numbers") from exc
        if matrix.ndim != 2 or matrix.shape[1] == 0:
            raise EmbeddingError(f"{self._url} returned vectors of uneven or zero length")
        if not self._dimension:
            self._dimension = int(matrix.shape[1])
        elif matrix.shape[1] != self._dimension:
            raise EmbeddingError(
                f"{self._model} returned {matrix.shape[1]}-dimensional vectors, "
                f"expected {self._dimension}"
            )
        if not np.isfinite(matrix).all():
            raise EmbeddingError(f"{self._url} returned non-finite vector values")
        return l2_normalise(matrix)


def _retry_after_seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
