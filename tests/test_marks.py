"""Marks on the board: a bot marks squares for its author (``view.mark`` or a ``#mark`` stderr
line), each game places them on its board, and the replay's debug part keeps them at their
turn, bounded, read back as untrusted."""

from __future__ import annotations

import copy
import json

import pytest

from engine.bots.native import HostedBot, InProcessBot
from engine.bots.sandbox import Sandbox
from engine.core.marks import GAME_MARKS, TURN_MARKS, mark_line, parse_line, parse_marks
from engine.games.registry import get_game
from engine.play.debug_part import DebugLog
from engine.play.match import run_series
from engine.play.replay import ReplayError, verify_document

FLIT_MARKER = '''
def move(view):
    if view.turn == 3:
        view.mark(2, 5, "red", "look <b>here</b>")
        view.mark(99, 99, "red", "off the board: dropped")
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
'''
# A script bot (stream mode): marks the square it moves to, and prints a malformed line.
FLIT_SCRIPT = '''
import sys
_, size, players, me = input().split()
size, me = int(size), int(me)
board = {}
turn = 0
while True:
    line = input()
    if line != "M":
        x, y, c = map(int, line.split())
        board[x, y] = c
        continue
    turn += 1
    mine = [p for p, c in board.items() if c == me]
    move = None
    for (x, y) in mine:
        for dst in (((x + 1) % size, y), ((x - 1) % size, y), (x, (y + 1) % size), (x, (y - 1) % size)):
            if board.get(dst, 0) == 0 and any(p != (x, y) for p in mine):
                src = next(p for p in mine if p != (x, y))
                move = (src, dst)
    print("#mark nonsense here", file=sys.stderr)
    if move:
        (x0, y0), (x1, y1) = move
        print(f"#mark {x1} {y1} #00ff00 turn {turn}", file=sys.stderr, flush=True)
        print(x0, y0, x1, y1, flush=True)
    else:
        print("0 0 0 0", flush=True)
'''
FLIT_FIRST = "def move(view):\n    moves = view.moves()\n    return moves[0] if moves else (0, 0, 0, 0)\n"


def play(game: str, bots: list[tuple[str, str]], **settings) -> dict:
    spec = get_game(game)
    document = run_series(spec, spec.settings(time_limit_ms=60_000, **settings),
                          [InProcessBot(n, s) if "def move" in s else HostedBot(n, s, Sandbox())
                           for n, s in bots], 1, 1, secret="s").document  # a script: in its process
    verify_document(json.dumps(document))  # the file opens, its marks checked
    return document


def marks_of(record: dict, bot: int) -> list:
    seat = record["bot_index"].index(bot)
    return [m for m in record["debug"].get("marks", []) if m[1] == seat]


def test_flit_function_bot_marks_land_at_their_turn_as_text():
    (record,) = play("flit", [("marker", FLIT_MARKER), ("first", FLIT_FIRST)], max_turns=12)["records"]
    seat = record["bot_index"].index(0)
    turn = [i + 1 for i, t in enumerate(record["turns"]) if t["seats"] == [seat]][2]  # its 3rd answer
    assert marks_of(record, 0) == [[turn, seat, [2, 5], "red", "look <b>here</b>"]]
    assert marks_of(record, 1) == []


def test_flit_script_bot_marks_its_move_and_a_malformed_line_stays_stderr():
    (record,) = play("flit", [("script", FLIT_SCRIPT), ("first", FLIT_FIRST)], max_turns=10)["records"]
    seat = record["bot_index"].index(0)
    mine = [(i + 1, t) for i, t in enumerate(record["turns"]) if t["seats"] == [seat]]
    marks = marks_of(record, 0)
    assert marks and all(f[0] is None for _, t in mine for f in [t["faults"]])  # no fault
    for turn, colour_text in ((m[0], m[3:]) for m in marks):
        answer = dict(mine)[turn]["answers"][0].split()
        (mark,) = [m for m in marks if m[0] == turn]
        assert mark[2] == [int(answer[2]), int(answer[3])] and colour_text[0] == "#00ff00"
    assert [m[4] for m in marks] == [f"turn {n}" for n in range(1, len(marks) + 1)]
    stderr = "".join(e for turn, s, _, e in record["debug"]["output"] if s == seat)
    assert "#mark nonsense here" in stderr


