"""Recall domain: ranking, forgetting, fusion, context and snapshots (pure logic)."""
