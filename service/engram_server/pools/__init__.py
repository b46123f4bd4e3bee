"""Pools domain: memory shared across agents and teams (PoolService) and groups of
agents. Names, roles, the publish gate and pooled recall scopes, without I/O; the
use cases are in services/pools.py and services/pool_*.py."""
