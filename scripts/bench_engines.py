"""The page in each browser engine, beside a bare Pyodide loaded in the same browser and run
(``scripts/bench_web --browser chromium|firefox|webkit|all``; issue 20 item 7).

For each engine and each way the site is served (cross-origin isolated, plain), on this
machine:
- ready, cold: a new browser (a fresh profile: no HTTP cache, no compiled code) opens the
  page; the time from navigation to the page's "arena-ready" mark (engine and both bots
  ready), on the page's clock; the median of ``--cold`` visits;
- ready, warm: a new tab of that same browser opens the page again (its HTTP cache and
  compiled code warm); the median of ``--warm`` visits;
- the same two for a bare Pyodide: a plain page that imports ``pyodide.mjs`` from the same
  server and calls ``loadPyodide`` (no engine, no Workers), served with the same headers but
  no Content-Security-Policy; the page's figures are also given as a ratio of these, so they
  compare across machines and engines;
- a match's speed: the match a fresh page offers (its default game and example bots) as a
  series of ``--games`` games at seed 1 with a fixed secret, in the warm page: the bots' moves a second (the
  second of two runs: the first shares the cores with the browser optimising Pyodide's
  WebAssembly);
- memory: the proportional set size (PSS) of the browser's processes (and its driver's),
  with a blank tab and with the page ready, in the first cold visit's browser.

Chromium is driven by Playwright, Firefox over Marionette (tests/browser/firefox_driver.mjs) and WebKitGTK
by Selenium, through the browser tests' own wrappers (tests/browser/firefox_page.py,
webkit_page.py). Not a test: figures only.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("chromium", "firefox", "webkit")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
READY_TIMEOUT_MS = 600_000
MB = 2**20

BARE_HTML = """<!doctype html>
<meta charset="utf-8"><title>Bare Pyodide</title><link rel="icon" href="data:,">
<p id="status">Loading Pyodide…</p>
<script type="module" src="bare.js"></script>
"""
# Ready when Python has run a line: the same end as the page's (its Python imported the engine).
BARE_JS = """import { loadPyodide } from "./pyodide/pyodide.mjs";
const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", location.href).href });
pyodide.runPython("1 + 1");
performance.mark("bare-ready");
document.getElementById("status").textContent = "Ready.";
"""
PAGE_READY = "window.kothArena && window.kothArena.ready"
PAGE_MS = "performance.getEntriesByName('arena-ready')[0].startTime"
BARE_READY = "performance.getEntriesByName('bare-ready').length > 0"
BARE_MS = "performance.getEntriesByName('bare-ready')[0].startTime"
# The match's controls, found by their labels as a visitor finds them (CSS cannot).
SET_CONTROL = """([text, value]) => {
  const label = [...document.querySelectorAll("label")].find((l) => l.textContent.trim() === text);
  if (!label || !label.control) throw new Error(`no control labelled ${text}`);
  label.control.value = String(value);
  label.control.dispatchEvent(new Event("input", { bubbles: true }));
  label.control.dispatchEvent(new Event("change", { bubbles: true }));
  return label.control.value === String(value);
}"""


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wait_until = _load(ROOT / "scripts" / "page_wait.py", "koth_engines_page_wait").wait_until
startup = _load(ROOT / "scripts" / "bench_startup.py", "koth_engines_bench_startup")


class Browser:
    """One running browser of an engine: open(url) gives a page with Playwright's
    ``evaluate(expression, arg)``; pss() is the memory of its processes."""

    def __init__(self, opener: Callable[[str], Any], pss: Callable[[], int], version: str) -> None:
        self.open, self.pss, self.version = opener, pss, version


def _descendants_pss(root: int) -> int:
    """The PSS of the processes `root` (a driver) started, not its own."""
    return startup.pss(pid for pid in startup.process_tree(root) if pid != root)


@contextmanager
def launch(engine: str, playwright) -> Iterator[Browser]:
    """A new browser of `engine` with a fresh profile."""
    if engine == "chromium":
        with tempfile.TemporaryDirectory() as profile:
            marker = f"--koth-bench={uuid.uuid4().hex}"
            context = startup.launch_chromium(playwright, profile, CHROMIUM, CHROMIUM_ARGS, marker)

            def open_page(url: str):
                page = context.new_page()
                page.goto(url)
                return page

            try:
                yield Browser(open_page, lambda: startup.browser_pss(marker),
                              f"Chromium {context.browser.version if context.browser else ''}".strip())
            finally:
                context.close()
        return
    tests = ROOT / "tests" / "browser"
    if engine == "firefox":
        firefox = _load(tests / "firefox_page.py", "koth_engines_firefox").Firefox()
        try:
            yield Browser(firefox.open, lambda: _descendants_pss(firefox.process.pid),
                          f"Firefox {firefox.version}")
        finally:
            firefox.close()
        return
    webkit = _load(tests / "webkit_page.py", "koth_engines_webkit").WebKit()
    try:
        yield Browser(webkit.open, lambda: _descendants_pss(webkit.driver.service.process.pid),
                      webkit.version)
    finally:
        webkit.close()


def settled_pss(browser: Browser, seconds: float = 3.0) -> int:
    time.sleep(seconds)
    return int(statistics.median(browser.pss() for _ in range(5)))


def visit(page, ready: str, ms: str) -> float:
    wait_until(page, ready, READY_TIMEOUT_MS)
    return float(page.evaluate(ms))


def match_speed(page, games: int) -> tuple[float, str]:
    """Bot moves a second of the match a fresh page offers (its default game and example bots),
    as a series of `games` games at seed 1 (the second of two runs), and the page's status."""
    for name, value in (("Games", games), ("Seed", 1), ("Secret (optional)", "bench")):
        if not page.evaluate(SET_CONTROL, [name, value]):
            raise RuntimeError(f"could not set {name} to {value}")
    speed = 0.0
    for _ in range(2):
        wait_until(page, "window.kothArena.poolReady >= 2", READY_TIMEOUT_MS)
        started = page.evaluate("window.kothArena.runsStarted")
        began = time.perf_counter()
        page.evaluate("document.getElementById('run').click()")
        wait_until(page, f"window.kothArena.runsStarted > {started}", 60_000, interval_s=0.02)
        wait_until(page, "window.kothArena.run === null", READY_TIMEOUT_MS, interval_s=0.02)
        timing = page.evaluate("window.kothArena.lastTiming")
        wall = timing["wall_ms"] / 1000 if timing.get("wall_ms") else time.perf_counter() - began
        speed = sum(bot["turns"] for bot in timing["bots"]) / wall
    status = page.evaluate("document.querySelector('[role=status]').innerText")
    return speed, " ".join(status.split())[:120]


