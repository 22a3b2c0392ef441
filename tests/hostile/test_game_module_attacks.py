"""Attacks by an author's game module on the controller, run as a user runs them (issue 17).

A game module is a stranger's code, as untrusted as a bot. Each attack here got through
before: a game that never ends and records 12 MB a turn grew the controller without bound; a
module that patched its host's ``reply_text`` to report a score of ``10**400`` ended ``match``
and ``tournament`` with an ``OverflowError`` traceback; a record the host let through nested
deeper than the replay reader opens. Now each ends that game with one clear line (a game
error), the controller stays small, a tournament plays its other games, and whatever a game
that ends normally recorded opens again (``engine.core.replay_limits`` is the one place the limits
are written).
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from peak_rss import CONTROLLER

from engine.bots.sandbox import Sandbox, SandboxError
from engine.cli import cli
from engine.core.replay_limits import MAX_DEPTH, MAX_RECORD_DEPTH
from engine.games.registry import unregister
from engine.play.replay import load_document

ROOT = Path(__file__).resolve().parents[2]
RSS_BOUND_MB = 300  # the controller's own peak memory while a game floods it (it reached 1.5 GiB)
TIME_BOUND_S = 300  # a run the attack made endless: 5 to 35 s here at a load of 8
MATCH = ("builtin:two", "builtin:one", "--seed", 1, "--secret", "S", "--json")
# The game's time limit (SETTINGS below) is the most a game module may set, far above a move's
# cost on a loaded machine: the scores the tests assert never depend on the machine's speed.

try:
    Sandbox().probe()
except SandboxError as exc:  # scripts/test installs bubblewrap: this is a broken set-up
    pytest.fail(f"the sandbox cannot start here ({exc}); run scripts/test, which installs bubblewrap",
                pytrace=False)



# Two seats say 1 or 2 each round; it ends after ``rounds`` rounds (never when ENDLESS).
# ``{extra}`` adds the attack; the check game at load plays default actions (0) only.
GAME = '''"""Count: two bots say 1 or 2 each round."""
from engine.game_api import InvalidAnswer

NAME = "count"
TITLE = "Count"
PLAYERS = (2, 2)
SETTINGS = {{"rounds": {rounds}, "time_limit_ms": 60_000}}
ENDLESS = {endless}
EXAMPLES = {{"two": "def move(view):\\n    return 2\\n", "one": "def move(view):\\n    return 1\\n"}}
{head}

class Game:
    def __init__(self, settings, rng):
        self.rounds, self.round, self.sums, self.played = settings.rounds, 0, [0, 0], False

    def acting_seats(self):
        return [0, 1]

    def observation(self, seat, since):
        return {{"sums": self.sums}}

    def parse_answer(self, text, seat):
        if text not in ("1", "2"):
            raise InvalidAnswer("say 1 or 2")
        return int(text)

    def default_action(self, seat):
        return 0

    def apply_actions(self, actions):
        for seat, step in actions.items():
            self.sums[seat] += step
            self.played = self.played or step > 0
        self.round += 1
        return list(self.sums)

    def record_turn(self, actions, changes):
        return {record}

    def over(self):
        return None if ENDLESS or self.round < self.rounds else "rounds"

    def scores(self):
        return list(self.sums)

    def draw(self):
        return {{"width": 2, "height": 1, "cells": ["ab"],
                "key": {{"a": {{"color": 0}}, "b": {{"color": 1}}}}}}
'''

# The host's own reply_text, wrapped: every other game's final scores become [10**400, 0].
# (Natively the host runs as ``python -m engine.authored.game_host``: its class is ``__main__``'s.)
PATCH_SCORES = '''
import sys as _sys
_host = getattr(_sys.modules.get({where!r}), "GameHost", None)  # none in a bot's process
if _host is not None and not getattr(_host, "patched", False):
    _honest = _host.reply_text
    _host.games = 0

    def _reply_text(self, request_text):
        import json
        text = _honest(self, request_text)
        reply = json.loads(text)
        if json.loads(request_text).get("op") == "new":
            type(self).games += 1
        if reply.get("scores") is not None and type(self).games % 2 == 1:
            reply["scores"] = [10 ** 400, 0]
            return json.dumps(reply)
        return text

    _host.reply_text = _reply_text
    _host.patched = True
'''

# The host's reply_text, wrapped: observations for "seats" that no int() reads.
PATCH_OBSERVATIONS = '''
import sys as _sys
_host = getattr(_sys.modules.get("__main__"), "GameHost", None)  # none in a bot's process
if _host is not None and not getattr(_host, "patched", False):
    _honest = _host.reply_text

    def _reply_text(self, request_text):
        import json
        reply = json.loads(_honest(self, request_text))
        if isinstance(reply.get("observations"), dict):
            reply["observations"].update({"9" * 5000: {}, "\\u00b2": {}})
        return json.dumps(reply)

    _host.reply_text = _reply_text
    _host.patched = True
'''


def game(rounds: int = 5, head: str = "", record: str = '{"sums": list(self.sums)}') -> str:
    """The game's source; ``rounds`` 0: it never ends."""
    return GAME.format(rounds=rounds or 1, endless=rounds == 0, head=head, record=record)


