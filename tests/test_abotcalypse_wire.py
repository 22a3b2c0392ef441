"""aBOTcalypse on the wire (engine/games/abotcalypse/game.py): each bot's view as text and as the
function-bot view, answers, the turn record and its replay check, and the example bots
(engine/games/abotcalypse/examples).

Boards are drawn top row first with ``AbotState.from_layout`` (``&`` a rock, ``.`` air); bots
are placed by ``(x, y)``, ``y = 0`` the bottom row.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from engine.bots.code import FUNCTION, SCRIPT, load_code
from engine.game_api import InvalidAnswer
from engine.games.abotcalypse import game
from engine.games.abotcalypse.game import Game
from engine.games.abotcalypse.rules import PRESETS, REST, AbotSettings, AbotState, Action


def parse(text, state, seat):
    """An answer read by the game (``Game.parse_answer``) for a state of the rules."""
    return Game.parse_answer(state, text, seat)


EXAMPLES = Path(game.__file__).resolve().parent / "examples"
FUNCTION_EXAMPLES = ("builder", "random", "thrower")


def layout(width, height, rocks=(), bots=(), meteors=()):
    """A position from rock cells ``(x, y)`` and bot cells (seat order)."""
    grid = [["."] * width for _ in range(height)]
    for x, y in rocks:
        grid[height - 1 - y][x] = "&"
    settings = AbotSettings(width=width, height=height, players=len(bots), max_turns=50)
    return AbotState.from_layout(settings, ["".join(row) for row in grid], dict(enumerate(bots)), meteors)


def view_of(state, seat):
    client = game.FunctionClient()
    client.start(Game.start_message(state, seat))
    return client.view(Game.observation(state, seat, []))


# -- the view ------------------------------------------------------------------------------
# The rule book's example: a 6x4 board; seat 0 stands in the rock at (0, 1), enemies at (1, 0),
# in the rock at (3, 1) and at (5, 0); a meteor in cell (4, 3).
DOCS_ROWS = ["########",
             "#....@.#",
             "#......#",
             "#S..E..#",
             "#&e&&.e#",
             "########"]


def docs_board():
    return layout(6, 4, rocks=[(0, 0), (0, 1), (2, 0), (3, 0), (3, 1)],
                  bots=[(0, 1), (1, 0), (3, 1), (5, 0)], meteors=[(4.5, 3.2, -90)])


def test_a_corner_view_is_the_rule_books_example_as_rows_text_and_grid():
    state = docs_board()
    message = Game.observation(state, 0, [])
    view = view_of(state, 0)
    assert view.rows == tuple(DOCS_ROWS)
    assert view.text == "\n".join(DOCS_ROWS)
    assert game.lines(message) == DOCS_ROWS  # what a per-turn script reads on stdin
    assert game.argv(message) == ["\n".join(DOCS_ROWS)]  # its last argument
    assert view.me == (1, 3)
    assert view.elevation == 1
    assert view.turn == 1
    assert view[0, 0] == "S"
    assert view[0, -1] == "&"  # below
    assert view[1, -1] == "e" and view[3, 0] == "E" and view[5, -1] == "e"
    assert view[4, 2] == "@"  # dy counts up
    assert view[-1, 0] == "#" and view[0, -2] == "#"  # the wall and the floor
    assert view[-5, 0] == "#" and view[0, 40] == "#" and view[99, -99] == "#"  # beyond the view
    assert view.find("eE") == [(1, -1), (3, 0), (5, -1)]  # nearest first


def test_in_the_middle_of_a_big_board_the_view_is_41_wide_and_dx_dy_reach_its_edges():
    state = layout(60, 50, rocks=[(30, 0), (30, 1), (31, 0), (10, 0)],
                   bots=[(30, 2), (29, 0), (45, 0)])
    view = view_of(state, 0)
    assert len(view.rows) == 24  # rows 22..0 and the floor
    assert all(len(row) == 41 for row in view.rows)
    assert view.me == (20, 20)
    assert view.elevation == 2
    assert view[0, 0] == "s" and view[0, -1] == "&" and view[0, -2] == "&" and view[0, -3] == "#"
    assert view[1, -2] == "&" and view[-1, -2] == "e"
    assert view[15, -2] == "e"  # seat 2 at (45, 0)
    assert view[-20, -2] == "&"  # the rock at (10, 0): the view's left column
    assert view[-21, -2] == "#"  # beyond the view, not the board's edge
    assert view[20, 20] == "." and view[20, 21] == "#"


def test_above_elevation_20_the_floor_is_out_of_sight_and_the_elevation_unknown():
    column = [(5, y) for y in range(25)]
    state = layout(12, 60, rocks=column, bots=[(5, 25), (0, 0)])
    view = view_of(state, 0)
    assert view.elevation is None
    assert len(view.rows) == 41
    assert view[0, 0] == "s" and view[0, -1] == "&" and view[0, -20] == "&"
    assert view.find("eE") == []  # seat 1 is 25 rows down, out of sight


def test_a_meteor_drawn_over_the_bot_still_leaves_its_cell_known():
    state = layout(60, 50, rocks=[(30, 0), (30, 1), (30, 2)], bots=[(30, 3), (10, 0)],
                   meteors=[(30.5, 3.5, -90)])
    view = view_of(state, 0)
    assert view[0, 0] == "@"
    assert view.me == (20, 20) and view.elevation == 3


def test_the_view_is_read_only():
    view = view_of(docs_board(), 0)
    for name in ("rows", "text", "me", "elevation", "turn", "_rows"):
        with pytest.raises(AttributeError):
            setattr(view, name, None)
    assert view.rows == tuple(DOCS_ROWS)


def test_a_script_is_told_nothing_before_turn_1_and_the_turn_counts_from_1():
    state = docs_board()
    start = Game.start_message(state, 2)
    assert start == {"seat": 2, "players": 4, "width": 6, "height": 4}
    assert game.lines(start) == [] and game.argv(start) == []
    state.apply_actions({})
    assert Game.observation(state, 0, [])["turn"] == 2


# -- answers -------------------------------------------------------------------------------
def test_every_distinct_action_round_trips_through_its_answer_text():
    state = layout(8, 12, rocks=[(3, y) for y in range(6)], bots=[(3, 6), (0, 0)])
    for action in state.legal_actions(0):
        text = game.answer_text(action)
        assert parse(text, state, 0) == action
        assert parse(game.answer_text(tuple(action[:len(text.split())])), state, 0) == action


@pytest.mark.parametrize(("value", "text", "action"), [
    (("throw", "left", 3), "throw left 3", Action("throw", "left", 3)),
    (["move", "up"], "move up", Action("move", "up")),
    ("REST", "REST", REST),
    (Action("drop", "down"), "drop down", Action("drop", "down")),
    ("  Throw   RIGHT  007 ", "  Throw   RIGHT  007 ", Action("throw", "right", 7)),
])
def test_answer_text_and_parse_answer(value, text, action):
    assert game.answer_text(value) == text
    assert parse(text, docs_board(), 0) == action


@pytest.mark.parametrize("value", [None, 3, ("move",), ("throw", "left", -1), ("throw", "left", 2.5),
                                   "move up 3", "jump", "", ("move", "up", 1, 2)])
def test_a_bad_answer_is_bad_syntax_which_the_game_plays_as_rest(value):
    with pytest.raises(InvalidAnswer):
        parse(game.answer_text(value), docs_board(), 0)


# -- the record ----------------------------------------------------------------------------
def random_game(seed, turns=60):
    """A trial-sized game of random legal actions: the start record and each turn's record."""
    rng = random.Random(seed)
    state = AbotState(PRESETS["trial"], seed, "secret")
    start = Game.record_start(state)
    turns_recorded, actions_played = [], []
    while not state.is_terminal() and len(turns_recorded) < turns:
        actions = {s: rng.choice(state.legal_actions(s)) for s in state.acting_seats()}
        changes = state.apply_actions(actions)
        turns_recorded.append(json.loads(json.dumps(Game.record_turn(state, actions, changes))))
        actions_played.append(actions)
    return start, turns_recorded, actions_played


