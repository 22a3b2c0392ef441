"""Replay records: round trips through the rules, tampering, determinism, golden games.

Golden records live in tests/golden/; regenerate them with ``UPDATE_GOLDEN=1 pytest
tests/test_replay.py`` after a deliberate change to the rules or the record format.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots.native import InProcessBot
from engine.games.flit.rules import NEUTRAL
from engine.games.registry import get_game
from engine.play.debug_part import rules_part
from engine.play.match import run_series
from engine.play.replay import ReplayError, load_document, replay_record, verify_document
from engine.play.series import summarize

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


def atomas_series(seed, games=1, max_moves=400, bots=(("lookahead", ATOMAS_LOOKAHEAD),), secret=None):
    spec = get_game("atomas")
    settings = spec.settings(max_moves=max_moves, time_limit_ms=10_000)
    bots = [InProcessBot(n, s) for n, s in bots]
    return run_series(spec, settings, bots, seed, games, secret=secret).document


def flit_series(seed, games=1, max_turns=300, players=2, secret=None):
    spec = get_game("flit")
    sources = [("stride", FLIT_STRIDE), ("hunter", FLIT_NEUTRAL_HUNTER)] * 2
    settings = spec.settings(max_turns=max_turns, players=players, time_limit_ms=10_000)
    bots = [InProcessBot(n, s) for n, s in sources[:players]]
    return run_series(spec, settings, bots, seed, games, secret=secret).document


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
        kinds |= {t["faults"][0]["kind"] for t in record["turns"] if t["faults"][0]}
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
        faults = [t["faults"][0]["kind"] for t in record["turns"] if t["faults"][0]]
        assert faults and set(faults) == {"invalid"}
        assert any(c == NEUTRAL for t in record["turns"] for _, _, c in t["changes"])


def test_flit_record_with_a_frozen_bot_replays():
    spec = get_game("flit")
    bots = [InProcessBot("raiser", "def move(view):\n    raise ValueError('no')\n"),
            InProcessBot("stride", FLIT_STRIDE)]
    document = run_series(spec, spec.settings(max_turns=80, time_limit_ms=10_000), bots, 5, 1).document
    record = document["records"][0]
    assert {t["faults"][0]["kind"] for t in record["turns"] if t["faults"][0]} == {"error", "frozen"}
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
    turn = next(t for t in record["turns"] if t["faults"][0] is None and t["atom"] not in ("-", "C"))
    turn["answers"][0] = value


ATOMAS_TAMPERING = {
    "answer": lambda r: set_answer(r, "99"),
    "minus answer": lambda r: next(t for t in r["turns"] if t["atom"] == "-")["answers"].__setitem__(
        0, "0 z"),
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
    "seat": lambda r: r["turns"][0]["seats"].__setitem__(0, 1),
    "game": lambda r: r.__setitem__("game", "chess"),
    "settings": lambda r: r["settings"].__setitem__("bogus", 1),
    "max_moves": lambda r: r["settings"].__setitem__("max_moves", 3),
    "missing answer": lambda r: r["turns"][2].pop("answers"),
    "missing seat": lambda r: r["turns"][2].pop("seats"),
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
        # a version-2 file (the rules' part): the debug part's times differ every run
        golden_record = {**rules_part(record), "schema_version": 2}
        text = json.dumps(golden_record, indent=None, separators=(",", ":"))
        path.write_text(text + "\n", encoding="utf-8")
    assert path.exists(), f"missing {path}; run with UPDATE_GOLDEN=1 to create it"
    golden = json.loads(path.read_text(encoding="utf-8"))
    assert record["start"] == golden["start"], "the start position changed"
    for number, (got, want) in enumerate(zip(record["turns"], golden["turns"], strict=False)):
        assert got == want, f"turn {number} differs from {name}"
    assert len(record["turns"]) == len(golden["turns"])
    assert golden["schema_version"] == 2 and record["schema_version"] == 3  # version 2 still opens
    assert rules_part(record) == rules_part(golden)
    replay_record(golden)  # the golden record is itself valid under today's rules


V1_GOLDEN = GOLDEN / "v1"


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_version_1_golden_opens_verifies_and_is_todays_game(name):
    """A version-1 file (one seat a turn) still opens: it verifies, and read as version 2 it
    is exactly the game today's engine plays."""
    text = (V1_GOLDEN / name).read_text(encoding="utf-8")
    assert json.loads(text)["schema_version"] == 1
    document = verify_document(text)
    (record,) = document["records"]
    assert record["schema_version"] == 2 and "seats" in record["turns"][0]
    assert rules_part(record) == rules_part(GOLDEN_GAMES[name]())
    replay_record(json.loads(text))


