"""Shared fixtures for the engine tests (no browser fixtures here: see tests/browser/)."""

from __future__ import annotations

import subprocess

import pytest

from engine.bots import python2

FLIT_AWK = r"""
# Flit in awk: keep the board; on M move some other own piece next to one of ours.
$1 == "S" { n = $2; me = $4; next }
$1 == "M" {
    found = 0
    for (p in board) {
        if (board[p] != me) continue
        split(p, a, " "); x = a[1]; y = a[2]
        nb[1] = ((x + 1) % n) " " y; nb[2] = ((x + n - 1) % n) " " y
        nb[3] = x " " ((y + 1) % n); nb[4] = x " " ((y + n - 1) % n)
        for (k = 1; k <= 4 && !found; k++) {
            d = nb[k]
            if ((d in board) && board[d] != 0) continue
            for (q in board) if (q != p && board[q] == me) { print q, d; found = 1; break }
        }
        if (found) break
    }
    if (!found) print "0 0 0 0"
    print "turn done" > "/dev/stderr"
    fflush()
    next
}
NF == 3 { board[$1 " " $2] = $3 }
"""


@pytest.fixture(autouse=True)
def _own_cache_folder(tmp_path_factory, monkeypatch):
    """Each test its own ``$XDG_CACHE_HOME``: tournaments keep finished games there by default,
    and a test must neither fill the user's cache nor take another test's games from it."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture(autouse=True)
def _python2_converter_restored():
    """Importing the page's ``web/main.py`` (as the page tests do) points the engine's Python 2
    conversions at the page's cache; every other test converts as the platform does."""
    before = python2._converter
    yield
    python2.set_converter(before)


@pytest.fixture
def flit_awk_command(tmp_path):
    """A command line for a Flit bot written in awk (it moves whenever it can)."""
    path = tmp_path / "flit_bot.awk"
    path.write_text(FLIT_AWK)
    version = subprocess.run(["awk", "-W", "version"], capture_output=True, text=True).stdout
    # mawk reads pipes in blocks and would sit on the M line: -W interactive reads lines.
    return f"awk -W interactive -f {path}" if "mawk" in version else f"awk -f {path}"
