"""What a bot reads of its surroundings in the page is a fresh Pyodide's, whichever machine
built the site: the build's Python snapshot (scripts/snapshot.mjs, made under Node) carries
nothing of it. A bot that printed ``os.environ`` saw ``_`` = the build machine's checkout path
(``…/scripts/snapshot.mjs``), as ``sys.executable`` and ``sys.orig_argv`` were.

The same bot runs on the built site (every Worker from the build's snapshot) and on a copy
whose snapshot is refused (one byte changed: Python boots in the page, and the bots start
from the controller's own snapshot, made in this browser: a fresh Pyodide); it must read the
same things but the locale (the build's is fixed, C.UTF-8; the page's is the browser's).
tests/hostile/test_snapshot_origin.py builds from a canary machine and looks deeper.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOMY_MS, ROOT

pytestmark = pytest.mark.browser

STARTUP = "() => performance.getEntriesByName('arena-ready')[0].detail"

VIEW_BOT = r'''
import getpass, json, os, socket, sys, time

printed = False


def move(view):
    global printed
    if not printed:
        printed = True
        print("VIEW " + json.dumps({
            "environ": dict(os.environ), "cwd": os.getcwd(), "argv": sys.argv,
            "orig_argv": sys.orig_argv, "executable": sys.executable, "path": sys.path,
            "uname": list(os.uname()), "user": getpass.getuser(), "login": os.getlogin(),
            "home": os.path.expanduser("~"), "host": socket.gethostname(),
            "tzname": list(time.tzname),
        }))
    return "0 0 0 0"
'''


@pytest.fixture
def fresh_url(tampered_url):
    """The site with its snapshot refused (one byte changed): Python boots in the page."""
    return tampered_url


def bot_view(arena) -> dict:
    arena.setup(game="flit", games=1, seed=5, time_limit_ms=ROOMY_MS)
    arena.set_bot(1, VIEW_BOT, name="viewer")
    arena.label("Bot 2 example").select_option("greedy")
    arena.run()
    console = arena.console(1).inner_text()
    # a line printed at a turn starts with that turn's button ("turn 1 VIEW {...}")
    lines = [line[line.index("VIEW ") + len("VIEW "):] for line in console.splitlines() if "VIEW {" in line]
    assert lines, console
    return json.loads(lines[0])


def test_a_bot_reads_a_fresh_pyodide_not_the_build_machine(open_arena, isolated_url, fresh_url):
    built = open_arena(isolated_url)
    assert built.page.evaluate(STARTUP)["fromSnapshot"] is True
    restored = bot_view(built)
    fresh_page = open_arena(fresh_url)
    assert fresh_page.page.evaluate(STARTUP)["fromSnapshot"] is False
    fresh = bot_view(fresh_page)

    text = json.dumps(restored)
    for trace in (str(ROOT), "snapshot.mjs", str(Path.home()), "node_modules"):
        assert trace not in text, (trace, restored)
    assert restored["environ"].pop("LANG") == "C.UTF-8"
    fresh["environ"].pop("LANG")  # the browser's language
    assert restored == fresh
    assert restored["environ"]["_"] == "./this.program"
    assert (restored["user"], restored["login"], restored["host"]) == ("web_user", "web_user", "emscripten")


def test_the_built_snapshot_file_holds_no_checkout_path(site_dir):
    data = (site_dir / "python-snapshot.bin").read_bytes()
    for trace in (f"{ROOT}/", str(ROOT / "scripts" / "snapshot.mjs"), str(site_dir)):
        assert trace.encode() not in data, f"the snapshot holds {trace}"
