"""The pictures an author's draw() returns: the documented example passes, and each kind of
mistake is refused with the field named (the controller checks every picture it records)."""

from __future__ import annotations

import copy

import pytest

from engine.authored.picture import PictureError, check_picture

EXAMPLE = {
    "width": 8, "height": 2, "cells": ["..A.....", "#......."],
    "key": {"A": {"color": 0, "glyph": "1", "label": "bot 1"}, "#": {"color": "#444"}},
    "shapes": [{"shape": "circle", "x": 3.5, "y": 1.5, "r": 0.4, "color": "#f80"},
               {"shape": "rect", "x": 0, "y": 0, "w": 2, "h": 1, "color": 1, "fill": False},
               {"shape": "line", "x": 0, "y": 0, "x2": 8, "y2": 2, "color": "#000000"}],
    "texts": [{"x": 0.2, "y": 1.8, "text": "turn 3", "color": "#333"}],
    "legend": [{"color": 0, "label": "bot 1: 12 points"}],
    "caption": "bot 1 to move",
}


def test_the_documented_picture_passes():
    assert check_picture(copy.deepcopy(EXAMPLE)) == EXAMPLE


def changed(path: tuple, value: object) -> dict:
    picture = copy.deepcopy(EXAMPLE)
    *parents, last = path
    target = picture
    for key in parents:
        target = target[key]
    target[last] = value
    return picture


@pytest.mark.parametrize(("path", "value", "message"), [
    (("width",), 0, "width is a whole number from 1 to 256, got 0"),
    (("height",), 2.0, "height is a whole number from 1 to 256, got 2.0"),
    (("cells", 1), "#......", "cells[1] is a string of 8 characters (the width), got '#......'"),
    (("cells", 0), "..B.....", "cells[0] has 'B', which is not in key"),
    (("key", "A", "color"), "red", "key['A'].color is '#rgb', '#rrggbb' or a seat number 0..7, got 'red'"),
    (("key", "A", "color"), 8, "key['A'].color is '#rgb', '#rrggbb' or a seat number 0..7, got 8"),
    (("key", "A", "glyph"), "abc", "key['A'].glyph is text of at most 2 characters, got 'abc'"),
    (("shapes", 0, "shape"), "star", "shapes[0].shape is one of circle, rect, line, got 'star'"),
    (("shapes", 0, "r"), -1, "shapes[0].r is above 0, got -1"),
    (("shapes", 2, "x2"), float("nan"), "shapes[2].x2 is a finite number, got nan"),
    (("texts", 0, "size"), 3, "texts[0] has an unknown key 'size'"),
    (("legend", 0, "label"), None, "legend[0].label is text of at most 200 characters, got None"),
    (("caption",), "x" * 501, "caption is text of at most 500 characters"),
    (("colour",), 1, "unknown picture key 'colour'"),
])
def test_each_mistake_is_named(path, value, message):
    with pytest.raises(PictureError) as error:
        check_picture(changed(path, value))
    assert str(error.value).startswith(message)


def test_too_many_shapes_are_refused():
    shape = {"shape": "circle", "x": 1, "y": 1, "r": 1, "color": 0}
    with pytest.raises(PictureError, match="shapes is a list of at most 2000 entries"):
        check_picture({"width": 1, "height": 1, "shapes": [shape] * 2001})
