"""Fixtures for the browser tests: one build of the site, HTTP servers with and without
cross-origin isolation, one Chromium per session and a fresh context per test (with
pytest-xdist, one Chromium per worker and still one build of the site).

Chromium is the system one (/usr/bin/chromium, or $KOTH_CHROMIUM); nothing here ever
downloads a browser. If it is missing, the tests fail with a clear message.
"""
from __future__ import annotations

import fcntl
import importlib.util
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
from firefox_page import firefox  # noqa: F401  (the session's one Firefox, for test_firefox_*.py)
from playwright.sync_api import expect
from webkit_page import webkit  # noqa: F401  (the session's one WebKit, for test_webkit_*.py)

ROOT = Path(__file__).resolve().parents[2]
RESULTS_DIR = ROOT / "test-results"
CHROMIUM = os.environ.get("KOTH_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
READY_TIMEOUT_MS = 300_000  # a page boot: seconds idle; Python booted without the snapshot, far more at load
# Nothing a test asserts may depend on the machine's speed (the suite runs at loads of 8-13
# on 2 cores). A move's time limit where the clock is not the subject: far above what a
# move costs there, first moves included. It costs nothing: no passing test waits for it.
ROOMY_MS = 10_000
# Playwright's expect() polls for 5 s by default: too short for work done in Python on a
# loaded machine. Only a failing expect waits this long.
EXPECT_TIMEOUT_MS = 60_000


def _load_script(name: str):
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"koth_arena_{name}_for_tests", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


expect.set_options(timeout=EXPECT_TIMEOUT_MS)

# Polls page.evaluate: works under the page's real Content-Security-Policy, where
# Playwright's wait_for_function (eval in the page) does not. Tests import it from here.
wait_until = _load_script("page_wait").wait_until


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    """One build of the site for the whole run: with pytest-xdist (``-n N``) the first
    worker builds it under a lock in the run's shared temporary folder, the others reuse it."""
    build = _load_script("build")
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return build.build(str(tmp_path_factory.mktemp("site")))
    shared = tmp_path_factory.getbasetemp().parent  # the same folder for every worker of a run
    out, done = shared / "site", shared / "site.built"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            build.build(str(out))
            done.touch()
    return out


def _serve(site_dir: Path, isolation: bool, csp: bool = True):
    serve = _load_script("serve")
    server, url = serve.serve_in_thread(site_dir, port=0, isolation=isolation, csp=csp)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def isolated_url(site_dir):
    """The site served with COOP/COEP/CORP (cross-origin isolated: bots can be interrupted)."""
    yield from _serve(site_dir, isolation=True)


@pytest.fixture(scope="session")
def plain_url(site_dir):
    """The site served without isolation headers (a stuck bot can only be terminated)."""
    yield from _serve(site_dir, isolation=False)


@pytest.fixture(scope="session")
def bare_url(site_dir):
    """The site served with no security headers at all, as a static host that cannot set
    them: no isolation, and no Content-Security-Policy but the page's meta tag (the bot
    Workers are protected by what bot_worker.js withholds in JavaScript alone)."""
    yield from _serve(site_dir, isolation=False, csp=False)


@pytest.fixture(scope="session")
def site_url(isolated_url):
    return isolated_url


@pytest.fixture(scope="session")
def tampered_url(site_dir, tmp_path_factory):
    """The site with one byte of its snapshot changed (a stale or damaged copy on a host): the
    snapshot is refused and Python boots in the page. Isolated, like site_url."""
    copy = tmp_path_factory.mktemp("tampered") / "site"
    shutil.copytree(site_dir, copy)
    snapshot = copy / "python-snapshot.bin"
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0x5A
    snapshot.write_bytes(bytes(data))
    yield from _serve(copy, isolation=True)


@pytest.fixture(scope="session")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install the Debian 'chromium' package "
                    "(or set KOTH_CHROMIUM). The browser tests never download a browser.",
                    pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def arena_context(chromium):
    # The page runs under its real Content-Security-Policy and isolation headers: poll
    # with wait_until (page.evaluate), never wait_for_function (eval, which the policy
    # forbids), and inject nothing inline (a script tag the policy blocks).
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(30_000)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.fixture
def results_dir() -> Path:
    RESULTS_DIR.mkdir(exist_ok=True)
    return RESULTS_DIR


class Arena:
    """A page on the arena, with small helpers that act like a user would (plus the
    page's debug handle window.kothArena where typing would only slow the tests down)."""

    def __init__(self, page):
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))

    # -- navigation
    def open(self, url: str) -> Arena:
        self.page.goto(url)
        self.wait_ready()
        return self

    def wait_ready(self) -> None:
        wait_until(self.page, "window.kothArena && window.kothArena.ready", READY_TIMEOUT_MS)

    # -- controls
    def label(self, text: str):
        return self.page.get_by_label(text, exact=True)

    def button(self, name: str):
        return self.page.get_by_role("button", name=name, exact=True)

    @property
    def status(self):
        return self.page.get_by_role("status")

    @property
    def canvas(self):
        return self.page.get_by_role("img").and_(self.page.locator("canvas#board"))

    def canvas_label(self) -> str:
        return self.page.locator("canvas#board").get_attribute("aria-label") or ""

    def console(self, n: int):
        return self.page.get_by_role("log", name=f"Bot {n} console")

    def results_table(self):
        # the caption is "Results", plus a note such as "(stopped)" or "(replay FILE)"
        return self.page.get_by_role("table", name=re.compile(r"^Results\b"))

    def result_row(self, bot_name: str) -> list[str]:
        """The cells of a bot's row in the results table: [name, games, wins, mean, faults]
        (games scored by mean score show the rank where wins would be)."""
        row = self.results_table().get_by_role("row").filter(
            has=self.page.get_by_role("rowheader", name=bot_name, exact=True))
        return [c.strip() for c in row.locator("th, td").all_inner_texts()]

    def setup(self, game: str | None = None, games: int | None = None, seed: int | None = None,
              time_limit_ms: int | None = None, max_moves: int | None = None) -> None:
        if game is not None:
            self.label("Game").select_option(game)
        for text, value in (("Games", games), ("Seed", seed), ("Time limit (ms)", time_limit_ms),
                            ("Max moves", max_moves)):
            if value is not None:
                self.label(text).fill(str(value))

    def set_bot(self, n: int, code: str, name: str | None = None) -> None:
        self.page.evaluate("([i, code]) => window.kothArena.setCode(i, code)", [n - 1, code])
        if name is not None:
            self.label(f"Bot {n} name").fill(name)

    def start_run(self) -> None:
        before = self.page.evaluate("window.kothArena.runsStarted")
        self.button("Run").click()
        # A short run may already be over here: count runs started, not runs in progress.
        if self.page.evaluate("window.kothArena.runsStarted") == before:
            raise AssertionError(f"the run did not start; status: {self.status.inner_text()!r}")

    def wait_finished(self, timeout_ms: int = 300_000) -> str:
        wait_until(self.page, "window.kothArena.run === null", timeout_ms)
        return self.status.inner_text()

    def run(self, timeout_ms: int = 300_000) -> str:
        """Click Run, wait for the run to end; returns the status text (must be Finished)."""
        self.start_run()
        text = self.wait_finished(timeout_ms)
        assert text.startswith("Finished"), f"the run did not finish normally: {text!r}"
        return text

    def stop_a_spinning_run(self) -> None:
        """Starts a run whose bot spins on its first move and presses Stop: the run ends as
        Stopped long before the spinner's time limit (the hard limit is 600 s)."""
        self.start_run()
        self.page.wait_for_timeout(1500)  # the spinner is asked and spins
        assert self.page.evaluate("window.kothArena.run") is not None
        began = time.monotonic()
        self.button("Stop").click()
        status = self.wait_finished(timeout_ms=60_000)
        print(f"Stop took {time.monotonic() - began:.2f} s")
        assert status.startswith("Stopped"), status

    def records(self) -> list[dict]:
        """The game records the viewer holds (what the board shows)."""
        return self.page.evaluate(
            "window.kothArena.viewer.tracks.map((t) => t ? t.record : null)")

    def controller(self):
        """The controller Worker (Playwright's handle, for its debug handle kothController)."""
        workers = [w for w in self.page.workers if w.url.endswith("/controller_worker.js")]
        assert workers, f"no controller Worker among {[w.url for w in self.page.workers]}"
        return workers[-1]

    def origin_storage(self) -> dict:
        """What the page's origin keeps besides localStorage: Cache Storage (names and
        request URLs) and the origin private file system's top-level names."""
        return self.page.evaluate("""async () => {
            const caches_ = {};
            for (const name of await caches.keys()) {
                const cache = await caches.open(name);
                caches_[name] = (await cache.keys()).map((r) => r.url).sort();
            }
            const files = [];
            const root = await navigator.storage.getDirectory();
            for await (const name of root.keys()) files.push(name);
            return { caches: caches_, opfs: files.sort() };
        }""")

    def storage(self) -> dict:
        return self.page.evaluate("""() => {
            const out = {};
            for (let i = 0; i < localStorage.length; i++) {
                const k = localStorage.key(i);
                out[k] = localStorage.getItem(k);
            }
            return out;
        }""")


@pytest.fixture
def open_arena(arena_context):
    """open_arena(url) -> a ready Arena on a new page of this test's context."""
    opened: list[Arena] = []

    def _open(url: str) -> Arena:
        a = Arena(arena_context.new_page())
        opened.append(a)
        return a.open(url)

    yield _open
    for a in opened:
        assert not a.errors, f"uncaught errors in the page: {a.errors}"


@pytest.fixture
def arena(open_arena, site_url) -> Arena:
    """A ready page on the isolated server, in a fresh context (clean localStorage)."""
    return open_arena(site_url)


@pytest.fixture(scope="module")
def _module_arena(chromium, site_url):
    ctx = chromium.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(30_000)
    try:
        yield Arena(ctx.new_page()).open(site_url)
    finally:
        ctx.close()


@pytest.fixture
def shared_arena(_module_arena) -> Arena:
    """A ready page on the isolated server shared by the tests of one module (a page boot
    is the costliest step of most tests): for tests that set up all they rely on and do not
    check a first visit, storage or a reload (those take ``arena``, a fresh profile each).
    Each test must leave no uncaught error in the page."""
    _module_arena.errors.clear()
    yield _module_arena
    assert not _module_arena.errors, f"uncaught errors in the page: {_module_arena.errors}"
