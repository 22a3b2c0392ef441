"""``python -m engine replay FILE --turn T [--bot BOT]``: a turn's input derived by the rules, and a
bot re-fed turns 1..T, in every game (engine/play/reproduce.py, engine/cli/cli_reproduce.py).

Each replay is written by ``match --replay`` with seeded random example bots under a step budget
(so no answer depends on the machine's speed); what each bot was really sent is captured on
the way (``Bot.turn``'s messages) and compared with what ``replay --turn`` prints.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.bots import native
from engine.cli.cli import main
from engine.games.registry import get_game

BUDGET = "1000000"
GAMES = {  # game: (bots, settings flags, the seat re-fed, its bot's form)
    "flit": (["builtin:random", "builtin:greedy"], [], 0, "builtin:random"),
    "atomas": (["builtin:random"], ["--max-moves", "40"], 0, "builtin:random"),
    "abotcalypse": (["builtin:random", "builtin:script", "builtin:thrower"], ["--max-turns", "30"], 1,
                    "builtin:script"),
}


def play(tmp_path: Path, game: str, monkeypatch) -> tuple[Path, dict[str, list[dict]]]:
    """A replay written by ``match --replay`` and each bot's messages, in the order it got them."""
    bots, flags, _, _ = GAMES[game]
    sent: dict[str, list[dict]] = {}
    path = tmp_path / f"{game}.json"
    with monkeypatch.context() as patch:
        for kind in (native.InProcessBot, native.HostedBot):
            patch.setattr(kind, "turn", _recording(kind.turn, sent))
        assert main(["match", game, *bots, "--seed", "5", "--secret", "repro", "--budget", BUDGET,
                     "--time-limit", "20000", "--replay", str(path), "--json", *flags]) == 0
    return path, sent


def _recording(turn, sent):
    def recorded(self, message, time_limit_ms):
        sent.setdefault(self.name, []).append(json.loads(json.dumps(message)))
        return turn(self, message, time_limit_ms)
    return recorded


