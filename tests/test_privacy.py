"""The privacy boundary itself: detectors, checksums, sentence mode, the corpus score,
and the policy lookup of services/privacy_gate.py on the real database."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from engram.v1 import lifecycle_pb2
from engram_server.platform.egress import EgressPolicy
from engram_server.platform.webhooks import HttpWebhookCaller
from engram_server.privacy import (
    CREDENTIAL,
    DROPPED,
    PERSONAL_DATA,
    PERSONAL_DATA_TYPES,
    REDACTED,
    PrivacyBoundary,
    PrivacyFinding,
    Screened,
    default_boundary,
)
from engram_server.privacy.evaluation import evaluate, load_corpus
from engram_server.privacy.personal import iban_valid, luhn_valid
from engram_server.services import privacy_gate
from engram_server.services.lifecycle import LifecycleService

CORPUS = Path(__file__).parent / "data" / "privacy_corpus.jsonl"
GITHUB_TOKEN = "ghp_" + "x9Kq2LmN4pR7sT1vW3yZ5aB8cD0eF6gH2jJ4"


@pytest.fixture(scope="module")
def boundary() -> PrivacyBoundary:
    return default_boundary()


def test_default_boundary_is_one_instance() -> None:
    assert default_boundary() is default_boundary()


def test_corpus_is_big_enough_and_scores() -> None:
    rows = load_corpus(CORPUS)
    positives = [r for r in rows if r["expect"]]
    negatives = [r for r in rows if not r["expect"]]
    assert len(positives) >= 80 and len(negatives) >= 80
    assert {e["type"] for r in positives for e in r["expect"]} >= set(PERSONAL_DATA_TYPES)
    report = evaluate(rows)
    cred, pd = report.categories[CREDENTIAL], report.categories[PERSONAL_DATA]
    assert cred.recall == 1.0, report.misses
    assert cred.precision >= 0.95, report.misses
    assert pd.recall >= 0.95 and pd.precision >= 0.95, report.misses
    # Every positive is named by its exact detector type.
    assert all(s.recall == 1.0 for s in report.types.values()), report.misses


def test_findings_never_carry_the_matched_text(boundary: PrivacyBoundary) -> None:
    for row in load_corpus(CORPUS):
        for screened in (
            boundary.screen(row["text"], "f"),
            boundary.screen_sentences(row["text"], "f"),
        ):
            rendered = json.dumps([f.__dict__ for f in screened.findings])
            # Every secret and identifier in the corpus has a digit; no detector
            # type or field name does.
            for word in row["text"].split():
                if any(c.isdigit() for c in word):
                    assert word not in rendered


def test_credential_drops_the_whole_atom(boundary: PrivacyBoundary) -> None:
    screened = boundary.screen(f"CI uses {GITHUB_TOKEN}; ask ana@acme-corp.com", "c")
    assert screened == Screened(None, (PrivacyFinding(CREDENTIAL, "github_token", DROPPED, "c"),))
    assert screened.dropped


def test_personal_data_is_replaced_by_typed_placeholders(boundary: PrivacyBoundary) -> None:
    text = (
        "Mail ana@acme-corp.com or call (415) 555-2671; card 4111-1111-1111-1111, "
        "IBAN GB29 NWBK 6016 1331 9268 19, SSN 536-22-8726, NINO AB 12 34 56 C, "
        "host 203.0.113.45 / 2001:db8::7."
    )
    screened = boundary.screen(text, "content")
    assert screened.text == (
        "Mail [EMAIL] or call [PHONE]; card [PAYMENT_CARD], IBAN [IBAN], SSN [US_SSN], "
        "NINO [UK_NINO], host [IP_ADDRESS] / [IP_ADDRESS]."
    )
    assert [f.type for f in screened.findings] == [
        "email",
        "phone",
        "payment_card",
        "iban",
        "us_ssn",
        "uk_nino",
        "ip_address",
    ]
    assert all(f.category == PERSONAL_DATA and f.action == REDACTED for f in screened.findings)


def test_allowed_types_pass_untouched(boundary: PrivacyBoundary) -> None:
    text = "ana@acme-corp.com, +44 20 7946 0958"
    screened = boundary.screen(text, "c", allow=frozenset({"email"}))
    assert screened.text == "ana@acme-corp.com, [PHONE]"
    assert [f.type for f in screened.findings] == ["phone"]
    assert boundary.screen(text, "c", allow=frozenset(PERSONAL_DATA_TYPES)) == Screened(text)


def test_clean_text_is_returned_as_is(boundary: PrivacyBoundary) -> None:
    text = "Deploys run at 10:30 on Tuesdays from build 20231104.3 (v2.10.4)."
    assert boundary.screen(text, "c") == Screened(text)
    assert boundary.screen("", "c") == Screened("")


def test_checksums() -> None:
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("DE89370400440532013000") and not iban_valid("DE89370400440532013001")


def test_sentence_mode_drops_only_the_sentences_with_credentials(
    boundary: PrivacyBoundary,
) -> None:
    text = (
        "We moved the cron to 3am. The deploy token is "
        f"{GITHUB_TOKEN} for now. Ping ana@acme-corp.com when done.\n"
        "password=Xk9#mPq2vL\n"
        "Thanks!"
    )
    screened = boundary.screen_sentences(text, "turns[0].content")
    assert screened.text == "We moved the cron to 3am. Ping [EMAIL] when done.\nThanks!"
    # "token is ghp_..." is both a GitHub token and a secret assignment.
    assert [(f.type, f.action) for f in screened.findings] == [
        ("github_token", DROPPED),
        ("secret_assignment", DROPPED),
        ("password_assignment", DROPPED),
        ("email", REDACTED),
    ]


def test_sentence_mode_removes_private_key_blocks_whole(boundary: PrivacyBoundary) -> None:
    body = "MIIEowIBAAKCAQEA7yq4dYkR2Jm0vO3bF1sX9nW8tQ5pL6cZ4hG2kN1mA3eU0rY7"
    text = (
        "Here is the deploy key:\n-----BEGIN RSA PRIVATE KEY-----\n"
        f"{body}\n{body[::-1]}\n-----END RSA PRIVATE KEY-----\nUse it carefully."
    )
    screened = boundary.screen_sentences(text, "m")
    assert screened.text is not None
    assert body not in screened.text and body[::-1] not in screened.text
    assert "Use it carefully." in screened.text
    assert [f.type for f in screened.findings] == ["private_key"]


def test_sentence_mode_is_none_when_nothing_is_left(boundary: PrivacyBoundary) -> None:
    screened = boundary.screen_sentences(f"  {GITHUB_TOKEN}  ", "m")
    assert screened.dropped and screened.findings[0].type == "github_token"


def test_sentence_mode_keeps_clean_text_byte_for_byte(boundary: PrivacyBoundary) -> None:
    text = "  Line one.\n\nLine two!  \n"
    assert boundary.screen_sentences(text, "m") == Screened(text)


async def test_screen_text_uses_the_space_policy(app: Any, make_tenant: Any) -> None:
    t = await make_tenant()
    other = await make_tenant()
    await t.lifecycle.SetPolicy(
        lifecycle_pb2.SetPolicyRequest(
            policy=lifecycle_pb2.Policy(name="spaces/crm/policy", allowed_personal_data=["phone"])
        )
    )
    service = LifecycleService(
        app.db,
        HttpWebhookCaller(EgressPolicy.from_settings(app.settings)),
        app.settings.max_content_bytes,
    )
    text = f"Call +44 20 7946 0958. Token {GITHUB_TOKEN} is old."
    assert await privacy_gate.allowed_personal_data(service, t.tenant_id, "crm") == {"phone"}
    assert await privacy_gate.allowed_personal_data(service, t.tenant_id, "ops") == frozenset()
    assert await privacy_gate.allowed_personal_data(service, other.tenant_id, "crm") == frozenset()
    kept = await privacy_gate.screen_text(
        service, t.tenant_id, "crm", text, "message.content", sentences=True
    )
    assert kept.text == "Call +44 20 7946 0958."
    assert [f.type for f in kept.findings] == ["github_token"]
    redacted = await privacy_gate.screen_text(
        service, other.tenant_id, "crm", text, "message.content", sentences=True
    )
    assert redacted.text == "Call [PHONE]."
    atom = await privacy_gate.screen_text(
        service, t.tenant_id, "crm", text, "message.content", sentences=False
    )
    assert atom.dropped


def test_sentence_mode_removes_putty_key_files_whole(boundary: PrivacyBoundary) -> None:
    secret_line = "AAAAgQCm4kZ2Vx9Lq7Pp3Rr5Tt8Uu1Ww4Yy6Zz0Bb2Cc3Dd5Ee7Ff9Gg1Hh3Jj5Kk7"
    text = (
        "Key file follows.\nPuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\n"
        f"Private-Lines: 1\n{secret_line}\nPrivate-MAC: 3f2a9c\nThat is all."
    )
    screened = boundary.screen_sentences(text, "m")
    assert screened.text == "Key file follows.\nThat is all."
    assert [f.type for f in screened.findings] == ["private_key"]


def test_short_texts_are_never_findings(boundary: PrivacyBoundary) -> None:
    for text in ("a", "lang", "pwd=1", "1.2.3"):
        assert boundary.screen(text, "tag") == Screened(text)
    assert boundary.screen("a@b.co", "tag").text == "[EMAIL]"


def test_sentence_mode_output_never_carries_a_credential(boundary: PrivacyBoundary) -> None:
    for row in load_corpus(CORPUS):
        screened = boundary.screen_sentences(row["text"], "m")
        if any(e["category"] == CREDENTIAL for e in row["expect"]):
            assert any(f.category == CREDENTIAL for f in screened.findings), row["note"]
        if screened.text is not None:
            again = boundary.screen(screened.text, "m")
            assert not any(f.category == CREDENTIAL for f in again.findings), row["text"]
        if not row["expect"]:
            assert screened == Screened(row["text"]), row["note"]
