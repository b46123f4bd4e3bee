"""The privacy boundary on the Propose path, end to end over gRPC on real PostgreSQL.

A credential drops its proposal (REJECTED, nothing stored anywhere: memories,
revisions, audit, outbox, idempotency records, logs); personal data is stored
redacted unless the space's policy allows its type.
"""

from __future__ import annotations

import logging
from typing import Any

import grpc
import pytest
from engram.v1 import lifecycle_pb2, types_pb2
from google.protobuf.json_format import MessageToDict
from google.protobuf.struct_pb2 import Struct

from tests.lifecycle_helpers import count_rows, field_violations, proposal, propose

OUTCOME = lifecycle_pb2.ProposalOutcome
AWS_KEY = "AKIAZ7Q4NX2MP9KD3LTV"
GITHUB_TOKEN = "ghp_" + "x9Kq2LmN4pR7sT1vW3yZ5aB8cD0eF6gH2jJ4"
TABLES = ("memories", "memory_revisions", "audit_log", "outbox", "idempotency")


async def _rows_text(raw_pg: Any, tenant_id: str) -> str:
    """Every stored byte of the tenant's rows in the write-path tables."""
    chunks = []
    for table in TABLES:
        cur = await raw_pg.execute(
            f"SELECT t::text FROM {table} t WHERE tenant_id = %s", (tenant_id,)
        )
        chunks.extend(row[0] for row in await cur.fetchall())
    return "\n".join(chunks)


def _findings(result: lifecycle_pb2.ProposalResult) -> list[tuple[str, str, str, str]]:
    return [(f.category, f.type, f.action, f.field) for f in result.privacy_findings]