def replay(start, turns, actions_played, seed):
    """The first difference ``replay_check`` finds when the rules replay the actions."""
    state = AbotState(PRESETS["trial"], seed, "secret")
    assert json.loads(json.dumps(Game.record_start(state))) == start
    for turn, actions in zip(turns, actions_played, strict=True):
        difference = Game.replay_check(state, turn, state.apply_actions(actions))
        if difference:
            return difference
    return None


def test_a_turn_record_is_the_rules_events_and_redraws_the_board():
    start, turns, _ = random_game(3)
    rocks = {tuple(cell) for cell in start["rocks"]}
    state = AbotState(PRESETS["trial"], 3, "secret")
    rng = random.Random(3)
    for turn in turns:
        assert set(turn) == {"turn", "played", "rocks_added", "rocks_removed", "bots", "deaths", "hits",
                             "meteors"}
        rocks -= {tuple(cell) for cell in turn["rocks_removed"]}
        rocks |= {tuple(cell) for cell in turn["rocks_added"]}
        state.apply_actions({s: rng.choice(state.legal_actions(s)) for s in state.acting_seats()})
        assert rocks == state.rock_cells()
        assert turn["bots"] == [[x, y, state.alive[s]] for s, (x, y) in enumerate(state.positions())]
    assert any(turn["rocks_added"] for turn in turns) and any(turn["deaths"] for turn in turns)


