"""The viewer's "Copy the input at this turn" and "Copy the command" (issue 22, item 2).

A Flit match under a step budget in the page, scrubbed to turn 3: the input copied is what
the native `replay --turn 3 --raw` prints for the downloaded game, and the command copied,
run natively with the page's bot saved under the name it gives, re-feeds that bot and finds
every answer as the page recorded it.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOMY_MS
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TURN = 3


def _clipboard(page) -> str:
    return page.evaluate("navigator.clipboard.readText()")


def test_copy_the_input_and_the_command_of_a_turn(arena, tmp_path):
    page = arena.page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.label("Step budget").fill("1000000")
    arena.run()
    arena.button("Start").click()
    for _ in range(TURN):
        arena.button("Step forward").click()
    expect(arena.label("Turn")).to_have_value(str(TURN))

    with page.expect_download() as info:
        arena.button("Download this game").click()
    game = tmp_path / info.value.suggested_filename
    info.value.save_as(game)

    arena.button("Copy the input at this turn").click()
    expect(arena.status).to_contain_text(f"Copied the input at turn {TURN} of seat 0", timeout=60_000)
    native = subprocess.run([sys.executable, "-m", "engine", "replay", str(game), "--turn", str(TURN),
                             "--raw"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert native.returncode == 0, native.stderr
    assert _clipboard(page) == native.stdout and native.stdout.endswith("M\n")

    arena.button("Copy the command").click()
    expect(arena.status).to_contain_text("Copied the command")
    command = _clipboard(page).split()
    assert command[:4] == ["python", "-m", "engine", "replay"] and command[4] == game.name
    assert command[5:9] == ["--turn", str(TURN), "--seat", "0"] and command[9] == "--bot"
    (tmp_path / command[10]).write_text(page.evaluate("window.kothArena.getCode(0)"), encoding="utf-8")
    done = subprocess.run([sys.executable, *command[1:]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"up to turn {TURN} agree with the record" in done.stdout

    arena.button("Start").click()
    arena.button("Copy the input at this turn").click()
    expect(page.locator("#status-error")).to_contain_text("Scrub to a turn first")
