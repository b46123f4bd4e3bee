"""Engram server: long-term memory for fleets of AI agents, served over gRPC."""

__version__ = "0.1.0"
