"""Learning from conversations: fact extraction, verification, consolidation and
the Dream State curation plan.

Pure logic only (no I/O, no protobuf): `services/learn.py`, `services/consolidate.py`
and `services/dream.py` run it against the stores and the LLM.
"""
