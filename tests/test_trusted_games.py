"""One loader for games on the public API: a trusted module (a built-in game's) is read into the
same ``GameSpec`` an author's game gets, and played in this process (``engine.authored.in_process``)
exactly as its sandboxed host plays it; the registry finds a folder with ``game.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import engine.games
from engine.authored.in_process import ApiState, TrustedGame
from engine.bots.native import HostedBot, InProcessBot
from engine.bots.sandbox import Sandbox, SandboxError, Unsandboxed
from engine.games import registry
from engine.games.abotcalypse import game as abot_game
from engine.games.atomas import game as atomas_game
from engine.games.registry import get_game, register, unregister
from engine.play.debug_part import rules_part
from engine.play.game_proxy import load_game
from engine.play.match import run_series
from engine.play.replay import replay_record

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples" / "games"
FLIT_BOTS = ROOT / "engine" / "games" / "flit" / "examples"
CHAOS = '''import random

def move(view):
    r = random.random()
    if r < 0.1:
        return "three words only"
    if r < 0.2:
        x, y = view.pieces()[0]
        return (x, y, x, y + 2)       # most often not next to another piece
    if r < 0.25:
        raise ValueError("chaos")
    moves = view.moves()
    return random.choice(moves) if moves else (0, 0, 0, 0)
'''


def trusted(path: Path) -> TrustedGame:
    """A game-API module imported as the engine's own (as the registry imports a folder's)."""
    name = f"trusted_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return TrustedGame(module)


def play(spec, bots, seed: int, games: int, preset: str | None = None) -> dict:
    settings = spec.settings(preset, players=len(bots), time_limit_ms=20_000)
    return run_series(spec, settings, bots, seed, games, secret="one").document


def without_pictures(document: dict) -> list[dict]:
    """Each record's rules part (engine.play.debug_part: no output or times), without pictures."""
    records = []
    for record in document["records"]:
        record = dict(rules_part(record), start={k: v for k, v in record["start"].items() if k != "picture"})
        record["turns"] = [{k: v for k, v in t.items() if k != "picture"} for t in record["turns"]]
        records.append(record)
    return records


def assert_same_games(after: dict, before: dict) -> None:
    """The port's series (``after``) is the old wire's (``before``) turn by turn, faults and
    summary included, and every record the old wire made replays on the port."""
    mine, theirs = [rules_part(r) for r in after["records"]], [rules_part(r) for r in before["records"]]
    for a, b in zip(mine, theirs, strict=True):
        for number, (x, y) in enumerate(zip(a["turns"], b["turns"], strict=True), 1):
            assert x == y, f"turn {number}"
        assert a == b
    for record in before["records"]:
        replay_record(record)  # a record made before the port replays on the port
    kinds = {f["kind"] for r in after["records"] for t in r["turns"] for f in t["faults"] if f}
    assert {"invalid", "error"} <= kinds  # the fault paths were compared too
    assert after["summary"] == before["summary"]


def test_the_flit_port_in_process_plays_the_builtin_games_turn_by_turn():
    port = trusted(GAMES / "flit.py")
    assert port.spec.trusted and isinstance(port.spec.new_game(port.spec.settings(), 1), ApiState)
    sources = {"chaos": CHAOS, "greedy": (FLIT_BOTS / "greedy.py").read_text()}
    builtin = play(get_game("flit"), [InProcessBot(n, s) for n, s in sources.items()], 7, 2, "trial")
    register(port.spec)
    try:
        ported = play(port.spec, [InProcessBot(n, s) for n, s in sources.items()], 7, 2, "trial")
        for record in ported["records"]:
            replay_record(record)  # the in-process game verifies its own replays
    finally:
        unregister("flit")
    assert get_game("flit").game_module is None
    mine, theirs = without_pictures(ported), without_pictures(builtin)
    assert len(mine) == 2 and all(len(r["turns"]) > 10 for r in mine)
    for a, b in zip(mine, theirs, strict=True):
        for number, (x, y) in enumerate(zip(a["turns"], b["turns"], strict=True), 1):
            assert x == y, f"turn {number}"
        assert a == b
    kinds = {f["kind"] for r in ported["records"] for t in r["turns"] for f in t["faults"] if f}
    assert {"invalid", "error"} <= kinds  # the fault paths were compared too
    assert ported["summary"] == builtin["summary"]


