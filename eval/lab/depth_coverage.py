"""How much of the evidence depth mode brings among Recall's candidates.

For REALTALK's dev split, the share of each question's evidence turns among the
candidates the ranking scores, with the defaults and with depth mode's session
widening (top five hits), and the share of evidence lying in the top five hits'
sessions at all. Figures quoted in docs/recall-quality.md ("Depth mode").

    ENGRAM_EVAL_REALTALK_DIR=... .venv/bin/python eval/lab/depth_coverage.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import realtalk_lab as lab
from engram_server.evaluation import realtalk


def main() -> int:
    loaded = realtalk.load(realtalk.directory(os.environ.get(realtalk.ENV_DIR)))
    convs = loaded.split("dev")
    vectors = lab.Vectors()
    levers = {
        "defaults": lab.Lever("defaults", 0.4, 0.6, **lab.DEFAULTS),
        "depth (widen top 5)": lab.Lever("widen", 0.4, 0.6, **lab.DEFAULTS, depth_session=5),
    }
    for name, lever in levers.items():
        covered: dict[str, list[float]] = {}
        in_sessions: dict[str, list[float]] = {}
        for conv in convs:
            index = lab.Index(conv, lever, vectors)
            ids = [t.id for t in conv.turns]
            session_of = {t.id: t.session for t in conv.turns}
            for q in conv.questions:
                order = index.rank(q.text, vectors)
                candidates = {ids[i] for i in index.last_scores}
                answers = set(q.answers)
                covered.setdefault(q.category, []).append(len(answers & candidates) / len(answers))
                top = {session_of[o] for o in order[:5]}
                in_sessions.setdefault(q.category, []).append(
                    sum(session_of.get(a) in top for a in answers) / len(answers)
                )
        print(
            f"{name}: evidence among the candidates "
            + ", ".join(f"{c} {np.mean(v):.3f}" for c, v in sorted(covered.items()))
            + "; in the top 5 hits' sessions "
            + ", ".join(f"{c} {np.mean(v):.3f}" for c, v in sorted(in_sessions.items()))
        )
    vectors.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
