"""The sandbox's file system keeps the project's Python visible wherever it is installed.

A project Python may be a virtual environment under ``/tmp``; the sandbox mounts its
private ``/tmp`` first and binds the Python install read-only after it, so the install is
not hidden by that ``/tmp`` and bots still start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine.bots.sandbox import Sandbox, SandboxError

ROOT = Path(__file__).resolve().parents[1]

try:
    Sandbox().probe()
    SANDBOX = True
except SandboxError:
    SANDBOX = False


@pytest.mark.skipif(not SANDBOX, reason="no working bubblewrap sandbox here")
def test_a_virtual_environment_under_tmp_starts_sandboxed_bots():
    base = tempfile.mkdtemp(dir="/tmp", prefix="koth-venv-")
    try:
        venv = Path(base) / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
        check = ("import sys; from engine.bots.sandbox import Sandbox; "
                 "assert sys.prefix.startswith('/tmp/'), sys.prefix; Sandbox().probe(); print('started')")
        done = subprocess.run([str(venv / "bin" / "python"), "-c", check], cwd=ROOT, capture_output=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
        assert done.stdout.decode().strip() == "started"
    finally:
        shutil.rmtree(base, ignore_errors=True)
