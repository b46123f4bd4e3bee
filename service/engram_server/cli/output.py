"""How CLI commands print SDK results: readable text, or JSON with `--json`.

JSON output is one object per line (also for listings and watch streams), so it
pipes into `jq` and line-oriented tools; text output favours a glance.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from typing import Any

from engram import types as t
from engram.errors import EngramError

_CONTENT_WIDTH = 72


class Output:
    """Writes results to stdout in the format the user chose."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def line(self, text: str) -> None:
        print(text, file=sys.stdout, flush=True)

    def item(self, value: Any) -> None:
        """One result, in full: a JSON object, or `field  value` lines."""
        if self.as_json:
            self._json(value)
        else:
            for text in describe(value):
                self.line(text)

    def rows(self, values: Iterable[Any]) -> int:
        """A listing: one JSON object or one summary line per item. Returns the count."""
        count = 0
        for value in values:
            count += 1
            if self.as_json:
                self._json(value)
            else:
                self.line(summary(value))
        return count

    def _json(self, value: Any) -> None:
        self.line(json.dumps(t.to_dict(value), ensure_ascii=False, sort_keys=False))


def shorten(text: str, width: int = _CONTENT_WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _is_empty(value: Any) -> bool:
    # UNSPECIFIED is how an unset enum reads; showing it only adds noise.
    return (
        value is None
        or value in ("", "UNSPECIFIED")
        or (isinstance(value, (list, tuple, dict)) and not value)
    )


def _is_plain(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool))


def _scalar(value: Any) -> str:
    """A field value on one line: flat lists and maps readably, nested JSON as JSON."""
    if isinstance(value, list) and all(_is_plain(v) for v in value):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict) and all(_is_plain(v) for v in value.values()):
        if value and all(isinstance(k, str) and k.isupper() for k in value):
            return ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def describe(value: Any, indent: str = "") -> list[str]:
    """`field  value` lines for every non-empty field of a result, nested ones indented."""
    data = t.to_dict(value)
    if not isinstance(data, dict):
        return [indent + _scalar(data)]
    width = max((len(k) for k in data), default=0)
    lines: list[str] = []
    for key, field_value in data.items():
        if _is_empty(field_value):
            continue
        if isinstance(field_value, dict) and key in _NESTED:
            lines.append(f"{indent}{key}:")
            lines.extend(describe(field_value, indent + "  "))
        elif isinstance(field_value, list) and field_value and isinstance(field_value[0], dict):
            lines.append(f"{indent}{key}:")
            for element in field_value:
                lines.append(f"{indent}  - {summary_of_dict(element)}")
        else:
            lines.append(f"{indent}{key.ljust(width)}  {_scalar(field_value)}")
    return lines


# Fields that hold a nested result rather than free-form JSON.
_NESTED = frozenset({"memory", "entry", "tombstone", "api_key", "quota"})


def summary_of_dict(data: dict[str, Any]) -> str:
    if "validator" in data:
        critical = "critical" if data.get("critical") else "non-critical"
        where = f" [{data['field']}]" if data.get("field") else ""
        return f"{data['validator']} ({critical}): {data.get('message', '')}{where}"
    if "content" in data and "name" in data:
        return f"{data['name']}  {data.get('status', '')}  {shorten(str(data['content']), 48)}"
    if "url" in data:
        return f"{data.get('name') or 'webhook'} -> {data['url']}"
    return _scalar(data)


def summary(value: Any) -> str:
    """One line for a listing."""
    if isinstance(value, t.Memory):
        return (
            f"{value.name}  {value.status.value:<20}  {value.kind.value:<10}  "
            f"{value.space}  {shorten(value.content)}"
        )
    if isinstance(value, t.AuditEntry):
        return audit_line(value)
    if isinstance(value, t.TransitionEvent):
        return f"[{value.cursor}] {audit_line(value.entry)}"
    if isinstance(value, t.Tenant):
        created = value.create_time.isoformat() if value.create_time else "-"
        return f"{value.name}  {value.display_name or '-'}  created {created}"
    if isinstance(value, t.ApiKey):
        return api_key_line(value)
    if isinstance(value, t.ProposalResult):
        name = value.memory.name if value.memory else "-"
        return f"{value.outcome.value:<20}  {name}"
    if isinstance(value, t.MemoryRevision):
        when = value.create_time.isoformat() if value.create_time else "-"
        content = shorten(value.memory.content, 48) if value.memory else ""
        return f"{value.name}  {when}  by {value.actor or '-'}  {content}"
    return " ".join(describe(value))


def audit_line(entry: t.AuditEntry) -> str:
    when = entry.create_time.isoformat() if entry.create_time else "-"
    parts = [f"#{entry.sequence}", when, entry.action.value]
    if entry.memory:
        parts.append(entry.memory)
    if entry.action is t.AuditAction.TRANSITION:
        parts.append(f"{entry.from_status.value} -> {entry.to_status.value}")
    if entry.space:
        parts.append(f"space={entry.space}")
    if entry.actor:
        parts.append(f"by {entry.actor}")
    if entry.reason:
        parts.append(f"({shorten(entry.reason, 60)})")
    return "  ".join(parts)


def api_key_line(key: t.ApiKey) -> str:
    parts = [key.name, f"scopes={','.join(key.scopes) or '-'}"]
    if key.display_name:
        parts.append(f"name={key.display_name!r}")
    if key.agent:
        parts.append(f"agent={key.agent}")
    if key.secret_prefix:
        parts.append(f"prefix={key.secret_prefix}")
    if key.expire_time:
        parts.append(f"expires={key.expire_time.isoformat()}")
    if key.revoke_time:
        parts.append(f"revoked={key.revoke_time.isoformat()}")
    return "  ".join(parts)


def print_error(error: EngramError) -> None:
    """An SDK error on stderr: code and message, then every field it names.

    The server's message often just lists the field violations the details carry
    as well; then the headline is the code alone, so each violation prints once.
    """
    lines = [
        f"{violation[0]}: {' '.join(violation[1:])}"
        for attr in ("field_violations", "violations", "quota_violations")
        for violation in getattr(error, attr, ())
    ]
    if lines and all(line in error.message for line in lines):
        print(f"engram: {error.code.name}", file=sys.stderr)
    else:
        print(f"engram: {error.code.name}: {error.message}", file=sys.stderr)
    for line in lines:
        print(f"  {line}", file=sys.stderr)
    resource = getattr(error, "resource_name", "")
    if resource:
        print(f"  resource: {resource}", file=sys.stderr)
