"""Offline lab for Recall's ranking levers on REALTALK (dev split by default).

Rebuilds Recall's ranking in process with the server's own parts (the lexical
analyzer and BM25 document weights, per-tenant IDF, the MiniLM embedder with the
index and query kernels the server uses, the candidate depth and linear fusion
of `recall/scoring.py`) so that a lever can be measured in seconds rather than
through a full `engram eval realtalk` run. The memory signals (importance,
retention, recency) are left out: on an imported history every memory has the
same ones, which scale every candidate's score alike.

    .venv/bin/python eval/lab/realtalk_lab.py [--split dev|report|all] [--grid]

Embeddings are cached under $TMPDIR/engram-lab (text-keyed), never committed.
The figures it prints are what the ablation table in docs/recall-quality.md
reports; the server-side figures come from `engram eval realtalk`.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import os
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "service"))

from engram_server.embeddings.minilm import MiniLMEmbedder
from engram_server.evaluation import dataset, metrics, realtalk
from engram_server.evaluation.bm25 import BM25
from engram_server.evaluation.dataset import Conversation
from engram_server.lexical.addressee import addressee_spans, speaker_prefix, without_speaker
from engram_server.lexical.analyzer import analyze
from engram_server.lexical.sparse import Bm25Params, term_weights, weighted_terms
from engram_server.recall import anchored, when
from engram_server.recall.speakers import query_words, speaker_match
from engram_server.store.vectors.term_stats import bm25_idf

CACHE = Path(os.environ.get("ENGRAM_LAB_CACHE") or Path(tempfile.gettempdir()) / "engram-lab")
OWN_DATASET = Path(__file__).resolve().parents[1] / "datasets" / "conversations.jsonl"
CANDIDATES = 40  # max(CANDIDATES_PER_LEG, 4k) at k = 10


class OnnxModel:
    """A BERT-style sentence model from an ONNX file and its tokenizer.json, for
    comparing dense models in the lab: `bge` pools the [CLS] token and prefixes
    short queries with its retrieval instruction; `e5` mean-pools and prefixes
    "query: " / "passage: "."""

    BGE_QUERY = "Represent this sentence for searching relevant passages: "

    def __init__(self, kind: str, onnx_path: Path, tokenizer_path: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.kind = kind
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(onnx_path), options)
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(256)

    def _run(self, text: str) -> np.ndarray:
        enc = self.tokenizer.encode(text)
        ids = np.array([enc.ids], dtype=np.int64)
        mask = np.array([enc.attention_mask], dtype=np.int64)
        out = self.session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        )[0][0]
        vec = out[0] if self.kind.startswith("bge") else out.mean(axis=0)
        return vec / np.linalg.norm(vec)

    def embed_sync(self, texts: Sequence[str]) -> list[np.ndarray]:
        prefix = "passage: " if self.kind == "e5" else ""
        return [self._run(prefix + t) for t in texts]

    @property
    def query_tag(self) -> str:
        """Part of a query vector's cache key: queries embedded with another prefix differ."""
        return "p" if self.kind == "bge-plain" else ""

    def embed_query_sync(self, text: str) -> np.ndarray:
        prefixes = {"e5": "query: ", "bge": self.BGE_QUERY}
        return self._run(prefixes.get(self.kind, "") + text)


def lab_model(spec: str) -> tuple[object, str]:
    """`minilm` (the server's embedder) or `bge:DIR` / `e5:DIR` with a model's
    .onnx and *tokenizer.json in DIR."""
    if spec == "minilm":
        # One run at a time on this thread: the pooled runs are niced, and starve
        # on a busy machine.
        return MiniLMEmbedder(batch_threads=1), "vectors.npz"
    kind, _, folder = spec.partition(":")
    directory = Path(folder)
    onnx_path = next(directory.glob("*.onnx"))
    tokenizer_path = next(directory.glob("*tokenizer.json"))
    # bge-plain: bge without its query instruction (same stored vectors as bge).
    stored = "bge" if kind == "bge-plain" else kind
    return OnnxModel(kind, onnx_path, tokenizer_path), f"vectors-{stored}-{onnx_path.stem}.npz"


class Vectors:
    """Dense vectors by text, cached on disk per model."""

    def __init__(self, spec: str = "minilm") -> None:
        self.model, name = lab_model(spec)  # type: ignore[assignment]
        CACHE.mkdir(exist_ok=True)
        self.path = CACHE / name
        self.known: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self.known = {k: data[k] for k in data.files}
        self.dirty = False

    @staticmethod
    def key(kind: str, text: str) -> str:
        return kind + hashlib.sha1(text.encode()).hexdigest()

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if self.key("d", t) not in self.known]
        for offset in range(0, len(todo), 256):
            chunk = todo[offset : offset + 256]
            for text, row in zip(chunk, self.model.embed_sync(chunk), strict=True):
                self.known[self.key("d", text)] = row
            self.dirty = True
            print(f"  embedded {offset + len(chunk)}/{len(todo)}", file=sys.stderr)
        return np.stack([self.known[self.key("d", t)] for t in texts])

    def query(self, text: str) -> np.ndarray:
        key = self.key("q" + getattr(self.model, "query_tag", ""), text)
        if key not in self.known:
            self.known[key] = self.model.embed_query_sync(text)
            self.dirty = True
        return self.known[key]

    def save(self) -> None:
        if self.dirty:
            np.savez(self.path, **self.known)
            self.dirty = False


