"""Privacy findings to protobuf: what the boundary did, never what it matched."""

from __future__ import annotations

from collections.abc import Iterable

from engram.v1 import lifecycle_pb2

from engram_server.privacy import PrivacyFinding


def finding_to_proto(f: PrivacyFinding) -> lifecycle_pb2.PrivacyFinding:
    return lifecycle_pb2.PrivacyFinding(
        category=f.category, type=f.type, action=f.action, field=f.field
    )


def findings_to_proto(findings: Iterable[PrivacyFinding]) -> list[lifecycle_pb2.PrivacyFinding]:
    return [finding_to_proto(f) for f in findings]
