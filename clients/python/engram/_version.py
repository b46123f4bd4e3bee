"""The SDK's version, as installed."""

from __future__ import annotations

from importlib import metadata

try:
    __version__ = metadata.version("engram")
except metadata.PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

USER_AGENT = f"engram-python/{__version__}"