# -- verifying whole files (what the CLI's `replay` and the page run on an opened file) -----------
@pytest.fixture(scope="module")
def atomas_document():
    return atomas_series(5, games=2, max_moves=150, bots=(("lookahead", ATOMAS_LOOKAHEAD),
                                                          ("sometimes", ATOMAS_INVALID_SOMETIMES)))


@pytest.fixture(scope="module")
def flit_document():
    return flit_series(5, games=3, max_turns=150, players=2)


def refusal(document) -> str:
    with pytest.raises(ReplayError) as caught:
        verify_document(json.dumps(document))
    return str(caught.value)


@pytest.mark.parametrize("name", sorted(GOLDEN_GAMES))
def test_golden_files_verify(name):
    text = (GOLDEN / name).read_text(encoding="utf-8")
    document = verify_document(text)
    record = json.loads(text)
    assert document["records"] == [record]
    assert document["summary"] == summarize(get_game(record["game"]), len(record["bots"]), [record])


def test_honest_series_verify_with_their_summary(atomas_document, flit_document):
    for document in (atomas_document, flit_document):
        verified = verify_document(json.dumps(document))
        assert verified["summary"] == document["summary"]
        assert verified["records"] == document["records"]


def test_forged_summary_of_999_points_is_refused(atomas_document):
    forged = copy.deepcopy(atomas_document)
    honest = forged["summary"]["mean_scores"][1]
    forged["summary"]["mean_scores"][1] = 999
    assert refusal(forged) == f"summary differs: mean_scores[1] is 999 in the file, {honest} by the rules"
    forged = copy.deepcopy(atomas_document)
    forged["summary"]["games"][0]["scores"] = [999, 0]
    assert "summary differs: games[0].scores[0] is 999 in the file" in refusal(forged)
    forged = copy.deepcopy(atomas_document)
    forged["summary"]["wins"] = [2, 0] if forged["summary"]["wins"] != [2, 0] else [0, 2]
    assert refusal(forged).startswith("summary differs: wins[")


def test_forged_result_and_summary_together_are_refused(flit_document):
    forged = copy.deepcopy(flit_document)
    record = forged["records"][1]
    record["result"]["scores"] = [999, 0]
    forged["summary"] = summarize(get_game(forged["game"]), 2, forged["records"])  # forged too
    assert refusal(forged).startswith("record 2: result differs: result.scores[0] is 999")


def test_tampered_turn_is_refused_with_the_turn_named(flit_document, atomas_document):
    forged = copy.deepcopy(flit_document)
    turn = forged["records"][2]["turns"][56]
    turn["changes"].append([0, 0, 1])
    assert refusal(forged).startswith("record 3, turn 57: recorded changes has ")
    forged = copy.deepcopy(atomas_document)
    forged["records"][1]["turns"][9]["score"] += 100
    message = refusal(forged)
    assert message.startswith("record 2, turn 10: recorded score is ") and "by the rules" in message


@pytest.mark.parametrize("where", ["start board", "turn board", "turn atom", "answer"])
def test_an_atomas_item_named_constructor_is_refused(atomas_document, where):
    forged = copy.deepcopy(atomas_document)
    record = forged["records"][0]
    if where == "start board":
        record["start"]["board"][0] = "constructor"
    elif where == "turn board":
        record["turns"][3]["board"][-1] = "constructor"
    elif where == "turn atom":
        record["turns"][3]["atom"] = "constructor"
    else:
        record["turns"][3]["answers"][0] = "constructor"
    assert refusal(forged).startswith("record 1")


