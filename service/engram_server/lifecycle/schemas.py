"""JSON Schemas of policies resolve references only inside themselves.

jsonschema's default resolution fetches a `$ref` it does not know: over HTTP, or
from `file://` URLs. In a schema a tenant supplies, that is a request the server
makes wherever the tenant points it. Here a schema may only refer to itself: every
`$ref` (`$dynamicRef`, `$recursiveRef`) is a same-document fragment that must
resolve when the policy is set, and the validators run with a registry that
retrieves nothing, so even a schema stored before this rule cannot reach out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import referencing.exceptions
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

_REFERENCE_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
# Keywords whose values are instance data, not schemas: a "$ref" key there is data.
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_BASE = "urn:engram:policy-schema"


def _refuse_retrieval(uri: str) -> Resource[Any]:
    raise referencing.exceptions.NoSuchResource(ref=uri)  # type: ignore[call-arg]


# A registry that knows no documents and fetches none.
LOCAL_ONLY: Registry[Any] = Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]


def _references(node: Any) -> Iterator[tuple[str, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _REFERENCE_KEYWORDS and isinstance(value, str):
                yield key, value
            elif key not in _DATA_KEYWORDS:
                yield from _references(value)
    elif isinstance(node, list):
        for item in node:
            yield from _references(item)


def schema_reference_problems(schema: Any) -> list[str]:
    """Why `schema`'s references are not allowed (empty when they all are)."""
    problems: list[str] = []
    resolver = None
    for keyword, ref in _references(schema):
        if not ref.startswith("#"):
            problems.append(
                f"{keyword} {ref!r} points outside the schema; only references inside"
                " it (starting with '#') are allowed"
            )
            continue
        if resolver is None:
            resource = Resource.from_contents(schema, default_specification=DRAFT202012)
            resolver = LOCAL_ONLY.with_resource(_BASE, resource).crawl().resolver(_BASE)
        try:
            resolver.lookup(ref)
        except referencing.exceptions.Unresolvable:
            problems.append(f"{keyword} {ref!r} does not resolve inside the schema")
    return problems


def first_schema_error(schema: Any, instance: Any) -> str | None:
    """The most relevant reason `instance` fails `schema` ("at path: message"), or
    None when it conforms. References are resolved inside the schema only."""
    validator = validator_for(schema)(schema, registry=LOCAL_ONLY)
    try:
        error = best_match(validator.iter_errors(instance))
    except referencing.exceptions.Unresolvable as exc:
        return f"the schema has a reference that does not resolve inside it: {exc}"
    except RecursionError:
        # A reference that comes back to itself without reading further into the
        # instance ({"$ref": "#"}, perhaps behind an "if") never ends.
        return "the schema refers to itself without end for this instance"
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(root)"
    return f"at {where}: {error.message}"