def test_replay_check_passes_a_true_record_and_names_the_first_tampered_event():
    start, turns, actions_played = random_game(5)
    assert replay(start, turns, actions_played, 5) is None
    death = next(i for i, turn in enumerate(turns) if turn["deaths"] and turn["meteors"])
    for tamper, where in [
        (lambda t: t["deaths"][0].__setitem__(1, "a bad cause"), "deaths[0][1]"),
        (lambda t: t["meteors"][0].__setitem__(0, t["meteors"][0][0] + 1e-9), "meteors[0][0]"),
        (lambda t: t["bots"][0].__setitem__(2, int(t["bots"][0][2])), "bots[0][2]"),
        (lambda t: t["hits"].append([0, 0, None]), "hits has"),
        (lambda t: t.pop("rocks_added"), "no 'rocks_added'"),
    ]:
        forged = copy.deepcopy(turns)
        tamper(forged[death])
        difference = replay(start, forged, actions_played, 5)
        assert difference is not None and where in difference, (where, difference)
        assert difference.startswith(f"turn {death + 1}:")


# -- the example bots --------------------------------------------------------------------
def load_function_bot(name):
    code = load_code((EXAMPLES / f"{name}.py").read_text(encoding="utf-8"))
    assert code.kind == FUNCTION
    module = types.ModuleType(name)
    exec(code.code, module.__dict__)
    return module


def play_in_process(names, seed, preset="trial"):
    """A whole game between function bots through the wire: every answer must parse."""
    state = AbotState(PRESETS[preset], seed, "secret")
    bots = [load_function_bot(name) for name in names]
    clients = [game.FunctionClient() for _ in names]
    for seat, client in enumerate(clients):
        client.start(Game.start_message(state, seat))
    while not state.is_terminal():
        actions = {}
        for seat in state.acting_seats():
            answer = game.answer_text(bots[seat].move(clients[seat].view(Game.observation(state, seat, []))))
            actions[seat] = parse(answer, state, seat)  # InvalidAnswer fails the test
        state.apply_actions(actions)
    return state


def test_the_examples_are_function_bots_and_a_script():
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == ["builder", "random", "script", "thrower"]
    assert load_code((EXAMPLES / "script.py").read_text(encoding="utf-8")).kind == SCRIPT


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_function_examples_answer_well_formed_actions_for_whole_games(seed):
    state = play_in_process(["random", "builder", "thrower", "random"], seed)
    assert state.outcome is not None


def test_builder_and_thrower_outlive_random_bots():
    totals = [0] * 4
    for seed in range(1, 6):
        scores = play_in_process(["random", "builder", "thrower", "random"], seed, "original").scores()
        totals = [total + score for total, score in zip(totals, scores, strict=True)]
    assert min(totals[1], totals[2]) > max(totals[0], totals[3])


def test_builder_builds_a_bunker_and_then_rests():
    state = layout(20, 30, bots=[(10, 0), (1, 0)])
    builder = load_function_bot("builder")
    answers = []
    for _ in range(16):
        answer = builder.move(view_of(state, 0))
        answers.append(answer)
        state.apply_actions({0: parse(answer, state, 0)})
    assert answers[-3:] == ["rest"] * 3
    assert state.alive[0] and (state.xs[0], state.ys[0]) == (10, 0)
    assert {(10, 0), (10, 1), (10, 2), (10, 3), (9, 0), (9, 1), (11, 0), (11, 1)} <= state.rock_cells()


