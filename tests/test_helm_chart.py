"""The Helm chart, rendered offline (helm-python-sdk: Helm's own Go library, no
binary, no cluster) for each values file under helm/engram/ci/, every manifest
validated strictly against the Kubernetes schemas of two versions
(kubernetes-validate), and each invalid values file under ci/invalid/ refused
with its message."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from engram_server.platform.config import Settings
from helm_python import Chart
from helm_python.errors import HelmError

CHART = Path(__file__).resolve().parents[1] / "helm" / "engram"
VALID = sorted((CHART / "ci").glob("*-values.yaml"))
INVALID = sorted((CHART / "ci" / "invalid").glob("*.yaml"))
# The oldest Kubernetes the chart supports (Chart.yaml kubeVersion) and a recent one.
KUBERNETES_VERSIONS = ("1.27.0", "1.33.0")
# Kinds from CRDs (Prometheus Operator, Gateway API): no schema ships for them.
CRD_KINDS = {"ServiceMonitor", "GRPCRoute"}
SECRET_SETTINGS = {
    "database_url",
    "redis_url",
    "bootstrap_token",
    "qdrant_api_key",
    "llm_api_key",
    "embedding_api_key",
    "page_token_secret",
}
CHART_MANAGED_SETTINGS = {
    "listen",
    "metrics_listen",
    "data_dir",
    "shutdown_grace_seconds",
    # Per Deployment (indexer.enabled splits the roles); one process per pod.
    "role",
    "workers",
}


@pytest.fixture(scope="module")
def chart() -> Iterator[Chart]:
    with Chart.load(CHART) as loaded:
        yield loaded


def render(chart: Chart, values: dict[str, Any]) -> list[dict[str, Any]]:
    """What `helm install` would send: schema check, then the templates."""
    chart.validate_schema(values)
    rendered = chart.render(values=values, name="mem", namespace="engram", is_install=True)
    docs: list[dict[str, Any]] = []
    for path, text in sorted(rendered.items()):
        if path.endswith("NOTES.txt"):
            continue
        docs.extend(d for d in yaml.safe_load_all(text) if d)
    return docs


def load_values(path: Path) -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load(path.read_text()) or {}
    return values


def by_kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d["kind"] == kind]


def one(docs: list[dict[str, Any]], kind: str, component: str | None = None) -> dict[str, Any]:
    found = [
        d
        for d in by_kind(docs, kind)
        if d["metadata"].get("labels", {}).get("app.kubernetes.io/component") == component
    ]
    assert len(found) == 1, [d["metadata"]["name"] for d in found]
    return found[0]


def server_container(docs: list[dict[str, Any]]) -> dict[str, Any]:
    deployment = one(docs, "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container  # type: ignore[no-any-return]


# -- every valid values file --------------------------------------------------------


@pytest.mark.parametrize("values_file", VALID, ids=[p.stem for p in VALID])
def test_renders_and_validates_strictly(chart: Chart, values_file: Path) -> None:
    docs = render(chart, load_values(values_file))
    assert by_kind(docs, "Deployment")
    for doc in docs:
        if doc["kind"] in CRD_KINDS:
            continue
        for version in KUBERNETES_VERSIONS:
            kubernetes_validate.validate(doc, version, strict=True)


def test_lint_is_clean(chart: Chart) -> None:
    from helm_python.chart import lint

    for values_file in VALID:
        report = lint(CHART, load_values(values_file), strict=True, kube_version="v1.30.0")
        problems = [m for m in report["messages"] if m["severity"] >= 2]
        assert not problems and not report["errors"], (values_file.name, report)


# -- what the defaults give --------------------------------------------------------


def test_defaults_probe_drain_and_lock_down_the_pod(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "defaults-values.yaml"))
    deployment = one(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = server_container(docs)
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert container[probe]["grpc"] == {"port": 50051}, probe
    # Drain: the grace period covers the pre-stop pause and the server's own drain.
    config = one(docs, "ConfigMap")["data"]
    grace = float(config["ENGRAM_SHUTDOWN_GRACE_SECONDS"])
    assert pod["terminationGracePeriodSeconds"] > grace + 5
    assert container["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "5"]
    # Non-root, read-only root filesystem, no capabilities, no API token.
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert pod["automountServiceAccountToken"] is False
    assert pod["serviceAccountName"] == one(docs, "ServiceAccount")["metadata"]["name"]
    assert {c["topologyKey"] for c in pod["topologySpreadConstraints"]} == {
        "topology.kubernetes.io/zone",
        "kubernetes.io/hostname",
    }
    assert container["resources"]["requests"]["cpu"]
    # Pods never migrate; the pre-install / pre-upgrade Job does.
    assert config["ENGRAM_MIGRATE_ON_START"] == "false"
    job = one(docs, "Job", "migrate")
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    assert job["spec"]["template"]["spec"]["containers"][0]["args"] == ["migrate"]
    # Its Secret exists before it (a lower hook weight), the release's does not yet.
    hook_secret = next(
        s
        for s in by_kind(docs, "Secret")
        if s["metadata"].get("annotations", {}).get("helm.sh/hook")
    )
    assert int(hook_secret["metadata"]["annotations"]["helm.sh/hook-weight"]) < int(
        job["metadata"]["annotations"]["helm.sh/hook-weight"]
    )
    # The Service speaks gRPC; the metrics port is separate.
    service = one(docs, "Service")
    ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert ports["grpc"]["appProtocol"] == "kubernetes.io/h2c"
    assert ports["metrics"]["port"] == 9464
    assert config["ENGRAM_METRICS_LISTEN"] == "0.0.0.0:9464"
    # One replica with the embedded index: no HPA, no PDB to block node drains.
    assert deployment["spec"]["replicas"] == 1
    assert not by_kind(docs, "HorizontalPodAutoscaler")
    assert not by_kind(docs, "PodDisruptionBudget")
    # The test hook checks health, then makes an authenticated call.
    test_pod = one(docs, "Pod", "test")
    assert test_pod["metadata"]["annotations"]["helm.sh/hook"] == "test"
    assert "engram health" in test_pod["spec"]["containers"][0]["command"][-1]
    assert "engram admin tenants list" in test_pod["spec"]["containers"][0]["command"][-1]
    # Neither hook pod is behind the Service.
    selector = service["spec"]["selector"]
    for pod_labels in (
        job["spec"]["template"]["metadata"]["labels"],
        test_pod["metadata"]["labels"],
    ):
        assert not selector.items() <= pod_labels.items()


def test_network_policy_is_on_by_default_and_opens_only_the_needed_ports(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "defaults-values.yaml"))
    policy = one(docs, "NetworkPolicy")
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"]
    ingress_ports = {p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]}
    assert ingress_ports == {"grpc", "metrics"}
    egress_ports = {p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]}
    assert {53, 5432, 6379, 6334} <= egress_ports
    assert 50051 not in egress_ports
    off = render(chart, load_values(CHART / "ci" / "no-networkpolicy-values.yaml"))
    assert not by_kind(off, "NetworkPolicy")


def test_ha_uses_hpa_pdb_and_qdrant(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "ha-values.yaml"))
    deployment = one(docs, "Deployment")
    assert "replicas" not in deployment["spec"]  # the HPA owns it
    hpa = one(docs, "HorizontalPodAutoscaler")
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (3, 12)
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert one(docs, "PodDisruptionBudget")["spec"]["maxUnavailable"] == 1
    config = one(docs, "ConfigMap")["data"]
    assert config["ENGRAM_VECTOR_BACKEND"] == "qdrant"
    assert config["ENGRAM_DB_POOL_MAX"] == "24"
    env = {e["name"]: e for e in server_container(docs)["env"]}
    assert env["ENGRAM_QDRANT_API_KEY"]["valueFrom"]["secretKeyRef"]["key"] == "qdrant-api-key"
    assert env["ENGRAM_LLM_API_KEY"]["valueFrom"]["secretKeyRef"]["key"] == "llm-api-key"
    assert env["OTEL_EXPORTER_OTLP_ENDPOINT"]["value"].startswith("http://otel-collector")
    # Secrets never land in the ConfigMap.
    assert "sk-test" not in json.dumps(config)


def test_existing_secret_is_used_with_its_own_key_names(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "external-secrets-values.yaml"))
    assert not by_kind(docs, "Secret")  # neither the release's nor the migration's
    env = {e["name"]: e["valueFrom"]["secretKeyRef"] for e in server_container(docs)["env"]}
    assert env["ENGRAM_DATABASE_URL"] == {"name": "engram-stores", "key": "DATABASE_URL"}
    assert env["ENGRAM_REDIS_URL"] == {"name": "engram-stores", "key": "REDIS_URL"}
    assert env["ENGRAM_QDRANT_URL"]["optional"] is True
    assert env["ENGRAM_LLM_API_KEY"] == {
        "name": "engram-stores",
        "key": "llm-api-key",
        "optional": True,
    }
    job = one(docs, "Job", "migrate")
    (job_env,) = job["spec"]["template"]["spec"]["containers"][0]["env"]
    assert job_env["valueFrom"]["secretKeyRef"] == {"name": "engram-stores", "key": "DATABASE_URL"}
    assert one(docs, "Deployment")["spec"]["replicas"] == 2


def test_service_monitor_ingress_and_grpc_route(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "servicemonitor-values.yaml"))
    monitor = one(docs, "ServiceMonitor")
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    endpoint = {"port": "metrics", "path": "/metrics", "interval": "15s"}
    assert monitor["spec"]["endpoints"] == [endpoint]
    annotations = one(docs, "Ingress")["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"
    route = one(docs, "GRPCRoute")
    assert route["apiVersion"] == "gateway.networking.k8s.io/v1"
    assert route["spec"]["rules"][0]["backendRefs"][0]["port"] == 50051


def test_every_setting_is_reachable_through_values(chart: Chart) -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    config_keys = set(schema["properties"]["config"]["properties"])
    settings = {f.name for f in dataclasses.fields(Settings)}
    assert config_keys | SECRET_SETTINGS | CHART_MANAGED_SETTINGS == settings
    assert not config_keys & (SECRET_SETTINGS | CHART_MANAGED_SETTINGS)
    # Each config value lands in the ConfigMap as its ENGRAM_ variable.
    values = load_values(CHART / "ci" / "defaults-values.yaml")
    values["config"] = {"embedding_threads": 2, "access_log": False, "recall_fusion": "rrf"}
    config = one(render(chart, values), "ConfigMap")["data"]
    assert config["ENGRAM_EMBEDDING_THREADS"] == "2"
    assert config["ENGRAM_ACCESS_LOG"] == "false"
    assert config["ENGRAM_RECALL_FUSION"] == "rrf"


# -- invalid values files ----------------------------------------------------------


@pytest.mark.parametrize("values_file", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_values_are_refused_with_a_clear_message(chart: Chart, values_file: Path) -> None:
    match = re.match(r"# expect: (.+)", values_file.read_text())
    assert match is not None, f"{values_file.name} names no expected message"
    with pytest.raises(HelmError) as refused:
        render(chart, load_values(values_file))
    assert match.group(1).strip() in str(refused.value)


# -- roles -------------------------------------------------------------------------


def test_roles_deploy_apart_with_their_own_resources_and_autoscaling(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "roles-values.yaml"))
    api = one(docs, "Deployment")
    indexer = one(docs, "Deployment", "indexer")
    config = one(docs, "ConfigMap")["data"]
    assert config["ENGRAM_ROLE"] == "api"
    assert config["ENGRAM_WORKERS"] == "1"

    def container(deployment: dict[str, Any]) -> dict[str, Any]:
        (found,) = deployment["spec"]["template"]["spec"]["containers"]
        return found  # type: ignore[no-any-return]

    api_env = {e["name"]: e.get("value") for e in container(api)["env"]}
    indexer_env = {e["name"]: e.get("value") for e in container(indexer)["env"]}
    assert "ENGRAM_ROLE" not in api_env  # the ConfigMap's api
    assert indexer_env["ENGRAM_ROLE"] == "indexer"  # overrides the ConfigMap's
    assert "ENGRAM_QDRANT_URL" in indexer_env
    # Each its own resources.
    assert container(indexer)["resources"]["limits"]["cpu"] == "2"
    assert container(api)["resources"]["requests"]["cpu"] == "500m"
    # The Service routes calls to API pods only: its selector (and the API
    # Deployment's) does not match the indexer pods.
    service = next(s for s in by_kind(docs, "Service") if s["spec"]["ports"][0]["name"] == "grpc")
    indexer_pod_labels = indexer["spec"]["template"]["metadata"]["labels"]
    for selector in (service["spec"]["selector"], api["spec"]["selector"]["matchLabels"]):
        assert not selector.items() <= indexer_pod_labels.items()
    assert indexer["spec"]["selector"]["matchLabels"].items() <= indexer_pod_labels.items()
    # Indexer pods answer health on the gRPC port (probes) and expose metrics.
    assert container(indexer)["readinessProbe"]["grpc"] == {"port": 50051}
    assert {p["name"] for p in container(indexer)["ports"]} == {"grpc", "metrics"}
    # Two HPAs: the API on CPU, the indexer on the backlog metric.
    hpas = {
        h["spec"]["scaleTargetRef"]["name"]: h for h in by_kind(docs, "HorizontalPodAutoscaler")
    }
    assert set(hpas) == {api["metadata"]["name"], indexer["metadata"]["name"]}
    (api_metric,) = hpas[api["metadata"]["name"]]["spec"]["metrics"]
    assert api_metric["resource"]["name"] == "cpu"
    indexer_hpa = hpas[indexer["metadata"]["name"]]["spec"]
    assert (indexer_hpa["minReplicas"], indexer_hpa["maxReplicas"]) == (1, 6)
    (backlog,) = indexer_hpa["metrics"]
    assert backlog["type"] == "External"
    assert backlog["external"]["metric"]["name"] == "engram_outbox_backlog"
    assert backlog["external"]["target"] == {"type": "AverageValue", "averageValue": "1000"}
    assert "replicas" not in indexer["spec"]  # its HPA owns it
    # Scraped (the backlog reaches Prometheus), guarded by a PDB and a NetworkPolicy.
    monitors = {m["metadata"]["name"] for m in by_kind(docs, "ServiceMonitor")}
    assert indexer["metadata"]["name"] in monitors
    pdbs = {p["metadata"]["name"] for p in by_kind(docs, "PodDisruptionBudget")}
    assert indexer["metadata"]["name"] in pdbs
    policy = one(docs, "NetworkPolicy", "indexer")
    assert [p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]] == ["metrics"]


def test_indexer_on_cpu_or_at_a_fixed_count_and_default_is_both_roles(chart: Chart) -> None:
    docs = render(chart, load_values(CHART / "ci" / "indexer-cpu-values.yaml"))
    indexer = one(docs, "Deployment", "indexer")
    assert indexer["spec"]["replicas"] == 3
    assert one(docs, "Deployment")["spec"]["replicas"] == 2
    values = load_values(CHART / "ci" / "indexer-cpu-values.yaml")
    values["indexer"]["autoscaling"] = {"enabled": True, "minReplicas": 1, "maxReplicas": 4}
    (hpa,) = [
        h
        for h in by_kind(render(chart, values), "HorizontalPodAutoscaler")
        if h["spec"]["scaleTargetRef"]["name"].endswith("-indexer")
    ]
    assert hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 70
    # Without indexer.enabled: one Deployment running both roles.
    default = render(chart, load_values(CHART / "ci" / "defaults-values.yaml"))
    assert len(by_kind(default, "Deployment")) == 1
    assert one(default, "ConfigMap")["data"]["ENGRAM_ROLE"] == "all"
