"""Engram as MCP tools: `engram mcp` serves them to any MCP host over stdio (or
streamable HTTP).

Tools: remember, recall, build_context, engage, reflect, forget (retract with a
reason), why (DecisionsService.ExplainCode), search_decisions, publish_to_pool and
recall_pool. The server connects with `ENGRAM_ADDRESS` / `ENGRAM_API_KEY`, and tools
that take a space default to `ENGRAM_SPACE`. Reads wait until the tenant's earlier
writes are searchable (read-your-writes), so a `recall` right after `remember` finds
it. Every Engram error (bad input, NOT_FOUND, an RPC this server does not serve
yet...) comes back as an MCP tool error (`isError`) whose text starts with the gRPC
code and names the bad fields, so the model can correct itself; arguments that do
not match a tool's schema are tool errors too.

Needs the `mcp` extra: `pip install 'engram-grpc[mcp]'`.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

import engram
from engram import _convert as c
from engram import errors
from engram.v1 import decisions_pb2, decisions_pb2_grpc, pool_pb2, pool_pb2_grpc

SPACE_ENV = "ENGRAM_SPACE"
TOOL_NAMES = (
    "remember",
    "recall",
    "build_context",
    "engage",
    "reflect",
    "forget",
    "why",
    "search_decisions",
    "publish_to_pool",
    "recall_pool",
)

_T = TypeVar("_T")
# Line numbers are int32 in the API.
_MAX_LINE = 2**31 - 1

Space = Annotated[
    str | None,
    Field(description=f"Memory space path such as 'team-a/agent-7'; default: ${SPACE_ENV}"),
]


def tool_error(error: errors.EngramError) -> ToolError:
    """An MCP tool error telling the model what went wrong, field by field.

    The server's message often only lists the violations the details carry too;
    then the first line is the code alone, so each violation is said once.
    """
    items = [f"{v.field}: {v.description}" for v in getattr(error, "field_violations", ())]
    items += [f"{v.subject}: {v.description}" for v in getattr(error, "violations", ())]
    if items and all(item in error.message for item in items):
        headline = error.code.name
    else:
        headline = f"{error.code.name}: {error.message}"
    return ToolError("\n".join([headline, *(f"- {item}" for item in items)]))


class EngramTools:
    """The tools' implementation over one `engram.AsyncClient`, made on first use
    (a grpc.aio channel belongs to the event loop that serves the tools)."""

    def __init__(
        self,
        client: engram.AsyncClient | None = None,
        *,
        address: str | None = None,
        api_key: str | None = None,
        default_space: str | None = None,
    ) -> None:
        self._client = client
        self._address = address
        self._api_key = api_key
        self.default_space = default_space or os.environ.get(SPACE_ENV) or None

    @property
    def client(self) -> engram.AsyncClient:
        if self._client is None:
            self._client = engram.AsyncClient(self._address, self._api_key)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()

    def space(self, given: str | None) -> str:
        space = given or self.default_space
        if not space:
            raise ToolError(
                f"INVALID_ARGUMENT: no space\n- space: required (pass one, or set ${SPACE_ENV})"
            )
        return space

    async def call(self, fn: Callable[[], Awaitable[_T]]) -> _T:
        try:
            return await fn()
        except errors.EngramError as error:
            raise tool_error(error) from error

    async def raw(self, method: Any, request: Message) -> dict[str, Any]:
        """A unary call through a generated stub, answered as JSON."""
        response = await self.call(lambda: self.client._unary(method, request, retryable=True))
        out: dict[str, Any] = json_format.MessageToDict(response)
        return out


def _hit(hit: engram.RecallHit) -> dict[str, Any]:
    return {
        "memory": hit.memory.name,
        "content": hit.memory.content,
        "kind": hit.memory.kind.value,
        "space": hit.memory.space,
        "score": round(hit.score, 4),
        **({"pool": hit.pool} if hit.pool else {}),
    }


def _proposal(result: engram.ProposalResult) -> dict[str, Any]:
    out: dict[str, Any] = {"outcome": result.outcome.value}
    if result.memory is not None:
        out["memory"] = result.memory.name
        out["status"] = result.memory.status.value
    if result.failures:
        out["failures"] = [f"{f.validator}: {f.message}" for f in result.failures]
    return out


def build_server(tools: EngramTools | None = None) -> MCPServer:
    """The MCP server with Engram's tools (`tools` defaults to one built from the
    environment)."""
    tools = tools or EngramTools()
    server: MCPServer = MCPServer(
        "engram",
        instructions=(
            "Long-term memory. `recall` or `build_context` before answering from memory; "
            "`remember` durable facts, preferences and decisions; `forget` what is wrong; "
            "`engage`/`reflect` around each conversation turn; `why` explains code."
        ),
        version=engram.__version__,
        # A failed tool call is answered to the host as a tool error; at INFO the
        # SDK would also print each one on stderr, which hosts show as server noise.
        log_level="WARNING",
    )

    @server.tool(description="Store a memory through Engram's governed write path.")
    async def remember(
        content: Annotated[str, Field(description="The fact, preference or event to keep")],
        space: Space = None,
        kind: Annotated[
            str | None, Field(description="semantic, preference, procedural, episodic...")
        ] = None,
        tags: list[str] | None = None,
        importance: Annotated[float | None, Field(ge=0, le=1)] = None,
        slot_key: Annotated[
            str, Field(description="'entity::attribute': replaces the memory in that slot")
        ] = "",
        session: str = "",
    ) -> dict[str, Any]:
        result = await tools.call(
            lambda: tools.client.propose(
                tools.space(space),
                content,
                kind=kind,
                tags=tags or (),
                importance=importance,
                slot_key=slot_key,
                session=session,
            )
        )
        return _proposal(result)

    @server.tool(description="Find the memories that best answer a question, best first.")
    async def recall(
        query: str,
        space: Space = None,
        k: Annotated[int, Field(ge=1, le=100)] = 5,
        kinds: list[str] | None = None,
        tags: list[str] | None = None,
        include_subspaces: bool = False,
    ) -> dict[str, Any]:
        found = await tools.call(
            lambda: tools.client.recall(
                query,
                tools.space(space),
                k=k,
                kinds=kinds or (),
                tags=tags or (),
                include_subspaces=include_subspaces,
                read_your_writes=True,
            )
        )
        return {"hits": [_hit(h) for h in found]}

    @server.tool(description="A prompt-ready context block of memories under a token budget.")
    async def build_context(
        query: str,
        space: Space = None,
        token_budget: Annotated[int, Field(ge=1, le=200_000)] = 1000,
        format: Annotated[str, Field(description="markdown, plain, xml or json")] = "markdown",
    ) -> dict[str, Any]:
        block = await tools.call(
            lambda: tools.client.build_context(
                query,
                tools.space(space),
                token_budget=token_budget,
                format=format,
                read_your_writes=True,
            )
        )
        return {
            "text": block.text,
            "cited_memories": list(block.cited_memories),
            "token_count": block.token_count,
        }

    @server.tool(
        description=(
            "Record an incoming conversation message and get the long-term context it "
            "calls for (each memory is sent once per session)."
        )
    )
    async def engage(
        message: str,
        session: str,
        space: Space = None,
        role: str = "user",
        token_budget: Annotated[int, Field(ge=0, le=200_000)] = 0,
    ) -> dict[str, Any]:
        result = await tools.call(
            lambda: tools.client.engage(
                tools.space(space), session, message, role=role, token_budget=token_budget
            )
        )
        return {
            "context": result.context,
            "cited_memories": list(result.cited_memories),
            "suppressed_count": result.suppressed_count,
            "buffered_messages": result.buffered_messages,
        }

    @server.tool(
        description=(
            "Record the agent's reply in the session and propose what it learned "
            "(`captures`: one fact per item)."
        )
    )
    async def reflect(
        session: str,
        response: str = "",
        captures: list[str] | None = None,
        space: Space = None,
    ) -> dict[str, Any]:
        result = await tools.call(
            lambda: tools.client.reflect(
                tools.space(space),
                session,
                response,
                captures=[{"content": text} for text in captures or ()],
            )
        )
        return {"results": [_proposal(r) for r in result.results]}

    @server.tool(description="Retract a memory that is wrong or obsolete, with the reason.")
    async def forget(
        memory: Annotated[str, Field(description="memories/{id} or the bare id")],
        reason: Annotated[str, Field(min_length=1)],
        cascade: bool = False,
    ) -> dict[str, Any]:
        result = await tools.call(lambda: tools.client.retract(memory, reason, cascade))
        return {
            "memory": result.memory.name,
            "status": result.memory.status.value,
            "cascaded": [m.name for m in result.cascaded],
        }

    @server.tool(description="Why is this code the way it is? The decisions behind a file.")
    async def why(
        repository: str,
        path: str,
        question: str = "",
        symbol: str = "",
        start_line: Annotated[int, Field(ge=0, le=_MAX_LINE)] = 0,
        end_line: Annotated[int, Field(ge=0, le=_MAX_LINE)] = 0,
        k: Annotated[int, Field(ge=0, le=50)] = 0,
    ) -> dict[str, Any]:
        request = c.fill(
            decisions_pb2.ExplainCodeRequest(),
            repository=repository,
            path=path,
            question=question,
            symbol=symbol,
            k=k,
        )
        if start_line or end_line:
            request.lines.start_line, request.lines.end_line = start_line, end_line
        stub = tools.client._stub_of(decisions_pb2_grpc.DecisionsServiceStub)
        return await tools.raw(stub.ExplainCode, request)

    @server.tool(description="Search the recorded decisions about a codebase.")
    async def search_decisions(
        query: str,
        repository: str = "",
        path: str = "",
        k: Annotated[int, Field(ge=0, le=100)] = 5,
    ) -> dict[str, Any]:
        request = c.fill(
            decisions_pb2.SearchDecisionsRequest(),
            query=query,
            repository=repository,
            path=path,
            k=k,
        )
        stub = tools.client._stub_of(decisions_pb2_grpc.DecisionsServiceStub)
        return await tools.raw(stub.SearchDecisions, request)

    @server.tool(description="Share one of your memories with a pool of agents.")
    async def publish_to_pool(
        memory: Annotated[str, Field(description="memories/{id} or the bare id")],
        pool: Annotated[str, Field(description="pools/{id} or the bare id")],
        topic: str = "",
    ) -> dict[str, Any]:
        request = c.fill(
            pool_pb2.PublishMemoryRequest(),
            pool=_pool_name(pool),
            memory=c.memory_name(memory, "memory"),
            topic=topic,
            request_id=tools.client._request_id(None),
        )
        stub = tools.client._stub_of(pool_pb2_grpc.PoolServiceStub)
        return await tools.raw(stub.PublishMemory, request)

    @server.tool(description="Recall from the memories published to a pool.")
    async def recall_pool(
        query: str,
        pool: Annotated[str, Field(description="pools/{id} or the bare id")],
        k: Annotated[int, Field(ge=1, le=100)] = 5,
    ) -> dict[str, Any]:
        found = await tools.call(
            lambda: tools.client.recall(query, pools=[_pool_name(pool)], k=k, read_your_writes=True)
        )
        return {"hits": [_hit(h) for h in found]}

    return server


def _pool_name(pool: str) -> str:
    return pool if pool.startswith("pools/") else f"pools/{pool}"


async def serve_stdio(tools: EngramTools | None = None) -> None:
    tools = tools or EngramTools()
    try:
        await build_server(tools).run_stdio_async()
    finally:
        await tools.close()


async def serve_http(
    tools: EngramTools | None = None, *, host: str = "127.0.0.1", port: int = 8765
) -> None:
    """Streamable HTTP at http://host:port/mcp."""
    tools = tools or EngramTools()
    try:
        await build_server(tools).run_streamable_http_async(host=host, port=port)
    finally:
        await tools.close()
