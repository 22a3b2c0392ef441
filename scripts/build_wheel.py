#!/usr/bin/env python3
"""Build the project's pure-Python wheel, with the page's UI inside it (for Stack Snippets).

    python scripts/build_wheel.py [--out dist]

A Stack Snippet cannot carry the engine or the page (a post holds 30,000 characters): it
loads Pyodide from its CDN and this wheel from the package index (or a URL the author
chooses), unpacks it, and boots the page from the files inside it. So the wheel holds the
`engine` package and, as package data under `engine/site/`, the page's bundled scripts
(app.js, controller_worker.js, bot_worker.js), index.html, style.css and main.py, built by
scripts/build.py (esbuild) for a page whose Pyodide comes from the CDN. It depends on
nothing (rich is the `cli` extra).

Steps: build the site's files into a temporary directory, copy pyproject.toml, README.md
and engine/ beside them into a staging tree, and run `python -m build --wheel` there (the
`build` package, pinned in the test extra; it installs the pinned setuptools in an isolated
environment, from PyPI). Prints the wheel's path, size and SHA-256: the exporter pins them.
Nothing is written into the repository but the output directory (dist/ by default).
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE_FILES = ("app.js", "controller_worker.js", "bot_worker.js", "index.html", "style.css", "main.py")
# Files the site build makes when the page has use for them (the snippet hands the controller
# every file of engine/site/ it asks for by name).
OPTIONAL_SITE_FILES = ("python2.zip",)
SITE_PACKAGE_DIR = "engine/site"  # where the page's files go inside the wheel


class WheelError(Exception):
    pass


def pyodide_version() -> str:
    """The Pyodide the page is built against (package-lock.json): the snippet loads the same."""
    lock = json.loads((ROOT / "package-lock.json").read_text())
    return lock["packages"]["node_modules/pyodide"]["version"]


def pyodide_cdn_url(version: str | None = None) -> str:
    return f"https://cdn.jsdelivr.net/npm/pyodide@{version or pyodide_version()}/"


def project_version() -> str:
    """engine.__version__, read without importing the engine (pyproject.toml takes it too)."""
    text = (ROOT / "engine" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def wheel_name(version: str | None = None) -> str:
    return f"koth_arena-{version or project_version()}-py3-none-any.whl"


def _load_build():
    spec = importlib.util.spec_from_file_location("koth_arena_build_for_wheel", ROOT / "scripts" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stage(staging: Path, site: Path) -> None:
    """pyproject.toml, README.md and engine/ (sources only), with the site's files in
    engine/site/."""
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, staging / name)
    shutil.copytree(ROOT / "engine", staging / "engine",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "site"))
    dest = staging / SITE_PACKAGE_DIR
    dest.mkdir(parents=True)
    for name in SITE_FILES:
        if not (site / name).is_file():
            raise WheelError(f"the site build has no {name}")
        shutil.copy2(site / name, dest / name)
    for name in OPTIONAL_SITE_FILES:
        if (site / name).is_file():
            shutil.copy2(site / name, dest / name)


def build_wheel(out_dir: str | Path = "dist") -> Path:
    out = Path(out_dir)
    if not out.is_absolute():
        out = ROOT / out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="koth-wheel-") as tmp:
        tmp_path = Path(tmp)
        site = _load_build().build(str(tmp_path / "site"), pyodide_cdn_url())
        staging = tmp_path / "staging"
        staging.mkdir()
        stage(staging, site)
        result = subprocess.run([sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"),
                                 str(staging)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            raise WheelError("python -m build failed:\n" + result.stdout[-4000:])
        wheels = sorted((tmp_path / "dist").glob("*.whl"))
        if len(wheels) != 1:
            raise WheelError(f"expected one wheel, got {[w.name for w in wheels]}")
        target = out / wheels[0].name
        shutil.copy2(wheels[0], target)
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
