"""What every Engram client is built on: the channel, the key, retries, request ids.

`ClientBase` (blocking) and `AsyncClientBase` (asyncio) own the connection. The
methods of each service live in mixin classes that inherit from them, one module
per service area, and `engram.Client` / `engram.AsyncClient` are the union of those
mixins. A new service's mixin looks like this:

    class PoolMethods(ClientBase):
        @rpc("engram.v1.PoolService.GetPool")
        def get_pool(self, name: str) -> t.Pool:
            request = pool_pb2.GetPoolRequest(name=name)
            stub = self._stub_of(pool_pb2_grpc.PoolServiceStub)
            return convert(self._unary(stub.GetPool, request, retryable=True))

and joins the client with one more base in `class Client(...)`. What a mixin may use:

- `self._unary(method, request, retryable=...)`: one call with the key attached,
  UNAVAILABLE retried (only when `retryable`: reads, and writes that carry a
  request id), failures raised as `engram.EngramError` subclasses;
- `self._pages(method, request, items)`: every item of a paged listing, lazily;
- `self._server_stream(method, request, convert)`: a server stream as an iterator
  of converted items, errors mapped, the call cancelled when the iterator is closed;
- `self._request_id(given)`: the caller's idempotency key or a fresh UUID;
- `self._stub_of(StubClass)`: the stub of a service on this client's channel;
- `self._transport`, `self._channel`: the same, lower down (`_transport.metadata`
  carries the key for calls made by hand).

`@rpc("engram.v1.Service.Method")` marks the method that wraps an RPC;
`tests/test_sdk_surface.py` checks that every RPC of every service has one on both
clients.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, Protocol, Self, TypeVar

import grpc
import grpc.aio

from engram import _auth, _requests, errors
from engram._retry import RetryPolicy
from engram._version import USER_AGENT
from engram.v1 import lifecycle_pb2_grpc, recall_pb2_grpc

_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")
_Item = TypeVar("_Item")
_Stub = TypeVar("_Stub")
_F = TypeVar("_F", bound=Callable[..., Any])

RPC_ATTRIBUTE = "__engram_rpc__"


def rpc(full_name: str) -> Callable[[_F], _F]:
    """Marks the SDK method that wraps the RPC `engram.v1.Service.Method`."""

    def mark(fn: _F) -> _F:
        setattr(fn, RPC_ATTRIBUTE, full_name)
        return fn

    return mark


class PageRequest(Protocol):
    page_token: str


class PageResponse(Protocol):
    @property
    def next_page_token(self) -> str: ...


_PReq = TypeVar("_PReq", bound=PageRequest)
_PResp = TypeVar("_PResp", bound=PageResponse)


class _Transport:
    """Calls with the key attached, errors mapped and UNAVAILABLE retried when safe."""

    def __init__(self, metadata: _auth.Metadata, timeout: float | None, retry: RetryPolicy):
        self.metadata = metadata
        self.timeout = timeout
        self.retry = retry

    def unary(
        self,
        method: grpc.UnaryUnaryMultiCallable[_Req, _Resp],
        request: _Req,
        *,
        retryable: bool,
    ) -> _Resp:
        attempt = 0
        while True:
            try:
                return method(request, timeout=self.timeout, metadata=self.metadata)
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                if self.retry.should_retry(error.code, retryable, attempt):
                    time.sleep(self.retry.delay(attempt))
                    attempt += 1
                    continue
                raise error from rpc_error

    def pages(
        self,
        method: grpc.UnaryUnaryMultiCallable[_PReq, _PResp],
        request: _PReq,
        items: Callable[[_PResp], Iterable[_Item]],
    ) -> Iterator[_Item]:
        """Every item of every page, fetching the next page only when it is needed."""
        while True:
            response = self.unary(method, request, retryable=True)
            yield from items(response)
            if not response.next_page_token:
                return
            request.page_token = response.next_page_token

    def server_stream(
        self,
        method: grpc.UnaryStreamMultiCallable[_Req, _Resp],
        request: _Req,
        convert: Callable[[_Resp], _Item],
    ) -> Iterator[_Item]:
        """The responses of a server stream, converted; no deadline, no resume."""
        call = method(request, metadata=self.metadata)
        try:
            for response in call:
                yield convert(response)
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
        finally:
            call.cancel()


class _AsyncTransport:
    """`_Transport` for grpc.aio: the same retries and error mapping, awaited."""

    def __init__(self, metadata: _auth.Metadata, timeout: float | None, retry: RetryPolicy):
        self.metadata = metadata
        self.timeout = timeout
        self.retry = retry

    async def unary(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[_Req, _Resp],
        request: _Req,
        *,
        retryable: bool,
    ) -> _Resp:
        attempt = 0
        while True:
            try:
                return await method(request, timeout=self.timeout, metadata=self.metadata)
            except grpc.RpcError as rpc_error:
                error = errors.from_rpc_error(rpc_error)
                if self.retry.should_retry(error.code, retryable, attempt):
                    await asyncio.sleep(self.retry.delay(attempt))
                    attempt += 1
                    continue
                raise error from rpc_error

    async def pages(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[_PReq, _PResp],
        request: _PReq,
        items: Callable[[_PResp], Iterable[_Item]],
    ) -> AsyncIterator[_Item]:
        while True:
            response = await self.unary(method, request, retryable=True)
            for item in items(response):
                yield item
            if not response.next_page_token:
                return
            request.page_token = response.next_page_token

    async def server_stream(
        self,
        method: grpc.aio.UnaryStreamMultiCallable[_Req, _Resp],
        request: _Req,
        convert: Callable[[_Resp], _Item],
    ) -> AsyncIterator[_Item]:
        call = method(request, metadata=self.metadata)
        try:
            async for response in call:
                yield convert(response)
        except grpc.RpcError as rpc_error:
            raise errors.from_rpc_error(rpc_error) from rpc_error
        finally:
            call.cancel()


class ClientBase:
    """The connection of a blocking client; see `engram.Client` for the arguments."""

    def __init__(
        self,
        address: str | None = None,
        api_key: str | None = None,
        *,
        secure: bool = False,
        timeout: float | None = 10.0,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.Channel | None = None,
        max_attempts: int = 3,
    ) -> None:
        self.address, scheme_tls = _auth.split_address(_auth.resolve_address(address))
        secure = secure or bool(scheme_tls)
        # How the channel is secured, for integrations that open an async client to
        # the same server (`engram.integrations.langgraph`).
        self._secure = secure
        self._credentials = credentials
        if channel is None:
            creds = _auth.channel_credentials(secure, credentials)
            options = _auth.channel_options(USER_AGENT)
            if creds is None:
                channel = grpc.insecure_channel(self.address, options=options)
            else:
                channel = grpc.secure_channel(self.address, creds, options=options)
            self._owns_channel = True
        else:
            self._owns_channel = False
        self._channel = channel
        self._transport = _Transport(
            _auth.auth_metadata(_auth.resolve_api_key(api_key)),
            timeout,
            RetryPolicy(max_attempts=max_attempts),
        )
        self._stub_cache: dict[type[Any], Any] = {}
        self._stub = self._stub_of(lifecycle_pb2_grpc.LifecycleServiceStub)
        self._recall = self._stub_of(recall_pb2_grpc.RecallServiceStub)

    @classmethod
    def _sharing(cls, parent: ClientBase) -> Self:
        """A client of another class on `parent`'s channel and transport (not owning it)."""
        client = cls.__new__(cls)
        client.address = parent.address
        client._secure = parent._secure
        client._credentials = parent._credentials
        client._owns_channel = False
        client._channel = parent._channel
        client._transport = parent._transport
        client._stub_cache = parent._stub_cache
        client._stub = parent._stub
        client._recall = parent._recall
        return client

    @property
    def channel(self) -> grpc.Channel:
        """The underlying channel, for calling RPCs by hand (add `_transport.metadata`)."""
        return self._channel

    def close(self) -> None:
        if self._owns_channel:
            self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(address={self.address!r})"

    # -- helpers for the service mixins -------------------------------------------

    def _stub_of(self, stub_class: Callable[[grpc.Channel], _Stub]) -> _Stub:
        """The stub of a service on this channel, made once."""
        stub: _Stub | None = self._stub_cache.get(stub_class)  # type: ignore[call-overload]
        if stub is None:
            stub = stub_class(self._channel)
            self._stub_cache[stub_class] = stub  # type: ignore[index]
        return stub

    def _unary(
        self,
        method: grpc.UnaryUnaryMultiCallable[_Req, _Resp],
        request: _Req,
        *,
        retryable: bool,
    ) -> _Resp:
        return self._transport.unary(method, request, retryable=retryable)

    def _pages(
        self,
        method: grpc.UnaryUnaryMultiCallable[_PReq, _PResp],
        request: _PReq,
        items: Callable[[_PResp], Iterable[_Item]],
    ) -> Iterator[_Item]:
        return self._transport.pages(method, request, items)

    def _server_stream(
        self,
        method: grpc.UnaryStreamMultiCallable[_Req, _Resp],
        request: _Req,
        convert: Callable[[_Resp], _Item],
    ) -> Iterator[_Item]:
        return self._transport.server_stream(method, request, convert)

    @staticmethod
    def _request_id(given: str | None) -> str:
        return _requests.request_id(given)