@pytest.fixture(scope="module")
def sandbox():
    box = Sandbox()
    try:
        box.probe()
    except SandboxError:
        return Unsandboxed()
    return box


def test_in_process_and_sandboxed_a_module_records_the_same_games(sandbox):
    """Land Grab (all bots at once, pictures drawn): the trusted path and the host agree exactly."""
    path = GAMES / "landgrab.py"
    local = trusted(path)
    examples = local.spec.examples()
    names = ("greedy", "random", "greedy")
    register(local.spec)
    try:
        here = play(local.spec, [InProcessBot(n, examples[n]) for n in names], 3, 2)
    finally:
        unregister(local.spec.name)
    hosted = load_game(path.read_text(), sandbox)
    register(hosted.spec)
    try:
        there = play(hosted.spec, [HostedBot(n, examples[n], sandbox) for n in names], 3, 2)
    finally:
        unregister(hosted.spec.name)
        hosted.close()
    assert len(here["records"]) == 2 and all(len(r["turns"]) > 10 for r in here["records"])
    assert [rules_part(r) for r in here["records"]] == [rules_part(r) for r in there["records"]]
    assert here["summary"] == there["summary"]
    assert "picture" in here["records"][0]["start"]


def test_the_registry_finds_a_folder_with_a_game_module(tmp_path, monkeypatch):
    folder = tmp_path / "lowest"
    (folder / "examples").mkdir(parents=True)
    source = (GAMES / "lowest_unique.py").read_text()
    source = source.replace('NAME = "lowest_unique"', 'NAME = "lowest"\nMENU_ORDER = 150')
    (folder / "game.py").write_text(source.replace("EXAMPLES = {", "_EXAMPLES = {"))
    (folder / "__init__.py").write_text('"""A test\'s game."""\n')
    (folder / "examples" / "__init__.py").write_text("")
    (folder / "examples" / "one.py").write_text("def move(view):\n    return 1\n")
    (folder / "examples" / "high.py").write_text("def move(view):\n    return view['high']\n")
    monkeypatch.setattr(engine.games, "__path__", [*engine.games.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "_discovered", None)
    try:
        spec = get_game("lowest")
        assert spec.trusted and spec.menu_order == 150 and spec.rules_doc == "docs/rules/lowest.md"
        assert sorted(spec.examples()) == ["high", "one"] and spec.renderer == "generic"
        document = play(spec, [InProcessBot("one", spec.example_source("one")),
                               InProcessBot("high", spec.example_source("high"))], 1, 1)
        record = document["records"][0]
        assert record["result"]["termination"] == "rounds" and record["result"]["scores"] == [30, 0]
        assert {"flit", "atomas", "abotcalypse", "lowest"} <= set(registry.game_names())
    finally:
        for name in [m for m in sys.modules if m.startswith("engine.games.lowest")]:
            del sys.modules[name]
    monkeypatch.setattr(registry, "_discovered", None)


# -- the built-in games ported to the API: equal to the engine's older shape, in-process and hosted
ATOMAS = ROOT / "engine" / "games" / "atomas" / "game.py"
ATOMAS_CHAOS = '''import random

def move(view):
    r = random.random()
    n = len(view.board)
    if r < 0.05:
        return "x y z"                # cannot be read
    if r < 0.1:
        return n + 5                  # out of range: refused by the rules
    if r < 0.12:
        raise ValueError("chaos")
    if view.atom == "-":
        return random.randrange(n), random.random() < 0.5
    return random.randrange(n) if view.atom == "C" else random.randrange(max(n, 1))
'''


class OldAtomasWire:
    """A copy of engine/games/atomas/wire.py's logic before the port (the old path, kept here
    only): messages, answers and records over ``rules.AtomasState``."""

    from engine.core.answer_text import answer_text
    from engine.games.atomas.game import FunctionClient, lines

    message_lines = staticmethod(lines)

    @staticmethod
    def message_argv(message):
        return []

    @staticmethod
    def start_message(state, seat):
        return {}

    @staticmethod
    def observation(state, seat, changes):
        return {"atom": state.atom, "board": list(state.items)}

    @staticmethod
    def parse_answer(text, state, seat=0):
        from engine.core.errors import InvalidAnswerError
        parts = text.split()
        try:
            if state.atom == "-":
                if len(parts) != 2 or parts[1] not in ("y", "n"):
                    raise InvalidAnswerError(text, "a '-' answer is 'INDEX y' or 'INDEX n'")
                return (int(parts[0]), parts[1] == "y")
            if len(parts) != 1:
                what = "an item index" if state.atom == "C" else "one gap number"
                raise InvalidAnswerError(text, f"expected {what}")
            return int(parts[0])
        except ValueError as exc:
            if isinstance(exc, InvalidAnswerError):
                raise
            raise InvalidAnswerError(text, "not an integer") from None

    @staticmethod
    def record_start(state):
        return {"board": list(state.items), "score": state.score}

    @staticmethod
    def record_turn(state, messages, actions, changes):
        return {"atom": messages[0]["atom"], "board": list(state.items), "score": state.score}

    @staticmethod
    def replay_check(turn, state, changes):
        return None if turn["board"] == state.items and turn["score"] == state.score else "differs"


def old_atomas_spec():
    from dataclasses import replace

    from engine.games.atomas import rules
    return replace(get_game("atomas"), settings_type=rules.AtomasSettings, new_game=rules.new_game,
                   wire=OldAtomasWire,
                   presets=(replace(get_game("atomas").presets[0], settings=rules.AtomasSettings()),))


def test_the_atomas_port_plays_the_old_builtin_game_turn_by_turn():
    """The port (engine/games/atomas/game.py, in-process) records exactly what the engine's older
    Atomas (rules plus its wire module) recorded: settings, start, every turn, faults, result."""
    spec = get_game("atomas")
    assert spec.trusted and isinstance(spec.new_game(spec.settings(), 1), atomas_game.Game)
    sources = {"chaos": ATOMAS_CHAOS, "greedy": (ATOMAS.parent / "examples" / "greedy.py").read_text()}
    old = old_atomas_spec()
    register(old)
    try:
        before = run_series(old, old.settings(max_moves=300, time_limit_ms=20_000),
                            [InProcessBot(n, s) for n, s in sources.items()], 5, 2, secret="one").document
    finally:
        unregister("atomas")
    after = run_series(spec, spec.settings(max_moves=300, time_limit_ms=20_000),
                       [InProcessBot(n, s) for n, s in sources.items()], 5, 2, secret="one").document
    mine = [rules_part(r) for r in after["records"]]
    assert len(mine) == 4 and all(len(r["turns"]) > 20 for r in mine)
    assert mine[0]["settings"] == {"max_moves": 300, "time_limit_ms": 20_000}  # no players setting
    assert_same_games(after, before)


def test_the_atomas_port_records_the_same_games_in_process_and_sandboxed(sandbox):
    spec = get_game("atomas")
    hosted = load_game(ATOMAS.read_text(), sandbox)
    same = ("presets", "default_preset", "fields", "min_bots", "max_bots", "players_setting", "side_by_side",
            "scoring", "script_mode", "renderer")
    assert {k: hosted.spec.to_json()[k] for k in same} == {k: spec.to_json()[k] for k in same}
    greedy = (ATOMAS.parent / "examples" / "greedy.py").read_text()
    bots = lambda make: [make("chaos", ATOMAS_CHAOS), make("greedy", greedy)]  # noqa: E731
    here = play_alone(spec, bots(InProcessBot))
    register(hosted.spec)
    try:
        there = play_alone(hosted.spec, bots(lambda n, s: HostedBot(n, s, sandbox)))
    finally:
        unregister("atomas")
        hosted.close()
    assert len(here["records"]) == 4 and sum(len(r["turns"]) for r in here["records"]) > 100
    assert without_pictures(here) == without_pictures(there)
    assert here["summary"] == there["summary"]


def play_alone(spec, bots) -> dict:
    settings = spec.settings(max_moves=120, time_limit_ms=20_000)
    return run_series(spec, settings, bots, 9, 2, secret="two").document


ABOT = ROOT / "engine" / "games" / "abotcalypse" / "game.py"
ABOT_CHAOS = '''import random

def move(view):
    r = random.random()
    if r < 0.1:
        return "fly away"             # cannot be read: a recorded rest
    if r < 0.13:
        raise ValueError("chaos")
    if r < 0.2:
        return ("throw", "left", 3)
    return random.choice(["rest", "move left", "move right", "move up", "drop down", "throw right"])
'''


class OldAbotWire:
    """A copy of engine/games/abotcalypse/wire.py's game side before the port (the old path,
    kept here only); its bot side (views, lines, answers) is the port's, unchanged."""

    from engine.games.abotcalypse.game import FunctionClient, answer_text, argv, lines

    message_lines, message_argv = staticmethod(lines), staticmethod(argv)

    @staticmethod
    def start_message(state, seat):
        return {"seat": seat, "players": state.num_players, "width": state.width, "height": state.height}

    @staticmethod
    def observation(state, seat, changes):
        return {"view": state.view_rows(seat), "turn": state.turn + 1}

    @staticmethod
    def parse_answer(text, state, seat):
        from engine.games.abotcalypse.rules import parse_action
        return parse_action(text)

    @staticmethod
    def record_start(state):
        return state.start_json()

    @staticmethod
    def record_turn(state, messages, actions, changes):
        return dict(changes)

    @staticmethod
    def replay_check(turn, state, changes):
        return None if all(turn.get(k) == v for k, v in changes.items()) else "differs"

    @staticmethod
    def mark_cells(state, seat, where):
        return None


def old_abot_spec():
    from dataclasses import replace

    from engine.games.abotcalypse import rules
    spec = get_game("abotcalypse")
    return replace(spec, settings_type=rules.AbotSettings, new_game=rules.new_game, wire=OldAbotWire,
                   presets=tuple(replace(p, settings=rules.PRESETS[p.name]) for p in spec.presets))


def abot_bots(make) -> list:
    folder = ABOT.parent / "examples"
    return [make("chaos", ABOT_CHAOS),
            *(make(name, (folder / f"{name}.py").read_text()) for name in ("builder", "thrower"))]


def test_the_abotcalypse_port_plays_the_old_builtin_game_turn_by_turn():
    """The port (engine/games/abotcalypse/game.py, in-process) records exactly what the engine's
    older aBOTcalypse (rules plus its wire module) recorded, and replays the old records."""
    spec, old = get_game("abotcalypse"), old_abot_spec()
    assert spec.trusted and isinstance(spec.new_game(spec.settings(), 1), abot_game.Game)
    register(old)
    try:
        before = play(old, abot_bots(InProcessBot), 4, 2)
    finally:
        unregister("abotcalypse")
    after = play(spec, abot_bots(InProcessBot), 4, 2)
    mine = [rules_part(r) for r in after["records"]]
    assert len(mine) == 2 and all(len(r["turns"]) > 10 for r in mine)
    assert mine[0]["settings"] == {"width": 48, "height": 24, "players": 3, "max_turns": 200,
                                   "time_limit_ms": 20_000}
    assert_same_games(after, before)


def test_the_abotcalypse_port_records_the_same_games_in_process_and_sandboxed(sandbox):
    spec = get_game("abotcalypse")
    hosted = load_game(ABOT.read_text(), sandbox)
    same = ("presets", "default_preset", "fields", "min_bots", "max_bots", "players_setting", "side_by_side",
            "scoring", "script_mode", "renderer")
    assert {k: hosted.spec.to_json()[k] for k in same} == {k: spec.to_json()[k] for k in same}
    here = play(spec, abot_bots(InProcessBot), 6, 2)
    register(hosted.spec)
    try:
        there = play(hosted.spec, abot_bots(lambda n, s: HostedBot(n, s, sandbox)), 6, 2)
    finally:
        unregister("abotcalypse")
        hosted.close()
    assert len(here["records"]) == 2 and all(len(r["turns"]) > 10 for r in here["records"])
    assert without_pictures(here) == without_pictures(there)
    assert here["summary"] == there["summary"]
    assert "picture" in there["records"][0]["start"]  # the hosted game draws it (draw())
