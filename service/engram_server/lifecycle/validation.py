"""Shape checks of incoming requests: every bad field is reported, by its path.

These run before anything touches storage, so bad input never half-writes.
"""

from __future__ import annotations

import math
import re

from engram_server.errors import Violations
from engram_server.lifecycle.model import Proposal

SPACE_SEGMENT = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
MAX_SPACE_SEGMENTS = 8
TAG_PATTERN = re.compile(r"^[^\s,][^,]{0,63}$")
SLOT_KEY_PATTERN = re.compile(r"^[^:\s][^\n]{0,126}::[^\n]{1,127}$")
MAX_TAGS = 32
MAX_DEPENDS_ON = 64
MAX_SHORT_TEXT = 256
MAX_ATTRIBUTES = 64
MAX_REQUEST_ID = 128
MAX_BATCH = 1000


def check_space(v: Violations, path: str, space: str, *, required: bool = True) -> None:
    """The one space-name rule, used wherever a request names a space (writes,
    reads, recall, policies, watches, snapshots)."""
    if not space:
        if required:
            v.add(path, "required")
        return
    segments = space.split("/")
    if len(segments) > MAX_SPACE_SEGMENTS:
        v.add(path, f"at most {MAX_SPACE_SEGMENTS} path segments")
    elif not all(SPACE_SEGMENT.match(s) for s in segments):
        v.add(path, "segments must be 1-64 characters of [A-Za-z0-9._:-], separated by '/'")
    elif any(s in (".", "..") for s in segments):
        v.add(path, "segments '.' and '..' are not allowed")


def check_request_id(v: Violations, path: str, request_id: str) -> None:
    if len(request_id) > MAX_REQUEST_ID:
        v.add(path, f"at most {MAX_REQUEST_ID} characters")


def check_unit_interval(v: Violations, path: str, value: float) -> None:
    if math.isnan(value) or not 0.0 <= value <= 1.0:
        v.add(path, "must be in [0, 1]")


def check_proposal(v: Violations, path: str, p: Proposal, max_content_bytes: int) -> None:
    """Checks one proposal; `path` prefixes field names (`proposal`, `proposals[3]`)."""
    check_space(v, f"{path}.space", p.space)
    if not p.content.strip():
        v.add(f"{path}.content", "required and must not be blank")
    elif len(p.content.encode()) > max_content_bytes:
        v.add(f"{path}.content", f"larger than the limit of {max_content_bytes} bytes")
    check_unit_interval(v, f"{path}.confidence", p.confidence)
    check_unit_interval(v, f"{path}.importance", p.importance)
    for name, value in (
        ("session", p.session),
        ("thread", p.thread),
        ("source", p.source),
        ("topic", p.topic),
    ):
        if len(value) > MAX_SHORT_TEXT:
            v.add(f"{path}.{name}", f"at most {MAX_SHORT_TEXT} characters")
    if len(p.tags) > MAX_TAGS:
        v.add(f"{path}.tags", f"at most {MAX_TAGS} tags")
    for i, tag in enumerate(p.tags):
        if not TAG_PATTERN.match(tag):
            v.add(f"{path}.tags[{i}]", "1-64 characters, no commas, not starting with a space")
    if p.slot_key and not SLOT_KEY_PATTERN.match(p.slot_key):
        v.add(f"{path}.slot_key", "must look like 'entity::attribute'")
    if len(p.depends_on) > MAX_DEPENDS_ON:
        v.add(f"{path}.depends_on", f"at most {MAX_DEPENDS_ON} entries")
    if len(p.attributes) > MAX_ATTRIBUTES:
        v.add(f"{path}.attributes", f"at most {MAX_ATTRIBUTES} entries")
    for key, value in p.attributes.items():
        if not key or len(key) > 64 or len(value) > 1024:
            v.add(f"{path}.attributes[{key}]", "keys 1-64 characters, values at most 1024")


def check_reason(v: Violations, path: str, reason: str, *, required: bool) -> None:
    if required and not reason.strip():
        v.add(path, "required")
    elif len(reason) > 2048:
        v.add(path, "at most 2048 characters")
