"""Which scope each RPC needs.

One table, keyed by full method name. A method that is not in the table is denied
(an RPC added to a proto without a line here fails closed). A key needs at least
one of the listed scopes; `platform` is not a superset of the others: a platform
administrator's key reads memories only if it also holds `read`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from engram_server.platform.principal import (
    SCOPE_ADMIN,
    SCOPE_OPERATOR,
    SCOPE_PLATFORM,
    SCOPE_READ,
    SCOPE_WRITE,
)

PACKAGE = "engram.v1"

READ = frozenset({SCOPE_READ})
WRITE = frozenset({SCOPE_WRITE})
ADMIN = frozenset({SCOPE_ADMIN})
OPERATOR = frozenset({SCOPE_OPERATOR})
# The admin servicer then tells a platform administrator from a tenant one.
ADMIN_OR_PLATFORM = frozenset({SCOPE_ADMIN, SCOPE_PLATFORM})
# Pool management: an owner's `write`, or a tenant administrator's `admin`.
WRITE_OR_ADMIN = frozenset({SCOPE_WRITE, SCOPE_ADMIN})
READ_OR_ADMIN = frozenset({SCOPE_READ, SCOPE_ADMIN})

# Services that answer without an API key (load balancers, grpcurl, k8s probes).
PUBLIC_SERVICES = frozenset(
    {
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    }
)

# service -> method -> scopes (any one of them suffices).
_SERVICES: dict[str, dict[str, frozenset[str]]] = {
    "LifecycleService": {
        "ProposeMemory": WRITE,
        "BatchProposeMemories": WRITE,
        "ConfirmMemory": WRITE,
        "RejectMemory": WRITE,
        "RetractMemory": WRITE,
        "ReviseMemory": WRITE,
        "UpdateMemoryConfidence": WRITE,
        "ExpireDueMemories": OPERATOR,
        "GetMemory": READ,
        "ListMemories": READ,
        "ListMemoryRevisions": READ,
        "ListAuditEntries": READ,
        "PurgeMemories": ADMIN,
        "WatchTransitions": READ,
        "GetPolicy": READ,
        "SetPolicy": ADMIN,
        "AppendMessage": WRITE,
        "AppendMessages": WRITE,
        "GetSessionWindow": READ,
        "ListSessions": READ,
        "ClearSession": WRITE,
        "Reflect": WRITE,
        "Learn": WRITE,
        "Consolidate": WRITE,
        "Dream": OPERATOR,
    },
    "RecallService": {
        "Recall": READ,
        "BuildContext": READ,
        # Buffers the message in working memory.
        "Engage": WRITE,
        "CreateSnapshot": WRITE,
        "GetSnapshot": READ,
        "ListSnapshots": READ,
        "RestoreSnapshot": WRITE,
        "DeleteSnapshot": WRITE,
        "DiffSnapshots": READ,
        "GetIndexStatus": READ,
    },
    "EvidenceService": {
        # OFFICIAL grades also need `operator`: the servicer checks that.
        "SetEvidenceLevel": WRITE,
        # Reports with `read`; `apply` also needs `write` (the servicer checks that).
        "AssessMemory": READ,
        "GetConflict": READ,
        "ListConflicts": READ,
        "ResolveConflict": WRITE,
        "CreateEdge": WRITE,
        "GetEdge": READ,
        "ListEdges": READ,
        "DeleteEdge": WRITE,
        "GetSpaceProfile": READ,
        "ListSpaceProfiles": READ,
    },
    # Pool roles (owner, writer, reader) are checked by the servicer on top; a
    # tenant administrator manages any pool of its tenant (the servicer admits
    # `admin` only for those RPCs) but reads publications only as a member.
    "PoolService": {
        "CreatePool": WRITE,
        "GetPool": READ_OR_ADMIN,
        "ListPools": READ_OR_ADMIN,
        "UpdatePool": WRITE_OR_ADMIN,
        "DeletePool": WRITE_OR_ADMIN,
        "AddPoolMember": WRITE_OR_ADMIN,
        "RemovePoolMember": WRITE_OR_ADMIN,
        "ListPoolMembers": READ_OR_ADMIN,
        "PublishMemory": WRITE,
        "UnpublishMemory": WRITE,
        "ReviewPublication": WRITE,
        "GetPublication": READ,
        "ListPublications": READ,
        "GetAgentTrust": READ_OR_ADMIN,
        "ListAgentTrusts": READ_OR_ADMIN,
        "SyncPool": READ,
        "ListTopics": READ,
        "SubscribeTopic": READ,
    },
    "DecisionsService": {
        "IngestCommits": WRITE,
        "CreateDecision": WRITE,
        "GetDecision": READ,
        "ListDecisions": READ,
        "SearchDecisions": READ,
        "ExplainCode": READ,
        "RecordDecisionOutcome": WRITE,
        # Reads the session's buffer and writes decisions.
        "IngestSession": WRITE,
    },
    "AdminService": {
        "CreateTenant": ADMIN_OR_PLATFORM,
        "GetTenant": ADMIN_OR_PLATFORM,
        # A tenant administrator may change only its own tenant's `llm`.
        "UpdateTenant": ADMIN_OR_PLATFORM,
        "ListTenants": ADMIN_OR_PLATFORM,
        "DeleteTenant": ADMIN_OR_PLATFORM,
        "CreateApiKey": ADMIN_OR_PLATFORM,
        "ListApiKeys": ADMIN_OR_PLATFORM,
        "RevokeApiKey": ADMIN_OR_PLATFORM,
        "GetUsage": ADMIN_OR_PLATFORM,
        "DeleteApiKey": ADMIN_OR_PLATFORM,
        # Groups of agent identities: tenant administrators, their own tenant (the
        # servicer refuses a platform key without `admin`).
        "CreateGroup": ADMIN_OR_PLATFORM,
        "GetGroup": ADMIN_OR_PLATFORM,
        "ListGroups": ADMIN_OR_PLATFORM,
        "AddGroupMember": ADMIN_OR_PLATFORM,
        "RemoveGroupMember": ADMIN_OR_PLATFORM,
        "DeleteGroup": ADMIN_OR_PLATFORM,
    },
}


def _flatten(services: Mapping[str, Mapping[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    return {
        f"/{PACKAGE}.{service}/{method}": scopes
        for service, methods in services.items()
        for method, scopes in methods.items()
    }


REQUIRED_SCOPES: Mapping[str, frozenset[str]] = _flatten(_SERVICES)


def service_of(method: str) -> str:
    """`/pkg.Service/Method` -> `pkg.Service`."""
    return method.lstrip("/").split("/", 1)[0]


def is_public(method: str) -> bool:
    return service_of(method) in PUBLIC_SERVICES


class ScopeTable:
    """The scope table a server enforces: the built-in one plus any additions."""

    def __init__(self, extra: Mapping[str, Iterable[str]] | None = None) -> None:
        self._table: dict[str, frozenset[str]] = dict(REQUIRED_SCOPES)
        if extra:
            self.add(extra)

    def add(self, methods: Mapping[str, Iterable[str]]) -> None:
        """Adds full method names with the scopes each accepts."""
        for method, scopes in methods.items():
            self._table[method] = frozenset(scopes)

    def required(self, method: str) -> frozenset[str] | None:
        """The scopes that admit `method`, or None when the method is unknown."""
        return self._table.get(method)

    def methods(self) -> frozenset[str]:
        return frozenset(self._table)
