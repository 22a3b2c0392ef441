"""The page's start-up and memory, measured in headless Chromium (scripts/bench_web runs it:
``python scripts/bench_web --only startup``).

Cold: a browser with a fresh profile (no HTTP cache, no compiled-code cache) opens the page.
Warm: that browser is closed and started again on the same profile (its HTTP cache and
compiled-code cache on disk), and opens the page, as a visitor who comes back does. Each visit's
steps come from the page's "arena-ready" mark, whose detail holds the controller Worker's and
each bot Worker's own marks (web/src/controller_worker.js, bot_worker.js); they are put on the
page's clock (ms since navigation) and printed as medians, each with the time since the step
it waited for and that time's share of the whole start-up.

Memory: the proportional set size (PSS) of every process of the browser, summed from
/proc/PID/smaps_rollup: with one blank tab, with the page ready for a 2-bot match (at rest),
and with further bot Workers started (the controller's debug handle, startBots).
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

MB = 2**20


def _load_page_wait():
    path = Path(__file__).with_name("page_wait.py")
    spec = importlib.util.spec_from_file_location("koth_bench_page_wait", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wait_until = _load_page_wait().wait_until  # polls evaluate: works under the page's CSP

# (key, label, the key of the step it waits for: its time is counted from that one's end;
# a tuple: the latest of them)
STEPS = [
    ("editor", "editor usable (app.js run, editors built)", "navigation"),
    ("boot", "controller Worker created (boot.js)", "navigation"),
    ("controller", "controller Worker running", "boot"),
    ("script", "its script run", "controller"),
    ("config", "config (built into the script)", "script"),
    ("wasm compiled", "WebAssembly fetched and compiled", "config"),
    ("glue loaded", "Pyodide's JavaScript loaded", "config"),
    ("stdlib fetched", "standard library fetched", "config"),
    ("snapshot requested", "snapshot requested (boot.js, else the controller)", "navigation"),
    ("snapshot fetched", "snapshot downloaded and checked", "snapshot requested"),
    ("python", "controller's Python restored", ("wasm compiled", "glue loaded", "stdlib fetched",
                                                 "snapshot fetched")),
    ("engine unpacked", "engine files unpacked", "python"),
    ("controller imported", "controller imported (main.py)", "engine unpacked"),
    ("engine", "games listed", "controller imported"),
]
BOT_STEPS = [
    ("script", "script running", "config"),
    ("init", "given Pyodide's files", "script"),
    ("snapshot", "given the snapshot", "snapshot fetched"),
    ("python", "Python restored", ("init", "snapshot")),
    ("host", "bot host ready", "python"),
]

# The page's clock: the steps of one visit, from its "arena-ready" mark.
VISIT_JS = """() => {
  const ready = performance.getEntriesByName('arena-ready')[0];
  const at = (name) => (performance.getEntriesByName(name)[0] || {}).startTime;
  const detail = ready.detail || {};
  const shift = (origin) => origin - performance.timeOrigin;
  const steps = {navigation: 0, editor: at('editor-ready'), boot: at('controller-started'),
                 'snapshot requested': at('snapshot-requested'), ready: ready.startTime};
  if (typeof detail.timeOrigin === 'number') {  // pages before issue 10 have only their ready time
    steps.controller = shift(detail.timeOrigin);
    for (const [name, ms] of Object.entries(detail.marks || {})) steps[name] = ms + shift(detail.timeOrigin);
  }
  const bots = (Array.isArray(detail.bots) ? detail.bots : []).filter((bot) => bot && bot.marks)
    .map((bot) => Object.fromEntries(Object.entries(bot.marks)
      .map(([name, ms]) => [name, ms + shift(bot.timeOrigin)])));
  return {steps, bots, fromSnapshot: detail.fromSnapshot === true};
}"""


def _processes() -> dict[int, tuple[int, str]]:
    """{pid: (parent pid, command line)} of every process this user can see."""
    procs: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        procs[int(entry)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmdline)
    return procs


def _with_descendants(roots: set[int], procs: dict[int, tuple[int, str]]) -> dict[int, str]:
    family = set(roots) & set(procs)
    frontier = list(family)
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _) in procs.items():
            if ppid == parent and pid not in family:
                family.add(pid)
                frontier.append(pid)
    return {pid: procs[pid][1] for pid in family}


def browser_processes(marker: str) -> dict[int, str]:
    """{pid: command line} of every process of the browser launched with `marker` on its
    command line (the browser and all its descendants)."""
    procs = _processes()
    browsers = {pid for pid, (_, cmd) in procs.items() if marker in cmd and "--type=" not in cmd}
    return _with_descendants(browsers, procs)


def process_tree(root: int) -> dict[int, str]:
    """{pid: command line} of `root` and all its descendants (a browser's driver and the
    browser it started)."""
    return _with_descendants({root}, _processes())


def pss(pids) -> int:
    """The sum of the proportional set sizes of these processes (gone ones count 0)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def browser_pss(marker: str) -> int:
    """The PSS of every process of the browser launched with `marker` on its command line."""
    return pss(browser_processes(marker))