@dataclass(frozen=True)
class Lever:
    """One configuration of the ranking."""

    name: str
    dense_weight: float = 0.8
    lexical_weight: float = 0.2
    dense_context: str = "none"  # none | text1 | text2 | mix
    context_mix: float = 0.5  # with dense_context="mix": weight of the previous turn's vector
    lexical_context: float = 0.0  # weight of the neighbours' terms in the lexical vector
    lexical_norm: str = "max"  # max | none
    dense_norm: str = "abs"  # abs (cosine as is) | minmax (over the candidates)
    strip_speaker: bool = False  # embed the text without its "SPEAKER: " prefix
    speaker_boost: float = 0.0  # added when the query names the turn's speaker
    prf: int = 0  # second pass: expand the query with the top-n hits' rare terms
    prf_weight: float = 0.5
    time_boost: float = 0.0  # added (times the match) when the turn was said in a named window
    time_before: int = 0  # days before a window that still match, linearly less
    time_after: int = 2  # days after a window that still match
    time_strip: bool = False  # search without the time expression's words
    time_leg: int = 0  # also take the n best turns said in the window as candidates
    session_spread: float = 0.0  # minus this per better-ranked hit of the same session
    session_boost: float = 0.0  # plus this times the session's best score / the best
    next_turn: float = 0.0  # a hit's next turn in its session gets this share of its score
    # Depth: a second pass from the first pass's top `depth_seeds` hits' distinctive
    # terms the query does not contain, its candidates fused with the first pass.
    depth_seeds: int = 0
    depth_terms: int = 6  # expansion terms per pass (joint) or per seed (per_seed)
    depth_query: str = "joint"  # joint | per_seed
    depth_fusion: str = "rrf"  # rrf | discount
    depth_weight: float = 0.5  # the second pass's share (rrf weight, or score discount)
    depth_lexical_only: bool = False  # second pass without a new query embedding
    depth_session: int = 0  # widen: turns of the top-n hits' sessions join the candidates
    candidates: int = CANDIDATES  # per leg
    # widen also the n sessions whose centroid and summed term weights match best
    depth_session_surface: int = 0
    depth_idf: str = (
        "tenant"  # tenant (the tenant's IDF) | candidates (df among the first pass's candidates)
    )
    anchors: bool = False  # also resolve times anchored on another date or event
    addressee_weight: float = 1.0  # share of a word a name addressing the listener counts for
    dense_addressee: bool = False  # embed the text without the names addressing the listener
    bm25_k1: float = 1.2  # the lexical leg's document weighting (lexical/sparse.Bm25Params)
    bm25_b: float = 0.75
    fact_prior: float = 0.0  # added when the Learn path's rules find a fact in the turn
    facet_boost: float = 0.0  # added when the turn's fact tags answer the query's facet
    facet_leg: int = 0  # also take the n best turns with the query's facet as candidates
    length_prior: float = 0.0  # added times min(1, log(1 + words) / log(1 + length_full))
    length_full: int = 30  # words at which a turn earns the whole length prior
    length_mode: str = "add"  # add | scale (the fused score times (1 - w + w * share))
    # Sentence vectors: a turn of several sentences is also embedded sentence by
    # sentence, and its dense score is the best of its vectors (max) or the whole
    # turn's plus a share of the best sentence's excess (mix).
    sentence_vectors: str = "none"  # none | max | mix
    # all sentences, or facts: the sentences the Learn path keeps, worded as it keeps them
    sentence_source: str = "all"
    sentence_mix: float = 0.5
    sentence_min_words: int = 4  # shorter sentences are merged into the next
    query_strip_speakers: bool = False  # the dense query without the tenant's speaker names
    # the dense query without capitalised words inside a sentence (names, places),
    # months and weekdays kept: "all", or "possessive" (only "Name's")
    query_strip_capitalised: str = "none"
    speaker_leg: int = 0  # also the n best dense (+lexical) turns of the speakers a question names


SPEAKER = re.compile(r"^([^:]{1,40}):\s")


def previous_in_session(conv: Conversation, n: int) -> list[list[int]]:
    out: list[list[int]] = []
    for i, turn in enumerate(conv.turns):
        prev: list[int] = []
        j = i - 1
        while j >= 0 and len(prev) < n and conv.turns[j].session == turn.session:
            prev.insert(0, j)
            j -= 1
        out.append(prev)
    return out


