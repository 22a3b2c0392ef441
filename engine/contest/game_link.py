"""A tournament game as the page's one-game link (``#g=...``), written natively.

The page reads these links in ``web/src/game_link.js`` (``readGameLink``): a JSON body
``{v: 1, game, preset, settings, seed, secret, budget, bots: [{name, code, language?}],
scores, label, turn?}`` (``turn``: the turn the board opens at), deflate-raw compressed and
base64url-encoded without padding. The page
plays that one game again and says whether it came out with the link's scores. This module
writes the same body for a game of ``engine.contest.tournament``, so a published results site can
send a reader to any game; ``read_game_link`` undoes it (the tests replay the decoded game
natively). Only Python entries and built-ins can be in a link: the page runs no other
language, and an author's game is not one the page has by name. Standard library only.
"""

from __future__ import annotations

import base64
import json
import zlib
from typing import Any

from engine.bots.entries import BUILTIN, PYTHON
from engine.bots.python2 import PYTHON2

GAME_LINK_PREFIX = "g=" # web/src/game_link.js GAME_LINK_PREFIX
CHALLENGE_LINK_PREFIX = "c="  # web/src/challenge_link.js LINK_PREFIX
MAX_NAME_CHARS = 100  # game_link.js MAX_NAME_CHARS
MAX_LABEL_CHARS = 200  # game_link.js MAX_LABEL_CHARS
MAX_UNPACKED_BYTES = 16 * 1024 * 1024  # challenge_link.js MAX_UNPACKED_BYTES


class NoLink(Exception):
    """The game cannot be a link: why, in a few words."""


def pack(value: Any) -> str:
    """JSON, deflate-raw, base64url without padding: ``packChallenge`` of challenge_link.js."""
    data = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = deflate.compress(data) + deflate.flush()
    return base64.urlsafe_b64encode(packed).rstrip(b"=").decode("ascii")


def unpack(data: str) -> Any:
    """``pack`` undone, within the page's 16 MB; ValueError when it is not a packed JSON text."""
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    inflate = zlib.decompressobj(-15)
    text = inflate.decompress(raw, MAX_UNPACKED_BYTES + 1)
    if len(text) > MAX_UNPACKED_BYTES or inflate.unconsumed_tail:
        raise ValueError("the link unpacks to more than 16 MB")
    return json.loads(text.decode("utf-8"))


def bot_of(entry: Any, spec: Any) -> dict:
    """A seat of the link: the entry's name and code (a built-in's example source)."""
    if entry.kind == BUILTIN:
        code, language = spec.example_source(entry.text), None
    elif entry.kind == PYTHON:
        code, language = entry.text, entry.language
    else:
        raise NoLink("a command entry: the page runs Python only")
    bot = {"name": entry.name[:MAX_NAME_CHARS], "code": code}
    if language == PYTHON2:
        bot["language"] = PYTHON2
    return bot


def game_link_body(tournament: Any, result: Any, label: str, turn: int | None = None) -> dict:
    """The link's body for ``result``, a game of ``tournament`` (``engine.contest.tournament``);
    ``turn`` (from 1): the turn the page's board opens at once the game is played."""
    spec = tournament.spec
    if spec.game_module is not None:
        raise NoLink("an author's game: open it from the challenge's link")
    if result.error is not None:
        raise NoLink("the game failed")
    keys = {f.key for f in spec.fields}
    unset = sorted(k for k in tournament.overrides if k not in keys)
    if unset:  # e.g. --max-moves: the page's link carries its editable fields only
        raise NoLink(f"played with a setting the page cannot set ({', '.join(unset)})")
    settings = {k: v for k, v in tournament.overrides.items() if type(v) is int}
    return {"v": 1, "game": spec.name, "preset": tournament.preset, "settings": settings,
            "seed": result.seed, "secret": tournament.secret, "budget": tournament.budget,
            "bots": [bot_of(tournament.entries[e], spec) for e in result.table],
            "scores": list(result.scores), "label": label[:MAX_LABEL_CHARS],
            **({"turn": turn} if type(turn) is int and turn >= 1 else {})}


def game_link_fragment(tournament: Any, result: Any, label: str, turn: int | None = None) -> str:
    """``g=DATA``: what follows ``#`` in the page's address; ``NoLink`` when it cannot be one."""
    return GAME_LINK_PREFIX + pack(game_link_body(tournament, result, label, turn))


def read_game_link(fragment: str) -> dict:
    """A ``g=DATA`` fragment's body (no checks beyond the unpacking: the page checks it)."""
    if not fragment.startswith(GAME_LINK_PREFIX):
        raise ValueError("not a game link")
    return unpack(fragment[len(GAME_LINK_PREFIX):])
