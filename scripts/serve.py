#!/usr/bin/env python3
"""Build and serve the KotH Arena static site.

    python scripts/serve.py [--port 8000] [--host 127.0.0.1] [--no-isolation] [--no-csp]
                            [--no-compression] [--no-build] [--out build/site]

Serves with cross-origin isolation headers (COOP/COEP/CORP) unless --no-isolation, so that
bots can be interrupted (SharedArrayBuffer), and with a Content-Security-Policy per file
unless --no-csp (content_security_policy() below: the page reaches only its own origin,
a bot Worker nothing at all), and serves a file's precompressed sibling NAME.br or NAME.gz
(written by build.py) with Content-Encoding when the request accepts it, unless
--no-compression. Importable without side effects: tests use
serve_in_thread(directory, port=0, isolation=True, csp=True, compression=True) -> (server, url).
"""
from __future__ import annotations

import argparse
import datetime
import email.utils
import functools
import importlib.util
import json
import os
import re
import stat
import sys
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent

MIME_TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".py": "text/plain; charset=utf-8",
    ".zip": "application/zip",
    ".json": "application/json",
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".map": "application/json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    "": "application/octet-stream",
}


# A sibling requested by its own URL is sent as it is, typed so that nothing runs it.
SIBLING_TYPES = {".gz": "application/gzip", ".br": "application/octet-stream"}

# Where the page may connect besides itself: the Stack Exchange API (challenge answers).
PAGE_CONNECT = "https://api.stackexchange.com"


# The one URL a bot Worker may request, beside bot_worker.js: its read from the bots' relay
# (web/bot_relay_sw.js, answered by the page's service worker; "relay" mode).
RELAY_READ = "__koth_relay/v1/read"
# A Host header that can be written into a policy as it is (anything else: no relay).
SAFE_HOST = re.compile(r"(?:[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}|\[[0-9A-Fa-f:.]{2,45}\])"
                       r"(?::[0-9]{1,5})?")
SAFE_DIR = re.compile(r"/(?:[A-Za-z0-9._~-]+/){0,16}")


# The snippet preview's frame document (web/snippet_preview.html): sandboxed, an opaque origin.
PREVIEW_FRAME = "snippet_preview.html"