def nested(levels: int, always: bool = False) -> str:
    """Python source of a record nesting ``levels`` deep, itself counted, once a bot has played
    (``always``: from the first turn, the check game's too)."""
    inner = "0"
    for _ in range(levels - 1):
        inner = f"[{inner}]"
    return f'{{"deep": {inner}}} if {always} or self.played else {{"sums": list(self.sums)}}'


def controller(tmp_path: Path, *args: object,
               timeout: float = 2 * TIME_BOUND_S) -> tuple[int, str, str, float, float]:
    """``python -m engine ARGS`` as a process: (exit code, stdout, stderr, seconds, peak RSS in MB)."""
    rss_file = tmp_path / "controller_rss"
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-c", CONTROLLER, str(rss_file), *map(str, args)],
                          cwd=ROOT, capture_output=True, timeout=timeout)
    took = time.monotonic() - began
    return (done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"),
            took, int(rss_file.read_text()) / 1024)


def write(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "count.py"
    path.write_text(source, encoding="utf-8")
    return path


def one_line_game_error(err: str) -> str:
    assert "Traceback" not in err, err[-3000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the game failed: "), err[-3000:]
    return lines[0]


# -- (a) a game that never ends, recording 12 MB a turn ---------------------------------------
def test_a_never_ending_game_recording_12_mb_a_turn_ends_with_a_game_error(tmp_path):
    # the check game at load (default actions) records little: the flood starts once bots play
    head = 'BLOB = "x" * 12_000_000'
    path = write(tmp_path, game(rounds=0, head=head, record='{"blob": BLOB} if self.played else {}'))
    code, out, err, took, rss_mb = controller(tmp_path, "match", "--game-file", path, *MATCH)
    line = one_line_game_error(err)
    assert code == 1 and out == ""
    assert "the game recorded over 16 MiB" in line and "a replay would be too big to read" in line, line
    assert took < TIME_BOUND_S, took
    assert rss_mb < RSS_BOUND_MB, rss_mb


def test_a_never_ending_game_is_stopped_at_its_turn_limit(tmp_path):
    path = write(tmp_path, game(rounds=0, head="MAX_TURNS = 300"))
    code, out, err, took, rss_mb = controller(tmp_path, "match", "--game-file", path, *MATCH)
    line = one_line_game_error(err)
    assert code == 1 and "the game did not end within 300 turns (its MAX_TURNS)" in line, line
    assert took < TIME_BOUND_S and rss_mb < RSS_BOUND_MB, (took, rss_mb)


def test_max_turns_is_checked_when_the_module_is_read(capsys, tmp_path):
    path = write(tmp_path, game(head="MAX_TURNS = 10 ** 9"))
    code = cli.main(["match", "--game-file", str(path), "builtin:two", "builtin:one", "--seed", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "MAX_TURNS is a whole number 1 to 100,000, got 1000000000" in err, err


# -- (b) final scores of 10**400 through a patched GameHost.reply_text ---------------------------
def test_a_huge_score_from_a_patched_host_is_one_line_in_a_match(tmp_path):
    path = write(tmp_path, game(head=PATCH_SCORES.format(where="__main__")))
    code, out, err, _, _ = controller(tmp_path, "match", "--game-file", path, *MATCH)
    line = one_line_game_error(err)
    assert code == 1 and out == ""
    assert "the game's scores [an int of 1329 bits, 0] are not numbers of at most 1e+15 in size" in line, line


def test_a_tournament_goes_on_past_a_game_with_a_huge_score(tmp_path):
    path = write(tmp_path, game(head=PATCH_SCORES.format(where="__main__")))
    replays = tmp_path / "replays"
    code, out, err, _, _ = controller(tmp_path, "tournament", "--game-file", path, "builtin:two",
                                      "builtin:one", "--games", 4, "--seed", 1, "--secret", "S", "--json",
                                      "--replays", replays)
    assert code == 0 and "Traceback" not in err, err[-3000:]
    result = json.loads(out)
    failed = [g for g in result["games"] if "error" in g]
    played = [g for g in result["games"] if "error" not in g]
    assert len(failed) == 2 and len(played) == 2, result["games"]  # every other game's scores are huge
    assert all("are not numbers of at most 1e+15 in size" in g["error"] for g in failed)
    assert all(g["scores"] is None and g["winner"] is None for g in failed)
    assert all(g["scores"] == [10, 5] or g["scores"] == [5, 10] for g in played), played
    assert {s["name"]: s["games"] for s in result["standings"]} == {"two": 2, "one": 2}
    assert sum("the game failed: the game's scores" in line for line in err.splitlines()) == 2, err
    files = sorted(replays.glob("*.json"))
    assert len(files) == 2 and all(load_document(f.read_text()) for f in files)  # the played games'


def test_a_tournament_goes_on_past_a_game_whose_process_was_killed(tmp_path):
    # a hang in C (no signal stops it) when the bot "one" sits in seat 0: the controller kills
    # the game's process after 8 s, and the next game starts another
    hang = "        if actions.get(0) == 1:\n            sum(range(10 ** 12))\n"
    source = game().replace("        self.round += 1\n", hang + "        self.round += 1\n")
    path = write(tmp_path, source)
    code, out, err, took, _ = controller(tmp_path, "tournament", "--game-file", path, "builtin:two",
                                         "builtin:one", "--games", 4, "--seed", 1, "--secret", "S", "--json")
    assert code == 0 and "Traceback" not in err, err[-3000:]
    games = json.loads(out)["games"]
    assert [g["seats"][0] for g in games] == ["two", "one", "two", "one"], games
    assert [g["scores"] for g in games[::2]] == [[10, 5], [10, 5]], games
    assert all("the game did not answer 'apply' within 8 s" in g["error"] for g in games[1::2]), games
    assert took < TIME_BOUND_S, took


# -- (c) what a game records opens again -------------------------------------------------------
def test_a_record_nested_deeper_than_a_replay_holds_is_named_at_load(capsys, tmp_path):
    path = write(tmp_path, game(record=nested(MAX_RECORD_DEPTH + 1, always=True)))
    code = cli.main(["match", "--game-file", str(path), *map(str, MATCH)])
    out = capsys.readouterr()
    assert code == 2 and out.out == "" and len(out.err.strip().splitlines()) == 1, out.err
    assert f"record_turn returned a record nested {MAX_RECORD_DEPTH + 1} deep; a record nests at most " \
           f"{MAX_RECORD_DEPTH} deep, so that its replay can be read" in out.err, out.err


def test_a_record_nested_deeper_than_a_replay_holds_in_play_is_a_game_error(capsys, tmp_path):
    # the check game plays default actions only: the deep record comes once a bot has played
    path = write(tmp_path, game(record=nested(MAX_RECORD_DEPTH + 1)))
    code = cli.main(["match", "--game-file", str(path), *map(str, MATCH)])
    out = capsys.readouterr()
    line = one_line_game_error(out.err)
    assert code == 1 and out.out == ""
    assert f"the game's reply to 'apply' nests {MAX_RECORD_DEPTH + 2} deep; a reply nests at most " \
           f"{MAX_RECORD_DEPTH + 1} deep (a record in it {MAX_RECORD_DEPTH}), so that its replay can be " \
           "read" in line, line
    assert MAX_RECORD_DEPTH + 1 <= MAX_DEPTH  # what a reply may hold, the reader opens


def test_a_patched_host_naming_seats_no_int_can_be_made_of_plays_on(tmp_path):
    # observations keyed "9" * 5000 (more digits than int() reads) and "²" (a digit to isdigit)
    path = write(tmp_path, game(head=PATCH_OBSERVATIONS))
    code, out, err, _, _ = controller(tmp_path, "match", "--game-file", path, *MATCH)
    assert code == 0 and "Traceback" not in err, err[-3000:]
    assert json.loads(out)["games"][0]["scores"] == [10, 5]
    # acting seats that are lists (unhashable): one line, not a TypeError's traceback
    patch = PATCH_OBSERVATIONS.replace('reply["observations"].update({"9" * 5000: {}, "\\u00b2": {}})',
                                       'reply["acting"] = [[0], [1]]')
    assert patch != PATCH_OBSERVATIONS
    path = write(tmp_path, game(head=patch))
    code, out, err, _, _ = controller(tmp_path, "match", "--game-file", path, *MATCH)
    line = one_line_game_error(err)
    assert code == 1 and "named no acting seats, or seats that do not exist" in line, line


def test_a_record_at_the_deepest_allowed_opens_again(capsys, tmp_path):
    path = write(tmp_path, game(record=nested(MAX_RECORD_DEPTH)))
    replay = tmp_path / "replay.json"
    code = cli.main(["match", "--game-file", str(path), "builtin:two", "builtin:one", "--games", "2",
                     "--seed", "1", "--secret", "S", "--json", "--replay", str(replay)])
    out = capsys.readouterr()
    assert code == 0, out.err
    text = replay.read_text()
    document = load_document(text)
    assert document["records"][0]["turns"][0]["deep"] == json.loads(text)["records"][0]["turns"][0]["deep"]
    code = cli.main(["replay", str(replay), "--game-file", str(path), "--json"])
    out = capsys.readouterr()
    assert code == 0 and json.loads(out.out)["verified"] is True, out.err


# -- the page: the same limits through its controller (web/main.py) ----------------------------
class FakeBridge:
    """controller_worker.js for web/main.py: bots and the game each a host in this process."""

    def __init__(self) -> None:
        from engine.bots.host import BotHost

        self.events: list[dict] = []
        self.hosts: list = []
        self.game = BotHost(lambda: None, lambda reply: None)
        self.host_type = BotHost

    def post(self, text: str) -> None:
        self.events.append(json.loads(text))

    def now(self) -> float:
        return time.perf_counter() * 1000.0

    async def prepare(self, n: int) -> None:
        self.hosts = [self.host_type(lambda: None, lambda reply: None) for _ in range(n)]

    async def release(self) -> None:
        pass

    async def gameWorker(self) -> bool:  # noqa: N802 - the JS name
        return True

    def stopRequested(self) -> bool:  # noqa: N802
        return False

    def ask(self, slot: int, request_id: int, op: str, request_json: str, wait_ms: int) -> str:
        reply = self.hosts[slot].handle(json.loads(request_json)) or {}
        fields = {k: reply.get(k) for k in ("answer", "error", "line")}
        fields.update(stdout=reply.get("stdout") or "", stderr=reply.get("stderr") or "")
        return f"1;1;{json.dumps(fields)}"

    def askGame(self, request_id: int, request_json: str, wait_ms: int, is_load: bool) -> str:  # noqa: N802
        reply = self.game.handle(json.loads(request_json))
        return f"1;1;{json.dumps({'game': reply['game']})}"

    # a tournament's seats: a bot host each, per group of seats
    def tournamentBegin(self, seats: int, entries: int, parallel_json: str) -> str:  # noqa: N802
        self.groups: dict[int, list] = {}
        return json.dumps({"parallel": 1})

    async def tournamentSeats(self, table_json: str) -> int:  # noqa: N802
        group = len(self.groups)
        seats = json.loads(table_json)
        self.groups[group] = [self.host_type(lambda: None, lambda reply: None) for _ in seats]
        return group

    def tournamentFree(self, group: int) -> None:  # noqa: N802
        self.groups.pop(group, None)

    async def tournamentAsk(self, group: int, seat: int, request_id: int, op: str, text: str,  # noqa: N802
                            wait_ms: int) -> str:
        reply = self.groups[group][seat].handle(json.loads(text)) or {}
        fields = {k: reply.get(k) for k in ("answer", "error", "line")}
        fields.update(stdout=reply.get("stdout") or "", stderr=reply.get("stderr") or "")
        return f"1;1;{json.dumps(fields)}"

    def tournamentWorkers(self) -> str:  # noqa: N802
        return "{}"

    def tournamentEnd(self) -> None:  # noqa: N802
        pass


@pytest.fixture
def page_main(monkeypatch):
    from engine.authored.game_host import GameHost

    monkeypatch.setattr(GameHost, "reply_text", GameHost.reply_text)  # put back after a patching game
    bridge = FakeBridge()
    monkeypatch.setitem(sys.modules, "arena_bridge", bridge)
    spec = importlib.util.spec_from_file_location("page_main_for_game_attacks", ROOT / "web" / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module, bridge
    unregister("count")
    for name in ("patched", "games"):
        if name in vars(GameHost):
            delattr(GameHost, name)


def run_in_page(main, bridge, source: str) -> list[dict]:
    """Load the game in the page's controller and run one game of it; the events it posted."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fresh_thread import in_fresh_thread

    loaded = json.loads(in_fresh_thread(lambda: asyncio.run(main.load_game(source))))
    assert "spec" in loaded, loaded
    request = {"type": "run", "run": 1, "game": "count", "seed": 1, "games": 1, "secret": "S",
               "bots": [{"name": "two", "code": "builtin:two"}, {"name": "one", "code": "builtin:one"}]}
    in_fresh_thread(lambda: asyncio.run(main.controller.run(json.dumps(request))))
    return bridge.events


def test_the_page_stops_a_never_ending_game_and_a_huge_score(page_main):
    main, bridge = page_main
    began = time.monotonic()
    events = run_in_page(main, bridge, game(rounds=0, head="MAX_TURNS = 200"))
    assert events[-1]["type"] == "error", events[-1]
    assert events[-1]["message"] == "the game failed: the game did not end within 200 turns (its MAX_TURNS)"
    assert time.monotonic() - began < 120
    bridge.events.clear()
    events = run_in_page(main, bridge, game(head=PATCH_SCORES.format(where="engine.authored.game_host")))
    assert events[-1]["type"] == "error", events[-1]
    message = events[-1]["message"]
    assert "the game failed: the game's scores [an int of 1329 bits, 0] are not numbers" in message, message


def test_a_score_is_a_bounded_number_checked_without_overflow():
    from engine.core.replay_limits import MAX_SCORE, is_score

    good = [0, -3, 2.5, MAX_SCORE, -MAX_SCORE, float(MAX_SCORE)]
    bad = [10**400, -(10**400), MAX_SCORE + 1, float("nan"), float("inf"), 1e300, True, False, "1", None, [1]]
    assert all(is_score(s) for s in good) and not any(is_score(s) for s in bad)


def test_a_page_tournament_goes_on_past_a_game_with_a_huge_score(page_main):
    main, bridge = page_main
    sys.path.insert(0, str(ROOT / "tests"))
    from fresh_thread import in_fresh_thread

    source = game(head=PATCH_SCORES.format(where="engine.authored.game_host"))
    assert "spec" in json.loads(in_fresh_thread(lambda: asyncio.run(main.load_game(source))))
    challenge = {"format": "koth-arena-challenge", "version": 1, "title": "Count", "description": "",
                 "game": "count", "settings": {}, "games": 4, "seed": 1, "secret": "S",
                 "entries": [{"name": "two", "code": "builtin:two"}, {"name": "one", "code": "builtin:one"}]}
    request = {"type": "tournament", "run": 2, "challenge": challenge, "parallel": 1}
    in_fresh_thread(lambda: asyncio.run(main.run_tournament(json.dumps(request))))
    done = bridge.events[-1]
    assert done["type"] == "tournament-done", done
    games = done["tournament"]["games"]
    assert [("error" in g) for g in games] == [True, False, True, False], games
    assert all("the game's scores [an int of 1329 bits, 0]" in g["error"] for g in games[::2])
    assert {r["name"]: r["games"] for r in done["rows"]} == {"two": 2, "one": 2}
    replay = main.tournaments[2].replay(0)
    assert "the game's scores" in replay["error"], replay
