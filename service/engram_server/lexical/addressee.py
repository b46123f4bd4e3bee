"""Names a turn addresses its listener by (vocatives), as opposed to names it is about.

In conversation a name set off at the edge of a sentence addresses the person
spoken to: "Thanks, Luca!", "Anytime, Luca. Talk soon!", "Hi Emi!", "Luca, did
the lessons start?". Such a name says nothing about what the turn is about, yet
it is usually the rarest word a question about that person shares with the turn
(the person's own turns rarely contain their own name). Indexed like any other
word, an assistant's greeting outranks the user's own answer to "What does Luca
like to listen to?". `addressee_spans` finds these names so the lexical leg can
leave them out (`lexical.sparse.weighted_terms`); the dense leg still sees them.

The rules are deliberately narrow, on sentence edges only:

- leading: a greeting or thanks word (and an optional comma) then a capitalised
  name, ending the sentence or followed by a comma ("Hi Luca!", "Thanks, Luca,
  that helps"); or a capitalised word opening a sentence, then a comma and a
  lower-case word (or "I"), in a sentence that says "you" or asks ("Luca, did
  you ...?"), unless it is a common sentence opener ("Honestly, ...",
  "Monday, ...") or an -ly adverb ("Ultimately, ...");
- trailing: a comma, a capitalised name, then the sentence's end ("Talk soon,
  Luca!", "How was it, Emi?"), unless the word before the comma is capitalised
  (a place: "Houston, Texas") or links a list ("Mexico, however, Cancun").

A name is one or two capitalised words. A miss costs nothing new (the word is
indexed as before); a false hit drops one word at one sentence edge from the
lexical index, which the rules keep to words that rarely carry content there.
English conventions; other languages' greetings are not listed.
"""

from __future__ import annotations

import re

# "SPEAKER: text": the conversation evaluations' (and many chat logs') convention.
SPEAKER_PREFIX = re.compile(r"^([^\s:][^:\n]{0,39}):[ \t]+")
# A speaker is one to three words, each capitalised ("Emi", "Mary Ann", "Dr Lee")
# or a conversational role; "Meeting with Bob: ..." or "Note: ..." are not.
_ROLES = frozenset("user assistant system human ai bot agent customer me".split())
_NOT_SPEAKERS = frozenset("note notes todo fixme warning error update summary re fwd".split())

_WORD = r"[^\W\d_][\w'\u2019-]*"
_NAME = rf"(?P<name>{_WORD}(?:[ \t]+{_WORD})?)"
_GREETING = (
    r"(?:hi|hey|heya|hiya|hello|helo|yo|howdy|hallo|ciao|morning|evening|night|"
    r"good[ \t]+(?:morning|afternoon|evening|night|luck|job)|goodnight|nite|bye|"
    r"goodbye|byee*|thanks|thank[ \t]+you|thankyou|thx|ty|cheers|congrats|"
    r"congratulations|welcome(?:[ \t]+back)?|see[ \t]+(?:you|ya)|later|anytime|"
    r"sure|okay|ok|sorry|oh+|ah+|aw+|wow|(?:ha){2,}h?|(?:he){2,}|lo+l|yes|yeah|yep|no|nope|well|"
    r"dear|love[ \t]+you|miss[ \t]+you|happy[ \t]+birthday|take[ \t]+care|"
    r"same[ \t]+here|me[ \t]+too|you[ \t]+too|great|nice|awesome|cool|perfect|omg)"
)
# One sentence: up to its closing punctuation (kept out of the match) or a line end.
_SENTENCE = re.compile(r"[^.!?\u2026\n]+")
_EMOJI = "[\U0001f000-\U0001ffff\u2600-\u27bf]"
_LEADING_GREETED = re.compile(
    rf"^\s*(?:{_GREETING}[ \t]*,?[ \t]+){{1,3}}{_NAME}[ \t]*(?=,|$|{_EMOJI})", re.IGNORECASE
)
_LEADING_BARE = re.compile(rf"^\s*{_NAME}[ \t]*,[ \t]*(?P<next>\S*)")
# A match starts at a word's (or a gap's) start, never inside either: searched from
# every position, a long word or run of blanks was re-read from each of its
# characters, which is quadratic (one 60 KB memory held indexing for a minute).
# After the name, blanks are read once: `[ \t]*` and `\s` could split a run of
# them every which way before failing.
_TRAILING = re.compile(
    rf"(?<!\w)(?P<before>\w*)(?<![ \t])[ \t]*,[ \t]*{_NAME}(?:{_EMOJI}|[\s:;)(])*$"
)
_PRONOUN_I = re.compile(r"I(?:['\u2019](?:m|ve|ll|d))?\b")
# A sentence opened by a bare name speaks to its listener: it says "you" or asks.
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|youre|ya|u)\b", re.IGNORECASE)
# Before a trailing name, these make it a list or a place ("visited Mexico, however, Cancun").
_LINKS = frozenset("however but and or like including in at from to near of".split())

