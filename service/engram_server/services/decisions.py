"""DecisionsService use cases: ingest commits, state decisions, answer "why".

`DecisionsService` joins the parts: decision_core (shared state, the LLM miner,
read-your-writes), decision_inputs (requests, results, limits, input checks),
decision_writes (backing memories, stored drafts), decision_ingest
(IngestCommits), decision_statements (CreateDecision, IngestSession,
RecordOutcome), decision_reads (Get, List, ExplainCode) and decision_answers
(SearchDecisions and the answering legs).
"""

from __future__ import annotations

from engram_server.decisions.extract import verbatim
from engram_server.services.decision_answers import ABSTAIN_BELOW
from engram_server.services.decision_ingest import DecisionIngest
from engram_server.services.decision_inputs import (
    MAX_ANCHOR_SYMBOL_CHARS,
    MAX_PATH_BYTES,
    MAX_SOURCE_BYTES,
    MAX_SOURCES,
    SHORT_SHA,
    CommitInput,
    ExplainQuery,
    Explanation,
    IngestOutcome,
    SearchAnswer,
    SearchQuery,
    check_commit,
    check_span,
    now,
    parse_decision_name,
    sanitised_commit,
)
from engram_server.services.decision_reads import DecisionReads
from engram_server.services.decision_statements import DecisionStatements, stated_draft
from engram_server.services.decision_writes import memory_text


class DecisionsService(DecisionIngest, DecisionStatements, DecisionReads):
    """Every DecisionsService use case, one object for the servicer."""


# Names the servicer and tests import from here; they live in the decision_* parts.
__all__ = [
    "ABSTAIN_BELOW",
    "MAX_ANCHOR_SYMBOL_CHARS",
    "MAX_PATH_BYTES",
    "MAX_SOURCES",
    "MAX_SOURCE_BYTES",
    "SHORT_SHA",
    "CommitInput",
    "DecisionsService",
    "ExplainQuery",
    "Explanation",
    "IngestOutcome",
    "SearchAnswer",
    "SearchQuery",
    "check_commit",
    "check_span",
    "memory_text",
    "now",
    "parse_decision_name",
    "sanitised_commit",
    "stated_draft",
    "verbatim",
]
