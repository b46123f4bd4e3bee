"""Text to index terms for the lexical (sparse, BM25) leg of recall.

One pass over the text, the same for documents and queries, so a query term always
meets the document term it should:

- NFKC normalisation and case folding; Cyrillic yo (U+0451) folds to ie (U+0435).
- Unicode word splitting. Tokens joined by `-`, `.`, `/` or `@` (`gpt-4`, `v1.2.3`,
  `node.js`, `team-a/agent-7`, emails) are kept whole *and* split into parts, so
  an exact identifier scores above a loose mention of its parts.
- Identifiers are never stemmed: anything with a digit or an underscore (`v2`,
  `foo_bar`, `x86_64`) is kept verbatim, plus its parts (`foo`, `bar`; letter and
  digit runs so `gpt4` meets `GPT 4`). camelCase is split the same way.
- Plain words drop stop words and are stemmed by their script: Cyrillic with the
  Russian Snowball stemmer, Greek and Arabic with theirs, Latin with the configured
  language (English by default). Mixed-language text is therefore stemmed word by
  word, which a single-language analyzer cannot do.
- Chinese and Japanese runs, written without spaces, become character bigrams.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

import Stemmer

from engram_server.lexical.stopwords import BY_LANGUAGE

MAX_TERM_CHARS = 64

# A token is a run of word characters, optionally joined to more runs by
# connectors; a trailing `++` or `#` keeps `c++` and `c#` apart from `c`.
_TOKEN = re.compile(r"\w+(?:[-./@'\u2019]\w+)*(?:\+\+|#)?(?!\w)")
_CONNECTORS = re.compile(r"[-./@]+")
_APOSTROPHES = re.compile(r"['\u2019]")
_ALNUM_RUNS = re.compile(r"\d+|[^\W\d_]+")
_CAMEL_BOUNDARY = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_CAMEL_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")

# ISO 639-1 codes accepted as language hints, mapped to Snowball algorithm names.
_ISO_TO_SNOWBALL = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sv": "swedish",
    "tr": "turkish",
}
_SNOWBALL = frozenset(Stemmer.algorithms())
_STOPWORDS = {
    lang: frozenset(_APOSTROPHES.sub("", w) for w in words) for lang, words in BY_LANGUAGE.items()
}
_EMPTY: frozenset[str] = frozenset()


def resolve_language(language: str | None) -> str:
    """The Snowball name for a hint: an ISO code, a Snowball name, or auto/None."""
    if language is None or language in ("", "auto"):
        return "english"
    name = language.strip().lower()
    name = _ISO_TO_SNOWBALL.get(name, name)
    if name not in _SNOWBALL:
        raise ValueError(f"no stemmer for language {language!r}")
    return name


def _script_language(word: str, latin: str) -> str:
    """The stemmer for a word, by the first character outside Latin and digits."""
    for ch in word:
        code = ord(ch)
        if code < 0x370:
            continue
        if 0x400 <= code <= 0x52F:
            return "russian"
        if 0x370 <= code <= 0x3FF or 0x1F00 <= code <= 0x1FFF:
            return "greek"
        if 0x600 <= code <= 0x6FF:
            return "arabic"
        return ""
    return latin


class _Stemmers(threading.local):
    """PyStemmer objects are not thread-safe, so each thread keeps its own."""

    def __init__(self) -> None:
        self.by_language: dict[str, Stemmer.Stemmer] = {}

    def stem(self, language: str, word: str) -> str:
        stemmer = self.by_language.get(language)
        if stemmer is None:
            stemmer = self.by_language[language] = Stemmer.Stemmer(language)
        result: str = stemmer.stemWord(word)
        return result


_stemmers = _Stemmers()


class Analyzer:
    """Turns text into index terms; `latin_language` stems Latin-script words."""

    def __init__(self, latin_language: str | None = None) -> None:
        self.latin_language = resolve_language(latin_language)

    def analyze(self, text: str) -> list[str]:
        terms: list[str] = []
        for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text)):
            self._token(match.group(), terms)
        return terms

    def _token(self, raw: str, out: list[str]) -> None:
        if "'" in raw or "\u2019" in raw:
            raw = _APOSTROPHES.sub("'", raw)
            if raw[-2:] in ("'s", "'S"):
                raw = raw[:-2]
            raw = raw.replace("'", "")
        parts = [p for p in _CONNECTORS.split(raw) if p]
        if len(parts) > 1:
            _add(out, _fold(raw))
            for part in parts:
                self._word(part, out, is_part=True)
        elif parts:
            self._word(parts[0], out, is_part=False)

    def _word(self, word: str, out: list[str], *, is_part: bool) -> None:
        folded = _fold(word)
        if "_" in word:
            if not word.strip("_"):
                return
            _add(out, folded)
            for part in word.split("_"):
                if part:
                    self._word(part, out, is_part=True)
            return
        if _CJK_RUN.search(word):
            self._cjk(word, out)
            return
        if any(ch.isdigit() for ch in folded):
            _add(out, folded)
            runs = _ALNUM_RUNS.findall(folded)
            if len(runs) > 1:
                for run in runs:
                    self._word(run, out, is_part=True)
            return
        if _CAMEL_BOUNDARY.search(word):
            _add(out, folded)
            for part in _CAMEL_PARTS.findall(word):
                self._word(part, out, is_part=True)
            return
        if is_part and len(folded) == 1:
            return
        language = _script_language(folded, self.latin_language)
        if folded in _STOPWORDS.get(language, _EMPTY):
            return
        _add(out, _stemmers.stem(language, folded) if language else folded)

    def _cjk(self, word: str, out: list[str]) -> None:
        position = 0
        for run in _CJK_RUN.finditer(word):
            if run.start() > position:
                self._word(word[position : run.start()], out, is_part=True)
            chars = run.group()
            if len(chars) == 1:
                _add(out, chars)
            for i in range(len(chars) - 1):
                _add(out, chars[i : i + 2])
            position = run.end()
        if position < len(word):
            self._word(word[position:], out, is_part=True)


def _fold(word: str) -> str:
    return word.casefold().replace("\u0451", "\u0435")


def _add(out: list[str], term: str) -> None:
    out.append(term[:MAX_TERM_CHARS])


@lru_cache(maxsize=32)
def analyzer_for(language: str | None = None) -> Analyzer:
    return Analyzer(language)


def analyze(text: str, language: str | None = "auto") -> list[str]:
    """Index terms of `text` in order, repeats kept (term frequency matters).

    `language` picks the stemmer for Latin-script words (ISO code or Snowball name;
    auto means English). Documents and the queries that should find them must use
    the same hint.
    """
    return analyzer_for(language).analyze(text)
