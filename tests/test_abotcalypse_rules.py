"""aBOTcalypse rules against the rule book (shared/rules/abotcalypse.md), on hand-made boards.

Boards are drawn top row first with ``AbotState.from_layout``: ``&`` a rock, ``.`` air; bots
are placed by ``(x, y)``, ``y = 0`` the bottom row.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import GameOverError, InvalidAnswerError
from engine.games.abotcalypse.rules import (
    DIRECTIONS,
    METEOR_STEPS,
    PRESETS,
    REST,
    AbotSettings,
    AbotState,
    Action,
    Meteor,
    new_game,
    parse_action,
)

A = parse_action  # answers are written as a bot would print them


def board(rows, bots, meteors=(), max_turns=50, seed=0, pad=8):
    """A hand-made position; ``pad`` rows of air go on top, so that the meteors a test's few
    turns launch at the top row stay far above the drawn board."""
    rows = ["." * len(rows[0])] * pad + list(rows)
    settings = AbotSettings(width=len(rows[0]), height=len(rows), players=len(bots), max_turns=max_turns)
    return AbotState.from_layout(settings, rows, dict(enumerate(bots)), meteors, seed=seed)


def play(state, *answers):
    """One turn; ``answers[seat]`` is the seat's answer text (None: the seat is not given one)."""
    actions = {seat: A(text) for seat, text in enumerate(answers) if text is not None and state.alive[seat]}
    return state.apply_actions(actions)


def at(state, seat):
    return state.xs[seat], state.ys[seat]


def cause(state, seat):
    return state.death_causes[seat]


# A column of five rocks at x = 2 on a 6 x 8 board: a ledge to fall from and to climb.
LEDGE = ["......",
         "......",
         "......",
         "..&...",
         "..&...",
         "..&...",
         "..&...",
         "..&..."]


# -- support and falling ------------------------------------------------------------------------
def test_a_fall_of_one_cell_is_safe():
    # from the top of a 2-rock stack onto a 1-rock stack next to it: a fall of one
    state = board(["....", "....", "&...", "&&.."], [(0, 2), (3, 0)])
    play(state, "move right", "rest")
    assert at(state, 0) == (1, 1) and state.alive[0]


def test_a_fall_of_two_cells_kills():
    state = board(["....", "....", "&...", "&..."], [(0, 2), (3, 0)])
    events = play(state, "move right", "rest")
    assert at(state, 0) == (1, 0) and not state.alive[0] and cause(state, 0) == "fall"
    assert events["deaths"] == [[0, "fall"]]
    assert state.death_turns[0] == 1


def test_a_bot_falling_into_a_bots_cell_kills_that_bot():
    state = board(["....", "&...", "&..."], [(0, 1), (1, 0)])  # bot 0 on a rock, bot 1 below-right
    play(state, "move right", "rest")
    assert not state.alive[1] and cause(state, 1) == "crushed"
    assert state.alive[0] and at(state, 0) == (1, 0)  # it fell one cell, and alone in the cell


# -- climbing -----------------------------------------------------------------------------------
def test_move_up_holds_only_from_a_rocks_cell():
    state = board(["....", "....", "&..."], [(0, 0), (3, 0)])  # bot 0 shares its cell with a rock
    play(state, "move up", "move up")
    assert at(state, 0) == (0, 1)  # supported by the rock it stood in
    assert at(state, 1) == (3, 0) and state.alive[1]  # nothing below: it falls back one cell


def test_a_bot_steps_into_a_rocks_cell_and_climbs_out():
    state = board(["....", "....", ".&.."], [(0, 0), (3, 0)])
    play(state, "move right", "rest")
    assert at(state, 0) == (1, 0) and state.is_rock(1, 0)
    play(state, "move up", "rest")
    assert at(state, 0) == (1, 1)
    play(state, "move down", "rest")
    assert at(state, 0) == (1, 0) and state.alive[0]


def test_moves_off_the_board_do_nothing():
    state = board(["...", "...", "..."], [(0, 0), (2, 0)])
    play(state, "move left", "move down")
    assert at(state, 0) == (0, 0) and at(state, 1) == (2, 0)
    assert all(state.alive)


# -- drops ----------------------------------------------------------------------------------------
def test_drop_down_puts_a_rock_in_the_own_cell_once():
    state = board(["....", "....", "...."], [(0, 0), (3, 0)])
    events = play(state, "drop down", "rest")
    assert state.is_rock(0, 0) and at(state, 0) == (0, 0) and state.alive[0]
    assert events["rocks_added"] == [[0, 0]]
    events = play(state, "drop down", "rest")  # already a rock there
    assert events["rocks_added"] == [] and state.rock_cells() == {(0, 0)}


