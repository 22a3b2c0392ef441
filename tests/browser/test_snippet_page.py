"""The exported Stack Snippet, run as the site runs it: in an iframe sandboxed with scripts
allowed and no same-origin (an opaque origin: no SharedArrayBuffer, no storage to rely on),
on a question page. Everything it loads is routed to local files: Pyodide's CDN
(node_modules/pyodide), the package index's wheel URL (the wheel of the session's site build,
the file scripts/build_wheel.py copies out) and the Stack Exchange API (the recorded
responses in tests/data/se/). Its tournament is the native one for the same
field (the page's too: tests/browser/test_same_seed.py)."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import wait_until

from engine import __version__
from engine.contest.snippet import (
    SnippetOptions,
    export_snippet,
    pypi_wheel_url,
    snippet_document,
)
from engine.contest.stackexchange import parse_question_ref

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "se"
PYODIDE = ROOT / "node_modules" / "pyodide"
QUESTION_PAGE = "https://codegolf.test/questions/262108/flit-king-of-the-hill"
SNIPPET_FRAME = "https://stacksnippets.test/js"
BOOT_TIMEOUT_MS = 300_000  # Pyodide from the CDN and the wheel, no snapshot: far longer at load
TOURNAMENT_TIMEOUT_MS = 1_800_000  # 30 games at a load of 40 took 10-20 min; about 1 min idle
BUDGET = 1_000_000  # steps a move may take: no soft time limit, the same result on every machine
FIRST = "def move(view):\n    m = sorted(view.moves())\n    return m[0] if m else (0, 0, 0, 0)\n"
CHALLENGE = {
    "format": "koth-arena-challenge", "version": 1, "title": "Flit, trial", "description": "Two entries.",
    "game": "flit", "preset": "trial", "settings": {"time_limit_ms": 1000}, "games": 2, "seed": 1,
    "secret": "S", "entries": [{"name": "greedy", "author": "the engine", "code": "builtin:greedy"},
                               {"name": "first", "author": "Ann", "code": FIRST}],
}
CONTENT_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                 ".zip": "application/zip", ".json": "application/json"}
CORS = {"Access-Control-Allow-Origin": "*"}


def pyodide_version() -> str:
    return json.loads((PYODIDE / "package.json").read_text())["version"]


@pytest.fixture(scope="module")
def wheel(site_dir) -> Path:
    """The wheel the session's site build wrote (scripts/site_wheel.py): the very file
    scripts/build_wheel.py copies out for the package index, without a second site build."""
    return site_dir / json.loads((site_dir / "config.json").read_text())["wheel"]["file"]


def markdown_for(wheel: Path, sha256: str | None = None) -> str:
    question = parse_question_ref(QUESTION_PAGE.replace(".test", ".stackexchange.com"))
    options = SnippetOptions(version=__version__, pyodide_version=pyodide_version(),
                             wheel_sha256=sha256 or hashlib.sha256(wheel.read_bytes()).hexdigest(),
                             question=question)
    return export_snippet(json.dumps(CHALLENGE), options)


class SnippetSite:
    """Routes for a question page holding the snippet, the snippet's frame, the CDN, the
    wheel and the API; records what was asked."""

    def __init__(self, context, markdown: str, wheel: Path):
        self.requests: list[str] = []
        document = snippet_document(markdown)
        wheel_bytes = wheel.read_bytes()
        question = ('<!doctype html><title>Flit KotH</title><h1>Flit KotH</h1><iframe id="snippet"'
                    f' sandbox="allow-scripts allow-forms allow-modals" src="{SNIPPET_FRAME}"'
                    ' style="width: 1240px; height: 1400px" title="Snippet result"></iframe>')

        def page(route):
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=question)

        def frame(route):
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=document)

        def cdn(route):
            name = route.request.url.split("?")[0].rsplit("/", 1)[-1]
            self.requests.append(f"cdn {name}")
            path = PYODIDE / name
            pinned = f"https://cdn.jsdelivr.net/npm/pyodide@{pyodide_version()}/"
            if not route.request.url.startswith(pinned) or not path.is_file():
                route.fulfill(status=404, headers=CORS, body="not found")
                return
            content_type = CONTENT_TYPES.get(path.suffix, "application/octet-stream")
            route.fulfill(status=200, body=path.read_bytes(), headers={**CORS, "Content-Type": content_type})

        def index(route):
            self.requests.append(f"wheel {route.request.url}")
            if route.request.url != pypi_wheel_url(__version__):
                route.fulfill(status=404, headers=CORS, body="not found")
                return
            route.fulfill(status=200, body=wheel_bytes,
                          headers={**CORS, "Content-Type": "application/octet-stream"})

        def api(route):
            query = route.request.url.split("?", 1)[1]
            page_number = re.search(r"(?:^|&)page=(\d+)", query).group(1)
            self.requests.append(f"api page {page_number}")
            route.fulfill(status=200, headers={**CORS, "Content-Type": "application/json; charset=utf-8"},
                          body=(DATA / f"answers_page{page_number}.json").read_text())

        context.route("https://codegolf.test/**", page)
        context.route("https://stacksnippets.test/**", frame)
        context.route("https://cdn.jsdelivr.net/**", cdn)
        context.route("https://files.pythonhosted.org/**", index)
        context.route("https://api.stackexchange.com/**", api)


def open_snippet(context):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(QUESTION_PAGE)
    frame = page.frame(url=SNIPPET_FRAME)
    assert frame is not None
    return page, frame, errors


def test_snippet_boots_from_the_wheel_adds_the_answers_and_ranks_like_the_native_run(arena_context, wheel,
                                                                                    tmp_path):
    site = SnippetSite(arena_context, markdown_for(wheel), wheel)
    page, frame, errors = open_snippet(arena_context)
    wait_until(frame, "window.kothArena && window.kothArena.embedded && window.kothArena.embedded.done",
               BOOT_TIMEOUT_MS)
    # A sandboxed frame like the site's: an opaque origin, not cross-origin isolated.
    assert frame.evaluate("[self.origin, self.crossOriginIsolated]") == ["null", False]
    assert site.requests[0] == f"wheel {pypi_wheel_url(__version__)}"
    assert {"cdn pyodide.asm.wasm", "cdn python_stdlib.zip", "api page 1", "api page 2"} <= set(site.requests)
    status = frame.locator("#status").inner_text()
    joined = ["Edgebot", "Greedy Gus", "Corner Camper", "Passer"]
    assert f"{len(joined)} answers of the question joined the field" in status, status
    assert "Rook (native only)" in status and "Talker (the answer has no code block)" in status

    # The trial view of the challenge: the author's entries, then the question's answers.
    order = [e["name"] for e in CHALLENGE["entries"]] + joined
    trial = frame.get_by_role("list", name="The field").inner_text()
    positions = [trial.index(name) for name in order]
    assert positions == sorted(positions), trial
    field = frame.evaluate("window.kothArena.challenge.currentChallenge()")
    assert [e["name"] for e in field["entries"]] == order
    assert (field["title"], field["secret"], field["seed"], field["games"]) == ("Flit, trial", "S", 1, 2)
    assert field["entries"][-3]["link"] == "https://codegolf.stackexchange.com/a/262113"

    # The field's tournament in the snippet (it opens in tournament mode: one Run away) and,
    # meanwhile, natively (the page plays the native games: tests/browser/test_same_seed.py).
    with ThreadPoolExecutor(max_workers=1) as pool:
        native = pool.submit(native_result, field, tmp_path)
        snippet_result, snippet_board = run_tournament(frame, len(order))
    assert [row[1] for row in snippet_board] == [s["name"] for s in snippet_result["standings"]]
    assert sorted(snippet_result["entries"]) == sorted(order)
    page.screenshot(path=str(ROOT / "test-results" / "snippet-leaderboard.png"), full_page=True)

    assert snippet_result == native.result()
    assert errors == []


def native_result(challenge: dict, folder: Path) -> dict:
    """The challenge's tournament JSON from `python -m engine tournament`, under the budget."""
    path = folder / "challenge.json"
    path.write_text(json.dumps(challenge), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "engine", "tournament", "--challenge", str(path), "--json",
                           "--budget", str(BUDGET)], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def run_tournament(where, entries: int) -> tuple[dict, list[list[str]]]:
    """Run the field's tournament with a step budget (the same result on any machine): the
    engine's result and the leaderboard the visitor reads."""
    where.get_by_label("Step budget", exact=True).fill(str(BUDGET))
    # One match at once: this test compares the snippet with the page; whether 2 at once
    # always repeats the same games is issue 18's open question (test_tournament_page.py).
    where.get_by_label("Parallel matches", exact=True).select_option("1")
    before = where.evaluate("window.kothArena.runsStarted")
    where.get_by_role("button", name="Run", exact=True).click()
    wait_until(where, f"window.kothArena.runsStarted > {before} && window.kothArena.run === null",
               TOURNAMENT_TIMEOUT_MS)
    games = entries * (entries - 1)  # every pair, two games (one seed, both seatings)
    status = where.locator("#status").inner_text()
    assert status.startswith(f"Finished the tournament: {games} games"), status
    result = where.evaluate("window.kothArena.tournament.result")
    rows = where.get_by_role("table", name=re.compile(r"^Leaderboard")).get_by_role("row")
    board = [[c.strip() for c in row.locator("th, td").all_inner_texts()] for row in rows.all()[1:]]
    return result, board


