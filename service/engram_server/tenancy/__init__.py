"""Tenants and API keys: who exists, who may do what, and how the first keys appear.

`model`, `policy` and `paging` are pure rules; `operations` and `bootstrap` apply
them through the stores.
"""
