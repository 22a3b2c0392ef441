"""What a bot is told and how its answer is read, per game (the rules never parse text).

Each game's module gives: the structured messages the controller sends (``start_message``,
``turn_message``), their text-protocol lines (``message_lines``), answer parsing
(``parse_answer``), the read-only view a function bot gets (``FunctionClient``), and the
replay-record entries (``record_start``, ``record_turn``).
"""

from __future__ import annotations


def answer_text(value: object) -> str:
    """A function bot's return value as a text-protocol answer line.

    ``3`` -> ``"3"``; ``(2, True)`` -> ``"2 y"``; ``(1, 2, 3, 4)`` -> ``"1 2 3 4"``.
    """
    kind = type(value)
    if kind is str:
        return value
    if kind is int:
        return str(value)
    if kind is tuple and all(type(v) is int for v in value):
        return " ".join(map(str, value))
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "y" if value else "n"
    if isinstance(value, (tuple, list)):
        return " ".join(answer_text(v) for v in value)
    return str(value)
