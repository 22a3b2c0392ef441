"""Precompressed assets: scripts/build.py writes NAME.gz and NAME.br beside the site's files
(write_compressed) and scripts/serve.py sends them with Content-Encoding to a browser that
accepts them, with the headers the file itself gets (type, CSP, isolation, caching)."""
from __future__ import annotations

import gzip
import http.client
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_script(name: str):
    spec = importlib.util.spec_from_file_location(f"koth_arena_{name}_for_compression",
                                                  ROOT / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


build = _load_script("build")
serve = _load_script("serve")

NODE = shutil.which("node")  # resolved once: a test runs a build with no PATH
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def _script(n_lines: int, seed: int = 0) -> bytes:
    """Text that compresses like a bundled script does."""
    rng = random.Random(seed)
    words = ["const", "function", "return", "await", "postMessage", "pyodide", "bot",
             "if", "else", "=>", "{", "}", "(", ")", ";", "self", "data", "seat"]
    return "\n".join(" ".join(rng.choice(words) for _ in range(12))
                     for _ in range(n_lines)).encode()


def _brotli_decompress(path: Path) -> bytes:
    """Node's zlib decodes Brotli (Python's standard library has none)."""
    done = subprocess.run(
        [NODE, "-e", "process.stdout.write(require('zlib').brotliDecompressSync("
                       "require('fs').readFileSync(process.argv[1])))", str(path)],
        capture_output=True, check=True, timeout=60)
    return done.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A built-like site: scripts, the WebAssembly, the page, with siblings written by the
    build's own step."""
    out = tmp_path_factory.mktemp("site")
    (out / "pyodide").mkdir()
    (out / "bot_worker.js").write_bytes(_script(3000, seed=1))
    (out / "app.js").write_bytes(_script(3000, seed=2))
    (out / "index.html").write_bytes(b"<!doctype html><title>KotH Arena</title>\n" * 300)
    (out / "pyodide" / "pyodide.asm.wasm").write_bytes(b"\0asm\1\0\0\0" + _script(2000, 3))
    (out / "config.json").write_text('{"pyodideIndexURL": "./pyodide/"}\n')
    if shutil.which("node"):
        build.write_compressed(out, cache=tmp_path_factory.mktemp("cache"))
    else:  # the serve tests below need only the gzip siblings
        for name in ("bot_worker.js", "app.js", "index.html", "pyodide/pyodide.asm.wasm"):
            (out / f"{name}.gz").write_bytes(gzip.compress((out / name).read_bytes()))
    return out


@pytest.fixture(scope="module")
def server(site):
    server, url = serve.serve_in_thread(site, port=0, isolation=True, csp=True)
    yield server
    server.shutdown()
    server.server_close()


def bot_policy(server) -> str:
    """A bot Worker's policy: nothing but its read from the bots' relay (web/bot_relay_sw.js),
    at the host the request named."""
    host, port = server.server_address[:2]
    return ("default-src 'none'; script-src 'wasm-unsafe-eval'; "
            f"connect-src {host}:{port}/__koth_relay/v1/read")


def fetch(server, path: str, accept_encoding: str | None = None, method: str = "GET",
          headers: dict | None = None):
    """(status, headers, body) of one request; accept_encoding None sends no
    Accept-Encoding header at all."""
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        if accept_encoding is not None:
            conn.putheader("Accept-Encoding", accept_encoding)
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def test_without_accept_encoding_the_file_is_sent_as_it_is(server, site):
    status, headers, body = fetch(server, "/app.js")
    assert status == 200
    assert headers["Content-Encoding"] is None
    assert body == (site / "app.js").read_bytes()
    assert headers["Content-Type"] == "text/javascript"
    assert headers["Vary"] == "Accept-Encoding"  # a cache must not give it to a br client


def test_gzip_is_sent_to_a_gzip_client_and_decodes_to_the_file(server, site):
    status, headers, body = fetch(server, "/app.js", "gzip, deflate")
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Type"] == "text/javascript"
    assert int(headers["Content-Length"]) == len(body) < (site / "app.js").stat().st_size
    assert gzip.decompress(body) == (site / "app.js").read_bytes()


@needs_node
def test_brotli_is_preferred_and_decodes_to_the_file(server, site):
    status, headers, body = fetch(server, "/app.js", "gzip, deflate, br, zstd")
    assert status == 200
    assert headers["Content-Encoding"] == "br"
    assert headers["Vary"] == "Accept-Encoding"
    assert int(headers["Content-Length"]) == len(body)
    assert body == (site / "app.js.br").read_bytes()
    assert _brotli_decompress(site / "app.js.br") == (site / "app.js").read_bytes()


@needs_node
@pytest.mark.parametrize(("accept", "expected"), [
    ("gzip;q=0, br", "br"),
    ("br;q=0, gzip", "gzip"),
    ("br;q=0.5, gzip;q=0.8", "gzip"),
    ("gzip;q=0", None),
    ("br;q=0, gzip;q=0", None),
    ("*", "br"),
    ("*;q=0", None),
    ("identity", None),
    ("GZIP", "gzip"),
    ("gzip;q=nonsense", None),
])
def test_accept_encoding_q_values_are_honoured(server, site, accept, expected):
    status, headers, body = fetch(server, "/app.js", accept)
    assert status == 200
    assert headers["Content-Encoding"] == expected
    original = (site / "app.js").read_bytes()
    if expected is None:
        assert body == original
    elif expected == "gzip":
        assert gzip.decompress(body) == original
    else:
        assert body == (site / "app.js.br").read_bytes()


def test_webassembly_keeps_its_type_for_streaming_compilation(server, site):
    status, headers, body = fetch(server, "/pyodide/pyodide.asm.wasm", "gzip")
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"] == "application/wasm"
    assert gzip.decompress(body) == (site / "pyodide" / "pyodide.asm.wasm").read_bytes()


def test_a_compressed_bot_worker_keeps_its_strict_policy_and_isolation(server):
    status, headers, body = fetch(server, "/bot_worker.js", "gzip")
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Content-Security-Policy"] == bot_policy(server)
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
    assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    assert headers["Cross-Origin-Resource-Policy"] == "same-origin"
    assert headers["Cache-Control"] == "no-cache"
    assert headers.get_all("Content-Security-Policy") == [headers["Content-Security-Policy"]]


def test_the_index_is_compressed_with_the_page_policy(server, site):
    status, headers, body = fetch(server, "/", "gzip")
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert "connect-src 'self' https://api.stackexchange.com" in \
        headers["Content-Security-Policy"]
    assert gzip.decompress(body) == (site / "index.html").read_bytes()


def test_head_sends_the_compressed_headers_without_a_body(server, site):
    status, headers, body = fetch(server, "/bot_worker.js", "gzip", method="HEAD")
    assert status == 200
    assert body == b""
    assert headers["Content-Encoding"] == "gzip"
    assert int(headers["Content-Length"]) == (site / "bot_worker.js.gz").stat().st_size
    assert headers["Content-Security-Policy"] == bot_policy(server)


@pytest.mark.parametrize("accept", [None, "gzip", "br, gzip"])
def test_if_modified_since_gets_304_in_every_encoding(server, accept):
    status, headers, _ = fetch(server, "/bot_worker.js", accept)
    assert status == 200
    last_modified = headers["Last-Modified"]
    status, headers, body = fetch(server, "/bot_worker.js", accept,
                                  headers={"If-Modified-Since": last_modified})
    assert status == 304
    assert body == b""
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Content-Security-Policy"] == bot_policy(server)
    # a date before the file's: the file is sent again
    status, _, _ = fetch(server, "/bot_worker.js", accept,
                         headers={"If-Modified-Since": "Thu, 01 Jan 1998 00:00:00 GMT"})
    assert status == 200


def test_a_file_without_siblings_is_sent_as_it_is_with_no_vary(server, site):
    status, headers, body = fetch(server, "/config.json", "br, gzip")
    assert status == 200
    assert headers["Content-Encoding"] is None
    assert headers["Vary"] is None
    assert body == (site / "config.json").read_bytes()


def test_a_sibling_older_than_its_file_is_not_served(site, tmp_path):
    """A file edited after the build: its siblings hold the old version."""
    (tmp_path / "app.js").write_bytes(b"// new version\n" * 200)
    shutil.copy(site / "app.js.gz", tmp_path / "app.js.gz")
    old = (tmp_path / "app.js").stat().st_mtime - 60
    os.utime(tmp_path / "app.js.gz", (old, old))
    server, _ = serve.serve_in_thread(tmp_path, port=0)
    try:
        status, headers, body = fetch(server, "/app.js", "gzip")
    finally:
        server.shutdown()
        server.server_close()
    assert status == 200
    assert headers["Content-Encoding"] is None
    assert body == b"// new version\n" * 200


def test_a_sibling_asked_for_by_name_is_bytes_not_a_script(server, site):
    status, headers, body = fetch(server, "/app.js.gz", "gzip")
    assert status == 200
    assert headers["Content-Encoding"] is None
    assert headers["Content-Type"] == "application/gzip"
    assert body == (site / "app.js.gz").read_bytes()


def test_missing_files_and_directories_are_answered_as_before(server):
    assert fetch(server, "/nothing.js", "br, gzip")[0] == 404
    status, headers, _ = fetch(server, "/pyodide", "br, gzip")
    assert status == 301
    assert headers["Location"] == "/pyodide/"


@needs_node
def test_write_compressed_writes_siblings_that_pay_and_removes_stale_ones(tmp_path_factory):
    tmp_path, cache = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("cache")
    script = _script(2000, seed=4)
    (tmp_path / "app.js").write_bytes(script)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "rules.html").write_bytes(b"<p>rules</p>\n" * 500)
    noise = random.Random(5).randbytes(200_000)  # compresses by nothing
    (tmp_path / "snapshot.bin").write_bytes(noise)
    (tmp_path / "snapshot.bin.gz").write_bytes(b"from an earlier build")
    with zipfile.ZipFile(tmp_path / "stdlib.zip", "w", zipfile.ZIP_STORED) as z:
        z.writestr("a.py", script.decode())  # stored, so it would shrink: zips are skipped
    (tmp_path / "app.js.gz").write_bytes(gzip.compress(b"an older app.js"))
    (tmp_path / "gone.js.gz").write_bytes(b"of a file the build no longer writes")
    (tmp_path / "gone.js.br").write_bytes(b"of a file the build no longer writes")

    totals = build.write_compressed(tmp_path, cache=cache)

    assert gzip.decompress((tmp_path / "app.js.gz").read_bytes()) == script
    assert _brotli_decompress(tmp_path / "app.js.br") == script
    rules = (tmp_path / "docs" / "rules.html").read_bytes()
    assert gzip.decompress((tmp_path / "docs" / "rules.html.gz").read_bytes()) == rules
    assert _brotli_decompress(tmp_path / "docs" / "rules.html.br") == rules
    for stale in ("snapshot.bin.gz", "snapshot.bin.br", "gone.js.gz", "gone.js.br",
                  "stdlib.zip.gz", "stdlib.zip.br"):
        assert not (tmp_path / stale).exists(), stale
    assert (tmp_path / "snapshot.bin").read_bytes() == noise
    assert totals["files"] == 3
    assert totals["bytes"] == len(script) + len(rules) + len(noise)
    assert totals["gzip"] == (len(noise) + (tmp_path / "app.js.gz").stat().st_size
                              + (tmp_path / "docs" / "rules.html.gz").stat().st_size)
    assert totals["br"] < totals["gzip"] < totals["bytes"]

    # a rebuild writes the same siblings again, byte for byte
    def siblings():
        return {p.relative_to(tmp_path).as_posix(): p.read_bytes()
                for p in tmp_path.rglob("*") if p.suffix in (".gz", ".br")}
    before = siblings()
    assert sorted(before) == ["app.js.br", "app.js.gz", "docs/rules.html.br",
                              "docs/rules.html.gz"]
    assert build.write_compressed(tmp_path, cache=cache) == totals
    assert siblings() == before


