"""`engram mcp` over stdio, driven by the MCP Python client against a live server:
the tool list, every tool called, Engram errors and bad arguments answered as MCP
tool errors, and `engram mcp config`."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import engram
from engram.integrations.mcp import TOOL_NAMES
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ENGRAM = str(Path(sys.executable).parent / "engram")
SPACE = "agents/mcp"


@asynccontextmanager
async def mcp_session(env: dict[str, str], errlog: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=ENGRAM, args=["mcp"], env=env)
    with errlog.open("w") as err:
        async with stdio_client(params, errlog=err) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def call(session: ClientSession, tool: str, /, **arguments: Any) -> dict[str, Any]:
    result: Any = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    data: dict[str, Any] = result.structured_content
    return data


async def call_error(session: ClientSession, tool: str, /, **arguments: Any) -> str:
    result: Any = await session.call_tool(tool, arguments)
    assert result.is_error, result
    return _reason(result.content[0].text)


def _reason(text: str) -> str:
    """The tool's own message, without the "Error executing tool NAME: " the SDK adds."""
    prefix = "Error executing tool "
    return text.split(": ", 1)[1] if text.startswith(prefix) else text


async def test_every_tool_over_stdio(server: Any, make_tenant: Any, tmp_path: Path) -> None:
    tenant = await make_tenant()
    env = {"ENGRAM_ADDRESS": tenant.address, "ENGRAM_API_KEY": tenant.secret, "ENGRAM_SPACE": SPACE}
    async with mcp_session(env, tmp_path / "mcp.log") as session:
        listed = await session.list_tools()
        assert {tool.name for tool in listed.tools} == set(TOOL_NAMES)
        assert all(tool.description for tool in listed.tools)

        remembered = await call(
            session, "remember", content="Alice prefers Go for backend services", tags=["people"]
        )
        assert remembered["outcome"] == "ACCEPTED" and remembered["status"] == "ACTIVE"
        memory = remembered["memory"]
        other = await call(
            session, "remember", content="Deploys happen on Tuesdays", space="agents/other"
        )

        found = await call(session, "recall", query="which language does Alice like?")
        assert [h["memory"] for h in found["hits"]][:1] == [memory]
        assert other["memory"] not in [h["memory"] for h in found["hits"]]

        block = await call(session, "build_context", query="backend language", token_budget=200)
        assert "Alice prefers Go" in block["text"] and block["cited_memories"] == [memory]

        engaged = await call(
            session, "engage", message="What should the new API use?", session="s1"
        )
        assert engaged["buffered_messages"] == 1 and memory in engaged["cited_memories"]
        reflected = await call(
            session, "reflect", session="s1", response="Go.", captures=["The API will use Go"]
        )
        assert reflected["results"][0]["outcome"] == "ACCEPTED"

        forgotten = await call(session, "forget", memory=memory, reason="Alice changed her mind")
        assert forgotten["status"] == "RETRACTED"
        again = await call_error(session, "forget", memory=memory, reason="twice")
        assert again.startswith("FAILED_PRECONDITION")

        # Pools: publish a memory to a pool, then recall it through the pool.
        with engram.Client(tenant.address, tenant.secret) as client:
            await asyncio.to_thread(lambda: client.pools.create("Team", pool_id="team"))
        published = await call(session, "publish_to_pool", memory=other["memory"], pool="team")
        assert published["publication"]["state"] == "PUBLICATION_STATE_PUBLISHED", published
        pooled = await call(session, "recall_pool", query="when do deploys happen?", pool="team")
        assert [h["pool"] for h in pooled["hits"]] == ["pools/team"]
        text = await call_error(session, "publish_to_pool", memory=other["memory"], pool="nope")
        assert text.startswith("NOT_FOUND")

        # Decisions: a decision recorded through the SDK is found by search_decisions.
        with engram.Client(tenant.address, tenant.secret) as client:
            await asyncio.to_thread(
                lambda: client.create_decision(
                    "github.com/acme/api", "Write the API in Go", "The team knows Go best"
                )
            )
        await server.ctx.recall.worker.wait_until_indexed(tenant.tenant_id, 20)
        searched = await call(session, "search_decisions", query="why is the API written in Go?")
        assert "Write the API in Go" in json.dumps(searched)
        # Whatever else the server answers comes back as a tool error naming the
        # code, never a crash.
        for tool, arguments in (
            ("why", {"repository": "github.com/acme/api", "path": "main.go"}),
            ("search_decisions", {"query": "why Go?"}),
        ):
            result: Any = await session.call_tool(tool, arguments)
            if result.is_error:
                code = _reason(result.content[0].text).split(":", 1)[0]
                assert code in {"UNIMPLEMENTED", "NOT_FOUND", "INVALID_ARGUMENT"}, (tool, code)
            else:
                assert isinstance(result.structured_content, dict)


