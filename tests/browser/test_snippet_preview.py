"""The export dialog's Preview: the exported snippet, run in a frame sandboxed as the Q&A site's
(an opaque origin, not cross-origin isolated) with this site's own wheel and Pyodide, reached
from the keyboard. The text to post keeps the package index's wheel and the CDN's Pyodide and
pins this site's wheel by default; the preview's tournament is the native one, and a pinned
SHA-256 that is not the wheel's is refused as it would be in the post."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import READY_TIMEOUT_MS, wait_until
from test_snippet_page import BUDGET, CHALLENGE, run_tournament

from engine import __version__
from engine.contest.snippet import (
    pack_challenge,
    parse_snippet,
    pyodide_cdn_url,
    pypi_wheel_url,
    unpack_challenge,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
FIELD = {**CHALLENGE, "description": "Two entries, previewed."}
PIN_LABEL = "Wheel SHA-256 (checked by the snippet: this site's wheel by default)"
BOOT_TIMEOUT_MS = 300_000  # Pyodide booted in the frame, no snapshot: seconds idle, minutes at load


def config_of(markdown: str) -> dict:
    return json.loads(re.search(r"const K = (\{.*?\});\n", parse_snippet(markdown)["js"]).group(1))


def open_preview(arena, sha256: str | None = None):
    """Export the challenge on show and press Preview, from the keyboard; the frame and the
    exported markdown."""
    page = arena.page
    page.get_by_role("radio", name="Tournament").check()
    author = page.get_by_role("button", name="Author's view", exact=True)
    if author.is_visible():  # a challenge link opens the trial view; the export is the author's
        author.click()
    page.get_by_role("button", name="Export as Stack Snippet…", exact=True).focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Export as a Stack Snippet")
    pin = dialog.get_by_label(PIN_LABEL, exact=True)
    wait_until(page, "document.getElementById('snippet-sha256').value.length === 64")
    if sha256 is not None:
        pin.fill(sha256)
    dialog.get_by_label("Question number or URL (optional)", exact=True).press("Enter")  # submits: Export
    wait_until(page, "document.getElementById('snippet-status').textContent.startsWith('Snippet ready')")
    for _ in range(20):  # Tab to Preview, as a keyboard user does
        if page.evaluate("document.activeElement.id") == "snippet-preview":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "snippet-preview"
    page.keyboard.press("Enter")
    note = dialog.locator("#snippet-preview-note")
    assert "the text to post is unchanged" in note.inner_text()
    iframe = dialog.locator("iframe")
    assert iframe.get_attribute("sandbox") == "allow-scripts allow-forms allow-modals"
    assert iframe.get_attribute("title") == "Snippet preview"
    frame = iframe.element_handle().content_frame()
    assert frame is not None
    return frame, dialog.get_by_label("Snippet markdown", exact=True).input_value()


def outside_requests(context) -> list[str]:
    """Requests to the package index or the CDN (the preview must make none): refused, kept."""
    asked: list[str] = []

    def refuse(route):
        asked.append(route.request.url)
        route.abort()

    context.route("https://files.pythonhosted.org/**", refuse)
    context.route("https://cdn.jsdelivr.net/**", refuse)
    return asked


def test_the_preview_runs_the_exported_snippet_with_the_local_wheel_like_the_native_tournament(
        arena_context, open_arena, site_url, site_dir, tmp_path):
    asked = outside_requests(arena_context)
    arena = open_arena(f"{site_url}#c={pack_challenge(json.dumps(FIELD))}")
    wait_until(arena.page, "window.kothArena.challenge.entries().length === 2")
    frame, markdown = open_preview(arena)
    # The text to post: the package index's wheel, the CDN's Pyodide, this site's wheel pinned.
    wheel = json.loads((site_dir / "config.json").read_text())["wheel"]
    config = config_of(markdown)
    assert (config["wheel"], config["sha256"]) == (pypi_wheel_url(__version__), wheel["sha256"])
    assert config["pyodide"].startswith(pyodide_cdn_url("")[:-1])
    wait_until(frame, "window.kothArena && window.kothArena.embedded && window.kothArena.embedded.done",
               BOOT_TIMEOUT_MS)
    assert frame.evaluate("[self.origin, self.crossOriginIsolated]") == ["null", False]
    # The author is told how long the snippet took to be ready (the frame's own report).
    wait_until(arena.page, "document.getElementById('snippet-preview-note').textContent.includes('ready')")
    note = arena.page.locator("#snippet-preview-note").inner_text()
    assert re.search(r"The snippet was ready \d+\.\d s after its frame opened", note), note
    preview, board = run_tournament(frame, 2)
    assert [row[1] for row in board] == [s["name"] for s in preview["standings"]]
    assert asked == []  # nothing from the package index or the CDN: this site's wheel and Pyodide

    # The challenge the snippet carries, played natively: the same tournament JSON.
    carried = json.loads(unpack_challenge(config["challenge"]))
    assert [e["name"] for e in carried["entries"]] == [e["name"] for e in FIELD["entries"]]
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps(carried), encoding="utf-8")
    native = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", str(path), "--json",
                             "--budget", str(BUDGET)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert native.returncode == 0, native.stderr
    assert preview == json.loads(native.stdout)


def test_the_preview_refuses_a_wheel_that_is_not_the_pinned_one(arena, site_dir):
    frame, markdown = open_preview(arena, sha256="0" * 64)
    assert config_of(markdown)["sha256"] == "0" * 64
    wait_until(frame, "(document.getElementById('koth-boot') || {textContent: ''}).textContent"
               ".includes('could not start')", READY_TIMEOUT_MS)
    wheel = json.loads((site_dir / "config.json").read_text())["wheel"]
    text = frame.locator("#koth-boot").inner_text()
    assert text == (f"KotH Arena could not start: the wheel's SHA-256 is {wheel['sha256']}, "
                    f"not the pinned {'0' * 64}")
    assert frame.evaluate("typeof window.kothArena") == "undefined"  # nothing of the wheel ran
