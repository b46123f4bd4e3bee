"""Hypothesis strategies built from protobuf descriptors, for fuzzing every RPC.

`request_strategy(descriptor, pool)` draws any message of that type: every field
independently present or absent, scalars over their whole range (NaN and the
infinities for doubles, out-of-range values for enums, extreme int64s), strings
from unicode text, long text, text with NUL, and values that look like what the
server expects (names of resources that exist, spaces with `.` and `..`,
genuine and forged page tokens), nested messages to a bounded depth, and the
well-known types (Timestamp and Duration over their whole encodable range,
Struct with deep nesting, FieldMask with real and made-up paths).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
UINT32 = (0, 2**32 - 1)
UINT64 = (0, 2**64 - 1)
MAX_DEPTH = 4

# Text protobuf can hold: no lone surrogates.
_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
_SPACES = st.sampled_from(
    ["s", "kb", "team/a", "a/b/c", ".", "..", "a/./b", "a/../b", "a//b", "/", " ", "a" * 65]
)


@dataclass
class NamePool:
    """Values that exist on the server, so fuzzed requests reach past name checks."""

    by_field: dict[str, list[str]] = field(default_factory=dict)

    def add(self, field_name: str, *values: str) -> None:
        self.by_field.setdefault(field_name, []).extend(v for v in values if v)

    def strategy(self, field_name: str) -> st.SearchStrategy[str]:
        known = self.by_field.get(field_name, [])
        plausible = st.sampled_from([*known, *_PLAUSIBLE.get(field_name, ["seed fact"])])
        weird: list[st.SearchStrategy[str]] = [
            _TEXT,
            _TEXT.map(lambda s: s + "\x00" + s),
            st.integers(0, 40).map(lambda n: "x" * (n * 100)),
            st.sampled_from(["", "0", "-1", str(2**63), str(2**64), "1e309", "NaN"]),
        ]
        if known:
            weird.append(st.sampled_from(known).map(lambda s: s + "x"))
        if field_name in {"space", "spaces", "recall_spaces"}:
            weird.append(_SPACES)
        # Mostly plausible values, so that requests get past the first check and
        # reach deeper code; the rest is anything at all.
        return _mostly(plausible, st.one_of(*weird))


def _mostly(usual: st.SearchStrategy[Any], other: st.SearchStrategy[Any]) -> Any:
    """`usual` about three times in four, else `other` (Hypothesis' `one_of` does
    not keep to its branches' proportions)."""
    return st.sampled_from((True, True, True, False)).flatmap(lambda pick: usual if pick else other)


# Values the server accepts for common fields (beside the names of seeded resources).
_PLAUSIBLE: dict[str, list[str]] = {
    "space": ["s", "kb", "team/a"],
    "spaces": ["s", "kb"],
    "recall_spaces": ["s"],
    "content": ["the deploy runs on fridays", "Alice prefers Go"],
    "query": ["deploy", "what does Alice prefer"],
    "role": ["user", "assistant"],
    "session": ["chat"],
    "reason": ["because"],
    "scopes": ["read", "write", "admin"],
    "slot_key": ["user::language"],
    "tags": ["ops"],
    "request_id": ["req-1", "req-2"],
    "cursor": ["0", "1"],
    "update_mask": ["content"],
}


def _scalar(f: FieldDescriptor, names: NamePool) -> st.SearchStrategy[Any]:
    t = f.type
    if t == FieldDescriptor.TYPE_STRING:
        return names.strategy(f.name)
    if t == FieldDescriptor.TYPE_BYTES:
        return st.binary(max_size=64)
    if t == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        specials = st.sampled_from([0.0, -0.0, 1.0, -1.0, 1e308, float("nan"), float("inf")])
        width = 32 if t == FieldDescriptor.TYPE_FLOAT else 64
        plausible = st.floats(0.0, 1.0, width=width)
        return _mostly(plausible, st.one_of(specials, st.floats(width=width)))
    if t == FieldDescriptor.TYPE_ENUM:
        assert f.enum_type is not None
        known = st.sampled_from([v.number for v in f.enum_type.values])
        return _mostly(known, st.integers(*INT32))
    small = st.integers(0, 100)
    if t in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
    ):
        return _mostly(small, st.one_of(st.integers(-2, 1000), st.integers(*INT32)))
    if t in (
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
    ):
        return _mostly(small, st.one_of(st.integers(-2, 1000), st.integers(*INT64)))
    if t in (FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32):
        return st.one_of(small, st.integers(*UINT32))
    if t in (FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64):
        return st.one_of(small, st.integers(*UINT64))
    raise NotImplementedError(f"field type {t} of {f.full_name}")


def _json(depth: int) -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False), _TEXT
    )
    if depth <= 0:
        return leaves
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)
        ),
        max_leaves=8,
    )


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        value = {"n": value}
    return value