class Index:
    """One conversation (one tenant) indexed under one lever."""

    def __init__(self, conv: Conversation, lever: Lever, vectors: Vectors) -> None:
        self.conv = conv
        self.lever = lever
        texts = [t.text for t in conv.turns]
        bodies = [without_speaker(t) if lever.strip_speaker else t for t in texts]
        if lever.dense_addressee:
            bodies = [_without_addressee(b) for b in bodies]
        prev1 = previous_in_session(conv, 1)
        prev2 = previous_in_session(conv, 2)
        if lever.dense_context == "text1":
            dense_texts = [
                "\n".join([bodies[j] for j in p] + [b]) for p, b in zip(prev1, bodies, strict=True)
            ]
        elif lever.dense_context == "text2":
            dense_texts = [
                "\n".join([bodies[j] for j in p] + [b]) for p, b in zip(prev2, bodies, strict=True)
            ]
        else:
            dense_texts = bodies
        dense = vectors.docs(dense_texts)
        if lever.dense_context == "mix":
            own = dense.copy()
            for i, p in enumerate(prev1):
                if p:
                    dense[i] = own[i] + lever.context_mix * own[p[0]]
            dense /= np.linalg.norm(dense, axis=1, keepdims=True)
        self.dense = dense
        self.parts: list[tuple[int, int]] = []  # turn index -> rows of self.part_dense
        if lever.sentence_vectors != "none":
            pieces: list[str] = []
            owner: list[int] = []
            for i, body in enumerate(bodies):
                if lever.sentence_source == "facts":
                    split = learned_facts(body)
                    if len(split) == 1 and split[0] == body:
                        split = []
                else:
                    split = split_sentences(body, lever.sentence_min_words)
                if len(split) > 1 or lever.sentence_source == "facts":
                    pieces.extend(split)
                    owner.extend([i] * len(split))
            self.part_dense = vectors.docs(pieces) if pieces else np.zeros((0, dense.shape[1]))
            self.part_owner = np.array(owner, dtype=int)
        self.said = [_date(t.time) for t in conv.turns]
        # Lexical: BM25 tf part per document; context terms at a reduced weight.
        self.doc_weights: list[dict[str, float]] = []
        df: Counter[str] = Counter()
        for i, text in enumerate(texts):
            weights: dict[str, float] = {}
            vec = weighted_terms(
                text,
                addressee_weight=lever.addressee_weight,
                params=Bm25Params(k1=lever.bm25_k1, b=lever.bm25_b),
            )
            for term, w in vec.items():
                weights[term] = w
            if lever.lexical_context > 0:
                for j in prev1[i]:
                    for term, w in _tf(analyze(texts[j])).items():
                        weights[term] = weights.get(term, 0.0) + lever.lexical_context * w
            self.doc_weights.append(weights)
            df.update(weights.keys())
        self.idf = {term: bm25_idf(len(texts), n) for term, n in df.items()}
        self.postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for i, weights in enumerate(self.doc_weights):
            for term, w in weights.items():
                self.postings[term].append((i, w))
        # Speaker names, which the depth levers never take as expansion terms.
        names = Counter(
            m.group(1).lower() for turn in conv.turns if (m := SPEAKER.match(turn.text))
        )
        self.speaker_terms = {t for s in names for t in analyze(s)}
        said = Counter(
            found[0] for turn in conv.turns if (found := speaker_prefix(turn.text)) is not None
        )
        self.speaker_names = sorted(
            {w for s, n in said.items() if n >= 3 for w in s.split() if len(w) > 1},
            key=len,
            reverse=True,
        )
        words = np.array([len(without_speaker(t.text).split()) for t in conv.turns])
        self.length_share = np.minimum(1.0, np.log1p(words) / np.log1p(lever.length_full))
        self.tags = (
            [fact_tags(t.text) for t in conv.turns]
            if (lever.fact_prior or lever.facet_boost or lever.facet_leg)
            else [frozenset()] * len(conv.turns)
        )

    def lexical(self, terms: Sequence[str], weights: dict[str, float] | None = None) -> np.ndarray:
        scores = np.zeros(len(self.conv.turns))
        for term in dict.fromkeys(terms):
            idf = self.idf.get(term)
            if idf is None:
                continue
            q = weights.get(term, 1.0) if weights else 1.0
            for i, w in self.postings[term]:
                scores[i] += q * idf * w
        return scores

    def rank(self, question: str, vectors: Vectors) -> list[str]:
        lever = self.lever
        self.timed = np.zeros(len(self.conv.turns))
        search = question
        if lever.time_boost or lever.time_leg:
            resolved = when.resolve(question, NOW)
            told: frozenset[object] = frozenset()
            if lever.anchors:
                resolved, told = self._anchored(question, resolved, vectors)
            if resolved:
                self.timed = np.array(
                    [
                        when.time_match(resolved.windows, d, lever.time_before, lever.time_after)
                        if d
                        else 0.0
                        for d in self.said
                    ]
                )
                if lever.time_strip:
                    search = resolved.without_spans(question) or question
            for i in told:
                self.timed[int(str(i))] = 1.0
        dense_search = search
        if lever.query_strip_speakers:
            for name in self.speaker_names:
                dense_search = re.sub(
                    rf"\b{re.escape(name)}(?:'s|\u2019s)?\b", "", dense_search, flags=re.I
                )
            dense_search = re.sub(r"\s+", " ", dense_search).strip() or search
        if lever.query_strip_capitalised != "none":
            dense_search = strip_capitalised(dense_search, lever.query_strip_capitalised) or search
        qv = vectors.query(dense_search)
        self.last_query = qv
        dense = self.dense @ qv
        if lever.sentence_vectors != "none" and len(self.part_owner):
            part = self.part_dense @ qv
            best = np.full(len(dense), -1.0)
            np.maximum.at(best, self.part_owner, part)
            if lever.sentence_vectors == "max":
                dense = np.maximum(dense, best)
            else:
                dense = dense + lever.sentence_mix * np.maximum(0.0, best - dense)
        terms = analyze(search)
        lexical = self.lexical(terms)
        order = self._fuse(dense, lexical, question)
        if lever.depth_seeds:
            order = self._depth(
                order, dict(self.last_scores), terms, dense, lexical, question, vectors
            )
        if lever.depth_session:
            order = self._widen(order, dense, lexical, question)
        if lever.prf:
            top = order[: lever.prf]
            extra: Counter[str] = Counter()
            for i in top:
                for term in self.doc_weights[i]:
                    if term not in terms:
                        extra[term] += self.idf.get(term, 0.0)
            expansion = [t for t, _ in extra.most_common(10)]
            weights = {t: lever.prf_weight for t in expansion}
            lexical2 = lexical + self.lexical(expansion, weights)
            centroid = self.dense[top].mean(axis=0)
            qv2 = qv + lever.prf_weight * centroid / np.linalg.norm(centroid)
            qv2 /= np.linalg.norm(qv2)
            order = self._fuse(self.dense @ qv2, lexical2, question)
        return [self.conv.turns[i].id for i in order]

    def _anchored(
        self, question: str, named: when.Resolved, vectors: Vectors
    ) -> tuple[when.Resolved, frozenset[object]]:
        """As the server's `_anchored_time`: the anchor's day from the lexical leg's
        candidates, ties by their fused score."""
        expression, named = anchored.resolve(question, NOW, named)
        if expression is None:
            return named, frozenset()
        dense = self.dense @ vectors.query(question)
        lexical = self.lexical(analyze(question))
        nonzero = np.flatnonzero(lexical > 0)
        top = nonzero[np.argsort(-lexical[nonzero], kind="stable")][:CANDIDATES]
        high = lexical.max() or 1.0
        told = [
            anchored.Told(
                self.conv.turns[i].text,
                self.said[i],
                self.lever.dense_weight * max(0.0, dense[i])
                + self.lever.lexical_weight * lexical[i] / high,
                i,
            )
            for i in top.tolist()
        ]
        anchor = anchored.find_anchor(expression.terms(), told)
        return anchored.with_anchor_days(named, expression, anchor.days), anchor.told

    def _expansion(self, seeds: Sequence[int], terms: Sequence[str], n: int) -> list[str]:
        """The seeds' most distinctive terms (idf times in-document weight) that the
        query does not contain; speaker names excluded (every turn has one)."""
        have = set(terms)
        extra: Counter[str] = Counter()
        idf = self.idf
        if self.lever.depth_idf == "candidates":
            pool = list(self.last_scores)
            df: Counter[str] = Counter()
            for i in pool:
                df.update(self.doc_weights[i].keys())
            idf = {t: bm25_idf(len(pool), c) for t, c in df.items()}
        for i in seeds:
            for term, w in self.doc_weights[i].items():
                if term not in have and term not in self.speaker_terms:
                    extra[term] = max(extra[term], idf.get(term, 0.0) * w)
        return [t for t, _ in extra.most_common(n)]

    def _depth(self, order, first, terms, dense, lexical, question, vectors) -> list[int]:
        lever = self.lever
        seeds = order[: lever.depth_seeds]
        groups = (
            [self._expansion(seeds, terms, lever.depth_terms)]
            if lever.depth_query == "joint"
            else [self._expansion([i], terms, lever.depth_terms) for i in seeds]
        )
        lists: list[dict[int, float]] = []
        for expansion in groups:
            if not expansion:
                continue
            lexical2 = self.lexical([*terms, *expansion])
            if lever.depth_lexical_only:
                dense2 = dense
            else:
                qv2 = vectors.query(question + " " + " ".join(expansion))
                dense2 = self.dense @ qv2
            self._fuse(dense2, lexical2, question)
            lists.append(dict(self.last_scores))
        if not lists:
            return order
        fused: dict[int, float] = defaultdict(float)
        if lever.depth_fusion == "rrf":
            for rank, i in enumerate(order):
                fused[i] += 1.0 / (60 + rank)
            for second in lists:
                ranked = sorted(second, key=lambda i: -second[i])
                for rank, i in enumerate(ranked):
                    fused[i] += lever.depth_weight / len(lists) / (60 + rank)
        else:
            for i, v in first.items():
                fused[i] = v
            for second in lists:
                for i, v in second.items():
                    if i not in first:
                        fused[i] = max(fused[i], lever.depth_weight * v)
        return sorted(fused, key=lambda i: (-fused[i], i))

    def _widen(self, order, dense, lexical, question) -> list[int]:
        """The top hits' sessions' other turns join the candidates, scored as the
        first pass scores (their own dense and lexical match)."""
        lever = self.lever
        sessions = {self.conv.turns[i].session for i in order[: lever.depth_session]}
        if lever.depth_session_surface:
            sessions |= set(self._best_sessions(dense, lexical, lever.depth_session_surface))
        extra = [i for i, t in enumerate(self.conv.turns) if t.session in sessions]
        self._fuse(dense, lexical, question, extra)
        scores = self.last_scores
        return sorted(scores, key=lambda i: (-scores[i], i))

    def _best_sessions(self, dense: np.ndarray, lexical: np.ndarray, n: int) -> list[str]:
        """Sessions as one retrieval surface each: the cosine of the query to the
        session's mean turn vector, and the session's summed lexical score."""
        if not hasattr(self, "centroids"):
            names = list(dict.fromkeys(t.session for t in self.conv.turns))
            members = {name: [] for name in names}
            for i, t in enumerate(self.conv.turns):
                members[t.session].append(i)
            self.session_names = names
            self.session_members = [members[name] for name in names]
            c = np.stack([self.dense[m].mean(axis=0) for m in self.session_members])
            self.centroids = c / np.linalg.norm(c, axis=1, keepdims=True)
        qv = self.last_query
        d = self.centroids @ qv
        lx = np.array([lexical[m].sum() for m in self.session_members])
        lx = lx / lx.max() if lx.max() > 0 else lx
        score = self.lever.dense_weight * d + self.lever.lexical_weight * lx
        return [self.session_names[i] for i in np.argsort(-score)[:n]]

    def _first_pass(self, dense: np.ndarray, lexical: np.ndarray, top_lex: float, i: int) -> float:
        """A turn's fused dense and lexical match, the lexical one scaled to the best."""
        return float(
            self.lever.dense_weight * dense[i] + self.lever.lexical_weight * lexical[i] / top_lex
        )

    def _fuse(
        self, dense: np.ndarray, lexical: np.ndarray, question: str, more: Sequence[int] = ()
    ) -> list[int]:
        lever = self.lever
        d_top = np.argsort(-dense, kind="stable")[: lever.candidates]
        l_nonzero = np.flatnonzero(lexical > 0)
        l_top = l_nonzero[np.argsort(-lexical[l_nonzero], kind="stable")][: lever.candidates]
        candidates = list(dict.fromkeys([*d_top.tolist(), *l_top.tolist(), *more]))
        in_lexical = set(l_top.tolist()) | {i for i in more if lexical[i] > 0}
        in_dense = set(d_top.tolist()) | set(more)
        if lever.time_leg and self.timed.any():
            inside = np.flatnonzero(self.timed > 0)
            top_lex = lexical.max() or 1.0
            best = inside[np.argsort(-(dense[inside] + lexical[inside] / top_lex), kind="stable")]
            extra = best[: lever.time_leg].tolist()
            candidates = list(dict.fromkeys([*candidates, *extra]))
            in_dense |= set(extra)
            in_lexical |= {i for i in extra if lexical[i] > 0}
        max_lex = max((lexical[i] for i in in_lexical), default=0.0)
        dense_values = [dense[i] for i in in_dense]
        d_low, d_high = min(dense_values, default=0.0), max(dense_values, default=1.0)
        q_words = query_words(question)
        facets = query_facets(question) if (lever.facet_boost or lever.facet_leg) else frozenset()
        if lever.facet_leg and facets:
            inside = [i for i, t in enumerate(self.tags) if t & facets]
            top_lex = lexical.max() or 1.0
            inside.sort(key=lambda i: -self._first_pass(dense, lexical, top_lex, i))
            extra = inside[: lever.facet_leg]
            candidates = list(dict.fromkeys([*candidates, *extra]))
            in_dense |= set(extra)
            in_lexical |= {i for i in extra if lexical[i] > 0}
            max_lex = max((lexical[i] for i in in_lexical), default=0.0)
        if lever.speaker_leg:
            turns = self.conv.turns
            named = [i for i in range(len(turns)) if speaker_match(turns[i].text, q_words) > 0]
            if named:
                top_lex = lexical.max() or 1.0
                named.sort(key=lambda i: -self._first_pass(dense, lexical, top_lex, i))
                extra = named[: lever.speaker_leg]
                candidates = list(dict.fromkeys([*candidates, *extra]))
                in_dense |= set(extra)
                in_lexical |= {i for i in extra if lexical[i] > 0}
                max_lex = max((lexical[i] for i in in_lexical), default=0.0)
        scored = []
        for i in candidates:
            d = min(1.0, max(0.0, dense[i])) if i in in_dense else 0.0
            if lever.dense_norm == "minmax" and i in in_dense:
                d = (dense[i] - d_low) / (d_high - d_low) if d_high > d_low else 1.0
            lx = lexical[i] if i in in_lexical else 0.0
            if lever.lexical_norm == "max":
                lx = lx / max_lex if max_lex > 0 else 0.0
            s = lever.dense_weight * d + lever.lexical_weight * lx
            if lever.time_boost:
                s += lever.time_boost * self.timed[i]
            if lever.speaker_boost:
                s += lever.speaker_boost * speaker_match(self.conv.turns[i].text, q_words)
            if lever.length_prior:
                if lever.length_mode == "add":
                    s += lever.length_prior * self.length_share[i]
                else:
                    s *= 1 - lever.length_prior + lever.length_prior * self.length_share[i]
            if lever.fact_prior and self.tags[i]:
                s += lever.fact_prior
            if lever.facet_boost and self.tags[i] & facets:
                s += lever.facet_boost
            scored.append((-s, i))
        scored.sort()
        if lever.session_boost or lever.next_turn:
            by_score = {i: -neg for neg, i in scored}
            if lever.next_turn:
                for i, value in list(by_score.items()):
                    j = i + 1
                    turns = self.conv.turns
                    if j < len(turns) and turns[j].session == turns[i].session:
                        by_score[j] = max(by_score.get(j, 0.0), lever.next_turn * value)
            if lever.session_boost:
                best: dict[str, float] = {}
                for i, value in by_score.items():
                    sess = self.conv.turns[i].session
                    best[sess] = max(best.get(sess, 0.0), value)
                top = max(best.values(), default=1.0) or 1.0
                by_score = {
                    i: v + lever.session_boost * best[self.conv.turns[i].session] / top
                    for i, v in by_score.items()
                }
            scored = sorted((-v, i) for i, v in by_score.items())
        self.last_scores = {i: -neg for neg, i in scored}
        if lever.session_spread:
            remaining = [(-neg, i) for neg, i in scored]
            out: list[int] = []
            seen: Counter[str] = Counter()
            while remaining and len(out) < 20:
                k = max(
                    range(len(remaining)),
                    key=lambda n: (
                        remaining[n][0]
                        - lever.session_spread * seen[self.conv.turns[remaining[n][1]].session]
                    ),
                )
                _, i = remaining.pop(k)
                out.append(i)
                seen[self.conv.turns[i].session] += 1
            return out + [i for _, i in remaining]
        return [i for _, i in scored]