class AsyncClientBase:
    """The connection of an asyncio client; see `engram.AsyncClient`."""

    def __init__(
        self,
        address: str | None = None,
        api_key: str | None = None,
        *,
        secure: bool = False,
        timeout: float | None = 10.0,
        credentials: grpc.ChannelCredentials | None = None,
        channel: grpc.aio.Channel | None = None,
        max_attempts: int = 3,
    ) -> None:
        self.address, scheme_tls = _auth.split_address(_auth.resolve_address(address))
        secure = secure or bool(scheme_tls)
        if channel is None:
            creds = _auth.channel_credentials(secure, credentials)
            options = _auth.channel_options(USER_AGENT)
            if creds is None:
                channel = grpc.aio.insecure_channel(self.address, options=options)
            else:
                channel = grpc.aio.secure_channel(self.address, creds, options=options)
            self._owns_channel = True
        else:
            self._owns_channel = False
        self._channel = channel
        self._transport = _AsyncTransport(
            _auth.auth_metadata(_auth.resolve_api_key(api_key)),
            timeout,
            RetryPolicy(max_attempts=max_attempts),
        )
        self._stub_cache: dict[type[Any], Any] = {}
        self._stub: lifecycle_pb2_grpc.LifecycleServiceAsyncStub = self._stub_of(
            lifecycle_pb2_grpc.LifecycleServiceStub
        )
        self._recall: recall_pb2_grpc.RecallServiceAsyncStub = self._stub_of(
            recall_pb2_grpc.RecallServiceStub
        )

    @classmethod
    def _sharing(cls, parent: AsyncClientBase) -> Self:
        client = cls.__new__(cls)
        client.address = parent.address
        client._owns_channel = False
        client._channel = parent._channel
        client._transport = parent._transport
        client._stub_cache = parent._stub_cache
        client._stub = parent._stub
        client._recall = parent._recall
        return client

    @property
    def channel(self) -> grpc.aio.Channel:
        """The underlying channel, for calling RPCs by hand (add `_transport.metadata`)."""
        return self._channel

    async def close(self) -> None:
        if self._owns_channel:
            await self._channel.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(address={self.address!r})"

    # -- helpers for the service mixins -------------------------------------------

    def _stub_of(self, stub_class: type[Any]) -> Any:
        """The stub of a service on this channel. Generated stub classes are typed
        for sync channels; annotate the result with the `...AsyncStub` type of the
        generated `.pyi` (`stub: pool_pb2_grpc.PoolServiceAsyncStub = ...`)."""
        stub = self._stub_cache.get(stub_class)
        if stub is None:
            stub = self._stub_cache[stub_class] = stub_class(self._channel)
        return stub

    async def _unary(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[_Req, _Resp],
        request: _Req,
        *,
        retryable: bool,
    ) -> _Resp:
        return await self._transport.unary(method, request, retryable=retryable)

    def _pages(
        self,
        method: grpc.aio.UnaryUnaryMultiCallable[_PReq, _PResp],
        request: _PReq,
        items: Callable[[_PResp], Iterable[_Item]],
    ) -> AsyncIterator[_Item]:
        return self._transport.pages(method, request, items)

    def _server_stream(
        self,
        method: grpc.aio.UnaryStreamMultiCallable[_Req, _Resp],
        request: _Req,
        convert: Callable[[_Resp], _Item],
    ) -> AsyncIterator[_Item]:
        return self._transport.server_stream(method, request, convert)

    @staticmethod
    def _request_id(given: str | None) -> str:
        return _requests.request_id(given)
