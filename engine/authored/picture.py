"""The picture a game's ``draw()`` returns, checked before it is recorded or drawn.

An author's game draws no pixels: it describes its position as a small JSON object that the
page's one generic renderer (``web/src/games/generic.js``) draws with the usual replay
controls. Every picture passes ``check_picture`` twice, in the game's own process (so the
author gets the first mistake by name) and in the controller (which trusts nothing from the
game's process). The format is in docs/games.md ("Pictures"):

    {"width": 8, "height": 8,                       # the board, in cells (1..256 each)
     "cells": ["..A.....", ...],                    # rows of characters, top row first
     "key": {"A": {"color": 0, "glyph": "A", "label": "bot 1"}},
     "shapes": [{"shape": "circle", "x": 3.5, "y": 2.5, "r": 0.4, "color": "#f80"}],
     "texts": [{"x": 0, "y": 8.5, "text": "turn 3"}],
     "legend": [{"color": 1, "label": "12 pieces"}],
     "caption": "bot 1 to move"}

A colour is ``"#rgb"``, ``"#rrggbb"`` or a seat number (0..7: that seat's colour).
"""

from __future__ import annotations

import math
import re

MAX_SIDE = 256
MAX_SHAPES = 2_000
MAX_TEXTS = 200
MAX_LEGEND = 32
MAX_KEYS = 64
MAX_TEXT_CHARS = 200
MAX_CAPTION_CHARS = 500
MAX_SEAT_COLOUR = 7
EMPTY_CELLS = " ."  # characters of an empty cell: drawn as the background, need no key

PICTURE_KEYS = {"width", "height", "cells", "key", "shapes", "texts", "legend", "caption"}
SHAPE_KEYS = {
    "circle": ({"x", "y", "r"}, {"fill"}),
    "rect": ({"x", "y", "w", "h"}, {"fill"}),
    "line": ({"x", "y", "x2", "y2"}, set()),
}
_HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})\Z")


class PictureError(ValueError):
    """A picture that is not one; the message names the first wrong field."""


def check_picture(picture: object) -> dict:
    """The picture, unchanged, when it follows the format; ``PictureError`` otherwise."""
    if not isinstance(picture, dict):
        raise PictureError(f"a picture is a dict, not {type(picture).__name__}")
    unknown = sorted(str(k) for k in picture if k not in PICTURE_KEYS)
    if unknown:
        raise PictureError(f"unknown picture key {unknown[0]!r} (known: {', '.join(sorted(PICTURE_KEYS))})")
    width, height = _side(picture, "width"), _side(picture, "height")
    key = picture.get("key", {})
    if not isinstance(key, dict) or len(key) > MAX_KEYS:
        raise PictureError(f"key is a dict of at most {MAX_KEYS} characters")
    for char, entry in key.items():
        where = f"key[{char!r}]"
        if not isinstance(char, str) or len(char) != 1 or char in EMPTY_CELLS:
            raise PictureError(f"{where}: a key is one character other than a space or '.'")
        _object(entry, where, {"color"}, {"glyph", "label"})
        _colour(entry["color"], f"{where}.color")
        if "glyph" in entry:
            _text(entry["glyph"], f"{where}.glyph", 2)
        if "label" in entry:
            _text(entry["label"], f"{where}.label", MAX_TEXT_CHARS)
    if "cells" in picture:
        rows = picture["cells"]
        if not isinstance(rows, list) or len(rows) != height:
            raise PictureError(f"cells is a list of {height} rows (the height)")
        if not all(type(row) is str and len(row) == width for row in rows):
            y = next(y for y, row in enumerate(rows) if type(row) is not str or len(row) != width)
            raise PictureError(f"cells[{y}] is a string of {width} characters (the width), "
                               f"got {_show(rows[y])}")
        unknown = set().union(*rows).difference(EMPTY_CELLS, key)
        if unknown:
            char = min(unknown)
            y = next(y for y, row in enumerate(rows) if char in row)
            raise PictureError(f"cells[{y}] has {char!r}, which is not in key")
    for i, shape in enumerate(_list(picture, "shapes", MAX_SHAPES)):
        where = f"shapes[{i}]"
        kind = shape.get("shape") if isinstance(shape, dict) else None
        if kind not in SHAPE_KEYS:
            raise PictureError(f"{where}.shape is one of {', '.join(SHAPE_KEYS)}, got {_show(kind)}")
        required, optional = SHAPE_KEYS[kind]
        _object(shape, where, required | {"shape", "color"}, optional)
        for name in required:
            _number(shape[name], f"{where}.{name}", positive=name in ("r", "w", "h"))
        _colour(shape["color"], f"{where}.color")
        if "fill" in shape and not isinstance(shape["fill"], bool):
            raise PictureError(f"{where}.fill is true or false")
    for i, text in enumerate(_list(picture, "texts", MAX_TEXTS)):
        where = f"texts[{i}]"
        _object(text, where, {"x", "y", "text"}, {"color"})
        _number(text["x"], f"{where}.x")
        _number(text["y"], f"{where}.y")
        _text(text["text"], f"{where}.text", MAX_TEXT_CHARS)
        if "color" in text:
            _colour(text["color"], f"{where}.color")
    for i, entry in enumerate(_list(picture, "legend", MAX_LEGEND)):
        where = f"legend[{i}]"
        _object(entry, where, {"color", "label"}, set())
        _colour(entry["color"], f"{where}.color")
        _text(entry["label"], f"{where}.label", MAX_TEXT_CHARS)
    if "caption" in picture:
        _text(picture["caption"], "caption", MAX_CAPTION_CHARS)
    return picture


def _side(picture: dict, name: str) -> int:
    value = picture.get(name)
    if type(value) is not int or not 1 <= value <= MAX_SIDE:
        raise PictureError(f"{name} is a whole number from 1 to {MAX_SIDE}, got {_show(value)}")
    return value


def _list(picture: dict, name: str, most: int) -> list:
    value = picture.get(name, [])
    if not isinstance(value, list) or len(value) > most:
        raise PictureError(f"{name} is a list of at most {most} entries")
    return value


def _object(value: object, where: str, required: set, optional: set) -> None:
    if not isinstance(value, dict):
        raise PictureError(f"{where} is a dict, not {type(value).__name__}")
    missing = sorted(required - set(value))
    if missing:
        raise PictureError(f"{where} has no {missing[0]!r}")
    extra = sorted(str(k) for k in value if k not in required | optional)
    if extra:
        raise PictureError(f"{where} has an unknown key {extra[0]!r}")


_GOOD_COLOURS: set = set(range(MAX_SEAT_COLOUR + 1))  # and each hex colour once it was seen


def _colour(value: object, where: str) -> None:
    if type(value) in (int, str) and value in _GOOD_COLOURS:
        return
    if isinstance(value, str) and _HEX_COLOUR.match(value):
        if len(_GOOD_COLOURS) < 10_000:
            _GOOD_COLOURS.add(value)
        return
    raise PictureError(f"{where} is '#rgb', '#rrggbb' or a seat number 0..{MAX_SEAT_COLOUR}, "
                       f"got {_show(value)}")


def _number(value: object, where: str, positive: bool = False) -> None:
    if type(value) not in (int, float) or not math.isfinite(value) or abs(value) > 10 * MAX_SIDE:
        raise PictureError(f"{where} is a finite number, got {_show(value)}")
    if positive and value <= 0:
        raise PictureError(f"{where} is above 0, got {value}")


def _text(value: object, where: str, most: int) -> None:
    if not isinstance(value, str) or len(value) > most:
        raise PictureError(f"{where} is text of at most {most} characters, got {_show(value)}")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
