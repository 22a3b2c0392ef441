"""How the page's Python starts: every Worker from the memory snapshot the build made
(scripts/snapshot.mjs), checked by its SHA-256; a snapshot that does not match is refused and
Python boots the ordinary way, slower, with nothing else changed for the visitor."""

from __future__ import annotations

import json

from conftest import ROOMY_MS

ATOMAS_FIRST = "def move(view):\n    return (0, False) if view.atom == '-' else 0\n"

STARTUP = "() => performance.getEntriesByName('arena-ready')[0].detail"


def test_every_worker_starts_from_the_build_snapshot(arena, site_dir):
    config = json.loads((site_dir / "config.json").read_text())
    assert config["snapshot"]["integrity"].startswith("sha256-")
    startup = arena.page.evaluate(STARTUP)
    assert startup["fromSnapshot"] is True
    # the two bot Workers a match needs, each given the snapshot (not booted)
    assert len(startup["bots"]) == 2
    for bot in startup["bots"]:
        assert {"init", "snapshot", "python", "host"} <= set(bot["marks"]), bot
    arena.setup(game="atomas", games=2, seed=3, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, ATOMAS_FIRST, name="first")
    arena.set_bot(2, ATOMAS_FIRST, name="second")
    arena.run()
    assert arena.result_row("first")[1] == "2", arena.result_row("first")


def test_a_snapshot_that_does_not_match_its_digest_is_never_run(open_arena, tampered_url):
    arena = open_arena(tampered_url)
    startup = arena.page.evaluate(STARTUP)
    assert startup["fromSnapshot"] is False  # Python booted afresh instead
    assert arena.status.inner_text().startswith("Ready")
    arena.setup(game="atomas", games=1, seed=4, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, ATOMAS_FIRST, name="first")
    arena.set_bot(2, ATOMAS_FIRST, name="second")
    arena.run()
    assert arena.result_row("second")[1] == "1", arena.result_row("second")


FLIT_SCRIPT = "while True:\n    if input() == 'M':\n        print('0 0 0 0')\n"


def test_the_snapshot_serves_a_page_without_isolation_too(open_arena, plain_url):
    """Not cross-origin isolated, a script bot's input() blocks through JSPI: the Python the
    snapshot restores (made under Node at build time) must be able to switch stacks here."""
    arena = open_arena(plain_url)
    assert arena.page.evaluate(STARTUP)["fromSnapshot"] is True
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, FLIT_SCRIPT, name="script")
    arena.label("Bot 2 example").select_option("greedy")
    arena.run()
    script = arena.result_row("script")
    assert script[1] == "1" and script[4] == "0", script  # played its game, no faults
