"""``scripts/busy``: its hogs run while the command runs and never outlive it, and bad
arguments get one line and exit code 2. Each run is a fraction of a second of CPU."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

BUSY = Path(__file__).resolve().parent.parent / "scripts" / "busy"

# Run by busy as its command: how many hogs busy (this process's parent) has running.
COUNT_HOGS = """import os
from pathlib import Path
parent = str(os.getppid()).encode()
def is_hog(proc):
    try:
        args = (proc / "cmdline").read_bytes().split(b"\\0")
    except OSError:
        return False
    return len(args) > 3 and b"parent = int(sys.argv[1])" in args[2] and args[3] == parent
print(sum(is_hog(proc) for proc in Path("/proc").iterdir() if proc.name.isdigit()))
"""


def hogs_of(pid: int) -> list[int]:
    """The live hog processes that busy ``pid`` started."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            args = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if len(args) > 3 and b"parent = int(sys.argv[1])" in args[2] and args[3] == str(pid).encode():
            found.append(int(proc.name))
    return found


def hogs_within_a_minute(pid: int, count: int) -> list[int]:
    """The hogs of busy ``pid`` once there are ``count`` of them, or after a minute."""
    give_up = time.monotonic() + 60
    while len(found := hogs_of(pid)) != count and time.monotonic() < give_up:
        time.sleep(0.1)
    return found


def test_the_hogs_run_with_the_command_and_end_with_it():
    done = subprocess.Popen([sys.executable, str(BUSY), "--cores", "2", "--", sys.executable, "-c",
                             COUNT_HOGS + "raise SystemExit(3)\n"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = done.communicate(timeout=120)
    assert done.returncode == 3, err  # the command's exit code
    assert out.strip() == "2"
    assert "with 2 core(s) busy; exit code 3" in err
    assert hogs_of(done.pid) == []


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_the_hogs_end_when_busy_is_stopped(stop):
    busy = subprocess.Popen([sys.executable, str(BUSY), "--cores", "2", "--seconds", "300"],
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert busy.stderr.readline().startswith(b"busy: 2 hog")
        # Both are started by now, yet with both cores busy this once found only one of them
        # in /proc at this point: look again for up to a minute.
        assert len(hogs_within_a_minute(busy.pid, 2)) == 2
        os.kill(busy.pid, stop)
        busy.wait(timeout=60)
        assert hogs_within_a_minute(busy.pid, 0) == []  # after SIGKILL, each hog notices on its own
    finally:
        busy.kill()
        busy.wait()
        for pid in hogs_of(busy.pid):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("args", [["--cores", "0"], ["--cores", "x"], ["--seconds", "-1"],
                                  ["--seconds", "nan"], ["--bogus"], ["--"]])
def test_bad_arguments_are_one_line_and_exit_2(args):
    done = subprocess.run([sys.executable, str(BUSY), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("busy: "), done.stderr


def test_help_describes_it():
    done = subprocess.run([sys.executable, str(BUSY), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--cores" in done.stdout and "-- bash scripts/test" in done.stdout
