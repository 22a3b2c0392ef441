#!/usr/bin/env python3
"""Export a challenge file as a Stack Snippet (the markdown block to paste into the question).

    python scripts/export_snippet.py CHALLENGE.json [--question ID_OR_URL] [--site SITE]
                                     [--wheel FILE | --sha256 HEX | --no-pin] [--wheel-url URL]
                                     [--pyodide-url URL] [--out FILE]

The snippet loads the project's wheel of this version (engine.__version__) from the package
index, or from --wheel-url, and refuses any file but the one whose SHA-256 it pins: by default
the wheel this checkout built (dist/, where scripts/build_wheel.py writes it, else build/site/,
where scripts/build.py does: the same bytes from the same sources), or --wheel FILE, or
--sha256 HEX; --no-pin pins nothing (any file at the URL runs). Pyodide from jsDelivr's copy of the
npm package the page is built with (package-lock.json), or --pyodide-url. --question: the
question whose answers join the field when the snippet runs. Prints the markdown (or writes
--out) and its size on stderr. A snippet over 30,000 characters (a post's limit) is refused
with its size (exit 1); bad arguments or a bad challenge file: one line, exit 2.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# Where this checkout's wheel is, in order (the file name carries the version).
WHEEL_PLACES = [ROOT / "dist", ROOT / "build" / "site"]

from engine import __version__  # noqa: E402
from engine.contest.challenge import ChallengeError  # noqa: E402
from engine.contest.snippet import MAX_POST_CHARS, SnippetError, SnippetOptions, SnippetTooBig, export_snippet  # noqa: E402
from engine.contest.stackexchange import DEFAULT_SITE, QuestionRefError, parse_question_ref  # noqa: E402


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit code 2
        print(f"export_snippet.py: error: {message}", file=sys.stderr)
        sys.exit(2)


def pyodide_version() -> str:
    lock = json.loads((ROOT / "package-lock.json").read_text())
    return lock["packages"]["node_modules/pyodide"]["version"]


def default_wheel(version: str) -> Path | None:
    """The wheel of `version` this checkout built, if any (WHEEL_PLACES, in order)."""
    for place in WHEEL_PLACES:
        path = place / f"koth_arena-{version}-py3-none-any.whl"
        if path.is_file():
            return path
    return None


def main(argv: list[str] | None = None) -> int:
    p = _Parser(prog="export_snippet.py", description="Export a challenge file as a Stack Snippet.")
    p.add_argument("challenge", type=Path, help="the challenge file (JSON)")
    p.add_argument("--question", help="the question (number or URL) whose answers join the field")
    p.add_argument("--site", default=DEFAULT_SITE,
                   help=f"its site when given by number (default {DEFAULT_SITE})")
    p.add_argument("--wheel-url", help="where the snippet downloads the wheel (default: the package index)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--sha256", help="the wheel's SHA-256, checked by the snippet")
    group.add_argument("--wheel", type=Path, help="the wheel file: its SHA-256 is pinned (default: the "
                       "wheel this checkout built, in dist/ or build/site/)")
    group.add_argument("--no-pin", action="store_true", help="pin no SHA-256: any file at the wheel URL runs")
    p.add_argument("--pyodide-url", help="where Pyodide is loaded from (default: jsDelivr)")
    p.add_argument("--out", type=Path, help="write the markdown here instead of stdout")
    args = p.parse_args(argv)
    try:
        text = args.challenge.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        p.error(f"cannot read {args.challenge}: {exc}")
    sha256 = args.sha256
    if args.wheel is None and sha256 is None and not args.no_pin:
        args.wheel = default_wheel(__version__)
        if args.wheel is None:
            p.error(f"no wheel of version {__version__} to pin: run scripts/build_wheel.py, or give "
                    "--wheel FILE, --sha256 HEX or --no-pin")
        print(f"snippet: pins {args.wheel}", file=sys.stderr)
    if args.wheel is not None:
        try:
            sha256 = hashlib.sha256(args.wheel.read_bytes()).hexdigest()
        except OSError as exc:
            p.error(f"cannot read {args.wheel}: {exc.strerror or exc}")
        if f"-{__version__}-" not in args.wheel.name:
            p.error(f"{args.wheel.name} is not the wheel of version {__version__}")
    try:
        question = parse_question_ref(args.question, args.site) if args.question else None
        options = SnippetOptions(version=__version__, pyodide_version=pyodide_version(),
                                 wheel_url=args.wheel_url, wheel_sha256=sha256, pyodide_url=args.pyodide_url,
                                 question=question)
        markdown = export_snippet(text, options)
    except SnippetTooBig as exc:
        print(f"export_snippet.py: refused: {exc}", file=sys.stderr)
        return 1
    except (ChallengeError, QuestionRefError, SnippetError) as exc:
        p.error(str(exc))
    if args.out:
        args.out.write_text(markdown, encoding="utf-8")
    else:
        sys.stdout.write(markdown)
    print(f"snippet: {len(markdown):,} of {MAX_POST_CHARS:,} characters", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
