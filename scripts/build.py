#!/usr/bin/env python3
"""Build the KotH Arena static site.

    python scripts/build.py [--out build/site] [--pyodide-cdn URL]

Steps: npm ci (when node_modules is missing or older than package-lock.json), bundle the
page and the workers with esbuild (the page's bundle holds every game's renderer,
web/src/games/*.js, which it imports by name), copy the static files, render the rule books
for bot authors (docs/rules/*.md, with `marked` pinned in package.json) to
docs/rules/*.html, copy the Pyodide runtime (unless --pyodide-cdn is given), write
engine.zip, python2.zip (fissix and appdirs at the versions pinned in pyproject.toml, for
converting Python 2 answers in the controller Worker: from the installed distributions, or
wheels `pip download`ed into build/cache/wheels when those are not the pinned versions), the
Python memory snapshot every Worker of the page starts from (python-snapshot.bin, made under
Node by scripts/snapshot.mjs; skipped with --pyodide-cdn, whose Pyodide may not be the one in
node_modules) and config.json. Standard library only.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = "build/site"

# (source relative to ROOT, output name, required)
BUNDLES = [
    ("web/src/boot.js", "boot.js", True),
    ("web/src/app.js", "app.js", True),
    ("web/src/bot_worker.js", "bot_worker.js", False),
]
# Bundled last, with config.json written into it (SITE_CONFIG): its fetches start at once.
CONTROLLER_BUNDLE = ("web/src/controller_worker.js", "controller_worker.js")
STATIC_FILES = ["web/index.html", "web/style.css", "web/main.py"]
# Files of node_modules/pyodide/ that loadPyodide may fetch (any version layout).
PYODIDE_SUFFIXES = (".js", ".mjs", ".wasm", ".zip")
PYODIDE_EXTRA = ("pyodide-lock.json", "package.json")


RULES_DIR = "docs/rules"
# Renders Markdown files to HTML with marked: argv = [out_dir, file.md, ...]; each page gets
# the site's stylesheet and a link back to the page.
RENDER_RULES_JS = r"""
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { marked } from "marked";
const [outDir, ...files] = process.argv.slice(1);
const POLICY = "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self' data:; "
  + "object-src 'none'; base-uri 'none'; form-action 'none'";