def test_true_is_not_one(atomas_document):
    forged = copy.deepcopy(atomas_document)
    board = forged["records"][0]["start"]["board"]
    board[board.index(1)] = True  # equal to 1 in Python, drawn as "true" by a renderer
    assert "start" in refusal(forged)


def test_too_many_records_are_refused_by_the_cap_before_any_replay():
    text = json.dumps({"schema_version": 1, "kind": "series", "game": "atomas", "bots": ["a"],
                       "records": [{}] * 16_000})
    with pytest.raises(ReplayError, match="16000 records; a replay may hold at most 10000"):
        verify_document(text)


def test_too_many_bots_are_refused_by_the_cap():
    rows = [{"seed": s, "scores": [0] * 2000, "winner": None, "faults": [0] * 2000} for s in range(50)]
    text = json.dumps({"schema_version": 1, "kind": "series", "game": "atomas",
                       "bots": [f"b{i}" for i in range(2000)], "records": [],
                       "summary": {"games": rows, "mean_scores": [0] * 2000, "wins": [0] * 2000}})
    with pytest.raises(ReplayError, match="2000 bots; a replay may name at most 64"):
        verify_document(text)


def test_too_many_turns_are_refused_by_the_cap():
    record = {"turns": [{}] * 1000}  # small turns: the count is what is capped here
    text = json.dumps({"schema_version": 1, "kind": "series", "game": "atomas", "bots": ["a"],
                       "records": [record] * 2001})
    with pytest.raises(ReplayError, match="2001000 turns; a replay may hold at most 2000000"):
        verify_document(text)


def test_more_turns_than_the_settings_allow_are_refused(atomas_document):
    forged = copy.deepcopy(atomas_document)
    forged["records"][0]["settings"]["max_moves"] = 5
    assert "turns, more than the settings allow (5)" in refusal(forged)


def test_oversized_and_deeply_nested_files_are_refused():
    with pytest.raises(ReplayError, match="may be at most 64 MB"):
        verify_document(" " * (64 * 2**20 + 1))
    with pytest.raises(ReplayError, match="nests 100000 deep"):
        verify_document("[" * 100_000)
    with pytest.raises(ReplayError, match="nests"):
        verify_document('{"a": ' * 50_000 + "1" + "}" * 50_000)
    verify_document(json.dumps(json.loads((GOLDEN / "atomas_seed1_lookahead.json").read_text())))


def test_records_must_agree_with_the_header(flit_document, atomas_document):
    cases = {
        "bot_index": lambda d: d["records"][0].__setitem__("bot_index", [0, 5]),
        "names": lambda d: d["records"][0]["bots"].reverse(),
        "game": lambda d: d.__setitem__("game", "atomas"),
        "bots": lambda d: d.__setitem__("bots", ["stride", "other"]),
        "seed twice": lambda d: d["records"][1].__setitem__("seed", d["records"][0]["seed"]),
    }
    atomas_two_seats = copy.deepcopy(atomas_document)
    atomas_two_seats["records"][0].update(bots=["lookahead", "sometimes"], bot_index=[0, 1],
                                          start_faults=[0, 0])
    assert "2 bots in a game of 1" in refusal(atomas_two_seats)
    for name, change in cases.items():
        forged = copy.deepcopy(flit_document)
        change(forged)
        with pytest.raises(ReplayError):
            verify_document(json.dumps(forged))
        assert name  # each case is refused


