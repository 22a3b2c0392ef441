"""A game the engine has never seen, registered from a temporary directory, runs through the
CLI's code and the page controller's code unchanged.

The toy is simultaneous rock-paper-scissors: every seat acts each round, a round's winners
score a point. Its files (rules and wire in one module, two example bots) are written to
``tmp_path``, imported from there and given to ``engine.games.registry.register``; nothing in
the engine is edited or told its name.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.bots.host import BotHost
from engine.cli import cli
from engine.games.registry import games, get_game, register, unregister

sys.path.insert(0, str(Path(__file__).parent))
from fresh_thread import in_fresh_thread  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

TOY_WIRE = '''
"""Rock-paper-scissors for 2 to 4 bots, all moving at once (a test's toy game)."""
import sys
from dataclasses import asdict, dataclass

from engine.core.errors import InvalidAnswerError
from engine.core.outcome import Outcome, unique_winner
from engine.core.spec import GameSpec, Preset, SettingField

BEATS = {"r": "s", "p": "r", "s": "p"}


@dataclass(frozen=True)
class RpsSettings:
    rounds: int = 5
    players: int = 2
    time_limit_ms: int = 1000

    def to_json(self):
        return asdict(self)


class RpsState:
    fault_limit = 3
    invalid_is_fault = True

    def __init__(self, settings, seed, secret=None):
        self.settings, self.seed = settings, seed
        self.num_players = settings.players
        self.round = 0
        self.points = [0] * settings.players
        self.frozen = set()
        self.outcome = None

    def acting_seats(self):
        return () if self.outcome else tuple(range(self.num_players))

    def is_terminal(self):
        return self.outcome is not None

    def default_action(self, seat):
        return "r"

    def freeze(self, seat):
        self.frozen.add(seat)

    def copy(self):
        other = RpsState(self.settings, self.seed)
        other.__dict__.update(self.__dict__, points=list(self.points), frozen=set(self.frozen))
        return other

    def apply_actions(self, actions):
        shown = [actions[s] for s in range(self.num_players)]
        for seat, hand in enumerate(shown):
            if any(BEATS[hand] == other for other in shown):
                self.points[seat] += 1
        self.round += 1
        if self.round >= self.settings.rounds:
            self.outcome = Outcome("rounds", tuple(self.points), unique_winner(self.points))
        return {"hands": shown, "points": list(self.points)}


def new_game(settings, seed, players, secret=None):
    return RpsState(settings if players == settings.players else RpsSettings(
        settings.rounds, players, settings.time_limit_ms), seed, secret)


def start_message(state, seat):
    return {"seat": seat}


def observation(state, seat, changes):
    last = changes[-1]["hands"] if changes else []
    return {"round": state.round, "last": last}


def message_lines(message):
    return [f"{message.get('round', 0)} {' '.join(message.get('last', []))}".strip()]


def message_argv(message):
    return []


def parse_answer(text, state, seat):
    hand = text.strip().lower()
    if hand not in BEATS:
        raise InvalidAnswerError(text, "answer r, p or s")
    return hand


def answer_text(value):
    return str(value)


class FunctionClient:
    def start(self, message):
        self.seat = message["seat"]

    def view(self, message):
        return dict(message, me=self.seat)


def record_start(state):
    return {"points": list(state.points)}


def record_turn(state, messages, actions, changes):
    return dict(changes)


def replay_check(turn, state, changes):
    return None


SPEC = GameSpec(
    name="toyrps", title="Toy RPS", summary="Rock-paper-scissors, all at once.",
    rules_doc="docs/rules/toyrps.md",
    presets=(Preset("short", "short (5 rounds)", RpsSettings()),),
    default_preset="short",
    fields=(SettingField("time_limit_ms", "Time limit (ms)", 1, 60_000),
            SettingField("rounds", "Rounds", 1, 100)),
    settings_type=RpsSettings, new_game=new_game, wire=sys.modules[__name__],
    min_bots=2, max_bots=4, players_setting="players", side_by_side=False, scoring="wins",
    script_mode="per_turn", renderer="toyrps", examples_package="toyrps_pkg.examples",
)
'''

ROCK = "def move(view):\n    return 'r'\n"
CYCLE = "def move(view):\n    return 'rps'[view['round'] % 3]\n"


@pytest.fixture
def toy(tmp_path, monkeypatch):
    package = tmp_path / "toyrps_pkg"
    (package / "examples").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "wire.py").write_text(textwrap.dedent(TOY_WIRE))
    (package / "examples" / "rock.py").write_text(ROCK)
    (package / "examples" / "cycle.py").write_text(CYCLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    spec_module = importlib.import_module("toyrps_pkg.wire")
    spec = register(spec_module.SPEC)
    yield spec
    unregister(spec.name)
    for name in [m for m in sys.modules if m.startswith("toyrps_pkg")]:
        del sys.modules[name]


def test_the_toy_is_known_once_registered(toy):
    assert get_game("toyrps") is toy and toy in games()
    assert toy.examples() == {"cycle": CYCLE, "rock": ROCK}


def cli_run(capsys, *args) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_toy_runs_through_the_cli_and_its_replay_verifies(toy, tmp_path, capsys):
    replay = tmp_path / "toy.json"
    code, out, err = cli_run(capsys, "match", "toyrps", "builtin:rock", "builtin:cycle", "--games", 3,
                             "--seed", 1, "--secret", "toysecret", "--rounds", 6, "--json",
                             "--replay", replay)
    assert code == 0, err
    result = json.loads(out)
    assert result["settings"] == {"rounds": 6, "players": 2, "time_limit_ms": 1000}
    # rock vs r, p, s, r, p, s: rock scores on the cycle's scissors, the cycle on its paper
    assert [g["scores"] for g in result["games"]] == [[2, 2]] * 3 and result["wins"] == [0, 0]
    document = json.loads(replay.read_text())
    turn = document["records"][0]["turns"][1]
    assert turn["seats"] == [0, 1] and turn["answers"] == ["r", "p"] and turn["hands"] == ["r", "p"]
    code, out, err = cli_run(capsys, "replay", replay, "--json")
    assert code == 0 and json.loads(out)["verified"] is True, err
    document["records"][0]["turns"][1]["answers"][0] = "s"  # a forged hand is caught
    replay.write_text(json.dumps(document))
    code, _, err = cli_run(capsys, "replay", replay)
    assert code == 1 and "refused" in err


def test_a_flag_the_toy_does_not_have_is_one_line_and_exit_2(toy, capsys):
    code, out, err = cli_run(capsys, "match", "toyrps", "builtin:rock", "builtin:cycle", "--rounds", 101)
    assert code == 2 and err == "error: rounds must be 1 to 100, got 101\n"  # the toy's own bounds
    code, out, err = cli_run(capsys, "match", "toyrps", "builtin:rock", "builtin:cycle", "--max-moves", 5)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == ["error: --max-moves is not a Toy RPS setting "
                                        "(Toy RPS takes --time-limit, --rounds)"]


# -- the page's controller (web/main.py) under CPython, with a fake arena_bridge -------------------
class FakeBridge:
    """What controller_worker.js gives web/main.py: each bot slot is a BotHost in-process."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.hosts: list[BotHost] = []

    def post(self, text: str) -> None:
        self.events.append(json.loads(text))

    def now(self) -> float:
        return time.perf_counter() * 1000.0

    async def prepare(self, n: int) -> None:
        self.hosts = [BotHost(lambda: None, lambda reply: None) for _ in range(n)]

    async def release(self) -> None:
        pass

    def stopRequested(self) -> bool:  # noqa: N802 - the JS name
        return False

    def ask(self, slot: int, request_id: int, op: str, request_json: str, wait_ms: int) -> str:
        began = self.now()
        reply = self.hosts[slot].handle(json.loads(request_json)) or {}
        fields = {k: reply.get(k) for k in ("answer", "error", "line")}
        fields.update(stdout=reply.get("stdout") or "", stderr=reply.get("stderr") or "")
        return f"{self.now() - began};1;{json.dumps(fields)}"


@pytest.fixture
def page_main(monkeypatch):
    bridge = FakeBridge()
    monkeypatch.setitem(sys.modules, "arena_bridge", bridge)
    spec = importlib.util.spec_from_file_location("page_main_under_test", ROOT / "web" / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, bridge


def test_the_toy_runs_through_the_page_controller(toy, page_main, capsys):
    main, bridge = page_main
    assert "toyrps" in [g["name"] for g in json.loads(main.games_json())]
    request = {"type": "run", "run": 7, "game": "toyrps", "preset": "short", "settings": {"rounds": 6},
               "seed": 1, "games": 3, "secret": "toysecret",
               "bots": [{"name": "rock", "code": "builtin:rock"}, {"name": "cycle", "code": CYCLE}]}
    in_fresh_thread(lambda: asyncio.run(main.controller.run(json.dumps(request))))
    kinds = [e["type"] for e in bridge.events]
    assert "error" not in kinds, bridge.events
    summaries = [e["summary"] for e in bridge.events if e["type"] == "summary"]
    assert len(summaries) == 3 and [len(s["games"]) for s in summaries] == [1, 2, 3]
    done = bridge.events[-1]
    assert done["type"] == "done" and done["series"] == summaries[-1]
    turns = [t for e in bridge.events if e["type"] == "turns" and e["index"] == 0 for t in e["turns"]]
    assert len(turns) == 6 and turns[1]["seats"] == [0, 1] and turns[1]["hands"] == ["r", "p"]
    # the same run through the CLI gives the same summary
    code, out, _ = cli_run(capsys, "match", "toyrps", "builtin:rock", "builtin:cycle", "--games", 3,
                           "--seed", 1, "--secret", "toysecret", "--rounds", 6, "--json")
    assert code == 0
    cli_summary = json.loads(out)
    assert {k: cli_summary[k] for k in done["series"]} == done["series"]


def test_the_page_refuses_a_setting_the_game_does_not_have(toy, page_main):
    main, bridge = page_main
    request = {"run": 8, "game": "toyrps", "settings": {"max_moves": 3}, "seed": 1, "games": 1,
               "bots": [{"name": "a", "code": ROCK}, {"name": "b", "code": ROCK}]}
    in_fresh_thread(lambda: asyncio.run(main.controller.run(json.dumps(request))))
    errors = [e for e in bridge.events if e["type"] == "error"]
    assert len(errors) == 1 and "has no setting 'max_moves'" in errors[0]["message"]
