"""`engram.integrations.langgraph.EngramStore` against the live server: every
BaseStore operation (put, get, search with and without a query, filters, paging,
delete, list_namespaces with prefix/suffix/depth, batch) through the sync and the
async API, namespaces with any label, and tenant isolation. (langgraph ships no
conformance suite for stores, so this is the test of every operation.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langgraph")

import engram
from engram.integrations.langgraph import EngramStore, decode_label, encode_label
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)


def test_labels_round_trip_through_space_segments() -> None:
    for label in ("users", "team a", "été", "a/b", "x:y_z-1", "🙂"):
        encoded = encode_label(label)
        assert all(ch.isalnum() or ch in "._:-" for ch in encoded), encoded
        assert decode_label(encoded) == label


def _every_sync_operation(store: EngramStore) -> None:
    alice = ("users", "alice")
    store.put(alice, "prefs", {"language": "Go", "editor": "vim", "level": 3})
    item = store.get(alice, "prefs")
    assert isinstance(item, Item) and item.key == "prefs" and item.namespace == alice
    assert item.value == {"language": "Go", "editor": "vim", "level": 3}
    assert isinstance(item.value["level"], int)
    assert item.created_at.tzinfo is not None and item.updated_at >= item.created_at

    # A put of an existing key replaces it.
    store.put(alice, "prefs", {"language": "Rust", "editor": "vim", "level": 4})
    assert store.get(alice, "prefs").value["language"] == "Rust"  # type: ignore[union-attr]
    store.put(alice, "bio", {"text": "Alice leads the payments team"})
    store.put(("users", "bob"), "prefs", {"language": "Go", "editor": "emacs", "level": 1})
    store.put(("users", "team a", "été"), "note", {"text": "Standups are at nine"})
    assert store.get(alice, "missing") is None

    listed = store.search(("users",))
    assert sorted((i.namespace, i.key) for i in listed) == [
        (("users", "alice"), "bio"),
        (("users", "alice"), "prefs"),
        (("users", "bob"), "prefs"),
        (("users", "team a", "été"), "note"),
    ]
    assert all(isinstance(i, SearchItem) and i.score is None for i in listed)
    assert [i.key for i in store.search(alice)] == ["bio", "prefs"]  # newest first
    assert len(store.search(("users",), limit=2)) == 2
    assert len(store.search(("users",), limit=2, offset=3)) == 1

    found = store.search(("users",), query="who leads the payments team?")
    assert found[0].key == "bio" and found[0].namespace == alice
    assert found[0].score is not None and found[0].score > 0
    by_filter = store.search(("users",), filter={"editor": "vim"})
    assert [(i.namespace, i.key) for i in by_filter] == [(alice, "prefs")]
    assert [i.namespace for i in store.search(("users",), filter={"level": {"$lt": 2}})] == [
        ("users", "bob")
    ]
    assert store.search(("users",), query="programming language", filter={"language": "Go"})[
        0
    ].namespace == ("users", "bob")

    assert store.list_namespaces() == [
        ("users", "alice"),
        ("users", "bob"),
        ("users", "team a", "été"),
    ]
    assert store.list_namespaces(max_depth=1) == [("users",)]
    assert store.list_namespaces(prefix=("users", "team a")) == [("users", "team a", "été")]
    assert store.list_namespaces(suffix=("bob",)) == [("users", "bob")]
    assert store.list_namespaces(prefix=("users", "*"), limit=1, offset=1) == [("users", "bob")]

    store.delete(alice, "bio")
    assert store.get(alice, "bio") is None
    assert [i.key for i in store.search(alice)] == ["prefs"]
    store.delete(alice, "never-there")  # deleting a missing key is a no-op

    results = store.batch(
        [
            PutOp(("batch",), "k1", {"v": 1}),
            GetOp(("batch",), "k1"),
            SearchOp(("batch",)),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("batch",)),)),
            PutOp(("batch",), "k1", None),
            GetOp(("batch",), "k1"),
        ]
    )
    assert results[0] is None and results[1].value == {"v": 1}  # type: ignore[union-attr]
    assert [i.key for i in results[2]] == ["k1"]  # type: ignore[union-attr]
    assert results[3] == [("batch",)] and results[5] is None

    with pytest.raises(InvalidNamespaceError):
        store.put(("users", "a.b"), "k", {"v": 1})
    with pytest.raises(engram.InvalidArgument):
        store.put(("users",), "k", {"when": {1, 2}})


async def test_every_store_operation_sync(make_tenant: Any) -> None:
    tenant = await make_tenant()
    store = EngramStore(address=tenant.address, api_key=tenant.secret)
    try:
        await asyncio.to_thread(_every_sync_operation, store)
    finally:
        store.close()


async def test_every_store_operation_async(make_tenant: Any) -> None:
    tenant = await make_tenant()
    store = EngramStore(address=tenant.address, api_key=tenant.secret, space="apps/graph")
    try:
        ns = ("agents", "planner")
        await store.aput(ns, "goal", {"text": "Ship the billing service by Friday"})
        await store.aput(ns, "risk", {"text": "The payment provider rate-limits refunds"})
        item = await store.aget(ns, "goal")
        assert item is not None and item.value == {"text": "Ship the billing service by Friday"}
        found = await store.asearch(("agents",), query="what limits refunds?", limit=1)
        assert [i.key for i in found] == ["risk"]
        assert [i.key for i in await store.asearch(ns, offset=1)] == ["goal"]
        assert await store.alist_namespaces() == [ns]
        await store.adelete(ns, "risk")
        assert await store.aget(ns, "risk") is None
        results = await store.abatch([GetOp(ns, "goal"), SearchOp(ns, filter={"text": "x"})])
        assert results[0] is not None and results[1] == []
        async with engram.AsyncClient(tenant.address, tenant.secret) as client:
            live = client.list(space="apps/graph/agents/planner", statuses=["active"])
            assert [m.attributes["langgraph_key"] async for m in live] == ["goal"]
            retracted = client.list(space="apps/graph/agents/planner", statuses=["retracted"])
            assert [m.retraction_reason async for m in retracted] == [
                "deleted through the LangGraph store"
            ]
    finally:
        await store.aclose()


async def test_another_tenant_sees_nothing(make_tenant: Any) -> None:
    owner, other = await make_tenant(), await make_tenant()
    mine = EngramStore(address=owner.address, api_key=owner.secret)
    theirs = EngramStore(address=other.address, api_key=other.secret)
    try:
        await mine.aput(("shared",), "k", {"secret": "owner only"})
        assert await theirs.aget(("shared",), "k") is None
        assert await theirs.asearch(("shared",), query="owner only") == []
        assert await theirs.alist_namespaces() == []
    finally:
        await mine.aclose()
        await theirs.aclose()


async def test_the_async_api_connects_as_securely_as_the_given_client(make_tenant: Any) -> None:
    tenant = await make_tenant()
    # The test server speaks plaintext: a client that insists on TLS cannot reach it,
    # and neither may the async client the store makes from it (it would otherwise
    # send the API key without TLS).
    client = engram.Client(tenant.address, tenant.secret, secure=True, max_attempts=1)
    store = EngramStore(client=client)
    try:
        with pytest.raises(engram.Unavailable):
            await asyncio.to_thread(store.get, ("users",), "k")
        with pytest.raises(engram.Unavailable):
            await store.aget(("users",), "k")
    finally:
        await store.aclose()
        client.close()


async def test_the_async_api_keeps_a_client_built_on_its_own_channel(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client's address comes from its channel: the async API must use that
    channel, not open one to the default address (and send the key there)."""
    import grpc

    monkeypatch.delenv("ENGRAM_ADDRESS", raising=False)
    tenant = await make_tenant()
    channel = grpc.insecure_channel(tenant.address)
    client = engram.Client(api_key=tenant.secret, channel=channel, max_attempts=1)
    assert client.address != tenant.address  # nothing else tells where it connects
    store = EngramStore(client=client)
    try:
        await store.aput(("users",), "lang", {"text": "Answers in French"})
        item = await store.aget(("users",), "lang")
        assert item is not None and item.value["text"] == "Answers in French"
        assert (await asyncio.to_thread(store.get, ("users",), "lang")) is not None
    finally:
        await store.aclose()
        client.close()
        channel.close()


async def test_the_async_client_keeps_the_deadline_and_attempts(make_tenant: Any) -> None:
    tenant = await make_tenant()
    client = engram.Client(tenant.address, tenant.secret, timeout=2.5, max_attempts=5)
    store = EngramStore(client=client)
    try:
        await store.aput(("users",), "lang", {"text": "Answers in French"})
        made = store._async_client()
        assert made._transport.timeout == 2.5
        assert made._transport.retry.max_attempts == 5
    finally:
        await store.aclose()
        client.close()
