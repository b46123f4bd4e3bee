"""Synthetic memories and questions for `engram bench recall`, reproducible from a seed.

Sentences read like what agents remember about a team: people, projects, places,
tools, dates and figures, in a few dozen shapes. Every sentence is distinct (a
proposal with the same content would be a DUPLICATE), and the questions ask about
the same vocabulary in other words, so both retrieval legs have real work to do.
"""

from __future__ import annotations

import random
from collections.abc import Callable

NAMES = (
    "Alice", "Bob", "Priya", "Kenji", "Fatima", "Mateo", "Olga", "Tunde", "Mei", "Lars",
    "Sofia", "Omar", "Hannah", "Diego", "Aisha", "Yuki", "Noah", "Elena", "Ravi", "Chloe",
    "Ibrahim", "Grace", "Felix", "Zara", "Tomas", "Ingrid", "Kwame", "Leila", "Marco",
    "Nadia", "Pavel", "Rosa", "Sanjay", "Tara", "Viktor", "Wen", "Xavier", "Yara", "Zoe",
    "Hugo",
)  # fmt: skip
PROJECTS = (
    "Atlas", "Borealis", "Cobalt", "Ember", "Falcon", "Granite", "Helix", "Juniper",
    "Kestrel", "Lumen", "Meridian", "Nimbus", "Orion", "Pulsar", "Quartz", "Redwood",
    "Sierra", "Tundra", "Vega", "Willow", "Zephyr", "Mosaic", "Beacon", "Harbor",
)  # fmt: skip
PLACES = (
    "Lisbon", "Berlin", "Osaka", "Nairobi", "Toronto", "Sao Paulo", "Austin", "Dublin",
    "Singapore", "Melbourne", "Oslo", "Bangalore", "Warsaw", "Seattle", "Cape Town",
    "Montreal", "Madrid", "Seoul", "Denver", "Helsinki", "Lagos", "Zurich", "Edinburgh",
    "Mexico City",
)  # fmt: skip
TEAMS = (
    "payments", "search", "infrastructure", "mobile", "data platform", "security",
    "growth", "support tooling", "billing", "identity",
)  # fmt: skip
TOOLS = (
    "Postgres", "Kafka", "Redis", "Terraform", "Kubernetes", "Grafana", "Snowflake",
    "Airflow", "React", "gRPC", "S3", "Vault", "Elasticsearch", "Spark",
)  # fmt: skip
REGIONS = ("eu-west-1", "us-east-1", "ap-south-1", "us-west-2", "eu-central-1", "sa-east-1")
COMPANIES = (
    "Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries", "Wayne Foods",
    "Soylent", "Vandelay Imports", "Tyrell", "Cyberdyne", "Wonka Labs",
)  # fmt: skip
ALLERGENS = ("peanuts", "shellfish", "gluten", "dairy", "sesame", "eggs")
CUISINES = ("Thai", "Ethiopian", "Korean barbecue", "Neapolitan pizza", "ramen", "tapas")
HOBBIES = (
    "rock climbing", "chess", "sailing", "pottery", "marathon running", "jazz piano",
    "birdwatching", "woodworking", "trail cycling", "board games",
)  # fmt: skip
EVENTS = ("the Berlin marathon", "a sprint triathlon", "a climbing trip", "a chess open")
MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
PLANS = ("starter", "team", "business", "enterprise")
REASONS = (
    "its better tooling",
    "lower latency in load tests",
    "what the team already knows",
    "cheaper hosting",
    "a simpler on-call story",
)


