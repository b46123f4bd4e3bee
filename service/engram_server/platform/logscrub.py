"""Keeps stored data out of the server log.

PostgreSQL's error text can quote the row a statement failed on: the DETAIL of a
constraint violation (`Key (...)=(...)`) and the CONTEXT of a failing trigger or
re-checked tuple, memory content included. Every log record that carries a
database error (as its exception, anywhere in the cause chain, or as an argument)
is rewritten to keep only the error's class, SQLSTATE and primary message.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

import psycopg

_installed = False


def _message(exc: psycopg.Error) -> str:
    primary = exc.diag.message_primary if exc.diag is not None else None
    first_line = (primary or str(exc)).split("\n", 1)[0]
    return f"[{exc.sqlstate or '-'}] {first_line}"


def scrubbed(exc: psycopg.Error) -> str:
    """A database error without DETAIL, CONTEXT, HINT or the statement."""
    return f"{type(exc).__name__}: {_message(exc)}"


def _chain(exc: BaseException | None) -> list[BaseException]:
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def format_exception(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> str:
    """The traceback text of `exc`, with every database error's text scrubbed."""
    te = traceback.TracebackException(exc_type, exc, tb)
    node: traceback.TracebackException | None = te
    for original in _chain(exc):
        if node is None:
            break
        if isinstance(original, psycopg.Error):
            node._str = _message(original)  # type: ignore[attr-defined]
        node = node.__cause__ or node.__context__
    return "".join(te.format()).rstrip("\n")


def _scrub_record(record: logging.LogRecord) -> None:
    info = record.exc_info
    if info and info[1] is not None and any(isinstance(e, psycopg.Error) for e in _chain(info[1])):
        assert info[0] is not None
        record.exc_text = format_exception(info[0], info[1], info[2])
    if isinstance(record.args, tuple) and any(isinstance(a, psycopg.Error) for a in record.args):
        record.args = tuple(scrubbed(a) if isinstance(a, psycopg.Error) else a for a in record.args)
    if isinstance(record.msg, psycopg.Error):
        record.msg = scrubbed(record.msg)


def install() -> None:
    """Scrubs every log record the process creates from now on (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    previous: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            _scrub_record(record)
        except Exception:  # never lose a log line to the scrubber itself
            record.exc_text = "(exception text withheld)"
        return record

    logging.setLogRecordFactory(factory)
