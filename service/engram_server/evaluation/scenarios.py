"""The facts a generated conversation carries, and the questions asked about them.

A scenario plants a few exchanges (a user line and the assistant's reply) in a
conversation and asks questions whose answers are those exchanges. Planted
exchanges that are not answers are distractors: they share the question's words
or names but do not answer it. Every question has a category:

- `keyword`: it shares a rare name or term with its answer (BM25's home ground).
- `paraphrase`: it shares few or no content words with its answer.
- `update`: the fact changed in a later session; only the newer turn answers.
- `multi_hop`: one turn answers (grade 2), another is needed to connect it to the
  question (grade 1).
- `assistant`: the answer is something the assistant said.

Values (names, cities, codenames...) are drawn without replacement per
conversation, so two scenarios of one conversation never share a name by accident.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

CATEGORIES = ("keyword", "paraphrase", "update", "multi_hop", "assistant")


@dataclass(frozen=True)
class Person:
    name: str
    she: str  # subject pronoun
    her: str  # possessive
    sibling: str

    @staticmethod
    def of(name: str, feminine: bool) -> Person:
        if feminine:
            return Person(name, "she", "her", "sister")
        return Person(name, "he", "his", "brother")


@dataclass(frozen=True)
class Exchange:
    """A user line and the assistant's reply, placed together in one session.

    `assistant=None` takes a generic acknowledgement. `key` names the user turn
    and `assistant_key` the assistant turn for the scenario's questions. `after`
    names an exchange that must sit in an earlier session (the fact this one
    updates or builds on).
    """

    user: str
    assistant: str | None = None
    key: str | None = None
    assistant_key: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class Ask:
    category: str
    text: str
    answers: dict[str, int]


@dataclass(frozen=True)
class Scenario:
    name: str
    exchanges: tuple[Exchange, ...]
    asks: tuple[Ask, ...]


USER_NAMES = (
    "Maya", "Daniel", "Aiko", "Samir", "Elena", "Jonas", "Grace", "Mateus", "Hannah",
    "Luca", "Fatima", "Oskar", "Nadia", "Ethan", "Sofia", "Kenji", "Laura", "Omar",
    "Clara", "Felix", "Leah", "Victor", "Zara", "Pedro", "Iris", "Hugo", "Mei", "Adam",
    "Rosa", "Theo", "Anya", "Malik", "Eva", "Julian", "Lina", "Nikolai", "Greta", "Rohan",
)  # fmt: skip

# (name, feminine)
PEOPLE = (
    ("Ines", True), ("Kofi", False), ("Tomasz", False), ("Priya", True),
    ("Saoirse", True), ("Bartek", False), ("Yusuf", False), ("Marisol", True),
    ("Anneliese", True), ("Dmitri", False), ("Oluwaseun", False), ("Mirela", True),
    ("Henrik", False), ("Chiamaka", True), ("Rafael", False), ("Ayesha", True),
    ("Lorcan", False), ("Thandiwe", True), ("Matteo", False), ("Yuki", True),
    ("Zofia", True), ("Emeka", False), ("Ingrid", True), ("Farid", False),
    ("Lucía", True), ("Niamh", True), ("Arjun", False), ("Svetlana", True),
    ("Tobias", False), ("Amara", True), ("Keoni", False), ("Ottilie", True),
    ("Radek", False), ("Wanjiru", True), ("Jasper", False), ("Leilani", True),
    ("Casimir", False), ("Rosalind", True), ("Idris", False), ("Beatriz", True),
    ("Magnus", False), ("Noor", True), ("Florian", False), ("Esperanza", True),
    ("Kwame", False), ("Halvard", False), ("Ilse", True), ("Teodor", False),
)  # fmt: skip

CITIES = (
    "Porto", "Lisbon", "Kraków", "Accra", "Osaka", "Tallinn", "Valparaíso", "Ljubljana",
    "Tbilisi", "Hobart", "Bergen", "Cluj", "Oaxaca", "Leipzig", "Gdańsk", "Halifax",
    "Nantes", "Bologna", "Aarhus", "Cork", "Dunedin", "Kotor", "Brno", "Cusco", "Penang",
    "Galway", "Trieste", "Tromsø", "Mendoza", "Kigali", "Antwerp", "Seville",
)  # fmt: skip

COMPANIES = (
    "Northwind Logistics", "Halcyon Bank", "Bluefin Analytics", "Orrery Labs",
    "Tessellate Health", "Quillmark Publishing", "Ferrous Robotics", "Lumen Grid",
    "Cobalt Ridge Insurance", "Stillwater Games", "Parallax Freight", "Meridian Biotech",
    "Kettle & Pine", "Arbor Mobility", "Saltmarsh Energy", "Vireo Software",
    "Granite Peak Retail", "Tidewater Media",
)  # fmt: skip

ROLES = (
    "data engineer", "product designer", "site reliability engineer", "backend developer",
    "QA lead", "product manager", "machine learning engineer", "frontend developer",
    "solutions architect", "technical writer",
)  # fmt: skip

CODENAMES = (
    "Kestrel", "Marigold", "Bramble", "Obsidian", "Halyard", "Juniper", "Cormorant",
    "Tamarack", "Wren", "Basalt", "Larkspur", "Fathom", "Quarry", "Sorrel", "Ptarmigan",
    "Bellwether",
)  # fmt: skip

PROJECT_GOALS = (
    "move billing onto PostgreSQL", "rebuild the mobile onboarding flow",
    "replace the legacy search cluster", "split payments out of the monolith",
    "roll out single sign-on for enterprise customers", "redo the warehouse scanning app",
    "migrate the data lake to Parquet", "launch the partner API",
)  # fmt: skip

SLIP_REASONS = (
    "the vendor contract is still stuck with legal", "two engineers left the team",
    "the security review found problems", "the data migration took three times longer",
    "marketing wants it to line up with the conference",
)  # fmt: skip

PET_NAMES = (
    "Biscuit", "Pickle", "Mochi", "Pretzel", "Nugget", "Clementine", "Waffles", "Ziggy",
    "Olive", "Bagel", "Tofu", "Marmalade", "Pippin", "Dumpling",
)  # fmt: skip

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip


class Picker:
    """Draws a conversation's values: at random, never the same one twice."""

    def __init__(self, rng: random.Random, user: str) -> None:
        self.rng = rng
        self.user = user
        self._used: set[str] = set()

    def choice(self, options: Sequence[T]) -> T:
        return self.rng.choice(options)

    def fresh(self, options: Sequence[T], label: Callable[[T], str] = str) -> T:
        """One of `options` not drawn before in this conversation."""
        free = [o for o in options if label(o) not in self._used]
        if not free:
            raise ValueError("the value pool is exhausted for this conversation")
        picked = self.rng.choice(free)
        self._used.add(label(picked))
        return picked

    def other(self, options: Sequence[T], than: object) -> T:
        """One of `options` other than `than` (for a look-alike of a fact)."""
        return self.rng.choice([o for o in options if o != than])

    def person(self) -> Person:
        name, feminine = self.fresh(PEOPLE, lambda p: p[0])
        return Person.of(name, feminine)

    def city(self) -> str:
        return self.fresh(CITIES)

    def company(self) -> str:
        return self.fresh(COMPANIES)

    def codename(self) -> str:
        return self.fresh(CODENAMES)

    def month(self) -> str:
        return self.fresh(MONTHS)

    def date(self) -> str:
        """A day of the year no other value of the conversation names."""
        while True:
            day = f"{self.rng.choice(MONTHS)} {self.rng.randint(2, 28)}"
            if day not in self._used:
                self._used.add(day)
                return day


