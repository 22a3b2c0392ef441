"""Replay records: reading them safely, and re-running one through the rules.

A record holds every answer and fault, so the rules alone (no bots) reproduce the game;
``replay_record`` checks each turn's recorded changes and the result against that.
"""

from __future__ import annotations

import json
from typing import Any

from engine.errors import AnswerError
from engine.games import get_game
from engine.session import SCHEMA_VERSION


class ReplayError(ValueError):
    """A replay file that cannot be read, or a record the rules do not reproduce."""


def load_document(text: str) -> dict:
    """Parse a replay file (a series or a single game); raises ReplayError."""
    try:
        document = json.loads(text)
    except ValueError as exc:
        raise ReplayError(f"not JSON: {exc}") from None
    if not isinstance(document, dict):
        raise ReplayError("a replay is a JSON object")
    version = document.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ReplayError(f"unsupported schema_version {version!r} (this version reads {SCHEMA_VERSION})")
    kind = document.get("kind")
    if kind == "game":
        return {"schema_version": SCHEMA_VERSION, "kind": "series", "game": document.get("game"),
                "bots": document.get("bots"), "records": [document]}
    if kind != "series":
        raise ReplayError(f"unknown kind {kind!r}: expected 'series' or 'game'")
    if not isinstance(document.get("records"), list):
        raise ReplayError("a series needs a list of records")
    return document


def replay_record(record: dict) -> Any:
    """Re-run a record through the rules; returns the final state, or raises ReplayError."""
    try:
        return _replay(record)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ReplayError(f"malformed record: {type(exc).__name__}: {exc}") from None


def _replay(record: dict) -> Any:
    try:
        spec = get_game(record["game"])
        settings = spec.settings_from_json(record["settings"])
        state = spec.new_game(settings, record["seed"], 1 if spec.side_by_side else len(record["bots"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"bad record header: {exc}") from None
    if state.settings.to_json() != record["settings"]:
        raise ReplayError(f"the settings {record['settings']} do not fit the record's bots")
    wire = spec.wire
    if wire.record_start(state) != record["start"]:
        raise ReplayError("the start position differs from the record")
    frozen_seats = set()
    for number, turn in enumerate(record["turns"]):
        seat = turn["seat"]
        if state.is_terminal():
            raise ReplayError(f"turn {number}: the game was already over")
        if state.current_player() != seat:
            raise ReplayError(f"turn {number}: seat {seat} moved out of turn")
        fault = turn.get("fault")
        if fault is None:
            try:
                action = wire.parse_answer(turn["answer"], state)
            except AnswerError as exc:
                raise ReplayError(f"turn {number}: recorded answer rejected: {exc}") from None
        else:
            action = state.default_action()
            if fault["kind"] == "frozen":
                frozen_seats.add(seat)
        try:
            changes = state.apply_action(action)
        except AnswerError as exc:
            raise ReplayError(f"turn {number}: recorded answer is illegal: {exc}") from None
        difference = wire.replay_check(turn, state, changes)
        if difference:
            raise ReplayError(f"turn {number}: {difference}")
    result = record.get("result")
    if result and result["termination"] == "frozen" and not state.is_terminal():
        state.freeze(0)
    if not state.is_terminal():
        raise ReplayError("the record ends before the game does")
    if state.outcome.to_json() != result:
        raise ReplayError(f"result differs: record {result}, rules {state.outcome.to_json()}")
    return state
