"""The leaderboard as Markdown (engine/contest/leaderboard_markdown.py): its table, its escaping of
hostile names, and ``python -m engine tournament --markdown FILE``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from engine import __version__
from engine.bots.entries import Entry
from engine.contest.challenge import Challenge, ChallengeEntry
from engine.contest.leaderboard_markdown import (
    EntryCredit,
    cell_text,
    challenge_credits,
    link_target,
    tournament_markdown,
)
from engine.contest.tournament import MatchResult, Tournament
from engine.games.registry import get_game

ROOT = Path(__file__).resolve().parents[1]
CELL_BREAK = re.compile(r"(?<!\\)\|")  # a pipe no backslash escapes: a cell ends there
HOSTILE = "a|b`c\n<script>alert(1)</script>[x](javascript:alert(1)) **b** https://e.vil"


def _result(index: int, seed: int, table: tuple, scores: list[int], faults=None) -> MatchResult:
    best = max(scores)
    winner = scores.index(best) if scores.count(best) == 1 else None
    return MatchResult(index, seed, table, tuple(scores), tuple(faults or [0] * len(scores)), winner)


def _pairs(names: list[str], budget: int | None = 5000) -> Tournament:
    t = Tournament(get_game("flit"), [Entry(n, "builtin", "greedy") for n in names], 2, 7, "S", 2,
                   budget=budget)
    t.record(_result(0, 7, (0, 1), [9, 1], [0, 2]))
    t.record(_result(1, 7, (1, 0), [1, 9]))
    return t


def _rows(text: str) -> list[list[str]]:
    return [CELL_BREAK.split(line)[1:-1] for line in text.splitlines() if line.startswith("|")]


def test_the_table_has_rank_entry_author_score_games_faults_and_the_facts_below():
    t = _pairs(["winner", "loser"])
    credits = [EntryCredit("Alice", "https://codegolf.stackexchange.com/a/12345"), None]
    text = tournament_markdown(t, credits, date="2026-11-27", version="9.9", title="Flit KotH",
                               public_secret="S")
    rows = _rows(text)
    assert [c.strip() for c in rows[0]] == ["#", "Entry", "Author", "Win rate (95% interval), W/D/L",
                                            "Games", "Faults"]
    assert [c.strip() for c in rows[2]] == [
        "1", "[winner](https://codegolf.stackexchange.com/a/12345)", "Alice",
        "100% (34%–100%), 2/0/0 W/D/L", "2", "0"]
    assert [c.strip() for c in rows[3]][:2] == ["2", "loser"] and rows[3][5].strip() == "2"
    assert "2 games from seed 7" in text and "secret `S` (from the challenge)" in text
    assert "step budget 5,000 a move" in text and "Played 2026-11-27 with KotH Arena 9.9." in text
    assert text.startswith("**Flit KotH**\n")


def test_the_secret_is_never_written_unless_the_challenge_made_it_public():
    text = tournament_markdown(_pairs(["a", "b"], budget=None), date="d", version="v")
    assert "`S`" not in text and "a secret was drawn" in text
    assert "wall-clock time (results can vary by machine)" in text


def test_mean_score_games_show_the_mean_and_its_interval():
    t = Tournament(get_game("atomas"), [Entry(n, "builtin", "greedy") for n in "ab"], 2, 1, "S", 1)
    for i, (entry, seed, score) in enumerate([(0, 1, 100), (1, 1, 40), (0, 2, 120), (1, 2, 60)]):
        t.record(_result(i, seed, (entry,), [score]))
    rows = _rows(tournament_markdown(t, date="d", version="v"))
    assert rows[0][3].strip() == "Mean score ± 95% interval"
    assert rows[2][3].strip().startswith("110.0 ± ") and rows[3][1].strip() == "b"


def test_hostile_names_authors_and_links_stay_inert_text_in_their_cell():
    t = _pairs([HOSTILE[:90], "b"])
    credits = [EntryCredit(HOSTILE, "https://x.example/a)|`<b>](y) "),
               EntryCredit(HOSTILE, "javascript:alert(1)")]
    text = tournament_markdown(t, credits, date="<i>d|", version="v`", public_secret="se`c|r<e>t")
    for row in _rows(text):
        assert len(row) == 6, row  # no name opened or closed a cell
    assert "<" not in text.replace("`` se`c|r<e>t ``", "")
    assert "](javascript" not in text and "\\]\\(javascript" in text
    assert len(re.findall(r"\]\(", text)) == 0  # neither link survives: one had a space, one a scheme
    assert "``se`c|r&lt;e&gt;t``" not in text and "`` se`c|r<e>t ``" in text  # a code span's text is literal
    assert all(line.count("`") == line.count("\\`") for line in text.splitlines() if line.startswith("|"))
    assert "https\\://e.vil" in text  # no autolink


def test_cell_text_and_link_target():
    assert cell_text("a\r\nb\u202e\u0000c  d") == "a bc d"
    assert cell_text("x" * 500).endswith("…") and len(cell_text("x" * 500)) == 101
    assert link_target("https://codegolf.stackexchange.com/a/1") == "https://codegolf.stackexchange.com/a/1"
    assert link_target("https://x/a_(b)|c") == "https://x/a%5F%28b%29%7Cc"
    assert link_target("data:text/html,x") is None and link_target("https://a b") is None
    assert link_target(None) is None and link_target("https://x/\u202e") is None


def test_the_cli_writes_the_same_markdown_the_function_gives(tmp_path):
    challenge = tmp_path / "c.json"
    challenge.write_text(json.dumps({
        "format": "koth-arena-challenge", "version": 1, "title": "T | <b>", "description": "",
        "game": "flit", "settings": {"time_limit_ms": 60_000}, "games": 2, "seed": 4, "secret": "S",
        "entries": [{"name": "g`1", "code": "builtin:greedy", "author": "Al|ice",
                     "link": "https://codegolf.stackexchange.com/a/9"},
                    {"name": "r", "code": "builtin:random"}]}))
    out = tmp_path / "board.md"
    cmd = [sys.executable, "-m", "engine", "tournament", "--challenge", str(challenge), "--budget",
           "100000", "--markdown", str(out), "--json"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    standings = json.loads(done.stdout)["standings"]
    rows = _rows(text)
    assert [r[1].strip() for r in rows[2:]] == [
        "[g\\`1](https://codegolf.stackexchange.com/a/9)" if s["name"] == "g`1" else "r" for s in standings]
    assert "Al\\|ice" in text and "secret `S` (from the challenge)" in text
    assert f"with KotH Arena {__version__}." in text and datetime.now(UTC).date().isoformat() in text
    stdout = subprocess.run([*cmd[:-3], "--markdown", "-"], cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    assert stdout.returncode == 0 and stdout.stdout == text  # the same run, the same text
    refused = subprocess.run([*cmd[:-3], "--markdown", str(tmp_path / "no" / "dir.md")], cwd=ROOT,
                             capture_output=True, text=True, timeout=600)
    assert refused.returncode == 2 and "cannot write the Markdown leaderboard" in refused.stderr


def test_a_command_entry_before_a_python_entry_does_not_shift_the_credits():
    """The page plays a challenge's Python entries only: each keeps its own author and link."""
    entries = (ChallengeEntry("in C", "int main(){}", "Carol", "C", "https://x.example/a/1"),
               ChallengeEntry("first", "builtin:greedy", "Alice", None, "https://x.example/a/2"),
               ChallengeEntry("off", "builtin:random", "Dan", None, None, enabled=False),
               ChallengeEntry("second", "builtin:random", "Bob", None, "https://x.example/a/3"))
    challenge = Challenge("t", "", "flit", {}, 2, 7, entries)
    playing = [e.name for e in challenge.tournament_entries()]
    credits = challenge_credits(challenge)
    assert playing == ["first", "second"]
    assert [(c.author, c.link) for c in credits] == [("Alice", "https://x.example/a/2"),
                                                      ("Bob", "https://x.example/a/3")]
