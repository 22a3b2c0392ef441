"""The Stack Snippet exporter (engine/contest/snippet.py, scripts/export_snippet.py) and the wheel the
snippet loads (scripts/build_wheel.py): the markdown parses back into the site's snippet form,
carries the challenge and nothing else, refuses past a post's 30,000 characters with the size;
the wheel holds the engine and the page's files and depends on nothing."""
from __future__ import annotations

import importlib.util
import json
import random
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine import __version__
from engine.contest.challenge import ChallengeError, challenge_json, load_challenge
from engine.contest.snippet import (
    BEGIN,
    MAX_POST_CHARS,
    SnippetError,
    SnippetOptions,
    SnippetTooBig,
    export_snippet,
    parse_snippet,
    pypi_wheel_url,
    snippet_document,
    unpack_challenge,
)
from engine.contest.stackexchange import parse_question_ref

ROOT = Path(__file__).resolve().parent.parent
CHALLENGE = {
    "format": "koth-arena-challenge", "version": 1, "title": "Flit, trial", "description": "Three entries.",
    "game": "flit", "preset": "trial", "settings": {}, "games": 2, "seed": 1, "secret": "S",
    "entries": [{"name": "greedy", "author": "the engine", "code": "builtin:greedy"},
                {"name": "random", "code": "builtin:random"},
                {"name": "first", "author": "Ann", "code": "def move(view):\n    m = sorted(view.moves())\n"
                 "    return m[0] if m else (0, 0, 0, 0)\n", "link": "https://example.org/a/1"}],
}
OPTIONS = SnippetOptions(version=__version__, pyodide_version="314.0.7",
                         question=parse_question_ref("262108"))


def config_of(markdown: str) -> dict:
    js = parse_snippet(markdown)["js"]
    return json.loads(re.search(r"const K = (\{.*?\});\n", js).group(1))


def test_markdown_is_one_snippet_block_in_the_sites_form():
    markdown = export_snippet(json.dumps(CHALLENGE), OPTIONS)
    lines = markdown.splitlines()
    assert lines[0] == BEGIN == "<!-- begin snippet: js hide: false console: true babel: false -->"
    assert lines[-1] == "<!-- end snippet -->"
    assert "<!-- language: lang-js -->" in lines and "<!-- language: lang-html -->" in lines
    code = [line for line in lines if line and not line.startswith("<!--")]
    assert all(line.startswith("    ") for line in code)  # every code line is an indented block
    blocks = parse_snippet(markdown)
    assert set(blocks) == {"js", "html"}
    assert 'id="koth-boot"' in blocks["html"]
    assert len(markdown) < 6_000  # the challenge and a boot script, no engine


def test_the_snippet_carries_the_challenge_and_pins_the_wheel():
    markdown = export_snippet(json.dumps(CHALLENGE), OPTIONS)
    config = config_of(markdown)
    assert config["wheel"] == pypi_wheel_url(__version__)
    assert config["wheel"].endswith(f"/koth_arena-{__version__}-py3-none-any.whl")
    assert config["pyodide"] == "https://cdn.jsdelivr.net/npm/pyodide@314.0.7/"
    assert (config["question"], config["site"], config["sha256"]) == (262108, "codegolf", None)
    unpacked = unpack_challenge(config["challenge"])
    assert json.loads(unpacked) == json.loads(challenge_json(load_challenge(json.dumps(CHALLENGE))))


def test_author_chosen_wheel_url_and_hash():
    options = SnippetOptions(version=__version__, pyodide_version="314.0.7",
                             wheel_url="https://cdn.example.org/koth/koth_arena.whl", wheel_sha256="ab" * 32)
    config = config_of(export_snippet(json.dumps(CHALLENGE), options))
    assert config["wheel"] == "https://cdn.example.org/koth/koth_arena.whl"
    assert config["sha256"] == "ab" * 32 and config["question"] is None


