"""The engine's packages import only downward, and no module imports itself round a loop.

Every import counts: at module level, inside a function, under ``TYPE_CHECKING``. The
allowed directions are stated once, here (docs/architecture.md "Layout" shows the same
table); a new import against them fails with the importing file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"

# package -> the packages it may import (besides itself). ``engine`` is the top-level
# modules: ``__init__`` (the version), ``game_api`` (authors' public API, core's level) and
# ``__main__`` (``python -m engine``, the command line's entry).
ALLOWED: dict[str, set[str]] = {
    "core": {"engine"},
    "engine": set(),  # engine/__init__.py and engine/game_api.py: the standard library only
    "games": {"core", "engine", "authored"},  # the registry loads built-in games on the API
    "authored": {"core", "engine"},
    "bots": {"core", "engine", "games", "authored"},
    "play": {"core", "engine", "games", "authored", "bots"},
    "contest": {"core", "engine", "games", "authored", "bots", "play"},
    "cli": {"core", "engine", "games", "authored", "bots", "play", "contest"},
}
TOP_LEVEL = {"engine", "engine.game_api"}  # may be imported from anywhere
ENTRY = {"engine.__main__": {"cli"}}  # python -m engine


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def imports(name: str, path: Path) -> list[tuple[str, int]]:
    """The engine modules ``name`` imports, each with its line: every ``import`` statement in
    the file, wherever it is (``from X import y`` counts ``X.y`` when that is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                full = f"{module}.{alias.name}"
                found.append((full if full in MODULES else module, node.lineno))
    return [(m, line) for m, line in found if m == "engine" or m.startswith("engine.")]


def package_of(module: str) -> str:
    if module in TOP_LEVEL or module == "engine.__main__":
        return "engine"
    return module.split(".")[1]


GRAPH = {name: imports(name, path) for name, path in MODULES.items()}


def test_every_engine_module_is_in_a_package_of_the_table() -> None:
    flat = [n for n, p in MODULES.items()
            if p.parent == ENGINE and p.name != "__init__.py" and n not in TOP_LEVEL and n not in ENTRY]
    packages = {p.parent.name for p in ENGINE.glob("*/__init__.py")}
    assert flat == [], f"modules outside the packages (put each in the package of its concern): {flat}"
    assert packages == set(ALLOWED) - {"engine"}, packages ^ (set(ALLOWED) - {"engine"})


def test_package_inits_import_nothing() -> None:
    """So an import of ``engine.x.y`` runs no code of another module but ``y``'s own imports
    (the loop check below can then look at modules alone)."""
    busy = [n for n, p in MODULES.items() if p.name == "__init__.py" and GRAPH[n]]
    assert busy == [], busy


def test_imports_only_go_down_the_table() -> None:
    wrong = []
    for name, found in GRAPH.items():
        source = package_of(name)
        allowed = ENTRY.get(name, ALLOWED.get(source, set()))  # a stray module: none
        for target, line in found:
            dest = package_of(target)
            if dest != source and dest not in allowed and target not in TOP_LEVEL:
                wrong.append(f"{MODULES[name].relative_to(ENGINE.parent)}:{line} imports {target} "
                             f"({source} may import {', '.join(sorted(allowed)) or 'nothing'})")
            elif target in TOP_LEVEL and source == "engine" and target != name and name != "engine.__main__":
                wrong.append(f"{name} imports {target}")
    assert wrong == [], "\n".join(wrong)


def test_no_module_imports_itself_round_a_loop() -> None:
    edges = {name: sorted({t for t, _ in found if t in MODULES and t != name})
             for name, found in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []
    loops = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in edges[node]:
            if state.get(nxt) == 1:
                loops.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for name in sorted(edges):
        if name not in state:
            visit(name)
    assert loops == [], "import loops:\n" + "\n".join(loops)


def test_the_checks_see_imports_inside_functions_and_under_type_checking(tmp_path: Path) -> None:
    path = ENGINE / "play" / "driver.py"
    text = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from engine.play.series import X\n"
            "def f():\n    from engine.contest import tournament\n")
    sample = tmp_path / "driver.py"
    sample.write_text(text)
    found = {m for m, _ in imports("engine.play.driver", sample)}
    assert {"engine.play.series", "engine.contest.tournament"} <= found, found
    assert path.exists()


def test_package_docstrings_say_what_they_may_import() -> None:
    for package, allowed in ALLOWED.items():
        if package == "engine":
            continue
        doc = ast.get_docstring(ast.parse((ENGINE / package / "__init__.py").read_text())) or ""
        assert "May import" in doc, package
        named = {p for p in ALLOWED if p != "engine" and f"engine.{p}" in doc.split("May import", 1)[1]}
        assert named == allowed - {"engine"}, (package, named)