def test_drop_up_onto_an_unsupported_bot_kills_the_dropper():
    state = board(["....", "....", "...."], [(0, 0), (3, 0)])
    events = play(state, "drop up", "rest")
    assert not state.alive[0] and cause(state, 0) == "crushed"
    assert state.rock_cells() == {(0, 0)}  # the rock fell into the dropper's cell
    assert events["rocks_added"] == [[0, 0]]


def test_drop_up_from_a_rocks_cell_builds_upward():
    state = board(["....", "....", "&..."], [(0, 0), (3, 0)])
    play(state, "drop up", "rest")
    assert state.alive[0] and state.rock_cells() == {(0, 0), (0, 1)}


def test_drop_sideways_falls_until_supported_and_crushes():
    state = board(["....", "&...", "&..."], [(0, 1), (1, 0)])  # bot 1 on the floor beside the stack
    play(state, "drop right", "rest")
    assert state.is_rock(1, 0) and not state.alive[1] and cause(state, 1) == "crushed"
    assert state.alive[0]


def test_a_rock_dropped_onto_a_rock_does_nothing():
    state = board(["....", "....", ".&.."], [(0, 0), (1, 0)])  # bot 1 stands in the rock's cell
    events = play(state, "drop right", "rest")
    assert state.rock_cells() == {(1, 0)} and all(state.alive)
    assert events["rocks_added"] == [] and events["deaths"] == []


def test_drops_outside_the_board_do_nothing():
    state = board(["...", "...", "&.."], [(0, 1), (2, 0)])
    play(state, "drop left", "drop right")
    assert state.rock_cells() == {(0, 0)}


def test_a_rock_dropped_beside_into_a_bots_cell_crushes_it_without_falling():
    # choice (as the original): the rock comes to rest in the cell of the bot at the dropper's level
    state = board(["....", "&&..", "&&.."], [(0, 2), (1, 2)])
    play(state, "drop right", "rest")
    assert not state.alive[1] and cause(state, 1) == "crushed" and state.is_rock(1, 2)


def test_drop_up_onto_a_bot_standing_on_your_head_crushes_it():
    # bot 1 stands on the rock bot 0 shares its cell with; drop up puts a rock in bot 1's cell
    state = board(["....", "....", "&..."], [(0, 0), (0, 1)])
    play(state, "drop up", "rest")
    assert state.alive[0] and not state.alive[1] and state.is_rock(0, 1)


# -- throws -----------------------------------------------------------------------------------------
def throw_path(h, answer, width=14):
    """The rows a rock thrown by a bot at elevation ``h`` passes at 1, 2, ... columns away:
    one board per distance, with a wall there to catch the rock. The thrower stands on a stack
    of ``h`` rocks at column 0 (throwing right) or ``width - 1`` (throwing left)."""
    height = h + 2
    left = "left" in answer
    path = []
    for distance in range(1, width):
        wall = width - 1 - distance if left else distance
        home = width - 1 if left else 0
        rows = []
        for y in range(height - 1, -1, -1):
            row = ["&" if x == wall or (x == home and y < h) else "." for x in range(width)]
            rows.append("".join(row))
        state = board(rows, [(home, h), (wall, height - 1)])  # bot 1 stands in the wall's top rock
        events = play(state, answer, "rest")
        hits = [hit for hit in events["hits"] if hit[2] == 0]
        if not hits:
            return path  # the rock reached the floor before the wall
        assert len(hits) == 1 and hits[0][0] == wall
        path.append(hits[0][1])
    return path


def test_throw_slope_is_truncated_step_by_step():
    # h = 10, D = 4: slope 2.5; rows 10, int(7.5) = 7, int(4.5) = 4, int(1.5) = 1, then the floor.
    # int(h - slope * k) would give 10, 7, 5, 2, 0.
    assert throw_path(10, "throw right 4") == [10, 7, 4, 1]


def test_truncation_is_toward_zero():
    # h = 3, D = 2: slope 1.5; 3, int(1.5) = 1, int(-0.5) = 0 (not -1), then int(-1.5) = -1: the floor
    assert throw_path(3, "throw right 2") == [3, 1, 0]


def test_throw_without_distance_is_the_longest():
    # D = h - 1 = 9: slope 10/9; 10, 8.89 -> 8, 6.89 -> 6, 4.89 -> 4, 2.89 -> 2, 0.89 -> 0
    assert throw_path(10, "throw right") == [10, 8, 6, 4, 2, 0]


