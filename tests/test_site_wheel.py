"""The project's wheel as the site build writes it (scripts/site_wheel.py): the same bytes from
the same sources (the SHA-256 a snippet pins is the published file's), a wheel pip installs;
the snippet exporter pins this checkout's wheel by default (scripts/export_snippet.py); and the
server shares with the snippet preview's opaque-origin frame only the files it loads."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from engine import __version__
from engine.contest.snippet import parse_snippet

ROOT = Path(__file__).resolve().parent.parent
SITE_FILES = {"index.html": b"<!doctype html><p id=se-import>", "app.js": b"export {};\n"}
CHALLENGE = {"format": "koth-arena-challenge", "version": 1, "title": "T", "description": "", "game": "flit",
             "preset": "trial", "settings": {}, "secret": "S",
             "games": 2, "seed": 1, "entries": [{"name": "greedy", "code": "builtin:greedy"},
                                                {"name": "random", "code": "builtin:random"}]}


WHEEL = f"koth_arena-{__version__}-py3-none-any.whl"


def config_of(markdown: str) -> dict:
    return json.loads(re.search(r"const K = (\{.*?\});\n", parse_snippet(markdown)["js"]).group(1))


def load(name: str):
    path = ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"koth_{name}_for_test_site_wheel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_same_sources_give_the_same_wheel_that_pip_installs(tmp_path):
    site_wheel = load("site_wheel")
    first = site_wheel.write_wheel(SITE_FILES, tmp_path / "a", __version__)
    second = site_wheel.write_wheel(dict(reversed(SITE_FILES.items())), tmp_path / "b", __version__)
    assert first.name == f"koth_arena-{__version__}-py3-none-any.whl"
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        record = z.read(f"koth_arena-{__version__}.dist-info/RECORD").decode()
        metadata = z.read(f"koth_arena-{__version__}.dist-info/METADATA").decode()
        assert z.read("engine/site/app.js") == SITE_FILES["app.js"]
        assert "engine/games/flit/examples/greedy.py" in z.namelist()
    assert f"Version: {__version__}\n" in metadata
    assert 'Requires-Dist: rich==15.0.0; extra == "cli"' in metadata
    assert len(record.splitlines()) == len(zipfile.ZipFile(first).namelist())
    target = tmp_path / "installed"
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
                             "--target", str(target), str(first)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert (target / "engine" / "site" / "index.html").read_bytes() == SITE_FILES["index.html"]
    found = subprocess.run([sys.executable, "-c", "import importlib.metadata as m, engine; "
                            "print(m.version('koth-arena'), engine.__file__)"], cwd=tmp_path,
                           env={"PYTHONPATH": str(target)}, capture_output=True, text=True, timeout=60)
    assert found.stdout.split() == [__version__, str(target / "engine" / "__init__.py")], found.stderr


def test_the_exporter_pins_this_checkouts_wheel_by_default(tmp_path, capsys):
    export = load("export_snippet")
    (tmp_path / "c.json").write_text(json.dumps(CHALLENGE))
    export.WHEEL_PLACES = [tmp_path / "dist"]
    with pytest.raises(SystemExit) as exit_:
        export.main([str(tmp_path / "c.json")])
    assert exit_.value.code == 2
    assert f"no wheel of version {__version__} to pin" in capsys.readouterr().err
    wheel = tmp_path / "dist" / f"koth_arena-{__version__}-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"a wheel")
    assert export.main([str(tmp_path / "c.json")]) == 0
    out = capsys.readouterr()
    assert config_of(out.out)["sha256"] == hashlib.sha256(b"a wheel").hexdigest()
    assert f"pins {wheel}" in out.err
    assert export.main([str(tmp_path / "c.json"), "--no-pin"]) == 0
    assert config_of(capsys.readouterr().out)["sha256"] is None


@pytest.fixture
def served(tmp_path):
    serve = load("serve")
    for name in ("index.html", "snippet_preview.html", "snippet_frame.js", "app.js", "config.json",
                 WHEEL, "pyodide/pyodide.asm.wasm", "python-snapshot.bin"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    server, url = serve.serve_in_thread(tmp_path, isolation=True, compression=False)
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return {k.lower(): v for k, v in response.headers.items()}


def test_only_the_preview_frames_loads_are_shared_with_its_opaque_origin(served):
    frame = headers(served + "snippet_preview.html")
    policy = frame["content-security-policy"]
    assert policy.startswith("sandbox allow-scripts allow-forms allow-modals;")
    assert "frame-ancestors 'self'" in policy and "default-src 'none'" in policy
    assert "access-control-allow-origin" not in frame
    # Firefox blocks a sandboxed frame whose document is same-origin only (checked against the
    # frame's own opaque origin): the frame's document is cross-origin, its files are not read.
    assert frame["cross-origin-resource-policy"] == "cross-origin"
    for name in ("snippet_frame.js", WHEEL, "pyodide/pyodide.asm.wasm"):
        got = headers(served + name)
        assert got["access-control-allow-origin"] == "*"
        assert got["cross-origin-resource-policy"] == "cross-origin"
    for name in ("", "app.js", "config.json", "python-snapshot.bin"):
        got = headers(served + name)
        assert "access-control-allow-origin" not in got, name
        assert got["cross-origin-resource-policy"] == "same-origin"
    page = headers(served)["content-security-policy"]
    assert "frame-ancestors 'none'" in page and "sandbox" not in page
