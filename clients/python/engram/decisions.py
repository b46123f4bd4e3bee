"""DecisionsService in the SDK: mixins of `engram.Client` and `engram.AsyncClient`.

    client.ingest_commits("github.com/acme/api", commits)       # engram.Commit dataclasses
    client.ingest_repository(".", "v1.0..HEAD")                 # a local checkout, via git
    client.explain_code("github.com/acme/api", "svc/rerank.py", lines=(40, 52))
    client.search_decisions("why is the executor single-worker?")
    client.create_decision("ops/runbooks", "Move backups to 02:00", "They collided with billing")
    client.record_decision_outcome(name, "MISSED", "Billing moved too")
    for d in client.list_decisions(repository="ops/runbooks", outcomes=["MISSED"]): ...

Results are the frozen dataclasses of `engram.decision_types` (exported from
`engram`): `Decision`, `IngestResult`, `SessionIngestResult`, `DecisionSearchResult`
(iterates over its `DecisionHit`s), `ExplainResult` (iterates over its
`CodeExplanation`s; `.context` is the prompt-ready block); every field is documented
in `protos/engram/v1/decisions.proto`. Evidence, alternatives, anchors and line
ranges are taken as those dataclasses (or quotes, pairs and tuples, or messages).
Writes send a request id (yours, or one generated per call), so the SDK's retries on
UNAVAILABLE never write twice.
Commits are `engram.Commit`s (with `engram.FileChange`s and their
`engram.DiffHunk`s), checked before anything is sent; `engram.v1.Commit` messages
are taken too, as they are, and the two may be mixed. `ingest_repository` reads
them from a local repository with `engram.git` (running `git` on this machine; the
server never reads a repository) and sends them through `ingest_commits` in
batches, summing the answers into one `IngestResult`; `engram decisions ingest`
reads them with the same module.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import AsyncIterator, Generator, Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any, cast

from engram import _convert as c
from engram import _decisions_convert as dc
from engram import _requests, errors, git
from engram import decision_types as dt
from engram._base import rpc
from engram.v1 import decisions_pb2, decisions_pb2_grpc

__all__ = ["AsyncDecisionsMixin", "DecisionsMixin"]


def _outcome(value: Any, field: str) -> decisions_pb2.DecisionOutcome.ValueType:
    """MET, PARTIALLY_MET or MISSED (any case, with or without the prefix), or a number."""
    number = c.proto_enum_in(decisions_pb2.DecisionOutcome, "DECISION_OUTCOME_", value, field)
    return decisions_pb2.DecisionOutcome.ValueType(number)


def _decision_name(name: Any, field: str = "name") -> str:
    text = c.text_in(name, field)
    return text if text.startswith("decisions/") else f"decisions/{text}"


def _lines(lines: Any) -> decisions_pb2.LineRange | None:
    if lines is None:
        return None
    if isinstance(lines, dt.LineRange):
        return dc.lines_in(lines, "lines")
    if isinstance(lines, int) and not isinstance(lines, bool):
        lines = (lines, lines)
    if not (isinstance(lines, tuple | list) and len(lines) == 2):
        raise errors.invalid_argument(
            "lines", f"expected a line number or a (start, end) pair, got {lines!r:.40}"
        )
    return c.fill(decisions_pb2.LineRange(), "lines.", start_line=lines[0], end_line=lines[1])


def _list(values: Any, field: str) -> list[Any]:
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise errors.invalid_argument(field, f"expected a list, got {type(values).__name__}")
    return list(values)


def _evidence(values: Any, field: str) -> list[decisions_pb2.DecisionEvidence]:
    return [dc.evidence_in(q, f"{field}[{i}]") for i, q in enumerate(_list(values, field))]


def _anchors(values: Any) -> list[decisions_pb2.CodeAnchor]:
    field = "decision.anchors"
    return [dc.anchor_in(a, f"{field}[{i}]") for i, a in enumerate(_list(values, field))]


def _alternatives(values: Any) -> list[decisions_pb2.DecisionAlternative]:
    out = []
    for i, a in enumerate(_list(values, "decision.alternatives")):
        prefix = f"decision.alternatives[{i}]."
        if isinstance(a, decisions_pb2.DecisionAlternative):
            out.append(a)
        elif isinstance(a, dt.DecisionAlternative):
            out.append(
                c.fill(
                    decisions_pb2.DecisionAlternative(),
                    prefix,
                    description=a.description,
                    reason_rejected=a.reason_rejected,
                )
            )
        elif isinstance(a, str):
            out.append(c.fill(decisions_pb2.DecisionAlternative(), prefix, description=a))
        elif isinstance(a, tuple | list) and len(a) == 2:
            out.append(
                c.fill(
                    decisions_pb2.DecisionAlternative(),
                    prefix,
                    description=a[0],
                    reason_rejected=a[1],
                )
            )
        else:
            raise errors.invalid_argument(
                prefix.rstrip("."),
                f"expected a description or a (description, why rejected) pair, got {a!r:.40}",
            )
    return out


class _Requests:
    @staticmethod
    def ingest(
        repository: Any, commits: Any, space: Any, reprocess: Any, request_id: Any
    ) -> decisions_pb2.IngestCommitsRequest:
        return c.fill(
            decisions_pb2.IngestCommitsRequest(),
            repository=repository,
            space=space,
            commits=[
                dc.commit_in(x, f"commits[{i}]") for i, x in enumerate(_list(commits, "commits"))
            ],
            reprocess=reprocess,
            request_id=_requests.request_id(request_id),
        )

    @staticmethod
    def create(
        repository: Any,
        title: Any,
        rationale: Any,
        fields: dict[str, Any],
        space: Any,
        session: Any,
        request_id: Any,
        sources: Any = (),
    ) -> decisions_pb2.CreateDecisionRequest:
        fields = dict(fields)
        alternatives = _alternatives(fields.pop("alternatives", ()))
        evidence = _evidence(fields.pop("evidence", ()), "decision.evidence")
        anchors = _anchors(fields.pop("anchors", ()))
        decision = c.fill(
            decisions_pb2.Decision(),
            "decision.",
            repository=repository,
            title=title,
            rationale=rationale,
            alternatives=alternatives,
            evidence=evidence,
            anchors=anchors,
            **fields,
        )
        return c.fill(
            decisions_pb2.CreateDecisionRequest(),
            decision=decision,
            space=space,
            session=session,
            request_id=_requests.request_id(request_id),
            sources=_list(sources, "sources"),
        )

    @staticmethod
    def get(name: Any) -> decisions_pb2.GetDecisionRequest:
        return decisions_pb2.GetDecisionRequest(name=_decision_name(name))

    @staticmethod
    def list(
        repository: Any,
        path: Any,
        start: Any,
        end: Any,
        include_superseded: Any,
        outcomes: Any,
        page_size: Any,
    ) -> decisions_pb2.ListDecisionsRequest:
        return c.fill(
            decisions_pb2.ListDecisionsRequest(),
            repository=repository,
            path=path,
            decision_time_start=start,
            decision_time_end=end,
            include_superseded=include_superseded,
            outcomes=[
                _outcome(o, f"outcomes[{i}]") for i, o in enumerate(_list(outcomes, "outcomes"))
            ],
            page_size=page_size,
        )

    @staticmethod
    def search(
        query: Any,
        repository: Any,
        path: Any,
        k: Any,
        include_superseded: Any,
        start: Any,
        end: Any,
        read_your_writes: Any = False,
    ) -> decisions_pb2.SearchDecisionsRequest:
        return c.fill(
            decisions_pb2.SearchDecisionsRequest(),
            query=query,
            repository=repository,
            path=path,
            k=k,
            include_superseded=include_superseded,
            decision_time_start=start,
            decision_time_end=end,
            consistency=_requests.consistency(read_your_writes),
        )

    @staticmethod
    def explain(
        repository: Any,
        path: Any,
        lines: Any,
        symbol: Any,
        revision: Any,
        question: Any,
        k: Any,
        include_superseded: Any,
        token_budget: Any,
        blame_commits: Any = (),
        read_your_writes: Any = False,
    ) -> decisions_pb2.ExplainCodeRequest:
        return c.fill(
            decisions_pb2.ExplainCodeRequest(),
            repository=repository,
            path=path,
            lines=_lines(lines),
            symbol=symbol,
            revision=revision,
            question=question,
            k=k,
            include_superseded=include_superseded,
            token_budget=token_budget,
            blame_commits=blame_commits,
            consistency=_requests.consistency(read_your_writes),
        )

    @staticmethod
    def outcome(
        name: Any, outcome: Any, summary: Any, evidence: Any, sources: Any, request_id: Any
    ) -> decisions_pb2.RecordDecisionOutcomeRequest:
        return c.fill(
            decisions_pb2.RecordDecisionOutcomeRequest(),
            name=_decision_name(name),
            outcome=_outcome(outcome, "outcome"),
            summary=summary,
            evidence=_evidence(evidence, "evidence"),
            sources=_list(sources, "sources"),
            request_id=_requests.request_id(request_id),
        )

    @staticmethod
    def session(
        space: Any, session: Any, repository: Any, decisions_space: Any, request_id: Any
    ) -> decisions_pb2.IngestSessionRequest:
        return c.fill(
            decisions_pb2.IngestSessionRequest(),
            space=space,
            session=session,
            repository=repository,
            decisions_space=decisions_space,
            request_id=_requests.request_id(request_id),
        )


# IngestCommits takes at most this many commits per call.
MAX_BATCH = 500
_COMMIT_FIELD = re.compile(r"^commits\[(\d+)\]")


class _RepositoryIngest:
    """One `ingest_repository` call: its arguments checked, then the path and the
    range checked with git, before anything is sent; then the answers of its
    batches summed into the one answer a single call over the range would give."""

    def __init__(
        self,
        path: Any,
        revision_range: Any,
        repository: Any,
        space: Any,
        reprocess: Any,
        batch_size: Any,
        report: git.ReadReport | None = None,
    ) -> None:
        self.report = report
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        self.path = c.text_in(path, "path")
        if not self.path:
            raise errors.invalid_argument("path", "give the path of a git repository")
        self.range = c.text_in(revision_range, "range")
        if not self.range.strip():
            raise errors.invalid_argument("range", "give a revision range (HEAD, v1.0..HEAD)")
        self.repository = None if repository is None else c.text_in(repository, "repository")
        self.space = c.text_in(space, "space")
        self.reprocess = c.flag(reprocess, "reprocess")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int):
            raise errors.invalid_argument(
                "batch_size", f"expected an int, got {type(batch_size).__name__}"
            )
        if not 1 <= batch_size <= MAX_BATCH:
            raise errors.invalid_argument(
                "batch_size", f"must be between 1 and {MAX_BATCH}, got {batch_size}"
            )
        self.batch_size = batch_size
        self._sent = 0
        self._merged = decisions_pb2.IngestCommitsResponse()
        self._decisions: dict[str, decisions_pb2.Decision] = {}

    def resolve(self) -> str:
        """The repository's name, once git can read the range there (runs git)."""
        try:
            git.check_repository(self.path)
        except git.GitError as error:
            raise errors.invalid_argument(
                "path", f"{self.path!r} is not a git repository ({error})"
            ) from error
        try:
            git.check_range(self.path, self.range)
        except git.GitError as error:
            raise errors.invalid_argument("range", f"{error} (in {self.path!r})") from error
        if self.repository is not None:
            return self.repository
        try:
            return git.repository_name(self.path)
        except git.GitError as error:
            raise errors.invalid_argument(
                "repository", f"cannot be derived from {self.path!r} ({error}); pass it"
            ) from error

    def batches(self) -> Generator[list[decisions_pb2.Commit], None, None]:
        return git.read_batches(self.path, self.range, self.batch_size, report=self.report)

    def add(self, sent: int, result: dt.IngestResult) -> None:
        """Adds one batch's answer; positions in it become positions in the range."""
        response, merged, offset = result.raw, self._merged, self._sent
        assert response is not None  # ingest_commits keeps the message it converted
        merged.processed_commits += response.processed_commits
        merged.skipped_commits += response.skipped_commits
        merged.commits_without_decision += response.commits_without_decision
        merged.created_decisions += response.created_decisions
        merged.updated_decisions += response.updated_decisions
        merged.invalid_commits += response.invalid_commits
        # The backlog as the last call saw it.
        merged.pending_index_items = response.pending_index_items
        for commit in response.commits:
            item = merged.commits.add()
            item.CopyFrom(commit)
            item.index += offset
            for violation in item.violations:
                violation.field = _shift(violation.field, offset)
        for finding in response.privacy_findings:
            item_finding = merged.privacy_findings.add()
            item_finding.CopyFrom(finding)
            item_finding.field = _shift(finding.field, offset)
        # A decision a later batch updated again is listed once, as it is now.
        for decision in response.decisions:
            self._decisions[decision.name] = decision
        self._sent += sent

    def result(self) -> dt.IngestResult:
        merged = decisions_pb2.IngestCommitsResponse()
        merged.CopyFrom(self._merged)
        merged.decisions.extend(self._decisions.values())
        return dc.ingest_out(merged)


