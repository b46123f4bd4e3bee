"""DecisionsService in the SDK: mixins of `engram.Client` and `engram.AsyncClient`.

    client.ingest_commits("github.com/acme/api", commits)       # engram.v1 Commit messages
    client.explain_code("github.com/acme/api", "svc/rerank.py", lines=(40, 52))
    client.search_decisions("why is the executor single-worker?")
    client.create_decision("ops/runbooks", "Move backups to 02:00", "They collided with billing")
    client.record_decision_outcome(name, "MISSED", "Billing moved too")
    for d in client.list_decisions(repository="ops/runbooks", outcomes=["MISSED"]): ...

Results are the API's own messages (`engram.v1.decisions_pb2`); every field is
documented in `protos/engram/v1/decisions.proto`. Writes send a request id (yours,
or one generated per call), so the SDK's retries on UNAVAILABLE never write twice.
`engram.cli.gitlog`-style readers (the `engram decisions ingest` command) build
the commits from a local repository.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, cast

from engram import _requests
from engram.v1 import decisions_pb2, decisions_pb2_grpc

__all__ = ["AsyncDecisionsMixin", "DecisionsMixin"]

_OUTCOMES = {
    "MET": decisions_pb2.DECISION_OUTCOME_MET,
    "PARTIALLY_MET": decisions_pb2.DECISION_OUTCOME_PARTIALLY_MET,
    "MISSED": decisions_pb2.DECISION_OUTCOME_MISSED,
}


def _outcome(value: str | int) -> decisions_pb2.DecisionOutcome.ValueType:
    if isinstance(value, int):
        return decisions_pb2.DecisionOutcome.ValueType(value)
    key = value.upper().removeprefix("DECISION_OUTCOME_")
    if key not in _OUTCOMES:
        raise ValueError(f"unknown outcome {value!r}: use MET, PARTIALLY_MET or MISSED")
    return _OUTCOMES[key]


def _decision_name(name: str) -> str:
    return name if name.startswith("decisions/") else f"decisions/{name}"


def _lines(lines: tuple[int, int] | int | None) -> decisions_pb2.LineRange | None:
    if lines is None:
        return None
    if isinstance(lines, int):
        return decisions_pb2.LineRange(start_line=lines, end_line=lines)
    return decisions_pb2.LineRange(start_line=lines[0], end_line=lines[1])


def _time(value: datetime | None) -> Any:
    if value is None:
        return None
    from google.protobuf.timestamp_pb2 import Timestamp

    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


class _Requests:
    @staticmethod
    def ingest(
        repository: str,
        commits: Iterable[decisions_pb2.Commit],
        space: str,
        reprocess: bool,
        request_id: str | None,
    ) -> decisions_pb2.IngestCommitsRequest:
        return decisions_pb2.IngestCommitsRequest(
            repository=repository,
            space=space,
            commits=list(commits),
            reprocess=reprocess,
            request_id=_requests.request_id(request_id),
        )

    @staticmethod
    def create(
        repository: str,
        title: str,
        rationale: str,
        fields: dict[str, Any],
        space: str,
        session: str,
        request_id: str | None,
    ) -> decisions_pb2.CreateDecisionRequest:
        alternatives = [
            decisions_pb2.DecisionAlternative(description=a)
            if isinstance(a, str)
            else decisions_pb2.DecisionAlternative(description=a[0], reason_rejected=a[1])
            for a in fields.pop("alternatives", ())
        ]
        evidence = [
            decisions_pb2.DecisionEvidence(quote=q) if isinstance(q, str) else q
            for q in fields.pop("evidence", ())
        ]
        anchors = list(fields.pop("anchors", ()))
        when = _time(fields.pop("decision_time", None))
        decision = decisions_pb2.Decision(
            repository=repository,
            title=title,
            rationale=rationale,
            alternatives=alternatives,
            evidence=evidence,
            anchors=anchors,
            decision_time=when,
            **fields,
        )
        return decisions_pb2.CreateDecisionRequest(
            decision=decision,
            space=space,
            session=session,
            request_id=_requests.request_id(request_id),
        )

    @staticmethod
    def list(
        repository: str,
        path: str,
        start: datetime | None,
        end: datetime | None,
        include_superseded: bool,
        outcomes: Sequence[str | int],
        page_size: int,
    ) -> decisions_pb2.ListDecisionsRequest:
        return decisions_pb2.ListDecisionsRequest(
            repository=repository,
            path=path,
            decision_time_start=_time(start),
            decision_time_end=_time(end),
            include_superseded=include_superseded,
            outcomes=[_outcome(o) for o in outcomes],
            page_size=page_size,
        )

    @staticmethod
    def outcome(
        name: str,
        outcome: str | int,
        summary: str,
        evidence: Sequence[str],
        request_id: str | None,
    ) -> decisions_pb2.RecordDecisionOutcomeRequest:
        return decisions_pb2.RecordDecisionOutcomeRequest(
            name=_decision_name(name),
            outcome=_outcome(outcome),
            summary=summary,
            evidence=[decisions_pb2.DecisionEvidence(quote=q) for q in evidence],
            request_id=_requests.request_id(request_id),
        )


class DecisionsMixin:
    """DecisionsService methods of `engram.Client`."""

    @property
    def _transport_(self) -> Any:
        # The client's own transport (set by its __init__); not re-declared here,
        # so the client keeps its precise type for it.
        return cast(Any, self)._transport

    @property
    def _decisions(self) -> decisions_pb2_grpc.DecisionsServiceStub:
        stub: decisions_pb2_grpc.DecisionsServiceStub | None = self.__dict__.get("_decisions_stub")
        if stub is None:
            stub = decisions_pb2_grpc.DecisionsServiceStub(cast(Any, self)._channel)
            self.__dict__["_decisions_stub"] = stub
        return stub

    def ingest_commits(
        self,
        repository: str,
        commits: Iterable[decisions_pb2.Commit],
        *,
        space: str = "",
        reprocess: bool = False,
        request_id: str | None = None,
    ) -> decisions_pb2.IngestCommitsResponse:
        """Mines up to 500 commits; re-sending ingested ones changes nothing."""
        request = _Requests.ingest(repository, commits, space, reprocess, request_id)
        response: decisions_pb2.IngestCommitsResponse = self._transport_.unary(
            self._decisions.IngestCommits, request, retryable=True
        )
        return response

    def create_decision(
        self,
        repository: str,
        title: str,
        rationale: str,
        *,
        space: str = "",
        session: str = "",
        request_id: str | None = None,
        **fields: Any,
    ) -> decisions_pb2.Decision:
        """Records a stated decision. `fields`: statement, question, alternatives
        (strings or (option, why rejected) pairs), evidence (quotes), anchors
        (CodeAnchor messages), expectations, tags, author, decision_time."""
        request = _Requests.create(repository, title, rationale, fields, space, session, request_id)
        response: decisions_pb2.Decision = self._transport_.unary(
            self._decisions.CreateDecision, request, retryable=True
        )
        return response

    def get_decision(self, name: str) -> decisions_pb2.Decision:
        request = decisions_pb2.GetDecisionRequest(name=_decision_name(name))
        response: decisions_pb2.Decision = self._transport_.unary(
            self._decisions.GetDecision, request, retryable=True
        )
        return response

    def list_decisions(
        self,
        *,
        repository: str = "",
        path: str = "",
        start: datetime | None = None,
        end: datetime | None = None,
        include_superseded: bool = False,
        outcomes: Sequence[str | int] = (),
        page_size: int = 0,
    ) -> Iterator[decisions_pb2.Decision]:
        """Every matching decision, newest first, fetching pages as needed."""
        request = _Requests.list(
            repository, path, start, end, include_superseded, outcomes, page_size
        )
        result: Iterator[decisions_pb2.Decision] = self._transport_.pages(
            self._decisions.ListDecisions, request, lambda r: r.decisions
        )
        return result

    def search_decisions(
        self,
        query: str,
        *,
        repository: str = "",
        path: str = "",
        k: int = 0,
        include_superseded: bool = False,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> decisions_pb2.SearchDecisionsResponse:
        request = decisions_pb2.SearchDecisionsRequest(
            query=query,
            repository=repository,
            path=path,
            k=k,
            include_superseded=include_superseded,
            decision_time_start=_time(start),
            decision_time_end=_time(end),
        )
        response: decisions_pb2.SearchDecisionsResponse = self._transport_.unary(
            self._decisions.SearchDecisions, request, retryable=True
        )
        return response

    def explain_code(
        self,
        repository: str,
        path: str,
        *,
        lines: tuple[int, int] | int | None = None,
        symbol: str = "",
        revision: str = "",
        question: str = "",
        k: int = 0,
        include_superseded: bool = False,
        token_budget: int = 0,
    ) -> decisions_pb2.ExplainCodeResponse:
        """Why is this code like this? `.context` is a prompt-ready Markdown block."""
        request = decisions_pb2.ExplainCodeRequest(
            repository=repository,
            path=path,
            lines=_lines(lines),
            symbol=symbol,
            revision=revision,
            question=question,
            k=k,
            include_superseded=include_superseded,
            token_budget=token_budget,
        )
        response: decisions_pb2.ExplainCodeResponse = self._transport_.unary(
            self._decisions.ExplainCode, request, retryable=True
        )
        return response

    def record_decision_outcome(
        self,
        name: str,
        outcome: str | int,
        summary: str,
        *,
        evidence: Sequence[str] = (),
        request_id: str | None = None,
    ) -> decisions_pb2.Decision:
        """Attaches what happened (MET, PARTIALLY_MET, MISSED) to a decision."""
        request = _Requests.outcome(name, outcome, summary, evidence, request_id)
        response: decisions_pb2.Decision = self._transport_.unary(
            self._decisions.RecordDecisionOutcome, request, retryable=True
        )
        return response

    def ingest_session(
        self,
        space: str,
        session: str,
        repository: str,
        *,
        decisions_space: str = "",
        request_id: str | None = None,
    ) -> decisions_pb2.IngestSessionResponse:
        """Mines the decisions stated in a session's buffered conversation."""
        request = decisions_pb2.IngestSessionRequest(
            space=space,
            session=session,
            repository=repository,
            decisions_space=decisions_space,
            request_id=_requests.request_id(request_id),
        )
        response: decisions_pb2.IngestSessionResponse = self._transport_.unary(
            self._decisions.IngestSession, request, retryable=True
        )
        return response