def job(p: Picker) -> Scenario:
    old, new = p.company(), p.company()
    role, new_role = p.choice(ROLES), p.choice(ROLES)
    years = p.choice(("two", "three", "four", "five"))
    return Scenario(
        "job",
        (
            Exchange(
                key="old",
                user=p.choice(
                    (
                        f"I've been a {role} at {old} for {years} years now; comfortable"
                        " but a bit stale.",
                        f"Still at {old}, mostly doing {role} things. {years.capitalize()}"
                        " years already, can you believe it?",
                    )
                ),
            ),
            Exchange(
                key="new",
                after="old",
                user=p.choice(
                    (
                        f"Big news: I handed in my notice. I'm joining {new} as a {new_role}"
                        " on the first of the month.",
                        f"I accepted the offer from {new}! Starting there as a {new_role} in"
                        " two weeks.",
                    )
                ),
                assistant=p.choice(
                    (
                        "Congratulations, that's huge! How are you feeling about the switch?",
                        "That's wonderful news. You've wanted a change for a while.",
                    )
                ),
            ),
            Exchange(
                user=p.choice(
                    (
                        "Which company makes the comfiest office chairs? My back is killing me.",
                        "My work laptop died again today and the company says a replacement"
                        " takes a week.",
                    )
                )
            ),
        ),
        (
            Ask(
                "update",
                p.choice((f"Where does {p.user} work these days?", "Who is my current employer?")),
                {"new": 2},
            ),
            Ask(
                "keyword",
                p.choice((f"What was my job at {old}?", f"What did {p.user} do at {old}?")),
                {"old": 2},
            ),
        ),
    )


def home(p: Picker) -> Scenario:
    old, new = p.city(), p.city()
    month = p.month()
    return Scenario(
        "home",
        (
            Exchange(
                key="old",
                user=p.choice(
                    (
                        f"Our flat in {old} is tiny, but it's two minutes from the water.",
                        f"We've rented the same little flat in {old} for six years now.",
                    )
                ),
            ),
            Exchange(
                key="new",
                after="old",
                user=p.choice(
                    (
                        f"It's official: we're relocating to {new}, the movers come next Thursday.",
                        f"We signed the lease on a house in {new}! Boxes everywhere until the"
                        f" end of {month}.",
                    )
                ),
            ),
            Exchange(user="Where does the time go? Feels like the year only just started."),
            Exchange(
                user=f"{p.person().name} from my running club lives in {p.city()} now, so jealous."
            ),
        ),
        (
            Ask(
                "update",
                p.choice(
                    (f"Which city does {p.user} live in now?", "Where am I based these days?")
                ),
                {"new": 2},
            ),
            Ask("multi_hop", "Which city did I move away from?", {"old": 2, "new": 1}),
        ),
    )


PETS = (
    ("dog", "beagle", "him"),
    ("dog", "border collie", "her"),
    ("dog", "greyhound", "him"),
    ("dog", "dachshund", "her"),
    ("cat", "Maine Coon", "him"),
    ("cat", "Siamese", "her"),
    ("rabbit", "Holland Lop", "her"),
)
PET_DISTRACTORS = {
    "dog": "The neighbour's dog barked until 2am again, I'm wrecked.",
    "cat": "A stray cat keeps sneaking into our garden and scaring off the birds.",
    "rabbit": "Saw a wild rabbit in the park this morning, it just sat there staring at me.",
}


def _pet(p: Picker) -> tuple[str, str, str]:
    """A pet whose species no other pet of the conversation has."""
    return p.fresh(PETS, lambda pet: f"species:{pet[0]}")


def pet(p: Picker) -> Scenario:
    species, breed, obj = _pet(p)
    name = p.fresh(PET_NAMES)
    return Scenario(
        "pet",
        (
            Exchange(
                key="pet",
                user=p.choice(
                    (
                        f"We adopted a {breed} from the shelter on Saturday, we're calling"
                        f" {obj} {name}.",
                        f"Meet {name}: a three-year-old {breed} rescue who already chewed one"
                        " of my shoes.",
                    )
                ),
                assistant=p.choice(
                    (
                        f"{name} is a great name! How is the first week going?",
                        "Oh, congratulations on the new family member!",
                    )
                ),
            ),
            Exchange(user=PET_DISTRACTORS[species]),
            Exchange(
                user=f"My aunt's {p.other([x[1] for x in PETS], breed)} {p.fresh(PET_NAMES)}"
                " is the laziest animal alive."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"What kind of {species} does {p.user} have?",
                        f"What sort of {species} did we adopt?",
                    )
                ),
                {"pet": 2},
            ),
            Ask("keyword", f"What breed is {name}?", {"pet": 2}),
        ),
    )


ALLERGIES = (
    "Heads up for any recipes: peanuts put me in hospital once, so nothing with satay or"
    " peanut oil.",
    "One thing to remember: shellfish makes my throat swell, even a bit of prawn stock.",
    "I react badly to sesame, so tahini and most hummus are off the table for me.",
    "Kiwi fruit makes my mouth itch and swell up, so I stay well away from it.",
)


