"""The baseline: plain Okapi BM25 over one conversation's turns, in process.

Deliberately plain, so the comparison says what Engram adds over keyword search:
lower-cased `\\w+` words, no stemming, k1 = 1.2, b = 0.75, and the non-negative
IDF ln(1 + (N - n + 0.5) / (n + 0.5)) (Lucene's), so a word in most turns never
counts against a turn. It is a few lines, written here rather than taken from a
package so the formula is exactly this one and visible: rank-bm25's BM25Okapi,
for one, floors negative IDFs with an epsilon of the average instead.

English stop words are dropped by default (`STOP_WORDS`, the usual list of
function words). Without that, chat turns are so short that "what", "is" and
"my" in a question outweigh the one name it asks about, and the baseline would
be a straw man rather than the keyword search people actually run.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

K1 = 1.2
B = 0.75
_WORD = re.compile(r"\w+")

STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are aren as at be because been
    before being below between both but by can couldn d did didn do does doesn doing don
    down during each few for from further had hadn has hasn have haven having he her here
    hers herself him himself his how i if in into is isn it its itself just ll m ma me
    mightn more most mustn my myself needn no nor not now o of off on once only or other
    our ours ourselves out over own re s same shan she should shouldn so some such t than
    that the their theirs them themselves then there these they this those through to too
    under until up ve very was wasn we were weren what when where which while who whom
    why will with won wouldn y you your yours yourself yourselves
    """.split()
)


def tokenize(text: str, stop_words: frozenset[str] = frozenset()) -> list[str]:
    """Lower-cased word tokens of `text`, without `stop_words`."""
    return [w for w in _WORD.findall(text.lower()) if w not in stop_words]


class BM25:
    """An index of documents (id, text), searched by `search`."""

    def __init__(
        self,
        documents: Sequence[tuple[str, str]],
        k1: float = K1,
        b: float = B,
        stop_words: frozenset[str] = STOP_WORDS,
    ) -> None:
        self.k1 = k1
        self.b = b
        self.stop_words = stop_words
        self.ids = [doc_id for doc_id, _ in documents]
        if len(set(self.ids)) != len(self.ids):
            raise ValueError("document ids must be distinct")
        self._tf = [Counter(tokenize(text, stop_words)) for _, text in documents]
        self._length = [sum(tf.values()) for tf in self._tf]
        count = len(documents)
        self._average_length = sum(self._length) / count if count else 0.0
        frequency: Counter[str] = Counter()
        for tf in self._tf:
            frequency.update(tf.keys())
        self._idf = {
            term: math.log(1.0 + (count - n + 0.5) / (n + 0.5)) for term, n in frequency.items()
        }
        self._postings: dict[str, list[int]] = {}
        for index, tf in enumerate(self._tf):
            for term in tf:
                self._postings.setdefault(term, []).append(index)

    def scores(self, query: str) -> dict[str, float]:
        """BM25 of every document that shares a word with `query`. A word repeated in
        the query counts once per repetition: Okapi BM25 sums over query terms."""
        totals: dict[int, float] = {}
        for term in tokenize(query, self.stop_words):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index in self._postings[term]:
                tf = self._tf[index][term]
                norm = 1.0 - self.b + self.b * self._length[index] / self._average_length
                totals[index] = totals.get(index, 0.0) + idf * tf * (self.k1 + 1) / (
                    tf + self.k1 * norm
                )
        return {self.ids[i]: score for i, score in totals.items()}

    def search(self, query: str, k: int) -> list[str]:
        """The ids of the `k` best documents, best first; documents that share no
        word with the query are never returned. Ties keep document order."""
        totals = self.scores(query)
        order = {doc_id: i for i, doc_id in enumerate(self.ids)}
        ranked = sorted(totals, key=lambda doc_id: (-totals[doc_id], order[doc_id]))
        return ranked[:k]
