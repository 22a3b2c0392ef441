"""The documented bots are real: the README's and docs/bots.md's each play a game without a single fault."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BOTS_PAGE = ROOT / "docs" / "bots.md"


def _blocks(game_heading: str) -> list[tuple[str, str]]:
    """(language, code) of the fenced blocks under docs/bots.md's '## <game_heading>'."""
    text = BOTS_PAGE.read_text(encoding="utf-8")
    section = text.split(f"\n## {game_heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(\w+)\n(.*?)```", section, re.S)


def _play(tmp_path: Path, game: str, bot: str) -> dict:
    import json

    done = subprocess.run(
        [sys.executable, "-m", "engine", "match", game, bot, "builtin:random", "--games", "2",
         "--seed", "5", "--secret", "readme", "--json",
         # steps decide a Python bot's move: a loaded machine cannot turn a slow move into a fault
         "--budget", "10000000", "--time-limit", "60000"],
        capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("game", ["Atomas", "Flit"])
def test_readme_python_bots_play_without_faults(tmp_path: Path, game: str) -> None:
    python_blocks = [code for lang, code in _blocks(game) if lang == "python"]
    assert len(python_blocks) == 2, "a function bot and a script bot per game"
    for number, code in enumerate(python_blocks):
        path = tmp_path / f"bot{number}.py"
        path.write_text(code, encoding="utf-8")
        result = _play(tmp_path, game.lower(), str(path))
        assert [g["faults"][0] for g in result["games"]] == [0, 0], code
        assert result["games"][0]["scores"][0] > 0 or game == "Atomas"


@pytest.mark.skipif(shutil.which("sh") is None or shutil.which("awk") is None, reason="needs sh and awk")
@pytest.mark.parametrize("game", ["Atomas", "Flit"])
def test_readme_command_bots_play_without_faults(tmp_path: Path, game: str) -> None:
    shell = [code for lang, code in _blocks(game) if lang == "sh"]
    assert len(shell) == 1
    script = tmp_path / "bot.sh"
    code = shell[0]
    script.write_text(code if code.startswith("#!") else "#!/bin/sh\n" + code, encoding="utf-8")
    script.chmod(0o755)
    result = _play(tmp_path, game.lower(), f"cmd:{script}")
    assert [g["faults"][0] for g in result["games"]] == [0, 0]


@pytest.mark.parametrize("game", ["atomas", "flit"])
def test_rules_page_bots_play_without_faults(tmp_path: Path, game: str) -> None:
    """The bot on each game's page for bot authors (docs/rules/) is real too."""
    page = ROOT / "docs" / "rules" / f"{game}.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    assert blocks, f"{page} shows a bot"
    for number, code in enumerate(blocks):
        path = tmp_path / f"bot{number}.py"
        path.write_text(code, encoding="utf-8")
        result = _play(tmp_path, game, str(path))
        assert [g["faults"][0] for g in result["games"]] == [0, 0], code


def test_the_readme_flit_bot_plays_without_faults(tmp_path: Path) -> None:
    """The landing page's one bot, a Flit function bot, plays and wins against random."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the README shows one bot"
    path = tmp_path / "bot.py"
    path.write_text(blocks[0], encoding="utf-8")
    result = _play(tmp_path, "flit", str(path))
    assert [g["faults"][0] for g in result["games"]] == [0, 0]
    assert sum(g["winner"] == 0 for g in result["games"]) == 2, result["games"]


def test_the_readme_links_resolve() -> None:
    """Every relative link of the README and of docs/*.md names a file that exists."""
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).exists(), f"{page.name} links to {target}, which is missing"