def allergy(p: Picker) -> Scenario:
    return Scenario(
        "allergy",
        (
            Exchange(
                key="allergy",
                user=p.choice(ALLERGIES),
                assistant="Thanks for telling me, I'll keep that in mind for anything food"
                " related.",
            ),
            Exchange(
                user=p.choice(
                    (
                        "Spring allergies are back, my eyes have been streaming all week.",
                        "My hay fever allergies are brutal this year.",
                    )
                )
            ),
            Exchange(user="Tried a new recipe tonight, the food came out way too salty."),
            Exchange(
                user=f"{p.person().name} is lactose intolerant, so we always check the menu first."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"Does {p.user} have any food allergies?",
                        "Is there anything I must never eat?",
                    )
                ),
                {"allergy": 2},
            ),
        ),
    )


INSTRUMENTS = ("cello", "trumpet", "harp", "accordion", "ukulele", "clarinet", "banjo", "violin")


def instrument(p: Picker) -> Scenario:
    thing = p.choice(INSTRUMENTS)
    teacher = p.person()
    return Scenario(
        "instrument",
        (
            Exchange(
                key="plays",
                user=f"I've been practising the {thing} every evening and {teacher.name} says"
                " I'm finally getting somewhere.",
            ),
            Exchange(
                user=p.choice(
                    (
                        "Is it weird that I still listen to the same music I loved at sixteen?",
                        "My nephew is learning to ride a bike, it's adorable.",
                    )
                )
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"What musical instrument is {p.user} learning?",
                        "Which instrument am I learning to play?",
                    )
                ),
                {"plays": 2},
            ),
            Ask("keyword", f"What does {teacher.name} teach me?", {"plays": 2}),
        ),
    )


PROFESSIONS = (
    "paediatric nurse", "airline pilot", "structural engineer", "vet",
    "primary school teacher", "sous-chef", "marine biologist", "firefighter",
)  # fmt: skip


def sibling(p: Picker) -> Scenario:
    sib = p.person()
    job_title = p.choice(PROFESSIONS)
    city = p.city()
    return Scenario(
        "sibling",
        (
            Exchange(
                key="who",
                user=f"My {sib.sibling} {sib.name} is a {job_title}, {sib.she} works crazy shifts.",
            ),
            Exchange(
                key="moved",
                after="who",
                user=p.choice(
                    (
                        f"{sib.name} finally moved to {city}, {sib.she} found a flat near the"
                        " river.",
                        f"Helped {sib.name} pack the van this weekend, {sib.she}'s off to"
                        f" {city} for good.",
                    )
                ),
            ),
            Exchange(user=f"A friend's {sib.sibling} just got engaged, everyone is buzzing."),
            Exchange(
                user=f"My neighbour {p.person().name} is a {p.other(PROFESSIONS, job_title)},"
                " always on call."
            ),
        ),
        (
            Ask(
                "multi_hop",
                f"Which city does my {sib.sibling} live in now?",
                {"moved": 2, "who": 1},
            ),
            Ask("keyword", f"What does {sib.name} do for a living?", {"who": 2}),
        ),
    )


def project(p: Picker) -> Scenario:
    code = p.codename()
    goal = p.choice(PROJECT_GOALS)
    first, slipped = p.date(), p.date()
    return Scenario(
        "project",
        (
            Exchange(
                key="goal",
                user=f"Project {code} is finally approved: we're going to {goal}. Hard"
                f" deadline {first}.",
            ),
            Exchange(
                key="slip",
                after="goal",
                user=f"Bad news on {code}: the launch slipped to {slipped} because"
                f" {p.choice(SLIP_REASONS)}.",
                assistant="That's frustrating. At least the new date gives the team some air.",
            ),
            Exchange(user=f"Sat through a two-hour meeting about {code} and nothing got decided."),
            Exchange(
                user=f"{p.codename()} is the project where they"
                f" {p.other(PROJECT_GOALS, goal)}; it slipped to {p.date()} as well."
            ),
        ),
        (
            Ask(
                "update",
                p.choice((f"When is {code} due now?", f"What's the current ship date for {code}?")),
                {"slip": 2},
            ),
            Ask(
                "keyword",
                p.choice((f"What is the {code} project about?", f"What is {code} supposed to do?")),
                {"goal": 2},
            ),
        ),
    )


DECISIONS = (
    ("database", "PostgreSQL", "MongoDB", "order service", "we need real transactions"),
    ("language", "Rust", "Go", "ingestion pipeline", "memory use under load was half"),
    ("message broker", "NATS", "Kafka", "event bus", "nobody wanted to operate a big cluster"),
    ("frontend framework", "Svelte", "React", "admin dashboard", "the bundle is tiny"),
    ("hosting provider", "Hetzner", "AWS", "build farm", "it costs a third as much"),
    ("CI system", "Buildkite", "Jenkins", "monorepo builds", "the agents run on our machines"),
)


def decision(p: Picker) -> Scenario:
    kind, choice, alt, component, reason = p.fresh(DECISIONS, lambda d: d[0])
    return Scenario(
        "decision",
        (
            Exchange(
                key="decided",
                user=f"We settled it in the design review: {choice} instead of {alt} for the"
                f" {component}, mainly because {reason}.",
            ),
            Exchange(user=f"The {component} paged me twice last night, unrelated to the redesign."),
        ),
        (
            Ask(
                "keyword",
                f"Which {kind} did the team pick for the {component}?",
                {"decided": 2},
            ),
            Ask("keyword", f"Why was {alt} rejected?", {"decided": 2}),
        ),
    )


def seat(p: Picker) -> Scenario:
    return Scenario(
        "seat",
        (
            Exchange(
                key="seat",
                user=p.choice(
                    (
                        "On long-haul flights I always book the aisle so I can get up without"
                        " climbing over anyone.",
                        "Window every time for me: I lean on the wall and sleep through the"
                        " whole flight.",
                    )
                ),
            ),
            Exchange(user="Do you think I should sit the certification exam this year?"),
            Exchange(
                user=f"{p.person().name} always grabs the front seat on the bus, gets carsick"
                " otherwise."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"Where does {p.user} like to sit on a plane?",
                        "What seat should you pick for me when you book travel?",
                    )
                ),
                {"seat": 2},
            ),
        ),
    )