ATOMAS_MARKER = '''
import sys
def move(view):
    view.mark(0, "blue", "first")
    print("#mark 0 purple from a line", file=sys.stderr)
    print("#mark 9999 purple not on the ring", file=sys.stderr)
    return "0 n" if view.atom == "-" else 0
'''
ATOMAS_SCRIPT = '''
import sys
atom, _, items = input().partition("/")
print("#mark 0 orange script", file=sys.stderr)
print("0 n" if atom == "-" else 0)
'''


def test_atomas_function_and_script_bots_mark_ring_positions():
    (one, two) = play("atomas", [("marker", ATOMAS_MARKER), ("script", ATOMAS_SCRIPT)],
                      max_moves=5)["records"]
    assert [r["bot_index"] for r in (one, two)] == [[0], [1]]  # one ring a bot, seat 0
    assert one["debug"]["marks"] == [[turn, 0, [0], c, t] for turn in range(1, 6)
                                     for c, t in (("blue", "first"), ("purple", "from a line"))]
    assert two["debug"]["marks"] == [[turn, 0, [0], "orange", "script"] for turn in range(1, 6)]


ABOT_MARKER = '''
def move(view):
    view.mark(0, 0, "red", "me")
    view.mark(1, 2, "cyan", "up right")
    return "rest"
'''
ABOT_SCRIPT = '''
import sys
print("#mark -1 0 yellow left", file=sys.stderr)
print("rest")
'''


def test_abotcalypse_marks_are_relative_to_the_bot_and_placed_on_the_board():
    (record,) = play("abotcalypse", [("marker", ABOT_MARKER), ("script", ABOT_SCRIPT)],
                     max_turns=2, players=2, width=48, height=24)["records"]
    bots = record["start"]["bots"]
    by_seat = {s: marks_of(record, record["bot_index"][s]) for s in (0, 1)}
    for seat, marks in by_seat.items():
        x, y = bots[seat][0], bots[seat][1]  # resting bots: where they stand every turn
        first = [m for m in marks if m[0] == 1]
        if record["bot_index"][seat] == 0:
            assert [m[2:] for m in first] == [[[x, y], "red", "me"], [[x + 1, y + 2], "cyan", "up right"]]
        else:
            assert [m[2:] for m in first] == [[[x - 1, y], "yellow", "left"]]


@pytest.mark.parametrize(("line", "mark"), [
    ("#mark 3 4 red hi there", ((3, 4), "red", "hi there")),
    ("#mark 7 #A0b1C2", ((7,), "#A0b1C2", "")),
    ("#mark -1 2 3 grey " + "x" * 100, ((-1, 2, 3), "grey", "x" * 40)),
    ("#mark 1 2 red a\x1bb", ((1, 2), "red", "a b")),
    ("#mark 3 4 pink hi", None),  # not a colour of the palette
    ("#mark red 3 4", None),
    ("#mark 1 2 3 4 red", None),  # four numbers
    ("#mark 1234567 2 red", None),
    ("#mark", None),
    (" #mark 1 2 red", None),
    ("#mark 1  2 red", None),
])
def test_the_line_form_is_read_strictly(line, mark):
    assert parse_line(line) == mark


