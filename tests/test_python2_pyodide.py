"""The Python 2 conversion is the same in Pyodide (the page's Python 3.14, fissix unpacked from
the site's python2.zip as the controller Worker does) as in CPython: the same converted text,
line maps, suggestions and, with the answers as in-process bots, the same games."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNNER = Path(__file__).resolve().parent / "pyodide_python.mjs"
ANSWERS = Path(__file__).resolve().parent / "python2_answers"

CONVERT = '''
import json, sys
from engine.bots.code import BotLoadError
from engine.bots.native import InProcessBot
from engine.bots.python2 import convert, python2_reason
from engine.play.match import run_series
from engine.games.registry import get_game

args = json.loads(ARGS)
conversions = {}
for name, source in args["answers"].items():
    c = convert(source)
    conversions[name] = [c.converted, list(c.lines), c.true_division, c.diff(), python2_reason(source)]
deep = []
for depth in (110, 5000):  # fissix recurses per level: refused before it can overflow the stack
    try:
        convert("print " + "(" * depth + "1/2" + ")" * depth + "\\n")
        deep.append("converted")
    except BotLoadError as exc:
        deep.append(exc.message)
spec = get_game("atomas")
settings = spec.settings(max_moves=150, time_limit_ms=60_000)
bot = InProcessBot("a", args["answers"]["atomas"], language="python2")
document = run_series(spec, settings, [bot], 3, 2, secret="S").document
out = {"conversions": conversions, "document": document, "platform": sys.platform, "deep": deep}
json.dumps({**out, "version": list(sys.version_info[:2])})
'''


def _answers() -> dict[str, str]:
    return {path.stem: path.read_text(encoding="utf-8") for path in sorted(ANSWERS.glob("*.py"))}


def _python2_zip(tmp_path: Path) -> Path:
    spec = importlib.util.spec_from_file_location("koth_build_for_py2", ROOT / "scripts" / "build.py")
    build = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = build
    spec.loader.exec_module(build)
    build.write_python2_zip(tmp_path)
    return tmp_path / "python2.zip"


def _in_cpython(args: dict) -> dict:
    namespace: dict = {"ARGS": json.dumps(args)}
    *body, last = CONVERT.strip().splitlines()
    exec("\n".join(body), namespace)  # noqa: S102 - our own test code
    return json.loads(eval(last, namespace))  # noqa: S307


def _in_pyodide(args: dict, zip_path: Path) -> dict:
    node = shutil.which("node")
    assert node, "Node is needed to run Pyodide (the README's set-up installs it)"
    assert (ROOT / "node_modules" / "pyodide").is_dir(), "run `npm ci` first (scripts/test does)"
    code = f"ARGS = {json.dumps(json.dumps(args))}\n{CONVERT}"
    done = subprocess.run([node, str(RUNNER)], input=code, capture_output=True, text=True, cwd=ROOT,
                          timeout=600, env={**os.environ, "KOTH_PYODIDE_ZIPS": str(zip_path)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> tuple[dict, dict]:
    args = {"answers": _answers()}
    return _in_cpython(args), _in_pyodide(args, _python2_zip(tmp_path_factory.mktemp("python2")))


def test_the_conversion_is_the_same_in_pyodide(both):
    cpython, pyodide = both
    assert pyodide["platform"] == "emscripten" and pyodide["version"] >= [3, 12]
    assert set(cpython["conversions"]) == {"atomas", "flit", "abotcalypse"}
    for name, native in cpython["conversions"].items():
        page = pyodide["conversions"][name]
        assert page[:4] == native[:4], name  # text, line map, __future__ division, diff
        # Suggested in both; the reason quotes Python 3's own SyntaxError, which 3.14 words
        # differently (it reads `except IOError, e:` further before failing).
        assert "converts from Python 2" in page[4] and "converts from Python 2" in native[4]


def test_a_python2_answer_plays_the_same_games_in_pyodide(both):
    cpython, pyodide = both
    for a, b in zip(cpython["document"]["records"], pyodide["document"]["records"], strict=True):
        assert a["turns"] == b["turns"] and a["result"] == b["result"]
        assert not any(f for t in a["turns"] for f in t["faults"])


def test_deep_code_is_refused_before_it_overflows_pyodide(both):
    """A tree deeper than fissix's recursion can print ended Pyodide's whole runtime (the page's
    controller): it is refused with a message instead, the same in both runtimes."""
    cpython, pyodide = both
    assert pyodide["deep"] == cpython["deep"]
    assert pyodide["deep"][0] == "converted" and "nests 5,005 levels deep" in pyodide["deep"][1]
