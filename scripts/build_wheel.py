#!/usr/bin/env python3
"""Build the project's pure-Python wheel, with the page's UI inside it (for Stack Snippets).

    python scripts/build_wheel.py [--out dist]

A Stack Snippet cannot carry the engine or the page (a post holds 30,000 characters): it
loads Pyodide from its CDN and this wheel from the package index (or a URL the author
chooses), unpacks it, and boots the page from the files inside it. So the wheel holds the
`engine` package and, as package data under `engine/site/`, the page's bundled scripts
(app.js, controller_worker.js, bot_worker.js), index.html, style.css, main.py and
python2.zip. It depends on nothing (rich is the `cli` extra).

The site build writes it (scripts/build.py, through scripts/site_wheel.py: the same bytes
from the same sources, so the SHA-256 a page built from this checkout pins is this file's);
this script builds the site into a temporary directory (Pyodide from its CDN: no snapshot,
quicker) and copies the wheel out. Prints the wheel's path, size and SHA-256: the exporter
pins them. Nothing is written into the repository but the output directory (dist/ by
default).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class WheelError(Exception):
    pass


def pyodide_version() -> str:
    """The Pyodide the page is built against (package-lock.json): the snippet loads the same."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    return lock["packages"]["node_modules/pyodide"]["version"]


def pyodide_cdn_url(version: str | None = None) -> str:
    return f"https://cdn.jsdelivr.net/npm/pyodide@{version or pyodide_version()}/"


def _load_build():
    spec = importlib.util.spec_from_file_location("koth_arena_build_for_wheel", ROOT / "scripts" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project_version() -> str:
    return _load_build().project_version()


def wheel_name(version: str | None = None) -> str:
    return f"koth_arena-{version or project_version()}-py3-none-any.whl"


def build_wheel(out_dir: str | Path = "dist") -> Path:
    out = Path(out_dir)
    if not out.is_absolute():
        out = ROOT / out
    out.mkdir(parents=True, exist_ok=True)
    build = _load_build()
    with tempfile.TemporaryDirectory(prefix="koth-wheel-") as tmp:
        try:
            site = build.build(str(Path(tmp) / "site"), pyodide_cdn_url())
        except build.BuildError as exc:
            raise WheelError(f"the site build failed: {exc}") from exc
        entry = json.loads((site / "config.json").read_text())["wheel"]
        target = out / entry["file"]
        shutil.copy2(site / entry["file"], target)
    return target


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_wheel.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="dist", help="output directory (default dist)")
    args = parser.parse_args(argv)
    try:
        wheel = build_wheel(args.out)
    except WheelError as exc:
        print(f"build_wheel.py: {exc}", file=sys.stderr)
        return 1
    print(f"wheel: {wheel}")
    print(f"size: {wheel.stat().st_size:,} bytes")
    print(f"sha256: {sha256_of(wheel)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
