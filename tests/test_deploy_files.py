"""deploy/: the Dockerfile's and the Compose stack's settings are real settings,
and the Compose stack starts in the documented order."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import yaml
from engram_server.platform.config import Settings

from tests.deploy_helpers import final_stage, image_env

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
SETTINGS = {f"ENGRAM_{f.name.upper()}" for f in dataclasses.fields(Settings)}


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    return data


def test_image_environment_names_only_real_settings() -> None:
    engram = {k for k in image_env() if k.startswith("ENGRAM_")}
    assert engram <= SETTINGS, engram - SETTINGS
    assert image_env()["ENGRAM_LISTEN"].startswith("0.0.0.0:")
    exposed = " ".join(args for kw, args in final_stage() if kw == "EXPOSE").split()
    assert image_env()["ENGRAM_LISTEN"].rsplit(":", 1)[1] in exposed
    assert image_env()["ENGRAM_METRICS_LISTEN"].rsplit(":", 1)[1] in exposed
    (entrypoint,) = [args for kw, args in final_stage() if kw == "ENTRYPOINT"]
    assert "tini" in entrypoint


def test_compose_runs_two_replicas_after_the_migration_on_healthy_stores() -> None:
    services = _compose()["services"]
    replicas = [name for name, s in services.items() if s.get("image") == "engram:dev"]
    replicas = [name for name in replicas if services[name].get("command") != ["migrate"]]
    assert len(replicas) == 2
    for name in replicas:
        service = services[name]
        env = service["environment"]
        assert {k for k in env if k.startswith("ENGRAM_")} <= SETTINGS
        # Two replicas share one index: the Qdrant server, never the embedded engine.
        assert env["ENGRAM_VECTOR_BACKEND"] == "qdrant"
        assert env["ENGRAM_MIGRATE_ON_START"] == "false"
        deps = service["depends_on"]
        assert deps["migrate"]["condition"] == "service_completed_successfully"
        assert deps["redis"]["condition"] == deps["qdrant"]["condition"] == "service_healthy"
        assert service["healthcheck"]["test"][1:3] == ["engram", "health"]
    assert services["migrate"]["command"] == ["migrate"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for store in ("postgres", "redis", "qdrant"):
        assert services[store]["healthcheck"]["test"], store
    assert {"otel-collector", "jaeger"} <= set(services)
    assert (DEPLOY / "otel-collector.yaml").exists()


def test_dashboard_and_alerts_query_metrics_the_server_exports() -> None:
    import json
    import re

    exported = (
        "rpc_server_call_duration_seconds",
        "engram_outbox_backlog",
        "engram_outbox_retrying",
        "engram_outbox_oldest_age_seconds",
        "engram_watch_streams",
        "engram_working_memory_session_messages",
        "engram_working_memory_session_tokens",
        "engram_llm_tokens_total",
        "up",
    )
    dashboard = json.loads((DEPLOY / "grafana" / "engram-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    alerts = yaml.safe_load((DEPLOY / "prometheus-alerts.yaml").read_text())
    exprs += [r["expr"] for g in alerts["groups"] for r in g["rules"]]
    assert len(exprs) >= 10
    for expr in exprs:
        names = set(re.findall(r"\b(rpc_server_\w+|engram_\w+|up)\{", expr))
        names |= set(re.findall(r"\b(rpc_server_\w+|engram_\w+)\b", expr))
        assert names, expr
        for name in names:
            base = re.sub(r"_(bucket|count|sum)$", "", name)
            assert base in exported, (name, expr)


ROOT = DEPLOY.parent


def test_every_setting_is_documented() -> None:
    text = (ROOT / "docs" / "configuration.md").read_text()
    missing = sorted(name for name in SETTINGS if f"`{name}`" not in text and name not in text)
    assert not missing, missing


def test_readme_is_short_and_its_links_resolve() -> None:
    import re

    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 320
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+?\.md)(?:#[^)]*)?\)", page.read_text()):
            resolved = (page.parent / target).resolve().relative_to(ROOT).as_posix()
            assert (ROOT / resolved).exists(), (page.name, target)


def test_every_qdrant_image_pin_is_a_supported_version() -> None:
    # The Compose stack's Qdrant, and every Qdrant image the chart's values or the
    # docs name, is one the server adapter accepts (store/vectors/qdrant_version.py).
    import re

    from engram_server.store.vectors.qdrant_version import SUPPORTED, parse_version

    image = _compose()["services"]["qdrant"]["image"]
    tag = image.rpartition(":")[2]
    assert image.startswith("qdrant/qdrant:") and parse_version(tag) in SUPPORTED, image
    root = DEPLOY.parent
    pins: dict[str, str] = {}
    for path in [*root.joinpath("helm").rglob("*.yaml"), *root.joinpath("docs").rglob("*.md")]:
        for found in re.findall(r"qdrant/qdrant:(v?[0-9][\w.-]*)", path.read_text()):
            pins[f"{path.relative_to(root)}: {found}"] = found
    assert any(key.startswith("helm/engram/ci/") for key in pins), "no chart example pins Qdrant"
    for where, found in pins.items():
        assert parse_version(found) in SUPPORTED, where
