"""A LangGraph `BaseStore` backed by Engram: switch a LangGraph application's
long-term memory to Engram by changing one constructor.

    from engram.integrations.langgraph import EngramStore

    store = EngramStore()            # was: InMemoryStore(); ENGRAM_ADDRESS / ENGRAM_API_KEY
    graph = builder.compile(store=store)

How LangGraph's model maps onto Engram:

- A namespace is a space under the store's root space: `("users", "42")` is
  `langgraph/users/42`. Labels keep `[A-Za-z0-9_:-]` as they are; any other
  character is written as `.xx` (its UTF-8 bytes in hex), which LangGraph labels
  cannot clash with since they never contain a period.
- An item is one ACTIVE memory: its value is the memory's structured content, its
  key an attribute, and its slot key (`langgraph::<hash of the key>`) makes a put
  of an existing key supersede the previous version atomically, so the audit log
  and `ListMemoryRevisions`-style history keep every version. The memory's text
  (what recall searches) is the key and the value's text: the fields named by
  `index` (the store's `index={"fields": [...]}` or a put's `index=`), else the whole
  value as JSON; `index=False` leaves only the key.
- `delete` retracts the memory (with a reason; the audit log keeps it).
- `search` with a `query` is Engram's hybrid recall (dense + BM25, with its
  ranking) over the namespace prefix and every namespace below it; without one it
  lists the items, most recently updated first. `filter` has InMemoryStore's
  semantics (equality, nested mappings, `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`).
- `list_namespaces` reads the live items under the root (a full scan: there is no
  namespace index to ask).

Values round-trip through `google.protobuf.Struct`, so numbers come back as
floats; integral ones are returned as ints. `created_at` is when the current
version was written. TTLs are not supported (`supports_ttl` is False). Needs the
`langgraph` extra: `pip install 'engram-grpc[langgraph]'`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import grpc
from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)
from langgraph.store.base.embed import get_text_at_path
from langgraph.store.memory import _compare_values, _does_match

import engram
from engram import errors

KEY_ATTRIBUTE = "langgraph_key"
DELETE_REASON = "deleted through the LangGraph store"
_SAFE = re.compile(r"[A-Za-z0-9_:-]")
_ESCAPED = re.compile(r"(?:\.[0-9a-f]{2})+")
# Recall answers at most 100 hits.
_MAX_RECALL = 100


def encode_label(label: str) -> str:
    return "".join(
        ch if _SAFE.fullmatch(ch) else "".join(f".{b:02x}" for b in ch.encode()) for ch in label
    )


def decode_label(segment: str) -> str:
    return _ESCAPED.sub(lambda m: bytes.fromhex(m.group(0).replace(".", "")).decode(), segment)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:40]


def _numbers(value: Any) -> Any:
    """Struct numbers are doubles: give back integral ones as ints."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return value