@pytest.mark.parametrize("options, message", [
    (SnippetOptions(version="0.1.0", pyodide_version="314.0.7", wheel_url="http://x.org/a.whl"), "https://"),
    (SnippetOptions(version="0.1.0", pyodide_version="314.0.7", wheel_url="https://x.org/a\".whl"), "https://"),
    (SnippetOptions(version="0.1.0", pyodide_version="314.0.7", wheel_sha256="XYZ"), "SHA-256"),
    (SnippetOptions(version="0.1.0</script>", pyodide_version="314.0.7"), "bad version"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(SnippetError, match=message):
        export_snippet(json.dumps(CHALLENGE), options)


def test_a_bad_challenge_is_refused_by_the_engine():
    broken = {**CHALLENGE, "games": 0}
    with pytest.raises(ChallengeError, match="games"):
        export_snippet(json.dumps(broken), OPTIONS)


def test_nothing_in_the_challenge_can_close_the_script():
    evil = {**CHALLENGE, "description": "</script><script>alert(1)</script>"}
    markdown = export_snippet(json.dumps(evil), OPTIONS)
    assert "</script>" not in parse_snippet(markdown)["js"]


def big_code(chars: int) -> str:
    rng = random.Random(5)  # random text: deflate cannot shrink it much
    return "".join(f"x{rng.getrandbits(64):016x} = {rng.getrandbits(64)}\n" for _ in range(chars // 40))


def test_over_the_post_limit_is_refused_with_the_size():
    big = {**CHALLENGE, "entries": [*CHALLENGE["entries"], {"name": "huge", "code": big_code(40_000)}]}
    with pytest.raises(SnippetTooBig) as caught:
        export_snippet(json.dumps(big), OPTIONS)
    assert caught.value.size > MAX_POST_CHARS
    assert f"{caught.value.size:,} characters" in str(caught.value) and "30,000" in str(caught.value)


def test_snippet_document_puts_the_script_after_the_html():
    doc = snippet_document(export_snippet(json.dumps(CHALLENGE), OPTIONS))
    assert doc.index('id="koth-boot"') < doc.index("<script>") < doc.index("DecompressionStream")


# ---- scripts/export_snippet.py -------------------------------------------------------------

def export(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "export_snippet.py"), *args],
                          capture_output=True, text=True, timeout=60)


def test_export_script_writes_the_snippet(tmp_path):
    (tmp_path / "c.json").write_text(json.dumps(CHALLENGE))
    result = export(str(tmp_path / "c.json"), "--question", "https://codegolf.stackexchange.com/questions/262108/x",
                    "--sha256", "cd" * 32)
    assert result.returncode == 0, result.stderr
    config = config_of(result.stdout)
    assert (config["question"], config["sha256"]) == (262108, "cd" * 32)
    assert re.search(r"snippet: [\d,]+ of 30,000 characters", result.stderr)


def test_export_script_refuses_a_big_snippet_and_bad_arguments(tmp_path):
    big = {**CHALLENGE, "entries": [*CHALLENGE["entries"], {"name": "huge", "code": big_code(40_000)}]}
    (tmp_path / "big.json").write_text(json.dumps(big))
    result = export(str(tmp_path / "big.json"), "--no-pin")
    assert result.returncode == 1 and result.stdout == ""
    assert re.match(r"export_snippet\.py: refused: the snippet is [\d,]+ characters: "
                    r"a post holds at most 30,000", result.stderr)
    result = export(str(tmp_path / "missing.json"))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    (tmp_path / "c.json").write_text(json.dumps(CHALLENGE))
    result = export(str(tmp_path / "c.json"), "--wheel-url", "http://insecure.example/x.whl", "--no-pin")
    assert result.returncode == 2 and "https://" in result.stderr


# ---- scripts/build_wheel.py ----------------------------------------------------------------

@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    path = ROOT / "scripts" / "build_wheel.py"
    spec = importlib.util.spec_from_file_location("koth_build_wheel_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_wheel(tmp_path_factory.mktemp("dist"))


def test_the_wheel_holds_the_engine_and_the_page_and_needs_nothing(wheel):
    assert wheel.name == f"koth_arena-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        metadata = z.read(f"koth_arena-{__version__}.dist-info/METADATA").decode()
        index = z.read("engine/site/index.html").decode()
    for name in ("engine/__init__.py", "engine/contest/snippet.py", "engine/contest/stackexchange.py",
                 "engine/games/flit/game.py", "engine/games/flit/examples/greedy.py"):
        assert name in names
    for name in ("app.js", "controller_worker.js", "bot_worker.js", "index.html", "style.css", "main.py"):
        assert f"engine/site/{name}" in names
    assert 'id="se-import"' in index  # the page's own markup
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires)  # rich and the rest are extras
    assert 'Requires-Dist: rich==15.0.0; extra == "cli"' in requires
    assert not any(n.startswith(("tests/", "web/", "node_modules/")) for n in names)
