"""The page's JavaScript stays in modules of one job each (issue 19): no module of web/src
over MAX_LINES lines, so that no file grows back into the 1,800-line app.js whose module-level
state let a run of one game start with another game's code."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 400


def page_modules() -> list[Path]:
    return sorted((ROOT / "web" / "src").rglob("*.js"))


def test_the_page_has_its_modules():
    names = {p.relative_to(ROOT / "web" / "src").as_posix() for p in page_modules()}
    assert {"app.js", "controller_worker.js", "page/store.js", "worker/messages.js",
            "worker/run_loop.js", "worker/bot_pool.js"} <= names


def test_no_page_module_is_over_the_limit():
    over = {p.relative_to(ROOT).as_posix(): n for p in page_modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not over, f"web/src modules over {MAX_LINES} lines (split them by job): {over}"
