"""CPU time per query of resolving anchored times (`recall/anchored.py`).

    .venv/bin/python eval/lab/anchored_cpu.py

Prints, per kind of query, the process CPU time of `anchored.resolve` (what every
Recall pays when `recall_time_anchors` is on) beside `when.resolve` (what it paid
before), and for an event anchor the whole work: parsing plus finding the event
among 40 lexical candidates. Minimum and median of five rounds, in microseconds.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "service"))

from engram_server.recall import anchored, when

NOW = datetime(2024, 3, 14, tzinfo=UTC)
QUERIES = {
    "no direction word": "What kind of pasta does Elise like to cook for her kids?",
    "direction word, no anchored time": "What did Kate do after the concert with her friends?",
    "date anchor": "What did Paola make for her mom's birthday on Friday before 10.01.2024?",
    "event anchor (parsing)": "What did Oskar start doing four weeks after he broke his wrist?",
}


def cpu_us(fn: Callable[[], object], n: int = 3000) -> tuple[float, float]:
    rounds = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(n):
            fn()
        rounds.append((time.process_time() - start) / n * 1e6)
    return min(rounds), statistics.median(rounds)


def main() -> int:
    for name, q in QUERIES.items():
        named = when.resolve(q, NOW)
        mine = cpu_us(lambda q=q, named=named: anchored.resolve(q, NOW, named))
        before = cpu_us(lambda q=q: when.resolve(q, NOW))
        print(
            f"{name:34s} anchored {mine[0]:7.1f} / {mine[1]:7.1f} us"
            f"   when {before[0]:7.1f} / {before[1]:7.1f} us"
        )
    texts = [
        "OSKAR: I went climbing with Marta on Saturday and it was great fun, my arms are sore"
    ] * 39 + ["OSKAR: I broke my wrist skiing, no climbing for a while"]
    told = [anchored.Told(t, date(2024, 1, 1 + i % 28), 0.5, i) for i, t in enumerate(texts)]
    q = QUERIES["event anchor (parsing)"]

    def whole() -> object:
        expression, named = anchored.resolve(q, NOW, when.NOTHING)
        assert expression is not None
        found = anchored.find_anchor(expression.terms(), told)
        return anchored.with_anchor_days(named, expression, found.days)

    total = cpu_us(whole, 500)
    print(f"{'event anchor, 40 candidates':34s} whole    {total[0]:7.1f} / {total[1]:7.1f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
