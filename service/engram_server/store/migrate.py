"""Versioned SQL migrations, safe when several replicas start at once.

Files `migrations/NNNN_name.sql` are applied in order, each in its own transaction,
while holding a session-level advisory lock, so concurrent starters wait and then
find nothing left to do.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources

import psycopg

log = logging.getLogger(__name__)

# Arbitrary but fixed: every Engram process contends for the same lock.
_MIGRATION_LOCK_KEY = 0x656E6772616D  # "engram"
_FILE_PATTERN = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def available_migrations() -> list[Migration]:
    found: list[Migration] = []
    for entry in resources.files("engram_server.store.migrations").iterdir():
        match = _FILE_PATTERN.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), match.group(2), entry.read_text()))
    return sorted(found, key=lambda m: m.version)


def migrate(database_url: str) -> list[Migration]:
    """Applies pending migrations and returns the ones this call applied."""
    applied: list[Migration] = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            rows = conn.execute("SELECT version FROM schema_migrations").fetchall()
            done = {row[0] for row in rows}
            for migration in available_migrations():
                if migration.version in done:
                    continue
                log.info("applying migration %04d_%s", migration.version, migration.name)
                with conn.transaction():
                    conn.execute(migration.sql.encode())
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                        (migration.version, migration.name),
                    )
                applied.append(migration)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK_KEY,))
    return applied


def current_version(database_url: str) -> int:
    with psycopg.connect(database_url, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return 0
        row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()
        return int(row[0]) if row else 0
