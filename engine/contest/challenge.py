"""Challenge files: a whole contest — game, settings, seeds, entries — in one versioned JSON.

``python -m engine tournament --challenge FILE`` reads one, and the page will read and write
the same format, so a field of pasted bots can move between the page, a laptop and a cluster.
The file comes from anyone, so every field is checked here with one message that names it,
and the text is measured (size, nesting) before ``json.loads`` sees it. Entries carry Python
source by value, or ``builtin:NAME`` for a built-in bot. Standard library only (Pyodide).
The format is documented in docs/architecture.md ("Challenge file"). Version 2 adds entries in
any language (a *command entry*: its source, built and run natively as ``--commands`` says;
the page and ``tournament_entries`` leave them out) and ``question`` (the Stack Exchange
question whose answers are the field); a file without either is written as version 1, so
older readers keep reading it. A challenge on an
author's game carries the game's module (``game_module``, its source): ``game_module_of``
reads it first, so the reader can load and register the game before ``load_challenge``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.bots.entries import BUILTIN, PYTHON, PYTHON3, Entry
from engine.core.json_count import item_count
from engine.core.json_depth import nesting_depth
from engine.core.randomness import check_secret
from engine.games.registry import get_game

FORMAT = "koth-arena-challenge"
VERSION = 2  # the newest this engine reads and writes
VERSIONS = (1, 2)  # 2: command entries (any language) and "question"
MAX_ENTRIES = 1_000
MAX_CODE_BYTES = 256 * 1024  # an entry's source in UTF-8 bytes: the page's cap on a bot
MAX_CHALLENGE_CHARS = 64 * 1024 * 1024  # room for many large entries, bounded all the same
# The format nests 3 deep ({challenge: [entries: {entry}]}); one level more lets a value of the
# wrong type (a list as an entry's code) be named by its field.
MAX_DEPTH = 4
MAX_GAMES = 100_000
MAX_SEED = 2**63 - 1
MAX_NAME_CHARS = 100
MAX_TITLE_CHARS = 200
MAX_DESCRIPTION_CHARS = 20_000
MAX_LINK_CHARS = 2_000
MAX_GAME_MODULE_BYTES = 256 * 1024  # an author's game module in UTF-8 bytes: as the page's game editor
LANGUAGES = ("python3", "python2")  # python2: converted on load (engine.bots.python2)
# A question's site name as the API takes it ("codegolf", "stackoverflow", "meta.x"), and id
MAX_SITE_CHARS = 63
MAX_QUESTION_ID = 10**12 - 1
BUILTIN_PREFIX = "builtin:"

_TOP_KEYS = {"format", "version", "title", "description", "game", "game_module", "preset", "settings",
             "games", "seed", "secret", "entries", "question"}
_ENTRY_KEYS = {"name", "author", "code", "language", "link", "enabled"}
# Values a file may hold (its commas and brackets outside strings): every entry with every
# field, and room for the settings. ``json.loads`` makes an object of each: 60 MB of ``{},``
# would be 20 million dicts (1.8 GB) before the entries' count is checked.
MAX_ITEMS = (MAX_ENTRIES + 1) * (len(_ENTRY_KEYS) + 1) + 1_000


class ChallengeError(ValueError):
    """A challenge file that cannot be read: one line naming the field at fault."""


@dataclass(frozen=True)
class ChallengeEntry:
    """One entry as the file has it: Python source, or ``builtin:NAME``."""

    name: str
    code: str
    author: str | None = None
    language: str | None = None  # None: not given (Python 3); "python2": converted on load;
    # any other: a command entry (version 2), its code built and run as ``--commands`` says
    link: str | None = None
    enabled: bool = True  # False: kept in the file (the page's switch), left out of tournaments

    @property
    def native(self) -> bool:
        """A command entry: code in a language the engine does not run itself."""
        return self.language is not None and self.language not in LANGUAGES

    @property
    def builtin(self) -> str | None:
        """The built-in bot's name when the code is ``builtin:NAME``, else None."""
        return self.code[len(BUILTIN_PREFIX):] if self.code.startswith(BUILTIN_PREFIX) else None

    def to_entry(self, spec: Any = None) -> Entry:
        """The bot by value: the built-in, or the pasted source. An author's game (``spec`` not
        trusted) has no built-ins: its examples are strangers' code, run as pasted source."""
        if self.native:
            raise ValueError(f"{self.name} is written in {self.language}: a command entry, built and "
                             "run natively (--commands)")
        builtin = self.builtin
        if builtin is not None and spec is not None and not spec.trusted:
            return Entry(self.name, PYTHON, spec.example_source(builtin))
        if builtin is not None:
            return Entry(self.name, BUILTIN, builtin)
        return Entry(self.name, PYTHON, self.code, self.language or PYTHON3)


