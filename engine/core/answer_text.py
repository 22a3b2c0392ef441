"""What each bot is told and how its answer is read, per game (the rules never parse text).

Each game's wire (built from its ``engine/games/<name>/game.py`` on the game API, or an older
``wire.py`` module) gives: ``SPEC`` (its ``GameSpec``, which the registry discovers), the
structured messages each seat is sent (``start_message``,
``observation``), their text-protocol lines and per-turn argv (``message_lines``,
``message_argv``), answer parsing (``parse_answer``) and a function bot's return value as an
answer (``answer_text``; the one below serves Atomas and Flit), the read-only view a function
bot gets (``FunctionClient``), and the replay record's game fields (``record_start``,
``record_turn``, ``replay_check``). docs/architecture.md has the signatures.
"""

from __future__ import annotations

_INTS = frozenset((int,))


def answer_text(value: object) -> str:
    """A function bot's return value as a text-protocol answer line.

    ``3`` -> ``"3"``; ``(2, True)`` -> ``"2 y"``; ``(1, 2, 3, 4)`` -> ``"1 2 3 4"``.
    """
    kind = type(value)
    if kind is str:
        return value
    if kind is int:
        return str(value)
    if kind is tuple and set(map(type, value)) <= _INTS:  # all ints (C-level: a tuple a turn)
        return " ".join(map(str, value))
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "y" if value else "n"
    if isinstance(value, (tuple, list)):
        return " ".join(answer_text(v) for v in value)
    return str(value)
