"""Lexical analysis for the sparse (BM25) recall leg: terms, stemming, sparse vectors."""

from engram_server.lexical.analyzer import Analyzer, analyze, resolve_language
from engram_server.lexical.sparse import (
    DEFAULT_BM25,
    Bm25Params,
    SparseVector,
    document_vector,
    query_sparse_vector,
    query_vector,
    sparse_vector,
    term_id,
)

__all__ = [
    "DEFAULT_BM25",
    "Analyzer",
    "Bm25Params",
    "SparseVector",
    "analyze",
    "document_vector",
    "query_sparse_vector",
    "query_vector",
    "resolve_language",
    "sparse_vector",
    "term_id",
]
