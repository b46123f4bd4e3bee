"""Results of `engram bench lifecycle`: ratios to the floor, goals, JSON and markdown.

A ratio always reads "how many times worse than PostgreSQL alone": for latency
engram / floor, for throughput floor / engram. Bigger is slower in both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engram_server.bench.stats import Latency, Throughput

# (Engram figure, floor figure, label) pairs, in report order. Write figures come
# twice: with the server's search indexer idle when each call starts (the
# lifecycle path's own cost, what the goals are checked against) and with it busy
# embedding the previous writes on the same cores (as under sustained writes).
LATENCY_PAIRS = (
    ("propose", "insert_one", "ProposeMemory"),
    ("propose_indexing", "insert_one_indexing", "ProposeMemory, indexer busy"),
    ("get", "get", "GetMemory"),
    ("list_first_page", "list_first_page", "ListMemories, first page"),
    ("list_deep_page", "list_deep_page", "ListMemories, deep page"),
    # What any call costs before it does anything: a gRPC health check (no
    # authentication, no database) against a bare `SELECT 1`.
    ("round_trip", "round_trip", "Bare round trip (gRPC health check / SELECT 1)"),
)
THROUGHPUT_PAIRS = (
    ("batch_propose", "insert_batch", "BatchProposeMemories"),
    (
        "batch_propose_indexing",
        "insert_batch_indexing",
        "BatchProposeMemories, indexer busy (the top-up)",
    ),
    (
        "batch_propose_concurrent",
        "insert_batch_concurrent",
        "BatchProposeMemories, concurrent clients",
    ),
)


@dataclass
class Level:
    """Every figure taken with the measured tenant at one size."""

    memories: int
    # Seconds spent waiting for the search index to catch up before the reads, and
    # whether it did.
    index_wait_seconds: float = 0.0
    index_caught_up: bool = True
    # The untimed Recall after settling (it waits out the search-graph build).
    first_recall_seconds: float = 0.0
    engram_latency: dict[str, Latency] = field(default_factory=dict)
    engram_throughput: dict[str, Throughput] = field(default_factory=dict)
    floor_latency: dict[str, Latency] = field(default_factory=dict)
    floor_throughput: dict[str, Throughput] = field(default_factory=dict)

    def ratios(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for engram_key, floor_key, _ in LATENCY_PAIRS:
            engram, floor = self.engram_latency[engram_key], self.floor_latency[floor_key]
            out[f"{engram_key}_p50"] = _ratio(engram.p50_ms, floor.p50_ms)
            out[f"{engram_key}_p99"] = _ratio(engram.p99_ms, floor.p99_ms)
        for engram_key, floor_key, _ in THROUGHPUT_PAIRS:
            out[engram_key] = _ratio(
                self.floor_throughput[floor_key].items_per_second,
                self.engram_throughput[engram_key].items_per_second,
            )
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "memories": self.memories,
            "index_wait_seconds": round(self.index_wait_seconds, 1),
            "index_caught_up": self.index_caught_up,
            "first_recall_seconds": round(self.first_recall_seconds, 3),
            "engram": {
                **{k: v.to_json() for k, v in self.engram_latency.items()},
                **{k: v.to_json() for k, v in self.engram_throughput.items()},
            },
            "floor": {
                **{k: v.to_json() for k, v in self.floor_latency.items()},
                **{k: v.to_json() for k, v in self.floor_throughput.items()},
            },
            "ratio_to_floor": self.ratios(),
        }


def _ratio(numerator: float, denominator: float) -> float:
    return round(numerator / denominator, 2) if denominator > 0 else float("inf")


@dataclass(frozen=True)
class Goal:
    """A target of the issue, checked against the worst size measured."""

    name: str
    target: str
    unit: str
    # Worst value over all levels, and whether it meets the target.
    measure: Callable[[list[Level]], float]
    meets: Callable[[float], bool]

    def evaluate(self, levels: list[Level]) -> dict[str, Any]:
        value = self.measure(levels)
        return {
            "goal": self.name,
            "target": self.target,
            "measured": round(value, 3),
            "unit": self.unit,
            "met": self.meets(value),
            "over": "worst of all sizes",
        }


GOALS = (
    Goal(
        "ProposeMemory p50",
        "<= 3 ms",
        "ms",
        lambda levels: max(lv.engram_latency["propose"].p50_ms for lv in levels),
        lambda v: v <= 3.0,
    ),
    Goal(
        "ProposeMemory p50 vs floor",
        "<= 3x",
        "x",
        lambda levels: max(lv.ratios()["propose_p50"] for lv in levels),
        lambda v: v <= 3.0,
    ),
    Goal(
        "BatchProposeMemories throughput",
        ">= 5,000 memories/s",
        "memories/s",
        lambda levels: min(lv.engram_throughput["batch_propose"].items_per_second for lv in levels),
        lambda v: v >= 5000.0,
    ),
    Goal(
        "BatchProposeMemories throughput, concurrent clients",
        ">= 5,000 memories/s",
        "memories/s",
        lambda levels: min(
            lv.engram_throughput["batch_propose_concurrent"].items_per_second for lv in levels
        ),
        lambda v: v >= 5000.0,
    ),
    Goal(
        "GetMemory p50",
        "<= 1.5 ms",
        "ms",
        lambda levels: max(lv.engram_latency["get"].p50_ms for lv in levels),
        lambda v: v <= 1.5,
    ),
)


def evaluate_goals(levels: list[Level]) -> list[dict[str, Any]]:
    return [goal.evaluate(levels) for goal in GOALS]


# --- markdown -------------------------------------------------------------------


def _ms(value: float) -> str:
    return f"{value:.2f} ms"


def _rate(value: float) -> str:
    return f"{value:,.0f}/s"


def _first(values: list[float]) -> str:
    return f"{values[0]:.2f}" if values else "n/a"


def _x(value: float) -> str:
    return f"{value:.1f}x"


def markdown(report: dict[str, Any], levels: list[Level]) -> str:
    machine = report["machine"]
    pg = machine["postgres"]
    load = machine["load_average"]
    lines = [
        "# Engram lifecycle benchmark",
        "",
        f"Run {report['started_at']} on {machine['cpu_count']} cores, Python"
        f" {machine['python']}, PostgreSQL {pg['server_version']}"
        f" (synchronous_commit={pg['synchronous_commit']}, fsync={pg['fsync']}),"
        f" Engram {report['engram_version']}"
        + (f" at {report['git_commit'][:12]}" if report.get("git_commit") else "")
        + ".",
        f"Load average (1 min) before / after the run: {_first(load['before'])} /"
        f" {_first(load['after'])} (other work on the machine shows up in every figure).",
        "",
        f"Server: {report['method']['server']}",
        "",
        f"Floor: {report['method']['floor']}",
        "",
        "Ratio = how many times slower than the floor (latency: Engram / floor;"
        " throughput: floor / Engram).",
        "",
        "| figure | memories | Engram | floor | ratio |",
        "|---|---:|---:|---:|---:|",
    ]
    for engram_key, floor_key, label in (*LATENCY_PAIRS[:2], *THROUGHPUT_PAIRS, *LATENCY_PAIRS[2:]):
        for lv in levels:
            ratios = lv.ratios()
            if engram_key in lv.engram_throughput:
                engram_t = lv.engram_throughput[engram_key]
                floor_t = lv.floor_throughput[floor_key]
                lines.append(
                    f"| {label} (batches of {report['config']['batch_size']}) |"
                    f" {lv.memories:,} | {_rate(engram_t.items_per_second)} |"
                    f" {_rate(floor_t.items_per_second)} | {_x(ratios[engram_key])} |"
                )
                continue
            engram_l = lv.engram_latency[engram_key]
            floor_l = lv.floor_latency[floor_key]
            for q in ("p50", "p99"):
                lines.append(
                    f"| {label} {q} | {lv.memories:,} |"
                    f" {_ms(getattr(engram_l, f'{q}_ms'))} |"
                    f" {_ms(getattr(floor_l, f'{q}_ms'))} |"
                    f" {_x(ratios[f'{engram_key}_{q}'])} |"
                )
    lines += ["", "| goal | target | measured (worst size) | met |", "|---|---|---:|---|"]
    for goal in report["goals"]:
        unit = goal["unit"]
        value = goal["measured"]
        shown = _ms(value) if unit == "ms" else _rate(value) if unit == "memories/s" else _x(value)
        lines.append(
            f"| {goal['goal']} | {goal['target']} | {shown} | {'yes' if goal['met'] else 'no'} |"
        )
    lines += [
        "",
        f"Method: {report['method']['measurement']}",
        "",
        f"Settling: {report['method']['settle']}",
        "",
        "Search-index catch-up after each load: "
        + "; ".join(
            f"{lv.memories:,} memories: {lv.index_wait_seconds:.0f} s"
            + ("" if lv.index_caught_up else " (gave up waiting)")
            + f", then {lv.first_recall_seconds:.2f} s for the first Recall"
            for lv in levels
        )
        + ".",
        "",
    ]
    return "\n".join(lines)
