"""The `engram` command: run in-process against the test server, plus one real process.

`main()` blocks, and the test server runs on the session's event loop, so each
invocation runs in a worker thread.
"""

from __future__ import annotations

import asyncio
import importlib.machinery
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import engram
import pytest
from engram_server.cli import main, ops


async def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Runs `engram argv...`; returns (exit status, stdout, stderr)."""
    capsys.readouterr()
    try:
        code = await asyncio.to_thread(main, list(argv))
    except SystemExit as exit_:  # argparse's own usage errors
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_help_runs_as_a_real_process() -> None:
    script = Path(sys.executable).with_name("engram")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "engram_server.cli"]
    done = subprocess.run(
        [*command, "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    for name in ("serve", "migrate", "config", "admin", "memory", "session"):
        assert name in done.stdout


async def test_memory_commands_walk_the_lifecycle(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    tenant = await make_tenant()
    conn = ("--address", server.address, "--api-key", tenant.secret)

    code, out, err = await run(
        capsys,
        "memory",
        "propose",
        "team-a",
        "Alice prefers Go",
        "--confidence",
        "0.9",
        "--tag",
        "people,lang",
        "--structured",
        '{"person": "alice"}',
        "--attr",
        "origin=cli",
        *conn,
    )
    assert code == 0, err
    outcome, name = out.split()[:2]
    assert outcome == "ACCEPTED" and name.startswith("memories/")

    code, out, _ = await run(capsys, "memory", "get", name, "--json", *conn)
    memory = json.loads(out)
    assert memory["status"] == "ACTIVE" and memory["tags"] == ["people", "lang"]
    assert memory["structured_content"] == {"person": "alice"}
    assert memory["attributes"] == {"origin": "cli"}

    code, out, _ = await run(capsys, "memory", "get", name, *conn)
    assert "Alice prefers Go" in out and "ACTIVE" in out

    code, out, err = await run(
        capsys, "memory", "revise", name, "--content", "Alice prefers Rust", *conn
    )
    assert code == 0, err
    assert "Alice prefers Rust" in out

    code, out, err = await run(capsys, "memory", "confidence", name, "0.95", "--json", *conn)
    assert code == 0, err
    assert json.loads(out)["confidence"] == pytest.approx(0.95)

    await run(capsys, "memory", "propose", "team-a", "second fact", *conn)
    code, out, _ = await run(
        capsys, "memory", "list", "--space", "team-a", "--page-size", "1", "--json", *conn
    )
    listed = json_lines(out)
    assert [m["content"] for m in listed] == ["second fact", "Alice prefers Rust"]
    code, out, _ = await run(capsys, "memory", "list", "--space", "team-a", "--limit", "1", *conn)
    assert len(out.splitlines()) == 1 and "second fact" in out

    code, out, err = await run(capsys, "memory", "retract", name, "--reason", "outdated", *conn)
    assert code == 0, err
    assert out.startswith("RETRACTED")

    code, out, err = await run(capsys, "memory", "confirm", name, *conn)
    assert code == 1
    assert "FAILED_PRECONDITION" in err

    code, out, _ = await run(capsys, "memory", "audit", "--memory", name, "--json", *conn)
    entries = json_lines(out)
    assert entries[-1]["to_status"] == "RETRACTED"
    assert {e["action"] for e in entries} >= {"TRANSITION", "REVISION", "CONFIDENCE"}

    code, out, _ = await run(
        capsys,
        "memory",
        "watch",
        "--space",
        "team-a",
        "--cursor",
        "0",
        "--limit",
        "2",
        "--json",
        *conn,
    )
    events = json_lines(out)
    assert len(events) == 2 and events[0]["entry"]["memory"] == name

    code, out, err = await run(capsys, "memory", "purge", "team-a", "--reason", "gdpr-1", *conn)
    assert code == 2 and "--yes" in err
    code, out, err = await run(
        capsys, "memory", "purge", "team-a", "--reason", "gdpr-1", "--yes", *conn
    )
    assert code == 0, err
    assert "purged 2 memories" in out

    code, out, err = await run(capsys, "memory", "expire", "--json", *conn)
    assert code == 0, err
    assert json.loads(out)["expired_count"] == 0


async def test_errors_exit_non_zero_and_name_the_field(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    tenant = await make_tenant()
    conn = ("--address", server.address, "--api-key", tenant.secret)

    code, _, err = await run(capsys, "memory", "propose", "s", "x", "--confidence", "2", *conn)
    assert code == 1
    assert "INVALID_ARGUMENT" in err and "confidence" in err
    # Each violation once: the headline does not repeat the field line.
    assert err.count("proposal.confidence: must be") == 1, err

    code, _, err = await run(
        capsys, "memory", "get", "memories/00000000-0000-0000-0000-000000000000", *conn
    )
    assert code == 1 and "NOT_FOUND" in err

    code, _, err = await run(capsys, "memory", "list", "--status", "bogus", *conn)
    assert code == 1 and "INVALID_ARGUMENT" in err and "statuses[0]" in err and "bogus" in err
    assert err.count("unknown value 'bogus'") == 1, err

    code, _, err = await run(
        capsys, "memory", "list", "--address", server.address, "--api-key", "wrong"
    )
    assert code == 1 and "UNAUTHENTICATED" in err

    code, _, err = await run(capsys, "memory", "propose", "s", "x", "--structured", "[1]", *conn)
    assert code == 2 and "JSON object" in err


async def test_admin_commands_manage_tenants_and_keys(
    server: Any, platform_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    conn = ("--address", server.address, "--api-key", platform_key)
    tenant_id = "cli-admin-test"

    code, out, err = await run(
        capsys, "admin", "tenants", "create", tenant_id, "--display-name", "CLI", "--json", *conn
    )
    assert code == 0, err
    assert json.loads(out)["name"] == f"tenants/{tenant_id}"

    code, out, _ = await run(capsys, "admin", "tenants", "list", "--json", *conn)
    assert f"tenants/{tenant_id}" in [t["name"] for t in json_lines(out)]
    code, out, _ = await run(capsys, "admin", "tenants", "get", tenant_id, *conn)
    assert "CLI" in out

    code, out, err = await run(
        capsys,
        "admin",
        "keys",
        "create",
        "--tenant",
        tenant_id,
        "--scopes",
        "read,write",
        "--agent",
        "agent-1",
        "--expires-in",
        "3600",
        "--json",
        *conn,
    )
    assert code == 0, err
    created = json.loads(out)
    secret, key_name = created["secret"], created["api_key"]["name"]
    assert created["api_key"]["scopes"] == ["read", "write"]
    assert created["api_key"]["expire_time"]

    code, out, err = await run(
        capsys,
        "memory",
        "propose",
        "agents/1",
        "written with the new key",
        "--address",
        server.address,
        "--api-key",
        secret,
    )
    assert code == 0, err

    code, out, _ = await run(capsys, "admin", "keys", "list", "--tenant", tenant_id, *conn)
    assert key_name in out and "agent=agent-1" in out

    code, out, _ = await run(capsys, "admin", "usage", "--tenant", tenant_id, "--json", *conn)
    assert json.loads(out)["live_memories"] == 1

    key_id = key_name.rsplit("/", 1)[1]
    code, out, err = await run(
        capsys, "admin", "keys", "revoke", key_id, "--tenant", tenant_id, *conn
    )
    assert code == 0, err
    assert "revoke_time" in out
    code, _, err = await run(
        capsys, "memory", "list", "--address", server.address, "--api-key", secret
    )
    assert code == 1 and "UNAUTHENTICATED" in err

    code, _, err = await run(capsys, "admin", "tenants", "delete", tenant_id, *conn)
    assert code == 2 and "--yes" in err
    code, out, err = await run(capsys, "admin", "tenants", "delete", tenant_id, "--yes", *conn)
    assert code == 0, err
    assert f"deleted {tenant_id}" in out
    code, _, err = await run(capsys, "admin", "tenants", "get", tenant_id, *conn)
    assert code == 1 and "NOT_FOUND" in err


async def test_bootstrap_migrate_and_config(
    settings: Any,
    platform_key: str,
    server: Any,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stores = ("--database-url", settings.database_url, "--redis-url", settings.redis_url)
    # The fixture's own token: ensuring it again is a no-op, so other tests keep it.
    code, out, err = await run(capsys, "admin", "bootstrap", "--token", platform_key, *stores)
    assert code == 0, err
    assert "bootstrap key ensured" in out
    async with engram.AsyncClient(server.address, platform_key) as client:
        assert [t async for t in client.admin.list_tenants()]

    code, _, err = await run(capsys, "admin", "bootstrap", "--token", "short", *stores)
    assert code == 1 and "at least" in err

    code, out, err = await run(capsys, "migrate", "--database-url", settings.database_url)
    assert code == 0, err
    assert "up to date" in out

    config = tmp_path / "engram.toml"
    config.write_text('listen = "0.0.0.0:6000"\ndatabase_url = "postgresql://u:pw@db/engram"\n')
    monkeypatch.setenv("ENGRAM_LOG_LEVEL", "DEBUG")
    code, out, _ = await run(capsys, "config", "show", "--config", str(config), "--json")
    shown = json.loads(out)
    assert shown["listen"] == "0.0.0.0:6000" and shown["log_level"] == "DEBUG"
    assert shown["database_url"] == "postgresql://u:***@db/engram"
    code, out, _ = await run(capsys, "config", "show", "--config", str(config))
    assert 'listen = "0.0.0.0:6000"' in out.splitlines()

    monkeypatch.delenv("ENGRAM_DATABASE_URL", raising=False)
    monkeypatch.delenv("ENGRAM_REDIS_URL", raising=False)
    monkeypatch.delenv("ENGRAM_CONFIG", raising=False)
    code, _, err = await run(capsys, "serve")
    assert code == 1 and "ENGRAM_DATABASE_URL" in err


def test_bench_and_eval_are_handed_to_their_module(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    received: list[list[str]] = []

    def fake_main(argv: list[str]) -> int:
        received.append(argv)
        return 3

    module = types.ModuleType("fake_bench")
    module.__spec__ = importlib.machinery.ModuleSpec("fake_bench", None)
    module.main = fake_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_bench", module)
    monkeypatch.setitem(ops._DELEGATED, "bench", ("fake_bench", "measure"))
    monkeypatch.setitem(ops._DELEGATED, "eval", ("no_such_module_here", "evaluate"))

    assert main(["bench", "--help"]) == 3
    assert main(["bench", "lifecycle", "--rounds", "5"]) == 3
    assert received == [["--help"], ["lifecycle", "--rounds", "5"]]
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    assert "bench" in listed and "eval" not in listed


async def test_session_commands_import_show_list_clear(
    server: Any, make_tenant: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tenant = await make_tenant()
    conn = ("--address", server.address, "--api-key", tenant.secret)
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(
        "\n".join(
            [
                json.dumps(
                    {"role": "user", "content": "Hi, I am Ana.", "metadata": {"via": "web"}}
                ),
                json.dumps(
                    {"role": "assistant", "content": "Hello Ana!", "time": "2026-05-01T10:00:00Z"}
                ),
                "",
                json.dumps({"role": "robot", "content": "beep"}),
                json.dumps({"content": "Call me on ana@example.org"}),
            ]
        )
        + "\n"
    )
    code, out, err = await run(
        capsys, "session", "import", "users/ana", "chat-1", str(transcript), *conn
    )
    assert code == 1  # one message refused
    assert "line 4: INVALID_ARGUMENT" in err and "message.role" in err
    assert out.strip() == "buffered 3 of 4 messages in users/ana / chat-1; 1 refused"

    code, out, _ = await run(capsys, "session", "window", "users/ana", "chat-1", *conn)
    assert code == 0
    lines = out.splitlines()
    assert "Hi, I am Ana." in lines[0] and "assistant" in lines[1]
    assert "[EMAIL]" in lines[2] and "ana@example.org" not in out
    assert lines[-1].startswith("(3 messages")

    code, out, _ = await run(
        capsys, "session", "window", "users/ana", "chat-1", "--last", "1", "--json", *conn
    )
    window = json.loads(out)
    assert [m["index"] for m in window["messages"]] == [2]

    # Plain text from stdin-like files, one message per line, with --role.
    notes = tmp_path / "notes.txt"
    notes.write_text("first note\n\nsecond note\n")
    code, out, _ = await run(
        capsys, "session", "import", "users/ana", "notes", str(notes), "--text", "--role",
        "system", "--json", *conn,
    )  # fmt: skip
    assert code == 0
    results = json_lines(out)
    assert [r["line"] for r in results] == [1, 3]
    assert [r["message"]["role"] for r in results] == ["system", "system"]

    code, out, _ = await run(capsys, "session", "list", "users/ana", *conn)
    assert {line.split()[0] for line in out.splitlines()} == {"chat-1", "notes"}
    code, out, _ = await run(capsys, "session", "clear", "users/ana", "notes", *conn)
    assert out.strip() == "cleared 2 messages"

    # A malformed line stops the import before anything is sent.
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"content": "fine"}) + "\nnot json\n")
    code, _, err = await run(capsys, "session", "import", "users/ana", "bad", str(bad), *conn)
    assert code == 2 and "line 2: not JSON" in err
    code, out, _ = await run(capsys, "session", "list", "users/ana", *conn)
    assert "bad" not in out.split()


async def test_health_of_an_unknown_service_says_what_was_not_found(
    server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = await run(capsys, "health", "--address", server.address)
    assert code == 0 and out.strip() == f"{server.address}: SERVING"
    code, out, _ = await run(
        capsys, "health", "--address", server.address, "--service", "engram.v1.Nope"
    )
    assert code == 1
    # gRPC's health service answers NOT_FOUND with no text; the line says what it means.
    assert out.startswith(f"{server.address}: NOT_FOUND: ")
    assert "'engram.v1.Nope'" in out and "engram.v1.LifecycleService" in out
