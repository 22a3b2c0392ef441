"""Replay records: round trips through the rules, tampering, determinism, golden games.

Golden records live in tests/golden/; regenerate them with ``UPDATE_GOLDEN=1 pytest
tests/test_replay.py`` after a deliberate change to the rules or the record format.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from engine.bots.native import InProcessBot
from engine.games import get_game
from engine.games.flit import NEUTRAL
from engine.match import run_series
from engine.replay import ReplayError, load_document, replay_record

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

# Deterministic bots (no random module), so a seed fixes the whole game.
ATOMAS_LOOKAHEAD = '''
def move(view):
    """Put a plus between equal neighbours if it can, else next to an equal atom."""
    board, atom, n = list(view.board), view.atom, len(view.board)
    if atom == "-":
        pluses = [i for i, x in enumerate(board) if x == "+"]
        return (pluses[0], True) if pluses else (0, False)
    if atom == "C":
        numbers = [i for i, x in enumerate(board) if x != "+"]
        return max(numbers, key=lambda i: board[i]) if numbers else 0
    if n < 2:
        return 0
    for gap in range(n):
        left, right = board[gap], board[(gap + 1) % n]
        if atom in ("+", "B") and left != "+" and left == right:
            return gap
        if atom not in ("+", "B") and (left == atom or right == atom):
            return gap
    return n - 1
'''

ATOMAS_INVALID_SOMETIMES = '''
count = 0
def move(view):
    global count
    count += 1
    if count % 7 == 0:
        return "nonsense"
    if count % 11 == 0:
        return 99
    return "0 n" if view.atom == "-" else (len(view.board) // 2 if view.board else 0)
'''

FLIT_STRIDE = '''
def move(view):
    moves = view.moves()
    if not moves or view.turn == 7:
        return "3 3 3 3"  # a pass
    return moves[(view.turn * 7) % len(moves)]
'''

FLIT_NEUTRAL_HUNTER = '''
def move(view):
    moves = view.moves()
    if not moves:
        return "0 0 0 0"
    neutrals = set(view.pieces(5))
    def gain(m):
        return sum(p in neutrals for p in view.neighbours(m[2], m[3]))
    if view.turn % 13 == 0:
        return "1 2 3"  # an invalid answer now and then
    return max(moves, key=gain)
'''


def atomas_series(seed, games=1, max_moves=400, bots=(("lookahead", ATOMAS_LOOKAHEAD),)):
    spec = get_game("atomas")
    settings = spec.settings(max_moves=max_moves, time_limit_ms=10_000)
    return run_series(spec, settings, [InProcessBot(n, s) for n, s in bots], seed, games).document


def flit_series(seed, games=1, max_turns=300, players=2):
    spec = get_game("flit")
    sources = [("stride", FLIT_STRIDE), ("hunter", FLIT_NEUTRAL_HUNTER)] * 2
    settings = spec.settings(max_turns=max_turns, players=players, time_limit_ms=10_000)
    bots = [InProcessBot(n, s) for n, s in sources[:players]]
    return run_series(spec, settings, bots, seed, games).document


def flit_board(record):
    size = record["settings"]["size"]
    cells = [0] * (size * size)
    for x, y, c in record["start"]["changes"]:
        cells[y * size + x] = c
    for turn in record["turns"]:
        for x, y, c in turn["changes"]:
            cells[y * size + x] = c
    return cells


# -- round trips -------------------------------------------------------------------------------
def test_atomas_round_trip():
    document = atomas_series(3, games=3, bots=(("lookahead", ATOMAS_LOOKAHEAD),
                                               ("sometimes", ATOMAS_INVALID_SOMETIMES)))
    assert len(document["records"]) == 6
    kinds = set()
    for record in document["records"]:
        state = replay_record(record)
        assert state.items == (record["turns"][-1]["board"] if record["turns"] else record["start"]["board"])
        assert state.score == record["result"]["scores"][0]
        assert state.moves == len(record["turns"])
        kinds |= {t["fault"]["kind"] for t in record["turns"] if t["fault"]}
    assert kinds == {"invalid"}  # faulted turns replay as the default move


def test_atomas_frozen_record_replays():
    document = atomas_series(2, bots=(("quits", "def move(view):\n    raise SystemExit\n"),))
    record = document["records"][0]
    assert record["result"]["termination"] == "frozen"
    state = replay_record(record)
    assert state.outcome.termination == "frozen"


def test_flit_round_trip():
    document = flit_series(4, games=2, players=3)
    for record in document["records"]:
        state = replay_record(record)
        assert state.cells == flit_board(record)
        assert list(state.returns()) == record["result"]["scores"]
        faults = [t["fault"]["kind"] for t in record["turns"] if t["fault"]]
        assert faults and set(faults) == {"invalid"}
        assert any(c == NEUTRAL for t in record["turns"] for _, _, c in t["changes"])


def test_flit_record_with_a_frozen_bot_replays():
    spec = get_game("flit")
    bots = [InProcessBot("raiser", "def move(view):\n    raise ValueError('no')\n"),
            InProcessBot("stride", FLIT_STRIDE)]
    document = run_series(spec, spec.settings(max_turns=80, time_limit_ms=10_000), bots, 5, 1).document
    record = document["records"][0]
    assert {t["fault"]["kind"] for t in record["turns"] if t["fault"]} == {"error", "frozen"}
    state = replay_record(record)
    assert state.cells == flit_board(record)


def test_replay_of_a_single_game_document():
    record = flit_series(6, max_turns=50)["records"][0]
    document = load_document(json.dumps(record))
    assert document["kind"] == "series" and document["records"] == [record]


# -- tampering ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def atomas_record():
    return atomas_series(7, max_moves=120)["records"][0]


@pytest.fixture(scope="module")
def flit_record():
    return flit_series(7, max_turns=120)["records"][0]


def tampered(record, change):
    other = copy.deepcopy(record)
    change(other)
    return other


def set_answer(record, value):
    turn = next(t for t in record["turns"] if t["fault"] is None and t["atom"] not in ("-", "C"))
    turn["answer"] = value


ATOMAS_TAMPERING = {
    "answer": lambda r: set_answer(r, "99"),
    "minus answer": lambda r: next(t for t in r["turns"] if t["atom"] == "-").__setitem__("answer", "0 z"),
    "unparseable answer": lambda r: set_answer(r, "zero"),
    "board": lambda r: r["turns"][3]["board"].append(1),
    "score": lambda r: r["turns"][-1].__setitem__("score", r["turns"][-1]["score"] + 1),
    "result": lambda r: r["result"].__setitem__("scores", [r["result"]["scores"][0] + 1]),
    "termination": lambda r: r["result"].__setitem__(
        "termination", "ring_full" if r["result"]["termination"] != "ring_full" else "max_moves"),
    "start": lambda r: r["start"]["board"].reverse(),
    "seed": lambda r: r.__setitem__("seed", r["seed"] + 1),
    "truncated": lambda r: r["turns"].pop(),
    "extra turn": lambda r: r["turns"].append(dict(r["turns"][-1])),
    "seat": lambda r: r["turns"][0].__setitem__("seat", 1),
    "game": lambda r: r.__setitem__("game", "chess"),
    "settings": lambda r: r["settings"].__setitem__("bogus", 1),
    "max_moves": lambda r: r["settings"].__setitem__("max_moves", 3),
    "missing answer": lambda r: r["turns"][2].pop("answer"),
    "missing seat": lambda r: r["turns"][2].pop("seat"),
    "turns not a list": lambda r: r.__setitem__("turns", 5),
    "no result": lambda r: r.pop("result"),
}


@pytest.mark.parametrize("name", sorted(ATOMAS_TAMPERING))
def test_tampered_atomas_record_is_rejected(atomas_record, name):
    replay_record(atomas_record)  # the original is fine
    with pytest.raises(ReplayError):
        replay_record(tampered(atomas_record, ATOMAS_TAMPERING[name]))


def first_move_turn(record):
    return next(t for t in record["turns"] if t["move"])


FLIT_TAMPERING = {
    "answer": lambda r: first_move_turn(r).__setitem__("answer", "0 0 0 0"),
    "changes": lambda r: first_move_turn(r)["changes"][1].__setitem__(2, 2),
    "dropped neutral": lambda r: next(t for t in r["turns"] if any(c[2] == 5 for c in t["changes"]))[
        "changes"].pop(),
    "start": lambda r: r["start"]["changes"][0].__setitem__(0, (r["start"]["changes"][0][0] + 1) % 16),
    "result": lambda r: r["result"].__setitem__("winner", 1 - (r["result"]["winner"] or 0)),
    "seed": lambda r: r.__setitem__("seed", r["seed"] + 1),
    "truncated": lambda r: r["turns"].pop(),
    "out of turn": lambda r: r["turns"][1].__setitem__("seat", 0),
    "players": lambda r: r["settings"].__setitem__("players", 3),
    "size": lambda r: r["settings"].__setitem__("size", 17),
    "missing changes": lambda r: first_move_turn(r).pop("changes"),
    "change not a triple": lambda r: r["start"]["changes"].__setitem__(0, 7),
}


@pytest.mark.parametrize("name", sorted(FLIT_TAMPERING))
def test_tampered_flit_record_is_rejected(flit_record, name):
    replay_record(flit_record)
    with pytest.raises(ReplayError):
        replay_record(tampered(flit_record, FLIT_TAMPERING[name]))


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"schema_version": 2, "kind": "series"}',
                                  '{"schema_version": 1, "kind": "movie"}',
                                  '{"schema_version": 1, "kind": "series", "records": 3}'])
def test_bad_documents_are_rejected(text):
    with pytest.raises(ReplayError):
        load_document(text)


# -- determinism ---------------------------------------------------------------------------------
def test_atomas_seeded_runs_match_turn_by_turn():
    first, second = atomas_series(11, games=2), atomas_series(11, games=2)
    for a, b in zip(first["records"], second["records"], strict=True):
        assert a["start"] == b["start"]
        for number, (ta, tb) in enumerate(zip(a["turns"], b["turns"], strict=True)):
            assert ta == tb, f"turn {number} differs"
        assert a["result"] == b["result"]
    assert atomas_series(12)["records"][0]["turns"] != first["records"][0]["turns"]


def test_flit_seeded_runs_match_turn_by_turn():
    first, second = flit_series(11, games=2), flit_series(11, games=2)
    for a, b in zip(first["records"], second["records"], strict=True):
        assert a["start"] == b["start"]
        for number, (ta, tb) in enumerate(zip(a["turns"], b["turns"], strict=True)):
            assert ta == tb, f"turn {number} differs"
        assert a["result"] == b["result"]
    assert first["summary"] == second["summary"]
    assert flit_series(12)["records"][0]["turns"] != first["records"][0]["turns"]


# -- golden records ------------------------------------------------------------------------------
GOLDEN_GAMES = {
    "atomas_seed1_lookahead.json": lambda: atomas_series(1, max_moves=250)["records"][0],
    "flit_seed1_stride_vs_hunter_100.json": lambda: flit_series(1, max_turns=100)["records"][0],
}


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_record(name):
    record = GOLDEN_GAMES[name]()
    path = GOLDEN / name
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(record, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    assert path.exists(), f"missing {path}; run with UPDATE_GOLDEN=1 to create it"
    golden = json.loads(path.read_text(encoding="utf-8"))
    assert record["start"] == golden["start"], "the start position changed"
    for number, (got, want) in enumerate(zip(record["turns"], golden["turns"], strict=False)):
        assert got == want, f"turn {number} differs from {name}"
    assert len(record["turns"]) == len(golden["turns"])
    assert record == golden
    replay_record(golden)  # the golden record is itself valid under today's rules
