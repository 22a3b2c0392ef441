"""A whole tournament's replays in one file (engine/play/replay_bundle.py): the matches
``tournament --replays DIR`` writes, bundled, read back by ``python -m engine replay`` and
by the page's reader (``verify_any``), every match re-run; a forged one is refused by number."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.play.replay import ReplayError
from engine.play.replay_bundle import tournament_bundle, verify_any

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[dict, list[dict], Path]:
    out = tmp_path_factory.mktemp("bundle")
    cmd = [sys.executable, "-m", "engine", "tournament", "flit", "builtin:greedy", "builtin:random",
           "builtin:greedy", "--games", "2", "--seed", "3", "--secret", "S", "--budget", "100000",
           "--replays", str(out / "replays"), "--json"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    matches = [json.loads(p.read_text()) for p in sorted((out / "replays").glob("match-*.json"))]
    return result, matches, out


def test_a_tournament_bundle_verifies_and_reads_as_one_series_over_the_entries(played):
    result, matches, out = played
    assert len(matches) == 6  # 3 pairs, 2 games each: every entry plays seed 3 more than once
    bundle = tournament_bundle("flit", result["entries"], matches)
    series = verify_any(json.dumps(bundle))
    assert series["bots"] == result["entries"] and series["matches"] == 6
    assert len(series["records"]) == 6
    for game, native in zip(series["summary"]["games"], result["games"], strict=True):
        scores = {series["bots"][e]: s for e, s in enumerate(game["scores"]) if s is not None}
        assert scores == dict(zip(native["seats"], native["scores"], strict=True))
    path = out / "tournament.json"
    path.write_text(json.dumps(bundle))
    cli = subprocess.run([sys.executable, "-m", "engine", "replay", str(path), "--json"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["records"] == 6


def test_a_forged_match_or_a_stranger_is_refused_by_number(played):
    result, matches, _ = played
    forged = json.loads(json.dumps(matches))
    forged[3]["records"][0]["result"]["scores"][0] += 1
    with pytest.raises(ReplayError, match=r"^match 4, record 1: result differs"):
        verify_any(json.dumps(tournament_bundle("flit", result["entries"], forged)))
    with pytest.raises(ReplayError, match=r"match 1: 'greedy' is not an entry"):
        verify_any(json.dumps(tournament_bundle("flit", ["someone", "else"], matches)))
    with pytest.raises(ReplayError, match="same name"):
        verify_any(json.dumps(tournament_bundle("flit", ["a", "a"], matches)))
    with pytest.raises(ReplayError, match="list of matches"):
        verify_any(json.dumps(tournament_bundle("flit", ["a", "b"], [])))
    # a match of another game in a Flit file
    other = {**matches[0], "game": "atomas"}
    with pytest.raises(ReplayError, match="match 1: a match is a series of the file's game"):
        verify_any(json.dumps(tournament_bundle("flit", result["entries"], [other])))


def test_one_match_file_of_replays_dir_reads_as_it_always_did(played):
    _, matches, _ = played
    series = verify_any(json.dumps(matches[0]))
    assert series["kind"] == "series" and len(series["records"]) == 1
