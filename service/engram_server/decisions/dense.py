"""What the dense (embedding) leg reads of a decision's backing memory.

A decision's memory (`services.decision_writes.memory_text`) is written for the lexical
leg as much as for people: after the title, statement, reason, alternatives and
quotes come the code places it touched ("Code: src/a.py Parser, ...") and its
origin ("(repo, 2024-05-01, commit 0123abcd4567)"). Those two lines name things
rather than explain them: paths, symbols and a hex sha split into many word
pieces, so they hold most of the memory's tokens (on pallets/click 77 tokens a
decision, 26 of them embedded) while adding nothing a paraphrased why-question could
match by meaning. The lexical leg still matches them word for word.

The embedding model's cost grows with the tokens it reads, and decisions arrive
by the thousand from one ingest: embedding the explaining part only, capped at
`MAX_DENSE_CHARS`, is what lets the index keep up with an ingest (and makes
decisions with the same explanation, "Fix typo." in many commits, share one
cached vector).
"""

from __future__ import annotations

import re

# About 80-100 word pieces: the title and the start of the reason, which is what a
# why-question paraphrases.
MAX_DENSE_CHARS = 400

# The last line `services.decision_writes.origin_line` writes; only decision memories
# written by the decisions service end with it (a repository name has no comma
# or space).
_ORIGIN = re.compile(r"\([A-Za-z0-9._/:-]+, \d{4}-\d{2}-\d{2}(?:, commit [0-9a-f]{4,64})?\)")
# A labelled line ("Code: ..."); only the labels that explain are embedded.
_LABEL = re.compile(r"([A-Z][A-Za-z]*(?: [a-z]+)*): ")
_EXPLAINING_LABELS = frozenset({"Why", "Alternatives considered", "Evidence"})


def dense_text(content: str) -> str:
    """The part of a decision memory's `content` to embed: every line but the
    naming ones (code places, origin), cut at a word boundary near
    `MAX_DENSE_CHARS`. Content that does not end with a decision's origin line
    (a DECISION memory proposed as plain text) is embedded whole."""
    lines = content.split("\n")
    if len(lines) < 2 or not _ORIGIN.fullmatch(lines[-1]):
        return content
    kept = [lines[0]]
    for line in lines[1:-1]:
        label = _LABEL.match(line)
        if label is None or label.group(1) in _EXPLAINING_LABELS:
            kept.append(line)
    text = "\n".join(kept).strip()
    if len(text) > MAX_DENSE_CHARS:
        cut = text.rfind(" ", 0, MAX_DENSE_CHARS + 1)
        text = text[: cut if cut > MAX_DENSE_CHARS // 2 else MAX_DENSE_CHARS].rstrip()
    return text or content
