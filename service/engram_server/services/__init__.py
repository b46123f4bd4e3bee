"""Application services: each orchestrates domain rules and stores for a use case.

They take and return domain types; the api layer maps protobuf to and from them.
"""
