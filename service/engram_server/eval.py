"""`engram eval`: the CLI's entry point; the harness lives in `engram_server.evaluation`."""

from engram_server.evaluation import main

__all__ = ["main"]
