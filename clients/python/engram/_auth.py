"""Where to connect and how to authenticate, from arguments or the environment."""

from __future__ import annotations

import os
import re

import grpc

ADDRESS_ENV = "ENGRAM_ADDRESS"
API_KEY_ENV = "ENGRAM_API_KEY"
DEFAULT_ADDRESS = "127.0.0.1:50051"

Metadata = tuple[tuple[str, str], ...]


def resolve_address(address: str | None) -> str:
    """The explicit address, else `ENGRAM_ADDRESS`, else the server's default listen address."""
    return address or os.environ.get(ADDRESS_ENV) or DEFAULT_ADDRESS


ADDRESS_FORMS = "host:port, http://host:port (plaintext) or https://host:port (TLS)"


# gRPC's own target syntax (`dns:///host:port`, `unix:///path`, ...), which the
# clients built on gRPC's resolvers (Python, Go, Java) pass through unchanged.
GRPC_TARGET_SCHEMES = ("dns", "unix", "unix-abstract", "ipv4", "ipv6", "xds")


def split_address(address: str) -> tuple[str, bool | None]:
    """The gRPC target of an address, and whether its scheme asks for TLS.

    Every Engram client takes the same forms: `host:port`, `http://host:port` and
    `https://host:port` (None, False, True: plaintext unless told otherwise, plain,
    TLS). gRPC's own target syntax (`dns:///host:port`, `unix:/path`, ...) passes
    through unchanged. Any other scheme (`grpc://host:port`) is refused with the
    forms to use: gRPC would read it as a host name and fail to resolve it.
    """
    scheme, sep, rest = address.partition("://")
    if not sep or scheme.lower() in GRPC_TARGET_SCHEMES:
        return address, None
    if scheme.lower() not in ("http", "https"):
        raise ValueError(
            f"address {address!r}: unknown scheme {scheme!r}; expected {ADDRESS_FORMS}"
        )
    target = rest[:-1] if rest.endswith("/") else rest
    if not target or "/" in target:
        raise ValueError(f"address {address!r}: expected {ADDRESS_FORMS}, with no path")
    tls = scheme.lower() == "https"
    if not _PORT.search(target):
        # A URL's default port, as the TypeScript client has it; gRPC alone would
        # take 443 for http:// too.
        target += ":443" if tls else ":80"
    return target, tls


_PORT = re.compile(r":\d+$")


def resolve_api_key(api_key: str | None) -> str | None:
    """The explicit key, else `ENGRAM_API_KEY`, else None (calls go out unauthenticated)."""
    return api_key or os.environ.get(API_KEY_ENV) or None


def auth_metadata(api_key: str | None) -> Metadata:
    """Per-call metadata carrying the key.

    Metadata rather than call credentials: gRPC only attaches call credentials to
    TLS channels, and a local or in-cluster server is often reached in plaintext.
    """
    if not api_key:
        return ()
    return (("authorization", f"Bearer {api_key}"),)


def channel_credentials(
    secure: bool, credentials: grpc.ChannelCredentials | None
) -> grpc.ChannelCredentials | None:
    """TLS credentials for a secure channel (system roots unless given), None for plaintext."""
    if credentials is not None:
        return credentials
    return grpc.ssl_channel_credentials() if secure else None


def channel_options(user_agent: str) -> list[tuple[str, str | int]]:
    return [
        ("grpc.primary_user_agent", user_agent),
        # Watch streams idle for long stretches; keepalives notice a dead peer. Not
        # more often than every 5 minutes: gRPC servers by default answer more
        # frequent pings with GOAWAY ("too_many_pings").
        ("grpc.keepalive_time_ms", 300_000),
        ("grpc.keepalive_timeout_ms", 20_000),
    ]