NOW = datetime.now(UTC)

_CALENDAR = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday i".split()
)
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w-]*)((?:'|\u2019)s)?\b")


def strip_capitalised(question: str, mode: str) -> str:
    """The question without capitalised words that do not start a sentence."""

    def cut(m: re.Match[str]) -> str:
        if m.group(1).lower() in _CALENDAR:
            return m.group(0)
        if mode == "possessive" and not m.group(2):
            return m.group(0)
        return ""

    return re.sub(r"\s+", " ", _CAPITALISED.sub(cut, question)).strip()


# What a question asks about, by the Learn path's fact tags that answer it.
FACETS = {
    "preference": re.compile(
        r"\b(?:hobb(?:y|ies)|interest(?:s|ed)?|enjoys?|likes?|loves?|favou?rites?|fan|fans|"
        r"prefers?|passion|passionate|free time|spare time|tastes?|fond)\b",
        re.I,
    ),
    "habit": re.compile(r"\b(?:usually|often|routine|habits?|regularly|every|typically)\b", re.I),
    "work": re.compile(
        r"\b(?:jobs?|work|works|career|employer|company|profession|occupation)\b", re.I
    ),
}


def split_sentences(text: str, min_words: int) -> list[str]:
    """A turn's sentences, a short one joined to the next (or the last to the one before)."""
    from engram_server.learning.text import sentences

    out: list[str] = []
    pending = ""
    for sentence in sentences(text):
        pending = f"{pending} {sentence}".strip()
        if len(pending.split()) >= min_words:
            out.append(pending)
            pending = ""
    if pending:
        if out:
            out[-1] = f"{out[-1]} {pending}"
        else:
            out.append(pending)
    return out


def learned_facts(text: str) -> list[str]:
    """The facts the deterministic Learn path keeps from a turn, as it words them."""
    from engram_server.learning.extract import extract_facts
    from engram_server.learning.model import Turn

    return [f.content for f in extract_facts([Turn(index=0, role="user", content=text)])]


def fact_tags(text: str) -> frozenset[str]:
    from engram_server.learning.extract import classify
    from engram_server.learning.text import sentences

    out: set[str] = set()
    for sentence in sentences(without_speaker(text)):
        found = classify(sentence)
        if found:
            out.update(found[3])
    return frozenset(out)


def query_facets(question: str) -> frozenset[str]:
    return frozenset(tag for tag, pattern in FACETS.items() if pattern.search(question))


def _date(iso: str) -> date | None:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).date()
    except ValueError:
        return None


def _tf(terms: Sequence[str]) -> dict[str, float]:
    """`lexical.sparse.document_vector`'s weights, keyed by term instead of its id."""
    return term_weights(Counter(terms))


def _without_addressee(text: str) -> str:
    out, last = [], 0
    for a, b in addressee_spans(text):
        out.append(text[last:a])
        last = b
    out.append(text[last:])
    return re.sub(r"\s+([,.!?])", r"\1", "".join(out)).replace(",,", ",")


def speaker_of(conv: Conversation, turn_index: int) -> str:
    """Who said a turn: its "SPEAKER:" prefix, else the user's name or the role."""
    turn = conv.turns[turn_index]
    m = SPEAKER.match(turn.text)
    if m:
        return m.group(1).lower()
    return conv.user.lower() if turn.role == "user" else turn.role


def speaker_group(conv: Conversation, question: str, answers: dict[str, int]) -> str:
    """Whether a question names the speaker of its answering turns ("own"), only
    another speaker ("other"), or no speaker ("none")."""
    index = {t.id: i for i, t in enumerate(conv.turns)}
    words = {w.lower() for w in re.findall(r"\w+", question)}
    said_by = {speaker_of(conv, index[t]) for t, g in answers.items() if g == 2 and t in index}
    everyone = {speaker_of(conv, i) for i in range(len(conv.turns))}
    named = {s for s in everyone if set(s.split()) & words}
    if not named:
        return "none"
    if said_by <= named:
        return "own"
    return "mixed" if named & said_by else "other"


def swap_speakers(conv: Conversation) -> Conversation:
    """The conversation's questions that name exactly one of its two speakers, asked
    about the other one instead (same evidence): a question naming one speaker about
    the other's turns, as a held-out set's adversarial questions are."""
    names = sorted({m.group(1) for t in conv.turns if (m := SPEAKER.match(t.text))})
    if len(names) != 2:
        return replace(conv, questions=())
    swapped = []
    for q in conv.questions:
        present = [n for n in names if re.search(rf"\b{re.escape(n)}\b", q.text)]
        if len(present) != 1:
            continue
        other = names[1] if present[0] == names[0] else names[0]
        text = re.sub(rf"\b{re.escape(present[0])}\b", other, q.text)
        swapped.append(replace(q, text=text))
    return replace(conv, questions=tuple(swapped))


@dataclass
class Score:
    r10: list[float]
    rr: list[float]
    cats: list[str]
    groups: list[str]


def evaluate(
    convs: Sequence[Conversation], rank: Callable[[Conversation, str], list[str]]
) -> Score:
    s = Score([], [], [], [])
    for conv in convs:
        for q in conv.questions:
            ranked = list(dict.fromkeys(rank(conv, q.text)))[:10]
            s.r10.append(metrics.recall_at_k(ranked, q.answers, 10))
            s.rr.append(metrics.reciprocal_rank(ranked, q.answers))
            s.cats.append(q.category)
            s.groups.append(speaker_group(conv, q.text, dict(q.answers)))
    return s


def score_lever(convs: Sequence[Conversation], lever: Lever, vectors: Vectors) -> Score:
    indexes = {c.id: Index(c, lever, vectors) for c in convs}
    vectors.save()
    return evaluate(convs, lambda c, q: indexes[c.id].rank(q, vectors))


def paired(s: Score, reference: Score) -> str:
    """Differences from a reference lever with paired 95% bootstrap intervals:
    recall@10, MRR, and recall@10 of the multi-hop questions."""
    cells = []
    multi = [i for i, c in enumerate(s.cats) if c == "multi-hop"]
    for label, ours, theirs in (
        ("dR@10", s.r10, reference.r10),
        ("dMRR", s.rr, reference.rr),
        ("d multi-hop R@10", [s.r10[i] for i in multi], [reference.r10[i] for i in multi]),
    ):
        if not ours:
            continue
        low, high = metrics.paired_bootstrap_ci(ours, theirs, resamples=2000)
        delta = float(np.mean(ours) - np.mean(theirs))
        cells.append(f"{label} {delta:+.3f} [{low:+.3f},{high:+.3f}]")
    return "  ".join(cells)


def summarise(name: str, s: Score, base: Score | None = None) -> str:
    cells = [f"{name:34s}", f"R@10 {np.mean(s.r10):.3f}", f"MRR {np.mean(s.rr):.3f}"]
    for cat in sorted(set(s.cats)):
        idx = [i for i, c in enumerate(s.cats) if c == cat]
        cells.append(f"{cat[:6]} {np.mean([s.r10[i] for i in idx]):.3f}")
    for group in ("own", "mixed", "other", "none"):
        idx = [i for i, g in enumerate(s.groups) if g == group]
        if idx:
            cells.append(
                f"{group}({len(idx)}) {np.mean([s.r10[i] for i in idx]):.3f}"
                f"/{np.mean([s.rr[i] for i in idx]):.3f}"
            )
    if base is not None:
        low, high = metrics.paired_bootstrap_ci(s.r10, base.r10, resamples=1000)
        cells.append(f"dR@10 [{low:+.3f},{high:+.3f}]")
    return "  ".join(cells)


TIME = {"time_boost": 0.3, "time_after": 1, "time_before": 1}

DEFAULTS = {"dense_weight": 0.4, "lexical_weight": 0.6, "session_boost": 0.1, **TIME}
SPEAKER_DEFAULTS = {"addressee_weight": 0.0, "strip_speaker": True, "speaker_boost": 0.05}
# The depth levers were measured before the speaker defaults, weights given apart.
DEPTH_BASE = {"session_boost": 0.1, **TIME}

SHIPPED = {**DEFAULTS, **SPEAKER_DEFAULTS, "bm25_b": 0.3}

LEVERS = [
    # Surfaces and priors measured over the shipped defaults (BM25 b 0.3).
    *(
        Lever(f"shipped{name}", **{**SHIPPED, **change})  # type: ignore[arg-type]
        for name, change in (
            ("", {}),
            (" + fact prior 0.02", {"fact_prior": 0.02}),
            (" + fact prior 0.05", {"fact_prior": 0.05}),
            (" + fact prior 0.1", {"fact_prior": 0.1}),
            (" + facet 0.05", {"facet_boost": 0.05}),
            (" + facet 0.1", {"facet_boost": 0.1}),
            (" + facet leg 20", {"facet_leg": 20}),
            (" + facet leg 20 + facet 0.05", {"facet_leg": 20, "facet_boost": 0.05}),
            (" + query without speakers", {"query_strip_speakers": True}),
            (" + query without capitalised", {"query_strip_capitalised": "all"}),
            (" + query without possessive names", {"query_strip_capitalised": "possessive"}),
            (" + speaker leg 20", {"speaker_leg": 20}),
            (" + speaker leg 40", {"speaker_leg": 40}),
            (" + speaker leg 40 + speaker 0.1", {"speaker_leg": 40, "speaker_boost": 0.1}),
            (
                " + learned facts as surfaces",
                {"sentence_vectors": "max", "sentence_source": "facts"},
            ),
            (" + sentence vectors max", {"sentence_vectors": "max"}),
            (" + sentence vectors mix 0.5", {"sentence_vectors": "mix"}),
            (" + sentence vectors mix 0.3", {"sentence_vectors": "mix", "sentence_mix": 0.3}),
            *(
                (
                    f" + sentence vectors max, {n} words",
                    {"sentence_vectors": "max", "sentence_min_words": n},
                )
                for n in (8, 12, 16)
            ),
            *(
                (
                    f" + sentence vectors max, 8 words, dense {dw}",
                    {
                        "sentence_vectors": "max",
                        "sentence_min_words": 8,
                        "dense_weight": dw,
                        "lexical_weight": round(1 - dw, 2),
                    },
                )
                for dw in (0.3, 0.5)
            ),
            (" + length 0.05", {"length_prior": 0.05}),
            (" + length 0.1", {"length_prior": 0.1}),
            (" + length 0.2", {"length_prior": 0.2}),
            (" + length 0.1, full at 15 words", {"length_prior": 0.1, "length_full": 15}),
            (" + length 0.1, full at 50 words", {"length_prior": 0.1, "length_full": 50}),
            (" + length scaled 0.2", {"length_prior": 0.2, "length_mode": "scale"}),
            (" + length scaled 0.4", {"length_prior": 0.4, "length_mode": "scale"}),
        )
    ),
    Lever("defaults", **DEFAULTS),
    Lever("after: speaker defaults", **DEFAULTS, **SPEAKER_DEFAULTS),  # type: ignore[arg-type]
    *(
        Lever(
            f"after: speaker defaults, dense {dw}",
            **{
                **DEFAULTS,
                **SPEAKER_DEFAULTS,
                "dense_weight": dw,
                "lexical_weight": round(1 - dw, 2),
            },
        )  # type: ignore[arg-type]
        for dw in (0.5, 0.6, 0.7)
    ),
    Lever(
        "stronger model: 0.6 + ctx mix 0.2",
        **{**DEFAULTS, **SPEAKER_DEFAULTS, "dense_weight": 0.6, "lexical_weight": 0.4},
        dense_context="mix",
        context_mix=0.2,
    ),  # type: ignore[arg-type]
    Lever(
        "stronger model: 0.6 + ctx lexical 0.3",
        **{**DEFAULTS, **SPEAKER_DEFAULTS, "dense_weight": 0.6, "lexical_weight": 0.4},
        lexical_context=0.3,
    ),  # type: ignore[arg-type]
    Lever(
        "stronger model: 0.6 + widen top 5",
        **{**DEFAULTS, **SPEAKER_DEFAULTS, "dense_weight": 0.6, "lexical_weight": 0.4},
        depth_session=5,
    ),  # type: ignore[arg-type]
    Lever(
        "stronger model: 0.6 + session support 0.2",
        **{
            **DEFAULTS,
            **SPEAKER_DEFAULTS,
            "dense_weight": 0.6,
            "lexical_weight": 0.4,
            "session_boost": 0.2,
        },
    ),  # type: ignore[arg-type]
    Lever(
        "stronger model: 0.6 + 80 per leg",
        **{**DEFAULTS, **SPEAKER_DEFAULTS, "dense_weight": 0.6, "lexical_weight": 0.4},
        candidates=80,
    ),  # type: ignore[arg-type]
    *(
        Lever(
            f"after: speaker defaults, bm25 k1 {k1} b {b}",
            **DEFAULTS,
            **SPEAKER_DEFAULTS,
            bm25_k1=k1,
            bm25_b=b,
        )  # type: ignore[arg-type]
        for k1, b in (
            (1.2, 0.3),
            (1.2, 0.1),
            (1.2, 0.2),
            (0.9, 0.3),
            (1.5, 0.3),
            (1.2, 0.5),
            (1.2, 0.9),
            (0.8, 0.75),
            (1.6, 0.75),
            (2.0, 0.75),
            (0.8, 0.5),
            (1.6, 0.5),
        )
    ),
    Lever(
        "stronger model: 0.6 + bm25 b 0.3",
        **{**DEFAULTS, **SPEAKER_DEFAULTS, "dense_weight": 0.6, "lexical_weight": 0.4},
        bm25_b=0.3,
    ),  # type: ignore[arg-type]
    *(
        Lever(
            f"b 0.3: {name}",
            **{**DEFAULTS, **SPEAKER_DEFAULTS, **change},  # type: ignore[arg-type]
            bm25_b=0.3,
        )
        for name, change in (
            ("as shipped", {}),
            ("dense 0.3", {"dense_weight": 0.3, "lexical_weight": 0.7}),
            ("dense 0.5", {"dense_weight": 0.5, "lexical_weight": 0.5}),
            ("session support 0.2", {"session_boost": 0.2}),
            ("session support 0.05", {"session_boost": 0.05}),
            ("time 0.2", {"time_boost": 0.2}),
            ("speaker 0.1", {"speaker_boost": 0.1}),
        )
    ),
    Lever("defaults + addressee 0.2", **DEFAULTS, addressee_weight=0.2),
    Lever("defaults + addressee 0", **DEFAULTS, addressee_weight=0.0),
    Lever("defaults + addressee 0.5", **DEFAULTS, addressee_weight=0.5),
    Lever(
        "defaults + addressee 0.2 + dense", **DEFAULTS, addressee_weight=0.2, dense_addressee=True
    ),
    Lever("defaults + dense addressee", **DEFAULTS, dense_addressee=True),
    Lever("defaults + speaker stripped", **DEFAULTS, strip_speaker=True),
    Lever("defaults + speaker boost 0.05", **DEFAULTS, speaker_boost=0.05),
    Lever("defaults + stripped + boost 0.02", **DEFAULTS, strip_speaker=True, speaker_boost=0.02),
    Lever("defaults + stripped + boost 0.05", **DEFAULTS, strip_speaker=True, speaker_boost=0.05),
    Lever("defaults + stripped + boost 0.1", **DEFAULTS, strip_speaker=True, speaker_boost=0.1),
    Lever("defaults now", 0.4, 0.6, **DEPTH_BASE),
    Lever("depth joint s3 t6 rrf 0.5", 0.4, 0.6, **DEPTH_BASE, depth_seeds=3),
    Lever("depth joint s3 t6 rrf 1.0", 0.4, 0.6, **DEPTH_BASE, depth_seeds=3, depth_weight=1.0),
    Lever(
        "depth joint s3 t6 disc 0.5", 0.4, 0.6, **DEPTH_BASE, depth_seeds=3, depth_fusion="discount"
    ),
    Lever(
        "depth joint s3 t6 disc 0.7",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_seeds=3,
        depth_fusion="discount",
        depth_weight=0.7,
    ),
    Lever(
        "depth per_seed s3 t4 rrf 0.5",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_seeds=3,
        depth_terms=4,
        depth_query="per_seed",
    ),
    Lever(
        "depth per_seed s3 t4 disc 0.7",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_seeds=3,
        depth_terms=4,
        depth_query="per_seed",
        depth_fusion="discount",
        depth_weight=0.7,
    ),
    Lever(
        "depth joint s3 t6 rrf 0.5 lexonly",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_seeds=3,
        depth_lexical_only=True,
    ),
    Lever(
        "depth joint s3 t6 rrf 0.5 cand",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_seeds=3,
        depth_idf="candidates",
    ),
    Lever("depth joint s5 t8 rrf 0.5", 0.4, 0.6, **DEPTH_BASE, depth_seeds=5, depth_terms=8),
    Lever("depth widen sessions of top 8", 0.4, 0.6, **DEPTH_BASE, depth_session=8),
    Lever("depth widen sessions of top 10", 0.4, 0.6, **DEPTH_BASE, depth_session=10),
    Lever("depth widen top 5, 80 per leg", 0.4, 0.6, **DEPTH_BASE, depth_session=5, candidates=80),
    Lever(
        "depth widen top 5 + joint rrf 0.5", 0.4, 0.6, **DEPTH_BASE, depth_session=5, depth_seeds=3
    ),
    Lever(
        "depth widen top 5 + session support 0.2",
        0.4,
        0.6,
        **{**DEPTH_BASE, "session_boost": 0.2},
        depth_session=5,
    ),
    Lever(
        "depth widen top 5 + session support 0.3",
        0.4,
        0.6,
        **{**DEPTH_BASE, "session_boost": 0.3},
        depth_session=5,
    ),
    Lever(
        "depth widen top 5 + next turn 0.4", 0.4, 0.6, **DEPTH_BASE, depth_session=5, next_turn=0.4
    ),
    Lever(
        "depth widen top 5 + 2 best sessions as surfaces",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_session=5,
        depth_session_surface=2,
    ),
    Lever(
        "depth widen top 5 + 4 best sessions as surfaces",
        0.4,
        0.6,
        **DEPTH_BASE,
        depth_session=5,
        depth_session_surface=4,
    ),
    Lever("depth widen sessions of top 3", 0.4, 0.6, **DEPTH_BASE, depth_session=3),
    Lever("depth widen sessions of top 5", 0.4, 0.6, **DEPTH_BASE, depth_session=5),
    Lever("today (0.8/0.2)"),
    Lever("time 0.1 a0", 0.4, 0.6, time_boost=0.1, time_after=0),
    Lever("time 0.1 a1", 0.4, 0.6, time_boost=0.1, time_after=1),
    Lever("time 0.1 a2", 0.4, 0.6, time_boost=0.1, time_after=2),
    Lever("time 0.2 a1", 0.4, 0.6, time_boost=0.2, time_after=1),
    Lever("time 0.2 a1 b1", 0.4, 0.6, time_boost=0.2, time_after=1, time_before=1),
    Lever("time 0.3 a1", 0.4, 0.6, time_boost=0.3, time_after=1),
    Lever("time 0.3 a1 b1", 0.4, 0.6, **TIME),
    Lever("time 0.3 a2 b1", 0.4, 0.6, time_boost=0.3, time_after=2, time_before=1),
    Lever("time 0.4 a1", 0.4, 0.6, time_boost=0.4, time_after=1),
    Lever("time 0.5 a1", 0.4, 0.6, time_boost=0.5, time_after=1),
    Lever("time 0.2 a1 strip", 0.4, 0.6, time_boost=0.2, time_after=1, time_strip=True),
    Lever("time 0.2 a1 leg20", 0.4, 0.6, time_boost=0.2, time_after=1, time_leg=20),
    Lever(
        "time 0.2 a1 strip leg20",
        0.4,
        0.6,
        time_boost=0.2,
        time_after=1,
        time_strip=True,
        time_leg=20,
    ),
    Lever("session support 0.05", 0.4, 0.6, session_boost=0.05),
    Lever("session support 0.1", 0.4, 0.6, session_boost=0.1),
    Lever("session support 0.2", 0.4, 0.6, session_boost=0.2),
    Lever("session support 0.3", 0.4, 0.6, session_boost=0.3),
    Lever("session support 0.5", 0.4, 0.6, session_boost=0.5),
    Lever("session support 0.2 + next turn 0.4", 0.4, 0.6, session_boost=0.2, next_turn=0.4),
    Lever("session support 0.1 + time", 0.4, 0.6, session_boost=0.1, **TIME),
    Lever(
        "session support 0.1 + time + anchors", 0.4, 0.6, session_boost=0.1, anchors=True, **TIME
    ),
    Lever("session support 0.2 + time", 0.4, 0.6, session_boost=0.2, **TIME),
    Lever("session support 0.3 + time", 0.4, 0.6, session_boost=0.3, **TIME),
    Lever("session spread 0.02", 0.4, 0.6, session_spread=0.02),
    Lever("session spread 0.05", 0.4, 0.6, session_spread=0.05),
    Lever("session spread 0.1", 0.4, 0.6, session_spread=0.1),
    Lever("next turn 0.5", 0.4, 0.6, next_turn=0.5),
    Lever("next turn 0.7", 0.4, 0.6, next_turn=0.7),
    Lever("next turn 0.85", 0.4, 0.6, next_turn=0.85),
    Lever("dense 0.4 / lexical 0.6", 0.4, 0.6),
    Lever("0.4/0.6 + ctx mix 0.2", 0.4, 0.6, dense_context="mix", context_mix=0.2),
    Lever("0.4/0.6 + ctx lexical 0.3", 0.4, 0.6, lexical_context=0.3),
    Lever(
        "0.4/0.6 + ctx mix 0.2 + lexical 0.3",
        0.4,
        0.6,
        dense_context="mix",
        context_mix=0.2,
        lexical_context=0.3,
    ),
    Lever("0.6/0.4", 0.6, 0.4),
    Lever("minmax dense 0.5/0.5", 0.5, 0.5, dense_norm="minmax"),
    Lever("minmax dense 0.6/0.4", 0.6, 0.4, dense_norm="minmax"),
    Lever("minmax dense 0.4/0.6", 0.4, 0.6, dense_norm="minmax"),
    Lever("0.6/0.4 + ctx mix 0.2", 0.6, 0.4, dense_context="mix", context_mix=0.2),
    Lever("0.6/0.4 + ctx lexical 0.15", 0.6, 0.4, lexical_context=0.15),
    Lever("0.5/0.5 + ctx mix 0.1", 0.5, 0.5, dense_context="mix", context_mix=0.1),
    Lever("0.5/0.5 + ctx lexical 0.15", 0.5, 0.5, lexical_context=0.15),
    Lever("0.4/0.6 + speaker boost 0.05", 0.4, 0.6, speaker_boost=0.05),
    Lever("0.4/0.6 + prf 3", 0.4, 0.6, prf=3, prf_weight=0.3),
    Lever("dense 0.6 / lexical 0.4", 0.6, 0.4),
    Lever("dense 0.5 / lexical 0.5", 0.5, 0.5),
    Lever("ctx: text of previous turn", dense_context="text1"),
    Lever("ctx: text of 2 previous turns", dense_context="text2"),
    Lever("ctx: vector mix 0.5", dense_context="mix"),
    Lever("ctx: lexical 0.5", lexical_context=0.5),
    Lever("speaker stripped from dense", strip_speaker=True),
    Lever("speaker boost 0.05", speaker_boost=0.05),
    Lever("prf 3", prf=3),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="dev")
    parser.add_argument("--grid", action="store_true")
    parser.add_argument("--only", help="regex of lever names to run")
    parser.add_argument(
        "--own", type=int, help="the first N conversations of the shipped dataset instead"
    )
    parser.add_argument(
        "--swap", action="store_true", help="ask each question about the other speaker"
    )
    parser.add_argument("--hard", action="store_true", help="with --own: the harder questions only")
    parser.add_argument(
        "--against",
        help="a lever's name: each lever's paired 95%% intervals against it, beside BM25's",
    )
    parser.add_argument(
        "--model",
        default="minilm",
        help="minilm, or bge:DIR / e5:DIR (an ONNX model and tokenizer)",
    )
    args = parser.parse_args()
    if args.own:
        if args.hard:
            convs = [
                replace(c, questions=tuple(q for q in c.questions if "-h" in q.id))
                for c in dataset.load_with_hard(OWN_DATASET)[: args.own]
            ]
        else:
            convs = dataset.load(OWN_DATASET)[: args.own]
    else:
        loaded = realtalk.load(realtalk.directory(os.environ.get(realtalk.ENV_DIR)))
        convs = loaded.split(args.split)
        if args.swap:
            convs = [swap_speakers(c) for c in convs]
    vectors = Vectors(args.model)
    bm25 = {c.id: BM25([(t.id, t.text) for t in c.turns]) for c in convs}
    base = evaluate(convs, lambda c, q: bm25[c.id].search(q, 10))
    print(summarise("BM25 baseline", base))
    levers = LEVERS
    if args.grid:
        levers = [
            Lever(
                f"d{dw:.2f} ctx={ctx} mix={mix} lc={lc}",
                dw,
                round(1 - dw, 2),
                dense_context=ctx,
                context_mix=mix,
                lexical_context=lc,
            )
            for dw, ctx, mix, lc in itertools.product(
                (0.3, 0.4, 0.5), ("none", "mix"), (0.2, 0.35), (0.0, 0.3)
            )
            if ctx == "mix" or mix == 0.2
        ]
    if args.only:
        levers = [lv for lv in levers if re.search(args.only, lv.name)]
    reference: Score | None = None
    if args.against:
        against = next((lv for lv in LEVERS if lv.name == args.against), None)
        if against is None:
            parser.error(f"--against: no lever named {args.against!r}")
        reference = score_lever(convs, against, vectors)
        print(summarise(against.name, reference, base), flush=True)
    for lever in levers:
        if reference is not None and lever.name == args.against:
            continue
        s = score_lever(convs, lever, vectors)
        print(summarise(lever.name, s, base), flush=True)
        if reference is not None:
            print(f"{'':34s}  {paired(s, reference)}", flush=True)
    vectors.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