@pytest.mark.parametrize(("rocks", "me", "enemy", "answer"), [
    # from elevation 10, D = 4 (slope 2.5) lands at rows 10, 7, 4, 1: 4 columns away at row 1
    ([(5, y) for y in range(10)] + [(9, 0)], (5, 10), (9, 1), "throw right 4"),
    ([(5, y) for y in range(10)] + [(1, 0)], (5, 10), (1, 1), "throw left 4"),
    ([], (5, 0), (4, 0), "throw left"),  # at the floor: only the cell beside
    ([(5, 0), (5, 1)], (5, 1), (5, 2), "throw up"),  # standing on my head
])
def test_thrower_throws_where_the_rule_books_path_lands_on_an_enemy(rocks, me, enemy, answer):
    state = layout(20, 30, rocks=rocks, bots=[me, enemy])
    thrower = load_function_bot("thrower")
    assert thrower.move(view_of(state, 0)) == answer
    state.apply_actions({0: parse(answer, state, 0)})
    assert state.death_causes[1] == "thrown" and state.alive[0]


def test_thrower_holds_its_fire_when_no_throw_reaches_an_enemy():
    # an enemy 3 columns away on the floor is out of reach of every D from elevation 2
    state = layout(20, 30, rocks=[(5, 0), (5, 1)], bots=[(5, 2), (8, 0)])
    assert not load_function_bot("thrower").move(view_of(state, 0)).startswith("throw")