const entities = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escape = (t) => t.replace(/[&<>"]/g, (c) => entities[c]);
for (const file of files) {
  const text = readFileSync(file, "utf8");
  const title = (text.match(/^# (.+)$/m) || [, basename(file, ".md")])[1];
  const body = marked.parse(text, { gfm: true });
  writeFileSync(`${outDir}/${basename(file, ".md")}.html`, `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${POLICY}">
  <title>${escape(title)} · KotH Arena</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="../../style.css">
</head>
<body>
  <main class="rules-page">
    <p><a href="../../index.html">← KotH Arena</a></p>
${body}
  </main>
</body>
</html>
`);
}
"""


class BuildError(Exception):
    pass


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit code 2
        raise UsageError(message)


def parse_args(argv):
    p = _Parser(prog="build.py", description="Build the KotH Arena static site.")
    p.add_argument("--out", default=DEFAULT_OUT, help="output directory (default build/site)")
    p.add_argument("--pyodide-cdn", default=None, metavar="URL",
                   help="load Pyodide from this URL instead of copying the runtime")
    args = p.parse_args(argv)
    if args.pyodide_cdn is not None:
        url = args.pyodide_cdn.strip()
        if not (url.startswith("https://") or url.startswith("http://")):
            raise UsageError(f"--pyodide-cdn must be an http(s) URL, got {args.pyodide_cdn!r}")
        if not url.endswith("/"):
            url += "/"
        args.pyodide_cdn = url
    if not args.out.strip():
        raise UsageError("--out must not be empty")
    return args


def step(msg):
    print(msg, flush=True)


def ensure_node_modules():
    nm = ROOT / "node_modules"
    lock = ROOT / "package-lock.json"
    marker = nm / ".package-lock.json"
    stale = (not nm.is_dir() or not (nm / ".bin" / "esbuild").exists()
             or (lock.exists() and marker.exists()
                 and marker.stat().st_mtime < lock.stat().st_mtime)
             or (lock.exists() and not marker.exists()))
    if not stale:
        step("npm ci: node_modules is up to date, skipped")
        return
    npm = shutil.which("npm")
    if npm is None:
        raise BuildError("npm not found on PATH (needed to install node_modules)")
    step("npm ci: installing node_modules")
    r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise BuildError("npm ci failed:\n" + r.stdout[-4000:])


def bundle(src: Path, dest: Path, defines: dict[str, str] | None = None):
    esbuild = ROOT / "node_modules" / ".bin" / "esbuild"
    cmd = [str(esbuild), str(src), "--bundle", "--format=esm", "--minify",
           *(f"--define:{name}={value}" for name, value in (defines or {}).items()),
           "--platform=browser", "--target=es2022",
           # pyodide.mjs imports node builtins (and ws) only on its Node.js code path
           "--external:node:*", "--external:ws",
           "--loader:.py=text",  # the page's example games (examples/games/*.py) as text
           "--log-level=warning", f"--outfile={dest}"]
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        raise BuildError(f"esbuild failed for {src.relative_to(ROOT)}:\n{r.stdout}")


def render_rules(out: Path) -> int:
    """docs/rules/<game>.md -> <out>/docs/rules/<game>.html (the page links each game's
    spec.rules_doc with .md replaced by .html)."""
    sources = sorted((ROOT / RULES_DIR).glob("*.md"))
    dest = out / RULES_DIR
    dest.mkdir(parents=True, exist_ok=True)
    if not sources:
        return 0
    node = shutil.which("node")
    if node is None:
        raise BuildError("node not found on PATH (needed to render the rule books)")
    r = subprocess.run([node, "--input-type=module", "-e", RENDER_RULES_JS, str(dest),
                        *map(str, sources)], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise BuildError(f"rendering the rule books failed:\n{r.stdout[-4000:]}")
    return len(sources)


def copy_pyodide(out: Path) -> int:
    src = ROOT / "node_modules" / "pyodide"
    if not src.is_dir():
        raise BuildError("node_modules/pyodide is missing")
    dst = out / "pyodide"
    dst.mkdir(parents=True, exist_ok=True)
    n = 0
    for f in sorted(src.iterdir()):
        if f.is_file() and (f.name.endswith(PYODIDE_SUFFIXES) or f.name in PYODIDE_EXTRA):
            shutil.copy2(f, dst / f.name)
            n += 1
    return n


def write_engine_zip(out: Path) -> int:
    engine = ROOT / "engine"
    dest = out / "engine.zip"
    n = 0
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
        if engine.is_dir():
            for f in sorted(engine.rglob("*.py")):
                if "__pycache__" in f.parts:
                    continue
                z.write(f, f.relative_to(ROOT).as_posix())
                n += 1
    return n


PYTHON2_PACKAGES = ("fissix", "appdirs")  # what engine/bots/python2.py imports
WHEEL_CACHE = ROOT / "build" / "cache" / "wheels"


def pinned_versions(names=PYTHON2_PACKAGES) -> dict[str, str]:
    """The ``NAME==VERSION`` pins of pyproject.toml's ``python2`` extra for these packages."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = {}
    for requirement in project["optional-dependencies"]["python2"]:
        name, _, version = requirement.partition("==")
        if name.strip() in names:
            pins[name.strip()] = version.strip()
    missing = [name for name in names if name not in pins]
    if missing:
        raise BuildError(f"pyproject.toml pins no version of {', '.join(missing)}")
    return pins


def _package_files(name: str, version: str):
    """(path in the zip, bytes) of a package's Python files: from the installed distribution
    when it is the pinned version, else from its wheel (downloaded once into the cache)."""
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        dist = None
    if dist is not None and dist.version == version and dist.files:
        for file in dist.files:
            path = file.as_posix()
            if _shipped(path):
                yield path, Path(dist.locate_file(file)).read_bytes()
        return
    wheels = sorted(WHEEL_CACHE.glob(f"{name}-{version}-*.whl"))
    if not wheels:
        step(f"pip download {name}=={version} (not installed at that version)")
        r = subprocess.run([sys.executable, "-m", "pip", "download", f"{name}=={version}", "--no-deps",
                            "--only-binary", ":all:", "-d", str(WHEEL_CACHE)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wheels = sorted(WHEEL_CACHE.glob(f"{name}-{version}-*.whl"))
        if r.returncode != 0 or not wheels:
            raise BuildError(f"cannot get {name}=={version} (pip install -e '.[python2]' installs it):\n"
                             f"{r.stdout[-2000:]}")
    with zipfile.ZipFile(wheels[0]) as wheel:
        for path in wheel.namelist():
            if _shipped(path):
                yield path, wheel.read(path)


def _shipped(path: str) -> bool:
    """Sources and the grammar files; no compiled caches, metadata or the package's tests."""
    parts = path.split("/")
    return (not path.startswith("..") and ".dist-info" not in parts[0] and "__pycache__" not in parts
            and "tests" not in parts and path.endswith((".py", ".txt")))


def write_python2_zip(out: Path) -> dict[str, str]:
    """python2.zip: the Python 2 converter's packages, unpacked by the controller Worker."""
    pins = pinned_versions()
    with zipfile.ZipFile(out / "python2.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for name, version in pins.items():
            count = 0
            for path, data in _package_files(name, version):
                z.writestr(path, data)
                count += 1
            if not count:
                raise BuildError(f"{name}=={version} has no files to ship")
    return pins


SNAPSHOT_FILE = "python-snapshot.bin"


def write_snapshot(out: Path) -> dict:
    """python-snapshot.bin (scripts/snapshot.mjs) and its config.json entry: the file, its
    size and its SHA-256 as Subresource Integrity metadata (the controller fetches it with it)."""
    node = shutil.which("node")
    if node is None:
        raise BuildError("node not found on PATH (needed to make the Python snapshot)")
    r = subprocess.run([node, str(ROOT / "scripts" / "snapshot.mjs"), str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"making the Python snapshot failed:\n{(r.stderr or r.stdout)[-4000:]}")
    made = json.loads(r.stdout.strip().splitlines()[-1])
    data = (out / SNAPSHOT_FILE).read_bytes()
    integrity = "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()
    return {"file": SNAPSHOT_FILE, "bytes": len(data), "integrity": integrity,
            "memoryBytes": made["memoryBytes"], "preloadMs": made["preloadMs"]}


def site_build_id(out: Path) -> str:
    """What a Python memory snapshot depends on: the engine, the controller and the Pyodide
    release."""
    digest = hashlib.sha256((out / "engine.zip").read_bytes())
    digest.update((out / "main.py").read_bytes())
    digest.update((ROOT / "web" / "preload.py").read_bytes())
    pyodide_package = json.loads((ROOT / "node_modules" / "pyodide" / "package.json").read_text())
    digest.update(pyodide_package["version"].encode())
    return digest.hexdigest()[:16]


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def human(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024
    return str(n)


def build(out_dir: str = DEFAULT_OUT, pyodide_cdn: str | None = None) -> Path:
    out = Path(out_dir)
    if not out.is_absolute():
        out = ROOT / out
    ensure_node_modules()
    out.mkdir(parents=True, exist_ok=True)
    for rel, name, required in BUNDLES:
        src = ROOT / rel
        if not src.exists():
            if required:
                raise BuildError(f"{rel} is missing")
            step(f"warning: {rel} is missing, skipped")
            (out / name).unlink(missing_ok=True)
            continue
        bundle(src, out / name)
        step(f"bundled {rel} -> {name} ({human((out / name).stat().st_size)})")
    for rel in STATIC_FILES:
        src = ROOT / rel
        if not src.exists():
            step(f"warning: {rel} is missing, skipped")
            continue
        shutil.copy2(src, out / src.name)
        step(f"copied {rel}")
    n = render_rules(out)
    step(f"rendered {n} rule books to {RULES_DIR}/*.html")
    if pyodide_cdn:
        if (out / "pyodide").is_dir():
            shutil.rmtree(out / "pyodide")
        step(f"pyodide: using CDN {pyodide_cdn}, runtime not copied")
        index_url = pyodide_cdn
    else:
        n = copy_pyodide(out)
        step(f"pyodide: copied {n} runtime files to pyodide/")
        index_url = "./pyodide/"
    n = write_engine_zip(out)
    step(f"wrote engine.zip ({n} files)")
    pins = write_python2_zip(out)
    step("wrote python2.zip (" + ", ".join(f"{k} {v}" for k, v in pins.items()) + ")")
    build_id = site_build_id(out)
    config = {"pyodideIndexURL": index_url, "buildId": build_id}
    (out / SNAPSHOT_FILE).unlink(missing_ok=True)
    if pyodide_cdn:
        step("python snapshot: skipped (--pyodide-cdn: Python boots in the page)")
    else:
        snapshot = write_snapshot(out)
        config["snapshot"] = {k: snapshot[k] for k in ("file", "bytes", "integrity", "memoryBytes")}
        step(f"wrote {SNAPSHOT_FILE} ({human(snapshot['bytes'])}: the non-zero pages of "
             f"{human(snapshot['memoryBytes'])} of memory; imports took {snapshot['preloadMs']} ms)")
    (out / "config.json").write_text(json.dumps(config) + "\n")
    step(f"wrote config.json (pyodideIndexURL {index_url}, buildId {build_id})")
    src, name = CONTROLLER_BUNDLE
    bundle(ROOT / src, out / name, {"SITE_CONFIG": json.dumps(config)})
    step(f"bundled {src} -> {name} ({human((out / name).stat().st_size)}), config.json in it")
    step(f"done: {out} ({human(dir_size(out))} total)")
    return out


def main(argv=None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        print(f"build.py: error: {e}", file=sys.stderr)
        return 2
    try:
        build(args.out, args.pyodide_cdn)
    except BuildError as e:
        print(f"build.py: build failed: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
