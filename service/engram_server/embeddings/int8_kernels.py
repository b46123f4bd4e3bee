"""Integer matrix kernels for copies of the MiniLM graph.

The shipped model stores each weight matrix as int8 with one scale per output
column, behind a Cast and a Mul. onnxruntime folds those into float32 weights at
load time, so every inference streams 42 MB of float32 weights through the cache:
a one-word query costs almost 3 ms, and the cost grows by about 0.2 ms a word
piece. Rewriting each such MatMul into a kernel that reads the int8 weights
directly and multiplies in integers makes a query 1.5-2x cheaper.

The integer kernels also quantise the activations, so their vectors are close to,
not equal to, the float32 graph's. Search queries use them by default (a query's
small deviation moves only its own scores); stored memories use the kernels the
index was built with, which are part of the model's name, so one index never
holds vectors of two kinds. Measured over the 491 questions and 500 turns of the
eval set (cosine to the exact vector), and on `engram eval`'s ranking (queries
only; stored memories with each kernel: see the README's Benchmarks):

- `exact`: the graph as shipped (float32 matrix products); nDCG@10 0.638.
- `blockwise`: `MatMulNBits` with 8-bit weights, activations quantised per block
  of 128 values; about 1.6x cheaper; cosine median 0.999, lowest 0.993;
  nDCG@10 0.635.
- `dynamic` (the default): `DynamicQuantizeMatMul`, activations quantised per
  tensor; about 2x cheaper (a chat turn of 36 word pieces inside a loaded server:
  6.5 ms, against 8.4 ms blockwise); cosine median 0.994, lowest 0.968;
  nDCG@10 0.635.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engram_server.embeddings.base import EmbeddingError

KERNELS = ("exact", "blockwise", "dynamic")
# Activation block of the blockwise kernel: a divisor of both inner sizes of the
# model (384 and 1536). 128 is within 0.1 ms of 32 and 64 in cost and keeps the
# cosine to the exact vector above 0.999.
BLOCK_SIZE = 128
# onnxruntime's "accuracy level 4": int8 activations with int32 accumulation, the
# integer kernel; lower levels compute in float32 and dequantise the weights on
# every run, which is slower than the folded graph.
_INT8_COMPUTE = 4


def with_kernels(model_path: Path, kernels: str) -> bytes | str:
    """The model to load with `kernels`: a path for `exact`, else serialized bytes.

    Raises EmbeddingError when the graph has no MatMul over int8 weights to rewrite,
    which means the file is not the one this pipeline was built for.
    """
    if kernels not in KERNELS:
        raise ValueError(f"kernels {kernels!r}: expected one of {', '.join(KERNELS)}")
    if kernels == "exact":
        return str(model_path)
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(model_path))
    graph = model.graph
    initializers = {t.name: t for t in graph.initializer}
    producers = {out: node for node in graph.node for out in node.output}
    replaced: dict[int, Any] = {}  # index of the MatMul -> its replacement
    dropped: set[str] = set()  # outputs of the Cast/Mul pairs made redundant
    added: list[Any] = []
    for index, node in enumerate(graph.node):
        weight = _int8_weight(node, producers, initializers)
        if weight is None:
            continue
        cast, mul, quantized, scales = weight
        name = cast.input[0]
        if kernels == "blockwise":
            node_inits, new_node = _blockwise(node, name, quantized, scales, numpy_helper, helper)
        else:
            node_inits, new_node = _dynamic(node, name, scales, numpy_helper, helper)
        added.extend(node_inits)
        replaced[index] = new_node
        dropped.update((cast.output[0], mul.output[0]))
    if not replaced:
        raise EmbeddingError(f"{model_path} has no int8-weight MatMul to rewrite")

    nodes = [replaced.get(i, node) for i, node in enumerate(graph.node)]
    # Drop the Cast/Mul pairs nothing reads any more (a Mul first, then its Cast),
    # then the initializers only they read.
    while True:
        consumed = {name for node in nodes for name in node.input}
        unread = [n for n in nodes if n.output and n.output[0] in dropped - consumed]
        if not unread:
            break
        nodes = [n for n in nodes if n not in unread]
    kept = [t for t in graph.initializer if t.name in consumed]
    kept += [t for t in added if t.name in consumed]
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.initializer[:]
    graph.initializer.extend(kept)
    if not any(op.domain == "com.microsoft" for op in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    data: bytes = model.SerializeToString()
    return data


def _int8_weight(
    node: Any, producers: dict[str, Any], initializers: dict[str, Any]
) -> tuple[Any, Any, np.ndarray, np.ndarray] | None:
    """(Cast, Mul, int8 [K, N], scales [N]) when `node` is MatMul(x, Cast(W) * scale)."""
    from onnx import TensorProto, numpy_helper

    if node.op_type != "MatMul" or len(node.input) != 2:
        return None
    mul = producers.get(node.input[1])
    if mul is None or mul.op_type != "Mul":
        return None
    cast = producers.get(mul.input[0])
    if cast is None or cast.op_type != "Cast":
        return None
    weight = initializers.get(cast.input[0])
    scale = initializers.get(mul.input[1])
    if weight is None or scale is None or weight.data_type != TensorProto.INT8:
        return None
    quantized = numpy_helper.to_array(weight)
    scales = numpy_helper.to_array(scale).astype(np.float32).reshape(-1)
    if quantized.ndim != 2 or scales.shape != (quantized.shape[1],):
        return None  # only one scale per output column is understood here
    return cast, mul, quantized, scales


def _blockwise(
    node: Any, name: str, quantized: np.ndarray, scales: np.ndarray, numpy_helper: Any, helper: Any
) -> tuple[list[Any], Any]:
    inner, outer = quantized.shape
    if inner % BLOCK_SIZE:
        raise EmbeddingError(f"{name}: inner size {inner} is not a multiple of {BLOCK_SIZE}")
    blocks = inner // BLOCK_SIZE
    # MatMulNBits takes unsigned weights [N, blocks, block] with a zero point: the
    # same int8 values shifted by 128, and each column's scale repeated per block.
    shifted = (quantized.T.astype(np.int16) + 128).astype(np.uint8)
    packed = shifted.reshape(outer, blocks, BLOCK_SIZE)
    block_scales = np.repeat(scales, blocks).astype(np.float32)
    zero_points = np.full(outer * blocks, 128, dtype=np.uint8)
    inits = [
        numpy_helper.from_array(packed, f"{name}.nbits"),
        numpy_helper.from_array(block_scales, f"{name}.nbits_scales"),
        numpy_helper.from_array(zero_points, f"{name}.nbits_zero_points"),
    ]
    new_node = helper.make_node(
        "MatMulNBits",
        [node.input[0], *(t.name for t in inits)],
        list(node.output),
        name=f"{node.name or name}.nbits",
        domain="com.microsoft",
        K=inner,
        N=outer,
        bits=8,
        block_size=BLOCK_SIZE,
        accuracy_level=_INT8_COMPUTE,
    )
    return inits, new_node


def _dynamic(
    node: Any, name: str, scales: np.ndarray, numpy_helper: Any, helper: Any
) -> tuple[list[Any], Any]:
    inits = [
        numpy_helper.from_array(scales, f"{name}.dq_scales"),
        numpy_helper.from_array(np.zeros(scales.shape, dtype=np.int8), f"{name}.dq_zero_points"),
    ]
    new_node = helper.make_node(
        "DynamicQuantizeMatMul",
        [node.input[0], name, *(t.name for t in inits)],
        list(node.output),
        name=f"{node.name or name}.dq",
        domain="com.microsoft",
    )
    return inits, new_node
