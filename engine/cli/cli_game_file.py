"""``--game-file FILE``: an author's game on the command line, for ``match`` and ``tournament``.

Before the parser is built (a game's setting flags come from its fields), the file is read,
its module is checked in the game's sandboxed process (``engine.play.game_proxy.load_game``) and
the game is registered under its ``NAME``, which is put in the command line as the GAME:
``python -m engine match --game-file duel.py builtin:random me.py`` (and ``replay FILE
--game-file duel.py`` verifies a replay of it). ``tournament --challenge FILE`` loads the same
way the game a challenge file carries (its ``game_module``). A game that fails its
check is one line and exit code 2, naming what is wrong and the line in the file.
"""

from __future__ import annotations

from pathlib import Path

from engine.bots.entries import UsageError
from engine.bots.sandbox import Limits, SandboxError
from engine.contest.challenge import ChallengeError, game_module_of, read_challenge_text
from engine.games.registry import register, unregister
from engine.play.game_proxy import AuthoredGame, GameCodeError, game_sandbox, load_game, read_game_file

FLAG = "--game-file"
COMMANDS = ("match", "tournament", "replay")


def _flag_value(argv: list[str], flag: str) -> tuple[str | None, list[str]]:
    """The value of ``flag`` (``--flag V`` or ``--flag=V``) and argv without it."""
    for i, token in enumerate(argv):
        if token == flag:
            if i + 1 >= len(argv):
                raise UsageError(f"{flag} needs a file")
            return argv[i + 1], argv[:i] + argv[i + 2:]
        if token.startswith(flag + "="):
            return token.split("=", 1)[1], argv[:i] + argv[i + 1:]
    return None, argv


def _memory_mb(argv: list[str]) -> int:
    value, _ = _flag_value(argv, "--memory-limit")
    try:
        return int(value) if value is not None else Limits.memory_mb
    except ValueError:
        return Limits.memory_mb  # the parser reports it


class GameFile:
    """The game a command line's ``--game-file`` loaded (None: none); ``close()`` at the end."""

    def __init__(self, game: AuthoredGame | None = None) -> None:
        self.game = game

    def close(self) -> None:
        if self.game is not None:
            unregister(self.game.spec.name)
            self.game.close()


def prepare(argv: list[str]) -> tuple[list[str], GameFile]:
    """argv with the game's name as GAME when ``--game-file`` is given, and the loaded game;
    ``UsageError`` (one line) when the file cannot be read or its game fails the check."""
    path_text, rest = _flag_value(argv, FLAG)
    if path_text is None:
        return _challenge_game(argv)
    if not rest or rest[0] not in COMMANDS:
        raise UsageError(f"{FLAG} goes with {' or '.join(COMMANDS)}: "
                         f"python -m engine match {FLAG} FILE BOT...")
    path = Path(path_text)
    try:
        source = read_game_file(path)
    except FileNotFoundError:
        raise UsageError(f"game file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise UsageError(f"cannot read the game file {path}: {reason}") from None
    game = _load(source, rest, f"game file {path}")
    name = game.spec.name
    if rest[0] == "replay":  # the file's records name the game
        return rest, GameFile(game)
    if len(rest) < 2 or rest[1] != name:
        rest = [rest[0], name, *rest[1:]]
    return rest, GameFile(game)


def _load(source: str, argv: list[str], what: str) -> AuthoredGame:
    """The game's module loaded in its sandboxed process and registered; ``UsageError``."""
    try:
        sandbox = game_sandbox("--no-sandbox" in argv, _memory_mb(argv))
    except SandboxError as exc:
        raise UsageError(f"the sandbox for the game's code cannot start: {exc}; install bubblewrap, or "
                         "pass --no-sandbox (trusted games and bots only)") from None
    try:
        game = load_game(source, sandbox)
    except GameCodeError as exc:
        raise UsageError(f"{what}: {exc.message}") from None
    register(game.spec)
    return game


def _challenge_game(argv: list[str]) -> tuple[list[str], GameFile]:
    """``tournament --challenge FILE`` whose file carries an author's game: that game loaded
    (as ``--game-file`` would) so the file's reader finds it; otherwise nothing to do. A file
    that cannot be read is left to the tournament's reader, which says why."""
    path_text, rest = _flag_value(argv, "--challenge") if "tournament" in argv[:1] else (None, argv)
    if path_text is None:
        return argv, GameFile()
    try:
        carried = game_module_of(read_challenge_text(Path(path_text)))
    except (OSError, UnicodeDecodeError, ChallengeError, UsageError):
        return argv, GameFile()
    if carried is None:
        return argv, GameFile()
    name, source = carried
    game = _load(source, rest, f"challenge file {path_text}: game_module")
    if game.spec.name != name:
        unregister(game.spec.name)
        game.close()
        raise UsageError(f"challenge file {path_text}: its game is {name!r} but its game_module is the "
                         f"game {game.spec.name!r}")
    return argv, GameFile(game)
