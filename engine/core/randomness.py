"""Where the games' random draws come from: the seed, and a secret the bots never see.

A bot that knows the rules can try every seed and simulate ahead, so a seed alone makes
every future draw predictable. With a secret, the draws are seeded by
``HMAC-SHA256(secret, "GAME:SEED")``: the same seed and secret repeat a game exactly, and
without the secret no seed search finds the stream. ``None`` (records without a secret,
version-1 replays) keeps the seed alone, exactly as before.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from functools import lru_cache

MAX_SECRET_CHARS = 256
DRAWN_SECRET_BYTES = 8  # 64 bits: a fresh secret per run, printed with the results


@lru_cache(maxsize=64, typed=True)  # a game asks for it twice: its rules' streams, and its bots' seeds
def draw_key(game: str, seed: int, secret: str | None) -> int:
    """The integer the game's random streams are built from (the seed itself without a secret)."""
    if secret is None:
        return seed
    digest = hmac.digest(secret.encode("utf-8"), f"{game}:{seed}".encode(), "sha256")
    return int.from_bytes(digest, "big")


def check_secret(secret: object) -> str:
    """A secret as given by a user or a file; raises ValueError with a clear message."""
    if not isinstance(secret, str) or not secret:
        raise ValueError("a secret is non-empty text")
    if len(secret) > MAX_SECRET_CHARS:
        raise ValueError(f"a secret is at most {MAX_SECRET_CHARS} characters, got {len(secret)}")
    try:
        secret.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("a secret must be valid text (it is not UTF-8)") from None
    return secret


def new_secret() -> str:
    """A fresh secret for a run that was not given one."""
    return secrets.token_hex(DRAWN_SECRET_BYTES)


BOT_SEED_BITS = 53  # exact as a JSON number in JavaScript too (the page's Workers)


def bot_seed(game: str, seed: int, secret: str | None, seat: int) -> int:
    """The seed of the ``random`` module of the bot in ``seat`` for a game.

    An HMAC keyed by the game's draw key: the bot learns nothing of the secret or of the
    game's own streams from it, and two seats never share a stream.
    """
    key = str(draw_key(game, seed, secret)).encode()
    return _top_bits(hmac.digest(key, f"bot seat {seat}".encode(), "sha256"))


def turn_seed(start_seed: int, turn: int) -> int:
    """The seed of a bot started afresh every turn (per_move, per_turn), for its ``turn``-th
    run of the game (1, 2, ...), from its game's ``bot_seed``: a new stream every run."""
    return _top_bits(hashlib.sha256(f"{start_seed}:turn {turn}".encode()).digest())


def _top_bits(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big") >> (64 - BOT_SEED_BITS)


class GameRandom(random.Random):
    """The ``rng`` a game on the public API is given: ``random.Random(key)`` that keeps its
    ``key`` (the game's draw key), for a game that seeds streams of its own from it (Atomas
    seeds one a move). Its draws are ``random.Random(key)``'s exactly."""

    def __init__(self, key: int | None = None) -> None:
        super().__init__(key)
        self.key = key

    def __reduce__(self) -> tuple:
        return type(self), (self.key,), self.getstate()  # a copy keeps its key