def test_an_invented_freeze_is_refused(atomas_document, flit_document):
    forged = copy.deepcopy(atomas_document)
    record = forged["records"][0]
    assert len(record["turns"]) > 20
    del record["turns"][len(record["turns"]) // 2:]
    record["result"] = {"termination": "frozen", "scores": [record["turns"][-1]["score"]], "winner": 0}
    assert "ends before the game does" in refusal(forged)
    forged = copy.deepcopy(flit_document)
    turn = forged["records"][0]["turns"][20]
    turn.update(answers=[None], faults=[{"kind": "frozen", "message": "frozen: not asked"}])
    assert "marked frozen" in refusal(forged)


def test_a_legal_answer_recorded_as_invalid_is_refused(flit_document):
    forged = copy.deepcopy(flit_document)
    turn = next(t for t in forged["records"][0]["turns"] if t["move"])
    turn["faults"][0] = {"kind": "invalid", "message": "made up"}
    assert "recorded as invalid but is a legal move" in refusal(forged)


_DELETE, _DUPLICATE = object(), object()  # structural changes: a field removed, a list doubled
JUNK = [_DELETE, _DUPLICATE, "x", "constructor", "+", "-", None, True, -1, 1.5, 10**30, 10**4000,
        float("nan"), float("inf"), [], {}, [[["deep"]]], {"kind": "frozen"}]


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:4]):
            yield from _paths(item, (*path, index))


def test_junk_anywhere_is_a_replay_error_never_a_crash():
    documents = [atomas_series(2, max_moves=12), flit_series(2, max_turns=12),
                 flit_series(3, max_turns=12, secret="junk test")]
    tried = refused = 0
    for document in documents:
        for path in list(_paths(document))[1:]:
            for junk in JUNK:
                forged = copy.deepcopy(document)
                target = forged
                for key in path[:-1]:
                    target = target[key]
                if junk is _DELETE:
                    del target[path[-1]]
                elif junk is _DUPLICATE:
                    value = target[path[-1]]
                    target[path[-1]] = value + value if isinstance(value, list) else [value, value]
                else:
                    target[path[-1]] = junk
                tried += 1
                try:
                    verified = verify_document(json.dumps(forged))
                except ReplayError:
                    refused += 1
                else:  # only harmless text (a fault message, a bot name used consistently) passes
                    spec = get_game(verified["game"])
                    assert verified["summary"] == summarize(spec, len(verified["bots"]), verified["records"])
    assert tried > 1000 and refused / tried > 0.9


# -- `python -m engine replay FILE` ----------------------------------------------------------------
def replay_cli(*args):
    return subprocess.run([sys.executable, "-m", "engine", "replay", *map(str, args)],
                          cwd=GOLDEN.parent.parent, capture_output=True, text=True, timeout=120)


def test_cli_replay_verifies_and_prints_the_summary(tmp_path, flit_document):
    path = tmp_path / "series.json"
    path.write_text(json.dumps(flit_document), encoding="utf-8")
    done = replay_cli(path, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["verified"] is True and out["bots"] == ["stride", "hunter"] and out["records"] == 3
    assert {k: out[k] for k in flit_document["summary"]} == flit_document["summary"]
    table = replay_cli(GOLDEN / "atomas_seed1_lookahead.json")
    assert table.returncode == 0 and "lookahead" in table.stdout and "62" in table.stdout


def test_cli_replay_refuses_a_forged_file_in_one_line(tmp_path, atomas_document):
    forged = copy.deepcopy(atomas_document)
    forged["summary"]["mean_scores"][0] = 999
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    done = replay_cli(path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("refused: summary differs: mean_scores[0] is 999 in the file")
    assert done.stderr.count("\n") == 1
    path.write_bytes(b'{"kind": "\xff"}')
    done = replay_cli(path)
    assert done.returncode == 1 and done.stderr.startswith("refused: ") and "UTF-8" in done.stderr


def test_cli_replay_usage_errors_exit_2(tmp_path):
    done = replay_cli(tmp_path / "missing.json")
    assert done.returncode == 2 and done.stderr.startswith("error: cannot read")
    done = replay_cli()
    assert done.returncode == 2 and "python -m engine replay --help" in done.stderr


def test_keys_in_another_order_still_verify(flit_document):
    """A file written by another tool may order its keys differently: that is no difference."""
    shuffled = copy.deepcopy(flit_document)
    for record in shuffled["records"]:
        record["turns"] = [dict(reversed(list(turn.items()))) for turn in record["turns"]]
        record["result"] = dict(reversed(list(record["result"].items())))
    shuffled["summary"] = dict(reversed(list(shuffled["summary"].items())))
    assert verify_document(json.dumps(shuffled))["summary"] == flit_document["summary"]
