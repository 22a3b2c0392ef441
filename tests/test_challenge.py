"""Challenge files: read and written back unchanged, every bad field named, and a tournament
from a file plays exactly as the same field given on the command line."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.bots.entries import BUILTIN, PYTHON, Entry
from engine.contest.challenge import (
    MAX_CODE_BYTES,
    MAX_ENTRIES,
    ChallengeError,
    challenge_json,
    load_challenge,
)

ROOT = Path(__file__).resolve().parents[1]

FIRST_MOVE = '''def move(view):
    moves = view.moves()
    return moves[0] if moves else (0, 0, 0, 0)
'''
PASSER = '''def move(view):
    return 0, 0, 0, 0
'''

CHALLENGE = {
    "format": "koth-arena-challenge",
    "version": 1,
    "title": "Flit, trial",
    "description": "Three entries, a long time limit.",
    "game": "flit",
    "preset": "trial",
    "settings": {"time_limit_ms": 5000},
    "games": 2,
    "seed": 1,
    "secret": "S",
    "entries": [
        {"name": "greedy", "author": "the engine", "code": "builtin:greedy"},
        {"name": "first", "author": "Ann", "code": FIRST_MOVE, "language": "python3",
         "link": "https://example.org/first"},
        {"name": "passer", "code": PASSER},
    ],
}


def text(data) -> str:
    return json.dumps(data)


def changed(path: str, value) -> str:
    """The challenge with one field (``a.b`` or ``entries.1.code``) set; ``...`` deletes it."""
    data = copy.deepcopy(CHALLENGE)
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    key = int(last) if isinstance(target, list) else last
    if value is ...:
        del target[key]
    else:
        target[key] = value
    return text(data)


def tournament_cli(*args, timeout=600):
    return subprocess.run([sys.executable, "-m", "engine", "tournament", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


# -- reading and writing ------------------------------------------------------------------------

def test_round_trip_keeps_every_field():
    challenge = load_challenge(text(CHALLENGE))
    written = challenge_json(challenge)
    assert json.loads(written) == CHALLENGE
    assert load_challenge(written) == challenge
    assert challenge_json(load_challenge(written)) == written


def test_optional_fields_may_be_left_out_and_stay_out():
    data = copy.deepcopy(CHALLENGE)
    del data["preset"], data["secret"]
    data["entries"] = [{"name": e["name"], "code": e["code"]} for e in data["entries"]]
    challenge = load_challenge(text(data))
    assert challenge.preset is None and challenge.secret is None
    assert all(e.author is None and e.language is None and e.link is None for e in challenge.entries)
    assert json.loads(challenge_json(challenge)) == data


def test_entries_become_bots_by_value():
    entries = load_challenge(text(CHALLENGE)).tournament_entries()
    assert entries == [Entry("greedy", BUILTIN, "greedy"), Entry("first", PYTHON, FIRST_MOVE),
                       Entry("passer", PYTHON, PASSER)]


@pytest.mark.parametrize("bad,message", [
    ("[1, 2]", "a challenge file is a JSON object, got a list"),
    ("{", "not JSON"),
    (text(CHALLENGE)[:-1] + ', "games": 4}', "the field 'games' appears twice"),
    ("[" * 100 + "]" * 100, "nests at most 4 levels deep, got 100"),
    (changed("titel", "x"), "unknown field 'titel'"),
    (changed("games", ...), "the field 'games' is missing"),
    (changed("format", "koth"), "format must be 'koth-arena-challenge'"),
    (changed("version", 3), "version 3 is not supported"),
    (changed("version", "1"), 'version "1" is not supported'),
    (changed("title", 7), "title must be text, got a number"),
    (changed("title", " "), "title is empty"),
    (changed("description", None), "description must be text, got null"),
    (changed("game", "chess"), "game: unknown game 'chess'"),
    (changed("preset", "huge"), "preset: unknown preset 'huge' for flit"),
    (changed("settings", [5000]), "settings must be an object"),
    (changed("settings.max_moves", 5), "settings: 'max_moves' is not a Flit setting"),
    (changed("settings.time_limit_ms", 0), "settings.time_limit_ms must be 1 to 60000, got 0"),
    (changed("settings.time_limit_ms", "5000"), 'settings.time_limit_ms must be a whole number, got "5000"'),
    (changed("settings.time_limit_ms", True), "settings.time_limit_ms must be a whole number, got true"),
    (changed("games", 0), "games must be 1 to 100,000, got 0"),
    (changed("games", 2.5), "games must be a whole number, got 2.5"),
    (changed("seed", -1), "seed must be 0 to"),
    (changed("secret", ""), "secret: a secret is non-empty text"),
    (changed("entries", {}), "entries must be a list, got an object"),
    (changed("entries.0", "builtin:greedy"), "entries[0] must be an object, got text"),
    (changed("entries.0.nmae", "x"), "entries[0]: unknown field 'nmae'"),
    (changed("entries.1.name", ...), "entries[1].name is missing"),
    (changed("entries.1.name", "greedy"), "entries[1].name: two entries are named 'greedy'"),
    (changed("entries.1.name", "a\nb"), "entries[1].name must be printable text"),
    (changed("entries.1.author", 3), "entries[1].author must be text, got a number"),
    (changed("entries.2.code", "  \n"), "entries[2].code is empty"),
    (changed("entries.2.code", ["x"]), "entries[2].code must be text, got a list"),
    (changed("entries.2.code", [["x"]]), "nests at most 4 levels deep, got 5"),
    (changed("entries.2.code", "#" * (MAX_CODE_BYTES + 1)),
     f"entries[2].code is {MAX_CODE_BYTES + 1:,} bytes, more than the {MAX_CODE_BYTES:,} bytes"),
    (changed("entries.0.code", "builtin:nobody"), "entries[0].code: no built-in bot 'nobody' for flit"),
    (changed("entries.1.language", "ruby"),
     "entries[1].language must be one of python3, python2, got 'ruby'"),
    (changed("entries.1.link", "javascript:alert(1)"), "entries[1].link must be an http(s) URL"),
    (changed("entries", [{"name": f"b{i}", "code": PASSER} for i in range(MAX_ENTRIES + 1)]),
     "entries: at most 1,000 entries, got 1,001"),
])
def test_each_bad_field_is_named(bad, message):
    with pytest.raises(ChallengeError) as caught:
        load_challenge(bad)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_an_oversized_file_is_refused_before_it_is_parsed(monkeypatch):
    import engine.contest.challenge as challenge
    monkeypatch.setattr(challenge, "MAX_CHALLENGE_CHARS", 1000)
    monkeypatch.setattr(challenge.json, "loads", lambda *_: pytest.fail("parsed an oversized file"))
    with pytest.raises(ChallengeError, match="at most 1,000 characters, got 1,001"):
        load_challenge(" " * 1001)


# -- the command line ---------------------------------------------------------------------------

def test_a_challenge_file_plays_as_the_same_field_on_the_command_line(tmp_path):
    path = tmp_path / "flit.json"
    path.write_text(text(CHALLENGE), encoding="utf-8")
    (tmp_path / "first.py").write_text(FIRST_MOVE, encoding="utf-8")
    (tmp_path / "passer.py").write_text(PASSER, encoding="utf-8")
    from_file = tournament_cli("--challenge", path, "--json")
    assert from_file.returncode == 0, from_file.stderr
    given = tournament_cli("flit", "builtin:greedy", tmp_path / "first.py", tmp_path / "passer.py",
                           "--preset", "trial", "--time-limit", 5000, "--games", 2, "--seed", 1,
                           "--secret", "S", "--json")
    assert given.returncode == 0, given.stderr
    assert from_file.stdout == given.stdout
    out = json.loads(from_file.stdout)
    assert out["entries"] == ["greedy", "first", "passer"] and len(out["games"]) == 6


@pytest.mark.parametrize("game", [["flit"], []])
def test_flags_override_the_file_and_bots_join_its_field(tmp_path, game):
    """GAME may be given (before the options, the BOT after them) or left out."""
    path = tmp_path / "flit.json"
    path.write_text("\ufeff" + text(CHALLENGE), encoding="utf-8")
    done = tournament_cli(*game, "--challenge", path, "builtin:random", "--games", 4, "--seed", 7,
                          "--secret", "T", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["entries"] == ["greedy", "first", "passer", "random"]
    assert out["first_seed"] == 7 and out["secret"] == "T"
    assert len(out["games"]) == 6 * 4  # 6 pairs, 4 games each


@pytest.mark.parametrize("content,args,message", [
    (None, [], "challenge file not found"),
    ("{not json", [], "not JSON"),
    (changed("entries.1.language", "ruby"), [], "language must be one of python3, python2"),
    (changed("settings.time_limit_ms", 10**9), [], "settings.time_limit_ms must be 1 to 60000"),
    (text(CHALLENGE), ["atomas"], "is a flit challenge, not atomas"),
    (text(CHALLENGE), ["--time-limit", 0], "must be at least 1"),
])
def test_a_missing_or_broken_file_is_one_line_and_exit_2(tmp_path, content, args, message):
    path = tmp_path / "challenge.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    done = tournament_cli(*args, "--challenge", path)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == ""


def test_without_a_challenge_the_game_is_still_needed():
    done = tournament_cli()
    assert done.returncode == 2
    assert "needs a GAME" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_documented_example_is_a_challenge():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    example = doc.split("## Challenge file\n", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
    challenge = load_challenge(example)
    assert challenge.game == "flit" and [e.name for e in challenge.entries] == ["greedy", "first"]
    assert json.loads(challenge_json(challenge)) == json.loads(example)


def test_an_entry_switched_off_stays_in_the_file_and_plays_no_tournament():
    data = copy.deepcopy(CHALLENGE)
    data["entries"][1]["enabled"] = False
    data["entries"][2]["enabled"] = True
    challenge = load_challenge(text(data))
    assert [e.name for e in challenge.tournament_entries()] == ["greedy", "passer"]
    written = json.loads(challenge_json(challenge))
    assert written["entries"][1]["enabled"] is False
    assert "enabled" not in written["entries"][2]  # the default is not written
    assert challenge_json(load_challenge(challenge_json(challenge))) == challenge_json(challenge)


def test_enabled_is_true_or_false():
    with pytest.raises(ChallengeError, match=r"entries\[1\]\.enabled must be true or false, got 0"):
        load_challenge(changed("entries.1.enabled", 0))
