"""Series of games: which bots sit where on which seed, and how results add up.

Pure planning and bookkeeping, shared by the native controller (``engine.match``) and the
page's controller (``web/main.py``). Atomas is played in the duplicate format (every bot
plays every seed, mean score); Flit counts wins, with seats rotated across games.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.outcome import unique_winner
from engine.session import SCHEMA_VERSION
from engine.spec import GameSpec


@dataclass(frozen=True)
class GamePlan:
    game_number: int  # 0-based index of the game (the seed) in the series
    seed: int
    bot_index: tuple[int, ...]  # seat -> index of the bot in the series' bot list


def plan_series(spec: GameSpec, n_bots: int, first_seed: int, games: int) -> list[GamePlan]:
    if not spec.min_bots <= n_bots <= spec.max_bots:
        raise ValueError(f"{spec.title} takes {spec.min_bots} to {spec.max_bots} bots, got {n_bots}")
    if games < 1:
        raise ValueError(f"the number of games must be at least 1, got {games}")
    plans = []
    for g in range(games):
        seed = first_seed + g
        if spec.side_by_side:
            plans.extend(GamePlan(g, seed, (b,)) for b in range(n_bots))
        else:
            plans.append(GamePlan(g, seed, tuple((s + g) % n_bots for s in range(n_bots))))
    return plans


def record_faults(record: dict) -> list[int]:
    """Faults per seat in a record (turns a frozen bot sat out are not counted again)."""
    counts = [0] * len(record["bots"])
    for turn in record["turns"]:
        fault = turn.get("fault")
        if fault and fault["kind"] != "frozen":
            counts[turn["seat"]] += 1
    for seat, extra in enumerate(record.get("start_faults", [])):
        counts[seat] += extra
    return counts


def summarize(n_bots: int, records: list[dict]) -> dict:
    """Per-seed scores, winners and faults in bot order; mean scores and wins per bot."""
    by_seed: dict[int, dict] = {}
    order: list[int] = []
    for record in records:
        seed = record["seed"]
        if seed not in by_seed:
            by_seed[seed] = {"seed": seed, "scores": [0] * n_bots, "winner": None,
                             "faults": [0] * n_bots}
            order.append(seed)
        entry = by_seed[seed]
        faults = record_faults(record)
        scores = record["result"]["scores"] if record["result"] else [0] * len(record["bots"])
        for seat, bot in enumerate(record["bot_index"]):
            entry["scores"][bot] = scores[seat]
            entry["faults"][bot] += faults[seat]
    games = [by_seed[s] for s in order]
    wins = [0] * n_bots
    for entry in games:
        entry["winner"] = unique_winner(entry["scores"])
        if entry["winner"] is not None:
            wins[entry["winner"]] += 1
    mean_scores = [
        round(sum(g["scores"][b] for g in games) / len(games), 3) if games else 0.0
        for b in range(n_bots)
    ]
    return {"games": games, "mean_scores": mean_scores, "wins": wins}


def series_document(spec: GameSpec, bot_names: list[str], records: list[dict],
                    secret: str | None = None) -> dict:
    """The replay file for a series: every record and the summary (and the run's secret)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "series",
        "game": spec.name,
        **({"secret": secret} if secret is not None else {}),
        "bots": list(bot_names),
        "records": records,
        "summary": summarize(len(bot_names), records),
    }