@pytest.mark.parametrize("distance", [9, 10, 11, 1000])
def test_distance_is_capped_below_the_elevation(distance):
    assert throw_path(10, f"throw right {distance}") == [10, 8, 6, 4, 2, 0]


def test_a_distance_that_became_zero_is_thrown_sideways_with_slope_one():
    assert throw_path(1, "throw right 5") == [1, 0]  # D capped to max(h - 1, 0) = 0
    assert throw_path(0, "throw right") == [0]  # from the floor: beside, then the floor


@pytest.mark.parametrize("h, distance", [(10, "4"), (10, ""), (3, "2"), (7, "3"), (1, "5")])
def test_throw_left_mirrors_throw_right(h, distance):
    assert throw_path(h, f"throw left {distance}") == throw_path(h, f"throw right {distance}")


@pytest.mark.parametrize("answer", ["throw down", "throw down 7", "throw left 0", "throw right 0",
                                    "throw up 0"])
def test_throw_down_or_a_given_zero_hits_the_cell_below(answer):
    state = board(["....", "....", "&...", "&..."], [(0, 2), (3, 0)])
    events = play(state, answer, "rest")
    assert events["hits"] == [[0, 1, 0]]
    assert state.rock_cells() == {(0, 0)}  # the top rock went; the bot dropped one cell
    assert at(state, 0) == (0, 1) and state.alive[0]


def test_throw_up_into_air_comes_back_down_onto_the_thrower():
    state = board(["....", "....", "&..."], [(0, 0), (3, 0)])  # the thrower stands in a rock's cell
    events = play(state, "throw up", "rest")
    assert not state.alive[0] and cause(state, 0) == "thrown"
    assert state.rock_cells() == set()  # a cell holding both loses both
    assert events["hits"] == [[0, 0, 0]]


def test_throw_up_hits_what_is_above():
    state = board(["....", "&...", "&..."], [(0, 0), (3, 0)])
    play(state, "throw up", "rest")
    assert state.alive[0] and state.rock_cells() == {(0, 0)}


def test_throw_up_at_the_ceiling_hits_the_boundary():
    state = board(["&...", "&...", "&..."], [(0, 2), (3, 0)], pad=0, seed=3)
    probe = random.Random()
    probe.setstate(state.rng.getstate())
    assert probe.randrange(4) != 0  # this turn's meteor falls away from the thrower's column
    events = play(state, "throw up", "rest")
    assert state.alive[0] and [h for h in events["hits"] if h[2] == 0] == []
    assert {(0, 0), (0, 1), (0, 2)} <= state.rock_cells()


def test_a_bot_beside_a_thrower_is_hit():
    state = board(["....", "....", "...."], [(1, 0), (2, 0)])
    play(state, "throw right", "rest")
    assert not state.alive[1] and cause(state, 1) == "thrown" and state.alive[0]


# -- a hit's column collapse --------------------------------------------------------------------
COLUMN = ["......",
          "......",
          "...&..",
          "...&..",
          "...&..",
          "..&&..",
          "..&&.."]  # a 5-rock column at x = 3; a 2-rock step at x = 2 to throw from


def test_a_hit_drops_only_what_is_above_by_one_cell():
    # bot 0 on the step at (2, 2); bot 1 in the column's rock at (3, 3), bot 2 on its top at (3, 5)
    state = board(COLUMN, [(2, 2), (3, 3), (3, 5)])
    events = play(state, "throw right 1", "rest", "rest")  # h = 2, D = 1: (3, 2) is rock
    assert events["hits"] == [[3, 2, 0]]
    assert sorted(y for x, y in state.rock_cells() if x == 3) == [0, 1, 2, 3]
    assert at(state, 1) == (3, 2) and at(state, 2) == (3, 4)  # each one cell lower, alive
    assert all(state.alive)
    assert sorted(y for x, y in state.rock_cells() if x == 2) == [0, 1]  # other columns untouched
    assert sorted(events["rocks_removed"]) == [[3, 4]]  # net: the column is one shorter


def test_a_cell_holding_a_bot_and_a_rock_loses_both():
    state = board(["......", "......", "...&..", "...&..", "..&&..", "..&&..", "..&&.."],
                  [(2, 3), (3, 3), (3, 5)])
    events = play(state, "throw right", "rest", "rest")  # h = 3, D = 2: starts at (3, 3)
    assert events["hits"] == [[3, 3, 0]]
    assert not state.alive[1] and cause(state, 1) == "thrown"
    assert sorted(y for x, y in state.rock_cells() if x == 3) == [0, 1, 2, 3]
    assert at(state, 2) == (3, 4) and state.alive[2]