@dataclass(frozen=True)
class Challenge:
    title: str
    description: str
    game: str
    settings: dict[str, int]  # editable fields of the game, within their bounds
    games: int  # per pair (two-player), rounds (tables) or seeds (score-alone)
    seed: int
    entries: tuple[ChallengeEntry, ...]
    preset: str | None = None
    secret: str | None = None
    game_module: str | None = None  # an author's game: its module's source, loaded before the file
    question: Question | None = None  # the question whose answers are the field (version 2)

    def tournament_entries(self) -> list[Entry]:
        """The bots that play: every entry not switched off (``"enabled": false``), but the
        command entries, which need ``--commands`` (``command_entries``)."""
        spec = get_game(self.game)
        return [entry.to_entry(spec) for entry in self.entries if entry.enabled and not entry.native]

    def command_entries(self) -> list[ChallengeEntry]:
        """The command entries switched on: other languages' code, run natively or not at all."""
        return [entry for entry in self.entries if entry.enabled and entry.native]

    @property
    def version(self) -> int:
        """The lowest version that holds this challenge: 2 only with version 2's fields."""
        return 2 if self.question is not None or any(e.native for e in self.entries) else 1


@dataclass(frozen=True)
class Question:
    """A Stack Exchange question: the API's site name and the question's number."""

    site: str
    id: int


def load_challenge(text: str) -> Challenge:
    """The challenge a file's text describes; ``ChallengeError`` (one line) when it is not one.
    A challenge on an author's game needs that game registered first (``game_module_of``)."""
    return _challenge(_parse(text))


def game_module_of(text: str) -> tuple[str, str] | None:
    """``(game, module source)`` when the file carries an author's game (``game_module``), else
    None; ``ChallengeError`` when the text is no challenge file or the field is bad. The
    reader loads that module (sandboxed) and registers its game before ``load_challenge``."""
    data = _parse(text)
    if not isinstance(data, dict) or data.get("game_module") is None:
        return None
    game = _text(data.get("game"), "game", MAX_NAME_CHARS)
    return game, _game_module(data["game_module"])


def read_challenge_text(path: Path) -> str:
    """A challenge file's text, read no further than the size a challenge may have (so a huge
    file costs no more memory than that): ``ChallengeError`` when it is longer, ``OSError`` or
    ``UnicodeDecodeError`` as reading does. An editor's byte-order mark is no error."""
    with path.open(encoding="utf-8-sig") as handle:
        text = handle.read(MAX_CHALLENGE_CHARS + 1)
    if len(text) > MAX_CHALLENGE_CHARS:
        raise ChallengeError(f"a challenge file is at most {MAX_CHALLENGE_CHARS:,} characters; this one "
                             "is longer")
    return text


def _parse(text: str) -> Any:
    if not isinstance(text, str):
        raise ChallengeError("a challenge file is text")
    if len(text) > MAX_CHALLENGE_CHARS:
        raise ChallengeError(f"a challenge file is at most {MAX_CHALLENGE_CHARS:,} characters, "
                             f"got {len(text):,}")
    items = item_count(text, MAX_ITEMS)
    if items > MAX_ITEMS:
        raise ChallengeError(f"a challenge file holds at most {MAX_ITEMS:,} values ({MAX_ENTRIES:,} entries "
                             f"of every field), got {items:,}")
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise ChallengeError(f"a challenge file nests at most {MAX_DEPTH} levels deep, got {depth}")
    try:
        data = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except json.JSONDecodeError as exc:
        raise ChallengeError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:  # the depth check stops this first; kept as a net
        raise ChallengeError("a challenge file nests too deeply") from None
    except ValueError as exc:  # a number of more digits than Python converts (4,300)
        raise ChallengeError(f"not JSON: {str(exc).split(':')[0]}") from None
    return data


def challenge_json(challenge: Challenge) -> str:
    """The file's text: the fields in the documented order, optional ones only when set."""
    out: dict[str, Any] = {"format": FORMAT, "version": challenge.version, "title": challenge.title,
                           "description": challenge.description, "game": challenge.game}
    if challenge.game_module is not None:
        out["game_module"] = challenge.game_module
    if challenge.preset is not None:
        out["preset"] = challenge.preset
    out["settings"] = dict(challenge.settings)
    out["games"] = challenge.games
    out["seed"] = challenge.seed
    if challenge.secret is not None:
        out["secret"] = challenge.secret
    if challenge.question is not None:
        out["question"] = {"site": challenge.question.site, "id": challenge.question.id}
    out["entries"] = [_entry_json(entry) for entry in challenge.entries]
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def _entry_json(entry: ChallengeEntry) -> dict[str, str | bool]:
    out = {"name": entry.name}
    if entry.author is not None:
        out["author"] = entry.author
    out["code"] = entry.code
    if entry.language is not None:
        out["language"] = entry.language
    if entry.link is not None:
        out["link"] = entry.link
    if not entry.enabled:
        out["enabled"] = False
    return out


