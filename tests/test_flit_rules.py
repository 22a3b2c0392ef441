"""Flit rules against the rule book (shared/rules/flit.md)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import GameOverError, IllegalMoveError
from engine.game_api import InvalidAnswer
from engine.games.flit.game import FlitView, FunctionClient, Game, lines
from engine.games.flit.rules import NEUTRAL, PRESETS, FlitSettings, FlitState, new_game, state_with
from engine.games.registry import get_game


def neighbours(x, y, size=16):
    return {((x + 1) % size, y), ((x - 1) % size, y), (x, (y + 1) % size), (x, (y - 1) % size)}


# -- the rule book's examples --------------------------------------------------------------------
@pytest.fixture
def two_pieces():
    return state_with({(3, 3): 1, (3, 4): 1})


@pytest.mark.parametrize("move", [(3, 3, 4, 4), (3, 3, 2, 4), (3, 4, 3, 2),
                                  # The rule book's example calls `3 3 3 5` invalid, but by its
                                  # rule text (the destination must be next to *another* own
                                  # piece) it is valid: (3, 5) is next to (3, 4), which does not
                                  # move. The parenthetical ("its only neighbour of colour 1
                                  # would be the piece that moves") describes `3 4 3 5`, tested
                                  # as invalid below. We implement the rule text.
                                  (3, 3, 3, 5)])
def test_valid_moves_of_the_example(two_pieces, move):
    src, dst = two_pieces.check_move(move)
    changes = two_pieces.apply_action(move)
    assert changes[:2] == [(move[0], move[1], 0), (move[2], move[3], 1)]
    assert two_pieces.at(move[0], move[1]) == 0
    assert two_pieces.at(move[2], move[3]) == 1
    assert two_pieces.counts[1] == 2


@pytest.mark.parametrize("move", [(3, 4, 3, 5),  # only neighbour of colour 1 is the mover
                                  (3, 3, 9, 9),  # not next to another own piece
                                  (3, 3, 3, 4),  # destination not empty
                                  (4, 4, 5, 4),  # no piece at the source
                                  (16, 3, 3, 5), (3, 3, -1, 5)])  # off the board
def test_invalid_moves_of_the_example(two_pieces, move):
    with pytest.raises(IllegalMoveError):
        two_pieces.check_move(move)
    with pytest.raises(IllegalMoveError):
        two_pieces.apply_action(move)
    assert two_pieces.turns == 0 and two_pieces.player == 0  # nothing happened


def test_not_own_colour_is_invalid():
    state = state_with({(3, 3): 2, (3, 4): 2})
    with pytest.raises(IllegalMoveError):
        state.check_move((3, 3, 4, 4))  # bot 1 to move, the pieces are bot 2's


def test_same_square_twice_is_a_pass(two_pieces):
    assert two_pieces.check_move((7, 7, 7, 7)) is None
    assert two_pieces.check_move((3, 3, 3, 3)) is None
    changes = two_pieces.apply_action((7, 7, 7, 7))
    assert two_pieces.at(3, 3) == 1 and two_pieces.at(3, 4) == 1
    assert all(c == NEUTRAL for _, _, c in changes)  # at most a new neutral
    assert two_pieces.turns == 1 and two_pieces.player == 1 and two_pieces.passes == 1


@pytest.mark.parametrize("a, b", [((0, 5), (15, 5)), ((4, 0), (4, 15))])
def test_wrap_around_neighbours(a, b):
    assert a in neighbours(*b) and b in neighbours(*a)
    # a piece at b supports a move to a (across the edge), and the other way round
    for support, target in ((b, a), (a, b)):
        state = state_with({support: 1, (8, 8): 1})
        assert state.check_move((8, 8, *target)) is not None
    view = FlitView(16, 2, 1, [0] * 256, 0)
    assert set(view.neighbours(*a)) == neighbours(*a)


def test_every_square_has_four_neighbours():
    state = state_with({}, size=5)
    for square, nbrs in enumerate(state.neighbours):
        assert len(set(nbrs)) == 4 and square not in nbrs


@pytest.mark.parametrize("target, support", [((5, 3), (4, 3)), ((6, 4), (7, 4))])
def test_neutral_conversion(target, support):
    state = state_with({(6, 3): NEUTRAL, support: 1, (12, 12): 1, (0, 0): 2})
    assert state.counts[NEUTRAL] == 1
    changes = state.apply_action((12, 12, *target))
    assert (6, 3, 1) in changes
    assert state.at(6, 3) == 1
    assert state.counts[1] == 3
    assert state.counts[NEUTRAL] == sum(1 for c in changes if c[2] == NEUTRAL)  # only a new one


def test_only_neutrals_next_to_the_destination_convert():
    state = state_with({(6, 3): NEUTRAL, (10, 10): NEUTRAL, (4, 3): 1, (12, 12): 1})
    state.apply_action((12, 12, 4, 4))  # next to (4, 3), not to either neutral
    assert state.at(6, 3) == NEUTRAL and state.at(10, 10) == NEUTRAL
    assert state.counts[1] == 2


def test_a_move_may_convert_several_neutrals():
    pieces = {(5, 5): 1, (9, 9): 1, (6, 4): NEUTRAL, (6, 6): NEUTRAL, (7, 5): NEUTRAL}
    state = state_with(pieces)
    changes = state.apply_action((9, 9, 6, 5))
    assert {(6, 4, 1), (6, 6, 1), (7, 5, 1)} <= set(changes)
    assert state.counts[1] == 5


# -- the game API (game.py) ------------------------------------------------------------------
def test_parse_answer():
    state = state_with({(3, 3): 1})
    assert Game.parse_answer(state, " 1 2 3 4\n", 0) == (1, 2, 3, 4)
    for bad in ["", "1 2 3", "1 2 3 4 5", "a b c d", "1,2,3,4", "1 2 3 4.0"]:
        with pytest.raises(InvalidAnswer):
            Game.parse_answer(state, bad, 0)


def test_message_lines():
    state = new_game(PRESETS["trial"], 4)
    start = Game.start_message(state, 1)
    told = lines(start)
    assert told[0] == "S 16 2 2"
    assert told[1:] == [f"{x} {y} {c}" for x, y, c in state.start_changes]
    assert lines({"changes": [[1, 2, 5]], "ask": True}) == ["1 2 5", "M"]


# -- start ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("size, players", [(16, 2), (16, 3), (32, 4), (6, 4), (4, 2)])
def test_start_placement(size, players):
    for seed in range(30):
        state = new_game(FlitSettings(size=size, players=players), seed)
        changes = state.start_changes
        assert [c for _, _, c in changes] == list(range(1, players + 1)) * 2
        assert len({(x, y) for x, y, _ in changes}) == 2 * players
        pieces = {(x, y) for x, y, _ in changes}
        for x, y in pieces:
            assert not (neighbours(x, y, size) & pieces), "start pieces must not touch"
        assert state.counts[NEUTRAL] == 0
        assert state.returns() == (2,) * players
        assert state.turns == 0 and state.player == 0 and state.outcome is None


def test_start_squares_vary_with_the_seed():
    starts = {tuple(new_game(PRESETS["trial"], seed).start_changes) for seed in range(20)}
    assert len(starts) == 20


def test_boards_too_small_for_the_start_are_refused():
    with pytest.raises(ValueError):
        FlitSettings(size=4, players=3)
    with pytest.raises(ValueError):
        FlitSettings(size=5, players=4)
    with pytest.raises(ValueError):
        FlitSettings(size=16, players=5)
    with pytest.raises(ValueError):
        FlitSettings(size=3, players=2)


def test_boards_past_256_are_refused():
    """A replay file's settings cannot ask for a board that would exhaust memory."""
    assert FlitSettings(size=256).size == 256
    with pytest.raises(ValueError, match="4x4 to 256x256"):
        FlitSettings(size=257)


