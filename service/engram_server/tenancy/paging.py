"""Opaque page tokens for the admin list RPCs.

A token is URL-safe base64 of a small JSON object: the query it belongs to and the
sort key of the last item served. Binding the query means a token from one list
(another tenant's keys, or with `show_revoked` flipped) is refused rather than
silently skipping items. Tokens are signed (`engram_server.page_tokens`): one the
server did not issue is refused before it is parsed.
"""

from __future__ import annotations

import json

from engram_server import page_tokens
from engram_server.errors import InvalidArgument

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def page_size(requested: int, field_path: str = "page_size") -> int:
    if requested < 0 or requested > MAX_PAGE_SIZE:
        raise InvalidArgument.field(field_path, f"must be between 0 and {MAX_PAGE_SIZE}")
    return requested or DEFAULT_PAGE_SIZE


def encode_token(query: str, after: list[str]) -> str:
    raw = json.dumps({"q": query, "a": after}, separators=(",", ":")).encode()
    return page_tokens.seal(raw)


def decode_token(token: str, query: str, field_path: str = "page_token") -> list[str] | None:
    """The sort key after which the page starts; None for the first page."""
    if not token:
        return None
    raw = page_tokens.unseal(token, field_path)
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise InvalidArgument.field(field_path, "is not a token from a previous response") from exc
    if not isinstance(data, dict) or data.get("q") != query:
        raise InvalidArgument.field(field_path, "does not belong to this list request")
    after = data.get("a")
    if not isinstance(after, list) or not after or not all(isinstance(x, str) for x in after):
        raise InvalidArgument.field(field_path, "is not a token from a previous response")
    return after