def replay(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(["replay", *map(str, args)])
    except SystemExit as exc:  # the parser's own errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def asked_turns(record: dict, seat: int) -> list[int]:
    """The turns (from 1) at which ``seat`` was asked."""
    return [n for n, turn in enumerate(record["turns"], 1) if seat in turn["seats"]
            and (turn["faults"][turn["seats"].index(seat)] or {}).get("kind") != "frozen"]


def printed_input(out: str, seat: int) -> list[str]:
    """The lines printed after ``seat S (...) was sent N lines:``."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if f": seat {seat} (" in line and " was sent " in line:
            count = int(line.split(" was sent ")[1].split()[0])
            return lines[i + 1:i + 1 + count]
    raise AssertionError(f"no input of seat {seat} in:\n{out}")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_same_bot_reproduces_every_answer_and_its_input(tmp_path, capsys, monkeypatch, game):
    path, sent = play(tmp_path, game, monkeypatch)
    _, _, seat, form = GAMES[game]
    record = json.loads(path.read_text())["records"][0]
    assert record["budget"] == int(BUDGET)  # the run's step budget is kept in the record
    name = record["bots"][seat]
    turns = asked_turns(record, seat)
    assert len(turns) >= 5, turns
    k = len(turns) * 2 // 3  # a turn well into the game
    turn = turns[k - 1]
    code, out, err = replay(capsys, path, "--record", 1, "--turn", turn, "--bot", form, "--seat", seat)
    assert code == 0, err
    assert printed_input(out, seat) == get_game(game).wire.message_lines(sent[name][k - 1])
    assert f"all {k} answers of seat {seat} up to turn {turn} agree with the record" in out
    played = record["turns"][turn - 1]
    assert f"answers now: {played['answers'][played['seats'].index(seat)]!r}" in out


# The random example, but a pass at its third move (the example's own code, renamed random_move).
CHANGED_FLIT_BOT = """
calls = 0

def move(view):
    global calls
    calls += 1
    if calls == 3:
        return "0 0 0 0"  # the change: a pass at its third move
    return random_move(view)


""" + (Path(__file__).resolve().parents[1] / "engine/games/flit/examples/random.py").read_text(
    encoding="utf-8").replace("def move(view):", "def random_move(view):")


def test_a_changed_bot_reports_its_first_differing_turn(tmp_path, capsys, monkeypatch):
    example = get_game("flit").example_source("random")
    assert "random.shuffle(targets)" in example and "random.choice(sources)" in example  # the copy's model
    path, _ = play(tmp_path, "flit", monkeypatch)
    record = json.loads(path.read_text())["records"][0]
    turns = asked_turns(record, 0)
    bot = tmp_path / "changed.py"
    bot.write_text(CHANGED_FLIT_BOT)
    code, out, err = replay(capsys, path, "--turn", turns[5], "--bot", bot, "--seat", 0,
                            "--no-sandbox")
    assert code == 1, err
    recorded = record["turns"][turns[2] - 1]["answers"][0]
    assert f"first difference: turn {turns[2]}: changed answers '0 0 0 0', the record has " \
           f"{recorded!r}" in out
    code, out, _ = replay(capsys, path, "--turn", turns[1], "--bot", bot, "--seat", 0, "--no-sandbox")
    assert code == 0 and "all 2 answers of seat 0" in out  # before its change it agrees
    code, out, _ = replay(capsys, path, "--turn", turns[5], "--bot", bot, "--seat", 0, "--no-sandbox",
                          "--json")
    assert code == 1
    found = json.loads(out)
    assert found["first_difference"] == turns[2] and found["compared"] == 6
    assert found["recorded"] == {"answer": record["turns"][turns[5] - 1]["answers"][0], "fault": None}


def test_without_a_bot_each_seat_asked_is_shown(tmp_path, capsys, monkeypatch):
    path, sent = play(tmp_path, "abotcalypse", monkeypatch)
    record = json.loads(path.read_text())["records"][0]
    wire = get_game("abotcalypse").wire
    turn = 3
    code, out, err = replay(capsys, path, "--turn", turn)
    assert code == 0, err
    seats = record["turns"][turn - 1]["seats"]
    assert len(seats) >= 2
    for seat in seats:
        name = record["bots"][seat]
        assert printed_input(out, seat) == wire.message_lines(sent[name][turn - 1])
    assert out.count("and as its argv: bot.py, then the same lines as one argument") == len(seats)
    code, out, _ = replay(capsys, path, "--turn", turn, "--seat", seats[-1], "--raw")
    assert code == 0
    view = wire.message_lines(sent[record["bots"][seats[-1]]][turn - 1])
    assert out == "".join(line + "\n" for line in view)


def test_old_files_without_a_budget_still_reproduce(tmp_path, capsys, monkeypatch):
    path, sent = play(tmp_path, "atomas", monkeypatch)
    document = json.loads(path.read_text())
    for record in document["records"]:
        del record["budget"]
    path.write_text(json.dumps(document))
    code, out, err = replay(capsys, path, "--turn", 7, "--bot", "builtin:random")
    assert code == 0, err
    assert printed_input(out, 0) == get_game("atomas").wire.message_lines(sent["random"][6])
    assert "all 7 answers" in out


@pytest.mark.parametrize("args", [
    ["--record", 2, "--turn", 1],  # record out of range
    ["--turn", 10_000],  # turn out of range
    ["--turn", 0],
    ["--turn", 2, "--bot", "builtin:nope"],  # unknown bot
    ["--turn", 2, "--bot", "missing.py"],
    ["--turn", 2, "--seat", 9],  # no such seat
    ["--turn", 2, "--seat", 1],  # a seat not asked at that turn (turn 2 is seat 1's? see below)
    ["--bot", "builtin:random"],  # no --turn
    ["--turn", 2, "--bot", "BROKEN", "--no-sandbox"],  # a bot that does not load
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, monkeypatch, args):
    path, _ = play(tmp_path, "flit", monkeypatch)
    record = json.loads(path.read_text())["records"][0]
    if args[-2:] == ["--seat", 1]:
        args = ["--turn", asked_turns(record, 0)[0], "--seat", 1]
    if "BROKEN" in args:
        (tmp_path / "broken.py").write_text("def move(view)\n    return 1\n")
        args = [tmp_path / "broken.py" if a == "BROKEN" else a for a in args]
    code, out, err = replay(capsys, path, *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), err


@pytest.mark.parametrize("text", ["not json", '{"schema_version": 2, "kind": "game"}', "[1, 2]"])
def test_a_file_that_is_not_a_replay_exits_2(tmp_path, capsys, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    code, out, err = replay(capsys, path, "--turn", 1)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "is not a replay" in err


def test_a_bad_budget_in_a_record_is_refused(tmp_path, monkeypatch, capsys):
    path, _ = play(tmp_path, "atomas", monkeypatch)
    document = json.loads(path.read_text())
    document["records"][0]["budget"] = 0
    path.write_text(json.dumps(document))
    code, _, err = replay(capsys, path)
    assert code == 1 and "the budget 0 is not a whole number" in err


LANDGRAB = Path(__file__).resolve().parents[1] / "examples" / "games" / "landgrab.py"


def test_an_authors_game_is_reproduced_with_its_module(tmp_path, capsys, monkeypatch):
    path = tmp_path / "landgrab.json"
    assert main(["match", "--game-file", str(LANDGRAB), "builtin:random", "builtin:random", "--seed", "1",
                 "--secret", "x", "--budget", BUDGET, "--replay", str(path), "--json"]) == 0
    code, out, err = replay(capsys, path, "--turn", 4, "--bot", "builtin:random")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["error: the replay is of the game 'landgrab', which this engine "
                                        "does not know: give its module with --game-file FILE"]
    code, out, err = replay(capsys, path, "--game-file", LANDGRAB, "--turn", 4, "--bot", "builtin:random",
                            "--seat", 0)
    assert code == 0, err
    assert len(printed_input(out, 0)) == 6 + 1 and printed_input(out, 0)[-1] == "M"  # 6 rows, then M
    assert "all 4 answers of seat 0 up to turn 4 agree with the record" in out


def test_a_forged_turn_is_refused_before_any_bot_runs(tmp_path, capsys, monkeypatch):
    path, _ = play(tmp_path, "flit", monkeypatch)
    document = json.loads(path.read_text())
    document["records"][0]["turns"][2]["answers"][0] = "0 0 0 0"
    path.write_text(json.dumps(document))
    started = []
    monkeypatch.setattr(native.HostedBot, "load", lambda self, game: started.append(self))
    code, out, err = replay(capsys, path, "--turn", 5, "--bot", tmp_path / "any.py")
    assert code == 2 and out == "" and not started
    assert err.startswith("error: ") and "is not a replay this engine verifies: record 1, turn 3" in err


FAULTY_FLIT_BOT = '''
import random
n = 0

def move(view):
    global n
    n += 1
    if n == 2:
        raise ValueError("boom")
    if n == 4:
        return "not a move"
    while n >= 6:  # over the step budget from the sixth move: frozen after five
        pass
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
'''


def test_faults_of_every_kind_are_re_fed_as_recorded(tmp_path, capsys):
    """An error, an invalid answer, time-outs under the budget and the freeze they bring: the
    same bot agrees with every one, and its opponent is re-fed past the turns it sat out."""
    bot = tmp_path / "faulty.py"
    bot.write_text(FAULTY_FLIT_BOT)
    path = tmp_path / "faults.json"
    assert main(["match", "flit", str(bot), "builtin:random", "--seed", "1", "--secret", "f", "--budget",
                 "100000", "--replay", str(path), "--json", "--no-sandbox"]) == 0
    record = json.loads(path.read_text())["records"][0]
    kinds = [(t["faults"][0] or {}).get("kind") for t in record["turns"] if t["seats"] == [0]]
    assert kinds[:11] == [None, "error", None, "invalid", None, *["timeout"] * 5, "frozen"]
    last = asked_turns(record, 0)[-1]
    code, out, err = replay(capsys, path, "--turn", last, "--bot", bot, "--no-sandbox")
    assert code == 0, err
    assert "answers now: no answer (time-out)   (recorded: no answer (time-out))" in out
    assert f"all {len(asked_turns(record, 0))} answers of seat 0 up to turn {last} agree" in out
    later = asked_turns(record, 1)[15]
    code, out, err = replay(capsys, path, "--turn", later, "--bot", "builtin:random")
    assert code == 0 and f"all 16 answers of seat 1 up to turn {later} agree" in out, err