def test_presets():
    assert PRESETS["trial"] == FlitSettings(16, 2, 1024, 100)
    assert PRESETS["full"] == FlitSettings(32, 4, 32768, 50)
    spec = get_game("flit")
    assert spec.settings("full", players=3).players == 3


# -- end --------------------------------------------------------------------------------------------
def first_move(state):
    return state.legal_actions()[0]


def test_max_turns():
    state = new_game(FlitSettings(max_turns=9), 2)
    for _ in range(9):
        assert state.outcome is None
        state.apply_action(first_move(state))
    assert state.outcome.termination == "max_turns"
    with pytest.raises(GameOverError):
        state.apply_action((0, 0, 0, 0))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_all_passed_after_k_consecutive_passes(players):
    state = new_game(FlitSettings(players=players), 5)
    for _ in range(players - 1):
        state.apply_action((0, 0, 0, 0))
    state.apply_action(first_move(state))  # a move breaks the run
    for _ in range(players - 1):
        state.apply_action((1, 1, 1, 1))
        assert state.outcome is None
    state.apply_action((2, 2, 2, 2))
    assert state.outcome.termination == "all_passed"
    assert state.turns == 2 * players


def test_uncatchable_two_players():
    # 4x4 = 16 squares; with two bots A + P = A + N + E - 4 = 12 - D, so D > 6 ends it.
    six = {(x, 0): 1 for x in range(4)} | {(0, 2): 1, (2, 2): 1, (1, 3): 2}
    state = state_with(six, size=4)
    state.apply_action((3, 3, 3, 3))
    assert state.outcome is None
    seven = six | {(3, 2): 1}
    state = state_with(seven, size=4)
    state.apply_action((3, 3, 3, 3))
    assert state.outcome.termination == "uncatchable"
    assert state.outcome.winner == 0
    assert state.outcome.scores == (7, 1)