def content_security_policy(path: str, pyodide_origin: str = "", host: str = "") -> str:
    """The policy for one file of the site. A Worker's policy is the one its script is
    served with, so each Worker gets its own: the controller loads Pyodide and the engine
    from this origin (or the Pyodide CDN) and starts the bot Workers; a bot Worker gets
    every byte it needs in a message and may load, fetch or start nothing (only compile
    WebAssembly, for Pyodide), but for one URL, its read from the bots' relay, written
    with the request's `host` (a source without a scheme takes the Worker's). index.html
    carries the page's policy in a meta tag too, for hosts that cannot send headers."""
    bare = path.split("?", 1)[0].split("#", 1)[0]
    folder, name = bare.rsplit("/", 1) if "/" in bare else ("", bare)
    extra = f" {pyodide_origin}" if pyodide_origin else ""
    if name == "bot_worker.js":
        policy = "default-src 'none'; script-src 'wasm-unsafe-eval'"
        if SAFE_HOST.fullmatch(host) and SAFE_DIR.fullmatch(folder + "/"):
            policy += f"; connect-src {host}{folder}/{RELAY_READ}"
        return policy
    if name == PREVIEW_FRAME:  # the snippet preview's frame: an opaque origin, sandboxed
        # WebKit matches 'self' of an opaque-origin document to nothing (Chromium and Firefox,
        # to the document's URL): the site is named too, with the request's host
        site = f" http://{host} https://{host}" if SAFE_HOST.fullmatch(host) else ""
        return ("sandbox allow-scripts allow-forms allow-modals; default-src 'none'; "
                f"script-src 'self'{site} blob: 'wasm-unsafe-eval'{extra}; worker-src blob:; "
                f"connect-src 'self'{site} blob: {PAGE_CONNECT}{extra}; style-src 'unsafe-inline'; "
                f"img-src 'self'{site} data: blob:; base-uri 'none'; form-action 'none'; "
                "frame-ancestors 'self'")
    if name == "controller_worker.js":
        return (f"default-src 'none'; script-src 'self' 'wasm-unsafe-eval'{extra}; "
                f"connect-src 'self'{extra}; worker-src 'self'")
    return (f"default-src 'self'; script-src 'self'; connect-src 'self' {PAGE_CONNECT}; "
            "worker-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def preview_loads(path: str) -> bool:
    """Whether the snippet preview's frame loads this file. The frame's origin is opaque, so
    each of its loads is cross-origin: these files (all public) are sent with
    Access-Control-Allow-Origin: * and, under isolation, Cross-Origin-Resource-Policy:
    cross-origin; every other file keeps same-origin."""
    parts = urlsplit(path).path.lstrip("/").split("/")
    return (parts == ["snippet_frame.js"] or (len(parts) == 1 and parts[0].startswith("koth_arena-")
            and parts[0].endswith(".whl")) or (len(parts) == 2 and parts[0] == "pyodide"))


def is_preview_frame(path: str) -> bool:
    """Whether this is the snippet preview's frame document (public; framed by this site only:
    its policy's frame-ancestors)."""
    return urlsplit(path).path.rsplit("/", 1)[-1] == PREVIEW_FRAME


def pyodide_origin(directory) -> str:
    """The origin Pyodide is loaded from when the site was built with --pyodide-cdn."""
    try:
        config = json.loads((Path(directory) / "config.json").read_text())
        url = urlsplit(str(config.get("pyodideIndexURL", "")))
    except (OSError, ValueError, AttributeError):
        return ""
    return f"{url.scheme}://{url.netloc}" if url.scheme in ("http", "https") and url.netloc else ""


# Content-Encoding -> the suffix of a file's precompressed sibling, in order of preference
# when the request accepts both equally.
SIBLINGS = {"br": ".br", "gzip": ".gz"}


def accepted_codings(accept_encoding: str) -> dict[str, float]:
    """Accept-Encoding as {coding: q} (lower-case codings; a q that is not a number counts
    as 0, so a garbled entry never selects a coding)."""
    codings: dict[str, float] = {}
    for item in accept_encoding.split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        if not coding:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
                if not 0.0 <= q <= 1.0:
                    q = 0.0
        codings[coding.lower()] = q
    return codings


def choose_coding(accept_encoding: str | None, available) -> str | None:
    """The coding to send among `available` (keys of SIBLINGS): the one the request accepts
    with the highest q, br on a tie; None when it accepts none (q=0 refuses a coding, `*`
    stands for every coding it does not name)."""
    codings = accepted_codings(accept_encoding or "")
    best, best_q = None, 0.0
    for coding in SIBLINGS:
        if coding not in available:
            continue
        q = codings.get(coding, codings.get("*", 0.0))
        if q > best_q:
            best, best_q = coding, q
    return best


class ArenaHandler(SimpleHTTPRequestHandler):
    extensions_map = MIME_TYPES
    isolation = True
    csp = True
    pyodide_origin = ""
    compression = True
    varies = False  # this response depends on Accept-Encoding (the file has a sibling)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        if self.varies:
            self.send_header("Vary", "Accept-Encoding")
        if self.csp:
            self.send_header("Content-Security-Policy",
                             content_security_policy(self.path, self.pyodide_origin,
                                                     self.headers.get("Host", "")))
        shared = preview_loads(self.path)
        if shared:
            self.send_header("Access-Control-Allow-Origin", "*")
        if self.isolation:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            # Firefox checks the preview frame's own document against its opaque origin: a
            # same-origin policy there blocks the frame (Chromium checks the parent's origin).
            corp = "cross-origin" if shared or is_preview_frame(self.path) else "same-origin"
            self.send_header("Cross-Origin-Resource-Policy", corp)
        super().end_headers()

    def send_head(self):
        """A file with an up-to-date sibling the request accepts is answered with the
        sibling (the original's type and date, the sibling's bytes); anything else as
        SimpleHTTPRequestHandler answers it (redirects, listings, 404s, Range ignored)."""
        path = self._file_path() if self.compression else None
        siblings = self._fresh_siblings(path) if path else {}
        self.varies = bool(siblings)
        coding = choose_coding(self.headers.get("Accept-Encoding"), siblings)
        if coding is None:
            return super().send_head()
        try:
            f = open(siblings[coding], "rb")
        except OSError:
            return super().send_head()
        try:
            mtime = os.stat(path).st_mtime
            if self._not_modified_since(mtime):
                self.send_response(HTTPStatus.NOT_MODIFIED)
                self.end_headers()
                f.close()
                return None
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-type", self.guess_type(path))
            self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
            self.send_header("Last-Modified", self.date_time_string(mtime))
            self.end_headers()
            return f
        except BaseException:
            f.close()
            raise

    def _file_path(self) -> str | None:
        """The regular file this GET or HEAD names (a directory's index.html), or None for
        whatever SimpleHTTPRequestHandler answers otherwise."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not urlsplit(self.path).path.endswith("/"):
                return None  # redirected to the slash
            path = os.path.join(path, "index.html")
        if path.endswith("/") or not os.path.isfile(path):
            return None
        return path

    @staticmethod
    def _fresh_siblings(path: str) -> dict[str, str]:
        """{coding: sibling path} for the siblings of `path` not older than it (one that
        is older was made from another version of the file)."""
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return {}
        fresh = {}
        for coding, suffix in SIBLINGS.items():
            try:
                sibling = os.stat(path + suffix)
            except OSError:
                continue
            if stat.S_ISREG(sibling.st_mode) and sibling.st_mtime_ns >= mtime:
                fresh[coding] = path + suffix
        return fresh

    def _not_modified_since(self, mtime: float) -> bool:
        """If-Modified-Since as SimpleHTTPRequestHandler.send_head reads it."""
        if "If-Modified-Since" not in self.headers or "If-None-Match" in self.headers:
            return False
        try:
            ims = email.utils.parsedate_to_datetime(self.headers["If-Modified-Since"])
        except (TypeError, IndexError, OverflowError, ValueError):
            return False
        if ims.tzinfo is None:
            ims = ims.replace(tzinfo=datetime.UTC)
        if ims.tzinfo is not datetime.UTC:
            return False
        last_modified = datetime.datetime.fromtimestamp(mtime, datetime.UTC)
        return last_modified.replace(microsecond=0) <= ims

    def guess_type(self, path):
        ext = os.path.splitext(str(path))[1].lower()
        if ext in SIBLING_TYPES:  # a sibling asked for by its own name: bytes, not a script
            return SIBLING_TYPES[ext]
        if ext in MIME_TYPES:
            return MIME_TYPES[ext]
        return super().guess_type(path)

    def log_message(self, format, *args):  # quiet: only errors
        pass

    def log_error(self, format, *args):
        sys.stderr.write("serve: %s\n" % (format % args))


class ArenaServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
            return  # the browser went away mid-response: not worth a traceback
        super().handle_error(request, client_address)


def make_server(directory, host="127.0.0.1", port=0, isolation=True, csp=True, compression=True):
    handler = type("Handler", (ArenaHandler,), {
        "isolation": bool(isolation), "csp": bool(csp), "compression": bool(compression),
        "pyodide_origin": pyodide_origin(directory)})
    handler = functools.partial(handler, directory=str(directory))
    server = ArenaServer((host, port), handler)
    server.daemon_threads = True
    return server


def server_url(server) -> str:
    host, port = server.server_address[:2]
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return f"http://{host}:{port}/"


def serve_in_thread(directory, port=0, isolation=True, host="127.0.0.1", csp=True,
                    compression=True):
    """Serve `directory` in a daemon thread. Returns (server, url); stop with
    server.shutdown(); server.server_close()."""
    server = make_server(directory, host=host, port=port, isolation=isolation, csp=csp,
                         compression=compression)
    t = threading.Thread(target=server.serve_forever, name="koth-arena-serve", daemon=True)
    t.start()
    return server, server_url(server)


def _load_build():
    spec = importlib.util.spec_from_file_location("koth_arena_build",
                                                  Path(__file__).resolve().parent / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        print(f"serve.py: error: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv=None) -> int:
    p = _Parser(prog="serve.py", description="Build and serve KotH Arena.")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--no-isolation", action="store_true",
                   help="do not send COOP/COEP/CORP headers")
    p.add_argument("--no-csp", action="store_true",
                   help="do not send Content-Security-Policy headers (as a static host "
                        "that cannot set headers)")
    p.add_argument("--no-compression", action="store_true",
                   help="never send the build's precompressed NAME.br / NAME.gz (as a host "
                        "that ignores them)")
    p.add_argument("--no-build", action="store_true", help="serve the existing build")
    p.add_argument("--out", default="build/site", help="site directory (default build/site)")
    p.add_argument("--pyodide-cdn", default=None, metavar="URL")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if not 0 <= args.port <= 65535:
        print(f"serve.py: error: bad port {args.port}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if not out.is_absolute():
        out = ROOT / out
    if not args.no_build:
        build_argv = ["--out", str(out)]
        if args.pyodide_cdn:
            build_argv += ["--pyodide-cdn", args.pyodide_cdn]
        rc = _load_build().main(build_argv)
        if rc:
            return rc
    if not (out / "index.html").exists():
        print(f"serve.py: error: {out} has no index.html (run without --no-build)",
              file=sys.stderr)
        return 1
    try:
        server = make_server(out, host=args.host, port=args.port,
                             isolation=not args.no_isolation, csp=not args.no_csp,
                             compression=not args.no_compression)
    except OSError as e:
        print(f"serve.py: error: cannot listen on {args.host}:{args.port}: {e}",
              file=sys.stderr)
        return 1
    print(f"Serving KotH Arena on {server_url(server)}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