DRINKS = (
    "oat flat white",
    "double espresso with a splash of cold milk",
    "iced cortado",
    "chai latte with extra cinnamon",
    "decaf americano",
    "matcha latte with almond milk",
)


def coffee(p: Picker) -> Scenario:
    drink = p.choice(DRINKS)
    article = "an" if drink[0] in "aeiou" else "a"
    return Scenario(
        "coffee",
        (
            Exchange(
                key="drink",
                user=f"My usual is {article} {drink}; the barista downstairs starts making it"
                " when I walk in.",
            ),
            Exchange(user="The café next to the office closed down, I'm oddly sad about it."),
            Exchange(
                user=f"{p.person().name} only drinks green tea, never coffee; says it's the only"
                " thing that doesn't make the jitters worse."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"What should I get {p.user} from the coffee shop?",
                        "What's my regular order when I grab a hot drink?",
                    )
                ),
                {"drink": 2},
            ),
        ),
    )


def birthday(p: Picker) -> Scenario:
    friend = p.person()
    day = p.date()
    age = p.choice(("thirty", "forty", "fifty", "sixty", "seventy"))
    return Scenario(
        "birthday",
        (
            Exchange(
                key="date",
                user=f"{friend.name} turns {age} on {day}, we're planning a surprise dinner.",
            ),
            Exchange(
                user=f"I still haven't found anything for {friend.name}, any ideas that aren't"
                " socks?"
            ),
            Exchange(user="My own birthday was quiet this year, which I honestly liked."),
            Exchange(user=f"{p.person().name}'s party is on {p.date()}, I still need to RSVP."),
        ),
        (
            Ask(
                "keyword",
                p.choice(
                    (f"When is {friend.name}'s birthday?", f"How old is {friend.name} turning?")
                ),
                {"date": 2},
            ),
        ),
    )


FITNESS = (
    "Every Saturday I run ten kilometres along the canal before breakfast.",
    "I've started bouldering three evenings a week, my forearms are on fire.",
    "Forty lengths at the lido every morning before work, that's my thing now.",
    "I cycle the hill loop every Sunday, about sixty kilometres.",
)


def fitness(p: Picker) -> Scenario:
    return Scenario(
        "fitness",
        (
            Exchange(key="sport", user=p.choice(FITNESS)),
            Exchange(user="My sleep routine is a mess since the clocks changed."),
            Exchange(user=f"{p.person().name} does hot yoga four times a week, I could never."),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (f"What does {p.user} do to stay in shape?", "What's my exercise routine?")
                ),
                {"sport": 2},
            ),
        ),
    )


LANGUAGES = ("Portuguese", "Japanese", "Finnish", "Korean", "Greek", "Swahili", "Polish", "Turkish")


def language(p: Picker) -> Scenario:
    tongue = p.choice(LANGUAGES)
    return Scenario(
        "language",
        (
            Exchange(
                key="classes",
                user=f"I signed up for {tongue} classes on Thursday evenings, the verb tables"
                " are brutal.",
            ),
            Exchange(
                user="The language in that contract was so vague I had to read it three times."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"Which foreign language is {p.user} studying?",
                        "What language am I learning?",
                    )
                ),
                {"classes": 2},
            ),
        ),
    )


INJURIES = (
    "The physio says six more weeks before I can run on the knee after the ACL surgery.",
    "I broke my wrist falling off my bike, so I'm typing one-handed for a while.",
    "Slipped a disc in my lower back lifting a sofa; the doctor signed me off for two weeks.",
    "Sprained my ankle badly on the trail, it's the size of a grapefruit.",
)


def injury(p: Picker) -> Scenario:
    return Scenario(
        "injury",
        (
            Exchange(
                key="injury",
                user=p.choice(INJURIES),
                assistant="Ouch, I'm sorry. Take it easy and don't rush it.",
            ),
            Exchange(user="Still recovering from a brutal week of deadlines, I need a nap."),
            Exchange(user=f"{p.person().name} tore a hamstring playing five-a-side last month."),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"What injury is {p.user} recovering from?",
                        "Why am I not able to do much physically at the moment?",
                    )
                ),
                {"injury": 2},
            ),
        ),
    )


CARS = (
    "Skoda Octavia estate", "Toyota Yaris hybrid", "Volvo V60", "Mazda MX-5", "Renault Zoe",
    "Subaru Outback", "Kia Niro",
)  # fmt: skip


def car(p: Picker) -> Scenario:
    first, second = p.rng.sample(CARS, 2)
    return Scenario(
        "car",
        (
            Exchange(
                key="first",
                user=f"We finally bought a second-hand {first}, only forty thousand kilometres"
                " on it.",
            ),
            Exchange(
                key="second",
                after="first",
                user=f"We traded the {first} in for a {second}, the boot is twice the size.",
            ),
            Exchange(user="I drive myself crazy rereading emails before I send them."),
            Exchange(
                user=f"{p.person().name} bought an electric scooter for the commute, it's tiny."
            ),
        ),
        (
            Ask(
                "update",
                p.choice((f"What does {p.user} drive these days?", "What vehicle do we own now?")),
                {"second": 2},
            ),
        ),
    )


SERVICES = ("checkout", "login", "search", "invoicing", "notifications", "payments")
CAUSES = (
    "an expired TLS certificate on the load balancer",
    "a feature flag flipped in the wrong environment",
    "the primary database disk filling up with WAL files",
    "a DNS record someone deleted by accident",
    "a memory leak in the image resizer",
)


def outage(p: Picker) -> Scenario:
    service = p.fresh(SERVICES)
    return Scenario(
        "outage",
        (
            Exchange(
                key="cause",
                user=f"Postmortem is done: Tuesday's {service} outage was {p.choice(CAUSES)}.",
            ),
            Exchange(user=f"The {service} team wants everyone on the incident call at four."),
            Exchange(user="Another big outage in the news today, some airline this time."),
            Exchange(
                user=f"Last month's {p.other(SERVICES, service)} incident was {p.choice(CAUSES)}."
            ),
        ),
        (
            Ask(
                "keyword",
                p.choice((f"What caused the {service} outage?", f"Why did {service} go down?")),
                {"cause": 2},
            ),
        ),
    )