def test_uncatchable_looks_at_the_best_chaser():
    # 6x6, three bots, P = N + E - 4.
    lead = {(x, y): 1 for y in (0, 1) for x in range(6)} | {(0, 2): 1, (2, 2): 1, (4, 2): 1}
    chaser = {(x, 4): 2 for x in range(6)} | {(0, 5): 2, (2, 5): 2}
    # D = 15, chaser 8, third bot 1, E = 12, P = 8: the third bot is caught (9 < 15) but
    # the chaser is not (16 >= 15): the game goes on.
    state = state_with(lead | chaser | {(4, 5): 3}, size=6, players=3)
    state.apply_action((5, 5, 5, 5))
    assert state.outcome is None
    # One more piece for the leader, one fewer for the chaser: 7 + 8 = 15 < 16.
    chaser.pop((2, 5))
    state = state_with(lead | {(5, 3): 1} | chaser | {(4, 5): 3}, size=6, players=3)
    state.apply_action((5, 5, 5, 5))
    assert state.outcome.termination == "uncatchable"
    assert state.outcome.scores == (16, 7, 1)
    assert state.outcome.winner == 0


def test_winner_and_draw():
    state = state_with({(0, 0): 1, (5, 5): 1, (9, 9): 2, (12, 12): 2})
    state.apply_action((0, 0, 0, 0))
    state.apply_action((0, 0, 0, 0))
    assert state.outcome.termination == "all_passed"
    assert state.outcome.winner is None  # a tie for first is a draw
    assert state.outcome.scores == (2, 2)
    state = state_with({(0, 0): 1, (5, 5): 1, (9, 9): 2, (12, 12): 2, (3, 3): 2})
    state.apply_action((0, 0, 0, 0))
    state.apply_action((0, 0, 0, 0))
    assert state.outcome.winner == 1
    assert state.outcome.to_json() == {"termination": "all_passed", "scores": [2, 3], "winner": 1}


def test_three_way_tie_for_first_among_four_is_a_draw():
    pieces = {(0, 0): 1, (4, 0): 2, (8, 0): 3, (12, 0): 4, (0, 8): 1, (4, 8): 2}
    state = state_with(pieces, players=4)
    for _ in range(4):
        state.apply_action((1, 1, 1, 1))
    assert state.outcome.scores == (2, 2, 1, 1) and state.outcome.winner is None