def measure(engine: str, playwright, page_url: str, bare_url: str, cold: int, warm: int,
            games: int) -> dict:
    """One engine, one way of serving: the figures the module docstring lists."""
    figures: dict[str, Any] = {"page": {"cold": [], "warm": []}, "bare": {"cold": [], "warm": []}}
    for round_number in range(cold):
        for kind, url, ready, ms in (("bare", bare_url, BARE_READY, BARE_MS),
                                     ("page", page_url, PAGE_READY, PAGE_MS)):
            with launch(engine, playwright) as browser:
                figures["version"] = browser.version
                blank = settled_pss(browser) if round_number == 0 and kind == "page" else None
                first = browser.open(url)
                figures[kind]["cold"].append(visit(first, ready, ms))
                if blank is not None:
                    figures["memory"] = {"blank": blank, "ready": settled_pss(browser)}
                if round_number == 0:
                    for _ in range(warm):
                        again = browser.open(url)
                        figures[kind]["warm"].append(visit(again, ready, ms))
                        if kind == "page" and "moves_per_s" not in figures:
                            figures["moves_per_s"], figures["match"] = match_speed(again, games)
                        again.close()
    return figures


def report(engine: str, mode: str, figures: dict) -> None:
    def median(kind: str, when: str) -> float:
        return statistics.median(figures[kind][when])

    print(f"{figures.get('version', engine)}, {mode}:")
    for when in ("cold", "warm"):
        page, bare = median("page", when), median("bare", when)
        print(f"  ready {when}: page {page:,.0f} ms, bare Pyodide {bare:,.0f} ms -> {page / bare:.2f}x "
              f"(medians of {len(figures['page'][when])} and {len(figures['bare'][when])} visits)")
    print(f"  the page's first match, {figures['match']!r}: {figures['moves_per_s']:,.0f} bot moves/s")
    memory = figures["memory"]
    print(f"  memory (PSS of the browser's processes): blank tab {memory['blank'] / MB:,.0f} MB, page ready "
          f"{memory['ready'] / MB:,.0f} MB")


def bare_site(site: Path, folder: Path) -> Path:
    """A folder serving the bare page and the site's own Pyodide (a link to it)."""
    (folder / "index.html").write_text(BARE_HTML, encoding="utf-8")
    (folder / "bare.js").write_text(BARE_JS, encoding="utf-8")
    (folder / "pyodide").symlink_to(site / "pyodide", target_is_directory=True)
    return folder


def run(site: Path, engines: list[str], cold: int, warm: int, games: int, compression: bool) -> int:
    serve = _load(ROOT / "scripts" / "serve.py", "koth_engines_serve")
    from playwright.sync_api import sync_playwright

    servers = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        bare = bare_site(site, Path(folder))
        urls = {}
        for mode, isolation in (("isolated", True), ("plain", False)):
            page_server, page_url = serve.serve_in_thread(str(site), 0, isolation, compression=compression)
            bare_server, bare_url = serve.serve_in_thread(str(bare), 0, isolation, csp=False,
                                                          compression=compression)
            servers += [page_server, bare_server]
            urls[mode] = (page_url, bare_url)
        try:
            for engine in engines:
                for mode, (page_url, bare_url) in urls.items():
                    try:
                        figures = measure(engine, playwright, page_url, bare_url, cold, warm, games)
                    except Exception as exc:  # noqa: BLE001  (one engine failing does not end the others)
                        print(f"{engine}, {mode}: failed: {type(exc).__name__}: {exc}")
                        continue
                    report(engine, mode, figures)
                    sys.stdout.flush()
        finally:
            stop_servers(servers)
    return 0


def stop_servers(servers: list[Any]) -> None:
    """Shut down the servers ``serve.serve_in_thread`` started."""
    for server in servers:
        server.shutdown()
        server.server_close()