def _well_known(
    desc: Descriptor, parent: Descriptor | None
) -> st.SearchStrategy[dict[str, Any]] | None:
    """Field values (as a dict for `_build`) for a well-known type, or None."""
    name = desc.full_name
    if name in ("google.protobuf.Timestamp", "google.protobuf.Duration"):
        plausible = st.integers(1_600_000_000, 1_900_000_000)
        seconds = _mostly(
            plausible,
            st.one_of(
                st.sampled_from([-62135596801, -62135596800, 253402300799, 253402300800, 0]),
                st.integers(*INT64),
            ),
        )
        nanos = _mostly(st.integers(0, 999_999_999), st.integers(*INT32))
        return st.fixed_dictionaries({"seconds": seconds, "nanos": nanos})
    if name == "google.protobuf.Struct":
        return st.one_of(
            st.dictionaries(_TEXT, _json(3), max_size=4),
            st.integers(20, 60).map(_deep),
        ).map(lambda d: {"__struct__": d})
    if name == "google.protobuf.FieldMask":
        real: list[str] = []
        for sibling in parent.fields if parent is not None else ():
            real.append(sibling.name)
            if sibling.message_type is not None:
                real.extend(f.name for f in sibling.message_type.fields)
        paths = st.lists(st.one_of(st.sampled_from(real or ["x"]), _TEXT), max_size=4)
        return paths.map(lambda p: {"paths": p})
    if name in ("google.protobuf.Empty", "google.protobuf.Any"):
        return st.just({})
    if name in ("google.protobuf.Value", "google.protobuf.ListValue"):
        return st.just({})
    return None


def message_dict(
    desc: Descriptor, names: NamePool, depth: int = 0, parent: Descriptor | None = None
) -> st.SearchStrategy[dict[str, Any]]:
    """A dict of field name -> drawn value for `desc` (see `_build`)."""
    special = _well_known(desc, parent)
    if special is not None:
        return special
    optional: dict[str, st.SearchStrategy[Any]] = {}
    required: dict[str, st.SearchStrategy[Any]] = {}
    for f in desc.fields:
        # Fields a request is refused without are mostly there (the rest is present
        # or not at random), so most requests get past "required" checks.
        chosen = (
            required
            if f.name in _USUALLY_REQUIRED
            or (depth == 0 and f.type == FieldDescriptor.TYPE_MESSAGE and not f.is_repeated)
            else optional
        )
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            sub = f.message_type
            assert sub is not None
            if sub.GetOptions().map_entry:
                key = _scalar(sub.fields_by_name["key"], names)
                value_field = sub.fields_by_name["value"]
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    if depth >= MAX_DEPTH:
                        continue
                    assert value_field.message_type is not None
                    value = message_dict(value_field.message_type, names, depth + 1, desc)
                else:
                    value = _scalar(value_field, names)
                chosen[f.name] = st.dictionaries(key, value, max_size=3)
                continue
            if depth >= MAX_DEPTH:
                continue
            inner = message_dict(sub, names, depth + 1, desc)
            chosen[f.name] = st.lists(inner, max_size=3) if f.is_repeated else inner
        elif f.is_repeated:
            chosen[f.name] = st.lists(_scalar(f, names), max_size=4)
        else:
            chosen[f.name] = _scalar(f, names)
    return st.fixed_dictionaries(required, optional=optional)


_USUALLY_REQUIRED = frozenset(
    {
        "name", "parent", "memory", "space", "spaces", "content", "query", "session",
        "role", "base", "target", "etag", "confidence", "update_mask", "reason",
    }
)  # fmt: skip


def _build(cls: type[Message], values: dict[str, Any]) -> Message:
    message = cls()
    _fill(message, values)
    return message


def _fill(message: Message, values: dict[str, Any]) -> None:
    if "__struct__" in values:
        message.update(values["__struct__"])  # type: ignore[attr-defined]
        return
    desc = message.DESCRIPTOR
    for name, value in values.items():
        f = desc.fields_by_name[name]
        target = getattr(message, name)
        if f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.GetOptions().map_entry:
            value_field = f.message_type.fields_by_name["value"]
            for k, v in value.items():
                if value_field.type == FieldDescriptor.TYPE_MESSAGE:
                    _fill(target[k], v)
                else:
                    target[k] = v
        elif f.type == FieldDescriptor.TYPE_MESSAGE:
            if f.is_repeated:
                for item in value:
                    _fill(target.add(), item)
            else:
                target.SetInParent()
                _fill(target, value)
        elif f.is_repeated:
            target.extend(value)
        else:
            setattr(message, name, value)


def request_strategy(desc: Descriptor, names: NamePool) -> st.SearchStrategy[Message]:
    cls: type[Message] = message_factory.GetMessageClass(desc)
    build: Callable[[dict[str, Any]], Message] = lambda values: _build(cls, values)  # noqa: E731
    return message_dict(desc, names).map(build)


RAW_BYTES = st.one_of(
    st.binary(max_size=64),
    # A length-delimited field 1 claiming more bytes than follow, and invalid UTF-8.
    st.just(b"\x0a\xff\xff\xff\x0f\x01"),
    st.just(b"\x0a\x02\xc3\x28"),
    st.sampled_from(string.printable).map(lambda c: c.encode() * 3),
)
