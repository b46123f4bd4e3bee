"""LLM providers against a real local chat server: OpenAI-compatible and Anthropic.

Replies, usage, structured output and repair, retries and timeouts, the privacy
boundary on every outgoing message, spans, and the per-tenant registry with its
usage counters in PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from engram.v1 import admin_pb2
from engram_server.llm import ChatMessage, LLMConfig, LLMError
from engram_server.llm.anthropic_chat import AnthropicChatModel
from engram_server.llm.base import HTTPChatModel, LLMUsage, retry_after_seconds
from engram_server.llm.openai_chat import OpenAIChatModel
from engram_server.llm.registry import LLMRegistry, global_config
from engram_server.platform.config import Settings
from engram_server.platform.context import AppContext
from engram_server.store import llm_usage
from engram_server.store.llm_config import get_tenant_llm_config, set_tenant_llm_config
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from tests.llm_server import LocalChatServer

FAST = {"backoff_seconds": 0.01, "max_backoff_seconds": 0.05}
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


class Facts(BaseModel):
    facts: list[str]
    confidence: float


GOOD = json.dumps({"facts": ["Alice prefers tea"], "confidence": 0.9})


@pytest.fixture
def chat() -> Iterator[LocalChatServer]:
    with LocalChatServer(lambda messages: GOOD) as server:
        yield server


class Recorder:
    def __init__(self) -> None:
        self.usage: list[LLMUsage] = []

    async def __call__(self, usage: LLMUsage) -> None:
        self.usage.append(usage)


def make_model(kind: type[HTTPChatModel], server: LocalChatServer, **options: Any) -> HTTPChatModel:
    config = LLMConfig(
        kind.provider, server.url, "test-model", api_key="sk-test-secret", timeout_seconds=5
    )
    return kind(config, **{**FAST, **options})


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage("system", "Extract facts."), ChatMessage("user", text)]


def sent_text(server: LocalChatServer) -> str:
    """Everything that reached the server, bodies and headers."""
    return json.dumps(server.requests)


# -- both providers ------------------------------------------------------------------


async def test_openai_reply_usage_and_wire_format(chat: LocalChatServer) -> None:
    recorder = Recorder()
    model = make_model(OpenAIChatModel, chat, usage_sink=recorder)
    result = await model.complete_json(
        user("Alice prefers tea."), schema=Facts, tenant_id="t-a", purpose="learn"
    )
    await model.aclose()

    assert result == Facts(facts=["Alice prefers tea"], confidence=0.9)
    [request] = chat.requests
    assert request["_path"] == "/v1/chat/completions"
    assert request["_headers"]["authorization"] == "Bearer sk-test-secret"
    assert request["model"] == "test-model"
    assert request["response_format"] == {"type": "json_object"}
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "system", "user"]
    assert '"confidence"' in request["messages"][0]["content"]  # the schema instruction
    [usage] = recorder.usage
    assert usage.tenant_id == "t-a" and usage.provider == "openai"
    assert usage.model == "test-model"
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0


async def test_anthropic_reply_usage_and_wire_format() -> None:
    seen: list[list[dict[str, str]]] = []

    def responder(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return "Here you go:\n```json\n" + GOOD + "\n```"

    recorder = Recorder()
    with LocalChatServer(responder) as server:
        model = make_model(AnthropicChatModel, server, usage_sink=recorder)
        result = await model.complete_json(
            [*user("Alice prefers tea."), ChatMessage("user", "Be brief.")],
            schema=Facts,
            tenant_id="t-b",
            purpose="consolidate",
        )
        await model.aclose()

    assert result.facts == ["Alice prefers tea"]
    [request] = server.requests
    assert request["_path"] == "/v1/messages"
    assert request["_headers"]["x-api-key"] == "sk-test-secret"
    assert request["_headers"]["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request["_headers"]
    assert request["max_tokens"] > 0
    assert "Extract facts." in request["system"]
    # Consecutive user turns are merged: the API wants alternating roles.
    assert [m["role"] for m in request["messages"]] == ["user"]
    assert seen[0][0]["role"] == "system"
    [usage] = recorder.usage
    assert (usage.provider, usage.tenant_id) == ("anthropic", "t-b")
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0


# -- structured output ---------------------------------------------------------------


async def test_invalid_json_is_repaired_once() -> None:
    def responder(messages: list[dict[str, str]]) -> str:
        repairing = any("not usable" in m["content"] for m in messages)
        return GOOD if repairing else "Sure! facts: Alice prefers tea"

    recorder = Recorder()
    with LocalChatServer(responder) as server:
        model = make_model(OpenAIChatModel, server, usage_sink=recorder)
        result = await model.complete_json(
            user("Alice prefers tea."), schema=Facts, tenant_id="t", purpose="learn"
        )
        await model.aclose()
    assert result.confidence == 0.9
    assert len(server.requests) == 2
    repair = server.requests[1]["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Sure! facts: Alice prefers tea"}
    assert "no JSON object" in repair[-1]["content"]
    assert len(recorder.usage) == 2  # the repair call is paid for too


async def test_invalid_json_twice_is_an_error() -> None:
    with LocalChatServer(lambda messages: "{not json") as server:
        model = make_model(OpenAIChatModel, server)
        with pytest.raises(LLMError, match="no valid reply"):
            await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="learn")
        await model.aclose()
    assert len(server.requests) == 2


async def test_schema_violation_is_an_error_that_names_the_field() -> None:
    wrong = json.dumps({"facts": "not a list", "confidence": "high", "secret": "SEKRIT"})
    with LocalChatServer(lambda messages: wrong) as server:
        model = make_model(AnthropicChatModel, server)
        with pytest.raises(LLMError) as caught:
            await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="learn")
        await model.aclose()
    message = str(caught.value)
    assert "facts" in message and "confidence" in message
    assert "not a list" not in message and "high" not in message  # never echoes values


async def test_a_json_array_is_not_an_object() -> None:
    with LocalChatServer(lambda messages: "[1, 2]") as server:
        model = make_model(OpenAIChatModel, server)
        with pytest.raises(LLMError, match="not an object"):
            await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="learn")
        await model.aclose()


# -- retries and timeouts ------------------------------------------------------------


@pytest.mark.parametrize("kind", [OpenAIChatModel, AnthropicChatModel])
async def test_server_errors_are_retried(chat: LocalChatServer, kind: type[HTTPChatModel]) -> None:
    chat.fail_next(1, 503)
    chat.fail_next(1, 429)
    model = make_model(kind, chat, max_retries=2)
    result = await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="p")
    await model.aclose()
    assert result.facts == ["Alice prefers tea"]
    assert len(chat.requests) == 3


async def test_gives_up_after_max_retries(chat: LocalChatServer) -> None:
    chat.fail_next(10, 502)
    model = make_model(OpenAIChatModel, chat, max_retries=2)
    with pytest.raises(LLMError, match=r"after 3 attempt\(s\): HTTP 502"):
        await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="p")
    await model.aclose()
    assert len(chat.requests) == 3


async def test_client_errors_are_not_retried(chat: LocalChatServer) -> None:
    chat.fail_next(1, 401)
    model = make_model(OpenAIChatModel, chat, max_retries=3)
    with pytest.raises(LLMError, match="HTTP 401"):
        await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="p")
    await model.aclose()
    assert len(chat.requests) == 1


async def test_retry_after_beyond_reason_gives_up_at_once(chat: LocalChatServer) -> None:
    chat.fail_next(1, 429)
    chat.retry_after = "3600"
    model = make_model(OpenAIChatModel, chat, max_retries=3)
    with pytest.raises(LLMError, match="retry after 3600s"):
        await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="p")
    await model.aclose()
    assert len(chat.requests) == 1


async def test_retry_after_within_reason_is_honoured(chat: LocalChatServer) -> None:
    chat.fail_next(1, 429)
    chat.retry_after = "1"
    model = make_model(OpenAIChatModel, chat, max_retries=1)
    started = time.monotonic()
    await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="p")
    waited = time.monotonic() - started
    await model.aclose()
    assert len(chat.requests) == 2
    assert waited >= 0.9  # the server's pause, not the 10 ms backoff


def test_retry_after_parsing() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0


async def test_connection_refused_is_retried_then_an_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = LLMConfig("openai", f"http://127.0.0.1:{port}/v1", "m", timeout_seconds=5)
    model = OpenAIChatModel(config, max_retries=2, **FAST)
    with pytest.raises(LLMError, match=r"after 3 attempt\(s\): connection failed"):
        await model.complete_json(user("x"), schema=Facts, tenant_id="t", purpose="p")
    await model.aclose()


async def test_timeout_fails_quickly(chat: LocalChatServer) -> None:
    chat.delay_seconds = 3.0
    model = make_model(AnthropicChatModel, chat)
    started = time.monotonic()
    with pytest.raises(LLMError, match="did not answer in time"):
        await model.complete_json(
            user("x"), schema=Facts, tenant_id="t", purpose="p", timeout_seconds=0.3
        )
    assert time.monotonic() - started < 2.0
    await model.aclose()


async def test_deadline_covers_the_retries(chat: LocalChatServer) -> None:
    chat.fail_next(10, 503)
    model = make_model(
        OpenAIChatModel, chat, max_retries=10, backoff_seconds=0.4, max_backoff_seconds=1.0
    )
    with pytest.raises(LLMError, match="deadline"):
        await model.complete_json(
            user("x"), schema=Facts, tenant_id="t", purpose="p", timeout_seconds=0.5
        )
    await model.aclose()
    assert len(chat.requests) < 10


# -- the privacy boundary ------------------------------------------------------------


@pytest.mark.parametrize("kind", [OpenAIChatModel, AnthropicChatModel])
async def test_credentials_and_personal_data_never_reach_the_provider(
    chat: LocalChatServer, kind: type[HTTPChatModel]
) -> None:
    model = make_model(kind, chat)
    messages = [
        ChatMessage("system", "Extract facts."),
        ChatMessage("user", f"Deploy with {AWS_KEY} tonight."),
        ChatMessage("user", f"Our key is {AWS_KEY}. Alice prefers tea."),
        ChatMessage("user", "Mail alice.smith@example.com about the launch."),
    ]
    await model.complete_json(messages, schema=Facts, tenant_id="t", purpose="learn")
    await model.aclose()
    wire = sent_text(chat)
    assert AWS_KEY not in wire
    assert "alice.smith@example.com" not in wire
    assert "Alice prefers tea." in wire  # the clean sentence of that message survives
    assert "launch" in wire  # redacted, not dropped


async def test_nothing_is_sent_when_every_message_is_dropped(chat: LocalChatServer) -> None:
    model = make_model(OpenAIChatModel, chat)
    with pytest.raises(LLMError, match="privacy boundary"):
        await model.complete_json(
            [ChatMessage("user", f"aws_access_key_id = {AWS_KEY}")],
            schema=Facts,
            tenant_id="t",
            purpose="learn",
        )
    await model.aclose()
    assert chat.requests == []


# -- tracing -------------------------------------------------------------------------


async def test_one_span_per_call_with_usage_attributes(chat: LocalChatServer) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    chat.fail_next(1)
    model = make_model(OpenAIChatModel, chat, tracer_provider=provider)
    await model.complete_json(user("x"), schema=Facts, tenant_id="t-span", purpose="learn")
    await model.aclose()
    [span] = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert span.name == "llm.learn"
    assert attributes["gen_ai.system"] == "openai"
    assert attributes["gen_ai.request.model"] == "test-model"
    assert attributes["engram.tenant"] == "t-span"
    assert attributes["gen_ai.usage.input_tokens"] > 0
    assert attributes["gen_ai.usage.output_tokens"] > 0
    assert [e.name for e in span.events] == ["llm.retry"]
    assert "sk-test-secret" not in repr(attributes)


# -- registry, per-tenant settings and usage in PostgreSQL ---------------------------


def llm_settings(settings: Settings, **llm: Any) -> Settings:
    return dataclasses.replace(settings, **llm)


def test_global_settings_are_checked() -> None:
    base = Settings()
    assert global_config(base) is None
    with pytest.raises(ValueError, match="llm_provider"):
        global_config(dataclasses.replace(base, llm_provider="gpt"))
    with pytest.raises(ValueError, match="llm_model"):
        global_config(dataclasses.replace(base, llm_provider="openai"))
    config = global_config(
        dataclasses.replace(base, llm_provider="Anthropic", llm_model="m", llm_api_key="k")
    )
    assert config == LLMConfig("anthropic", "", "m", "k", 30.0)
    assert "sekrit" not in repr(dataclasses.replace(base, llm_api_key="sekrit").redacted())
    assert dataclasses.replace(base, llm_api_key="sekrit").redacted()["llm_api_key"] == "***"


async def test_tenant_settings_beat_global_and_others_see_none(
    app: AppContext, settings: Settings, make_tenant: Any, chat: LocalChatServer
) -> None:
    a, b = await make_tenant(), await make_tenant()
    await set_tenant_llm_config(
        app.db, a.tenant_id, LLMConfig("openai", chat.url, "tenant-model", "sk-a")
    )
    assert await get_tenant_llm_config(app.db, a.tenant_id) == LLMConfig(
        "openai", chat.url, "tenant-model", "sk-a", 30.0
    )
    assert await get_tenant_llm_config(app.db, b.tenant_id) is None

    no_global = LLMRegistry(settings, app.db, model_options=FAST)
    own = await no_global.for_tenant(a.tenant_id)
    assert own is not None and (own.provider, own.model) == ("openai", "tenant-model")
    assert await no_global.for_tenant(b.tenant_id) is None  # A's settings are A's alone

    with_global = LLMRegistry(
        llm_settings(settings, llm_provider="anthropic", llm_url=chat.url, llm_model="global"),
        app.db,
        model_options=FAST,
    )
    own = await with_global.for_tenant(a.tenant_id)
    fallback = await with_global.for_tenant(b.tenant_id)
    assert own is not None and own.model == "tenant-model"
    assert fallback is not None and (fallback.provider, fallback.model) == ("anthropic", "global")

    # Cached, until a change is announced.
    await set_tenant_llm_config(app.db, a.tenant_id, None)
    assert (await with_global.for_tenant(a.tenant_id)) is own
    with_global.invalidate(a.tenant_id)
    after = await with_global.for_tenant(a.tenant_id)
    assert after is not None and after.model == "global"
    await no_global.close()
    await with_global.close()


async def test_usage_is_counted_per_tenant_and_reported_by_get_usage(
    app: AppContext, settings: Settings, make_tenant: Any, chat: LocalChatServer
) -> None:
    a, b = await make_tenant(), await make_tenant()
    registry = LLMRegistry(
        llm_settings(settings, llm_provider="anthropic", llm_url=chat.url, llm_model="g"),
        app.db,
        model_options=FAST,
    )
    await set_tenant_llm_config(app.db, a.tenant_id, LLMConfig("openai", chat.url, "m-a"))
    model_a = await registry.for_tenant(a.tenant_id)
    assert model_a is not None
    for _ in range(2):
        await model_a.complete_json(user("x"), schema=Facts, tenant_id=a.tenant_id, purpose="p")
    model_b = await registry.for_tenant(b.tenant_id)
    assert model_b is not None
    await model_b.complete_json(user("y"), schema=Facts, tenant_id=b.tenant_id, purpose="p")
    await registry.close()

    async with app.db.tenant_tx(a.tenant_id) as conn:
        rows_a = await llm_usage.usage_rows(conn, a.tenant_id)
        # RLS: A's transaction cannot read B's counters even when it asks for them.
        foreign = await llm_usage.usage_rows(conn, b.tenant_id)
    async with app.db.tenant_tx(b.tenant_id) as conn:
        rows_b = await llm_usage.usage_rows(conn, b.tenant_id)
    assert foreign == []
    assert [(r.provider, r.model, r.requests) for r in rows_a] == [("openai", "m-a", 2)]
    assert [(r.provider, r.model, r.requests) for r in rows_b] == [("anthropic", "g", 1)]
    tokens_a = rows_a[0].prompt_tokens + rows_a[0].completion_tokens
    tokens_b = rows_b[0].prompt_tokens + rows_b[0].completion_tokens

    usage_a = await a.admin.GetUsage(admin_pb2.GetUsageRequest(name=a.name))
    usage_b = await b.admin.GetUsage(admin_pb2.GetUsageRequest(name=b.name))
    assert dict(usage_a.llm_tokens) == {"openai": tokens_a}
    assert dict(usage_b.llm_tokens) == {"anthropic": tokens_b}


async def test_app_context_has_a_registry(app: AppContext) -> None:
    assert isinstance(app.llm, LLMRegistry)
    assert app.llm.global_config is None  # the test settings configure no LLM
