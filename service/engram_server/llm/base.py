"""What every HTTP chat provider shares: privacy, deadline, retries, JSON, usage.

`HTTPChatModel.complete_json` does, in order:

1. screens every message through the privacy boundary (a message carrying a
   credential is dropped, personal data is redacted) before anything is sent;
2. adds a system instruction with the JSON Schema of the expected reply;
3. posts to the provider, retrying connection errors, 429 and 5xx with capped
   exponential backoff and jitter (a `Retry-After` up to `max_retry_after_seconds`
   is honoured), all within one deadline (`timeout_seconds` covers every attempt
   and every pause, so a slow provider fails the call on time);
4. validates the reply with the pydantic schema, asking the model once to repair
   a reply that is not valid JSON for it;
5. records each reply's token usage for the tenant and on one span per call.

Subclasses only describe the wire format (`_request_body`, `_headers`, `_parse`).
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, TypeVar

import httpx
from opentelemetry import trace
from pydantic import BaseModel

from engram_server import privacy
from engram_server.llm import ChatMessage, LLMConfig, LLMError
from engram_server.llm.structured import (
    InvalidReply,
    parse_reply,
    repair_instruction,
    schema_instruction,
)

T = TypeVar("T", bound=BaseModel)

log = logging.getLogger(__name__)

# 408/425 are transient by definition; 529 is Anthropic's "overloaded".
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504, 529})


@dataclass(frozen=True)
class LLMUsage:
    """Token use of one provider reply, charged to a tenant."""

    tenant_id: str
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int


UsageSink = Callable[[LLMUsage], Awaitable[None]]


@dataclass(frozen=True)
class ProviderReply:
    text: str
    prompt_tokens: int
    completion_tokens: int


class _RetryableFailure(Exception):
    """One attempt failed in a way worth retrying; `retry_after` from the server."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """`Retry-After` as seconds from now: delta-seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


def screen_messages(messages: Sequence[ChatMessage]) -> tuple[list[ChatMessage], int]:
    """Messages as they may leave the process, and how many findings the screen made.

    A message whose screened text is None carried a credential and is not sent.
    """
    boundary = privacy.default_boundary()
    kept: list[ChatMessage] = []
    findings = 0
    for i, message in enumerate(messages):
        screened = boundary.screen_sentences(message.content, field=f"messages[{i}].content")
        findings += len(screened.findings)
        if screened.text is None:
            continue
        kept.append(ChatMessage(message.role, screened.text))
    return kept, findings


