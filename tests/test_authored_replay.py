"""A replay of an author's game verifies like a built-in game's (``replay FILE --game-file``):
re-run through the game's own process, every turn, picture and the summary must come out as
recorded; a forged answer, picture or result is refused with the first difference."""

from __future__ import annotations

import json
from pathlib import Path

from engine.cli import cli

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples" / "games"
CHAOS = '''import random

def move(view):
    r = random.random()
    if r < 0.15:
        return "three words only"
    if r < 0.3:
        x, y = view.pieces()[0]
        return (x, y, x, y + 2)
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
'''


def run(capsys, *args) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_replay_of_an_authors_game_verifies_and_forgeries_are_refused(capsys, tmp_path):
    game = GAMES / "landgrab.py"
    replay = tmp_path / "landgrab.json"
    code, _, err = run(capsys, "match", "--game-file", game, "builtin:random", "builtin:greedy", "--games", 2,
                       "--seed", 4, "--secret", "S", "--replay", replay)
    assert code == 0, err
    code, out, err = run(capsys, "replay", replay, "--game-file", game, "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    document = json.loads(replay.read_text())
    forgeries = [
        ("answers", lambda d: d["records"][0]["turns"][2]["answers"].__setitem__(0, "0 0")),
        ("picture", lambda d: d["records"][1]["turns"][0]["picture"]["cells"].__setitem__(0, "########")),
        ("result", lambda d: d["records"][1]["result"]["scores"].__setitem__(0, 99)),
    ]
    for what, forge in forgeries:
        forged = json.loads(json.dumps(document))
        forge(forged)
        replay.write_text(json.dumps(forged))
        code, _, err = run(capsys, "replay", replay, "--game-file", game)
        assert code == 1 and err.startswith("refused: "), (what, err)


def test_invalid_answers_of_the_ported_flit_verify(capsys, tmp_path):
    bot = tmp_path / "chaos.py"
    bot.write_text(CHAOS)
    replay = tmp_path / "flit.json"
    code, _, err = run(capsys, "match", "--game-file", GAMES / "flit.py", bot, "builtin:greedy", "--seed", 2,
                       "--secret", "S", "--time-limit", 20000, "--replay", replay)
    assert code == 0, err
    document = json.loads(replay.read_text())
    turns = document["records"][0]["turns"]
    invalid = [t for t in turns if t["faults"][0] and t["faults"][0]["kind"] == "invalid"]
    assert invalid  # the trial of a recorded invalid answer (on a copy of the game) is exercised
    code, out, err = run(capsys, "replay", replay, "--game-file", GAMES / "flit.py", "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    # a legal move recorded as an invalid answer is caught (tried on a copy of the game)
    turn = next(t for t in turns if t["move"] is not None and t["seats"] == [1])
    turn["faults"][0] = {"kind": "invalid", "message": "forged"}
    replay.write_text(json.dumps(document))
    code, _, err = run(capsys, "replay", replay, "--game-file", GAMES / "flit.py")
    assert code == 1 and "is recorded as invalid but is a legal move" in err, err