def test_hitting_a_bot_alone_leaves_the_column():
    state = board(["....", "....", "&...", "&&.."], [(0, 1), (1, 1)])  # bot 1 on top of x = 1
    events = play(state, "throw right", "rest")  # from (0, 1): slope 1, starts at (1, 1)
    assert events["hits"] == [[1, 1, 0]] and not state.alive[1]
    assert state.rock_cells() == {(0, 0), (0, 1), (1, 0)} and events["rocks_removed"] == []


# -- two bots in one cell, resolution order -----------------------------------------------------
def test_two_bots_in_one_cell_both_die():
    state = board(["....", "....", "...."], [(1, 0), (2, 0), (3, 0)])
    events = play(state, "move right", "rest", "rest")
    assert not state.alive[0] and not state.alive[1] and state.alive[2]
    assert sorted(events["deaths"]) == [[0, "collision"], [1, "collision"]]


def test_moves_before_throws():
    state = board(["....", "....", "...."], [(0, 0), (1, 0)])
    play(state, "throw right", "move right")  # bot 1 leaves before the rock comes
    assert all(state.alive) and at(state, 1) == (2, 0)


def test_moves_before_drops():
    state = board(["....", "&...", "&..."], [(0, 1), (1, 0)])
    play(state, "drop right", "move right")
    assert all(state.alive) and state.is_rock(1, 0) and at(state, 1) == (2, 0)


def test_drops_before_throws():
    # bot 1 drops a rock into (1, 0) before bot 0's throw passes there: the throw takes it
    state = board(["....", "....", "...."], [(0, 0), (2, 0)])
    events = play(state, "throw right", "drop left")
    assert events["hits"] == [[1, 0, 0]] and state.rock_cells() == set() and all(state.alive)


def test_ties_go_by_bot_order_and_the_killed_do_nothing():
    for mirrored in (False, True):  # seat 0 on the left, then on the right
        positions = [(2, 0), (1, 0)] if mirrored else [(1, 0), (2, 0)]
        answers = ("throw left", "throw right") if mirrored else ("throw right", "throw left")
        state = board(["....", "....", "...."], positions)
        play(state, *answers)
        assert state.alive[0] and not state.alive[1]  # seat 0 threw first; seat 1 never threw


def test_lower_elevation_acts_first_within_a_kind():
    # bot 0 at elevation 1 on a rock, bot 1 at elevation 0: bot 1 throws first, knocking the rock
    # from under bot 0, which then throws from elevation 0 straight into bot 1.
    state = board(["....", "....", ".&.."], [(1, 1), (2, 0)])
    events = play(state, "throw right", "throw left")
    assert [hit[2] for hit in events["hits"]] == [1, 0]
    assert state.alive[0] and at(state, 0) == (1, 0) and not state.alive[1]
    # in seat order bot 0 would have thrown over bot 1 from elevation 1 and both would live


def test_rests_and_unanswered_seats_do_nothing():
    state = board(["....", "....", "&..."], [(0, 0), (3, 0)])
    events = state.apply_actions({0: REST})
    assert events["played"] == ["rest", "rest"]
    assert at(state, 0) == (0, 0) and at(state, 1) == (3, 0)


def test_a_frozen_bot_rests():
    state = board(["....", "....", "...."], [(0, 0), (3, 0)])
    state.freeze(1)
    events = play(state, "rest", "move left")
    assert at(state, 1) == (3, 0) and events["played"] == ["rest", "rest"]
    assert state.acting_seats() == (0, 1)  # it keeps living


# -- meteors ----------------------------------------------------------------------------------------
EMPTY = ["......"] * 8


def meteor_near(state, angle, x, y):
    found = [m for m in state.meteors if m.angle == angle and math.isclose(m.x, x) and math.isclose(m.y, y)]
    return found


def test_a_meteor_moves_two_cells_along_its_line_and_leaves_the_board():
    state = board(EMPTY, [(4, 0), (5, 0)], meteors=[(1.0, 6.0, -150)])
    dx, dy = METEOR_STEPS[-150]
    assert math.isclose(dx, 2 * math.cos(math.radians(-150))) and dy == -1.0
    play(state, "rest", "rest")
    (meteor,) = meteor_near(state, -150, 1.0 + dx, 5.0)
    assert meteor.x == 1.0 + dx and meteor.cell() == (0, 5)  # x = -0.73: truncated toward zero
    play(state, "rest", "rest")
    assert meteor_near(state, -150, 1.0 + 2 * dx, 4.0) == []  # x = -2.46: off the board, gone