class AsyncDecisionsMixin:
    """DecisionsService methods of `engram.AsyncClient` (coroutines)."""

    @property
    def _transport_(self) -> Any:
        # The client's own transport (set by its __init__); not re-declared here,
        # so the client keeps its precise type for it.
        return cast(Any, self)._transport

    @property
    def _decisions(self) -> decisions_pb2_grpc.DecisionsServiceStub:
        stub: decisions_pb2_grpc.DecisionsServiceStub | None = self.__dict__.get("_decisions_stub")
        if stub is None:
            stub = decisions_pb2_grpc.DecisionsServiceStub(cast(Any, self)._channel)
            self.__dict__["_decisions_stub"] = stub
        return stub

    async def ingest_commits(
        self,
        repository: str,
        commits: Iterable[decisions_pb2.Commit],
        *,
        space: str = "",
        reprocess: bool = False,
        request_id: str | None = None,
    ) -> decisions_pb2.IngestCommitsResponse:
        request = _Requests.ingest(repository, commits, space, reprocess, request_id)
        response: decisions_pb2.IngestCommitsResponse = await self._transport_.unary(
            self._decisions.IngestCommits, request, retryable=True
        )
        return response

    async def create_decision(
        self,
        repository: str,
        title: str,
        rationale: str,
        *,
        space: str = "",
        session: str = "",
        request_id: str | None = None,
        **fields: Any,
    ) -> decisions_pb2.Decision:
        request = _Requests.create(repository, title, rationale, fields, space, session, request_id)
        response: decisions_pb2.Decision = await self._transport_.unary(
            self._decisions.CreateDecision, request, retryable=True
        )
        return response

    async def get_decision(self, name: str) -> decisions_pb2.Decision:
        request = decisions_pb2.GetDecisionRequest(name=_decision_name(name))
        response: decisions_pb2.Decision = await self._transport_.unary(
            self._decisions.GetDecision, request, retryable=True
        )
        return response

    def list_decisions(
        self,
        *,
        repository: str = "",
        path: str = "",
        start: datetime | None = None,
        end: datetime | None = None,
        include_superseded: bool = False,
        outcomes: Sequence[str | int] = (),
        page_size: int = 0,
    ) -> AsyncIterator[decisions_pb2.Decision]:
        request = _Requests.list(
            repository, path, start, end, include_superseded, outcomes, page_size
        )
        result: AsyncIterator[decisions_pb2.Decision] = self._transport_.pages(
            self._decisions.ListDecisions, request, lambda r: r.decisions
        )
        return result

    async def search_decisions(
        self,
        query: str,
        *,
        repository: str = "",
        path: str = "",
        k: int = 0,
        include_superseded: bool = False,
        start: datetime | None = None,
        end: datetime | None = None,
    ) -> decisions_pb2.SearchDecisionsResponse:
        request = decisions_pb2.SearchDecisionsRequest(
            query=query,
            repository=repository,
            path=path,
            k=k,
            include_superseded=include_superseded,
            decision_time_start=_time(start),
            decision_time_end=_time(end),
        )
        response: decisions_pb2.SearchDecisionsResponse = await self._transport_.unary(
            self._decisions.SearchDecisions, request, retryable=True
        )
        return response

    async def explain_code(
        self,
        repository: str,
        path: str,
        *,
        lines: tuple[int, int] | int | None = None,
        symbol: str = "",
        revision: str = "",
        question: str = "",
        k: int = 0,
        include_superseded: bool = False,
        token_budget: int = 0,
    ) -> decisions_pb2.ExplainCodeResponse:
        request = decisions_pb2.ExplainCodeRequest(
            repository=repository,
            path=path,
            lines=_lines(lines),
            symbol=symbol,
            revision=revision,
            question=question,
            k=k,
            include_superseded=include_superseded,
            token_budget=token_budget,
        )
        response: decisions_pb2.ExplainCodeResponse = await self._transport_.unary(
            self._decisions.ExplainCode, request, retryable=True
        )
        return response

    async def record_decision_outcome(
        self,
        name: str,
        outcome: str | int,
        summary: str,
        *,
        evidence: Sequence[str] = (),
        request_id: str | None = None,
    ) -> decisions_pb2.Decision:
        request = _Requests.outcome(name, outcome, summary, evidence, request_id)
        response: decisions_pb2.Decision = await self._transport_.unary(
            self._decisions.RecordDecisionOutcome, request, retryable=True
        )
        return response

    async def ingest_session(
        self,
        space: str,
        session: str,
        repository: str,
        *,
        decisions_space: str = "",
        request_id: str | None = None,
    ) -> decisions_pb2.IngestSessionResponse:
        request = decisions_pb2.IngestSessionRequest(
            space=space,
            session=session,
            repository=repository,
            decisions_space=decisions_space,
            request_id=_requests.request_id(request_id),
        )
        response: decisions_pb2.IngestSessionResponse = await self._transport_.unary(
            self._decisions.IngestSession, request, retryable=True
        )
        return response
