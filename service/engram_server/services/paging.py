"""Opaque page tokens (AIP-158).

A token records where the previous page ended and a fingerprint of the request's
filters, so a token replayed with different filters is refused rather than
silently returning a wrong page. Tokens are signed (`engram_server.page_tokens`):
one the server did not issue is refused before it is parsed.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, TypeVar

from engram_server import page_tokens
from engram_server.errors import InvalidArgument

_R = TypeVar("_R")

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


def page_size(requested: int, field: str = "page_size") -> int:
    if requested < 0 or requested > MAX_PAGE_SIZE:
        raise InvalidArgument.field(field, f"must be between 0 and {MAX_PAGE_SIZE}")
    return requested or DEFAULT_PAGE_SIZE


def filter_fingerprint(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()[:16]


def encode_token(position: dict[str, Any], fingerprint: str) -> str:
    raw = json.dumps({"p": position, "f": fingerprint}, separators=(",", ":")).encode()
    return page_tokens.seal(raw)


def decode_token(token: str, fingerprint: str, field: str = "page_token") -> dict[str, Any] | None:
    if not token:
        return None
    raw = page_tokens.unseal(token, field)
    try:
        data = json.loads(raw)
        position = data["p"]
        stored_fingerprint = data["f"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise InvalidArgument.field(field, "not a page token issued by this method") from exc
    if not isinstance(position, dict):
        raise InvalidArgument.field(field, "not a page token issued by this method")
    if stored_fingerprint != fingerprint:
        raise InvalidArgument.field(field, "was issued for a request with different filters")
    return position


# Keyset pages over (create_time, id), newest first: the position is the last row's.


def time_id_position(token: str, fingerprint: str) -> tuple[datetime, uuid.UUID] | None:
    """Where the page of `token` starts, or None for the first page."""
    position = decode_token(token, fingerprint)
    if position is None:
        return None
    try:
        return datetime.fromisoformat(position["t"]), uuid.UUID(position["i"])
    except (KeyError, ValueError, TypeError) as exc:
        raise InvalidArgument.field("page_token", "not a page token issued by this method") from exc


def time_id_page(
    rows: Sequence[_R],
    size: int,
    fingerprint: str,
    key: Callable[[_R], tuple[datetime, uuid.UUID]],
) -> tuple[list[_R], str]:
    """The first `size` of `rows` (read with limit size + 1) and the token of the next
    page, "" when there is none."""
    if len(rows) <= size:
        return list(rows), ""
    page = list(rows[:size])
    when, ident = key(page[-1])
    return page, encode_token({"t": when.isoformat(), "i": str(ident)}, fingerprint)