def test_a_meteor_truncated_toward_zero_hits_the_bottom_row():
    # y = 1.5 - 2 = -0.5: its cell is row 0 (not -1), where a rock is
    state = board(["......"] * 7 + ["...&.."], [(0, 0), (5, 0)], meteors=[(3.0, 1.5, -90)])
    assert METEOR_STEPS[-90] == (0.0, -2.0)
    events = play(state, "rest", "rest")
    assert [3, 0, None] in events["hits"] and not state.is_rock(3, 0)
    assert meteor_near(state, -90, 3.0, -0.5) == []  # it disappeared with its hit


def test_a_meteor_below_the_floor_disappears_without_a_hit():
    state = board(["......"] * 7 + ["...&.."], [(0, 0), (5, 0)], meteors=[(3.0, 0.5, -90)])
    events = play(state, "rest", "rest")
    assert [3, 0, None] not in events["hits"] and state.is_rock(3, 0)  # y = -1.5: cell -1
    assert meteor_near(state, -90, 3.0, -1.5) == []


def test_a_meteor_kills_a_bot_in_its_cell():
    state = board(EMPTY, [(3, 0), (5, 0)], meteors=[(3.0, 2.0, -90)])
    events = play(state, "rest", "rest")
    assert not state.alive[0] and cause(state, 0) == "meteor" and [3, 0, None] in events["hits"]


def test_a_meteor_misses_a_bot_that_stepped_away():
    state = board(EMPTY, [(3, 0), (5, 0)], meteors=[(3.0, 2.0, -90)])
    play(state, "move left", "rest")
    assert state.alive[0]


def test_a_new_meteor_checks_its_own_cell():
    full = ["&&&&&&"] * 4  # every cell a rock: the new meteor's cell, wherever it falls, is not air
    state = board(full, [(0, 3), (5, 3)], pad=0)
    events = play(state, "rest", "rest")
    assert len(events["hits"]) == 1
    x, y, by = events["hits"][0]
    assert y == 3 and by is None and not state.is_rock(x, 3)
    assert state.meteors == []


def test_meteor_steps_are_platform_independent():
    # each step is 2 cos a, 2 sin a rounded to 12 decimals; a libm 1 ulp away rounds the same
    for angle, (dx, dy) in METEOR_STEPS.items():
        a = math.radians(angle)
        for exact, step in ((2 * math.cos(a), dx), (2 * math.sin(a), dy)):
            assert abs(exact - step) < 1e-12
            for ulps in (-2, -1, 1, 2):
                assert round(exact + ulps * math.ulp(exact or 1e-300), 12) + 0.0 == step


def test_meteors_draw_column_and_angle_from_the_seeded_stream():
    state = AbotState(PRESETS["trial"], 7, "s")
    probe = random.Random()
    probe.setstate(state.rng.getstate())
    x0, angle = probe.randrange(48), probe.randrange(-180, 0)
    events = state.apply_actions({})
    launched = [m for m in state.meteors if m.angle == angle and m.y == 23.0 and m.x == float(x0)]
    assert len(launched) == 1 and events["hits"] == []  # the board's top row is air


# -- the view ---------------------------------------------------------------------------------------
def big(bots):
    """A 100 x 100 board; each bot stands on a column of rocks as tall as its elevation."""
    settings = AbotSettings(width=100, height=100, players=len(bots), max_turns=10)
    rocks = {(bx, by) for bx, top in bots for by in range(top)}
    rows = [["&" if (x, y) in rocks else "." for x in range(100)] for y in range(99, -1, -1)]
    return AbotState.from_layout(settings, ["".join(row) for row in rows], dict(enumerate(bots)))


def test_view_is_41_square_inside_the_board():
    state = big([(50, 0), (50, 50)])
    rows = state.view_rows(1)
    assert len(rows) == 41 and {len(r) for r in rows} == {41}
    assert rows[20][20] == "s" and "#" not in "".join(rows)
    assert [row[20] for row in rows[21:]] == ["&"] * 20 and rows[19][20] == "."  # its column below it


