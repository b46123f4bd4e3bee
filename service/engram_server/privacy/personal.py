"""Personal-data detectors: where a text carries personal data, and of which type.

Each detector is a shape plus a validation that real data passes and look-alikes
mostly fail: the Luhn check and issuer prefixes for card numbers, ISO 13616
mod-97 and the country's length for IBANs, octet and group ranges for IP
addresses, the SSA's never-issued ranges for US SSNs, HMRC's prefix rules for UK
National Insurance numbers, NANP area/exchange rules for North American phone
numbers. Validation is what keeps order numbers, version strings, timestamps and
hashes out of the redactions.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

EMAIL = "email"
PHONE = "phone"
PAYMENT_CARD = "payment_card"
IBAN = "iban"
IP_ADDRESS = "ip_address"
US_SSN = "us_ssn"
UK_NINO = "uk_nino"

# In priority order: when two detections overlap, the earlier type wins.
PERSONAL_DATA_TYPES: tuple[str, ...] = (
    EMAIL,
    IBAN,
    PAYMENT_CARD,
    US_SSN,
    UK_NINO,
    IP_ADDRESS,
    PHONE,
)


def placeholder(type_: str) -> str:
    """The typed placeholder that replaces personal data of `type_`."""
    return f"[{type_.upper()}]"


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    type: str


_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+([A-Za-z]{2,24})(?![\w-])"
)
_FILE_SUFFIXES = frozenset({"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "pdf"})


def _emails(text: str) -> Iterator[Span]:
    if "@" not in text:
        return
    for m in _EMAIL.finditer(text):
        if m.group(1).lower() in _FILE_SUFFIXES:  # "logo@2x.png"
            continue
        if text.startswith(":", m.end()) and not text.startswith(": ", m.end()):
            continue  # an SSH remote such as git@github.com:org/repo.git
        if text.endswith("://", 0, m.start()):
            continue  # the user part of a URL (https://deploy@git.example.com)
        yield Span(m.start(), m.end(), EMAIL)


_CARD = re.compile(r"(?<![\d.-])\d(?:[ -]?\d){12,18}(?![\d-]|\.\d)")
_CARD_HINT = re.compile(r"\d(?:[ -]?\d){12}")


def _scan(pattern: re.Pattern[str], hint: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern`'s matches in `text`, looked for only if the text holds `hint`, a
    shape every match of the pattern contains. The patterns open with a lookbehind,
    which the regex engine tries at every position of the text (8 µs for the SSN
    rules on a 100-character note); a hint opens with a character class the engine
    skips ahead to, so a text without the shape costs a fraction of that, and a
    text with it is scanned exactly as before."""
    return pattern.finditer(text) if hint.search(text) else iter(())


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _card_issuer_ok(d: str) -> bool:
    """Issuer prefix and length of the major networks (Visa, Mastercard, Amex,
    Discover, JCB, Diners, UnionPay, Maestro)."""
    n = len(d)
    if d[0] == "4":
        return n in (13, 16, 19)
    two, four = int(d[:2]), int(d[:4])
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if d.startswith(("6011", "65")) or 644 <= int(d[:3]) <= 649:
        return 16 <= n <= 19
    if two == 35:
        return 16 <= n <= 19
    if two in (36, 38, 39) or 300 <= int(d[:3]) <= 305:
        return 14 <= n <= 19
    if two == 62:
        return 16 <= n <= 19
    if two in (50, 56, 57, 58, 63, 67):
        return 12 <= n <= 19
    return False


def _cards(text: str) -> Iterator[Span]:
    for m in _scan(_CARD, _CARD_HINT, text):
        raw = m.group(0)
        seps = {c for c in raw if not c.isdigit()}
        if len(seps) > 1:  # "1234-5678 9012..." mixes separators: not a card
            continue
        digits = raw.replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and _card_issuer_ok(digits) and luhn_valid(digits):
            yield Span(m.start(), m.end(), PAYMENT_CARD)


# ISO 13616 registry: country -> IBAN length.
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24,
    "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31,
    "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip
_IBAN = re.compile(r"(?<![A-Za-z0-9])([A-Z]{2})(\d{2})((?: ?[A-Z0-9]){11,30})")
_IBAN_HINT = re.compile(r"[A-Z]{2}\d{2}")


def iban_valid(iban: str) -> bool:
    """ISO 7064 mod-97-10 over the rearranged, letter-expanded IBAN."""
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(c, 36)) for c in rearranged)
    return int(number) % 97 == 1


def _ibans(text: str) -> Iterator[Span]:
    for m in _scan(_IBAN, _IBAN_HINT, text):
        length = IBAN_LENGTHS.get(m.group(1))
        if length is None:
            continue
        # Take exactly the country's length of characters, spaces allowed between.
        need, end, chars = length - 4, m.start(3), []
        for i in range(m.start(3), m.end(3)):
            if text[i] != " ":
                chars.append(text[i])
                if len(chars) == need:
                    end = i + 1
                    break
        if len(chars) != need or (end < len(text) and text[end].isalnum()):
            continue
        candidate = m.group(1) + m.group(2) + "".join(chars)
        if iban_valid(candidate):
            yield Span(m.start(), end, IBAN)


_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")


# Space-separated only where the text says it is one ("SSN: 123 45 6789").
_SSN_SPACED = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3} (?!00)\d{2} (?!0000)\d{4}(?![\d-])")
_SSN_CONTEXT = re.compile(r"(?i)\b(?:ssn|social security)")
_SSN_HINT = re.compile(r"\d{3}-\d{2}-\d{4}")