def test_a_wheel_that_is_not_the_pinned_one_is_refused(arena_context, wheel):
    SnippetSite(arena_context, markdown_for(wheel, sha256="0" * 64), wheel)
    page, frame, errors = open_snippet(arena_context)
    wait_until(frame, "document.getElementById('koth-boot').textContent.includes('could not start')",
               BOOT_TIMEOUT_MS)
    text = frame.locator("#koth-boot").inner_text()
    assert re.search(r"the wheel's SHA-256 is [0-9a-f]{64}, not the pinned 0{64}", text), text
    assert frame.evaluate("typeof window.kothArena") == "undefined"  # nothing of it ran


def test_a_wheel_that_is_not_published_gets_a_message(arena_context, wheel):
    missing = "https://files.pythonhosted.org/packages/py3/k/koth-arena/koth_arena-9.9.9-py3-none-any.whl"
    options = SnippetOptions(version=__version__, pyodide_version=pyodide_version(), wheel_url=missing)
    SnippetSite(arena_context, export_snippet(json.dumps(CHALLENGE), options), wheel)
    page, frame, errors = open_snippet(arena_context)
    wait_until(frame, "document.getElementById('koth-boot').textContent.includes('could not start')",
               BOOT_TIMEOUT_MS)
    text = frame.locator("#koth-boot").inner_text()
    assert text == f"KotH Arena could not start: {missing} answered HTTP 404"
