"""Structured replies: find the JSON object in a model's text and validate it.

Models asked for JSON still wrap it in code fences or a sentence now and then, so
the parser takes the first complete JSON object in the text. Reasons for
rejection name the JSON error or the schema path, never the rejected values: they
end up in errors shown to callers and in the repair prompt.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_MAX_REPORTED_ERRORS = 5


class InvalidReply(ValueError):
    """The reply is not a JSON object valid for the schema; `str()` says why."""


def schema_instruction(schema: type[BaseModel]) -> str:
    """The system instruction that asks for a JSON object matching `schema`."""
    return (
        "Reply with one JSON object and nothing else: no prose, no code fences. "
        "The object must be valid for this JSON Schema:\n"
        + json.dumps(schema.model_json_schema(), separators=(",", ":"))
    )


def repair_instruction(reason: str) -> str:
    return (
        f"Your previous reply was not usable: {reason}. Reply again with only the "
        "corrected JSON object."
    )


def _first_object(text: str) -> Any:
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    start = stripped.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(stripped, start)
            return value
        except ValueError:
            start = stripped.find("{", start + 1)
    raise InvalidReply("the reply contains no JSON object")


def parse_reply(text: str, schema: type[T]) -> T:
    """The reply as a `schema` instance, or InvalidReply."""
    value = _first_object(text)
    if not isinstance(value, dict):
        raise InvalidReply("the reply is JSON but not an object")
    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or '(root)'}: {error['msg']}"
            for error in exc.errors()[:_MAX_REPORTED_ERRORS]
        ]
        more = exc.error_count() - len(problems)
        suffix = f" (and {more} more)" if more > 0 else ""
        raise InvalidReply(
            f"the JSON does not match the schema: {'; '.join(problems)}{suffix}"
        ) from None