async def test_credential_is_rejected_and_never_stored(
    make_tenant: Any, raw_pg: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    t = await make_tenant()
    content = f"The uploader uses access key {AWS_KEY} in staging"
    result = await propose(t.lifecycle, "ops", content, request_id="req-aws-1")
    assert result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_REJECTED")
    assert not result.HasField("memory")
    assert _findings(result) == [("credential", "aws_access_key", "dropped", "proposal.content")]
    [failure] = result.failures
    assert failure.validator == "privacy" and failure.critical
    assert failure.field == "proposal.content"
    assert "aws_access_key" in failure.message and "nothing was stored" in failure.message
    assert AWS_KEY not in str(result)
    for table in TABLES:
        assert await count_rows(raw_pg, table, t.tenant_id) == 0, table
    assert AWS_KEY not in await _rows_text(raw_pg, t.tenant_id)
    # A retry with the same request id gives the same answer and still stores nothing.
    again = await propose(t.lifecycle, "ops", content, request_id="req-aws-1")
    assert again == result
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0
    assert AWS_KEY not in caplog.text


async def test_credential_in_tags_attributes_or_structure_drops_the_proposal(
    make_tenant: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    from google.protobuf.struct_pb2 import Struct

    structured = Struct()
    structured.update({"config": {"db": "postgres://app:Zq8vPm3kLw@db.internal:5432/app"}})
    keyed = Struct()  # a key can be a pasted secret too, as an attribute's can
    keyed.update({"config": {"tokens": {GITHUB_TOKEN: "ci"}}})
    cases = [
        ("tags", {"tags": [GITHUB_TOKEN]}, "proposal.tags[0]", "github_token"),
        ("attributes", {"attributes": {"note": GITHUB_TOKEN}}, "proposal.attributes[note]", None),
        ("source", {"source": f"token {GITHUB_TOKEN}"}, "proposal.source", "github_token"),
        (
            "structured",
            {"structured_content": structured},
            "proposal.structured_content.config.db",
            "url_credentials",
        ),
        (
            "structured key",
            {"structured_content": keyed},
            "proposal.structured_content.config.tokens",
            "github_token",
        ),
    ]
    for _, extra, field, type_ in cases:
        result = await propose(t.lifecycle, "ops", "A harmless fact about deploys", **extra)
        assert result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_REJECTED")
        assert [f.field for f in result.failures] == [field]
        if type_:
            assert result.privacy_findings[0].type == type_
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0
    assert "Zq8vPm3kLw" not in await _rows_text(raw_pg, t.tenant_id)
    assert GITHUB_TOKEN not in await _rows_text(raw_pg, t.tenant_id)


async def test_batch_drops_only_the_atom_with_the_credential(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    request = lifecycle_pb2.BatchProposeMemoriesRequest(
        proposals=[
            proposal("ops", "Deploys happen on Tuesdays"),
            proposal("ops", "Rollbacks need two approvals"),
            proposal("ops", f"CI pushes with {GITHUB_TOKEN}"),
            proposal("ops", "Write to ana.lopez@acme-corp.com about rollbacks"),
        ],
        request_id="batch-1",
    )
    response = await t.lifecycle.BatchProposeMemories(request)
    outcomes = [r.outcome for r in response.results]
    accepted = OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    assert outcomes == [accepted, accepted, OUTCOME.Value("PROPOSAL_OUTCOME_REJECTED"), accepted]
    assert response.results[2].failures[0].field == "proposals[2].content"
    assert _findings(response.results[2]) == [
        ("credential", "github_token", "dropped", "proposals[2].content")
    ]
    assert response.results[3].memory.content == "Write to [EMAIL] about rollbacks"
    assert _findings(response.results[3]) == [
        ("personal_data", "email", "redacted", "proposals[3].content")
    ]
    assert not response.results[0].privacy_findings
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 3
    stored = await _rows_text(raw_pg, t.tenant_id)
    assert GITHUB_TOKEN not in stored and "ana.lopez" not in stored
    # The retry replays the first outcome: same memories, nothing new.
    again = await t.lifecycle.BatchProposeMemories(request)
    assert again == response
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 3


async def test_batch_of_only_credentials_stores_nothing(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    response = await t.lifecycle.BatchProposeMemories(
        lifecycle_pb2.BatchProposeMemoriesRequest(
            proposals=[proposal("ops", f"key {AWS_KEY}"), proposal("ops", "password=Xk9#mPq2vL")]
        )
    )
    assert [r.privacy_findings[0].type for r in response.results] == [
        "aws_access_key",
        "password_assignment",
    ]
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0


async def test_personal_data_is_redacted_before_hashing_and_storage(
    make_tenant: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    content = "Ana's card 4111 1111 1111 1111 and phone +44 20 7946 0958 are on file"
    result = await propose(t.lifecycle, "crm", content, tags=["owner:ana@acme-corp.com"])
    assert result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    assert result.memory.content == "Ana's card [PAYMENT_CARD] and phone [PHONE] are on file"
    assert list(result.memory.tags) == ["owner:[EMAIL]"]
    assert {(f.type, f.field) for f in result.privacy_findings} == {
        ("payment_card", "proposal.content"),
        ("phone", "proposal.content"),
        ("email", "proposal.tags[0]"),
    }
    assert all(f.action == "redacted" for f in result.privacy_findings)
    stored = await _rows_text(raw_pg, t.tenant_id)
    assert "4111" not in stored and "7946" not in stored and "ana@" not in stored
    # Proposing the same text again is a duplicate of the redacted memory.
    again = await propose(t.lifecycle, "crm", content, tags=["owner:ana@acme-corp.com"])
    assert again.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_DUPLICATE")
    assert again.memory.name == result.memory.name


async def test_space_policy_allows_a_personal_data_type(make_tenant: Any) -> None:
    t = await make_tenant()
    other = await make_tenant()
    policy = await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/crm/policy", allowed_personal_data=["email"])
        )
    )
    assert list(policy.allowed_personal_data) == ["email"]
    got = await t.lifecycle.GetPolicy(lifecycle_pb2.GetPolicyRequest(name="spaces/crm/policy"))
    assert list(got.allowed_personal_data) == ["email"]
    content = "Invoices go to billing@acme-corp.com, escalations to +1-202-555-0143"
    result = await propose(t.lifecycle, "crm", content)
    assert result.memory.content == "Invoices go to billing@acme-corp.com, escalations to [PHONE]"
    assert _findings(result) == [("personal_data", "phone", "redacted", "proposal.content")]
    # Another space of the tenant, and the same space of another tenant, still redact.
    elsewhere = await propose(t.lifecycle, "sales", content)
    assert elsewhere.memory.content.startswith("Invoices go to [EMAIL]")
    foreign = await propose(other.lifecycle, "crm", content)
    assert foreign.memory.content.startswith("Invoices go to [EMAIL]")
    # Credentials are never allowed, whatever the policy.
    dropped = await propose(t.lifecycle, "crm", f"key {AWS_KEY}")
    assert dropped.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_REJECTED")


async def test_unknown_personal_data_type_is_invalid_argument(make_tenant: Any) -> None:
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.SetPolicy(
            lifecycle_pb2.SetPolicyRequest(
                policy=lifecycle_pb2.Policy(
                    name="spaces/crm/policy", allowed_personal_data=["email", "passwords"]
                )
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert field_violations(err.value) == ["policy.allowed_personal_data[1]"]
    got = await t.lifecycle.GetPolicy(lifecycle_pb2.GetPolicyRequest(name="spaces/crm/policy"))
    assert list(got.allowed_personal_data) == []


async def test_invalid_input_is_reported_before_screening_and_never_echoes_the_secret(
    make_tenant: Any, raw_pg: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    t = await make_tenant()
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await t.lifecycle.ProposeMemory(
            lifecycle_pb2.ProposeMemoryRequest(
                proposal=lifecycle_pb2.MemoryProposal(
                    space="ops", content=f"key {AWS_KEY}", confidence=2.0
                )
            )
        )
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "proposal.confidence" in field_violations(err.value)
    assert AWS_KEY not in (err.value.details() or "")
    assert AWS_KEY not in str(err.value.trailing_metadata())
    assert await count_rows(raw_pg, "memories", t.tenant_id) == 0
    assert AWS_KEY not in caplog.text


async def test_revision_passes_the_boundary_too(make_tenant: Any, raw_pg: Any) -> None:
    from google.protobuf.field_mask_pb2 import FieldMask

    t = await make_tenant()
    stored = (await propose(t.lifecycle, "ops", "Deploy notes for the uploader")).memory

    def revise(content: str, etag: str) -> Any:
        memory = types_pb2.Memory(name=stored.name, etag=etag, content=content)
        return t.lifecycle.ReviseMemory(
            lifecycle_pb2.ReviseMemoryRequest(
                memory=memory, update_mask=FieldMask(paths=["content"])
            )
        )

    with pytest.raises(grpc.aio.AioRpcError) as err:
        await revise(f"The uploader uses access key {AWS_KEY}", stored.etag)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "memory.content" in field_violations(err.value)
    assert AWS_KEY not in (err.value.details() or "")
    assert AWS_KEY not in await _rows_text(raw_pg, t.tenant_id)

    revised = await revise("Send deploy notes to ana.lopez@acme-corp.com", stored.etag)
    assert revised.content == "Send deploy notes to [EMAIL]"
    assert revised.revision == stored.revision + 1
    assert "ana.lopez" not in await _rows_text(raw_pg, t.tenant_id)


async def test_keys_holding_personal_data_are_redacted(make_tenant: Any, raw_pg: Any) -> None:
    t = await make_tenant()
    structured = Struct()
    structured.update({"contacts": {"ana.lopez@acme-corp.com": "owner", "team": "red"}})
    result = await propose(
        t.lifecycle,
        "crm",
        "Who owns the account",
        attributes={"+44 20 7946 0958": "desk phone"},
        structured_content=structured,
    )
    assert result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")
    assert dict(result.memory.attributes) == {"[PHONE]": "desk phone"}
    assert MessageToDict(result.memory.structured_content) == {
        "contacts": {"[EMAIL]": "owner", "team": "red"}
    }
    # The finding names the object holding the key, never the key.
    assert {(f.type, f.field) for f in result.privacy_findings} == {
        ("phone", "proposal.attributes"),
        ("email", "proposal.structured_content.contacts"),
    }
    stored = await _rows_text(raw_pg, t.tenant_id)
    assert "ana.lopez" not in stored and "7946" not in stored


async def test_keys_that_collide_once_redacted_refuse_the_proposal(
    make_tenant: Any, raw_pg: Any
) -> None:
    t = await make_tenant()
    structured = Struct()
    structured.update({"owners": {"ana@acme-corp.com": "billing", "bob@acme-corp.com": "legal"}})
    result = await propose(t.lifecycle, "crm", "Account owners", structured_content=structured)
    assert result.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_REJECTED")
    assert not result.HasField("memory")
    [failure] = result.failures
    assert failure.validator == "privacy" and failure.critical
    assert failure.field == "proposal.structured_content.owners"
    assert "same placeholder" in failure.message
    stored = await _rows_text(raw_pg, t.tenant_id)
    assert "Account owners" not in stored and "acme-corp" not in stored
    # Where the space lets emails through, nothing collides.
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/crm/policy", allowed_personal_data=["email"])
        )
    )
    allowed = await propose(t.lifecycle, "crm", "Account owners", structured_content=structured)
    assert allowed.outcome == OUTCOME.Value("PROPOSAL_OUTCOME_ACCEPTED")


async def test_a_dotted_key_beside_a_nested_one_keeps_both_values(make_tenant: Any) -> None:
    """`"a.b"` and `{"a": {"b": ...}}` print as the same path; each keeps its own
    redacted value."""
    t = await make_tenant()
    structured = Struct()
    structured.update({"a.b": "call +44 20 7946 0958", "a": {"b": "write to ana@acme-corp.com"}})
    result = await propose(t.lifecycle, "crm", "Two contacts", structured_content=structured)
    assert MessageToDict(result.memory.structured_content) == {
        "a.b": "call [PHONE]",
        "a": {"b": "write to [EMAIL]"},
    }
