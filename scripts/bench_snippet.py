"""The Stack Snippet's cold start against its transfer floor (issue 20 item 7), beside the page's
cold start and a bare Pyodide's in the same browser and run.

    python3 scripts/bench_web --snippet [--browser chromium|firefox|webkit|all] [--cold 3] [--mbps 50]

For each engine, each visit in a new browser with a fresh profile (no HTTP cache, no compiled
code, no stored snapshot), the three visits of a round one after the other:
- **bare Pyodide**: a plain page that imports ``pyodide.mjs`` and runs one line
  (``bench_engines.BARE_JS``);
- **the page**: the site cross-origin isolated, as ``scripts/serve.py`` serves it, to its
  "arena-ready" mark (engine and both bots ready);
- **the snippet**: the exported snippet of a two-entry Flit challenge, run as the page's
  Preview runs it (``web/snippet_preview.html`` in an iframe sandboxed as the Q&A site's:
  an opaque origin, not isolated), its Pyodide and wheel from this server instead of jsDelivr
  and the package index, to the "arena-ready" mark in the frame (on the frame's clock: from
  the frame's navigation).
Each visit's bytes are the response bodies the server sent from navigation to ready
(compressed as the build's ``.br``/``.gz`` siblings are, as a CDN sends them). The snippet's
transfer floor is its bytes at ``--mbps`` Mbit/s; the goal is the snippet ready within twice
the page's cold start plus that floor. Medians of ``--cold`` rounds. Not a test.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import statistics
import sys
import tempfile
from importlib.machinery import SourceFileLoader
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("chromium", "firefox", "webkit")  # as scripts/bench_engines.py
SANDBOX = "allow-scripts allow-forms allow-modals"  # the Q&A site's snippet frame
FRAME = "snippet_preview.html"
TIMEOUT_S = 600
CHALLENGE = {
    "format": "koth-arena-challenge", "version": 1, "title": "Flit, trial", "description": "Two examples.",
    "game": "flit", "preset": "trial", "settings": {}, "games": 2, "seed": 1, "secret": "bench",
    "entries": [{"name": "greedy", "author": "the engine", "code": "builtin:greedy"},
                {"name": "random", "author": "the engine", "code": "builtin:random"}],
}
# The bench's question page: it frames the preview document as the Q&A site frames a snippet
# and hands it the markdown and this site's wheel and Pyodide, as the page's Preview does.
PARENT_HTML = """<!doctype html>
<meta charset="utf-8"><title>Snippet bench</title><link rel="icon" href="data:,">
<p id="note">The snippet below runs in a sandboxed frame.</p>
<script type="module" src="snippet_bench.js"></script>
"""
PARENT_JS = """const config = await (await fetch("snippet_bench.json")).json();
const frame = document.createElement("iframe");
frame.setAttribute("sandbox", "SANDBOX");
frame.style.width = "1200px";
frame.style.height = "900px";
frame.src = "FRAME";
window.addEventListener("message", (event) => {
  const data = event.data;
  if (event.source !== frame.contentWindow || !data) return;
  if (data.type === "snippet-preview-started") window.snippetReadyMs = data.ms;
  if (data.type !== "snippet-preview-ready") return;
  frame.contentWindow.postMessage({ type: "snippet-preview", markdown: config.markdown,
    wheel: new URL(config.wheel, location.href).href,
    pyodide: new URL("./pyodide/", location.href).href }, "*");
});
document.body.append(frame);
""".replace("SANDBOX", SANDBOX).replace("FRAME", FRAME)


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path, loader=SourceFileLoader(name, str(path)))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


engines = _load(ROOT / "scripts" / "bench_engines.py", "koth_snippet_bench_engines")
wait_until = engines.wait_until
transfer = _load(ROOT / "scripts" / "bench_transfer", "koth_snippet_bench_transfer")


def snippet_markdown(site: Path) -> tuple[str, str, int]:
    """The challenge's exported snippet, pinned to the site's wheel: (markdown, wheel file, size)."""
    sys.path.insert(0, str(ROOT))
    from engine import __version__
    from engine.contest.snippet import SnippetOptions, export_snippet

    config = json.loads((site / "config.json").read_text())
    wheel = site / config["wheel"]["file"]
    pyodide = json.loads((ROOT / "node_modules" / "pyodide" / "package.json").read_text())["version"]
    options = SnippetOptions(version=__version__, pyodide_version=pyodide,
                             wheel_sha256=hashlib.sha256(wheel.read_bytes()).hexdigest())
    markdown = export_snippet(json.dumps(CHALLENGE), options)
    return markdown, wheel.name, len(markdown)


def bench_site(site: Path, folder: Path, markdown: str, wheel: str) -> Path:
    """The site (each entry a link) with the bench's question page beside it: the preview's
    frame may be framed by its own origin only."""
    for entry in site.iterdir():
        (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    (folder / "snippet_bench.html").write_text(PARENT_HTML, encoding="utf-8")
    (folder / "snippet_bench.js").write_text(PARENT_JS, encoding="utf-8")
    (folder / "snippet_bench.json").write_text(json.dumps({"markdown": markdown, "wheel": wheel}),
                                               encoding="utf-8")
    return folder


def snippet_ready(page) -> float:
    """Milliseconds from the frame's navigation to its 'arena-ready' mark, as the preview's
    frame reports it to the question page (web/src/snippet_frame.js): no driver reaches into
    the sandboxed frame (Playwright sometimes lists no such frame in Chromium)."""
    wait_until(page, "typeof window.snippetReadyMs === 'number'", TIMEOUT_S * 1000)
    return float(page.evaluate("window.snippetReadyMs"))


def visit(engine: str, playwright, url: str, kind: str) -> tuple[float, int]:
    """One cold visit in a new browser: (ms to ready, bytes the server sent until then)."""
    with engines.launch(engine, playwright) as browser:
        transfer.LINK.reset(0)
        page = browser.open(url)
        if kind == "bare":
            ms = engines.visit(page, engines.BARE_READY, engines.BARE_MS)
        elif kind == "page":
            ms = engines.visit(page, engines.PAGE_READY, engines.PAGE_MS)
        else:
            ms = snippet_ready(page)
        return ms, transfer.LINK.sent


def run(site: Path, engine_names: list[str], cold: int, mbps: float) -> int:
    serve = _load(ROOT / "scripts" / "serve.py", "koth_snippet_serve")
    serve.ArenaHandler.copyfile = transfer._counting_copyfile  # counts the bytes it sends
    from playwright.sync_api import sync_playwright

    markdown, wheel, size = snippet_markdown(site)
    servers: list[Any] = []
    with tempfile.TemporaryDirectory() as bare_dir, tempfile.TemporaryDirectory() as snippet_dir, \
            sync_playwright() as playwright:
        bare = engines.bare_site(site, Path(bare_dir))
        snippet = bench_site(site, Path(snippet_dir), markdown, wheel)
        bare_server, bare_url = serve.serve_in_thread(str(bare), 0, True, csp=False)
        page_server, page_url = serve.serve_in_thread(str(site), 0, True)
        snippet_server, snippet_url = serve.serve_in_thread(str(snippet), 0, False)
        servers += [bare_server, page_server, snippet_server]
        urls = {"bare": bare_url, "page": page_url, "snippet": snippet_url + "snippet_bench.html"}
        print(f"# the exported snippet: {size:,} characters; a link of {mbps:g} Mbit/s for its floor")
        try:
            for engine in engine_names:
                figures: dict[str, list[tuple[float, int]]] = {kind: [] for kind in urls}
                try:
                    for _ in range(cold):
                        for kind, url in urls.items():
                            figures[kind].append(visit(engine, playwright, url, kind))
                except Exception as exc:  # noqa: BLE001  (one engine failing does not end the others)
                    print(f"{engine}: failed: {type(exc).__name__}: {exc}")
                    continue
                report(engine, figures, mbps)
                sys.stdout.flush()
        finally:
            engines.stop_servers(servers)
    return 0


def report(engine: str, figures: dict[str, list[tuple[float, int]]], mbps: float) -> None:
    def median(kind: str, index: int) -> float:
        return statistics.median(visit[index] for visit in figures[kind])

    bare, page, snippet = median("bare", 0), median("page", 0), median("snippet", 0)
    sent = median("snippet", 1)
    floor = sent / (mbps * 1e6 / 8) * 1000
    goal = 2 * page + floor
    visits = len(figures["snippet"])
    print(f"{engine} (medians of {visits} cold visits each):")
    print(f"  bare Pyodide ready {bare:,.0f} ms ({median('bare', 1) / 1e6:.1f} MB)")
    print(f"  the page ready {page:,.0f} ms ({median('page', 1) / 1e6:.1f} MB) -> {page / bare:.2f}x bare")
    print(f"  the snippet ready {snippet:,.0f} ms ({sent / 1e6:.1f} MB) -> {snippet / bare:.2f}x bare, "
          f"{snippet / page:.2f}x the page; each: " + ", ".join(f"{v[0]:,.0f}" for v in figures["snippet"]))
    print(f"  goal: 2 x the page + {sent / 1e6:.1f} MB at {mbps:g} Mbit/s ({floor:,.0f} ms) "
          f"= {goal:,.0f} ms: {'met' if snippet <= goal else 'not met'} ({snippet / goal:.2f}x the goal)")