def _shift(field: str, offset: int) -> str:
    """`commits[3].message` of a batch sent after `offset` commits, as a position
    in the whole range."""
    return _COMMIT_FIELD.sub(lambda m: f"commits[{int(m.group(1)) + offset}]", field, count=1)


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

    @rpc("engram.v1.DecisionsService.IngestCommits")
    def ingest_commits(
        self,
        repository: str,
        commits: Iterable[dt.Commit | decisions_pb2.Commit],
        *,
        space: str = "",
        reprocess: bool = False,
        request_id: str | None = None,
    ) -> dt.IngestResult:
        """Mines up to 500 commits (`engram.Commit`s, or `engram.v1.Commit`
        messages); re-sending ingested ones changes nothing. A commit with a field of
        the wrong type or a value no commit can have raises InvalidArgument naming
        it (`commits[2].files[0].path`) before anything is sent; one over the
        server's limits is refused alone, reported in `result.commits`."""
        request = _Requests.ingest(repository, commits, space, reprocess, request_id)
        return dc.ingest_out(
            self._transport_.unary(self._decisions.IngestCommits, request, retryable=True)
        )

    def ingest_repository(
        self,
        path: str | os.PathLike[str] = ".",
        range: str = "HEAD",
        *,
        repository: str | None = None,
        space: str = "",
        reprocess: bool = False,
        batch_size: int = 100,
        report: git.ReadReport | None = None,
    ) -> dt.IngestResult:
        """Reads the commits of `range` from the git repository at `path` (with
        `engram.git`, on this machine) and sends them through `ingest_commits`,
        oldest first, `batch_size` (1-500) per call.

        Returns the answers summed as one call over the whole range would give
        them: counters added up, `commits` in range order (their `index`, and the
        `commits[i]` of violation and finding fields, count from the range's
        oldest commit), each decision once as it is after the last batch, `raw`
        the summed message. `repository` defaults to the name
        `engram.git.repository_name` gives: the origin remote
        (`github.com/acme/api`), else the directory's name.

        A path that is not a repository or a range git cannot resolve raises
        InvalidArgument naming `path` or `range` with git's reason, and any other
        bad argument one naming it, before anything is sent. Each batch is a
        write of its own with its own request id, retried on UNAVAILABLE like
        `ingest_commits`; a failure after some batches (the server's error, or
        `engram.git.GitError` if git itself stops part way) leaves those
        ingested, and calling again skips them at no cost.

        The reader cleans what a history holds and the server could not store
        (binary content, invalid UTF-8, oversize commits) and skips a commit
        only when nothing of it can be sent; pass a `report` (an
        `engram.git.ReadReport`) to learn which and why.
        """
        run = _RepositoryIngest(path, range, repository, space, reprocess, batch_size, report)
        name = run.resolve()
        with contextlib.closing(run.batches()) as batches:
            for batch in batches:
                result = self.ingest_commits(name, batch, space=run.space, reprocess=run.reprocess)
                run.add(len(batch), result)
        return run.result()

    @rpc("engram.v1.DecisionsService.CreateDecision")
    def create_decision(
        self,
        repository: str,
        title: str,
        rationale: str,
        *,
        space: str = "",
        session: str = "",
        request_id: str | None = None,
        sources: Sequence[str] = (),
        **fields: Any,
    ) -> dt.Decision:
        """Records a stated decision. `fields`: statement, question, alternatives
        (strings, (option, why rejected) pairs or DecisionAlternatives), evidence
        (quotes, or DecisionEvidence naming the memory quoted), anchors (CodeAnchors),
        expectations, tags, author, decision_time. Every quote must appear
        verbatim in the memory it names or in one of `sources` (the texts it is
        quoted from), else InvalidArgument naming the quote."""
        request = _Requests.create(
            repository, title, rationale, fields, space, session, request_id, sources
        )
        return dc.decision_out(
            self._transport_.unary(self._decisions.CreateDecision, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.GetDecision")
    def get_decision(self, name: str) -> dt.Decision:
        request = _Requests.get(name)
        return dc.decision_out(
            self._transport_.unary(self._decisions.GetDecision, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.ListDecisions")
    def list_decisions(
        self,
        *,
        repository: str = "",
        path: str = "",
        start: datetime | None = None,
        end: datetime | None = None,
        include_superseded: bool = False,
        outcomes: Sequence[dt.DecisionOutcome | str | int] = (),
        page_size: int = 0,
    ) -> Iterator[dt.Decision]:
        """Every matching decision, newest first, fetching pages as needed."""
        request = _Requests.list(
            repository, path, start, end, include_superseded, outcomes, page_size
        )
        result: Iterator[dt.Decision] = self._transport_.pages(
            self._decisions.ListDecisions, request, lambda r: map(dc.decision_out, r.decisions)
        )
        return result

    @rpc("engram.v1.DecisionsService.SearchDecisions")
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
        read_your_writes: bool = False,
    ) -> dt.DecisionSearchResult:
        """Decisions that answer `query`, best first. `read_your_writes`: wait until
        every write of the tenant (decisions just ingested included) is searchable."""
        request = _Requests.search(
            query, repository, path, k, include_superseded, start, end, read_your_writes
        )
        return dc.search_out(
            self._transport_.unary(self._decisions.SearchDecisions, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.ExplainCode")
    def explain_code(
        self,
        repository: str,
        path: str,
        *,
        lines: tuple[int, int] | int | dt.LineRange | None = None,
        symbol: str = "",
        revision: str = "",
        question: str = "",
        k: int = 0,
        include_superseded: bool = False,
        token_budget: int = 0,
        blame_commits: Sequence[str] = (),
        read_your_writes: bool = False,
    ) -> dt.ExplainResult:
        """Why is this code like this? `.context` is a prompt-ready Markdown block.
        `blame_commits`: the commits `git blame` names for `lines` at `revision`.
        `read_your_writes`: the semantic leg waits until the tenant's writes are searchable."""
        request = _Requests.explain(
            repository,
            path,
            lines,
            symbol,
            revision,
            question,
            k,
            include_superseded,
            token_budget,
            blame_commits,
            read_your_writes,
        )
        return dc.explain_out(
            self._transport_.unary(self._decisions.ExplainCode, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.RecordDecisionOutcome")
    def record_decision_outcome(
        self,
        name: str,
        outcome: dt.DecisionOutcome | str | int,
        summary: str,
        *,
        evidence: Sequence[str | dt.DecisionEvidence | decisions_pb2.DecisionEvidence] = (),
        sources: Sequence[str] = (),
        request_id: str | None = None,
    ) -> dt.Decision:
        """Attaches what happened (MET, PARTIALLY_MET, MISSED) to a decision; its
        evidence quotes are checked against `sources` as in create_decision."""
        request = _Requests.outcome(name, outcome, summary, evidence, sources, request_id)
        return dc.decision_out(
            self._transport_.unary(self._decisions.RecordDecisionOutcome, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.IngestSession")
    def ingest_session(
        self,
        space: str,
        session: str,
        repository: str,
        *,
        decisions_space: str = "",
        request_id: str | None = None,
    ) -> dt.SessionIngestResult:
        """Mines the decisions stated in a session's buffered conversation."""
        request = _Requests.session(space, session, repository, decisions_space, request_id)
        return dc.session_ingest_out(
            self._transport_.unary(self._decisions.IngestSession, request, retryable=True)
        )


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

    @rpc("engram.v1.DecisionsService.IngestCommits")
    async def ingest_commits(
        self,
        repository: str,
        commits: Iterable[dt.Commit | decisions_pb2.Commit],
        *,
        space: str = "",
        reprocess: bool = False,
        request_id: str | None = None,
    ) -> dt.IngestResult:
        request = _Requests.ingest(repository, commits, space, reprocess, request_id)
        return dc.ingest_out(
            await self._transport_.unary(self._decisions.IngestCommits, request, retryable=True)
        )

    async def ingest_repository(
        self,
        path: str | os.PathLike[str] = ".",
        range: str = "HEAD",
        *,
        repository: str | None = None,
        space: str = "",
        reprocess: bool = False,
        batch_size: int = 100,
        report: git.ReadReport | None = None,
    ) -> dt.IngestResult:
        """`Client.ingest_repository`; git runs on worker threads, never on the
        event loop."""
        run = _RepositoryIngest(path, range, repository, space, reprocess, batch_size, report)
        name = await asyncio.to_thread(run.resolve)
        batches = run.batches()
        try:
            while (batch := await asyncio.to_thread(next, batches, None)) is not None:
                result = await self.ingest_commits(
                    name, batch, space=run.space, reprocess=run.reprocess
                )
                run.add(len(batch), result)
        finally:
            # Stops the reader thread. If a cancelled call left `next` running on
            # its thread, the reader stops when that generator is collected.
            with contextlib.suppress(ValueError):
                await asyncio.to_thread(batches.close)
        return run.result()

    @rpc("engram.v1.DecisionsService.CreateDecision")
    async def create_decision(
        self,
        repository: str,
        title: str,
        rationale: str,
        *,
        space: str = "",
        session: str = "",
        request_id: str | None = None,
        sources: Sequence[str] = (),
        **fields: Any,
    ) -> dt.Decision:
        request = _Requests.create(
            repository, title, rationale, fields, space, session, request_id, sources
        )
        return dc.decision_out(
            await self._transport_.unary(self._decisions.CreateDecision, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.GetDecision")
    async def get_decision(self, name: str) -> dt.Decision:
        request = _Requests.get(name)
        return dc.decision_out(
            await self._transport_.unary(self._decisions.GetDecision, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.ListDecisions")
    def list_decisions(
        self,
        *,
        repository: str = "",
        path: str = "",
        start: datetime | None = None,
        end: datetime | None = None,
        include_superseded: bool = False,
        outcomes: Sequence[dt.DecisionOutcome | str | int] = (),
        page_size: int = 0,
    ) -> AsyncIterator[dt.Decision]:
        request = _Requests.list(
            repository, path, start, end, include_superseded, outcomes, page_size
        )
        result: AsyncIterator[dt.Decision] = self._transport_.pages(
            self._decisions.ListDecisions, request, lambda r: map(dc.decision_out, r.decisions)
        )
        return result

    @rpc("engram.v1.DecisionsService.SearchDecisions")
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
        read_your_writes: bool = False,
    ) -> dt.DecisionSearchResult:
        """Decisions that answer `query`, best first. `read_your_writes`: wait until
        every write of the tenant (decisions just ingested included) is searchable."""
        request = _Requests.search(
            query, repository, path, k, include_superseded, start, end, read_your_writes
        )
        return dc.search_out(
            await self._transport_.unary(self._decisions.SearchDecisions, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.ExplainCode")
    async def explain_code(
        self,
        repository: str,
        path: str,
        *,
        lines: tuple[int, int] | int | dt.LineRange | None = None,
        symbol: str = "",
        revision: str = "",
        question: str = "",
        k: int = 0,
        include_superseded: bool = False,
        token_budget: int = 0,
        blame_commits: Sequence[str] = (),
        read_your_writes: bool = False,
    ) -> dt.ExplainResult:
        request = _Requests.explain(
            repository,
            path,
            lines,
            symbol,
            revision,
            question,
            k,
            include_superseded,
            token_budget,
            blame_commits,
            read_your_writes,
        )
        return dc.explain_out(
            await self._transport_.unary(self._decisions.ExplainCode, request, retryable=True)
        )

    @rpc("engram.v1.DecisionsService.RecordDecisionOutcome")
    async def record_decision_outcome(
        self,
        name: str,
        outcome: dt.DecisionOutcome | str | int,
        summary: str,
        *,
        evidence: Sequence[str | dt.DecisionEvidence | decisions_pb2.DecisionEvidence] = (),
        sources: Sequence[str] = (),
        request_id: str | None = None,
    ) -> dt.Decision:
        request = _Requests.outcome(name, outcome, summary, evidence, sources, request_id)
        return dc.decision_out(
            await self._transport_.unary(
                self._decisions.RecordDecisionOutcome, request, retryable=True
            )
        )

    @rpc("engram.v1.DecisionsService.IngestSession")
    async def ingest_session(
        self,
        space: str,
        session: str,
        repository: str,
        *,
        decisions_space: str = "",
        request_id: str | None = None,
    ) -> dt.SessionIngestResult:
        request = _Requests.session(space, session, repository, decisions_space, request_id)
        return dc.session_ingest_out(
            await self._transport_.unary(self._decisions.IngestSession, request, retryable=True)
        )