def test_view_reaches_exactly_20_cells_each_way():
    # enemies 20 cells away are seen, 21 cells away are not: up and down, then left and right
    def enemies(state):
        rows = state.view_rows(0)  # the bot is at (50, 50): row r is y = 70 - r, column c is x = 30 + c
        assert len(rows) == 41 and rows[20][20] in "sS"
        return {(30 + c, 70 - r) for r, row in enumerate(rows) for c, char in enumerate(row) if char in "eE"}

    assert enemies(big([(50, 50), (50, 30), (50, 70), (50, 71)])) == {(50, 30), (50, 70)}
    assert enemies(big([(50, 50), (30, 50), (70, 50), (29, 50), (71, 50)])) == {(30, 50), (70, 50)}
    state = big([(50, 50), (10, 0)])
    state.meteors = [Meteor(30.0, 70.9, -90), Meteor(29.9, 70.0, -90), Meteor(70.5, 30.5, -90),
                     Meteor(71.0, 30.0, -90), Meteor(50.0, 29.5, -90)]
    rows = state.view_rows(0)
    assert [(30 + c, 70 - r) for r, row in enumerate(rows) for c, char in enumerate(row) if char == "@"] \
        == [(30, 70), (70, 30)]


@pytest.mark.parametrize("x, y, top_ring, bottom_ring, left_ring, right_ring", [
    (0, 0, False, True, True, False), (99, 0, False, True, False, True),
    (0, 99, True, False, True, False), (99, 99, True, False, False, True)])
def test_view_at_corners_keeps_one_ring_of_boundary(x, y, top_ring, bottom_ring, left_ring, right_ring):
    state = big([(x, y), (50, 50)])
    rows = state.view_rows(0)
    assert len(rows) == 22 and {len(r) for r in rows} == {22}  # 21 board cells and the ring
    assert (rows[0] == "#" * 22) == top_ring and (rows[-1] == "#" * 22) == bottom_ring
    assert all(r[0] == "#" for r in rows) == left_ring and all(r[-1] == "#" for r in rows) == right_ring
    assert sum(row.count("#") for row in rows) == 22 + 21  # exactly one ring, on two sides
    row = rows[-2 if bottom_ring else 1]
    assert row[1 if left_ring else -2] == "s"


def test_view_at_an_edge_cuts_the_square():
    state = big([(5, 30), (50, 50)])
    rows = state.view_rows(0)
    assert len(rows) == 41 and {len(r) for r in rows} == {5 + 1 + 20 + 1}
    assert all(r[0] == "#" for r in rows) and rows[20][6] == "s"


def test_view_characters():
    rows = ["......",
            "......",
            "&..&..",
            "&.&&.."]
    meteor = (4.5, 3.9, -90)
    state = board(rows, [(0, 1), (1, 0), (3, 1), (5, 0)], meteors=[meteor], pad=0)
    assert state.view_rows(0) == ["########",
                                  "#....@.#",
                                  "#......#",
                                  "#S..E..#",
                                  "#&e&&.e#",
                                  "########"]
    assert state.view_rows(1)[4] == "#&s&&.e#" and state.view_rows(2)[3] == "#E..S..#"


def test_a_dead_bot_is_not_drawn():
    state = board(["....", "....", "...."], [(0, 0), (1, 0)])
    play(state, "throw right", "rest")
    assert state.view_rows(0)[-2] == "#s...#" and state.view_rows(0)[-3] == "#....#"


def test_legal_actions_are_the_distinct_ones():
    state = board(["....", "&...", "&...", "&..."], [(0, 3), (3, 0)])
    legal = state.legal_actions(0)
    assert len(legal) == len(set(legal)) == 13 + 2 * 2  # D = 1, 2 below elevation 3
    assert all(parse_action(str(action)) == action for action in legal)
    assert len(state.legal_actions(1)) == 13


# -- answers --------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, action", [
    ("rest", REST), ("  REST \n", REST), ("Move Up", Action("move", "up")),
    ("drop\tleft", Action("drop", "left")), ("throw right", Action("throw", "right")),
    ("throw left 0", Action("throw", "left", 0)), ("THROW DOWN 12", Action("throw", "down", 12)),
    ("throw left 007", Action("throw", "left", 7))])
def test_answers_parse(text, action):
    assert parse_action(text) == action
    assert parse_action(str(action)) == action


@pytest.mark.parametrize("text", ["", "   ", "sleep", "move", "move north", "move up 3", "drop down 1",
                                  "throw", "throw left -1", "throw left 2.5", "throw left two",
                                  "throw left 1 2", "rest now", "throw left ３", "throw left +1"])