def _settled_pss(marker: str, seconds: float = 3.0) -> int:
    """PSS once the page has been idle a moment (the median of a few samples)."""
    time.sleep(seconds)
    samples = []
    for _ in range(5):
        samples.append(browser_pss(marker))
        time.sleep(0.2)
    return int(statistics.median(samples))


def _visit(page, url: str) -> dict:
    page.goto(url)
    wait_until(page, "window.kothArena && window.kothArena.ready", 120_000)
    return page.evaluate(VISIT_JS)


def _controller(page):
    return next(w for w in page.workers if w.url.endswith("/controller_worker.js"))


def launch_chromium(pw, profile: str, chromium: str, args: list[str], marker: str):
    """Chromium on `profile`, with `marker` on its command line (its processes are found by it)."""
    return pw.chromium.launch_persistent_context(
        profile, executable_path=chromium, args=[*args, marker], headless=True)


def measure(pw, url: str, chromium: str, args: list[str], cold_runs: int, warm_runs: int,
            extra_bots: int = 2) -> dict:
    """Cold visits: each in a browser with a fresh profile (and its memory figures); warm
    visits: the last cold visit's browser closed and started again on the same profile, its
    HTTP cache and compiled-code cache on disk, as for a visitor who comes back."""
    cold, warm, memory = [], [], []
    for run in range(cold_runs):
        with tempfile.TemporaryDirectory() as profile:
            marker = f"--koth-startup={uuid.uuid4().hex}"
            context = launch_chromium(pw, profile, chromium, args, marker)
            page = context.pages[0] if context.pages else context.new_page()
            page.goto("about:blank")
            blank = _settled_pss(marker)
            cold.append(_visit(page, url))
            wait_until(page, "window.kothArena.poolReady >= 2", 120_000)
            ready = _settled_pss(marker)
            per_bot = None
            if _controller(page).evaluate("typeof self.kothController.startBots === 'function'"):
                _controller(page).evaluate(f"self.kothController.startBots({extra_bots})")
                wait_until(page, f"window.kothArena.poolReady >= {2 + extra_bots}", 120_000)
                per_bot = (_settled_pss(marker) - ready) / extra_bots
            memory.append({"blank": blank, "ready": ready - blank, "per_bot": per_bot})
            context.close()
            if run == cold_runs - 1:
                for _ in range(warm_runs):
                    context = launch_chromium(pw, profile, chromium, args, marker)
                    page = context.pages[0] if context.pages else context.new_page()
                    page.goto("about:blank")
                    time.sleep(1)
                    warm.append(_visit(page, url))
                    context.close()
    return {"cold": cold, "warm": warm, "memory": memory}


def _median(visits: list[dict], pick) -> float | None:
    values = [v for v in (pick(visit) for visit in visits) if isinstance(v, (int, float))]
    return statistics.median(values) if values else None