def _memory_templates(r: random.Random) -> list[Callable[[], str]]:
    c = r.choice
    n = r.randint
    return [
        lambda: (
            f"{c(NAMES)} moved the {c(PROJECTS)} kickoff to {c(WEEKDAYS)} at"
            f" {n(8, 17)}:00 in the {c(PLACES)} office."
        ),
        lambda: (
            f"The {c(TEAMS)} team's budget for {c(PROJECTS)} is ${n(20, 900)}k for"
            f" Q{n(1, 4)} {n(2023, 2026)}."
        ),
        lambda: (
            f"{c(NAMES)} is allergic to {c(ALLERGENS)} and prefers {c(CUISINES)} for team"
            f" dinners; table for {n(4, 14)}."
        ),
        lambda: (
            f"Incident {n(1000, 99999)}: {c(TOOLS)} in {c(REGIONS)} was down for"
            f" {n(3, 240)} minutes and {c(NAMES)} wrote the postmortem."
        ),
        lambda: (
            f"{c(NAMES)} prefers {c(TOOLS)} over {c(TOOLS)} for {c(PROJECTS)} because of"
            f" {c(REASONS)} (decided in sprint {n(1, 120)})."
        ),
        lambda: (
            f"{c(NAMES)}'s flight to {c(PLACES)} lands at {n(0, 23)}:{n(10, 59)} on"
            f" {c(MONTHS)} {n(1, 28)}, flight {c(('LH', 'BA', 'KL', 'UA', 'NH'))}{n(100, 9999)}."
        ),
        lambda: (
            f"{c(PROJECTS)} ships version {n(1, 9)}.{n(0, 30)}.{n(0, 40)} on {c(MONTHS)}"
            f" {n(1, 28)}; {c(NAMES)} owns the release notes."
        ),
        lambda: (
            f"{c(NAMES)} joined the {c(TEAMS)} team in {c(MONTHS)} {n(2015, 2025)} and"
            f" reports to {c(NAMES)}."
        ),
        lambda: (
            f"The {c(PLACES)} office wifi password rotates every {n(7, 90)} days; ask"
            f" {c(NAMES)} on floor {n(1, 30)}."
        ),
        lambda: (
            f"{c(NAMES)} likes {c(HOBBIES)} on weekends and is training for {c(EVENTS)},"
            f" {n(2, 40)} weeks to go."
        ),
        lambda: (
            f"Customer {c(COMPANIES)} on the {c(PLANS)} plan has {n(5, 5000)} seats and"
            f" renews in {c(MONTHS)}; account owner {c(NAMES)}."
        ),
        lambda: (
            f"{c(NAMES)} needs {n(50, 8000)} GB of storage for the {c(PROJECTS)}"
            f" {c(TOOLS)} cluster in {c(REGIONS)}."
        ),
        lambda: (
            f"The {c(TEAMS)} on-call rotation for {c(PROJECTS)} in week {n(1, 52)} is"
            f" {c(NAMES)}, {c(NAMES)} and {c(NAMES)}."
        ),
        lambda: (
            f"Ticket {c(PROJECTS).upper()[:4]}-{n(100, 99999)}: {c(TOOLS)} migrations for"
            f" {c(PROJECTS)} are blocked on {c(NAMES)}'s review."
        ),
        lambda: (
            f"{c(NAMES)} said the {c(PROJECTS)} demo in {c(PLACES)} went well; follow up"
            f" with {c(COMPANIES)} by {c(WEEKDAYS)} {n(1, 28)} {c(MONTHS)}."
        ),
        lambda: (
            f"{c(NAMES)}'s daughter turns {n(2, 17)} on {c(MONTHS)} {n(1, 28)}; the team"
            f" card is with {c(NAMES)}."
        ),
        lambda: (
            f"p99 latency of the {c(PROJECTS)} API in {c(PLACES)} is {n(8, 900)} ms after"
            f" the {c(TOOLS)} upgrade to {n(2, 17)}.{n(0, 9)}."
        ),
        lambda: (
            f"{c(NAMES)} recommends the {c(CUISINES)} place near the {c(PLACES)} office,"
            f" about {n(2, 25)} minutes' walk, closed on {c(WEEKDAYS)}s."
        ),
        lambda: (
            f"{c(COMPANIES)} asked for an SSO integration with {c(PROJECTS)} before"
            f" {c(MONTHS)} {n(1, 28)}; contract worth ${n(10, 999)}k."
        ),
        lambda: (
            f"{c(NAMES)} is out of office from {c(MONTHS)} {n(1, 14)} to {n(15, 28)},"
            f" {c(NAMES)} covers the {c(TEAMS)} reviews."
        ),
    ]


def memories(seed: str, count: int) -> list[str]:
    """`count` distinct memory sentences; the same `seed` gives the same list."""
    r = random.Random(seed)
    templates = _memory_templates(r)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        text = r.choice(templates)()
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


def queries(seed: str, count: int) -> list[str]:
    """`count` natural-language questions over the same vocabulary (may repeat)."""
    r = random.Random(seed)
    c = r.choice
    shapes: list[Callable[[], str]] = [
        lambda: f"when does {c(NAMES)}'s flight to {c(PLACES)} land?",
        lambda: f"what is the budget for {c(PROJECTS)}?",
        lambda: f"who on the team is allergic to {c(ALLERGENS)}?",
        lambda: f"what went wrong with {c(TOOLS)} in {c(REGIONS)}?",
        lambda: f"which database does {c(NAMES)} like for {c(PROJECTS)}?",
        lambda: f"who is on call for {c(PROJECTS)} this week?",
        lambda: f"when is the next {c(PROJECTS)} release?",
        lambda: f"what does {c(NAMES)} do on the weekend?",
        lambda: f"how many seats does {c(COMPANIES)} have and when do they renew?",
        lambda: f"who is {c(NAMES)}'s manager?",
        lambda: f"good place to eat near the {c(PLACES)} office",
        lambda: f"what is blocking the {c(PROJECTS)} migrations?",
        lambda: f"is the {c(PROJECTS)} API slow in {c(PLACES)}?",
        lambda: f"who covers for {c(NAMES)} while they are on vacation?",
        lambda: f"what did {c(COMPANIES)} ask us for?",
        lambda: f"storage needs for the {c(PROJECTS)} cluster",
        lambda: f"when is the {c(PROJECTS)} kickoff meeting?",
        lambda: "who wrote the last postmortem?",
    ]
    return [c(shapes)() for _ in range(count)]
