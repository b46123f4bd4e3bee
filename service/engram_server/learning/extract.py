"""The deterministic fact extractor: rules over the user's own sentences.

It keeps what a person would want remembered (identity, where they live and work,
preferences, decisions, commitments, facts about people and projects, procedures)
and drops what they would not (greetings, thanks, small talk, questions,
hypotheticals). A kept fact is the user's sentence itself, so it is supported by
its source by construction; the rules add the kind, a slot key for the common
attributes (`user::location`, `apollo::deadline`...), importance and tags.

Only user turns are read: an assistant's replies restate or ask, and a fact an
assistant states is not evidence about the user.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from engram_server.learning.model import Fact, Turn
from engram_server.learning.text import (
    NOT_NAMES,
    entity_names,
    sentences,
    slug,
    terms,
    unique,
)
from engram_server.lifecycle.model import Kind

USER_ROLES = frozenset({"user", "human", "customer"})
MAX_FACT_CHARS = 600

_I = r"(?:i|we)"
_FLAGS = re.IGNORECASE

# Sentences that are small talk as a whole: greetings, thanks, reactions.
_FILLER = re.compile(
    r"^\s*(?:hi|hey|hello|good (?:morning|afternoon|evening|night)|thanks?(?: you)?|thank you"
    r"|cheers|ok(?:ay)?|cool|great|nice|awesome|sure|yes|yeah|yep|no|nope|lol|haha\w*|hmm+"
    r"|wow|oh|ah|bye|see you|talk (?:to you )?(?:later|soon)|got it|sounds good|perfect"
    r"|no worries|never ?mind|that's (?:great|fine|it|all|cool|helpful|funny)"
    r"|how are you(?: doing)?|what's up|not much)\b[\s!.,]*$",
    _FLAGS,
)
# Words that make a sentence hypothetical, wishful or hedged: not a fact.
_HEDGE = re.compile(
    r"(?:^if (?:i|we)\b|\bif (?:i|we) (?:were|was|had|lived|could|won)\b|"
    r"\b(?:i wish|i'd love to|would be nice|i wonder|maybe i|maybe we|might|"
    r"thinking (?:about|of)|not sure (?:if|whether)|someday|one day i|imagine|pretend|"
    r"in a parallel universe|joking|kidding)\b)",
    _FLAGS,
)
# Small talk that looks like a statement ("the weather is awful", "I'm so tired").
_SMALL_TALK = re.compile(
    r"\b(?:weather|raining|rainy|sunny|so hot|so cold|tired|sleepy|exhausted|hungry|bored|"
    r"traffic|monday again|long day|long week|coffee break|lunch break|hangover|"
    r"killing me|what a day|tgif)\b",
    _FLAGS,
)
_EXPLICIT = re.compile(r"\b(?:remember|note|for the record|keep in mind|important)\b", _FLAGS)


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    kind: Kind
    importance: float
    tags: tuple[str, ...]
    # Slot key template: `{1}` is the first group (slugged); "" for no slot.
    slot: str = ""
    # A group that must be a proper name, not a capitalised common word ("The").
    name_group: int = 0


def _rule(
    pattern: str,
    kind: Kind,
    importance: float,
    tags: tuple[str, ...],
    slot: str = "",
    name_group: int = 0,
) -> _Rule:
    return _Rule(re.compile(pattern, _FLAGS), kind, importance, tags, slot, name_group)


_PEOPLE = (
    r"(wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|sister|brother|son|daughter|"
    r"mother|mom|mum|father|dad|boss|manager|mentor|cofounder|co-founder|roommate|"
    r"best friend|friend|colleague|coworker|neighbou?r|cousin|aunt|uncle|grandma|grandpa|"
    r"dog|cat|puppy|kitten)"
)
# Relations a person has one of at a time: these earn a slot (`user::partner`).
SINGLE_RELATIONS = frozenset(
    {
        "wife",
        "husband",
        "partner",
        "girlfriend",
        "boyfriend",
        "fiance",
        "fiancee",
        "boss",
        "manager",
        "mentor",
    }
)
_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next|"
    r"the (?:first|second|third|\d)|\d)"
)
_TIME_WORDS = (
    r"(?:yesterday|last (?:week|night|month|weekend|year|spring|summer|autumn|winter)|"
    r"this (?:morning|weekend|week)|over the weekend|on (?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)|recently)"
)
_NAME = r"([A-Z][a-z]+(?: [A-Z][a-z]+)?)"
# Names of at most six words. Unbounded, a run of capitalised words that is not
# followed by the rule's phrase was re-tried from each of its words: quadratic in
# the run, so one long message ("Bob Bob Bob ...") held the server for seconds.
# A name also starts where a word does, never inside one: with IGNORECASE, `\b`
# let every letter after a '-' or '.' of "a-a-a-..." start one more attempt.
_PLACE = r"(?<![\w'-])([A-Z][\w'-]+(?:[ ,]+[A-Z][\w'-]+){0,5})"
_ORG = r"(?<![\w&.'-])([A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,5})"
_THING = r"([a-z]+(?: [a-z]+)?)"

# Ordered: the first rule that matches a sentence decides kind and slot.
RULES: tuple[_Rule, ...] = (
    # identity
    _rule(r"\bmy name(?:'s| is) " + _NAME, Kind.SEMANTIC, 0.85, ("identity",), "user::name"),
    _rule(
        r"\b(?:call me|i'm called|i am called) " + _NAME,
        Kind.SEMANTIC,
        0.8,
        ("identity",),
        "user::name",
    ),
    _rule(r"\bmy birthday is\b", Kind.SEMANTIC, 0.7, ("identity",), "user::birthday"),
    _rule(
        r"\bi(?:'m| am) (\d{1,3}) (?:years old|now)\b",
        Kind.SEMANTIC,
        0.6,
        ("identity",),
        "user::age",
    ),
    _rule(
        r"\bi(?:'m| am) (?:a )?(vegetarian|vegan|pescatarian|gluten[- ]free|keto)\b",
        Kind.PREFERENCE,
        0.7,
        ("diet",),
        "user::diet",
    ),
    _rule(r"\bi(?:'m| am) allergic to\b", Kind.SEMANTIC, 0.85, ("health",)),
    # where the user lives
    _rule(
        r"\b" + _I + r"(?:'ve| have)? (?:just |recently |finally )?(?:moved|relocated) "
        r"(?:to|into) " + _PLACE,
        Kind.SEMANTIC,
        0.8,
        ("location",),
        "user::location",
    ),
    _rule(
        r"\bi (?:now |currently )?(?:live|am living|'m living|reside) in " + _PLACE,
        Kind.SEMANTIC,
        0.8,
        ("location",),
        "user::location",
    ),
    _rule(
        r"\bi(?:'m| am) (?:now |currently )?based in " + _PLACE,
        Kind.SEMANTIC,
        0.8,
        ("location",),
        "user::location",
    ),
    _rule(
        r"\bi(?:'m| am) (?:originally )?from " + _PLACE,
        Kind.SEMANTIC,
        0.6,
        ("identity",),
        "user::hometown",
    ),
    # work
    _rule(
        r"\bi(?:'m| am) (?:now )?(?:a|an|the) ([a-z][a-z -]+?) (?:at|for|with) " + _ORG,
        Kind.SEMANTIC,
        0.8,
        ("work",),
        "user::role",
    ),
    _rule(r"\bi (?:now )?work (?:at|for) " + _ORG, Kind.SEMANTIC, 0.8, ("work",), "user::employer"),
    _rule(
        r"\bi(?:'ve| have)? (?:just )?(?:joined|started (?:a new job )?at) " + _ORG,
        Kind.SEMANTIC,
        0.8,
        ("work",),
        "user::employer",
    ),
    _rule(r"\bi work as (?:a|an) ([a-z][a-z -]+)", Kind.SEMANTIC, 0.75, ("work",), "user::role"),
    _rule(r"\bmy (?:job title|title|role) is\b", Kind.SEMANTIC, 0.75, ("work",), "user::role"),
    _rule(r"\bi(?:'ve| have) been promoted to\b", Kind.SEMANTIC, 0.75, ("work",), "user::role"),
    # preferences
    _rule(
        r"\bmy (?:favou?rite|fave) ([a-z]+(?: [a-z]+)?) (?:is|are)\b",
        Kind.PREFERENCE,
        0.65,
        ("preference",),
        "user::favorite_{1}",
    ),
    _rule(
        r"\bmy preferred ([a-z]+(?: [a-z]+)?) (?:is|are)\b",
        Kind.PREFERENCE,
        0.65,
        ("preference",),
        "user::preferred_{1}",
    ),
    _rule(r"\bi (?:always |usually |generally )?prefer\b", Kind.PREFERENCE, 0.65, ("preference",)),
    _rule(
        r"\bi (?:really |absolutely |just )?(?:love|like|enjoy|adore)\b",
        Kind.PREFERENCE,
        0.55,
        ("preference",),
    ),
    _rule(
        r"\bi (?:really )?(?:hate|dislike|can't stand|cannot stand|don't like|do not like|"
        r"avoid)\b",
        Kind.PREFERENCE,
        0.6,
        ("preference",),
    ),
    _rule(
        r"(?:^|\bplease )(?:always|never|don't|do not|avoid)\b",
        Kind.PREFERENCE,
        0.7,
        ("preference", "instruction"),
    ),
    _rule(
        r"\bworks? (?:well|best|better) for me\b|\bi learn best\b|\brather than\b",
        Kind.PREFERENCE,
        0.55,
        ("preference",),
    ),
    # projects and deadlines
    _rule(
        r"\bthe deadline (?:for|of) (?:the )?" + _ORG + r"(?: project)? is\b",
        Kind.SEMANTIC,
        0.8,
        ("project", "deadline"),
        "{1}::deadline",
    ),
    _rule(
        r"\b" + _ORG + r"(?: project)? (?:is due|ships|launches|goes live|has to ship)\b",
        Kind.SEMANTIC,
        0.8,
        ("project", "deadline"),
        "{1}::deadline",
    ),
    _rule(
        r"\b(?:i'm|i am|we're|we are) (?:currently )?(?:working on|building) (?:a |an |the )?"
        r"(?:project )?(?:called )?" + _ORG,
        Kind.SEMANTIC,
        0.7,
        ("project",),
        "user::current_project",
    ),
    _rule(
        r"\b(?:the )?" + _ORG + r" (?:project )?(?:uses|runs on|is built (?:on|with)|is "
        r"written in)\b",
        Kind.SEMANTIC,
        0.65,
        ("project",),
    ),
    # decisions
    _rule(
        r"\b(?:we|i|the team) (?:have |'ve )?(?:decided|agreed|chose|chosen|settled on|"
        r"went with|are going with|will go with|picked)\b",
        Kind.DECISION,
        0.8,
        ("decision",),
    ),
    _rule(
        r"\b(?:let's|lets) (?:go with|use|stick with|switch to|move to)\b",
        Kind.DECISION,
        0.75,
        ("decision",),
    ),
    _rule(r"\bthe (?:decision|plan) is\b", Kind.DECISION, 0.75, ("decision",)),
    # commitments
    _rule(
        r"\bi(?:'ll| will| am going to|'m going to| promised to| need to| have to| must)"
        r" (?!be\b|have\b|think\b|see\b|try\b)[a-z]+",
        Kind.ACTION,
        0.7,
        ("commitment",),
    ),
    _rule(r"\bremind me to\b", Kind.ACTION, 0.7, ("commitment", "reminder")),
    # procedures
    _rule(
        r"\b(?:to (?:deploy|release|build|test|run|install|restart|reset|set up|configure)"
        r"\b.*,|first\b.*\bthen\b|the way to\b|the trick (?:is|to)\b|step \d)",
        Kind.PROCEDURAL,
        0.65,
        ("procedure",),
    ),
    # people
    _rule(
        r"\bmy " + _PEOPLE + r"(?:'s name is| is called| is named|,? " + r"[A-Z][a-z]+,)",
        Kind.SEMANTIC,
        0.7,
        ("person",),
        "user::{1}",
    ),
    _rule(r"\b" + _NAME + r" is my " + _PEOPLE, Kind.SEMANTIC, 0.7, ("person",), "user::{2}"),
    _rule(
        r"\bmy " + _PEOPLE + r" " + _NAME + r"\b(?! is my)",
        Kind.SEMANTIC,
        0.65,
        ("person",),
        "user::{1}",
    ),
    _rule(
        r"\b(?:our|their|the|my) (?:main |primary )?(?:contact|point of contact|client|"
        r"customer|vendor|owner|lead|doctor|dentist|landlord) (?:is|was)\b",
        Kind.SEMANTIC,
        0.65,
        ("person",),
    ),
    _rule(
        r"\b(?:the )?(?:vet|doctor|dentist|teacher|boss|manager|landlord|client|lawyer) "
        r"(?:said|told me|says|thinks|recommended)\b",
        Kind.SEMANTIC,
        0.6,
        ("person",),
    ),
    # traits, habits, languages, plans
    _rule(
        r"\bi(?:'m| am) (?:\w+ )?(colou?r ?blind|deaf|blind|diabetic|dyslexic|left-handed|"
        r"right-handed|pregnant|retired|married|divorced|single|an introvert|an extrovert)\b",
        Kind.SEMANTIC,
        0.7,
        ("identity",),
    ),
    _rule(
        r"\bi (?:do |also )?(?:speak|know) (?:[a-z]+ )?[A-Z][a-z]+",
        Kind.SEMANTIC,
        0.6,
        ("language",),
    ),
    _rule(
        r"\bi(?:'m| am) (?:currently )?(?:studying|training|preparing|applying) for\b",
        Kind.SEMANTIC,
        0.65,
        ("goal",),
    ),
    _rule(
        r"\bi(?:'ll| will) be (?:managing|leading|working|joining|starting|moving|teaching|"
        r"running)\b",
        Kind.SEMANTIC,
        0.65,
        ("work",),
    ),
    _rule(
        r"\b(?:the|my|our) (?:[a-z]+ )?(?:budget|price|cost|rent|salary|limit|target|"
        r"lease|exam|interview|appointment|flight|wedding|surgery|launch|release|"
        r"round|contract) (?:is|are|runs|closes|starts|ends|expires|opens)\b",
        Kind.SEMANTIC,
        0.65,
        ("plan",),
    ),
    _rule(
        r"\b(?:i|we)(?:'re| are)? (?:\w+ )?(?:move|moving|start|starting|leave|leaving|fly|"
        r"flying|arrive|arriving|travel|travelling|traveling)\b.*\b(?:on|in|next|this|by) "
        + _MONTHS,
        Kind.EPISODIC,
        0.55,
        ("plan",),
    ),
    _rule(
        r"\b(?:we|i) (?:mostly |mainly |also )?(?:use|run|rely on|deploy to|host on)\b",
        Kind.SEMANTIC,
        0.55,
        ("tooling",),
    ),
    _rule(
        r"\bi (?:usually|always|normally|often|typically|mostly|mainly) [a-z]+|\bi [a-z]+ "
        r"(?:every|each) (?:day|morning|evening|night|week|weekend|monday|tuesday|wednesday|"
        r"thursday|friday|saturday|sunday)|\bi [a-z]+ (?:mostly|mainly|usually) ",
        Kind.SEMANTIC,
        0.55,
        ("habit",),
    ),
    # events the user took part in
    _rule(
        r"\b" + _TIME_WORDS + r"\b.*\b(?:i|we|\w+) (?:went|had|met|visited|ran|finished|"
        r"completed|launched|shipped|signed|passed|started|got|\w+ed)\b|\b\w+ed\b.*\b"
        + _TIME_WORDS,
        Kind.EPISODIC,
        0.45,
        ("event",),
    ),
    _rule(
        r"\b(?:i|we) (?:just |finally |recently |already )?(?:finished|completed|launched|"
        r"shipped|signed|passed|ran|won|bought|adopted|got married|graduated|left|quit|"
        r"visited|met|went)\b",
        Kind.EPISODIC,
        0.5,
        ("event",),
    ),
    # things, organisations and people named as the subject ("Dana owns the backend")
    _rule(
        r"(?:^|[,;] )(?:the )?" + _ORG + r" (?:owns|leads|runs|manages|handles|helps|makes|"
        r"builds|sells|provides|offers|wants|needs|requires|expects|asked for|lives|lived|moved|"
        r"is from|is (?:a|an|the|our|"
        r"my|their|in charge)|works (?:at|on|as|for))\b",
        Kind.SEMANTIC,
        0.6,
        ("person",),
        name_group=1,
    ),
    # the generic "my X is Y" statement about the user
    _rule(
        r"\b(?:my|our) ([a-z]+(?: [a-z]+)?) (?:is|are) (?!so\b|very\b|really\b|killing\b|"
        r"too\b|not\b)",
        Kind.SEMANTIC,
        0.55,
        ("profile",),
    ),
)

# Generic "my X is" attributes that earn a slot when X is one of these.
_SLOTTED_ATTRIBUTES = frozenset(
    {
        "email",
        "phone",
        "address",
        "timezone",
        "time zone",
        "native language",
        "first language",
        "shoe size",
        "blood type",
        "team",
        "manager",
        "car",
        "height",
        "goal",
        "budget",
    }
)


def _slot_for(rule: _Rule, match: re.Match[str]) -> str:
    if "person" in rule.tags and rule.slot:
        relation = (match.group(2) if "{2}" in rule.slot else match.group(1)).lower()
        relation = relation.replace("é", "e")
        return f"user::{relation}" if relation in SINGLE_RELATIONS else ""
    if not rule.slot:
        if rule.tags == ("profile",):
            attribute = match.group(1).lower()
            return f"user::{slug(attribute)}" if attribute in _SLOTTED_ATTRIBUTES else ""
        return ""
    key = rule.slot
    for i, group in enumerate(match.groups(), start=1):
        if group is not None:
            key = key.replace("{" + str(i) + "}", slug(group.replace("co-founder", "cofounder")))
    entity, _, attribute = key.partition("::")
    if not entity or not attribute or "{" in key:
        return ""
    return key


# Clause boundaries inside a sentence: a conjunction that starts a new statement by
# the speaker ("I'm from Porto but I live in Berlin").
_CLAUSE = re.compile(
    # `(?<!\s)`: a run of blanks is read from its start only (not once per blank).
    r"(?:,\s*|(?<!\s)\s+)(?:but|and|so|because|while|though)\s+"
    r"(?=(?:i|i'm|i'll|we|we're|my|please)\b)",
    _FLAGS,
)


def clauses(sentence: str) -> list[str]:
    parts = [p.strip(" ,;") for p in _CLAUSE.split(sentence)]
    return [p for p in parts if p]


def _is_name(text: str) -> bool:
    first = text.split()[0].lower() if text.split() else ""
    return bool(first) and first not in NOT_NAMES and text[:1].isupper()


def _is_noise(sentence: str) -> bool:
    stripped = sentence.strip()
    if not stripped or stripped.endswith("?"):
        return True  # questions ask; they do not state
    if _FILLER.match(stripped) or _HEDGE.search(stripped):
        return True
    if _SMALL_TALK.search(stripped) and not _EXPLICIT.search(stripped):
        return True
    return not terms(stripped)


def _clean(sentence: str) -> str:
    """Drops leading discourse markers ("Oh, by the way, ...") from a kept sentence."""
    cleaned = re.sub(
        r"^(?:(?:oh|ah|so|well|also|and|but|anyway|btw|by the way|fyi|ok(?:ay)?|yeah|right|"
        r"actually|just so you know|quick update|update)[,:!]?\s+)+",
        "",
        sentence.strip(),
        flags=_FLAGS,
    )
    cleaned = cleaned[:1].upper() + cleaned[1:]
    return cleaned[:MAX_FACT_CHARS]


def classify(sentence: str) -> tuple[Kind, float, str, tuple[str, ...]] | None:
    """(kind, importance, slot key, tags) of a sentence worth keeping, else None."""
    if _is_noise(sentence):
        return None
    for rule in RULES:
        match = rule.pattern.search(sentence)
        if match is None:
            continue
        if rule.name_group and not _is_name(match.group(rule.name_group)):
            continue
        importance = rule.importance
        if _EXPLICIT.search(sentence):
            importance = min(1.0, importance + 0.15)
        return rule.kind, importance, _slot_for(rule, match), rule.tags
    return None


def extract_facts(turns: Sequence[Turn]) -> list[Fact]:
    """Facts in the user turns of a conversation, in the order they were said."""
    facts: list[Fact] = []
    seen: set[str] = set()
    for turn in turns:
        if turn.role.lower() not in USER_ROLES:
            continue
        for sentence in (c for s in sentences(turn.content) for c in clauses(s)):
            found = classify(sentence)
            if found is None:
                continue
            kind, importance, slot_key, tags = found
            content = _clean(sentence)
            if content.casefold() in seen:
                continue
            seen.add(content.casefold())
            entity = slot_key.partition("::")[0]
            facts.append(
                Fact(
                    content=content,
                    kind=kind,
                    importance=round(importance, 2),
                    slot_key=slot_key,
                    tags=unique(("learned", *tags, entity if entity != "user" else "")),
                    source_turns=(turn.index,),
                    entities=tuple(entity_names(content)),
                )
            )
    return facts
