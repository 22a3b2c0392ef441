"""A results site published by ``tournament --publish``, served from a sub-path by a plain
static server: an entry page's *watch* link opens the site's own copy of the page, which
plays that game again and shows it in the viewer with the scores the tournament gave."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import _load_script, wait_until
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]


def test_a_published_game_link_plays_that_game_in_the_sites_own_page(chromium, site_dir, tmp_path):
    host = tmp_path / "host"
    done = subprocess.run(
        [sys.executable, "-m", "engine", "tournament", "flit", "builtin:greedy", "builtin:random",
         "--games", "2", "--seed", "3", "--secret", "S", "--budget", "1000000", "--time-limit", "10000",
         "--no-cache", "--json", "--publish", str(host / "contest" / "results"), "--page-dir", str(site_dir)],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    games = json.loads(done.stdout)["games"]
    server, url = _load_script("serve").serve_in_thread(host, port=0, isolation=False)
    url = url.rstrip("/")
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{url}/contest/results/index.html")
        page.get_by_role("link", name="greedy", exact=True).click()
        expect(page.get_by_role("heading", level=1)).to_have_text("greedy")
        row = page.get_by_role("row").filter(has=page.get_by_role("link", name="watch"))
        number = int(row.first.locator("td").first.inner_text())
        row.first.get_by_role("link", name="watch").click()
        wait_until(page, "window.kothArena && window.kothArena.ready", 300_000)
        assert page.url.startswith(f"{url}/contest/results/page/index.html#g=")
        expect(page.get_by_role("status")).to_contain_text("as the link says", timeout=300_000)
        records = page.evaluate("window.kothArena.viewer.tracks.map((t) => t.record)")
        game = games[number - 1]
        assert [r["result"]["scores"] for r in records] == [game["scores"]]
        assert records[0]["seed"] == game["seed"] and records[0]["bots"] == game["seats"]
        assert not errors, errors
    finally:
        context.close()
        server.shutdown()
        server.server_close()
