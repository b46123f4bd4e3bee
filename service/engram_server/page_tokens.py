"""Signed page tokens, shared by every list RPC.

A page token is `<payload>.<mac>`: the URL-safe base64 payload each list method
defines (its position and request fingerprint) and an HMAC-SHA256 of it under the
server's page-token key. A token the server did not issue, or one altered by a
single bit, fails the MAC check and is refused before its payload is parsed, so
nothing a client forges can reach the position decoding or a query.

The key is process-wide: `configure` sets it at start-up from the configured
secret or the key stored in PostgreSQL (the same on every replica, so a token
from one replica is valid on another). Until then a random per-process key is
used, which is only right for a single process (unit tests).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from engram_server.errors import InvalidArgument

_MAC_BYTES = 16
_key = secrets.token_bytes(32)


def configure(key: bytes) -> None:
    """Sets the signing key (at least 32 bytes)."""
    global _key
    if len(key) < 32:
        raise ValueError("the page-token key needs at least 32 bytes")
    _key = bytes(key)


def key_from_secret(secret: str) -> bytes:
    """A 32-byte key derived from a configured secret string."""
    return hashlib.sha256(b"engram-page-tokens\0" + secret.encode()).digest()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode((text + "=" * (-len(text) % 4)).encode("ascii"))


def _mac(payload: str) -> bytes:
    return hmac.new(_key, payload.encode("ascii"), hashlib.sha256).digest()[:_MAC_BYTES]


def seal(raw: bytes) -> str:
    """The token for payload bytes `raw`."""
    payload = _b64(raw)
    return f"{payload}.{_b64(_mac(payload))}"


def unseal(token: str, field_path: str = "page_token") -> bytes:
    """The payload bytes of a token this server issued; INVALID_ARGUMENT otherwise."""
    refused = InvalidArgument.field(field_path, "not a page token issued by this method")
    payload, dot, mac_text = token.partition(".")
    if not dot or not token.isascii():
        raise refused
    try:
        mac = _unb64(mac_text)
        if not hmac.compare_digest(mac, _mac(payload)):
            raise refused
        return _unb64(payload)
    except (binascii.Error, ValueError) as exc:
        raise refused from exc
