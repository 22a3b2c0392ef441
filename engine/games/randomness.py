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
import secrets

MAX_SECRET_CHARS = 256
DRAWN_SECRET_BYTES = 8  # 64 bits: a fresh secret per run, printed with the results


def draw_key(game: str, seed: int, secret: str | None) -> int:
    """The integer the game's random streams are built from (the seed itself without a secret)."""
    if secret is None:
        return seed
    digest = hmac.new(secret.encode("utf-8"), f"{game}:{seed}".encode(), hashlib.sha256).digest()
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
