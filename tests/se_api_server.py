"""A local server shaped like the Stack Exchange API, for the tests of ``tournament
--question``: every body gzipped as the real API sends it, each request's query recorded,
and the answer to each request left to the test (``answer(path, query) -> (status, body)``).
Also the helpers those tests share: the sandbox or a skip, and the tournament command."""

from __future__ import annotations

import gzip
import subprocess
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from engine.bots.sandbox import Limits, Sandbox, SandboxError

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "se"

Answer = Callable[[str, dict], tuple[int, bytes]]


class FakeAPI:
    """Serves ``answer(path, query)`` gzipped on a free local port (``url``) until ``close``."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                parts = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(parts.query).items()}
                api.requests.append({"path": parts.path, **query})
                status, body = api.answer(parts.path, query)
                data = gzip.compress(body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def sandbox_or_skip() -> Sandbox:
    sandbox = Sandbox(Limits())
    try:
        sandbox.probe()
    except SandboxError as exc:
        pytest.skip(f"no sandbox here: {exc}")
    return sandbox


def tournament_cli(*args, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "engine", "tournament", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
