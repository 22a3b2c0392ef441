"""The replay's debug part (schema version 3): each bot's output and time per turn, bounded,
checked as untrusted when read, and never part of what runs are compared by."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots.answer import GAME_OUTPUT_CHARS
from engine.bots.native import InProcessBot
from engine.games.registry import get_game
from engine.play.debug_part import FILE_CHARS, TURN_CHARS, rules_document, rules_part, within_file_budget
from engine.play.match import run_series
from engine.play.replay import ReplayError, verify_document

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"

# Prints on its 3rd move only (a known turn), to stdout and stderr.
PRINTS_ON_THIRD = '''
import sys
count = 0

def move(view):
    global count
    count += 1
    if count == 3:
        print("third move: I see", len(view.moves()), "moves")
        print("<b>not markup</b>", file=sys.stderr)
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
'''
FIRST = "def move(view):\n    moves = view.moves()\n    return moves[0] if moves else (0, 0, 0, 0)\n"
LOUD = ("def move(view):\n    print('x' * 30_000)\n    moves = view.moves()\n"
        "    return moves[0] if moves else (0, 0, 0, 0)\n")


def flit(bots: list[tuple[str, str]], seed: int = 1, max_turns: int = 40, events: list | None = None) -> dict:
    spec = get_game("flit")
    settings = spec.settings(max_turns=max_turns, players=len(bots), time_limit_ms=60_000)
    return run_series(spec, settings, [InProcessBot(n, s) for n, s in bots], seed, 1,
                      on_event=events.append if events is not None else None, secret="s").document


def test_a_record_keeps_each_reply_time_and_what_a_bot_printed_at_its_turn():
    events: list = []
    document = flit([("printer", PRINTS_ON_THIRD), ("first", FIRST)], events=events)
    (record,) = document["records"]
    assert record["schema_version"] == 3
    debug = record["debug"]
    assert len(debug["time_us"]) == len(record["turns"]) == 40
    assert all(type(t) is int and t >= 0 for t in debug["time_us"])
    seat = record["bot_index"].index(0)
    (entry,) = debug["output"]
    turn = entry[0]
    assert entry[1] == seat and entry[2].startswith("third move: I see ")
    assert entry[3] == "<b>not markup</b>\n"
    assert record["turns"][turn - 1]["seats"] == [seat]
    assert sum(1 for t in record["turns"][:turn] if t["seats"] == [seat]) == 3  # its 3rd move
    # the console's events name the same turn, so a console line can take the viewer there
    printed = [e for e in events if e.stream in ("stdout", "stderr")]
    assert {(e.stream, e.turn, e.game) for e in printed} == {("stdout", turn, 0), ("stderr", turn, 0)}
    verified = verify_document(json.dumps(document))
    assert verified["records"][0]["debug"] == debug  # read back as written


def test_a_simultaneous_game_times_every_seat_asked_in_turn_order():
    spec = get_game("abotcalypse")
    settings = spec.settings(players=3, max_turns=30, time_limit_ms=60_000)
    bots = [InProcessBot(f"r{i}", spec.example_source("random")) for i in range(3)]
    document = run_series(spec, settings, bots, 2, 1, secret="s").document
    (record,) = document["records"]
    assert len(record["debug"]["time_us"]) == sum(len(t["seats"]) for t in record["turns"])
    frozen = [i for i, t in enumerate(t for turn in record["turns"] for t in turn["faults"])
              if t and t["kind"] == "frozen"]
    assert all(record["debug"]["time_us"][i] is None for i in frozen)  # not asked: no time
    assert verify_document(json.dumps(document))["records"][0]["debug"] == record["debug"]


def test_output_is_cut_per_turn_and_per_game_and_the_cut_is_said():
    document = flit([("loud", LOUD), ("first", FIRST)], max_turns=60)
    (record,) = document["records"]
    debug = record["debug"]
    seat = record["bot_index"].index(0)
    first = debug["output"][0][2]
    assert len(first) < 30_000 and "characters cut" in first  # each stream of a reply
    assert len(first) <= TURN_CHARS + 100
    kept = sum(len(out) + len(err) for _, s, out, err in debug["output"] if s == seat)
    assert kept == GAME_OUTPUT_CHARS  # 30 moves of ~24,000 characters: the game's budget
    assert debug["cut"][seat] > 0 and debug["cut"][1 - seat] == 0
    verify_document(json.dumps(document))


def test_a_file_keeps_at_most_its_budget_of_output_and_says_what_each_record_lost():
    document = flit([("loud", LOUD), ("first", FIRST)], max_turns=20)
    record = document["records"][0]
    size = sum(len(o) + len(e) for _, _, o, e in record["debug"]["output"])
    (trimmed,), left = within_file_budget([record], size // 2)
    assert left == 0 and record["debug"]["output"] != trimmed["debug"]["output"]  # a copy is cut
    kept = sum(len(o) + len(e) for _, _, o, e in trimmed["debug"]["output"])
    assert kept <= size // 2 and sum(trimmed["debug"]["cut"]) == size - kept
    assert FILE_CHARS * 8 == 64 * 1024 * 1024  # an eighth of what the reader opens
    verify_document(json.dumps({**document, "records": [trimmed]}))


def forged(change) -> str:
    document = flit([("printer", PRINTS_ON_THIRD), ("first", FIRST)], max_turns=10)
    document = copy.deepcopy(document)
    change(document["records"][0])
    return json.dumps(document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r["debug"]["time_us"].pop(), "time_us is not a list of 10"),
    (lambda r: r["debug"]["time_us"].__setitem__(0, -5), "not microseconds"),
    (lambda r: r["debug"]["time_us"].__setitem__(0, 1.5), "not microseconds"),
    (lambda r: r["debug"]["time_us"].__setitem__(0, True), "not microseconds"),
    (lambda r: r["debug"].__setitem__("script", "<script>"), "unknown field"),
    (lambda r: r["debug"].__setitem__("output", [[1, 0, "x" * (TURN_CHARS + 99), ""]]), "at most"),
    (lambda r: r["debug"].__setitem__("output", [[1, 0, "x" * 24_000, "y" * 24_000]] * 12),
     "more than 500,000"),
    (lambda r: r["debug"].__setitem__("output", [[1, 7, "x", ""]]), "seat 7"),
    (lambda r: r["debug"].__setitem__("output", [[11, 0, "x", ""]]), "turn 11"),
    (lambda r: r["debug"].__setitem__("output", [[1, 0, {"a": 1}, ""]]), "output is text"),
    (lambda r: r["debug"].__setitem__("output", "x"), "debug.output"),
    (lambda r: r.__setitem__("debug", []), "not an object"),
    (lambda r: r.__setitem__("schema_version", 2), "debug part is a field of schema_version 3"),
])
def test_the_reader_checks_the_debug_part_as_untrusted(change, message):
    with pytest.raises(ReplayError, match=message):
        verify_document(forged(change))


def test_version_2_and_1_files_still_open():
    for name in ("atomas_seed1_lookahead.json", "flit_seed1_stride_vs_hunter_100.json"):
        for folder in (GOLDEN, GOLDEN / "v1"):
            text = (folder / name).read_text(encoding="utf-8")
            assert json.loads(text)["schema_version"] in (1, 2)
            (record,) = verify_document(text)["records"]
            assert "debug" not in record


def test_runs_compare_equal_by_their_rules_part_whatever_the_debug_part_says():
    one = flit([("printer", PRINTS_ON_THIRD), ("first", FIRST)])
    two = flit([("printer", PRINTS_ON_THIRD), ("first", FIRST)])
    two["records"][0]["debug"]["time_us"] = [t + 1 for t in two["records"][0]["debug"]["time_us"]]
    assert one != two and rules_document(one) == rules_document(two)
    assert rules_part(one["records"][0]) == rules_part(two["records"][0])
    assert "debug" not in json.dumps(one["summary"]) and "time_us" not in json.dumps(one["summary"])


def engine_cli(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_cli_timing_is_printed_outside_the_json(tmp_path):
    bot = tmp_path / "printer.py"
    bot.write_text(PRINTS_ON_THIRD)
    common = ["match", "flit", bot, "builtin:greedy", "--preset", "trial", "--seed", 2, "--secret", "s",
              "--budget", 10_000_000]  # steps, not time: the same game at any load
    done = engine_cli(*common, "--json", "--timing")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)  # the JSON alone on stdout
    assert "median" not in done.stdout and "time_us" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if "median" in line]
    assert [line.split()[0] for line in lines] == ["printer", "greedy"]
    shape = r"median [0-9.]+ ms, worst [0-9.]+ ms over 512 moves$"
    assert all(re.search(shape, line) for line in lines), lines
    plain = engine_cli(*common, "--timing")
    assert plain.returncode == 0 and "median" in plain.stdout
    assert out == json.loads(engine_cli(*common, "--json").stdout)


def test_tournament_json_holds_no_debug_part(tmp_path):
    done = engine_cli("tournament", "flit", "builtin:greedy", "builtin:random", "--preset", "trial",
                      "--games", 2, "--seed", 1, "--secret", "s", "--json",
                      "--replays", tmp_path / "replays")
    assert done.returncode == 0, done.stderr
    assert "time_us" not in done.stdout and "debug" not in done.stdout
    replays = sorted((tmp_path / "replays").glob("*.json"))
    assert replays and all("time_us" in json.loads(p.read_text())["records"][0]["debug"] for p in replays)


def test_a_game_link_written_natively_may_carry_the_turn_to_open_at():
    from types import SimpleNamespace

    from engine.bots.entries import entry_from_form
    from engine.contest.game_link import game_link_fragment, read_game_link

    spec = get_game("flit")
    tournament = SimpleNamespace(spec=spec, overrides={}, preset="trial", secret="s", budget=None,
                                 entries=[entry_from_form("builtin:greedy", "flit"),
                                          entry_from_form("builtin:random", "flit")])
    result = SimpleNamespace(error=None, seed=3, table=(1, 0), scores=(4, 9))
    assert read_game_link(game_link_fragment(tournament, result, "game 1", 37))["turn"] == 37
    for turn in (None, 0, True):  # no turn, or not one: the link opens at the end, as before
        assert "turn" not in read_game_link(game_link_fragment(tournament, result, "game 1", turn))
