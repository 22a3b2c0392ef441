"""A whole tournament's replays in one file: a bundle of its matches' series, verified each.

``python -m engine tournament --replays DIR`` writes one series file per match, and each
opens on its own. The page offers the whole tournament as one download; it cannot be one
series, because in a tournament an entry plays a seed more than once (both seats of a pair,
several opponents), which ``engine.play.replay.verify_document`` refuses in a series (a record
copied twice would count twice). So the file is a bundle::

    {"schema_version": 3, "kind": "tournament", "game": NAME, "entries": [NAME, ...],
     "matches": [series, ...]}

``verify_any`` reads a replay file of any kind, within the one set of caps of
``engine.play.replay`` (64 MB, nesting, records, turns over the whole file), re-runs every match
through the rules, and gives the viewer one series over the entries: every match's records,
their seats mapped to the entries, and a summary with one game per match (``summarize``'s
shape, where an entry that did not play a game has no score in it). Standard library only.
"""

from __future__ import annotations

from typing import Any

from engine.core.outcome import unique_winner
from engine.play.debug_part import FILE_CHARS, within_file_budget
from engine.play.replay import (
    MAX_BOTS,
    MAX_NAME_CHARS,
    MAX_RECORDS,
    MAX_TOTAL_TURNS,
    ReplayError,
    parse_document,
    series_of,
    verify_series,
)
from engine.play.session import SCHEMA_VERSION

KIND = "tournament"


def tournament_bundle(game: str, entries: list[str], matches: list[dict]) -> dict:
    """The bundle of a tournament's matches (each a series document, in plan order)."""
    left, kept = FILE_CHARS, []
    for match in matches:  # the bots' output, within one file's budget (debug_part)
        records, left = within_file_budget(match.get("records") or [], left)
        kept.append({**match, "records": records})
    return {"schema_version": SCHEMA_VERSION, "kind": KIND, "game": game, "entries": list(entries),
            "matches": kept}


def verify_any(text: str) -> dict:
    """A replay file of any kind (game, series, tournament), verified; raises ReplayError.
    A bundle comes back as one series over its entries (``bundle_as_series``)."""
    document = parse_document(text)
    if document.get("kind") != KIND:
        return verify_series(series_of(document))
    return bundle_as_series(verify_bundle(document))


def verify_bundle(document: dict) -> dict:
    """A parsed bundle with every match verified (``verify_series``); raises ReplayError
    naming the match."""
    entries, matches = document.get("entries"), document.get("matches")
    if not isinstance(entries, list) or not 2 <= len(entries) <= MAX_BOTS * MAX_BOTS or not all(
            isinstance(e, str) and len(e) <= MAX_NAME_CHARS for e in entries):
        raise ReplayError("a tournament's entries are a list of at least 2 names")
    if len(set(entries)) != len(entries):
        raise ReplayError("two of the tournament's entries have the same name")
    if not isinstance(matches, list) or not matches:
        raise ReplayError("a tournament file holds a list of matches")
    if len(matches) > MAX_RECORDS:
        raise ReplayError(f"the file holds {len(matches)} matches; a replay may hold at most {MAX_RECORDS}")
    total = 0
    for number, match in enumerate(matches, 1):
        records = match.get("records") if isinstance(match, dict) else None
        if not isinstance(records, list):
            raise ReplayError(f"match {number}: a match is a series with a list of records")
        total += len(records)
        total_turns = sum(len(r["turns"]) for r in records if isinstance(r, dict)
                          and isinstance(r.get("turns"), list))
        if total > MAX_RECORDS or total_turns > MAX_TOTAL_TURNS:
            raise ReplayError(f"the file holds more than {MAX_RECORDS} records or {MAX_TOTAL_TURNS} turns")
    verified = []
    names = set(entries)
    for number, match in enumerate(matches, 1):
        if match.get("kind") != "series" or match.get("game") != document.get("game"):
            raise ReplayError(f"match {number}: a match is a series of the file's game")
        try:
            series = verify_series(series_of(match))
        except ReplayError as exc:
            raise ReplayError(f"match {number}, {exc}") from None
        stranger = next((b for b in series["bots"] if b not in names), None)
        if stranger is not None:
            raise ReplayError(f"match {number}: {stranger[:60]!r} is not an entry of the tournament")
        verified.append(series)
    return {**document, "matches": verified}


def bundle_as_series(bundle: dict) -> dict:
    """A verified bundle as the viewer's series: the entries as its bots, every record with
    its seats mapped to entries, one summary game per match."""
    entries: list[str] = bundle["entries"]
    index = {name: i for i, name in enumerate(entries)}
    records, games = [], []
    n = len(entries)
    for series in bundle["matches"]:
        scores: list[Any] = [None] * n
        faults = [0] * n
        for record in series["records"]:
            mapped = [index[series["bots"][b]] for b in record["bot_index"]]
            records.append({**record, "bot_index": mapped})
        for game in series["summary"]["games"]:
            for bot, name in enumerate(series["bots"]):
                scores[index[name]] = game["scores"][bot]
                faults[index[name]] += game["faults"][bot]
        played = [(e, s) for e, s in enumerate(scores) if s is not None]
        best = unique_winner([s for _, s in played]) if len(played) > 1 else None
        games.append({"seed": series["records"][0]["seed"], "scores": scores, "faults": faults,
                      "winner": None if best is None else played[best][0]})
    wins = [sum(1 for g in games if g["winner"] == e) for e in range(n)]
    means = []
    for e in range(n):
        mine = [g["scores"][e] for g in games if g["scores"][e] is not None]
        means.append(round(sum(mine) / len(mine), 3) if mine else 0.0)
    scoring = bundle["matches"][0]["summary"]["scoring"]
    key = (lambda e: (-wins[e], -means[e], e)) if scoring == "wins" else (lambda e: (-means[e], -wins[e], e))
    summary = {"games": games, "mean_scores": means, "wins": wins, "scoring": scoring,
               "ranking": sorted(range(n), key=key)}
    return {"schema_version": SCHEMA_VERSION, "kind": "series", "game": bundle["game"],
            "bots": list(entries), "records": records, "summary": summary, "matches": len(games)}
