"""Working memory: per-session message buffers in Redis.

Interface used by Engage, Reflect and Consolidate. Keys live under the tenant's
hash-tagged prefix (`engram:{tenant}:wm:...`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class BufferedMessage:
    role: str
    content: str
    time: datetime
    metadata: dict[str, str] = field(default_factory=dict)
    token_count: int = 0
    index: int = 0


@dataclass(frozen=True)
class SessionWindow:
    messages: tuple[BufferedMessage, ...]
    token_count: int
    # Name of the summary memory when the buffer was consolidated, else "".
    consolidated_as: str = ""

    @property
    def consolidated(self) -> bool:
        return bool(self.consolidated_as)
