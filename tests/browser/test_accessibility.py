"""Screen-reader and keyboard users: axe-core (the accessibility engine behind Lighthouse)
finds no serious or critical problem on the page, idle or after a match."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def _serious_violations(page) -> list[str]:
    assert AXE.is_file(), "axe-core is missing: run `npm ci` (scripts/test does)"
    # Not a script tag (inline, which the page's policy blocks): evaluated through DevTools.
    page.evaluate("(source) => { (0, eval)(source); }", AXE.read_text())
    # One known false positive: axe wants CodeMirror's scroller itself focusable, but the
    # editable content inside it takes the keyboard focus and scrolls with the caret (the
    # keyboard test in test_session.py types into it).
    return page.evaluate("""async () => {
        const result = await axe.run(document, { resultTypes: ["violations"] });
        const editorScroller = (n) => n.target.join(" ").includes(".cm-scroller");
        return result.violations
            .filter((v) => v.impact === "serious" || v.impact === "critical")
            .filter((v) => !(v.id === "scrollable-region-focusable" && v.nodes.every(editorScroller)))
            .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3)
                .map((n) => `${n.target.join(" ")} (${n.any.map((a) => a.message).join("; ")})`)
                .join(", ")}`);
    }""")


def test_no_serious_accessibility_problems(arena):
    assert _serious_violations(arena.page) == []
    arena.setup(game="atomas", games=1, seed=3)
    arena.label("Bot 1 example").select_option("greedy")
    arena.label("Bot 2 example").select_option("random")
    arena.run()
    assert _serious_violations(arena.page) == []


def test_tournament_mode_has_no_serious_accessibility_problems(arena):
    """The mode switch, the tournament's options, its leaderboard, cross table and games."""
    arena.page.get_by_role("radio", name="Tournament").check()
    assert _serious_violations(arena.page) == []
    arena.setup(game="flit", games=2, seed=3, time_limit_ms=1000)
    arena.button("Add entry").click()  # the field: the match's two bots and a third entry
    arena.label("Parallel matches").select_option("2")
    arena.start_run()
    assert arena.wait_finished(300_000).startswith("Finished the tournament")
    arena.page.get_by_text("Games played, each with its replay").click()
    assert _serious_violations(arena.page) == []