def manager(p: Picker) -> Scenario:
    boss = p.person()
    prior = p.company()
    return Scenario(
        "manager",
        (
            Exchange(
                key="joined",
                user=f"{boss.name} started as our new engineering manager this week; {boss.she}"
                f" came over from {prior}.",
            ),
            Exchange(user=f"{boss.name} and I had lunch, mostly talking about hiking."),
            Exchange(user=f"{p.person().name} from sales joined last year from {p.company()}."),
        ),
        (
            Ask("keyword", f"Where did {boss.name} work before?", {"joined": 2}),
            Ask(
                "paraphrase",
                p.choice(("Who is my new boss?", f"Who does {p.user} report to now?")),
                {"joined": 2},
            ),
        ),
    )


BOOKS = (
    ("The Left Hand of Darkness", "Ursula K. Le Guin"),
    ("Piranesi", "Susanna Clarke"),
    ("The Remains of the Day", "Kazuo Ishiguro"),
    ("Middlemarch", "George Eliot"),
    ("Project Hail Mary", "Andy Weir"),
    ("Pachinko", "Min Jin Lee"),
    ("The Overstory", "Richard Powers"),
    ("Stoner", "John Williams"),
)


def reading(p: Picker) -> Scenario:
    title, author = p.choice(BOOKS)
    return Scenario(
        "reading",
        (
            Exchange(
                key="book",
                user=f"I'm halfway through {title} by {author} and I can't put it down.",
            ),
            Exchange(user="I keep buying books faster than I read them, the pile is embarrassing."),
            Exchange(
                user=f"{p.person().name} lent me {' by '.join(p.other(BOOKS, (title, author)))},"
                " it's next on my list."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (f"What novel is {p.user} reading right now?", "What's on my nightstand?")
                ),
                {"book": 2},
            ),
            Ask("keyword", f"Who wrote {title}?", {"book": 2}),
        ),
    )


LODGINGS = (
    "Casa Albizia", "the Heron Inn", "Pension Moretti", "Hotel Kastanje", "the Saltbox",
    "Villa Oleandro", "Ryokan Hanabi",
)  # fmt: skip


def trip(p: Picker) -> Scenario:
    city = p.city()
    month = p.month()
    lodging = p.fresh(LODGINGS)
    nights = p.choice(("four", "five", "six", "ten"))
    return Scenario(
        "trip",
        (
            Exchange(
                key="booked",
                user=f"We booked the {month} trip: {nights} nights in {city}, at a little"
                f" guesthouse called {lodging}.",
            ),
            Exchange(user=f"{city} keeps popping up in my feed, apparently the food is amazing."),
            Exchange(
                user=f"{p.person().name} stayed at {p.fresh(LODGINGS)} in {p.city()} last year and"
                " loved it."
            ),
        ),
        (
            Ask(
                "keyword",
                f"What's the name of the place we're staying at in {city}?",
                {"booked": 2},
            ),
            Ask("paraphrase", f"Where are we going on holiday in {month}?", {"booked": 2}),
        ),
    )


GIFTS = (
    "a Polaroid camera", "a proper chef's knife", "noise-cancelling headphones",
    "a rowing machine", "a pottery class", "a telescope", "a fancy fountain pen",
)  # fmt: skip


def gift(p: Picker) -> Scenario:
    friend = p.person()
    item = p.choice(GIFTS)
    return Scenario(
        "gift",
        (
            Exchange(
                key="hint", user=f"{friend.name} keeps hinting that {friend.she} wants {item}."
            ),
            Exchange(user=f"{friend.name} called about the weekend plans, it's all very vague."),
            Exchange(
                user=f"{p.person().name} says {p.other(GIFTS, item)} makes a great birthday"
                " present for anyone."
            ),
        ),
        (Ask("keyword", f"What could I get {friend.name} as a present?", {"hint": 2}),),
    )


RECOMMENDATIONS = (
    (
        "Can you recommend a podcast about economics?",
        "Try Planet Money: short episodes, and they explain everything from scratch.",
        "podcast",
        "I listened to a true-crime podcast on the train, way too creepy.",
    ),
    (
        "Can you recommend a podcast about ancient history?",
        "Mike Duncan's The History of Rome is a classic, start from episode one.",
        "podcast",
        "I listened to a true-crime podcast on the train, way too creepy.",
    ),
    (
        "Any stretches for my lower back? I sit all day.",
        "Cat-cow, child's pose and knee-to-chest, ten minutes every morning, gently.",
        "stretches",
        "My jumper stretched in the wash, it's a dress now.",
    ),
    (
        "What's a good board game for four people who don't like long rules?",
        "Codenames is perfect: five minutes to explain and everyone gets into it.",
        "board game",
        "Board game night got cancelled, half the group has the flu.",
    ),
    (
        "Can you recommend a podcast about space?",
        "Start with Ologies' astronomy episodes, then try the Planetary Radio archive.",
        "podcast",
        "My cousin started a podcast about football, it's three hours long.",
    ),
    (
        "What's a board game my parents would actually enjoy?",
        "Ticket to Ride: simple turns, pretty board, and it ends in about an hour.",
        "board game",
        "Board game night got cancelled, half the group has the flu.",
    ),
    (
        "Any stretches for tight shoulders after a day at the laptop?",
        "Doorway chest stretch, thread the needle and slow neck rolls, twice a day.",
        "stretches",
        "My jumper stretched in the wash, it's a dress now.",
    ),
    (
        "Which houseplant is hard to kill? I killed three already.",
        "A snake plant: low light, water it once a month, it basically thrives on neglect.",
        "houseplant",
        "My mum gave me another houseplant, the windowsill is full.",
    ),
)


def recommendation(p: Picker) -> Scenario:
    ask, answer, thing, distractor = p.choice(RECOMMENDATIONS)
    return Scenario(
        "recommendation",
        (
            Exchange(key="ask", user=ask, assistant=answer, assistant_key="answer"),
            Exchange(user=distractor),
        ),
        (
            Ask(
                "assistant",
                f"Which {thing} did you suggest to me?",
                {"answer": 2, "ask": 1},
            ),
        ),
    )