async def test_bad_arguments_are_tool_errors(make_tenant: Any, tmp_path: Path) -> None:
    tenant = await make_tenant()
    env = {"ENGRAM_ADDRESS": tenant.address, "ENGRAM_API_KEY": tenant.secret}
    errlog = tmp_path / "mcp.log"
    async with mcp_session(env, errlog) as session:
        # Rejected by the tool's input schema.
        assert await call_error(session, "recall", space=SPACE)  # no query
        assert await call_error(session, "recall", query="q", space=SPACE, k=1000)
        assert await call_error(session, "forget", memory="m", reason="")
        # No space given and no ENGRAM_SPACE in this server's environment.
        text = await call_error(session, "remember", content="x")
        assert text.startswith("INVALID_ARGUMENT") and "space" in text
        # Refused by Engram, field by field.
        text = await call_error(session, "remember", content="x", space="bad space!")
        assert text.startswith("INVALID_ARGUMENT") and "proposal.space" in text
        assert text.count("proposal.space:") == 1, text  # each violation said once
        text = await call_error(session, "remember", content="x", space=SPACE, kind="opinion")
        assert "proposal.kind" in text
        text = await call_error(
            session, "forget", memory="00000000-0000-0000-0000-000000000000", reason="r"
        )
        assert text.startswith("NOT_FOUND")
        unknown: Any = await session.call_tool("no_such_tool", {})
        assert unknown.is_error
    # The host got every error as a tool result; none is echoed on the server's stderr.
    assert "proposal.space" not in errlog.read_text()
    assert "failed" not in errlog.read_text()


async def test_engram_errors_become_tool_errors_in_process(server: Any) -> None:
    from engram.integrations.mcp import EngramTools, build_server
    from mcp.server.mcpserver.exceptions import ToolError

    tools = EngramTools(address=server.address, api_key="wrong", default_space=SPACE)
    try:
        with pytest.raises(ToolError, match=r"recall: UNAUTHENTICATED: unknown API key"):
            await build_server(tools).call_tool("recall", {"query": "anything"})
    finally:
        await tools.close()


async def test_line_numbers_beyond_the_api_are_tool_errors_naming_them(server: Any) -> None:
    from engram.integrations.mcp import EngramTools, build_server
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError

    tools = EngramTools(address=server.address, api_key="unused", default_space=SPACE)
    try:
        for argument in ("start_line", "end_line"):
            with pytest.raises(ToolError) as caught:
                await build_server(tools).call_tool(
                    "why", {"repository": "r", "path": "a.py", argument: 2**40}
                )
            # Refused by the input schema, not a crash while building the request.
            assert not isinstance(caught.value, UnexpectedToolError)
            assert argument in str(caught.value)
    finally:
        await tools.close()


def test_config_prints_every_host(capsys: pytest.CaptureFixture[str]) -> None:
    from engram_server.cli import main

    code = main(
        [
            "mcp",
            "config",
            "--json",
            "--address",
            "10.0.0.5:50051",
            "--api-key",
            "k1",
            "--space",
            "a/b",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"claude-desktop", "claude-code", "cursor", "vscode"}
    server = out["claude-desktop"]["mcpServers"]["engram"]
    assert server["args"] == ["mcp"] and Path(server["command"]).is_absolute()
    assert server["env"] == {
        "ENGRAM_ADDRESS": "10.0.0.5:50051",
        "ENGRAM_API_KEY": "k1",
        "ENGRAM_SPACE": "a/b",
    }
    assert out["vscode"]["servers"]["engram"]["type"] == "stdio"
    assert out["claude-code"].startswith("claude mcp add engram -e ENGRAM_ADDRESS=10.0.0.5:50051")

    assert main(["mcp", "config", "cursor"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# Cursor") and '"mcpServers"' in text
    assert main(["mcp", "config", "emacs"]) == 2


async def test_streamable_http(make_tenant: Any) -> None:
    """`engram mcp --transport http`: the same tools over streamable HTTP (served here
    on the test's own event loop)."""
    import asyncio
    import contextlib
    import socket

    from engram.integrations.mcp import EngramTools, serve_http
    from mcp.client.streamable_http import streamable_http_client

    tenant = await make_tenant()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    tools = EngramTools(address=tenant.address, api_key=tenant.secret, default_space=SPACE)
    served = asyncio.create_task(serve_http(tools, port=port))
    try:
        for _ in range(100):  # until uvicorn listens
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                assert {tool.name for tool in listed.tools} == set(TOOL_NAMES)
                stored = await call(session, "remember", content="HTTP transport works")
                assert stored["outcome"] == "ACCEPTED"
                text = await call_error(session, "remember", content="x", kind="opinion")
                assert "proposal.kind" in text
    finally:
        served.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await served