class HTTPChatModel(ABC):
    """A chat model behind an HTTP API; see the module docstring for the contract."""

    provider: str = ""
    default_base_url: ClassVar[str] = ""

    def __init__(
        self,
        config: LLMConfig,
        *,
        max_retries: int = 2,
        backoff_seconds: float = 0.5,
        max_backoff_seconds: float = 8.0,
        max_retry_after_seconds: float = 30.0,
        max_output_tokens: int = 4096,
        temperature: float | None = None,
        usage_sink: UsageSink | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        tracer_provider: trace.TracerProvider | None = None,
    ) -> None:
        if not config.model:
            raise ValueError(f"the {self.provider} provider needs a model name")
        if config.timeout_seconds <= 0 or max_retries < 0 or max_output_tokens < 1:
            raise ValueError("timeout and max_output_tokens must be positive, retries >= 0")
        self.config = config
        self.model = config.model
        self.base_url = (config.base_url or self.default_base_url).rstrip("/")
        self.max_retries = max_retries
        self.backoff_seconds = backoff_seconds
        self.max_backoff_seconds = max_backoff_seconds
        self.max_retry_after_seconds = max_retry_after_seconds
        self.max_output_tokens = max_output_tokens
        self.temperature = temperature
        self._usage_sink = usage_sink
        self._transport = transport
        self._tracer = trace.get_tracer("engram.llm", tracer_provider=tracer_provider)
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:  # never shows the API key
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r})"

    # -- wire format (subclasses) ---------------------------------------------

    @abstractmethod
    def _endpoint(self) -> str:
        """Provided by each wire format."""

    @abstractmethod
    def _headers(self) -> dict[str, str]:
        """Provided by each wire format."""

    @abstractmethod
    def _request_body(self, messages: Sequence[ChatMessage]) -> dict[str, Any]:
        """Provided by each wire format."""

    @abstractmethod
    def _parse(self, payload: Any) -> ProviderReply:
        """The reply text and usage; raises LLMError when the payload is malformed."""

    # -- the call ---------------------------------------------------------------

    async def complete_json(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: type[T],
        tenant_id: str,
        purpose: str,
        timeout_seconds: float | None = None,
    ) -> T:
        budget = timeout_seconds if timeout_seconds is not None else self.config.timeout_seconds
        deadline = time.monotonic() + max(budget, 0.001)
        with self._tracer.start_as_current_span(f"llm.{purpose or 'complete'}") as span:
            span.set_attribute("gen_ai.system", self.provider)
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.request.model", self.model)
            span.set_attribute("engram.tenant", tenant_id)
            span.set_attribute("engram.llm.purpose", purpose)
            # Detection is CPU work proportional to the text; the LLM call dwarfs
            # a thread hop, and the event loop keeps serving meanwhile.
            screened, findings = await asyncio.to_thread(screen_messages, messages)
            span.set_attribute("engram.llm.privacy_findings", findings)
            if not any(m.role != "system" for m in screened):
                raise LLMError("nothing left to send: the privacy boundary dropped every message")
            # Added after screening: it is Engram's own text (the reply schema).
            conversation = [ChatMessage("system", schema_instruction(schema)), *screened]
            totals = [0, 0, 0]  # replies, prompt tokens, completion tokens
            try:
                reply = await self._exchange(conversation, deadline, tenant_id, totals)
                try:
                    result = parse_reply(reply, schema)
                except InvalidReply as first:
                    span.add_event("llm.repair", {"reason": str(first)})
                    repair = [
                        ChatMessage("assistant", reply),
                        ChatMessage("user", repair_instruction(str(first))),
                    ]
                    # The model's own reply goes back out, so it is screened too.
                    repair_screened, _ = await asyncio.to_thread(screen_messages, repair)
                    reply = await self._exchange(
                        [*conversation, *repair_screened], deadline, tenant_id, totals
                    )
                    try:
                        result = parse_reply(reply, schema)
                    except InvalidReply as second:
                        raise LLMError(
                            f"{self.provider} model {self.model} gave no valid reply for "
                            f"{purpose or 'the request'}: {second}"
                        ) from None
            except LLMError as exc:
                span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)))
                raise
            finally:
                span.set_attribute("engram.llm.replies", totals[0])
                span.set_attribute("gen_ai.usage.input_tokens", totals[1])
                span.set_attribute("gen_ai.usage.output_tokens", totals[2])
            return result

    async def _exchange(
        self,
        messages: Sequence[ChatMessage],
        deadline: float,
        tenant_id: str,
        totals: list[int],
    ) -> str:
        """One successful reply (after retries), its usage recorded."""
        reply = await self._post_with_retries(self._request_body(messages), deadline)
        totals[0] += 1
        totals[1] += reply.prompt_tokens
        totals[2] += reply.completion_tokens
        await self._record(tenant_id, reply)
        return reply.text

    async def _record(self, tenant_id: str, reply: ProviderReply) -> None:
        if self._usage_sink is None:
            return
        usage = LLMUsage(
            tenant_id, self.provider, self.model, reply.prompt_tokens, reply.completion_tokens
        )
        try:
            await self._usage_sink(usage)
        except Exception:
            # The reply is paid for and valid; failing the caller's work because
            # the counter could not be written would waste it.
            log.warning("could not record LLM usage for tenant %s", tenant_id, exc_info=True)

    async def _post_with_retries(self, body: dict[str, Any], deadline: float) -> ProviderReply:
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._timed_out()
            try:
                return await self._post_once(body, remaining)
            except _RetryableFailure as failure:
                if attempt >= self.max_retries:
                    raise LLMError(
                        f"{self.provider} request failed after {attempt + 1} attempt(s): "
                        f"{failure.reason}"
                    ) from None
                pause = min(self.max_backoff_seconds, self.backoff_seconds * 2**attempt)
                pause *= random.uniform(0.5, 1.0)
                if failure.retry_after is not None:
                    if failure.retry_after > self.max_retry_after_seconds:
                        raise LLMError(
                            f"{self.provider} asked to retry after {failure.retry_after:.0f}s "
                            f"({failure.reason}); giving up"
                        ) from None
                    pause = max(pause, failure.retry_after)
                if time.monotonic() + pause >= deadline:
                    raise LLMError(
                        f"{self.provider} request failed ({failure.reason}) and the call's "
                        "deadline leaves no time to retry"
                    ) from None
                span = trace.get_current_span()
                span.add_event("llm.retry", {"reason": failure.reason, "pause_s": pause})
                await asyncio.sleep(pause)
                attempt += 1

    def _timed_out(self) -> LLMError:
        return LLMError(
            f"{self.provider} model {self.model} did not answer in time "
            "(the call's deadline passed)"
        )

    async def _post_once(self, body: dict[str, Any], remaining: float) -> ProviderReply:
        client = self._http()
        timeout = httpx.Timeout(remaining, connect=min(remaining, 10.0))
        try:
            async with asyncio.timeout(remaining):
                response = await client.post(self._endpoint(), json=body, timeout=timeout)
        except (TimeoutError, httpx.TimeoutException) as exc:
            if isinstance(exc, httpx.ConnectTimeout):
                raise _RetryableFailure("connection timed out") from None
            raise self._timed_out() from None
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            raise _RetryableFailure(f"connection failed ({type(exc).__name__})") from None
        except httpx.HTTPError as exc:
            raise LLMError(f"{self.provider} request failed ({type(exc).__name__})") from None
        if response.status_code in RETRYABLE_STATUS:
            raise _RetryableFailure(
                f"HTTP {response.status_code}",
                retry_after_seconds(response.headers.get("retry-after")),
            )
        if response.status_code >= 400:
            raise LLMError(
                f"{self.provider} refused the request: HTTP {response.status_code}"
                f"{_error_code(response)}"
            )
        try:
            payload = response.json()
        except ValueError:
            raise LLMError(f"{self.provider} replied with a body that is not JSON") from None
        return self._parse(payload)

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            headers = {"Content-Type": "application/json", **self._headers()}
            self._client = httpx.AsyncClient(headers=headers, transport=self._transport)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _error_code(response: httpx.Response) -> str:
    """The provider's error type/code, if any: safe to show (unlike its message,
    which may quote the request)."""
    try:
        error = response.json().get("error")
    except (ValueError, AttributeError):
        return ""
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        if isinstance(code, str) and code:
            return f" ({code[:64]})"
    return ""


def token_count(value: Any) -> int:
    """A usage counter from a provider payload (missing or odd values count 0)."""
    return value if isinstance(value, int) and value >= 0 else 0