# Capitalised words that open a sentence with a comma without addressing anyone.
_OPENERS = frozenset(
    """
    well yes yeah yep yup no nope okay ok so now also anyway anyways honestly actually
    basically seriously sure right oh ah ahh hmm hm wow plus still though besides however
    otherwise luckily unfortunately fortunately sadly finally overall obviously personally
    apparently hopefully ideally alright lol haha true exactly absolutely definitely
    totally agreed nice great cool awesome perfect interesting indeed sorry please hey hi
    hello thanks then instead meanwhile first second third firstly secondly lastly again
    btw anyhow but and or because if when while after before since although yet
    today tonight tomorrow yesterday recently lately later earlier currently monday tuesday
    wednesday thursday friday saturday sunday weekend january february march april may
    june july august september october november december this that these those it i we
    you he she they my our your his her their there here what why how who where which
    sometimes usually normally generally typically anyways ugh oops omg damn man dude
    remember imagine look listen note trust believe good bad fine
    """.split()
)
# A "name" of one of these words is a sentence, not a vocative ("Thanks, you too!").
_NOT_NAMES = _OPENERS | frozenset(
    "too all everyone everybody guys folks again though then there here please".split()
)


def speaker_prefix(text: str) -> tuple[str, int] | None:
    """The speaker a "SPEAKER: text" memory names and where its text starts, or
    None when it does not start with a speaker."""
    match = SPEAKER_PREFIX.match(text)
    if match is None:
        return None
    words = match.group(1).split()
    if not 1 <= len(words) <= 3:
        return None
    for word in words:
        folded = word.casefold()
        if folded in _NOT_SPEAKERS or not (
            folded in _ROLES or (word[0].isupper() and word.replace(".", "").isalpha())
        ):
            return None
    return " ".join(words), match.end()


def without_speaker(text: str) -> str:
    """`text` without its "SPEAKER: " prefix (unchanged when it has none)."""
    found = speaker_prefix(text)
    return text[found[1] :] if found else text


def _is_name(words: str) -> bool:
    parts = words.split()
    return all(
        p[0].isupper()
        and p.casefold() not in _NOT_NAMES
        and not p.casefold().startswith(("i'", "i\u2019"))
        for p in parts
    )


def addressee_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the names `text` addresses its listener by, in order."""
    spans: list[tuple[int, int]] = []
    prefix = speaker_prefix(text)
    start = prefix[1] if prefix else 0
    for sentence in _SENTENCE.finditer(text, start):
        body = sentence.group()
        offset = sentence.start()
        leading = _LEADING_GREETED.match(body) or _bare_opening(body, text, sentence.end())
        if leading and _is_name(leading.group("name")):
            spans.append((offset + leading.start("name"), offset + leading.end("name")))
            continue
        trailing = _TRAILING.search(body)
        if (
            trailing
            and _is_name(trailing.group("name"))
            # "Houston, Texas", "visited Mexico, however, Cancun": a place, a list.
            and not trailing.group("before")[:1].isupper()
            and trailing.group("before").casefold() not in _LINKS
        ):
            spans.append((offset + trailing.start("name"), offset + trailing.end("name")))
    return spans


def _bare_opening(body: str, text: str, end: int) -> re.Match[str] | None:
    """ "Luca, did you ...": a capitalised word opening a sentence, then a comma, a
    lower-case word, and a sentence that says "you" or asks (not "Harvey, the
    lawyer, ..." or "Tampa, Fort Lauderdale")."""
    match = _LEADING_BARE.match(body)
    if match is None:
        return None
    following = match.group("next")
    if following[:1].isupper() and not _PRONOUN_I.match(following):
        return None
    if match.group("name").casefold().endswith("ly"):  # "Ultimately, ..."
        return None
    asks = text[end : end + 1] == "?"
    return match if asks or _SECOND_PERSON.search(body, match.end("name")) else None


def addressee_text(text: str) -> str:
    """The words of `text` that address its listener, joined by spaces."""
    return " ".join(text[a:b] for a, b in addressee_spans(text))