def standup(p: Picker) -> Scenario:
    first, second = p.rng.sample(("9:00", "9:15", "9:30", "10:00", "10:30", "11:00"), 2)
    return Scenario(
        "standup",
        (
            Exchange(
                key="first", user=f"Standup is at {first} every weekday, cameras on, which I hate."
            ),
            Exchange(
                key="moved",
                after="first",
                user=f"From next week standup moves to {second} because of the new platform sync.",
            ),
            Exchange(user="Standup ran forty minutes today, it's supposed to be fifteen."),
            Exchange(
                user=f"The design review is at {p.choice(('14:00', '15:30', '16:00'))} every"
                " Thursday now."
            ),
        ),
        (
            Ask(
                "update",
                p.choice(("What time is the daily standup now?", "When do we meet each morning?")),
                {"moved": 2},
            ),
        ),
    )


INITIATIVES = (
    "customer loyalty", "warehouse robotics", "carbon accounting", "in-store kiosk",
    "developer portal",
)  # fmt: skip


def budget(p: Picker) -> Scenario:
    initiative = p.choice(INITIATIVES)
    amount = p.choice(("€40,000", "£25k", "$120k", "€75k", "$60,000"))
    return Scenario(
        "budget",
        (
            Exchange(
                key="amount",
                user=f"Finance approved {amount} for the {initiative} pilot, less than we asked.",
            ),
            Exchange(user=f"The {initiative} pilot kickoff got moved to Monday."),
            Exchange(
                user=f"The {p.other(INITIATIVES, initiative)} pilot got"
                f" {p.choice(('€20k', '$90k', '£50,000'))}, which is wild."
            ),
        ),
        (
            Ask(
                "keyword",
                p.choice(
                    (
                        f"How much money did the {initiative} pilot get?",
                        f"What budget does the {initiative} pilot have?",
                    )
                ),
                {"amount": 2},
            ),
        ),
    )


def diet(p: Picker) -> Scenario:
    month = p.month()
    return Scenario(
        "diet",
        (
            Exchange(
                key="diet",
                user=p.choice(
                    (
                        f"I went fully vegetarian in {month}, no meat or fish at all.",
                        f"I've been vegan since {month}, so no dairy or eggs either.",
                    )
                ),
            ),
            Exchange(user="Dinner tonight was leftover pasta, thrilling stuff."),
            Exchange(user=f"{p.person().name} is doing keto and won't stop talking about it."),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"Anything to keep in mind when booking dinner for {p.user}?",
                        "Do I have any dietary restrictions?",
                    )
                ),
                {"diet": 2},
            ),
        ),
    )


SCHOOLS = ("St Brigid's", "Larchfield", "Oakmere", "Hollins Park", "Riverside", "Elmhurst")
TEACHERS = ("Okafor", "Lindqvist", "Pereira", "Nakamura", "Fitzgerald", "Kowalczyk")


def school(p: Picker) -> Scenario:
    child = p.person()
    place = p.fresh(SCHOOLS)
    teacher = p.choice(TEACHERS)
    title = p.choice(("Mrs", "Mr"))
    return Scenario(
        "school",
        (
            Exchange(
                key="school",
                user=f"{child.name} started at {place} Primary this week, {child.she}'s in"
                f" {title} {teacher}'s class and loves it.",
            ),
            Exchange(user=f"{child.name} lost another water bottle, the fourth one this term."),
            Exchange(
                user=f"{p.person().name}'s kids go to {p.fresh(SCHOOLS)}, with"
                f" {p.choice(('Mr', 'Mrs'))} {p.other(TEACHERS, teacher)} as their teacher."
            ),
        ),
        (
            Ask(
                "keyword",
                p.choice(
                    (f"Which school does {child.name} go to?", f"Who is {child.name}'s teacher?")
                ),
                {"school": 2},
            ),
        ),
    )


def secrets_tool(p: Picker) -> Scenario:
    tool = p.choice(("Vault", "1Password", "Doppler", "Infisical", "Bitwarden"))
    return Scenario(
        "secrets",
        (
            Exchange(
                key="tool",
                user=f"We standardised on {tool} for secrets; everyone has to migrate by the end"
                " of the month.",
            ),
            Exchange(user="Keep it a secret, but I'm thinking about asking for a raise."),
            Exchange(user="The password rotation policy changed again, ninety days now."),
        ),
        (Ask("keyword", "Which tool did we pick for storing secrets?", {"tool": 2}),),
    )


def wedding(p: Picker) -> Scenario:
    day = p.date()
    city = p.city()
    return Scenario(
        "wedding",
        (
            Exchange(
                key="married",
                user=f"We got married on {day}, at a tiny registry office in {city}. Nine years"
                " ago now.",
            ),
            Exchange(user="We went to a wedding on Saturday and danced until three."),
            Exchange(
                user=f"{p.person().name} and {p.person().name} celebrate their anniversary on"
                f" {p.date()}."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice((f"When is {p.user}'s anniversary?", "What date is our anniversary?")),
                {"married": 2},
            ),
        ),
    )


RESTAURANTS = (
    ("Kuro", "Japanese", "Dock"),
    ("Osteria Lupa", "Italian", "Mill"),
    ("Mama Put", "Nigerian", "Cannon"),
    ("El Farolito", "Mexican", "Quay"),
    ("Saffron Lane", "Persian", "Market"),
    ("Little Tbilisi", "Georgian", "Chapel"),
)


def restaurant(p: Picker) -> Scenario:
    name, cuisine, street = p.fresh(RESTAURANTS, lambda r: r[0])
    return Scenario(
        "restaurant",
        (
            Exchange(
                key="place",
                user=f"Our go-to for date night is {name}, the little {cuisine} place on"
                f" {street} Street.",
            ),
            Exchange(user="Date night got cancelled, the babysitter came down with something."),
            Exchange(
                user=f"{p.fresh(RESTAURANTS, lambda r: r[0])[0]} does the best"
                f" {p.other([r[1] for r in RESTAURANTS], cuisine)} food in town, shame it's so"
                " far."
            ),
        ),
        (
            Ask("keyword", f"What kind of food does {name} serve?", {"place": 2}),
            Ask(
                "paraphrase",
                "Where do we usually go out for a romantic dinner?",
                {"place": 2},
            ),
        ),
    )


