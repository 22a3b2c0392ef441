#!/usr/bin/env python3
"""Build the KotH Arena static site.

    python scripts/build.py [--out build/site] [--pyodide-cdn URL]

Steps: npm ci (when node_modules is missing or older than package-lock.json), bundle the
page and the workers with esbuild (the page's bundle holds every game's renderer,
web/src/games/*.js, which it imports by name), copy the static files, render the rule books
for bot authors (docs/rules/*.md, with `marked` pinned in package.json) to
docs/rules/*.html, copy the Pyodide runtime (unless --pyodide-cdn is given), write
engine.zip, python2.zip (fissix and appdirs at the versions pinned in pyproject.toml, for
converting Python 2 answers in the conversion Worker: from the installed distributions, or
wheels `pip download`ed into build/cache/wheels when those are not the pinned versions), the
Python memory snapshot every Worker of the page starts from (python-snapshot.bin, made under
Node by scripts/snapshot.mjs; skipped with --pyodide-cdn, whose Pyodide may not be the one in
node_modules), the project's wheel (koth_arena-VERSION-py3-none-any.whl, scripts/site_wheel.py:
what a Stack Snippet loads, the same bytes from the same sources; the page's export pins its
SHA-256 and its preview runs it) and config.json (also written into controller_worker.js, bundled last); last,
precompressed siblings NAME.gz and NAME.br of every file that shrinks by 10% or more
(write_compressed, cached by content in build/cache/compressed; scripts/serve.py serves them
with Content-Encoding).
Standard library only (Brotli through Node's zlib).
"""
from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = "build/site"

# (source relative to ROOT, output name, required)
BUNDLES = [
    ("web/src/app.js", "app.js", True),
    ("web/src/bot_worker.js", "bot_worker.js", False),
    ("web/src/snapshot_fetch.js", "snapshot_fetch.js", True),
    ("web/src/snippet_frame.js", "snippet_frame.js", True),  # the snippet preview's frame
]
# Bundled last, with config.json written into them (SITE_CONFIG): their fetches start at once.
CONFIGURED_BUNDLES = [("web/src/boot.js", "boot.js"),
                      ("web/src/controller_worker.js", "controller_worker.js")]
# bot_relay_sw.js: the bots' relay, a service worker (a classic script: no bundle, no import)
STATIC_FILES = ["web/index.html", "web/style.css", "web/main.py", "web/bot_relay_sw.js",
                "web/snippet_preview.html"]
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
    """python2.zip: the Python 2 converter's packages, unpacked by the conversion Worker."""
    pins = pinned_versions()
    with zipfile.ZipFile(out / "python2.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for name, version in pins.items():
            count = 0
            for path, data in _package_files(name, version):
                entry = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))  # the same bytes
                entry.compress_type = zipfile.ZIP_DEFLATED  # every build: the wheel holds it
                z.writestr(entry, data)
                count += 1
            if not count:
                raise BuildError(f"{name}=={version} has no files to ship")
    return pins


SNAPSHOT_FILE = "python-snapshot.bin"
# The page's files a Stack Snippet boots from the wheel (scripts/site_wheel.py), and those it
# takes when the build made them.
WHEEL_SITE_FILES = ("app.js", "controller_worker.js", "bot_worker.js", "index.html", "style.css", "main.py")
OPTIONAL_WHEEL_SITE_FILES = ("python2.zip",)