def test_bad_answers_raise_with_the_text(text):
    with pytest.raises(InvalidAnswerError) as info:
        parse_action(text)
    assert info.value.answer == text


def test_a_huge_distance_is_capped_like_any_long_throw():
    action = parse_action("throw right " + "9" * 5000)
    assert action.distance >= 10**9
    assert throw_path(3, str(action)) == throw_path(3, "throw right")


# -- settings -----------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    (dict(width=100, height=100, players=1, max_turns=5), "2 to 8 bots"),
    (dict(width=100, height=100, players=9, max_turns=5), "2 to 8 bots"),
    (dict(width=2, height=100, players=2, max_turns=5), "width"),
    (dict(width=100, height=401, players=2, max_turns=5), "height"),
    (dict(width=4, height=10, players=5, max_turns=5), "distinct columns"),
    (dict(width=10, height=10, players=2, max_turns=0), "max_turns"),
    (dict(width=10, height=10, players=2, max_turns=5, time_limit_ms=0), "time limit"),
    (dict(width=10.5, height=10, players=2, max_turns=5), "whole number"),
    (dict(width=10, height=10, players=True, max_turns=5), "whole number")])
def test_settings_bounds(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AbotSettings(**kwargs)


def test_presets_and_players_from_the_bot_count():
    assert PRESETS["original"] == AbotSettings(100, 100, players=4, max_turns=500, time_limit_ms=1000)
    trial = PRESETS["trial"]
    assert (trial.width, trial.height, trial.max_turns) == (48, 24, 200)
    state = new_game(trial, seed=3, players=7)
    assert state.num_players == 7 and len(set(state.xs)) == 7 and set(state.ys) == {0}
    assert state.start_json()["bots"] == [[x, 0, True] for x in state.xs]
    assert state.start_json()["rocks"] == [] and state.start_json()["meteors"] == []


def test_layouts_that_cannot_exist_are_refused():
    with pytest.raises(ValueError, match="floats"):
        board(["&...", "....", "...."], [(1, 0), (2, 0)])
    with pytest.raises(ValueError, match="floats"):
        board(["....", "....", "...."], [(1, 1), (2, 0)])
    with pytest.raises(ValueError, match="share"):
        board(["....", "....", "...."], [(1, 0), (1, 0)])


# -- end and score ----------------------------------------------------------------------------------
def test_scores_are_death_turns_and_max_turns_for_survivors():
    state = board(["....", "....", "...."], [(0, 0), (1, 0), (3, 0)], max_turns=3)
    play(state, "rest", "throw up", "rest")  # bot 1 dies in turn 1
    play(state, "rest", None, "rest")
    assert not state.is_terminal()
    play(state, "rest", None, "rest")
    assert state.is_terminal() and state.outcome.termination == "max_turns"
    assert state.outcome.scores == (3, 1, 3) and state.outcome.winner is None
    assert state.acting_seats() == ()
    with pytest.raises(GameOverError):
        state.apply_actions({})


def test_one_bot_left_keeps_playing_and_the_game_ends_when_none_is_alive():
    state = board(["....", "....", "...."], [(0, 0), (3, 0)], max_turns=10)
    play(state, "throw up", "rest")
    assert not state.is_terminal() and state.acting_seats() == (1,)
    play(state, None, "rest")
    play(state, None, "throw up")
    assert state.is_terminal() and state.outcome.termination == "all_dead"
    assert state.outcome.scores == (1, 3) and state.outcome.winner == 1


@pytest.mark.parametrize("action", [Action("fly", "up"), Action("move"), Action("move", "up", 3),
                                    Action("throw", "up", -1), ("move", "up"), "rest"])
def test_malformed_actions_are_refused(action):
    state = board(["....", "....", "...."], [(0, 0), (3, 0)])
    with pytest.raises(ValueError, match="not an aBOTcalypse action"):
        state.apply_actions({0: action})
    assert state.turn == 0


def test_actions_for_dead_seats_are_refused():
    state = board(["....", "....", "...."], [(0, 0), (3, 0)])
    play(state, "throw up", "rest")
    with pytest.raises(ValueError, match="does not act"):
        state.apply_actions({0: A("move right"), 1: REST})
    assert state.turn == 1 and at(state, 0) == (0, 0)


# -- properties of whole games ---------------------------------------------------------------------
ANSWERS = ["rest"] + [f"{k} {d}" for k in ("move", "drop", "throw") for d in DIRECTIONS] + [
    "throw left 0", "throw right 1", "throw left 3", "throw right 9"]
CAREFUL = ["rest", "move left", "move right", "move up", "drop down", "drop left", "drop right", "drop up"]


def redraw(picture, events):
    rocks = {tuple(c) for c in picture["rocks"]}
    rocks -= {tuple(c) for c in events["rocks_removed"]}
    rocks |= {tuple(c) for c in events["rocks_added"]}
    return {**picture, "rocks": [list(c) for c in sorted(rocks, key=lambda c: (c[1], c[0]))],
            "bots": events["bots"],
            "meteors": events["meteors"]}


def assert_settled(state):
    for x, y in state.rock_cells():
        assert state.supported(x, y), f"the rock at ({x}, {y}) floats"
    cells = [(state.xs[s], state.ys[s]) for s in range(state.num_players) if state.alive[s]]
    for x, y in cells:
        assert state.on_board(x, y) and state.supported(x, y), f"a bot at ({x}, {y}) floats"
    assert len(cells) == len(set(cells))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 5), width=st.integers(5, 12),
       height=st.integers(3, 10), max_turns=st.integers(1, 120), policy=st.integers(0, 2**31),
       careful=st.booleans())