def chronotype(p: Picker) -> Scenario:
    return Scenario(
        "chronotype",
        (
            Exchange(
                key="rhythm",
                user=p.choice(
                    (
                        "I do my best thinking before seven am; after lunch my brain is mush.",
                        "I'm a total night owl, I write my best code after midnight.",
                    )
                ),
            ),
            Exchange(user="Productivity apps are a scam, I've tried all of them."),
            Exchange(user=f"{p.person().name} swears by working in ninety-minute blocks."),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"When is {p.user} most focused during the day?",
                        "What time of day should deep work go in my calendar?",
                    )
                ),
                {"rhythm": 2},
            ),
        ),
    )


FEARS = (
    "I'm terrified of heights, even the glass lift at the shopping centre is too much.",
    "Deep water scares me, I won't swim anywhere I can't touch the bottom.",
    "I have a real phobia of spiders; yesterday I made my partner move one with a glass.",
    "Thunderstorms still make me hide under a blanket, I'm not ashamed.",
)


def fear(p: Picker) -> Scenario:
    return Scenario(
        "fear",
        (
            Exchange(key="fear", user=p.choice(FEARS)),
            Exchange(user="I'm afraid the bakery sold out of croissants again."),
            Exchange(user=f"{p.person().name} is scared of flying and takes the train everywhere."),
        ),
        (
            Ask(
                "paraphrase",
                p.choice((f"What is {p.user} afraid of?", "What frightens me?")),
                {"fear": 2},
            ),
        ),
    )


def sourdough(p: Picker) -> Scenario:
    name = p.fresh(PET_NAMES)
    return Scenario(
        "sourdough",
        (
            Exchange(
                key="starter",
                user=f"My sourdough starter is called {name} and it's bubbling like mad this week.",
            ),
            Exchange(user=f"I almost named the new plant {name}, but that felt like too much."),
        ),
        (
            Ask("keyword", f"What is {name}?", {"starter": 2}),
            Ask("paraphrase", f"What does {p.user} like to bake?", {"starter": 2}),
        ),
    )


def oncall(p: Picker) -> Scenario:
    backup = p.person()
    service = p.fresh(SERVICES)
    return Scenario(
        "oncall",
        (
            Exchange(
                key="backup",
                user=f"If I'm out sick, {backup.name} covers my on-call shifts for {service}.",
            ),
            Exchange(user="Being on call this week is wrecking my sleep."),
            Exchange(
                user=f"{p.person().name} is covering reception while {p.person().name} is on leave."
            ),
        ),
        (
            Ask(
                "paraphrase",
                p.choice(
                    (
                        f"Who fills in for {p.user} when they're away?",
                        "Who is my stand-in if I'm ill?",
                    )
                ),
                {"backup": 2},
            ),
        ),
    )


def dentist(p: Picker) -> Scenario:
    first, second = p.date(), p.date()
    return Scenario(
        "dentist",
        (
            Exchange(key="first", user=f"Dentist appointment is on {first} at three, finally."),
            Exchange(
                key="moved",
                after="first",
                user=f"Had to move the dentist to {second}, the clinic double-booked me.",
            ),
            Exchange(user="My dentist friend says everyone brushes too hard, apparently."),
            Exchange(user=f"The optician appointment is on {p.date()}, don't let me forget."),
        ),
        (
            Ask(
                "update",
                p.choice(("When am I seeing the dentist?", f"When is {p.user}'s dental check-up?")),
                {"moved": 2},
            ),
        ),
    )


def rent(p: Picker) -> Scenario:
    old = p.choice(("€1,150", "£980", "$1,600", "€870", "£1,240"))
    new = p.choice(("€1,290", "£1,060", "$1,750", "€940", "£1,375"))
    return Scenario(
        "rent",
        (
            Exchange(key="old", user=f"Our rent is {old} a month, which is fine for the area."),
            Exchange(
                key="new",
                after="old",
                user=f"The landlord is putting the rent up to {new} from next month. Ugh.",
                assistant="That's a steep jump. Is it worth asking for a smaller increase?",
            ),
            Exchange(user="Is it normal for a landlord to ask for references after five years?"),
            Exchange(
                user="The parking space costs another ninety a month on top, which is a joke."
            ),
        ),
        (
            Ask(
                "update",
                p.choice(
                    ("How much rent do we pay now?", f"What is {p.user}'s monthly housing cost?")
                ),
                {"new": 2},
            ),
        ),
    )


VET_NEWS = (
    "needs a special kidney diet from now on",
    "has to lose two kilos, so no more treats",
    "needs a small operation on a tooth next month",
    "is perfectly healthy, just dramatic",
)


def vet(p: Picker) -> Scenario:
    species, breed, _ = _pet(p)
    name = p.fresh(PET_NAMES)
    news = p.choice(VET_NEWS)
    return Scenario(
        "vet",
        (
            Exchange(key="pet", user=f"Our {breed} {name} turned five today, we got a cake."),
            Exchange(
                key="vet",
                after="pet",
                user=f"Took {name} to the vet this morning: {news}.",
            ),
            Exchange(user=f"My colleague's {species} got into the bin and ate a whole pizza."),
        ),
        (
            Ask(
                "multi_hop",
                f"What did the vet say about my {species}?",
                {"vet": 2, "pet": 1},
            ),
        ),
    )


SPECIALTIES = ("cardiology", "the emergency department", "paediatrics", "oncology", "radiology")


def partner(p: Picker) -> Scenario:
    other = p.person()
    word = "wife" if other.she == "she" else "husband"
    role = p.choice(SPECIALTIES)
    return Scenario(
        "partner",
        (
            Exchange(key="who", user=f"My {word} {other.name} is a doctor at the city hospital."),
            Exchange(
                key="promoted",
                after="who",
                user=f"{other.name} got promoted to head of {role}! We're celebrating tonight.",
                assistant="That's fantastic news, congratulations to both of you!",
            ),
            Exchange(user=f"A friend's {word} is training for a marathon, I'm exhausted watching."),
            Exchange(user=f"{p.person().name} got promoted to team lead at the bank last week."),
        ),
        (
            Ask(
                "multi_hop",
                p.choice(
                    (f"What was my {word} promoted to?", f"What is {p.user}'s {word}'s new role?")
                ),
                {"promoted": 2, "who": 1},
            ),
        ),
    )


