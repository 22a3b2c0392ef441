"""Atomas rules against the rule book (shared/rules/atomas.md)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.errors import GameOverError, IllegalMoveError
from engine.game_api import InvalidAnswer
from engine.games.atomas.game import Game, lines, parse_line
from engine.games.atomas.rules import AtomasSettings, AtomasState, state_with
from engine.games.registry import get_game

P = "+"


def play(board, atom, action, score=0):
    state = state_with(board, atom, score=score)
    state.apply_action(action)
    return state


# -- every worked example of the rule book ------------------------------------------------
WORKED = [
    # board, atom, answer, board after, score after
    ([1, 1, 3, 2, 2, 3], P, "3", [6], 32),
    ([1, 3, 2, 3, 1, 1], P, "2", [1, 3, 2, P, 3, 1, 1], 0),
    ([1, 3, 2, 1, 3, 1], "B", "2", [7], 36),
    ([2, P, P, 2], "B", "1", [5], 15),
    ([1, 1, 2, 1], 2, "3", [1, 1, 2, 1, 2], 0),
    ([1, P, 2, 5], 1, "1", [2, 2, 5], 3),
    ([2, P, 1, 1, 3], P, "2", [3, 3], 7),
    ([3, 3], P, "0", [4], 6),
    ([3, 3, 4], P, "0", [4, 4], 6),
    ([2, 2, 5, 5], P, "0", [5], 20),
    ([5, 1, 1, 5, 5], P, "1", [4, 5], 21),
    ([4, P, 2, 4, 6], "-", "2 n", [5, 6], 7),
    ([1, 3, 2, 3, 1, 1], "-", "2 y", [1, 3, 3, 1, 1], 0),
    ([7], P, "0", [7, P], 0),
    ([1], "B", "0", [1, P], 0),
]


@pytest.mark.parametrize("board, atom, answer, after, score", WORKED,
                         ids=[f"{b}-{a}-{ans}" for b, a, ans, _, _ in WORKED])
def test_worked_example(board, atom, answer, after, score):
    state = state_with(board, atom)
    state.apply_action(Game.parse_answer(state, answer, 0))
    assert state.items == after
    assert state.score == score


def test_minus_without_plus_carries_the_removed_atom():
    state = play([4, P, 2, 4, 6], "-", (2, False))
    assert state.atom == 2  # "next atom 2"


def test_minus_with_y_then_plus_chain():
    # Board 1 3 2 3 1 1, '-' answer 2 y -> 1 3 3 1 1; then '+' at gap 1 -> 5 1, score 18.
    state = play([1, 3, 2, 3, 1, 1], "-", (2, True))
    assert state.atom == P
    state.apply_action(1)
    assert state.items == [5, 1]
    assert state.score == 18


def test_black_plus_on_a_two_item_ring_fuses_across_the_wrap():
    state = play([2, 3], "B", 0)
    assert state.items == [6]  # larger number + 3
    assert state.score == 6  # first pair of value 3


def test_black_plus_on_two_pluses_makes_four():
    state = play([P, P, 1], "B", 0)  # ring P B P 1: B fuses the two pluses
    assert state.items == [4, 1]
    assert state.score == 3  # a first pair of value 1


def test_a_plus_next_to_a_plus_never_reacts():
    state = play([P, P], P, 0)  # ring + + +: both neighbours of every plus are '+'
    assert state.items == [P, P, P]
    assert state.score == 0


# -- answers: text and range -----------------------------------------------------------------
def test_message_line_format():
    assert lines({"atom": P, "board": [1, 2, 2, 3]}) == ["+/1 2 2 3"]
    assert lines({"atom": "-", "board": [1]}) == ["-/1"]
    assert lines({"atom": 2, "board": [1, P, 3]}) == ["2/1 + 3"]
    assert parse_line("2/1 + 3") == (2, (1, P, 3))
    assert parse_line("+/") == (P, ())


@pytest.mark.parametrize("atom, text, action", [
    (2, "3", 3), (2, " 0 \n", 0), (P, "1", 1), ("B", "2", 2), ("C", "4", 4),
    ("-", "2 y", (2, True)), ("-", "0 n", (0, False)),
])
def test_parse_good_answers(atom, text, action):
    assert Game.parse_answer(state_with([1, 2, 3, 4, 5], atom), text, 0) == action


@pytest.mark.parametrize("atom, text", [
    (2, ""), (2, "x"), (2, "1 2"), (2, "1.5"), ("-", "2"), ("-", "2 x"), ("-", "y 2"), ("C", "1 n"),
])
def test_parse_bad_answers(atom, text):
    with pytest.raises(InvalidAnswer):
        Game.parse_answer(state_with([1, 2, 3], atom), text, 0)


@pytest.mark.parametrize("atom, action", [
    (2, 3), (2, -1), (P, 3), ("B", 7), (2, (0, True)), (2, True),
    ("-", 0), ("-", (3, True)), ("-", (-1, False)), ("C", 3), ("C", -1), ("C", (0, True)),
])
def test_illegal_actions_raise_and_leave_the_state_alone(atom, action):
    state = state_with([1, 2, 3], atom)
    with pytest.raises(IllegalMoveError):
        state.apply_action(action)
    assert state.items == [1, 2, 3]
    assert state.moves == 0


def test_illegal_move_error_is_a_value_error():
    with pytest.raises(ValueError):
        state_with([1, 2, 3], 2).apply_action(5)


def test_empty_board_takes_gap_zero_only():
    state = play([], 2, 0)
    assert state.items == [2]
    with pytest.raises(IllegalMoveError):
        state_with([], 2).apply_action(1)


def test_default_action_is_gap_zero_or_zero_n():
    assert state_with([1, 2], 2).default_action() == 0
    assert state_with([1, 2], "C").default_action() == 0
    assert state_with([1, 2], "-").default_action() == (0, False)


def test_legal_actions_are_exactly_the_accepted_ones():
    for atom in (2, P, "B", "-", "C"):
        board = [1, 2, 3, 4]
        legal = state_with(board, atom).legal_actions()
        assert len(legal) == (8 if atom == "-" else 4)
        for action in legal:
            state_with(board, atom).apply_action(action)


# -- the atom to play ---------------------------------------------------------------------------
def test_carried_minus_y_gives_plus_and_minus_n_of_a_plus_gives_plus():
    assert play([1, 2, 3], "-", (1, True)).atom == P
    assert play([1, P, 3], "-", (1, False)).atom == P


def test_clone_carries_a_copy_and_leaves_the_board():
    state = play([1, 5, 3], "C", 1)
    assert state.items == [1, 5, 3]
    assert state.atom == 5
    assert play([1, P, 3], "C", 1).atom == P


@pytest.mark.parametrize("seed", range(20))
def test_pity_rule_five_moves_without_plus_give_a_plus(seed):
    state = state_with([1, 2, 3], 4, seed=seed)
    for _ in range(5):
        state.atom = 4  # force a number, whatever was drawn
        state.apply_action(0)
    assert state.atom == P


def test_pity_needs_five_moves():
    # After only four number moves the next atom is a free draw: not always '+'.
    atoms = []
    for seed in range(40):
        state = state_with([1, 2, 3], 4, seed=seed)
        for _ in range(4):
            state.atom = 4
            state.apply_action(0)
        atoms.append(state.atom)
    assert any(a != P for a in atoms)


def test_a_carried_atom_comes_before_the_pity_plus():
    state = state_with([1, 2, 3], 4, seed=3)
    for _ in range(4):
        state.atom = 4
        state.apply_action(0)
    state.atom = "-"
    state.apply_action((0, False))  # fifth move without a plus; carries the removed 1
    assert state.atom == 1
    state.apply_action(0)  # sixth: now the pity plus
    assert state.atom == P


def test_black_plus_counts_as_a_plus_for_the_pity_rule():
    atoms = []
    for seed in range(40):
        state = state_with([1, 2, 3], 4, seed=seed)
        for atom in [4, 4, 4, 4, "B", 4, 4, 4, 4]:
            state.atom = atom
            state.apply_action(0)
        atoms.append(state.atom)
    # Without the B this would be the 10th move in a row without a plus: always '+'.
    assert any(a != P for a in atoms)


def numbers_drawn(board, moves_before, seeds=range(400), score=0, placed=9):
    """Atoms drawn for move ``moves_before + 2`` (after ``placed`` went in) over many seeds."""
    found = Counter()
    for seed in seeds:
        state = state_with(board, placed, score=score, moves=moves_before, seed=seed)
        state.apply_action(0)
        found[state.atom] += 1
    return found


def test_moves_up_to_39_draw_1_to_3():
    drawn = numbers_drawn([3, 3, 3, 3], 37)  # draws for move 39
    assert {a for a in drawn if isinstance(a, int)} == {1, 2, 3}


def test_move_40_draws_2_to_4():
    drawn = numbers_drawn([3, 3, 3, 3], 38)  # draws for move 40
    assert {a for a in drawn if isinstance(a, int)} == {2, 3, 4}


def test_atoms_below_the_range_are_drawn_from_the_board():
    drawn = numbers_drawn([1, 1, 1, 1], 38, placed=1)  # move 40 draws 2..4; the board holds 1s
    assert {a for a in drawn if isinstance(a, int)} == {1}


def test_special_atom_frequencies():
    drawn = numbers_drawn([3, 3, 3, 3], 0, seeds=range(6000), score=1501)
    total = sum(drawn.values())
    assert 0.17 < drawn[P] / total < 0.23  # 1 in 5
    assert 0.08 < drawn["-"] / total < 0.12  # 1 in 10
    assert 0.005 < drawn["B"] / total < 0.02  # 1 in 80
    assert 0.008 < drawn["C"] / total < 0.025  # 1 in 60


def test_black_plus_and_clone_need_a_high_score():
    drawn = numbers_drawn([3, 3, 3, 3], 0, seeds=range(3000), score=750)
    assert drawn["B"] == 0 and drawn["C"] == 0
    drawn = numbers_drawn([3, 3, 3, 3], 0, seeds=range(3000), score=1500)
    assert drawn["B"] > 0 and drawn["C"] == 0


def test_no_minus_clone_or_black_plus_on_an_empty_board():
    for seed in range(300):
        state = state_with([], 9, score=2000, seed=seed)
        assert state._draw_atom() not in ("-", "B", "C")


# -- the start and the end ---------------------------------------------------------------------
def test_start_position():
    for seed in range(50):
        state = get_game("atomas").new_game(AtomasSettings(), seed)
        assert len(state.items) == 6
        assert all(1 <= x <= 3 for x in state.items)
        assert state.score == 0 and state.moves == 0 and state.outcome is None


def test_19_items_end_the_game():
    board = [1, 2] * 9  # 18 items, no plus
    state = play(board[:-1], 3, 0)
    assert len(state.items) == 17 + 1 and state.outcome is None
    state = play(board, 3, 0, score=40)
    assert len(state.items) == 19
    assert state.outcome is not None
    assert state.outcome.termination == "ring_full"
    assert state.outcome.scores == (40,)
    assert state.is_terminal() and state.current_player() == -1
    with pytest.raises(GameOverError):
        state.apply_action(0)


def test_max_moves_ends_the_game():
    state = get_game("atomas").new_game(AtomasSettings(max_moves=7), 3)
    for _ in range(7):
        assert state.outcome is None
        state.apply_action(state.default_action())
    assert state.outcome.termination == "max_moves"
    assert state.moves == 7


def test_settings_presets_and_overrides():
    spec = get_game("atomas")
    assert spec.settings().max_moves >= 1000
    assert spec.settings(max_moves=5, time_limit_ms=None).max_moves == 5
    with pytest.raises(ValueError):
        spec.settings("nope")


def test_freeze_ends_the_game_with_its_score():
    state = state_with([1, 2], 3, score=12)
    state.freeze(0)
    assert state.outcome.termination == "frozen"
    assert state.returns() == (12,)


# -- determinism -----------------------------------------------------------------------------------
def run_policy(seed, choose, max_moves=300):
    state = AtomasState(AtomasSettings(max_moves=max_moves), seed)
    trace = [(list(state.items), state.atom, state.score)]
    while not state.is_terminal():
        legal = state.legal_actions()
        state.apply_action(legal[choose(len(trace)) % len(legal)])
        trace.append((list(state.items), state.atom, state.score))
    return trace


def test_same_seed_same_game():
    policy = lambda i: i * 7 + 3  # noqa: E731
    assert run_policy(11, policy) == run_policy(11, policy)
    assert run_policy(11, policy) != run_policy(12, policy)


def test_copy_is_independent():
    state = state_with([1, 2, 3], 4)
    other = state.copy()
    other.apply_action(0)
    assert state.items == [1, 2, 3] and state.moves == 0


def test_same_seed_gives_the_same_specials_to_every_bot():
    """Duplicate format: '+' is drawn on the same moves, whatever the boards."""
    for seed in range(10):
        a = AtomasState(AtomasSettings(max_moves=150), seed)
        b = AtomasState(AtomasSettings(max_moves=150), seed)
        carried = False
        for move in range(150):
            if a.is_terminal() or b.is_terminal():
                break
            free = not carried and all(s.since_plus < 5 for s in (a, b))
            if free and move:
                assert (a.atom == P) == (b.atom == P), (seed, move)
            carried = a.atom in ("-", "C") or b.atom in ("-", "C")
            la, lb = a.legal_actions(), b.legal_actions()
            a.apply_action(la[0])
            b.apply_action(lb[-1])


# -- properties ------------------------------------------------------------------------------------
def can_react(items):
    n = len(items)
    if n < 3:
        return False
    return any(x == P and items[i - 1] != P and items[i - 1] == items[(i + 1) % n]
               for i, x in enumerate(items))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=200))
def test_properties_after_every_move(seed, choices):
    state = AtomasState(AtomasSettings(max_moves=len(choices)), seed)
    for choice in choices:
        if state.is_terminal():
            break
        before = state.score
        legal = state.legal_actions()
        state.apply_action(legal[choice % len(legal)])
        assert state.score >= before
        assert not can_react(state.items), state.items
        for item in state.items:
            assert item == P or (type(item) is int and item >= 1), state.items
        assert len(state.items) <= 19
        if not state.is_terminal():
            assert len(state.items) < 19
            assert state.atom in (P, "-", "B", "C") or (type(state.atom) is int and state.atom >= 1)
            if state.atom == "-" or state.atom == "C":
                assert state.items  # only drawn on a non-empty ring
    assert state.is_terminal() or state.moves < len(choices)


@settings(max_examples=200, deadline=None)
@given(board=st.lists(st.one_of(st.integers(1, 6), st.just(P)), min_size=0, max_size=17),
       atom=st.one_of(st.integers(1, 6), st.sampled_from([P, "B", "-", "C"])),
       choice=st.integers(0, 1000), score=st.integers(0, 3000))
def test_properties_from_any_board(board, atom, choice, score):
    if atom in ("-", "C") and not board:
        atom = P
    state = state_with(board, atom, score=score)
    state.atom = atom
    legal = state.legal_actions()
    state.apply_action(legal[choice % len(legal)])
    assert state.score >= score
    # a ring handed over with reactive pluses is settled by the move too
    assert not can_react(state.items)
    assert all(x == P or (type(x) is int and x >= 1) for x in state.items)