# -- checking ---------------------------------------------------------------------------------

def _challenge(data: Any) -> Challenge:
    if not isinstance(data, dict):
        raise ChallengeError(f"a challenge file is a JSON object, got {_kind(data)}")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ChallengeError(f"unknown field {unknown[0]!r} (a challenge has {', '.join(sorted(_TOP_KEYS))})")
    for key in ("format", "version", "title", "description", "game", "settings", "games", "seed",
                "entries"):
        if key not in data:
            raise ChallengeError(f"the field {key!r} is missing")
    if data["format"] != FORMAT:
        raise ChallengeError(f"format must be {FORMAT!r}, got {_short(data['format'])}")
    if _integer(data["version"]) is None or data["version"] not in VERSIONS:
        raise ChallengeError(f"version {_short(data['version'])} is not supported (this engine reads "
                             f"versions {VERSIONS[0]} to {VERSIONS[-1]})")
    version = _integer(data["version"])
    title = _text(data["title"], "title", MAX_TITLE_CHARS)
    description = _text(data["description"], "description", MAX_DESCRIPTION_CHARS, empty=True)
    game = _text(data["game"], "game", MAX_NAME_CHARS)
    game_module = data.get("game_module")
    if game_module is not None:
        game_module = _game_module(game_module)
    try:
        spec = get_game(game)
    except ValueError as exc:
        raise ChallengeError(f"game: {exc}") from None
    if game_module is not None and spec.game_module != game_module:
        raise ChallengeError(f"game_module: the game {game!r} loaded here is not the module this file "
                             "carries (load the file's game first)")
    preset = data.get("preset")
    if preset is not None:
        preset = _text(preset, "preset", MAX_NAME_CHARS)
        try:
            spec.preset(preset)
        except ValueError as exc:
            raise ChallengeError(f"preset: {exc}") from None
    settings = _settings(spec, data["settings"])
    games = _bounded(data["games"], "games", 1, MAX_GAMES)
    seed = _bounded(data["seed"], "seed", 0, MAX_SEED)
    secret = data.get("secret")
    if secret is not None:
        try:
            secret = check_secret(secret)
        except ValueError as exc:
            raise ChallengeError(f"secret: {exc}") from None
    question = data.get("question")
    if question is not None:
        _needs_version_2(version, "question")
        question = _question(question)
    entries = _entries(spec, data["entries"], version)
    return Challenge(title, description, game, settings, games, seed, entries, preset, secret, game_module,
                     question)


def _needs_version_2(version: int, where: str) -> None:
    if version < 2:
        raise ChallengeError(f"{where} needs version 2 of the format (this file says version {version})")


def _question(value: Any) -> Question:
    if not isinstance(value, dict) or set(value) != {"site", "id"}:
        raise ChallengeError(f'question must be {{"site": "codegolf", "id": NUMBER}}, got {_short(value)}')
    site = _text(value["site"], "question.site", MAX_SITE_CHARS)
    if not (site[0].isascii() and site[0].isalnum()) or any(
            not (c.isascii() and (c.islower() or c.isdigit() or c in ".-")) for c in site):
        raise ChallengeError(f"question.site must be a Stack Exchange site name such as codegolf, "
                             f"got {_short(site)}")
    return Question(site, _bounded(value["id"], "question.id", 1, MAX_QUESTION_ID))


def _game_module(value: Any) -> str:
    source = _text(value, "game_module", MAX_GAME_MODULE_BYTES)
    size = len(source.encode("utf-8"))
    if size > MAX_GAME_MODULE_BYTES:
        raise ChallengeError(f"game_module is {size:,} bytes, more than the {MAX_GAME_MODULE_BYTES:,} "
                             "bytes a game module may have")
    return source