@needs_node
def test_the_cache_never_gives_a_changed_file_its_old_siblings(tmp_path_factory, monkeypatch):
    out, cache = tmp_path_factory.mktemp("site"), tmp_path_factory.mktemp("cache")
    versions = [_script(1500, seed=n) for n in range(4)]
    for version in versions:
        (out / "app.js").write_bytes(version)
        build.write_compressed(out, cache=cache)
        assert gzip.decompress((out / "app.js.gz").read_bytes()) == version
        assert _brotli_decompress(out / "app.js.br") == version
    # one version's pair per build was cached; only the last CACHE_KEPT are kept
    kept = sorted(p.name for p in (cache / "app.js").iterdir())
    assert len(kept) == 2 * build.CACHE_KEPT, kept
    # a rebuild of a kept version compresses nothing: it needs no Node at all
    before = (out / "app.js.br").read_bytes()
    (out / "app.js").write_bytes(versions[-2])
    monkeypatch.setenv("PATH", "")
    build.write_compressed(out, cache=cache)
    assert _brotli_decompress(out / "app.js.br") == versions[-2]
    assert (out / "app.js.br").read_bytes() != before


def test_no_compression_serves_every_file_as_it_is(site):
    """serve.py --no-compression: as a host that ignores the siblings."""
    server, _ = serve.serve_in_thread(site, port=0, compression=False)
    try:
        status, headers, body = fetch(server, "/pyodide/pyodide.asm.wasm", "br, gzip")
    finally:
        server.shutdown()
        server.server_close()
    assert status == 200
    assert headers["Content-Encoding"] is None
    assert headers["Vary"] is None
    assert headers["Content-Type"] == "application/wasm"
    assert body == (site / "pyodide" / "pyodide.asm.wasm").read_bytes()


@needs_node
def test_siblings_carry_their_files_date(site):
    for name in ("app.js", "index.html", "pyodide/pyodide.asm.wasm"):
        mtime = (site / name).stat().st_mtime_ns
        assert (site / f"{name}.gz").stat().st_mtime_ns == mtime
        assert (site / f"{name}.br").stat().st_mtime_ns == mtime