def test_marks_are_bounded_per_turn_and_per_game():
    assert len(parse_marks("#mark 1 1 red x\n" * 80)) == TURN_MARKS
    log = DebugLog(2)
    for turn in range(1, GAME_MARKS // TURN_MARKS + 5):
        log.marked(turn, 0, [((1, 1), "red", "x")] * TURN_MARKS)
    log.marked(1, 1, [((0, 0), "blue", "")])
    assert sum(m[1] == 0 for m in log.part["marks"]) == GAME_MARKS
    assert sum(m[1] == 1 for m in log.part["marks"]) == 1
    parse_marks("#mark 1 " + "9" * 5_000_000 + " red\n" + "#mark " * 1_000_000)  # linear, no error


def test_view_mark_refuses_a_bad_mark_at_once():
    assert mark_line((1, 2), "red", "a  b") == "#mark 1 2 red a b"
    for where, colour in (((1, 2), "pink"), (("a", 2), "red"), ((1, 2, 3, 4), "red"), ((), "red")):
        with pytest.raises(ValueError):
            mark_line(where, colour)


def forged(change) -> str:
    document = copy.deepcopy(play("flit", [("marker", FLIT_MARKER), ("first", FLIT_FIRST)], max_turns=6))
    change(document["records"][0]["debug"])
    return json.dumps(document)


@pytest.mark.parametrize(("marks", "message"), [
    ([[1, 0, [1, 1], "red", "<script>" * 10]], "at most 40"),
    ([[1, 0, [1, 1], "javascript:x", ""]], "colour"),
    ([[1, 0, [1, 1], "red", "a\nb"]], "printable"),
    ([[1, 0, [], "red", ""]], "no cell"),
    ([[1, 0, [1, "1"], "red", ""]], "no cell"),
    ([[7, 0, [1, 1], "red", ""]], "turn 7"),
    ([[1, 2, [1, 1], "red", ""]], "seat 2"),
    ([[1, 0, [1, 1], "red", ""]] * (TURN_MARKS + 1), "more than 50"),
    ([[1, 0, [1, 1], "red"]], r"\[turn, seat, cells, colour, text\]"),
    ({"a": 1}, "debug.marks is not a list"),
])
def test_the_reader_checks_marks_as_untrusted(marks, message):
    with pytest.raises(ReplayError, match=message):
        verify_document(forged(lambda debug: debug.__setitem__("marks", marks)))


# An author's game, hosted in its own process: its marks are the picture's (x, y) squares.
GRID = '''"""Grid: say a number; a mark names a square of the 4x4 picture."""
NAME = "grid"
TITLE = "Grid"
PLAYERS = (2, 2)
SETTINGS = {"rounds": 3, "time_limit_ms": 60000}
EXAMPLES = {"marker": "import sys\\ndef move(view):\\n"
                      "    print('#mark 1 2 red hi', file=sys.stderr)\\n    return 1\\n"}


class Game:
    def __init__(self, settings, rng):
        self.round, self.rounds = 0, settings.rounds

    def acting_seats(self):
        return [self.round % 2]

    def observation(self, seat, since):
        return {"round": self.round}

    def parse_answer(self, text, seat):
        return int(text)

    def default_action(self, seat):
        return 0

    def apply_actions(self, actions):
        self.round += 1
        return []

    def over(self):
        return "done" if self.round >= 2 * self.rounds else None

    def scores(self):
        return [0, 0]

    def draw(self):
        return {"width": 4, "height": 4}

    def mark_cells(self, seat, where):
        x, y = where
        return (x, y) if 0 <= x < 4 and 0 <= y < 4 else None
'''
GRID_SCRIPT = ('import sys\ninput()\nprint("#mark 3 0 blue s", file=sys.stderr)\n'
               'print("#mark 9 9 blue off", file=sys.stderr)\nprint(2)\n')


def test_an_authors_hosted_game_places_its_bots_marks(tmp_path, capsys):
    from engine.cli import cli

    game, script, replay = tmp_path / "grid.py", tmp_path / "script.py", tmp_path / "grid.json"
    game.write_text(GRID)
    script.write_text(GRID_SCRIPT)
    code = cli.main(["match", "--game-file", str(game), "builtin:marker", str(script), "--seed", "1",
                     "--secret", "S", "--replay", str(replay)])
    assert code == 0, capsys.readouterr().err
    (record,) = json.loads(replay.read_text())["records"]
    assert record["debug"]["marks"] == [[1, 0, [1, 2], "red", "hi"], [2, 1, [3, 0], "blue", "s"],
                                        [3, 0, [1, 2], "red", "hi"], [4, 1, [3, 0], "blue", "s"],
                                        [5, 0, [1, 2], "red", "hi"], [6, 1, [3, 0], "blue", "s"]]
