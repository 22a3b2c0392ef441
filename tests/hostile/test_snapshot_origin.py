"""The page's Python snapshot carries nothing of the machine that built it.

The build makes it under Node (scripts/snapshot.mjs) and every Worker of the page restores
it, so whatever Python read of its surroundings while it was made is what every bot reads.
A bot printing ``os.environ`` saw ``_`` = the build machine's checkout path
(``…/scripts/snapshot.mjs``), also in ``sys.executable`` and ``sys.orig_argv``, and
``time.tzname`` was the build machine's time zone. Here the snapshot is made as the build
makes it, but from a checkout path, home, user, host name, time zone and locale that are
canaries, then searched byte by byte for them and restored as the page's Workers restore it
(tests/snapshot_view.mjs): what a bot reads must be what a Pyodide started as a browser
starts it reads.
"""
from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VIEW = ROOT / "tests" / "snapshot_view.mjs"
NODE = shutil.which("node")
BWRAP = shutil.which("bwrap")
CHATHAM = ("UTC+1245", "UTC+1345")  # Pacific/Chatham as Emscripten names it: no other zone is


def _build_script():
    spec = importlib.util.spec_from_file_location("koth_arena_build_for_snapshot_origin",
                                                  ROOT / "scripts" / "build.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def canary_build(tmp_path_factory):
    """python-snapshot.bin made by scripts/snapshot.mjs from a canary machine: the checkout
    reached through a canary path, and a canary home, user, host name, zone and locale."""
    if NODE is None or not (ROOT / "node_modules" / "pyodide").is_dir():
        pytest.fail("node and node_modules/pyodide are needed (npm ci)")
    token = secrets.token_hex(4)
    base = tmp_path_factory.mktemp("canary")
    checkout = base / f"checkout-canary{token}"
    checkout.symlink_to(ROOT, target_is_directory=True)
    home = base / f"home-canary{token}"
    home.mkdir()
    site = base / f"site-canary{token}"
    site.mkdir()
    _build_script().write_engine_zip(site)
    shutil.copy(ROOT / "web" / "main.py", site / "main.py")
    user, host = f"user{token}canary", f"host{token}canary"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "USER": user,
           "LOGNAME": user, "HOSTNAME": host, "TZ": "Pacific/Chatham", "LANG": "de_DE.UTF-8",
           "LC_ALL": "de_DE.UTF-8", "PWD": str(checkout)}
    command = [NODE, str(checkout / "scripts" / "snapshot.mjs"), str(site)]
    if BWRAP:  # a host name of its own (the snapshot must not carry the real one either)
        command = [BWRAP, "--dev-bind", "/", "/", "--unshare-uts", "--hostname", host, *command]
    made = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stderr[-3000:]
    canaries = {"checkout path": str(checkout), "home": str(home), "user": user,
                "site folder": str(site), "real checkout path": f"{ROOT}/"}
    if BWRAP:
        canaries["host name"] = host
    return site / "python-snapshot.bin", canaries


def view(snapshot: Path | None = None) -> dict:
    """What a bot reads (tests/snapshot_view.mjs), in this test's own surroundings (UTC)."""
    env = {**os.environ, "TZ": "UTC"}
    args = [NODE, str(VIEW)] + ([str(snapshot)] if snapshot else [])
    run = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def test_the_snapshot_file_holds_no_trace_of_the_build_machine(canary_build):
    snapshot, canaries = canary_build
    data = snapshot.read_bytes()
    found = {what: text for what, text in canaries.items() if text.encode() in data}
    assert not found, f"the snapshot holds the build machine's {', '.join(found)}"
    zones = [zone for zone in CHATHAM if zone.encode() in data]
    assert not zones, f"the snapshot holds the build machine's time zone ({zones})"


def test_a_bot_in_a_restored_snapshot_reads_what_a_fresh_pyodide_reads(canary_build):
    snapshot, canaries = canary_build
    restored, fresh = view(snapshot), view()
    text = json.dumps(restored)
    assert not [what for what, canary in canaries.items() if canary in text], restored
    # the preload (web/preload.py) puts the engine's folder on the path; nothing else differs
    # ("" is the working folder, once more after a restore)
    assert [p for p in restored.pop("path") if p not in ("", "/home/pyodide")] == [
        p for p in fresh.pop("path") if p != ""]
    assert restored == fresh
    assert restored["environ"]["_"] == "./this.program"
    assert restored["executable"] == "/home/pyodide/this.program"
    assert restored["environ"]["LANG"] == "C.UTF-8"  # never the build machine's locale
    assert (restored["tzname"], restored["timezone"]) == (["UTC-0000", "UTC-0000"], 0)
    assert (restored["user"], restored["home"]) == ("web_user", "/home/pyodide")
    assert restored["host"] == "emscripten"
    # text hashes as in every other Python of the page (set orders of strings repeat)
    assert restored["environ"]["PYTHONHASHSEED"] == "0"
    assert restored["text_hash"] == fresh["text_hash"] == view()["text_hash"]
