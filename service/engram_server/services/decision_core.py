"""The state every part of DecisionsService shares (the lifecycle write path, the
database, recall, the LLM registry, the commit indexes), the LLM miner and the
semantic leg's index freshness (read-your-writes)."""

from __future__ import annotations

import uuid
from typing import Any

from engram_server.decisions.extract import mine
from engram_server.decisions.model import Commit, Decision, Draft
from engram_server.errors import NotFound
from engram_server.services.decision_inputs import DECISION
from engram_server.services.decision_search import CommitIndexes
from engram_server.services.lifecycle import LifecycleService
from engram_server.store import decisions as store


class DecisionsCore:
    """The state and helpers every part of DecisionsService uses."""

    def __init__(
        self, lifecycle: LifecycleService, recall: Any | None = None, llm: Any | None = None
    ) -> None:
        self.lifecycle = lifecycle
        self.db = lifecycle.db
        # engram_server.services.recall_runtime.RecallRuntime, when recall is served.
        self.recall = recall
        # engram_server.llm.registry.LLMRegistry: the tenant's model for use_llm.
        self.llm = llm
        self.commit_indexes = CommitIndexes(self.db)

    async def llm_miner(self, tenant: str) -> Any:
        """`drafts_for` of an ingest with the tenant's model: the deterministic
        skip rules first (no model call for a merge or a lockfile bump), then
        the model's fields, kept only where they check out (`decisions.llm`).
        FAILED_PRECONDITION without a model; UNAVAILABLE when it fails, and then
        nothing of the batch is stored."""
        from engram_server.decisions import llm as llm_miner
        from engram_server.errors import Unavailable
        from engram_server.llm import ChatMessage, LLMError
        from engram_server.services.learn import model_for

        model = await model_for(self.llm, tenant)

        async def drafts_for(commit: Commit) -> tuple[Draft | None, str, str]:
            mined = mine(commit)
            if mined.draft is None:
                return None, mined.skip.reason if mined.skip else "", mined.replaces
            try:
                reply = await model.complete_json(
                    [
                        ChatMessage("system", llm_miner.SYSTEM_PROMPT),
                        ChatMessage("user", llm_miner.prompt(commit)),
                    ],
                    schema=llm_miner.DecisionReply,
                    tenant_id=tenant,
                    purpose="decisions",
                )
            except LLMError as error:
                raise Unavailable(f"the LLM failed during IngestCommits: {error}") from error
            checked = llm_miner.check(reply, commit, mined.draft)
            return checked.draft, checked.skip_reason, mined.replaces

        return drafts_for

    # --- index freshness ----------------------------------------------------------

    async def await_index(self, tenant: str, read_your_writes: bool, wait: float | None) -> None:
        """Read-your-writes for the semantic leg, as Recall does it: waits (up to
        `wait` seconds) until every write of the tenant, the decisions of an ingest
        just answered included, is searchable; UNAVAILABLE if it is not by then.
        Nothing to wait for on a server without recall (no semantic leg)."""
        if not read_your_writes or self.recall is None:
            return
        from engram_server.services.recall import ReadYourWritesTimeout

        budget = 5.0 if wait is None else max(0.0, wait - 0.05)
        pending = await self.recall.worker.wait_until_indexed(tenant, budget)
        if pending:
            # As Recall: say the newest writes are missing rather than answer without them.
            raise ReadYourWritesTimeout(pending, budget)

    async def index_backlog(self, tenant: str) -> int:
        """The tenant's writes not yet searchable by both legs (0 without recall)."""
        if self.recall is None:
            return 0
        return int((await self.recall.worker.backlog(tenant))["pending"])

    # --- shared reads ----------------------------------------------------------------

    async def get(self, tenant: str, decision_id: uuid.UUID) -> Decision:
        async with self.db.tenant_tx(tenant) as conn:
            found = (await store.get_decisions(conn, [decision_id])).get(decision_id)
        if found is None:
            raise NotFound(DECISION, f"decisions/{decision_id}")
        return found
