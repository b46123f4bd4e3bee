"""Bad input to any SDK method raises `engram.InvalidArgument` naming the field,
before anything is sent: never a bare ValueError or TypeError.

The clients point at a port nothing listens on, so a value the SDK failed to check
would surface as `engram.Unavailable` instead and fail the test.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

import engram
import pytest
from engram._base import RPC_ATTRIBUTE

# A commit with every nested type filled in, valid as it is.
COMMIT = engram.Commit(
    sha="a" * 40,
    message="Use Go\n\nThe team knows it.\n",
    author_time=datetime(2024, 5, 1, 9, 0, tzinfo=UTC),
    parents=["b" * 40],
    author_name="Dev",
    author_email="dev@example.com",
    committer_name="Dev",
    commit_time=datetime(2024, 5, 1, 9, 5, tzinfo=UTC),
    files=[
        engram.FileChange(
            path="main.go",
            old_path="main.c",
            change_type=engram.FileChangeType.RENAMED,
            additions=3,
            deletions=1,
            hunks=[
                engram.DiffHunk(
                    old_lines=engram.LineRange(start_line=4, end_line=4),
                    new_lines=engram.LineRange(start_line=4, end_line=6),
                    section="func main() {",
                    excerpt="+// Go: the team knows it\n",
                )
            ],
        )
    ],
    diff_excerpt="+// Go: the team knows it\n",
    refs=["main"],
)

# A valid value for every required parameter of every SDK method, by name.
VALID: dict[str, Any] = {
    "space": "team-a/agent-7",
    "content": "Alice prefers Go",
    "name": "memories/m1",
    "etag": "e1",
    "reason": "wrong",
    "session": "s1",
    "query": "which language?",
    "spaces": ["team-a/agent-7"],
    "turns": [("user", "hi")],
    "proposals": [{"space": "s", "content": "c"}],
    "tenant": "acme",
    "tenant_id": "acme",
    "scopes": ["read"],
    "confidence": 0.9,
    "policy": engram.Policy(),
    "messages": ["hello"],
    "base": "snapshots/a",
    "group": "reviewers",
    "group_id": "reviewers",
    "principal": "agent-a",
    "repository": "github.com/acme/api",
    "path": "main.go",
    "title": "Use Go",
    "rationale": "The team knows it",
    "commits": [COMMIT],
    "outcome": "met",
    "summary": "it worked",
    "level": "official",
    "source": "memories/a",
    "target": "memories/b",
    "kind": "supports",
    "resolution": "dismiss",
    "pool": "shared",
    "memory": "memories/m1",
    "publication": "pools/shared/publications/p1",
    "member": "pools/shared/members/m1",
    "member_role": "writer",
    "approve": True,
    "display_name": "Shared",
    "topic": "news",
}


class Bad:
    """A value no parameter accepts."""

    def __repr__(self) -> str:
        return "<Bad>"


def _methods(cls: type[Any]) -> list[tuple[str, inspect.Signature]]:
    out = []
    for name, member in inspect.getmembers(cls):
        if getattr(member, RPC_ATTRIBUTE, None) and not name.startswith("_"):
            out.append((name, inspect.signature(member)))
    return out


def _cases(cls: type[Any]) -> list[Any]:
    cases = []
    for name, signature in _methods(cls):
        for param in list(signature.parameters.values())[1:]:
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            cases.append(pytest.param(name, param.name, id=f"{name}-{param.name}"))
    return cases


def _arguments(signature: inspect.Signature, bad: str) -> tuple[list[Any], dict[str, Any]]:
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for param in list(signature.parameters.values())[1:]:
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        if param.name == bad:
            value: Any = Bad()
        elif param.default is inspect.Parameter.empty:
            value = VALID[param.name]
        else:
            continue
        if param.kind is inspect.Parameter.KEYWORD_ONLY:
            kwargs[param.name] = value
        else:
            args.append(value)
    if "changes" in signature.parameters and bad != "changes":
        kwargs["content"] = "new"  # revise() needs one change
    return args, kwargs


@pytest.fixture(scope="module")
def client() -> Iterator[engram.Client]:
    with engram.Client("127.0.0.1:1", "key", timeout=2, max_attempts=1) as c:
        yield c


@pytest.mark.parametrize(("method", "param"), _cases(engram.Client))
def test_a_bad_value_in_any_parameter_is_invalid_argument(
    client: engram.Client, method: str, param: str
) -> None:
    fn = getattr(client, method)
    args, kwargs = _arguments(inspect.signature(getattr(engram.Client, method)), param)
    with pytest.raises(engram.InvalidArgument) as caught:
        result = fn(*args, **kwargs)
        if isinstance(result, Iterator):
            next(result)
    assert caught.value.fields, caught.value
    assert caught.value.code.name == "INVALID_ARGUMENT"


@pytest.fixture
async def aclient() -> AsyncIterator[engram.AsyncClient]:
    async with engram.AsyncClient("127.0.0.1:1", "key", timeout=2, max_attempts=1) as c:
        yield c


@pytest.mark.parametrize(("method", "param"), _cases(engram.AsyncClient))
async def test_a_bad_value_is_invalid_argument_in_the_async_client_too(
    aclient: engram.AsyncClient, method: str, param: str
) -> None:
    fn = getattr(aclient, method)
    args, kwargs = _arguments(inspect.signature(getattr(engram.AsyncClient, method)), param)
    with pytest.raises(engram.InvalidArgument) as caught:
        result = fn(*args, **kwargs)
        if inspect.isawaitable(result):
            await result
        elif isinstance(result, AsyncIterator):
            await anext(result)
    assert caught.value.fields, caught.value


# The cases the issue names, and other common slips, with the exact field reported.
@pytest.mark.parametrize(
    ("call", "field"),
    [
        (
            lambda c: c.propose("s", "c", structured={"tags": {"a", "b"}}),
            "proposal.structured_content.tags",
        ),
        (
            lambda c: c.propose("s", "c", structured={"when": datetime.now(UTC)}),
            "proposal.structured_content.when",
        ),
        (
            lambda c: c.propose("s", "c", structured={"n": [1, float("nan")]}),
            "proposal.structured_content.n[1]",
        ),
        (lambda c: c.propose("s", "c", structured={1: "x"}), "proposal.structured_content"),
        (
            lambda c: c.set_policy(engram.Policy(json_schema="{not json")),  # type: ignore[arg-type]
            "policy.json_schema",
        ),
        (
            lambda c: c.set_policy(engram.Policy(json_schema="[1, 2]")),  # type: ignore[arg-type]
            "policy.json_schema",
        ),
        (lambda c: c.propose("s", "c", kind="opinion"), "proposal.kind"),
        (lambda c: c.propose("s", "c", tags="urgent"), "proposal.tags"),
        (lambda c: c.propose("s", "c", tags=["ok", 3]), "proposal.tags[1]"),
        (lambda c: c.propose("s", "c", confidence="high"), "proposal.confidence"),
        (lambda c: c.propose("s", "c", depends_on=[7]), "proposal.depends_on[0]"),
        (lambda c: c.batch_propose([{"space": "s"}]), "proposals[0].content"),
        (lambda c: c.batch_propose([{"space": "s", "text": "c"}]), "proposals[0].text"),
        (
            lambda c: c.batch_propose([{"space": "s", "content": "c", "kind": "x"}]),
            "proposals[0].kind",
        ),
        (lambda c: list(c.list(statuses=["alive"])), "statuses[0]"),
        (lambda c: c.revise("m1", "e", status="ACTIVE"), "update_mask"),
        (lambda c: c.revise("m1", "e"), "update_mask"),
        (lambda c: c.revise("m1", "e", importance="high"), "memory.importance"),
        (lambda c: c.recall("q", "s", k=2.5), "k"),
        (lambda c: c.recall("q", "s", min_evidence_level="gold"), "filter.min_evidence_level"),
        (lambda c: c.recall("q", "s", graph={"edge_kinds": ["friend"]}), "graph.edge_kinds[0]"),
        (lambda c: c.recall("q", "s", graph={"hops": 2}), "graph.hops"),
        (lambda c: c.build_context("q", "s", memories=["m1"]), "query"),
        (lambda c: c.build_context(None, "s"), "query"),
        (lambda c: c.build_context("q", "s", format="html"), "options.format"),
        (lambda c: c.learn("s", [("user",)]), "turns[0]"),
        (lambda c: c.engage("s", "s1", "hi", metadata={"k": 1}), "message.metadata['k']"),
        (
            lambda c: c.set_policy(engram.Policy(default_ttl_seconds={"opinion": 5})),
            "policy.default_ttl_seconds['opinion']",
        ),
        (lambda c: c.revoke_api_key("k1"), "name"),
        (lambda c: c.update_tenant("acme"), "update_mask"),
        (
            lambda c: c.update_tenant("acme", llm=engram.LlmSettings(), clear_llm=True),
            "tenant.llm",
        ),
        (lambda c: c.admin.get_usage(42), "name"),
        (lambda c: c.ingest_commits("r", [COMMIT, {"sha": "a" * 40}]), "commits[1]"),
        (
            lambda c: c.ingest_commits("r", [dataclasses.replace(COMMIT, sha="A" * 40)]),
            "commits[0].sha",
        ),
        (
            lambda c: c.ingest_commits("r", [dataclasses.replace(COMMIT, sha="a" * 39)]),
            "commits[0].sha",
        ),
        (
            lambda c: c.ingest_commits("r", [dataclasses.replace(COMMIT, parents="b" * 40)]),
            "commits[0].parents",
        ),
        (
            lambda c: c.ingest_commits("r", [dataclasses.replace(COMMIT, message=" \n")]),
            "commits[0].message",
        ),
        (
            lambda c: c.ingest_commits(
                "r", [COMMIT, dataclasses.replace(COMMIT, author_time="2024-05-01")]
            ),
            "commits[1].author_time",
        ),
        (
            lambda c: c.ingest_commits("r", [dataclasses.replace(COMMIT, refs=["main", 3])]),
            "commits[0].refs[1]",
        ),
        (lambda c: c.ingest_commits("r", [_file(COMMIT, path="")]), "commits[0].files[0].path"),
        (
            lambda c: c.ingest_commits("r", [_file(COMMIT, change_type="moved")]),
            "commits[0].files[0].change_type",
        ),
        (
            lambda c: c.ingest_commits("r", [_file(COMMIT, old_path="")]),
            "commits[0].files[0].old_path",
        ),
        (
            lambda c: c.ingest_commits("r", [_file(COMMIT, additions=-1)]),
            "commits[0].files[0].additions",
        ),
        (
            lambda c: c.ingest_commits("r", [_file(COMMIT, deletions=2**31)]),
            "commits[0].files[0].deletions",
        ),
        (
            lambda c: c.ingest_commits("r", [_file(COMMIT, binary="no")]),
            "commits[0].files[0].binary",
        ),
        (
            lambda c: c.ingest_commits("r", [_hunk(COMMIT, old_lines=None, new_lines=None)]),
            "commits[0].files[0].hunks[0].new_lines",
        ),
        (
            lambda c: c.ingest_commits(
                "r", [_hunk(COMMIT, new_lines=engram.LineRange(start_line=0, end_line=2))]
            ),
            "commits[0].files[0].hunks[0].new_lines.start_line",
        ),
        (
            lambda c: c.ingest_commits(
                "r", [_hunk(COMMIT, old_lines=engram.LineRange(start_line=9, end_line=3))]
            ),
            "commits[0].files[0].hunks[0].old_lines.end_line",
        ),
        (
            lambda c: c.ingest_commits("r", [_hunk(COMMIT, new_lines=(4, 6))]),
            "commits[0].files[0].hunks[0].new_lines",
        ),
    ],
)
def test_bad_input_names_the_field(client: engram.Client, call: Any, field: str) -> None:
    with pytest.raises(engram.InvalidArgument) as caught:
        call(client)
    assert caught.value.fields == [field], caught.value
    violation = caught.value.field_violations[0]
    assert violation.description and field in str(caught.value)
    assert not isinstance(caught.value, ValueError | TypeError)


def _file(commit: engram.Commit, **changes: Any) -> engram.Commit:
    (f,) = commit.files
    return dataclasses.replace(commit, files=[dataclasses.replace(f, **changes)])


def _hunk(commit: engram.Commit, **changes: Any) -> engram.Commit:
    (f,) = commit.files
    (h,) = f.hunks
    return _file(commit, hunks=[dataclasses.replace(h, **changes)])


def _commit_fields() -> list[Any]:
    """Every field of a commit and of the types nested in it, as the path
    `ingest_commits` names when that field holds a value no field accepts."""
    cases = []
    for f in dataclasses.fields(engram.Commit):
        cases.append(pytest.param(f"commits[0].{f.name}", id=f"Commit.{f.name}"))
    for f in dataclasses.fields(engram.FileChange):
        cases.append(pytest.param(f"commits[0].files[0].{f.name}", id=f"FileChange.{f.name}"))
    for f in dataclasses.fields(engram.DiffHunk):
        path = f"commits[0].files[0].hunks[0].{f.name}"
        cases.append(pytest.param(path, id=f"DiffHunk.{f.name}"))
    for f in dataclasses.fields(engram.LineRange):
        path = f"commits[0].files[0].hunks[0].new_lines.{f.name}"
        cases.append(pytest.param(path, id=f"LineRange.{f.name}"))
    return cases


def _with_bad(path: str) -> engram.Commit:
    """COMMIT with the field at `path` (`commits[0].files[0].path`) set to Bad()."""
    names = [part.partition("[")[0] for part in path.split(".")[1:]]

    def replace(value: Any, names: list[str]) -> Any:
        head, rest = names[0], names[1:]
        if not rest:
            return dataclasses.replace(value, **{head: Bad()})
        inner = getattr(value, head)
        if isinstance(inner, list | tuple):
            return dataclasses.replace(value, **{head: [replace(inner[0], rest)]})
        return dataclasses.replace(value, **{head: replace(inner, rest)})

    return replace(COMMIT, names)  # type: ignore[no-any-return]


@pytest.mark.parametrize("path", _commit_fields())
def test_a_bad_value_in_any_commit_field_is_invalid_argument_naming_it(
    client: engram.Client, path: str
) -> None:
    with pytest.raises(engram.InvalidArgument) as caught:
        client.ingest_commits("github.com/acme/api", [COMMIT, _with_bad(path)])
    assert caught.value.fields == [path.replace("commits[0]", "commits[1]")], caught.value


async def test_commit_fields_are_checked_in_the_async_client_too(
    aclient: engram.AsyncClient,
) -> None:
    with pytest.raises(engram.InvalidArgument) as caught:
        await aclient.ingest_commits("r", [COMMIT, _file(COMMIT, change_type="moved")])
    assert caught.value.fields == ["commits[1].files[0].change_type"]


def test_commits_may_be_messages_or_dataclasses_mixed() -> None:
    from engram.decisions import _Requests
    from engram.v1 import decisions_pb2

    message = decisions_pb2.Commit(sha="c" * 40, message="As a message\n")
    request = _Requests.ingest("r", iter([COMMIT, message]), "", False, None)
    assert [c.sha for c in request.commits] == ["a" * 40, "c" * 40]
    assert request.commits[1] == message
    sent = request.commits[0]
    assert sent.files[0].change_type == decisions_pb2.FILE_CHANGE_TYPE_RENAMED
    assert sent.files[0].hunks[0].new_lines == decisions_pb2.LineRange(start_line=4, end_line=6)
    assert sent.author_time.ToDatetime(tzinfo=UTC) == COMMIT.author_time
    # A naive datetime is read as UTC; an unset commit time stays unset.
    naive = dataclasses.replace(COMMIT, author_time=datetime(2024, 5, 1, 9, 0), commit_time=None)
    (read,) = _Requests.ingest("r", [naive], "", False, None).commits
    assert read.author_time == sent.author_time and not read.HasField("commit_time")


def test_a_json_schema_may_be_given_as_a_json_string() -> None:
    from engram import _convert

    pb = _convert.policy_in(engram.Policy(json_schema='{"type": "object"}'))  # type: ignore[arg-type]
    assert dict(pb.json_schema) == {"type": "object"}


async def test_a_bad_message_in_a_stream_is_invalid_argument_after_the_good_ones(
    server: Any, make_tenant: Any
) -> None:
    import asyncio

    tenant = await make_tenant()
    async with engram.AsyncClient(server.address, tenant.secret) as client:
        stream = client.append_messages("s", "chat", ["one", 2, "three"])  # type: ignore[list-item]
        got: list[Any] = []
        with pytest.raises(engram.InvalidArgument) as caught:
            async for result in stream:
                got.append(result)
        assert caught.value.fields == ["messages[1]"]
        assert [r.message.content for r in got] == ["one"]

    def sync() -> tuple[list[Any], list[str]]:
        with engram.Client(server.address, tenant.secret) as c:
            results: list[Any] = []
            try:
                for r in c.append_messages(
                    "s", "chat2", ["a", engram.SessionMessage(role="user", content=5)]
                ):  # type: ignore[arg-type]
                    results.append(r)
            except engram.InvalidArgument as error:
                return results, error.fields
            return results, []

    results, fields = await asyncio.to_thread(sync)
    assert fields == ["messages[1].content"] and len(results) == 1
