"""rich is an optional extra (`koth-arena[cli]`): without it the CLI prints plain tables and
says once, on stderr, how to install it; with it, no note."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MATCH = ["-m", "engine", "match", "atomas", "builtin:greedy", "builtin:random", "--games", "2", "--seed", "1",
         "--secret", "S", "--max-moves", "30"]


def run_cli(args: list[str], hide_rich: Path | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if hide_rich is not None:  # a `rich` package that cannot be imported shadows the real one
        (hide_rich / "rich").mkdir(exist_ok=True)
        (hide_rich / "rich" / "__init__.py").write_text("raise ImportError('rich is not installed')\n")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(hide_rich)])
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def test_match_without_rich_prints_plain_table_and_how_to_install(tmp_path):
    result = run_cli(MATCH, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "pip install 'koth-arena[cli]'" in result.stderr
    assert result.stderr.count("koth-arena[cli]") == 1  # once, not per table or bar
    lines = result.stdout.splitlines()
    assert any(line.split()[:1] == ["bot"] and "mean score" in line for line in lines)
    assert any(line.startswith("greedy") for line in lines)
    assert any(line.startswith("random") for line in lines)


def test_tournament_without_rich_prints_plain_leaderboard(tmp_path):
    args = ["-m", "engine", "tournament", "atomas", "builtin:greedy", "builtin:random", "--games", "2",
            "--seed", "1", "--secret", "S", "--max-moves", "30"]
    result = run_cli(args, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("pip install 'koth-arena[cli]'") == 1
    assert "entry" in result.stdout and "greedy" in result.stdout


def test_with_rich_no_note():
    result = run_cli(MATCH, None)
    assert result.returncode == 0, result.stderr
    assert "koth-arena[cli]" not in result.stderr