def _ssns(text: str) -> Iterator[Span]:
    for m in _scan(_SSN, _SSN_HINT, text):
        yield Span(m.start(), m.end(), US_SSN)
    low = text.lower()
    if "ssn" not in low and "social security" not in low:
        return  # a spaced number counts only after such words
    for m in _SSN_SPACED.finditer(text):
        if _SSN_CONTEXT.search(text, max(0, m.start() - 30), m.start()):
            yield Span(m.start(), m.end(), US_SSN)


_NINO = re.compile(
    r"(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"
)
_NINO_HINT = re.compile(r"[A-Z]{2} ?\d{2} ?\d{2} ?\d{2}")


def _ninos(text: str) -> Iterator[Span]:
    for m in _scan(_NINO, _NINO_HINT, text):
        yield Span(m.start(), m.end(), UK_NINO)


_IPV4 = re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)")
_VERSION_CONTEXT = re.compile(r"(?i)(?:\bv|version\s*|release\s*|build\s*|/)$")
_IPV6 = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])")
_IPV4_HINT = re.compile(r"\d\.\d{1,3}\.\d{1,3}\.\d")


def _ips(text: str) -> Iterator[Span]:
    for m in _scan(_IPV4, _IPV4_HINT, text):
        raw = m.group(0)
        if _VERSION_CONTEXT.search(text, max(0, m.start() - 10), m.start()):
            continue
        parts = raw.split(".")
        if any(len(p) > 1 and p[0] == "0" for p in parts):
            continue
        try:
            addr = ipaddress.IPv4Address(raw)
        except ValueError:
            continue
        if addr.is_loopback or addr.is_unspecified or raw.startswith("255."):
            continue
        yield Span(m.start(), m.end(), IP_ADDRESS)
    if "::" not in text and text.count(":") < 7:
        return
    for m in _IPV6.finditer(text):
        raw = m.group(0)
        if not any(c.isdigit() for c in raw):
            continue
        try:
            addr6 = ipaddress.IPv6Address(raw)
        except ValueError:
            continue
        if addr6.is_loopback or addr6.is_unspecified:
            continue
        yield Span(m.start(), m.end(), IP_ADDRESS)


_PHONE_INTL = re.compile(r"(?<![\w+])\+[1-9]\d{0,2}(?:[ .-]?\(?\d{1,5}\)?){2,6}(?![\w-])")
_PHONE_NANP = re.compile(
    r"(?<![\w+-])(?:1[ .-]?)?(?:\(([2-9]\d{2})\) ?|([2-9]\d{2})[ .-])[2-9]\d{2}[ .-]\d{4}(?![\w-])"
)
_PHONE_NATIONAL = re.compile(r"(?<![\w+.-])0\d{2,4}[ -]\d{3,4}[ -]?\d{3,4}(?![\w-]|\.\d)")
_PHONE_INTL_HINT = re.compile(r"\+[1-9]")
_PHONE_NANP_HINT = re.compile(r"\d{3}[ .-]\d{4}")
_PHONE_NATIONAL_HINT = re.compile(r"0\d{2,4}[ -]\d")


def _phones(text: str) -> Iterator[Span]:
    for m in _scan(_PHONE_INTL, _PHONE_INTL_HINT, text):
        digits = sum(c.isdigit() for c in m.group(0))
        if 8 <= digits <= 15:  # E.164 allows at most 15 digits
            yield Span(m.start(), m.end(), PHONE)
    for m in _scan(_PHONE_NANP, _PHONE_NANP_HINT, text):
        yield Span(m.start(), m.end(), PHONE)
    for m in _scan(_PHONE_NATIONAL, _PHONE_NATIONAL_HINT, text):
        digits = sum(c.isdigit() for c in m.group(0))
        if 10 <= digits <= 11:
            yield Span(m.start(), m.end(), PHONE)


Detector = Callable[[str], Iterator[Span]]
_DETECTORS: dict[str, Detector] = {
    EMAIL: _emails,
    IBAN: _ibans,
    PAYMENT_CARD: _cards,
    US_SSN: _ssns,
    UK_NINO: _ninos,
    IP_ADDRESS: _ips,
    PHONE: _phones,
}
# Every type but email needs a run of digits; a text without one skips them all.
_DIGIT_RUN = re.compile(r"\d[\d .:()/-]{3,}\d")


def find_personal_data(text: str) -> list[Span]:
    """Non-overlapping detections in text order; on overlap the higher-priority
    type wins, so an allowed email never leaves its digits to the phone rule."""
    has_email = "@" in text
    has_digits = "::" in text or _DIGIT_RUN.search(text) is not None
    if not has_email and not has_digits:
        return []
    spans: list[Span] = []
    for type_ in PERSONAL_DATA_TYPES:
        if not (has_email if type_ == EMAIL else has_digits):
            continue
        for span in _DETECTORS[type_](text):
            if not any(s.start < span.end and span.start < s.end for s in spans):
                spans.append(span)
    spans.sort(key=lambda s: s.start)
    return spans


def redact(text: str, spans: list[Span]) -> str:
    out: list[str] = []
    pos = 0
    for s in spans:
        out.append(text[pos : s.start])
        out.append(placeholder(s.type))
        pos = s.end
    out.append(text[pos:])
    return "".join(out)
