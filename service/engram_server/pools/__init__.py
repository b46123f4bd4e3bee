"""Pools: memory shared across agents and teams (PoolService) and groups of agents."""