def _site_wheel():
    spec = importlib.util.spec_from_file_location("koth_arena_site_wheel", ROOT / "scripts" / "site_wheel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project_version() -> str:
    """engine.__version__, read without importing the engine (pyproject.toml takes it too)."""
    text = (ROOT / "engine" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def write_wheel(out: Path) -> dict:
    """The project's wheel beside the page (what a Stack Snippet loads; the page's snippet
    preview runs this very file) and its config.json entry: the file, version and SHA-256.
    Its controller_worker.js carries no site config (a snippet hands it one), so the wheel
    is the same whatever --pyodide-cdn says, and the same bytes for the same sources."""
    site_wheel = _site_wheel()
    for old in out.glob("koth_arena-*.whl*"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="koth-wheel-") as tmp:
        controller = Path(tmp) / "controller_worker.js"
        bundle(ROOT / "web/src/controller_worker.js", controller, {"SITE_CONFIG": "null"})
        files = {name: (controller if name == "controller_worker.js" else out / name).read_bytes()
                 for name in WHEEL_SITE_FILES}
        files.update({name: (out / name).read_bytes() for name in OPTIONAL_WHEEL_SITE_FILES
                      if (out / name).is_file()})
        version = project_version()
        wheel = site_wheel.write_wheel(files, out, version)
    return {"file": wheel.name, "version": version, "sha256": site_wheel.sha256_of(wheel),
            "bytes": wheel.stat().st_size}


# Pyodide's C side records as it starts whether WebAssembly can switch stacks (JSPI, which a
# bot's input() needs where the page is not cross-origin isolated), and a snapshot keeps the
# record: Node has it behind a flag (Node 20: the API before WebAssembly.Suspending).
STACK_SWITCHING_FLAGS = ("--experimental-wasm-stack-switching", "--experimental-wasm-jspi")


def stack_switching_flags(node: str) -> list[str]:
    """The first of STACK_SWITCHING_FLAGS this Node accepts that gives WebAssembly stack
    switching, or none (the snapshot then says it cannot, and a browser that can boots Python
    instead of restoring it)."""
    probe = "process.exit('Suspending' in WebAssembly || 'Suspender' in WebAssembly ? 0 : 1)"
    for flag in STACK_SWITCHING_FLAGS:
        if subprocess.run([node, flag, "-e", probe], capture_output=True).returncode == 0:
            return [flag]
    return []


def write_snapshot(out: Path) -> dict:
    """python-snapshot.bin (scripts/snapshot.mjs) and its config.json entry: the file, its
    size and its SHA-256 as Subresource Integrity metadata (the controller fetches it with it)."""
    node = shutil.which("node")
    if node is None:
        raise BuildError("node not found on PATH (needed to make the Python snapshot)")
    r = subprocess.run([node, *stack_switching_flags(node), str(ROOT / "scripts" / "snapshot.mjs"),
                        str(out)], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        raise BuildError(f"making the Python snapshot failed:\n{(r.stderr or r.stdout)[-4000:]}")
    made = json.loads(r.stdout.strip().splitlines()[-1])
    data = (out / SNAPSHOT_FILE).read_bytes()
    integrity = "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode()
    return {"file": SNAPSHOT_FILE, "bytes": len(data), "integrity": integrity,
            "memoryBytes": made["memoryBytes"], "jspi": made["jspi"], "preloadMs": made["preloadMs"]}


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


# Precompressed siblings (write_compressed): NAME.gz and NAME.br beside NAME, for hosts that
# serve them with Content-Encoding (scripts/serve.py does). Zips are deflated already.
COMPRESSIBLE_SUFFIXES = (".wasm", ".js", ".mjs", ".json", ".html", ".css", ".py", ".txt",
                         ".md", ".map", ".svg", ".bin")
SIBLING_SUFFIXES = (".gz", ".br")
MIN_SAVING = 0.10  # a sibling smaller than 90% of its file is not worth a second copy
# Files up to this size get the best settings (gzip 9, Brotli 11); bigger ones gzip 6 and
# Brotli 9. Measured here: Brotli 11 takes 23 s on pyodide.asm.wasm (9.6 MB; 10: 13 s) for
# 11% fewer bytes than 9 (1.6 s), 1.2 s on a 1 MB script for 12% fewer; gzip 9 takes 2.8 s
# on a 31 MB memory snapshot for 1% fewer bytes than 6 (0.5 s).
BEST_EFFORT_MAX_BYTES = 1024 * 1024
# Compressed forms are kept by content digest, so a rebuild compresses only what changed:
# build/cache/compressed/<path in the site>/<digest>.gz|.br, the CACHE_KEPT last used
# versions of each file.
COMPRESSED_CACHE = ROOT / "build" / "cache" / "compressed"
CACHE_KEPT = 2
# Compresses files with Brotli: stdin = JSON [[source, quality, destination], ...]. Runs them
# all at once on libuv's thread pool (every core).
BROTLI_JS = r"""
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { brotliCompress, constants } from "node:zlib";
const compress = promisify(brotliCompress);
const jobs = JSON.parse(readFileSync(0, "utf8"));
await Promise.all(jobs.map(async ([source, quality, destination]) => {
  const data = await readFile(source);
  await writeFile(destination, await compress(data, { params: {
    [constants.BROTLI_PARAM_QUALITY]: quality,
    [constants.BROTLI_PARAM_SIZE_HINT]: data.length } }));
}));
"""


def _is_sibling(f: Path) -> bool:
    """NAME.gz / NAME.br where NAME is a file kind write_compressed compresses."""
    return f.suffix in SIBLING_SUFFIXES and Path(f.stem).suffix in COMPRESSIBLE_SUFFIXES


def _prune_cache(entry: Path) -> None:
    """Keep the CACHE_KEPT most recently used versions in one file's cache folder (and
    no leftover of a build that was interrupted an hour ago)."""
    versions: dict[str, float] = {}
    for f in entry.iterdir():
        if f.suffix == ".tmp" and f.stat().st_mtime < time.time() - 3600:
            f.unlink(missing_ok=True)
        elif f.suffix in SIBLING_SUFFIXES:
            versions[f.stem] = max(versions.get(f.stem, 0.0), f.stat().st_mtime)
    for stale in sorted(versions, key=versions.get, reverse=True)[CACHE_KEPT:]:
        for suffix in SIBLING_SUFFIXES:
            (entry / f"{stale}{suffix}").unlink(missing_ok=True)


def write_compressed(out: Path, cache: Path = COMPRESSED_CACHE) -> dict[str, int]:
    """Write NAME.gz and NAME.br beside every compressible file of the site (each only when
    it is at least MIN_SAVING smaller), after removing every sibling an earlier build left,
    so a rebuild never keeps one of a file that changed or is gone. Compressed forms an
    earlier build made of the same bytes come from `cache`. Returns the totals over the
    compressible files: bytes as they are, and as a gzip / Brotli client fetches them."""
    start = time.perf_counter()
    for f in out.rglob("*"):
        if f.is_file() and _is_sibling(f):
            f.unlink()
    files = sorted(f for f in out.rglob("*")
                   if f.is_file() and f.suffix in COMPRESSIBLE_SUFFIXES)
    sizes, cached, brotli_jobs, gzip_jobs = [], [], [], []
    for f in files:
        data = f.read_bytes()
        best = len(data) <= BEST_EFFORT_MAX_BYTES
        level, quality = (9, 11) if best else (6, 9)
        digest = hashlib.sha256(data)
        digest.update(f"gzip {level} brotli {quality}".encode())
        entry = cache / f.relative_to(out).as_posix()
        entry.mkdir(parents=True, exist_ok=True)
        gz, br = (entry / f"{digest.hexdigest()[:32]}{suffix}" for suffix in SIBLING_SUFFIXES)
        sizes.append(len(data))
        cached.append((gz, br))
        if not gz.exists():
            gzip_jobs.append((f, level, gz))
        if not br.exists():
            brotli_jobs.append((br, [str(f), quality, f"{br}.{os.getpid()}.tmp"]))
    if brotli_jobs:
        node = shutil.which("node")
        if node is None:
            raise BuildError("node not found on PATH (needed for Brotli)")
        brotli = subprocess.Popen([node, "--input-type=module", "-e", BROTLI_JS], cwd=ROOT,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
    # gzip here while Node runs Brotli: the two share the cores.
    for f, level, gz in gzip_jobs:
        tmp = gz.with_name(f"{gz.name}.{os.getpid()}.tmp")
        tmp.write_bytes(gzip.compress(f.read_bytes(), compresslevel=level, mtime=0))
        os.replace(tmp, gz)
    if brotli_jobs:
        _, stderr = brotli.communicate(json.dumps([job for _, job in brotli_jobs]))
        if brotli.returncode != 0:
            raise BuildError(f"Brotli compression failed:\n{stderr[-4000:]}")
        for br, (_, _, tmp) in brotli_jobs:
            os.replace(tmp, br)
    fetched = {".gz": 0, ".br": 0}  # bytes a client of that coding fetches
    written = {".gz": 0, ".br": 0}
    for f, size, pair in zip(files, sizes, cached, strict=True):
        stat = f.stat()
        for suffix, compressed in zip(SIBLING_SUFFIXES, pair, strict=True):
            os.utime(compressed)  # used now: kept by _prune_cache
            packed = compressed.stat().st_size
            if packed > size * (1 - MIN_SAVING):
                fetched[suffix] += size  # not worth a sibling: fetched as it is
                continue
            sibling = f.with_name(f.name + suffix)
            shutil.copyfile(compressed, sibling)
            # A sibling carries its file's date (nginx's gzip_static asks for it; serve.py
            # sends a sibling only while it is not older than its file).
            os.utime(sibling, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            fetched[suffix] += packed
            written[suffix] += 1
        _prune_cache(pair[0].parent)
    totals = {
        "files": len(files),
        "bytes": sum(sizes),
        "gzip": fetched[".gz"],
        "br": fetched[".br"],
        "gz_written": written[".gz"],
        "br_written": written[".br"],
    }
    step(f"compressed {totals['files']} files ({totals['gz_written']} .gz, "
         f"{totals['br_written']} .br written, {len(files) - len(brotli_jobs)} from the "
         f"cache): {human(totals['bytes'])} -> gzip {human(totals['gzip'])}, Brotli "
         f"{human(totals['br'])} in {time.perf_counter() - start:.1f} s")
    return totals


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
    config["wheel"] = write_wheel(out)
    step(f"wrote {config['wheel']['file']} ({human(config['wheel']['bytes'])}, SHA-256 "
         f"{config['wheel']['sha256']}): a Stack Snippet's wheel")
    (out / SNAPSHOT_FILE).unlink(missing_ok=True)
    if pyodide_cdn:
        step("python snapshot: skipped (--pyodide-cdn: Python boots in the page)")
    else:
        snapshot = write_snapshot(out)
        config["snapshot"] = {k: snapshot[k] for k in ("file", "bytes", "integrity", "memoryBytes", "jspi")}
        step(f"wrote {SNAPSHOT_FILE} ({human(snapshot['bytes'])}: the non-zero pages of "
             f"{human(snapshot['memoryBytes'])} of memory; imports took {snapshot['preloadMs']} ms)")
    (out / "config.json").write_text(json.dumps(config) + "\n")
    step(f"wrote config.json (pyodideIndexURL {index_url}, buildId {build_id})")
    for src, name in CONFIGURED_BUNDLES:
        bundle(ROOT / src, out / name, {"SITE_CONFIG": json.dumps(config)})
        step(f"bundled {src} -> {name} ({human((out / name).stat().st_size)}), config.json in it")
    write_compressed(out)  # last: compresses whatever the steps above wrote
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