def _settings(spec, value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        raise ChallengeError(f"settings must be an object of setting: value, got {_kind(value)}")
    settings = {}
    for key, raw in value.items():
        item = spec.field(key)
        if item is None:
            known = ", ".join(f.key for f in spec.fields) or "none"
            raise ChallengeError(f"settings: {key!r} is not a {spec.title} setting (it takes {known})")
        number = _integer(raw)
        if number is None:
            raise ChallengeError(f"settings.{key} must be a whole number, got {_short(raw)}")
        if not item.minimum <= number <= item.maximum:
            raise ChallengeError(f"settings.{key} must be {item.minimum} to {item.maximum}, got {number}")
        settings[key] = number
    return settings


def _entries(spec, value: Any, version: int = VERSION) -> tuple[ChallengeEntry, ...]:
    if not isinstance(value, list):
        raise ChallengeError(f"entries must be a list, got {_kind(value)}")
    if len(value) > MAX_ENTRIES:
        raise ChallengeError(f"entries: at most {MAX_ENTRIES:,} entries, got {len(value):,}")
    entries: list[ChallengeEntry] = []
    names: set[str] = set()
    for index, item in enumerate(value):
        entry = _entry(spec, item, f"entries[{index}]", version)
        if entry.name in names:
            raise ChallengeError(f"entries[{index}].name: two entries are named {entry.name!r}")
        names.add(entry.name)
        entries.append(entry)
    return tuple(entries)


def _entry(spec, item: Any, where: str, version: int = VERSION) -> ChallengeEntry:
    if not isinstance(item, dict):
        raise ChallengeError(f"{where} must be an object, got {_kind(item)}")
    unknown = sorted(set(item) - _ENTRY_KEYS)
    if unknown:
        raise ChallengeError(f"{where}: unknown field {unknown[0]!r} (an entry has "
                             f"{', '.join(sorted(_ENTRY_KEYS))})")
    for key in ("name", "code"):
        if key not in item:
            raise ChallengeError(f"{where}.{key} is missing")
    name = _text(item["name"], f"{where}.name", MAX_NAME_CHARS)
    if name != name.strip() or any(not c.isprintable() for c in name):
        raise ChallengeError(f"{where}.name must be printable text without surrounding spaces, "
                             f"got {name!r}")
    author = item.get("author")
    if author is not None:
        author = _text(author, f"{where}.author", MAX_NAME_CHARS)
    language = item.get("language")
    if language is not None:
        language = _text(language, f"{where}.language", MAX_NAME_CHARS)
        if language not in LANGUAGES and version < 2:
            raise ChallengeError(f"{where}.language must be one of {', '.join(LANGUAGES)}, got {language!r} "
                                 "(other languages need version 2 of the format)")
        if language != language.strip() or any(not c.isprintable() for c in language):
            raise ChallengeError(f"{where}.language must be printable text without surrounding spaces, "
                                 f"got {language!r}")
    link = item.get("link")
    if link is not None:
        link = _text(link, f"{where}.link", MAX_LINK_CHARS)
        if not link.startswith(("https://", "http://")) or any(c.isspace() for c in link):
            raise ChallengeError(f"{where}.link must be an http(s) URL, got {_short(link)}")
    enabled = item.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ChallengeError(f"{where}.enabled must be true or false, got {_short(enabled)}")
    code = item["code"]
    if not isinstance(code, str):
        raise ChallengeError(f"{where}.code must be text, got {_kind(code)}")
    if not code.strip():
        raise ChallengeError(f"{where}.code is empty")
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:
        raise ChallengeError(f"{where}.code is not valid text (not UTF-8)") from None
    if size > MAX_CODE_BYTES:
        raise ChallengeError(f"{where}.code is {size:,} bytes, more than the {MAX_CODE_BYTES:,} "
                             f"bytes a bot may have")
    entry = ChallengeEntry(name, code, author, language, link, enabled)
    if entry.builtin is not None and not entry.native:
        try:
            spec.example_source(entry.builtin)
        except ValueError as exc:
            raise ChallengeError(f"{where}.code: {exc}") from None
    return entry


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: a repeated field would silently win otherwise."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ChallengeError(f"the field {key!r} appears twice in one object")
        out[key] = value
    return out


def _text(value: Any, where: str, limit: int, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise ChallengeError(f"{where} must be text, got {_kind(value)}")
    if not empty and not value.strip():
        raise ChallengeError(f"{where} is empty")
    if len(value) > limit:
        raise ChallengeError(f"{where} is at most {limit:,} characters, got {len(value):,}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ChallengeError(f"{where} is not valid text (not UTF-8)") from None
    return value


def _integer(value: Any) -> int | None:
    """A JSON whole number (``true`` is not one; ``3.0`` is), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def _bounded(value: Any, where: str, low: int, high: int) -> int:
    number = _integer(value)
    if number is None:
        raise ChallengeError(f"{where} must be a whole number, got {_short(value)}")
    if not low <= number <= high:
        raise ChallengeError(f"{where} must be {low} to {high:,}, got {number}")
    return number


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