def friend_visit(p: Picker) -> Scenario:
    friend = p.person()
    city = p.city()
    month = p.month()
    return Scenario(
        "friend_visit",
        (
            Exchange(
                key="lives",
                user=f"My best friend {friend.name} lives in {city}, we've known each other"
                " since school.",
            ),
            Exchange(
                key="tickets",
                after="lives",
                user=f"Booked train tickets to {city} for {month}, can't wait!",
            ),
            Exchange(user="Is it bad that my best days are the ones where nobody calls me?"),
            Exchange(
                user=f"{p.person().name} is coming to visit us in {p.month()}, we need to tidy."
            ),
        ),
        (
            Ask(
                "multi_hop",
                p.choice(
                    (
                        "When am I going to see my best friend?",
                        f"When does {p.user} visit {friend.name}?",
                    )
                ),
                {"tickets": 2, "lives": 1},
            ),
        ),
    )


PRESENT_ADVICE = (
    ("my dad, who loves birdwatching", "a good pair of 8x42 binoculars and a pocket field guide"),
    ("my mum, who just retired", "a weekend watercolour course, she can finally try it"),
    ("my brother, who cooks a lot", "a cast-iron skillet, it will outlive all of us"),
    ("my grandmother, who loves crosswords", "a year's subscription to a cryptic puzzle book"),
    ("my boss, who is leaving", "a nice notebook and a card signed by the whole team"),
)


def present_advice(p: Picker) -> Scenario:
    who, idea = p.choice(PRESENT_ADVICE)
    return Scenario(
        "present_advice",
        (
            Exchange(
                key="ask",
                user=f"I need a present idea for {who}. Any thoughts?",
                assistant=f"How about {idea}? Practical, but it still feels personal.",
                assistant_key="idea",
            ),
            Exchange(user="Wrapping presents is my least favourite job of the whole year."),
        ),
        (
            Ask(
                "assistant",
                f"What gift did you suggest for {who.split(',')[0]}?",
                {"idea": 2, "ask": 1},
            ),
        ),
    )


AREAS = (
    "billing", "the data pipeline", "QA", "the mobile app", "customer onboarding",
    "the public API", "security reviews", "release management",
)  # fmt: skip
OWNERSHIP = (
    "{name} owns {area} now, so ask {name} first.",
    "{name} looks after {area}; {she}'s been doing it since the reorg.",
    "Since the reorg {name} is in charge of {area}.",
    "{name} runs {area}, and {she}'s very protective of it.",
)


def roster(p: Picker) -> Scenario:
    """Parallel facts: several colleagues, one area each. Only the name tells
    the turns apart, so a question about one colleague hinges on that name."""
    people = [p.person() for _ in range(4)]
    areas = p.rng.sample(AREAS, 4)
    templates = p.rng.sample(OWNERSHIP, 4)
    exchanges = tuple(
        Exchange(
            key=f"owner{i}",
            user=template.format(name=person.name, area=area, she=person.she),
        )
        for i, (person, area, template) in enumerate(zip(people, areas, templates, strict=True))
    )
    first, second = p.rng.sample(range(4), 2)
    return Scenario(
        "roster",
        exchanges,
        (
            Ask(
                "keyword",
                f"What does {people[first].name} look after at work?",
                {f"owner{first}": 2},
            ),
            Ask("keyword", f"Who should I ask about {areas[second]}?", {f"owner{second}": 2}),
        ),
    )


WHEREABOUTS = (
    "{name} is still in {city}, teaching at the university.",
    "{name} moved to {city} last spring and won't shut up about the bakeries.",
    "{name} has a flat in {city}, right by the station.",
)


def friends(p: Picker) -> Scenario:
    """Parallel facts: three friends, a city each."""
    people = [p.person() for _ in range(3)]
    cities = [p.city() for _ in range(3)]
    templates = p.rng.sample(WHEREABOUTS, 3)
    exchanges = tuple(
        Exchange(key=f"friend{i}", user=template.format(name=person.name, city=city))
        for i, (person, city, template) in enumerate(zip(people, cities, templates, strict=True))
    )
    asked = p.rng.sample(range(3), 2)
    return Scenario(
        "friends",
        exchanges,
        tuple(
            Ask(
                "keyword",
                p.choice(
                    (f"Which city is {people[i].name} in?", f"Where does {people[i].name} live?")
                ),
                {f"friend{i}": 2},
            )
            for i in asked
        ),
    )


ACTIVITIES = ("judo", "chess club", "ballet", "swimming lessons", "coding club", "choir")
WEEKDAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays")


def activities(p: Picker) -> Scenario:
    """Parallel facts: three children, an activity and a day each."""
    kids = [p.person() for _ in range(3)]
    things = p.rng.sample(ACTIVITIES, 3)
    days = p.rng.sample(WEEKDAYS, 3)
    exchanges = tuple(
        Exchange(
            key=f"kid{i}",
            user=f"{kid.name} does {thing} on {day} now, so that's another pick-up to juggle.",
        )
        for i, (kid, thing, day) in enumerate(zip(kids, things, days, strict=True))
    )
    first, second = p.rng.sample(range(3), 2)
    return Scenario(
        "activities",
        exchanges,
        (
            Ask(
                "keyword",
                f"What after-school activity does {kids[first].name} do?",
                {f"kid{first}": 2},
            ),
            Ask("keyword", f"Which day is {things[second]}?", {f"kid{second}": 2}),
        ),
    )


CATALOG: tuple[Callable[[Picker], Scenario], ...] = (
    job, home, pet, allergy, instrument, sibling, project, decision, seat, coffee, birthday,
    fitness, language, injury, car, outage, manager, reading, trip, gift, recommendation,
    standup, budget, diet, school, secrets_tool, wedding, restaurant, chronotype, fear,
    sourdough, oncall, dentist, rent, vet, partner, friend_visit, present_advice, roster,
    friends, activities,
)  # fmt: skip


# Scenarios that would answer each other's questions ("any dietary restrictions?"
# is answered by an allergy too), so a conversation holds at most one of each set.
EXCLUSIVE: tuple[frozenset[Callable[[Picker], Scenario]], ...] = (frozenset({allergy, diet}),)


def draw(p: Picker, count: int) -> list[Scenario]:
    """`count` different scenarios for one conversation, in catalogue order."""
    while True:
        chosen = sorted(p.rng.sample(range(len(CATALOG)), count))
        picked = {CATALOG[i] for i in chosen}
        if all(len(picked & group) <= 1 for group in EXCLUSIVE):
            return [CATALOG[i](p) for i in chosen]
