"""The page's Secret field: a given secret repeats a run exactly, an empty one is drawn and
shown with the results, and the page's draws are the engine's own (same seed and secret,
same start as in CPython)."""
from __future__ import annotations

import re

import pytest
from conftest import ROOMY_MS
from playwright.sync_api import expect

from engine.games.atomas.rules import AtomasSettings, AtomasState

pytestmark = pytest.mark.browser

LIMIT_MS = ROOMY_MS  # runs compared turn by turn: no move's time may decide one


def test_secret_field_repeats_a_run_and_shows_a_drawn_secret(arena, results_dir):
    arena.setup(game="atomas", games=1, seed=11, time_limit_ms=LIMIT_MS, max_moves=60)
    arena.button("Remove bot").click()
    arena.label("Bot 1 example").select_option("greedy")
    secret = arena.label("Secret (optional)")
    expect(secret).to_have_value("")
    help_text = arena.page.locator("#secret-help").inner_text()
    assert "drawn for each run" in help_text and "repeat the run" in help_text

    secret.fill("browser secret")
    status = arena.run()
    assert status.endswith("Run with secret browser secret."), status
    expect(arena.results_table()).to_have_accessible_name(re.compile(r"secret browser secret"))
    first = arena.records()
    assert len(first) == 1 and first[0]["secret"] == "browser secret"
    engine_start = AtomasState(AtomasSettings(), 11, "browser secret").items
    assert first[0]["start"]["board"] == engine_start  # the engine's key, in Pyodide too
    assert first[0]["start"]["board"] != AtomasState(AtomasSettings(), 11).items or \
        first[0]["turns"][0]["atom"] != AtomasState(AtomasSettings(), 11).atom

    arena.run()
    again = arena.records()
    assert again[0]["turns"] == first[0]["turns"] and again[0]["result"] == first[0]["result"]
    arena.page.locator("section.settings").screenshot(path=str(results_dir / "secret-field.png"))

    secret.fill("")
    status = arena.run()
    drawn = re.search(r"Run with secret ([0-9a-f]{16})\.$", status)
    assert drawn, status
    assert arena.records()[0]["secret"] == drawn[1]
    expect(arena.results_table()).to_have_accessible_name(re.compile(f"secret {drawn[1]}"))
    assert arena.records()[0]["start"] != first[0]["start"] or \
        arena.records()[0]["turns"] != first[0]["turns"]

    secret.fill("kept")
    arena.page.reload()
    arena.wait_ready()
    expect(arena.label("Secret (optional)")).to_have_value("kept")