def run_script_turn(workdir, view_text):
    done = subprocess.run([sys.executable, str(EXAMPLES / "script.py"), view_text], cwd=workdir,
                          capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.splitlines()[0]


def test_the_script_example_reads_its_view_from_its_last_argument_and_keeps_storage_txt(tmp_path):
    state = layout(20, 30, bots=[(10, 0), (2, 0)])
    answers = []
    for _ in range(9):
        message = Game.observation(state, 0, [])
        answer = run_script_turn(tmp_path, game.argv(message)[-1])
        answers.append(answer)
        state.apply_actions({0: parse(answer, state, 0)})
    assert answers == ["drop down", "drop left", "drop right", "drop up", "move up", "drop up", "move down",
                       "rest", "rest"]
    assert (tmp_path / "storage.txt").read_text() == "7"
    assert {(10, 0), (10, 1), (10, 2), (9, 0), (11, 0)} <= state.rock_cells()
    state = layout(20, 30, rocks=[(10, 0)], bots=[(10, 0), (2, 0)])  # its roof is gone
    assert run_script_turn(tmp_path, "\n".join(Game.observation(state, 0, [])["view"])) == "drop down"
    assert (tmp_path / "storage.txt").read_text() == "1"


# -- the spec ------------------------------------------------------------------------------
def test_the_registry_knows_abotcalypse_from_its_game_module():
    from engine.games.registry import get_game

    spec = get_game("abotcalypse")
    assert spec.trusted and isinstance(spec.new_game(spec.settings(), 1), Game)
    assert spec.settings().to_json() == PRESETS["trial"].to_json()
    assert spec.settings("original").to_json() == PRESETS["original"].to_json()
    assert spec.settings("original", max_turns=20).max_turns == 20
    with pytest.raises(ValueError, match="time limit"):
        spec.settings(time_limit_ms=0)
    sent = spec.to_json()
    assert [p["bots"] for p in sent["presets"]] == [[2, 8], [2, 8]]
    assert sorted(sent["examples"]) == ["builder", "random", "script", "thrower"]
    assert sent["script_mode"] == "per_turn" and sent["scoring"] == "mean_score"
    assert sent["players_setting"] == "players"
    state = spec.new_game(spec.settings("original"), 7, 6, "s")
    assert state.num_players == 6 and state.width == 100


# -- the rule book's bots ----------------------------------------------------------------
RULES_DOC = Path(game.__file__).resolve().parents[3] / "docs" / "rules" / "abotcalypse.md"


def doc_examples():
    """The Python blocks of docs/rules/abotcalypse.md: (the function bot, the script bot)."""
    text = RULES_DOC.read_text(encoding="utf-8")
    blocks = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    blocks = [textwrap.dedent(block) for block in blocks]
    function = next(b for b in blocks if "def move(view)" in b)
    script = next(b for b in blocks if "sys.argv[-1]" in b)
    return function, script


def test_the_rule_books_function_bot_plays_through_the_view_api():
    source, _ = doc_examples()
    module = types.ModuleType("doc_bot")
    exec(load_code(source).code, module.__dict__)
    state = layout(12, 10, bots=[(5, 0), (6, 0)])
    assert game.answer_text(module.move(view_of(state, 0))) == "throw right"
    state = layout(12, 10, bots=[(5, 0), (9, 0)])
    assert module.move(view_of(state, 0)) == "drop down"
    state.apply_actions({0: Action("drop", "down")})
    assert module.move(view_of(state, 0)) == "rest"


def test_the_rule_books_script_bot_reads_its_last_argument_and_counts_in_storage_txt(tmp_path):
    _, source = doc_examples()
    bot = tmp_path / "bot.py"
    bot.write_text(source, encoding="utf-8")
    state = layout(12, 10, bots=[(5, 0), (9, 0)])
    for turn in (1, 2):
        argv = game.argv(Game.observation(state, 0, []))
        done = subprocess.run([sys.executable, str(bot), *argv], cwd=tmp_path, capture_output=True,
                              text=True, timeout=30, check=True)
        state.apply_actions({0: parse(done.stdout.splitlines()[0], state, 0)})
        assert (tmp_path / "storage.txt").read_text() == str(turn)
    # "drop down", then "move up": out of the rock's cell onto the rock
    assert state.alive[0] and state.is_rock(5, 0) and (state.xs[0], state.ys[0]) == (5, 1)


# -- through the session and the CLI -------------------------------------------------------
def test_the_examples_play_a_series_through_the_cli_without_faults_and_the_replay_verifies(tmp_path):
    from engine.play.replay import ReplayError, load_document, replay_record

    path = tmp_path / "series.json"
    bots = ["builtin:random", "builtin:builder", "builtin:thrower", "builtin:random"]
    done = subprocess.run([sys.executable, "-m", "engine", "match", "abotcalypse", *bots, "--games", "3",
                           "--seed", "1", "--secret", "S", "--preset", "original", "--json",
                           "--replay", str(path)],
                          cwd=Path(game.__file__).resolve().parents[3], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert all(faults == [0, 0, 0, 0] for faults in (game["faults"] for game in summary["games"]))
    means = summary["mean_scores"]
    assert min(means[1], means[2]) > max(means[0], means[3])
    document = load_document(path.read_text(encoding="utf-8"))
    assert len(document["records"]) == 3
    for record in document["records"]:
        state = replay_record(record)
        assert list(state.outcome.scores) == record["result"]["scores"]
        assert all(turn["played"] is not None for turn in record["turns"])
        assert all(answer is not None for turn in record["turns"] for answer in turn["answers"])
    forged = copy.deepcopy(document["records"][0])
    turn = next(turn for turn in forged["turns"] if turn["deaths"])
    turn["deaths"][0][1] = "old age"
    with pytest.raises(ReplayError, match="deaths"):
        replay_record(forged)


# -- per-turn script bots, hosted and native -------------------------------------------------
PLAN = ["drop down", "drop left", "drop right", "drop up", "move up", "drop up", "move down"]


def test_a_hosted_per_turn_script_reads_sys_argv_and_keeps_storage_txt_in_its_own_directory(tmp_path,
                                                                                             monkeypatch):
    from engine.bots.runners import OneShotScriptRunner

    monkeypatch.chdir(tmp_path)  # the controller's directory: the bot must not write here
    runner = OneShotScriptRunner("abotcalypse", load_code((EXAMPLES / "script.py").read_text()), "per_turn")
    state = layout(20, 30, bots=[(10, 0), (2, 0)])
    runner.start(Game.start_message(state, 0))
    answers = []
    for _ in range(9):
        reply = runner.turn(Game.observation(state, 0, []))
        assert reply.error is None, reply.error
        answers.append(reply.answer)
        state.apply_actions({0: parse(reply.answer, state, 0)})
    assert answers == [*PLAN, "rest", "rest"]
    assert Path(runner.workdir, "storage.txt").read_text() == "7"
    assert list(tmp_path.iterdir()) == []
    workdir = runner.workdir
    runner.end()
    assert not Path(workdir).exists()


@pytest.mark.parametrize("bot", ["builtin:script", f"cmd:{sys.executable} {EXAMPLES / 'script.py'}"])
def test_a_native_per_turn_script_bot_follows_its_plan_through_the_cli(tmp_path, bot):
    path = tmp_path / "series.json"
    done = subprocess.run([sys.executable, "-m", "engine", "match", "abotcalypse", bot, "builtin:builder",
                           "--games", "1", "--seed", "4", "--secret", "S", "--max-turns", "9", "--json",
                           # a process a turn: far above what a turn needs on a loaded machine
                           "--time-limit", "30000", "--replay", str(path)],
                          cwd=Path(game.__file__).resolve().parents[3], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"][0]["faults"][0] == 0
    record = json.loads(path.read_text(encoding="utf-8"))["records"][0]
    answers = [turn["answers"][turn["seats"].index(0)] for turn in record["turns"] if 0 in turn["seats"]]
    assert answers == [*PLAN, "rest", "rest"]
