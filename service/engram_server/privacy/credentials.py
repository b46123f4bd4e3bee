"""Credential detectors: which kinds of secret a text carries, never where or what.

The service-specific token shapes come from `detect-secrets` (its plugins' own
patterns and, for JWTs, its structural check), so they follow upstream fixes.
It is weak where a secret has no fixed shape — `password=...` assignments,
bearer tokens, newer key formats (OpenAI project keys, Anthropic, GitHub
fine-grained, Stripe test keys, Hugging Face) — and over-eager where it scans for
keywords or entropy, which suits code review but not prose; those rules are
Engram's own, each with a placeholder filter so documentation such as
`password=<your password>` or `postgres://user:${PASSWORD}@db` passes.

Speed: this runs on every proposal, so no regex scans a text unless it can
match. Every rule names literal anchors (a token prefix or a keyword) that its
match must contain, checked with substring search; token-shaped rules also need
a word of at least 16 characters, which prose rarely has. A clean proposal costs
a few substring checks and no regex at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.telegram_token import TelegramBotTokenDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

Accept = Callable[[re.Match[str]], bool]

_PLACEHOLDER_WORDS = (
    "your",
    "example",
    "placeholder",
    "redacted",
    "changeme",
    "change_me",
    "dummy",
    "sample",
    "replace",
    "insert",
    "xxx",
    "***",
    "...",
    "todo",
    "os.environ",
    "getenv",
    "process.env",
    "env(",
    "env[",
    "secrets.",
    "!vault",
)
_PLACEHOLDER_VALUES = frozenset(
    {
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "required",
        "optional",
        "string",
        "str",
        "secret",
        "password",
        "passwd",
        "token",
        "empty",
        "hidden",
        "masked",
        "unset",
        "default",
    }
)
_ENV_REFERENCE = re.compile(r"^\$[A-Z_][A-Z0-9_]*$|^%[A-Z_][A-Z0-9_]*%$")


def is_placeholder(value: str) -> bool:
    """Whether an assigned value is documentation rather than a real secret."""
    v = value.strip().strip("\"'`").lower()
    if not v or v[0] in "<[({$%*" or v.startswith(("{{", "${")):
        return True
    if _ENV_REFERENCE.match(value.strip().strip("\"'`")):
        return True
    if len(set(v)) <= 2:  # "xxxxxx", "******", "------", "ababab"
        return True
    return v in _PLACEHOLDER_VALUES or any(w in v for w in _PLACEHOLDER_WORDS)


def _looks_secret(value: str, min_len: int = 6) -> bool:
    """A bare assigned value that reads like a secret, not like a word of prose."""
    v = value.strip().rstrip(".,;:!?)")
    if len(v) < min_len or is_placeholder(v):
        return False
    if v.startswith(("/", "~/", "./", "../")) and v.count("/") > 1:
        return False  # a path ("pwd: /home/alice/src"), not a secret
    has_digit = any(c.isdigit() for c in v)
    if any(c.isspace() for c in v):
        # A quoted phrase: prose unless it mixes letters and digits.
        return has_digit and any(c.isalpha() for c in v)
    has_symbol = any(not c.isalnum() for c in v)
    mixed_case = any(c.isupper() for c in v[1:]) and any(c.islower() for c in v)
    return has_digit or has_symbol or mixed_case or len(v) >= 20


Matcher = Callable[[str, str], bool]  # (text, text.lower()) -> found
LONG_TOKEN = 16


@dataclass(frozen=True)
class Rule:
    """One credential shape. `anchors` are substrings every match contains (of the
    lower-cased text when `lower`); `long_token` rules need a word of at least
    LONG_TOKEN characters. Both are checked before `matcher` runs."""

    type: str
    matcher: Matcher
    anchors: tuple[str, ...]
    lower: bool = False
    long_token: bool = True


def _regex(pattern: re.Pattern[str], accept: Accept | None = None) -> Matcher:
    def match(text: str, _low: str) -> bool:
        for m in pattern.finditer(text):
            if accept is None or accept(m):
                return True
        return False

    return match


def _bounded(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """An upstream pattern anchored so it cannot fire inside a longer token."""
    return re.compile(r"(?<![A-Za-z0-9])(?:" + pattern.pattern + r")(?![A-Za-z0-9])", pattern.flags)


def _upstream(
    type_: str, patterns: Iterable[re.Pattern[str]], anchors: tuple[str, ...], *, bounded: bool
) -> list[Rule]:
    return [Rule(type_, _regex(_bounded(p) if bounded else p), anchors) for p in patterns]


def _jwt_accept(m: re.Match[str]) -> bool:
    return bool(JwtTokenDetector.is_formally_valid(m.group(0)))


def _group_is_secret(min_len: int) -> Accept:
    def accept(m: re.Match[str]) -> bool:
        value = next((g for g in m.groups() if g), "")
        return _looks_secret(value, min_len)

    return accept


def _url_password(m: re.Match[str]) -> bool:
    value = m.group(1)
    return bool(value) and not is_placeholder(value)


def _has_digit(m: re.Match[str]) -> bool:
    return any(c.isdigit() for c in m.group(0))


# What may follow a keyword for it to be an assignment: `=`, `:`, `:=`, `=>`, or
# " is " / " was " in prose, then a quoted or bare value.
_ASSIGNED = re.compile(
    r"""["']?\s*(?::=|=>|=|:"""
    r"""|\s(?:is|was)(?:\s+(?:now|still|changed\s+to|set\s+to|reset\s+to))?\s"""
    r"""|\s(?:changed|set|reset)\s+to\s)\s*"""
    r"""(?:"([^"\n]{1,256})"|'([^'\n]{1,256})'|([^\s"'`,;]{1,256}))"""
)
# "the password for prod is ...": a short qualifier may sit between keyword and verb.
_QUALIFIER = re.compile(r"\s+(?:for|of|on|at|to)\s+(?:the\s+)?[\w.@-]{1,40}")
# "key" alone is too common in prose; only these compounds count.
_KEY_COMPOUND = re.compile(r"(?:api|access|secret|private|signing|encryption)[_-]?key$")
# Short keywords must start a word: "pass=" but not "bypass=" or "compass=".
_WORD_START_KEYWORDS = frozenset({"pass", "pwd"})