# -- legal moves ------------------------------------------------------------------------------------
def brute_force_moves(state):
    size = state.size
    squares = [(x, y) for y in range(size) for x in range(size)]
    moves = set()
    for x0, y0 in squares:
        for x1, y1 in squares:
            if (x0, y0) == (x1, y1):
                continue
            try:
                state.check_move((x0, y0, x1, y1))
            except IllegalMoveError:
                continue
            moves.add((x0, y0, x1, y1))
    return moves


@settings(max_examples=60, deadline=None)
@given(cells=st.lists(st.sampled_from([0, 0, 0, 1, 2, 5]), min_size=25, max_size=25),
       player=st.integers(0, 1))
def test_legal_actions_match_the_rule(cells, player):
    pieces = {(i % 5, i // 5): c for i, c in enumerate(cells) if c}
    state = state_with(pieces, size=5, player=player)
    legal = state.legal_actions()
    assert len(legal) == len(set(legal))
    assert set(legal) == brute_force_moves(state)
    view = FlitView(5, 2, player + 1, list(state.cells), 0)
    assert set(view.moves()) == set(legal)
    assert all(view.is_valid(m) for m in legal)


# -- properties of whole games ------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4), size=st.integers(6, 10),
       max_turns=st.integers(1, 300), policy=st.integers(0, 2**31))
def test_game_properties(seed, players, size, max_turns, policy):
    state = new_game(FlitSettings(size=size, players=players, max_turns=max_turns), seed)
    chooser = random.Random(policy)
    clients = []
    for seat in range(players):
        client = FunctionClient()
        client.start(Game.start_message(state, seat))
        clients.append(client)
    while not state.is_terminal():
        assert state.turns < max_turns
        mover = state.player
        before_cells = list(state.cells)
        before = list(state.counts)
        legal = state.legal_actions()
        roll = chooser.random()
        move = (0, 0, 0, 0) if roll < 0.1 or not legal else chooser.choice(legal)
        changes = state.apply_action(move)
        is_pass = move[:2] == move[2:]
        conversions = [c for c in changes[2:] if c[2] == mover + 1] if not is_pass else []
        placed = [c for c in changes if c[2] == NEUTRAL]
        assert len(placed) <= 1
        # bot counts change only by conversions, the mover's only
        for colour in range(1, players + 1):
            expected = before[colour] + (len(conversions) if colour == mover + 1 else 0)
            assert state.counts[colour] == expected
        assert state.counts[NEUTRAL] == before[NEUTRAL] - len(conversions) + len(placed)
        for x, y, _ in conversions:
            assert before_cells[y * size + x] == NEUTRAL
            assert (x, y) in neighbours(move[2], move[3], size)
        for x, y, _ in placed:
            # a neutral lands only on an available square (empty, 4 empty neighbours)
            square = y * size + x
            assert before_cells[square] == 0 or (not is_pass and (x, y) == move[:2])
            assert all(state.cells[n] == 0 for n in state.neighbours[square])
        for colour in range(6):
            assert state.counts[colour] == state.cells.count(colour)
        assert state.player == (mover + 1) % players
        for client in clients:
            client.view({"changes": changes})
            assert client.cells == state.cells
    assert state.turns <= max_turns
    assert state.outcome.termination in ("max_turns", "all_passed", "uncatchable")
    assert state.outcome.scores == tuple(state.counts[1:players + 1])


def test_full_preset_game_ends_and_is_reproducible():
    def play(seed):
        state = FlitState(PRESETS["trial"], seed)
        chooser = random.Random(seed)
        trace = []
        while not state.is_terminal():
            legal = state.legal_actions()
            trace.append(state.apply_action(chooser.choice(legal) if legal else (0, 0, 0, 0)))
        return trace, state.outcome

    first, second = play(3), play(3)
    assert first == second
    assert len(first[0]) <= 1024
    assert play(4)[0] != first[0]


def test_copy_is_independent_and_draws_the_same():
    state = new_game(PRESETS["trial"], 8)
    other = state.copy()
    a = state.apply_action(first_move(state))
    b = other.apply_action(first_move(other))
    assert a == b
    other.apply_action((0, 0, 0, 0))
    assert state.turns == 1 and other.turns == 2
