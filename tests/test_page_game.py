"""An author's game through the page's controller (web/main.py) under CPython: the game host
answers ``askGame`` as the game's Worker would, each bot a bot host, as in test_toy_game.

The page's path is the native one with another channel (``engine.play.page_game.BridgeChannel``):
the module is read and checked, its spec is what the page builds its form from, a run with its
example bots gives the same summary as the command line, and a module with a mistake is one
error with its line.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

from engine.bots.host import BotHost
from engine.cli import cli
from engine.games.registry import unregister

sys.path.insert(0, str(Path(__file__).parent))
from fresh_thread import in_fresh_thread  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LANDGRAB = (ROOT / "examples" / "games" / "landgrab.py").read_text(encoding="utf-8")


class FakeBridge:
    """controller_worker.js for web/main.py: bots and the game each a host in this process."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.hosts: list[BotHost] = []
        self.game = BotHost(lambda: None, lambda reply: None)

    def post(self, text: str) -> None:
        self.events.append(json.loads(text))

    def now(self) -> float:
        return time.perf_counter() * 1000.0

    async def prepare(self, n: int) -> None:
        self.hosts = [BotHost(lambda: None, lambda reply: None) for _ in range(n)]

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
        assert reply["id"] == request_id
        return f"1;1;{json.dumps({'game': reply['game']})}"


@pytest.fixture
def page_main(monkeypatch):
    bridge = FakeBridge()
    monkeypatch.setitem(sys.modules, "arena_bridge", bridge)
    spec = importlib.util.spec_from_file_location("page_main_for_games", ROOT / "web" / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module, bridge
    unregister("landgrab")


def load(main, source: str) -> dict:
    return json.loads(in_fresh_thread(lambda: asyncio.run(main.load_game(source))))


def test_an_authors_game_loads_and_runs_through_the_page_controller(page_main, capsys):
    main, bridge = page_main
    spec = load(main, LANDGRAB)["spec"]
    assert spec["name"] == "landgrab" and spec["renderer"] == "generic" and spec["authored"] is True
    assert [f["key"] for f in spec["fields"]] == ["time_limit_ms", "rounds"]
    assert set(spec["examples"]) == {"greedy", "random", "script"}
    request = {"type": "run", "run": 3, "game": "landgrab", "preset": "small", "settings": {"rounds": 8},
               "seed": 5, "games": 2, "secret": "S",
               "bots": [{"name": "greedy", "code": "builtin:greedy"},
                        {"name": "random", "code": "builtin:random"}]}
    in_fresh_thread(lambda: asyncio.run(main.controller.run(json.dumps(request))))
    assert "error" not in [e["type"] for e in bridge.events], bridge.events
    starts = [e for e in bridge.events if e["type"] == "record_start"]
    assert starts[0]["record"]["start"]["picture"]["width"] == 8
    turns = [t for e in bridge.events if e["type"] == "turns" and e["index"] == 0 for t in e["turns"]]
    assert len(turns) == 8 and turns[0]["seats"] == [0, 1] and "picture" in turns[0]
    done = bridge.events[-1]
    assert done["type"] == "done"
    code = cli.main(["match", "--game-file", str(ROOT / "examples" / "games" / "landgrab.py"),
                     "builtin:greedy", "builtin:random", "--rounds", "8", "--games", "2", "--seed", "5",
                     "--secret", "S", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and {k: out[k] for k in done["series"]} == done["series"]


def test_a_broken_module_is_one_error_with_its_line(page_main):
    main, _ = page_main
    source = LANDGRAB.replace("        return self.land\n", "        return self.land[0]\n")
    result = load(main, source)
    assert result["error"].startswith("scores returned 0, not a list of 2 numbers"), result
    source = LANDGRAB.replace("        self.round += 1\n",
                              "        self.round += 1\n        raise KeyError('x')\n")
    line = next(i for i, t in enumerate(source.splitlines(), 1) if "raise KeyError" in t)
    result = load(main, source)
    assert result == {"error": f"apply_actions raised KeyError: 'x' (line {line})", "line": line}


def test_a_builtin_games_name_is_refused(page_main):
    main, _ = page_main
    result = load(main, (ROOT / "examples" / "games" / "flit.py").read_text())
    assert result == {"error": "a game named 'flit' is built in: give yours another NAME", "line": None}
