"""The exported Stack Snippet, run as the site runs it: in an iframe sandboxed with scripts
allowed and no same-origin (an opaque origin: no SharedArrayBuffer, no storage to rely on),
on a question page. Everything it loads is routed to local files: Pyodide's CDN
(node_modules/pyodide), the package index's wheel URL (the wheel scripts/build_wheel.py
built) and the Stack Exchange API (the recorded responses in tests/data/se/)."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import re
from pathlib import Path

import pytest

from engine import __version__
from engine.snippet import SnippetOptions, export_snippet, pypi_wheel_url, snippet_document
from engine.stackexchange import parse_question_ref

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "se"
PYODIDE = ROOT / "node_modules" / "pyodide"
QUESTION_PAGE = "https://codegolf.test/questions/262108/flit-king-of-the-hill"
SNIPPET_FRAME = "https://stacksnippets.test/js"
BOOT_TIMEOUT_MS = 120_000
FIRST = "def move(view):\n    m = sorted(view.moves())\n    return m[0] if m else (0, 0, 0, 0)\n"
CHALLENGE = {
    "format": "koth-arena-challenge", "version": 1, "title": "Flit, trial", "description": "Three entries.",
    "game": "flit", "preset": "trial", "settings": {}, "games": 2, "seed": 1, "secret": "S",
    "entries": [{"name": "greedy", "author": "the engine", "code": "builtin:greedy"},
                {"name": "random", "code": "builtin:random"},
                {"name": "first", "author": "Ann", "code": FIRST}],
}
CONTENT_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
                 ".zip": "application/zip", ".json": "application/json"}
CORS = {"Access-Control-Allow-Origin": "*"}


def pyodide_version() -> str:
    return json.loads((PYODIDE / "package.json").read_text())["version"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    spec = importlib.util.spec_from_file_location("koth_build_wheel_browser", ROOT / "scripts" / "build_wheel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_wheel(tmp_path_factory.mktemp("dist"))


def markdown_for(wheel: Path, sha256: str | None = None) -> str:
    options = SnippetOptions(version=__version__, pyodide_version=pyodide_version(),
                             wheel_sha256=sha256 or hashlib.sha256(wheel.read_bytes()).hexdigest(),
                             question=parse_question_ref(QUESTION_PAGE.replace(".test", ".stackexchange.com")))
    return export_snippet(json.dumps(CHALLENGE), options)


class SnippetSite:
    """Routes for a question page holding the snippet, the snippet's frame, the CDN, the
    wheel and the API; records what was asked."""

    def __init__(self, context, markdown: str, wheel: Path):
        self.requests: list[str] = []
        document = snippet_document(markdown)
        wheel_bytes = wheel.read_bytes()
        question = ('<!doctype html><title>Flit KotH</title><h1>Flit KotH</h1>'
                    f'<iframe id="snippet" sandbox="allow-scripts allow-forms allow-modals" src="{SNIPPET_FRAME}"'
                    ' style="width: 1240px; height: 1400px" title="Snippet result"></iframe>')

        def page(route):
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=question)

        def frame(route):
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=document)

        def cdn(route):
            name = route.request.url.split("?")[0].rsplit("/", 1)[-1]
            self.requests.append(f"cdn {name}")
            path = PYODIDE / name
            if not route.request.url.startswith(f"https://cdn.jsdelivr.net/npm/pyodide@{pyodide_version()}/") \
                    or not path.is_file():
                route.fulfill(status=404, headers=CORS, body="not found")
                return
            route.fulfill(status=200, body=path.read_bytes(),
                          headers={**CORS, "Content-Type": CONTENT_TYPES.get(path.suffix, "application/octet-stream")})

        def index(route):
            self.requests.append(f"wheel {route.request.url}")
            if route.request.url != pypi_wheel_url(__version__):
                route.fulfill(status=404, headers=CORS, body="not found")
                return
            route.fulfill(status=200, body=wheel_bytes, headers={**CORS, "Content-Type": "application/octet-stream"})

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


def test_snippet_boots_from_the_wheel_adds_the_answers_and_plays_like_the_page(arena_context, wheel, open_arena,
                                                                              site_url):
    site = SnippetSite(arena_context, markdown_for(wheel), wheel)
    page, frame, errors = open_snippet(arena_context)
    frame.wait_for_function("window.kothArena && window.kothArena.embedded && window.kothArena.embedded.done",
                            timeout=BOOT_TIMEOUT_MS)
    # A sandboxed frame like the site's: an opaque origin, not cross-origin isolated.
    assert frame.evaluate("[self.origin, self.crossOriginIsolated]") == ["null", False]
    assert site.requests[0] == f"wheel {pypi_wheel_url(__version__)}"
    assert {"cdn pyodide.asm.wasm", "cdn python_stdlib.zip", "api page 1", "api page 2"} <= set(site.requests)
    status = frame.locator("#status").inner_text()
    assert "4 answers of the question joined the field" in status
    assert "Rook (native only)" in status and "Talker (the answer has no code block)" in status

    # The trial view of the challenge: the author's entries, then the question's answers.
    trial = frame.get_by_role("list", name="The field").inner_text()
    order = ["greedy", "random", "first", "Edgebot", "Greedy Gus", "Corner Camper", "Passer"]
    positions = [trial.index(name) for name in order]
    assert positions == sorted(positions), trial
    field = frame.evaluate("window.kothArena.challenge.currentChallenge()")
    assert field["title"] == "Flit, trial" and field["secret"] == "S" and field["seed"] == 1
    assert field["entries"][3]["link"] == "https://codegolf.stackexchange.com/a/262110"

    # A match in the snippet (the author's view: seats chosen from the field), and the same
    # match in the page: the same results.
    frame.get_by_role("button", name="Author's view", exact=True).click()
    frame.get_by_label("Secret (optional)", exact=True).fill("S")
    frame.get_by_label("Games", exact=True).fill("2")
    frame.get_by_label("Bot 1 example", exact=True).select_option("greedy")
    frame.get_by_label("Bot 2 example", exact=True).select_option(label="first")
    before = frame.evaluate("window.kothArena.runsStarted")
    frame.get_by_role("button", name="Run", exact=True).click()
    frame.wait_for_function(f"window.kothArena.runsStarted > {before} && window.kothArena.run === null",
                            timeout=BOOT_TIMEOUT_MS)
    assert frame.locator("#status").inner_text().startswith("Finished"), frame.locator("#status").inner_text()
    snippet_rows = results(frame)

    arena = open_arena(site_url)
    arena.setup(game="flit", games=2, seed=1)
    arena.label("Secret (optional)").fill("S")
    arena.label("Bot 1 example").select_option("greedy")
    arena.set_bot(2, FIRST, name="first")
    arena.run()
    assert results(arena.page) == snippet_rows
    assert len(snippet_rows) == 2 and {r[0] for r in snippet_rows} == {"greedy", "first"}
    assert errors == []


def results(where) -> list[list[str]]:
    table = where.get_by_role("table", name=re.compile(r"^Results\b"))
    rows = table.locator("tbody tr")
    return sorted([c.strip() for c in row.locator("th, td").all_inner_texts()] for row in rows.all())


def test_a_wheel_that_is_not_the_pinned_one_is_refused(arena_context, wheel):
    SnippetSite(arena_context, markdown_for(wheel, sha256="0" * 64), wheel)
    page, frame, errors = open_snippet(arena_context)
    frame.wait_for_function("document.getElementById('koth-boot').textContent.includes('could not start')")
    text = frame.locator("#koth-boot").inner_text()
    assert re.search(r"the wheel's SHA-256 is [0-9a-f]{64}, not the pinned 0{64}", text), text
    assert frame.evaluate("typeof window.kothArena") == "undefined"  # nothing of it ran
