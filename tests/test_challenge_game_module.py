"""A challenge file that carries an author's game (``game_module``): the tournament loads the
game from the file (sandboxed, as ``--game-file`` does) and plays exactly what ``--game-file``
plus the same file without the module plays; bad modules get one clear line and exit code 2;
files without the field still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import cli
from engine.contest.challenge import (
    MAX_GAME_MODULE_BYTES,
    ChallengeError,
    challenge_json,
    game_module_of,
    load_challenge,
)

GAME = (Path(__file__).parent.parent / "examples" / "games" / "lowest_unique.py").read_text()


def challenge(module: str | None = GAME, game: str = "lowest_unique") -> dict:
    out = {"format": "koth-arena-challenge", "version": 1, "title": "Lowest unique", "description": "",
           "game": game}
    if module is not None:
        out["game_module"] = module
    # The game's own limit (200 ms) would let a loaded machine decide a move, and the two runs
    # compared below differ: far above what a move needs, no run depends on the machine's speed.
    out.update(settings={"time_limit_ms": 60_000}, games=2, seed=5, secret="S", entries=[
        {"name": "one", "code": "builtin:one"},
        {"name": "random", "code": "builtin:random"},
        {"name": "mine", "code": "def move(view):\n    return 2\n"},
    ])
    return out


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_challenge_carrying_its_game_plays_as_with_the_game_file(capsys, tmp_path):
    carried = tmp_path / "carried.challenge.json"
    carried.write_text(json.dumps(challenge()))
    bare = tmp_path / "bare.challenge.json"
    bare.write_text(json.dumps(challenge(module=None)))
    game_file = tmp_path / "lowest_unique.py"
    game_file.write_text(GAME)
    code, with_module, err = run(capsys, "tournament", "--challenge", str(carried), "--json")
    assert code == 0, err
    code, with_file, err = run(capsys, "tournament", "--game-file", str(game_file), "--challenge", str(bare),
                               "--json")
    assert code == 0, err
    assert with_module == with_file
    result = json.loads(with_module)
    assert result["game"] == "lowest_unique"
    assert sorted(s["name"] for s in result["standings"]) == ["mine", "one", "random"]


def test_a_carried_game_that_fails_its_check_is_one_line_and_exit_2(capsys, tmp_path):
    path = tmp_path / "broken.challenge.json"
    path.write_text(json.dumps(challenge(module=GAME.replace("def apply_actions", "def apply_actionz"))))
    code, out, err = run(capsys, "tournament", "--challenge", str(path), "--json")
    assert code == 2 and not out
    assert "game_module" in err and "apply_actions" in err and len(err.strip().splitlines()) == 1


def test_a_carried_game_of_another_name_is_refused(capsys, tmp_path):
    path = tmp_path / "renamed.challenge.json"
    path.write_text(json.dumps(challenge(game="flit")))
    code, out, err = run(capsys, "tournament", "--challenge", str(path), "--json")
    assert code == 2 and not out
    assert "'flit'" in err and "'lowest_unique'" in err


def test_the_field_is_checked_and_written_back():
    text = json.dumps(challenge())
    assert game_module_of(text) == ("lowest_unique", GAME)
    assert game_module_of(json.dumps(challenge(module=None))) is None
    with pytest.raises(ChallengeError, match="game_module must be text"):
        game_module_of(json.dumps(challenge(module=["x"])))
    with pytest.raises(ChallengeError, match="game_module is at most"):
        game_module_of(json.dumps(challenge(module="#" * (MAX_GAME_MODULE_BYTES + 1))))
    with pytest.raises(ChallengeError, match="game_module is 262,146 bytes"):
        game_module_of(json.dumps(challenge(module="é" * (MAX_GAME_MODULE_BYTES // 2 + 1))))
    # Without the game loaded, a file that carries one says so instead of running another.
    with pytest.raises(ChallengeError, match="game:"):
        load_challenge(text)


def test_an_old_file_without_the_field_reads_and_writes_as_before():
    text = json.dumps(challenge(game="flit", module=None) | {"entries": [
        {"name": "a", "code": "builtin:random"}, {"name": "b", "code": "builtin:random"}]})
    loaded = load_challenge(text)
    assert loaded.game_module is None
    assert "game_module" not in json.loads(challenge_json(loaded))


@pytest.mark.parametrize("module", ["lowest_unique.py", "flit.py"])
def test_the_stack_snippet_carries_the_game_compressed_within_the_post_limit(module):
    from engine import __version__
    from engine.contest.snippet import MAX_POST_CHARS, SnippetOptions, export_snippet, unpack_challenge
    from engine.games.registry import register, unregister
    from engine.play.game_proxy import game_sandbox, load_game

    source = (Path(__file__).parent.parent / "examples" / "games" / module).read_text()
    game = load_game(source, game_sandbox(True, 512))  # the project's own example: trusted here
    register(game.spec)
    try:
        text = json.dumps(challenge(module=source, game=game.spec.name) | {"entries": [
            {"name": name, "code": f"builtin:{name}"} for name in list(game.spec.example_sources)[:2]]})
        markdown = export_snippet(text, SnippetOptions(version=__version__, pyodide_version="314.0.7"))
    finally:
        unregister(game.spec.name)
        game.close()
    assert len(markdown) <= MAX_POST_CHARS
    data = json.loads(markdown.split("const K = ", 1)[1].split(";\n", 1)[0])["challenge"]
    assert json.loads(unpack_challenge(data))["game_module"] == source
    assert len(data) < len(source)  # it travels compressed