def _since(steps: dict, waits_for) -> float | None:
    names = waits_for if isinstance(waits_for, tuple) else (waits_for,)
    ends = [steps.get(name) for name in names]
    ends = [e for e in ends if isinstance(e, (int, float))]
    return max(ends) if ends else None


def _rows(visits: list[dict]) -> list[tuple[str, float | None, float | None]]:
    """(label, median end, median time since the step it waited for) for every step."""
    rows = []
    for key, label, waits in STEPS:
        end = _median(visits, lambda v, key=key: v["steps"].get(key))
        took = _median(visits, lambda v, key=key, waits=waits:
                       _took(v["steps"].get(key), _since(v["steps"], waits)))
        rows.append((label, end, took))
    bot_count = min((len(v["bots"]) for v in visits), default=0)
    for index in range(bot_count):
        for key, label, waits in BOT_STEPS:
            def pick_end(v, key=key, index=index):
                return v["bots"][index].get(key)

            def pick_took(v, key=key, waits=waits, index=index):
                merged = {**v["steps"], **v["bots"][index]}
                return _took(merged.get(key), _since(merged, waits))
            rows.append((f"bot {index + 1}: {label}", _median(visits, pick_end), _median(visits, pick_took)))
    rows.append(("ready: engine and both bots", _median(visits, lambda v: v["steps"]["ready"]),
                 _median(visits, lambda v: _took(v["steps"]["ready"], max(
                     [v["steps"].get("engine") or 0] + [b.get("host") or 0 for b in v["bots"]])))))
    return rows


def _took(end, start):
    if not isinstance(end, (int, float)) or not isinstance(start, (int, float)):
        return None
    return end - start


def report(result: dict, cold_target: float = 2000, warm_target: float = 1000,
           memory_target_mb: float = 270, per_bot_target_mb: float = 60) -> None:
    cold, warm = result["cold"], result["warm"]
    cold_ready = _median(cold, lambda v: v["steps"]["ready"])
    warm_ready = _median(warm, lambda v: v["steps"]["ready"])
    snapshot = all(v["fromSnapshot"] for v in cold + warm)
    python = "from the build snapshot" if snapshot else "booted in some visits"
    print(f"start-up, ms since navigation (medians of {len(cold)} cold visits, fresh profile each, and "
          f"{len(warm)} warm ones, the browser restarted on the same profile; Python {python}):")
    head = f"{'ends':>10} {'took':>6} {'share':>6}"
    print(f"  {'step':<48} {'cold:':<5}{head}   {'warm:':<5}{head}")
    for (label, c_end, c_took), (_, w_end, w_took) in zip(_rows(cold), _rows(warm), strict=False):
        def cells(end, took, whole):
            share = f"{100 * took / whole:5.0f}%" if took is not None and whole else "      "
            return (f"{end:10.0f}" if end is not None else f"{'-':>10}") + " " + \
                (f"{took:6.0f}" if took is not None else f"{'-':>6}") + " " + share
        gap = " " * 5
        print(f"  {label:<48}{gap}{cells(c_end, c_took, cold_ready)}"
              f"   {gap}{cells(w_end, w_took, warm_ready)}")
    print(f"engine and bots ready: cold {cold_ready:.0f} ms (target {cold_target:.0f}), "
          f"warm {warm_ready:.0f} ms (target {warm_target:.0f})")
    memory = result["memory"]
    ready_mb = statistics.median(m["ready"] for m in memory) / MB
    per_bots = [m["per_bot"] for m in memory if m["per_bot"] is not None]
    per_bot_mb = statistics.median(per_bots) / MB if per_bots else float("nan")
    blank_mb = statistics.median(m["blank"] for m in memory) / MB
    print(f"memory (PSS of all the browser's processes, /proc/PID/smaps_rollup; median of {len(memory)}): "
          f"blank tab {blank_mb:.0f} MB; page ready for a 2-bot match +{ready_mb:.0f} MB above it "
          f"(target {memory_target_mb:.0f}); each further bot Worker +{per_bot_mb:.0f} MB "
          f"(target {per_bot_target_mb:.0f})")