class EngramStore(BaseStore):
    """LangGraph's store interface over an Engram server.

    `EngramStore()` connects with `ENGRAM_ADDRESS` / `ENGRAM_API_KEY`; pass
    `address=`/`api_key=`, or a ready `client=` (`engram.Client`) for the sync API.
    The async API (`aget`, `asearch`... and graphs run with `ainvoke`) makes its own
    `engram.AsyncClient` on first use, with the given client's address, key, TLS,
    credentials, timeout and attempts; a client built on a channel of its own
    (`engram.Client(channel=...)`), whose target and credentials cannot be read
    back, is used as it is, its calls run in a worker thread. `space` is the root
    space of every namespace.
    `read_your_writes` (default on) makes a search see every earlier put, as
    LangGraph expects; turn it off to skip waiting for the index.
    """

    supports_ttl = False

    def __init__(
        self,
        client: engram.Client | None = None,
        *,
        address: str | None = None,
        api_key: str | None = None,
        space: str = "langgraph",
        index: IndexConfig | None = None,
        read_your_writes: bool = True,
    ) -> None:
        self._address = address
        self._api_key = api_key
        self._client = client
        self._owns_client = client is None
        self._aclient: engram.AsyncClient | None = None
        self._aclient_loop: asyncio.AbstractEventLoop | None = None
        self.root = space.strip("/")
        fields = (index or {}).get("fields")
        self.index_fields: list[str] | None = list(fields) if fields else None
        self.read_your_writes = read_your_writes

    # -- connection ---------------------------------------------------------------

    @property
    def client(self) -> engram.Client:
        if self._client is None:
            self._client = engram.Client(self._address, self._api_key)
        return self._client

    def _async_client(self) -> engram.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._aclient is None or self._aclient_loop is not loop:
            # A grpc.aio channel belongs to the loop it was made on.
            if self._client is not None and not self._owns_client:
                key = dict(self._client._transport.metadata).get("authorization", "")
                address: str | None = self._client.address
                api_key = key.removeprefix("Bearer ") or None
                # As the given client: TLS and its credentials, deadline and retries.
                secure, credentials = self._client._secure, self._client._credentials
                timeout = self._client._transport.timeout
                attempts = self._client._transport.retry.max_attempts
            else:
                address, api_key = self._address, self._api_key
                secure, credentials, timeout, attempts = False, None, 10.0, 3
            self._aclient = engram.AsyncClient(
                address,
                api_key,
                secure=secure,
                credentials=credentials,
                timeout=timeout,
                max_attempts=attempts,
            )
            self._aclient_loop = loop
        return self._aclient

    def close(self) -> None:
        if self._client is not None and self._owns_client:
            self._client.close()

    async def aclose(self) -> None:
        if self._aclient is not None:
            await self._aclient.close()
            self._aclient = None
        self.close()

    # -- mapping ------------------------------------------------------------------

    def space_of(self, namespace: tuple[str, ...]) -> str:
        return "/".join([self.root, *(encode_label(label) for label in namespace)])

    def namespace_of(self, space: str) -> tuple[str, ...]:
        rest = space.removeprefix(self.root).strip("/")
        return tuple(decode_label(s) for s in rest.split("/")) if rest else ()

    def _text(self, key: str, value: Mapping[str, Any], index: Any) -> str:
        fields = self.index_fields if index is None else index
        if fields is False:
            return key
        if fields:
            parts = [t for field in fields for t in get_text_at_path(dict(value), field)]
            return f"{key}: {' '.join(parts)}" if parts else key
        return f"{key}: {json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)}"

    def _proposal(self, op: PutOp) -> dict[str, Any]:
        assert op.value is not None
        digest = _digest(op.key)
        return {
            "space": self.space_of(op.namespace),
            "content": self._text(op.key, op.value, op.index),
            "structured": dict(op.value),
            "slot_key": f"langgraph::{digest}",
            "tags": [f"lg-key:{digest}"],
            "attributes": {KEY_ATTRIBUTE: op.key},
            "source": "langgraph",
        }

    def _lookup(self, namespace: tuple[str, ...], key: str) -> dict[str, Any]:
        return {
            "space": self.space_of(namespace),
            "statuses": ["active"],
            "tags": [f"lg-key:{_digest(key)}"],
            "page_size": 1,
        }

    def _item(self, memory: engram.Memory, score: float | None = None) -> SearchItem:
        created = memory.create_time or datetime.now(UTC)
        return SearchItem(
            namespace=self.namespace_of(memory.space),
            key=memory.attributes[KEY_ATTRIBUTE],
            value=_numbers(memory.structured_content or {}),
            created_at=created,
            updated_at=memory.update_time or created,
            score=score,
        )

    @staticmethod
    def _plain(item: SearchItem) -> Item:
        return Item(
            value=item.value,
            key=item.key,
            namespace=item.namespace,
            created_at=item.created_at,
            updated_at=item.updated_at,
        )

    @staticmethod
    def _check(result: engram.ProposalResult, op: PutOp) -> None:
        if result.rejected:
            reasons = "; ".join(f"{f.validator}: {f.message}" for f in result.failures)
            raise errors.FailedPrecondition(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"Engram's policy rejected the item {op.key!r}: {reasons}",
            )

    def _matches(self, memory: engram.Memory, op: SearchOp) -> bool:
        if KEY_ATTRIBUTE not in memory.attributes:
            return False
        value = _numbers(memory.structured_content or {})
        try:
            return all(_compare_values(value.get(k), v) for k, v in (op.filter or {}).items())
        except TypeError:
            return False  # an order comparison with a missing or non-numeric value
        except ValueError as exc:
            raise errors.invalid_argument("filter", str(exc)) from None

    def _recall_options(self, op: SearchOp) -> dict[str, Any]:
        wanted = op.offset + op.limit if not op.filter else _MAX_RECALL
        return {
            "include_subspaces": True,
            "k": max(1, min(_MAX_RECALL, wanted)),
            "read_your_writes": self.read_your_writes,
        }

    def _list_options(self, prefix: tuple[str, ...]) -> dict[str, Any]:
        return {
            "space": self.space_of(prefix),
            "include_subspaces": True,
            "statuses": ["active"],
            "order": "update_time_desc",
        }

    @staticmethod
    def _page(items: Iterable[SearchItem], op: SearchOp) -> list[SearchItem]:
        out: list[SearchItem] = []
        for index, item in enumerate(items):
            if index < op.offset:
                continue
            if len(out) >= op.limit:
                break
            out.append(item)
        return out

    def _namespaces(
        self, memories: Iterable[engram.Memory], op: ListNamespacesOp
    ) -> list[tuple[str, ...]]:
        found = {self.namespace_of(m.space) for m in memories if KEY_ATTRIBUTE in m.attributes}
        found.discard(())
        namespaces = [
            ns
            for ns in found
            if all(_does_match(condition, ns) for condition in op.match_conditions or ())
        ]
        if op.max_depth is not None:
            namespaces = sorted({ns[: op.max_depth] for ns in namespaces})
        else:
            namespaces = sorted(namespaces)
        return namespaces[op.offset : op.offset + op.limit]

    # -- BaseStore ----------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._run(op) for op in ops]

    def _run(self, op: Op) -> Result:
        validate_op_namespace(op)
        client = self.client
        if isinstance(op, GetOp):
            found = next(iter(client.list(**self._lookup(op.namespace, op.key))), None)
            return self._plain(self._item(found)) if found else None
        if isinstance(op, PutOp):
            if op.value is None:
                current = next(iter(client.list(**self._lookup(op.namespace, op.key))), None)
                if current is not None:
                    client.retract(current.name, DELETE_REASON)
                return None
            self._check(client.propose(**self._proposal(op)), op)
            return None
        if isinstance(op, SearchOp):
            if op.query:
                recalled = client.recall(
                    op.query, self.space_of(op.namespace_prefix), **self._recall_options(op)
                )
                hits: Iterator[SearchItem] = (
                    self._item(h.memory, h.score) for h in recalled if self._matches(h.memory, op)
                )
            else:
                hits = (
                    self._item(m)
                    for m in client.list(**self._list_options(op.namespace_prefix))
                    if self._matches(m, op)
                )
            return self._page(hits, op)
        if isinstance(op, ListNamespacesOp):
            memories = client.list(**self._list_options(()))
            return self._namespaces(memories, op)
        raise errors.invalid_argument("op", f"unknown store operation {type(op).__name__}")

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        if self._client is not None and not self._owns_client and not self._client._owns_channel:
            # A channel the caller built (its own target, TLS, interceptors...) has no
            # asyncio twin to open: its client, and so every setting, serves as is.
            return await asyncio.to_thread(self.batch, list(ops))
        return [await self._arun(op) for op in ops]

    async def _arun(self, op: Op) -> Result:
        validate_op_namespace(op)
        client = self._async_client()
        if isinstance(op, GetOp):
            found = await anext(aiter(client.list(**self._lookup(op.namespace, op.key))), None)
            return self._plain(self._item(found)) if found else None
        if isinstance(op, PutOp):
            if op.value is None:
                current = await anext(
                    aiter(client.list(**self._lookup(op.namespace, op.key))), None
                )
                if current is not None:
                    await client.retract(current.name, DELETE_REASON)
                return None
            self._check(await client.propose(**self._proposal(op)), op)
            return None
        if isinstance(op, SearchOp):
            if op.query:
                recalled = await client.recall(
                    op.query, self.space_of(op.namespace_prefix), **self._recall_options(op)
                )
                return self._page(
                    (
                        self._item(h.memory, h.score)
                        for h in recalled
                        if self._matches(h.memory, op)
                    ),
                    op,
                )
            out: list[SearchItem] = []
            skipped = 0
            async for memory in client.list(**self._list_options(op.namespace_prefix)):
                if not self._matches(memory, op):
                    continue
                if skipped < op.offset:
                    skipped += 1
                    continue
                if len(out) >= op.limit:
                    break
                out.append(self._item(memory))
            return out
        if isinstance(op, ListNamespacesOp):
            memories = [m async for m in client.list(**self._list_options(()))]
            return self._namespaces(memories, op)
        raise errors.invalid_argument("op", f"unknown store operation {type(op).__name__}")