def _assignment(keywords: tuple[str, ...], min_len: int) -> Matcher:
    """Finds `<keyword> = <value>` where the value reads like a secret. Keywords
    are found with str.find on the lower-cased text; only then does a regex run,
    anchored right after the keyword."""

    def value_at(text: str, pos: int) -> bool:
        m = _ASSIGNED.match(text, pos)
        return m is not None and _looks_secret(next(g for g in m.groups() if g), min_len)

    def match(text: str, low: str) -> bool:
        for kw in keywords:
            start = low.find(kw)
            while start != -1:
                end = start + len(kw)
                if (
                    (end == len(low) or not low[end].isalnum())
                    and (kw != "key" or _KEY_COMPOUND.search(low, max(0, start - 12), end))
                    and (
                        kw not in _WORD_START_KEYWORDS or start == 0 or not low[start - 1].isalpha()
                    )
                ):
                    if value_at(text, end):
                        return True
                    q = _QUALIFIER.match(text, end)
                    if q is not None and value_at(text, q.end()):
                        return True
                start = low.find(kw, end)
        return False

    return match


def build_rules() -> tuple[Rule, ...]:
    """Every rule, most specific first, so a text is typed by its clearest shape."""
    aws = AWSKeyDetector.denylist
    gitlab_anchors: tuple[str, ...] = (
        "glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "GR1348941",
        "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-",
    )  # fmt: skip
    rules: list[Rule] = [
        Rule(
            "private_key",
            _regex(re.compile("|".join(p.pattern for p in PrivateKeyDetector.denylist))),
            ("PRIVATE KEY", "PuTTY-User-Key"),
            long_token=False,
        ),
        *_upstream(
            "aws_access_key", aws[:1], ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), bounded=True
        ),
        Rule("aws_secret_key", _regex(aws[1]), ("aws",), lower=True, long_token=False),
        Rule(
            "aws_secret_key",
            _regex(
                re.compile(
                    r"(?i)aws.{0,20}?(?:secret|key).{0,20}?(?::=|=|:)\s*[\"']?"
                    r"([0-9a-zA-Z/+]{40})(?![0-9a-zA-Z/+])"
                ),
                _has_digit,
            ),
            ("aws",),
            lower=True,
            long_token=False,
        ),
        Rule(
            "gcp_api_key",
            _regex(re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])")),
            ("AIza",),
        ),
        *_upstream(
            "azure_storage_key", AzureStorageKeyDetector.denylist, ("AccountKey",), bounded=False
        ),
        Rule(
            "azure_storage_key",
            _regex(
                re.compile(r"(?i)(?:SharedAccessKey|AccountKey)\s*=\s*([A-Za-z0-9+/]{30,}={0,2})")
            ),
            ("sharedaccesskey", "accountkey"),
            lower=True,
            long_token=False,
        ),
        *_upstream(
            "github_token",
            GitHubTokenDetector.denylist,
            ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
            bounded=True,
        ),
        Rule(
            "github_token",
            _regex(re.compile(r"(?<![\w-])github_pat_[A-Za-z0-9_]{50,}")),
            ("github_pat_",),
        ),
        *_upstream("gitlab_token", GitLabTokenDetector.denylist, gitlab_anchors, bounded=False),
        *_upstream(
            "slack_token", SlackDetector.denylist, ("xox", "XOX", "hooks.slack.com"), bounded=False
        ),
        # Stripe keys grew past the 24 characters the upstream pattern counts.
        *_upstream("stripe_key", StripeDetector.denylist, ("k_live_",), bounded=False),
        Rule(
            "stripe_key",
            _regex(re.compile(r"(?<![\w-])(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{24,}(?![\w-])")),
            ("k_test_", "k_live_"),
        ),
        Rule(
            "anthropic_key",
            _regex(re.compile(r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{20,}")),
            ("sk-ant-",),
        ),
        *_upstream("openai_key", OpenAIDetector.denylist, ("T3BlbkFJ",), bounded=False),
        Rule(
            "openai_key",
            _regex(re.compile(r"(?<![\w-])sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}")),
            ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"),
        ),
        Rule(
            "openai_key",
            _regex(re.compile(r"(?<![\w-])sk-[A-Za-z0-9]{32,}(?![\w-])"), _has_digit),
            ("sk-",),
        ),
        Rule(
            "gcp_oauth_token",
            _regex(re.compile(r"(?<![\w-])ya29\.[0-9A-Za-z_-]{20,}")),
            ("ya29.",),
        ),
        Rule(
            "huggingface_token", _regex(re.compile(r"(?<![\w-])hf_[A-Za-z]{34}(?![\w-])")), ("hf_",)
        ),
        *_upstream("sendgrid_key", SendGridDetector.denylist, ("SG.",), bounded=False),
        *_upstream("twilio_key", TwilioKeyDetector.denylist, ("AC", "SK"), bounded=True),
        *_upstream("telegram_bot_token", TelegramBotTokenDetector.denylist, (":",), bounded=True),
        *_upstream("discord_bot_token", DiscordBotTokenDetector.denylist, (".",), bounded=False),
        *_upstream("mailchimp_key", MailchimpDetector.denylist, ("-us",), bounded=True),
        *_upstream("npm_token", NpmDetector.denylist, ("_authToken",), bounded=False),
        Rule("npm_token", _regex(re.compile(r"(?<![\w-])npm_[A-Za-z0-9]{36}(?![\w-])")), ("npm_",)),
        *_upstream("pypi_token", PypiTokenDetector.denylist, ("pypi-",), bounded=False),
        *_upstream(
            "square_oauth_secret", SquareOAuthDetector.denylist, ("sq0csp-",), bounded=False
        ),
        Rule("jwt", _regex(JwtTokenDetector.denylist[0], _jwt_accept), ("eyJ",)),
        Rule(
            "url_credentials",
            _regex(
                BasicAuthDetector.denylist[0],
                _url_password,
            ),
            ("://",),
            long_token=False,
        ),
        # detect-secrets leaves out passwords with unencoded reserved characters
        # ("p4ss!word"), which people paste all the same.
        Rule(
            "url_credentials",
            _regex(
                re.compile(r"://[^\s:/@]{1,128}:([^\s@/]{1,256})@"),
                _url_password,
            ),
            ("://",),
            long_token=False,
        ),
        Rule(
            "bearer_token",
            _regex(re.compile(r"(?i)\bbearer\s+([A-Za-z0-9\-._~+/]{16,}=*)"), _group_is_secret(16)),
            ("bearer",),
            lower=True,
            long_token=False,
        ),
        Rule(
            "authorization_header",
            _regex(
                re.compile(r"(?i)\bauthorization\s*[:=]\s*[\"']?(?:basic|token|digest)\s+(\S{8,})"),
                _group_is_secret(8),
            ),
            ("authorization",),
            lower=True,
            long_token=False,
        ),
        Rule(
            "password_assignment",
            _assignment(("password", "passwd", "passphrase", "pass", "pwd"), 6),
            ("pass", "pwd"),
            lower=True,
            long_token=False,
        ),
        Rule(
            "secret_assignment",
            _assignment(("secret", "token", "key"), 8),
            ("secret", "token", "key"),
            lower=True,
            long_token=False,
        ),
    ]
    return tuple(rules)


class CredentialDetector:
    """Names the credential types a text carries (empty when none)."""

    def __init__(self, rules: tuple[Rule, ...] | None = None) -> None:
        self.rules = rules if rules is not None else build_rules()
        # anchor -> indexes of the rules it can start, per haystack: the long
        # words, the text itself, and its lower case.
        self._by_token: dict[str, list[int]] = {}
        self._by_text: dict[str, list[int]] = {}
        self._by_low: dict[str, list[int]] = {}
        for i, rule in enumerate(self.rules):
            if rule.long_token:
                table = self._by_token
            else:
                table = self._by_low if rule.lower else self._by_text
            for anchor in rule.anchors:
                table.setdefault(anchor, []).append(i)

    def _candidates(self, text: str) -> list[tuple[Rule, str, str]]:
        """The rules whose anchors occur, each with the text it must scan.

        Token-shaped rules scan only the long words: a token never contains
        whitespace, and a typical proposal has no word of 16+ characters, so
        they usually do not run at all."""
        low = text.lower()
        hits: set[int] = set()
        for anchor, indexes in self._by_low.items():
            if anchor in low:
                hits.update(indexes)
        for anchor, indexes in self._by_text.items():
            if anchor in text:
                hits.update(indexes)
        tokens = ""
        if len(text) >= LONG_TOKEN:
            tokens = " ".join([w for w in text.split() if len(w) >= LONG_TOKEN])
            if tokens:
                for anchor, indexes in self._by_token.items():
                    if anchor in tokens:
                        hits.update(indexes)
        if not hits:
            return []
        out: list[tuple[Rule, str, str]] = []
        for i in sorted(hits):
            rule = self.rules[i]
            out.append((rule, tokens, tokens) if rule.long_token else (rule, text, low))
        return out

    def might_carry(self, text: str) -> bool:
        """The cheap pre-check: False means no rule can match."""
        return bool(self._candidates(text))

    def types(self, text: str) -> list[str]:
        """Every credential type found, in rule order, without repeats."""
        found: list[str] = []
        for rule, haystack, low in self._candidates(text):
            if rule.type not in found and rule.matcher(haystack, low):
                found.append(rule.type)
        return found
