"""docs/security.md runs as written: a credential is refused with nothing stored,
an email is redacted, and a space's policy lets emails through."""

from __future__ import annotations

from typing import Any

import engram
import pytest

from tests.docs_examples import run_page_as


async def test_the_security_page_runs(make_tenant: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant = await make_tenant()
    namespace = await run_page_as(tenant, "security.md", monkeypatch)
    leaked = namespace["leaked"]
    assert leaked.outcome is engram.ProposalOutcome.REJECTED and leaked.memory is None
    assert leaked.privacy_findings == (
        engram.PrivacyFinding(
            category="credential",
            type="aws_access_key",
            action="dropped",
            field="proposal.content",
        ),
    )
    assert namespace["redacted"].memory.content == "Invoices go to [EMAIL]"
    kept = namespace["kept"]
    assert kept.outcome is engram.ProposalOutcome.ACCEPTED and kept.privacy_findings == ()
    assert kept.memory.content == "Invoices go to ana@acme.com"
    # Nothing of the credential was stored.
    async with engram.AsyncClient(tenant.address, tenant.secret) as client:
        assert [m async for m in client.list(space="ops")] == []
