"""ENGRAM_ADDRESS takes the same forms in every client: host:port, http://host:port
(plaintext) and https://host:port (TLS). The Go (address_test.go), Java
(EngramClientTest) and TypeScript clients check the same forms."""

from __future__ import annotations

import asyncio
from typing import Any

import engram
import pytest
from engram import _auth


@pytest.mark.parametrize(
    ("address", "target", "tls"),
    [
        ("127.0.0.1:50051", "127.0.0.1:50051", None),
        ("http://127.0.0.1:50051", "127.0.0.1:50051", False),
        ("http://127.0.0.1:50051/", "127.0.0.1:50051", False),
        ("HTTPS://engram.example:443", "engram.example:443", True),
        ("dns:///engram.example:50051", "dns:///engram.example:50051", None),
        ("unix:///run/engram.sock", "unix:///run/engram.sock", None),
        # A URL without a port takes its scheme's, in every client.
        ("http://engram.internal", "engram.internal:80", False),
        ("https://engram.example/", "engram.example:443", True),
        ("http://[::1]", "[::1]:80", False),
        ("http://[::1]:50051", "[::1]:50051", False),
    ],
)
def test_the_address_forms(address: str, target: str, tls: bool | None) -> None:
    assert _auth.split_address(address) == (target, tls)


def test_an_address_with_a_path_is_refused_with_the_forms_to_use() -> None:
    with pytest.raises(ValueError, match=r"host:port, http://host:port \(plaintext\)"):
        engram.Client("http://127.0.0.1:50051/v1")


@pytest.mark.parametrize("address", ["grpc://127.0.0.1:50051", "tcp://127.0.0.1:50051"])
def test_an_unknown_scheme_is_refused_with_the_forms_to_use(address: str) -> None:
    # gRPC would take it for a host name and answer UNAVAILABLE on the first call.
    with pytest.raises(
        ValueError, match=r"unknown scheme .*; expected host:port, http://host:port"
    ):
        engram.Client(address)
    with pytest.raises(ValueError, match=r"unknown scheme"):
        engram.AsyncClient(address)


async def test_an_http_address_reaches_the_server(
    make_tenant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await make_tenant()
    monkeypatch.setenv("ENGRAM_ADDRESS", f"http://{t.address}")
    monkeypatch.setenv("ENGRAM_API_KEY", t.secret)

    def propose() -> str:
        with engram.Client() as client:
            assert client.address == t.address
            return client.propose("address/forms", "reached over http://", confidence=0.9).outcome

    assert await asyncio.to_thread(propose) == "ACCEPTED"
    async with engram.AsyncClient() as client:
        assert client.address == t.address
        found = await client.recall("reached", spaces=["address/forms"], read_your_writes=True)
        assert [hit.memory.content for hit in found.hits] == ["reached over http://"]


@pytest.mark.parametrize("command", [["memory", "list"], ["health"]])
def test_the_cli_refuses_an_unknown_scheme_once_naming_the_forms(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from engram_server.cli import main

    monkeypatch.setenv("ENGRAM_ADDRESS", "grpc://127.0.0.1:50051")
    assert main(command) == 1
    err = capsys.readouterr().err
    assert err.count("unknown scheme 'grpc'; expected host:port, http://host:port") == 1, err
