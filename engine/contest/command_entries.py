"""``--commands FILE``: how to build and run entries written in languages the engine does not
run itself (C, Java, JavaScript...), per language as answers write it, or per answer.

The file (JSON, or TOML: ``tomllib``) maps a language, or an answer's id, to a command::

    {"C": {"build": "gcc -O2 -o {dir}/bot {file}", "run": "{dir}/bot"},
     "Java": {"build": "...", "run": "java -jar {dir}/bot.jar", "memory_mb": 4096, "tmp_mb": 256},
     "262117": {"run": "node {file}", "file": "bot.js"}}

``{file}`` is the answer's code saved as ``file`` (default ``bot`` and the language's usual
extension), ``{dir}`` the folder it is built in. A language matches whatever its case and
spacing (``"c++"``, ``"C ++"``), and an answer's ``"Java 11"`` or ``"JavaScript (Node.js)"``
matches ``"Java"`` or ``"JavaScript"`` when the file has no entry for the exact name; no
other language is ever guessed. The limits (``memory_mb``, ``tmp_mb``, ``processes``,
``build_seconds``) are the build's and the bot's, in place of the bots' defaults
(``engine.bots.sandbox.Limits``): a JVM or Go build needs more than 1 GiB of address space.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.bots.sandbox import Limits

MAX_COMMANDS_BYTES = 1 << 20
MAX_COMMAND_CHARS = 4_000
BUILD_SECONDS = 300
_KEYS = {"build", "run", "file", "memory_mb", "tmp_mb", "processes", "build_seconds"}
_BOUNDS = {"memory_mb": (64, 1 << 20), "tmp_mb": (1, 1 << 16), "processes": (1, 1 << 16),
           "build_seconds": (1, 24 * 3600)}
# A language's usual source file name: compilers go by the extension. Others get bot.txt
# unless the commands file names the file.
_EXTENSIONS = {
    "python": ".py", "python3": ".py", "python2": ".py",
    "c": ".c", "c++": ".cpp", "cpp": ".cpp", "java": ".java", "javascript": ".js", "js": ".js",
    "node": ".js", "node.js": ".js", "nodejs": ".js", "typescript": ".ts", "go": ".go", "golang": ".go",
    "rust": ".rs", "ruby": ".rb", "perl": ".pl", "php": ".php", "lua": ".lua", "haskell": ".hs",
    "c#": ".cs", "csharp": ".cs", "kotlin": ".kt", "scala": ".scala", "bash": ".sh", "sh": ".sh",
    "julia": ".jl", "r": ".r", "d": ".d", "nim": ".nim", "ocaml": ".ml", "swift": ".swift",
}


class CommandsError(ValueError):
    """A commands file that cannot be used: one line naming what is wrong."""


@dataclass(frozen=True)
class Command:
    """How one language (or answer) is built and run, and the limits of both."""

    key: str  # as the file writes it
    run: str
    build: str | None = None
    file: str | None = None
    memory_mb: int = Limits.memory_mb
    tmp_mb: int = Limits.disk_mb
    processes: int = Limits.processes
    build_seconds: int = BUILD_SECONDS

    @property
    def limits(self) -> Limits:
        return Limits(memory_mb=self.memory_mb, processes=self.processes, disk_mb=self.tmp_mb)

    def file_name(self, language: str | None) -> str:
        if self.file:
            return self.file
        return "bot" + _EXTENSIONS.get(_base_language(language or ""), ".txt")


@dataclass(frozen=True)
class Commands:
    by_answer: dict[int, Command]
    by_language: dict[str, Command]  # keyed by normalised name

    def find(self, language: str | None, answer_id: int | None = None) -> Command | None:
        """The command for an answer (its id first), or for its language; None: none given."""
        if answer_id is not None and answer_id in self.by_answer:
            return self.by_answer[answer_id]
        if not language:
            return None
        exact = self.by_language.get(normalise(language))
        return exact if exact is not None else self.by_language.get(_base_language(language))


NO_COMMANDS = Commands({}, {})


def normalise(language: str) -> str:
    """``"C ++"``, ``"c++"`` -> ``"c++"``: case and spacing do not count."""
    return "".join(language.lower().split())


def _base_language(language: str) -> str:
    """The language without a version or a parenthesis: ``"Java 11"`` -> ``"java"``,
    ``"C++17"`` -> ``"c++"``, ``"JavaScript (Node.js)"`` -> ``"javascript"``."""
    word = language.lower().split("(", 1)[0]
    word = "".join(word.split())
    return word.rstrip("0123456789.") or word


def read_commands(path: Path) -> Commands:
    """The commands in a JSON or TOML file; ``CommandsError`` (one line) when it is not usable."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_COMMANDS_BYTES + 1)
    except OSError as exc:
        raise CommandsError(f"cannot read the commands file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_COMMANDS_BYTES:
        raise CommandsError(f"the commands file {path} is larger than {MAX_COMMANDS_BYTES >> 20} MB")
    try:
        text = raw.decode("utf-8-sig")
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        kind = "TOML" if path.suffix.lower() == ".toml" else "JSON"
        raise CommandsError(f"the commands file {path} is not {kind}: {str(exc)[:200]}") from None
    return parse_commands(data, str(path))


def parse_commands(data: Any, where: str = "commands") -> Commands:
    if not isinstance(data, dict):
        raise CommandsError(f"{where}: a commands file is an object of language: {{build, run}}")
    by_answer: dict[int, Command] = {}
    by_language: dict[str, Command] = {}
    for key, value in data.items():
        command = _command(str(key), value, where)
        if key.strip().isdigit():
            by_answer[int(key)] = command
            continue
        name = normalise(key)
        if not name or name in by_language:
            raise CommandsError(f"{where}: {key!r} is empty or given twice (case and spacing do not count)")
        by_language[name] = command
    return Commands(by_answer, by_language)


def _command(key: str, value: Any, where: str) -> Command:
    at = f"{where}: {key!r}"
    if not isinstance(value, dict):
        raise CommandsError(f'{at} must be an object such as {{"build": "...", "run": "..."}}')
    unknown = sorted(set(value) - _KEYS)
    if unknown:
        raise CommandsError(f"{at}: unknown field {unknown[0]!r} (a command has {', '.join(sorted(_KEYS))})")
    if "run" not in value:
        raise CommandsError(f"{at}: 'run' is missing (how the built program is started)")
    fields: dict[str, Any] = {}
    for name in ("run", "build"):
        if name in value:
            text = value[name]
            if not isinstance(text, str) or not text.strip() or len(text) > MAX_COMMAND_CHARS:
                raise CommandsError(f"{at}.{name} must be a command line of at most {MAX_COMMAND_CHARS:,} "
                                    "characters")
            fields[name] = text
    if "file" in value:
        file = value["file"]
        if (not isinstance(file, str) or not file or len(file) > 100 or "/" in file or "\\" in file
                or file in (".", "..") or not file.isprintable()):
            raise CommandsError(f"{at}.file must be a plain file name such as Bot.java")
        fields["file"] = file
    for name, (low, high) in _BOUNDS.items():
        if name in value:
            number = value[name]
            if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
                raise CommandsError(f"{at}.{name} must be a whole number from {low} to {high:,}")
            fields[name] = number
    return Command(key, **fields)
