"""The built-in example bots: plain bot source files, shown in the page's examples menu
and playable as ``builtin:NAME``. They use only the documented bot API."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def example_names(game: str) -> list[str]:
    return sorted(p.stem for p in (HERE / game).glob("*.py") if not p.stem.startswith("_"))


def example_source(game: str, name: str) -> str:
    path = HERE / game / f"{name}.py"
    if name.startswith("_") or not path.is_file():
        known = ", ".join(example_names(game)) or "none"
        raise ValueError(f"no built-in bot {name!r} for {game}; choose from {known}")
    return path.read_text(encoding="utf-8")


def all_examples() -> dict[str, dict[str, str]]:
    return {game: {name: example_source(game, name) for name in example_names(game)}
            for game in ("atomas", "flit")}
