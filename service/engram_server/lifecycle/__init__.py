"""Lifecycle domain: memories, the state machine, proposal validation, policies.

Pure logic only: no I/O and no protobuf. The services layer orchestrates these
rules with the stores; the api layer converts to and from protobuf.
"""