def test_game_properties(seed, players, width, height, max_turns, policy, careful):
    state = new_game(AbotSettings(width, height, 2, max_turns), seed, players=players, secret="p")
    chooser = random.Random(policy)
    answers = CAREFUL if careful else ANSWERS
    picture = {k: v for k, v in state.start_json().items()}
    while not state.is_terminal():
        assert state.turn < max_turns and any(state.alive)
        dead_before = {s: (state.xs[s], state.ys[s], state.death_turns[s])
                       for s in range(players) if not state.alive[s]}
        acting = state.acting_seats()
        assert set(acting) == {s for s in range(players) if state.alive[s]}
        events = state.apply_actions({s: A(chooser.choice(answers)) for s in acting})
        for seat, (x, y, turn) in dead_before.items():  # dead bots never act nor move
            assert events["played"][seat] is None
            assert (state.xs[seat], state.ys[seat], state.death_turns[seat]) == (x, y, turn)
        for seat, _ in events["deaths"]:
            assert seat in acting and state.death_turns[seat] == state.turn
        assert_settled(state)
        picture = redraw(picture, events)
        assert picture == state.snapshot()  # the events redraw the board turn by turn
    alive = any(state.alive)
    assert state.turn == max_turns or not alive
    assert state.outcome.termination == ("max_turns" if state.turn == max_turns else "all_dead")
    assert state.outcome.scores == tuple(max_turns if t is None else t for t in state.death_turns)


def run(state, policy):
    chooser = random.Random(policy)
    log = []
    while not state.is_terminal():
        log.append(state.apply_actions({s: A(chooser.choice(ANSWERS)) for s in state.acting_seats()}))
    return log, state.outcome


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), policy=st.integers(0, 2**31))
def test_the_same_seed_and_secret_repeat_the_game(seed, policy):
    settings_ = AbotSettings(12, 8, 3, 60)
    assert run(AbotState(settings_, seed, "k"), policy) == run(AbotState(settings_, seed, "k"), policy)


def test_the_secret_changes_the_draws():
    starts = {tuple(AbotState(PRESETS["original"], 5, secret).xs) for secret in (None, "a", "b")}
    assert len(starts) == 3


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), policy=st.integers(0, 2**31), split=st.integers(0, 30))
def test_copy_is_independent(seed, policy, split):
    state = AbotState(AbotSettings(10, 8, 3, 60), seed)
    chooser = random.Random(policy)
    for _ in range(split):
        if state.is_terminal():
            break
        state.apply_actions({s: A(chooser.choice(CAREFUL)) for s in state.acting_seats()})
    before = state.to_json()
    other = state.copy()
    rest_policy = chooser.random()
    copied_log = run(other, rest_policy)
    assert state.to_json() == before  # playing the copy changed nothing here
    assert run(state, rest_policy) == copied_log  # and both play the same game from here


def test_a_random_game_at_the_original_preset_runs_to_the_end():
    for seed, answers in ((1, ANSWERS), (2, CAREFUL)):
        state = new_game(PRESETS["original"], seed, secret="end")
        chooser = random.Random(seed)
        while not state.is_terminal():
            acting = state.acting_seats()
            for seat in acting:
                assert len(state.view_rows(seat)) <= 41
            state.apply_actions({s: A(chooser.choice(answers)) for s in acting})
            assert_settled(state)
        assert state.outcome.termination in ("max_turns", "all_dead")
        assert state.turn == 500 or not any(state.alive)
