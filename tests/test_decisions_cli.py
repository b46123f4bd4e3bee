"""`engram decisions ...` against the test server, on a real git repository."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.test_cli import json_lines, run
from tests.test_decisions import T0, commit_all, git, lines, new_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path / "repo")


async def test_ingest_explain_search_and_a_bad_range(
    server: Any,
    make_tenant: Any,
    repo: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tenant = await make_tenant()
    conn = ("--address", server.address, "--api-key", tenant.secret)
    git(repo, "remote", "add", "origin", "git@github.com:acme/cli-demo.git")
    (repo / "pool.py").write_text(lines(12))
    commit_all(repo, "Add the connection pool", T0)
    (repo / "pool.py").write_text(lines(12).replace("line 4\n", "size = 4\n"))
    commit_all(
        repo,
        "Cap the pool at four connections\n\nThe database allows 20 clients and five"
        " workers share it, so each may hold at most four.",
        T0 + timedelta(hours=1),
    )
    (repo / "README").write_text("docs\n")
    commit_all(repo, "Fix typo", T0 + timedelta(hours=2))

    code, out, err = await run(
        capsys, "decisions", "ingest", str(repo), "--quiet", "--verbose", *conn
    )
    assert code == 0, err
    assert "decision          Cap the pool at four connections" in out
    assert "github.com/acme/cli-demo: 3 commits read" in out
    assert "trivial change without a stated reason" in out
    code, out, _ = await run(capsys, "decisions", "ingest", str(repo), "--quiet", *conn)
    assert code == 0 and "0 decisions created, 0 updated" in out and "3 already ingested" in out

    code, out, err = await run(
        capsys, "decisions", "ingest", str(repo), "--range", "nope..HEAD", *conn
    )
    assert code == 2 and "unknown revision 'nope'" in err

    code, out, err = await run(
        capsys,
        "decisions",
        "explain",
        "pool.py",
        "--lines",
        "4",
        "--repo-path",
        str(repo),
        *conn,
    )
    assert code == 0, err
    assert "Cap the pool at four connections" in out and "anchored on these lines" in out
    # A tag or HEAD~N is resolved in the checkout (the server takes shas); an
    # unknown name is refused before anything is sent.
    git(repo, "tag", "v1")
    for named in ("v1", "HEAD~1"):
        explain = ("decisions", "explain", "pool.py", "--lines", "4", "--revision", named)
        code, out, err = await run(capsys, *explain, "--repo-path", str(repo), *conn)
        assert code == 0, err
        assert "Cap the pool at four connections" in out
    code, out, err = await run(
        capsys,
        "decisions",
        "explain",
        "pool.py",
        "--revision",
        "v9",
        "--repo-path",
        str(repo),
        *conn,
    )
    assert code == 2 and "unknown revision 'v9'" in err

    assert server.ctx.recall is not None
    await server.ctx.recall.worker.wait_until_indexed(tenant.tenant_id, 20)
    code, out, _ = await run(
        capsys, "decisions", "search", "why at most four database connections?", "--json", *conn
    )
    hits = json_lines(out)
    assert hits[0]["decision"]["title"] == "Cap the pool at four connections"

    code, out, _ = await run(
        capsys,
        "decisions",
        "create",
        "--repository",
        "ops",
        "--title",
        "Page on-call for disk alerts",
        "--rationale",
        "Disks filled twice unnoticed.",
        "--json",
        *conn,
    )
    name = json_lines(out)[0]["name"]
    code, out, _ = await run(
        capsys, "decisions", "outcome", name, "--outcome", "met", "--summary", "No misses", *conn
    )
    assert code == 0 and "outcome MET" in out
    code, out, _ = await run(capsys, "decisions", "list", "--outcome", "MET", *conn)
    assert "Page on-call for disk alerts" in out and "Cap the pool" not in out
    code, _, err = await run(
        capsys, "decisions", "outcome", name, "--outcome", "maybe", "--summary", "x", *conn
    )
    assert code == 2 and "unknown outcome" in err
