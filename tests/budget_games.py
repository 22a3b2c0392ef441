"""Short games played by step-budgeted bots, counting each turn's steps.

Used by tests/test_step_budget.py under CPython and, as source text, by
tests/test_step_budget_pyodide.py under Pyodide: the two must report the same counts. Standard
library and the engine only. The global ``random`` is seeded before each game, so the
example bots (which use it) take the same path everywhere.
"""

from __future__ import annotations

import random
import re
from collections import deque

from engine.bots.step_budget import BudgetExceeded, StepBudget, instrument
from engine.core.answer_text import answer_text
from engine.core.errors import AnswerError
from engine.games.registry import get_game

LIMIT = 10_000_000  # generous: these games measure counts, the tests of limits are elsewhere
PLAIN = False  # True: the bots run uninstrumented (the same games, no counting)


def _code(source: str, budget: StepBudget):
    return compile(source, "<bot>", "exec") if PLAIN else instrument(source, budget)


class _Output:
    """A bot's print(): the lines it printed."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, *values: object, sep: str = " ", end: str = "\n", file: object = None,
              flush: bool = False) -> None:
        if file is None:
            self.lines.append(sep.join(map(str, values)))


def _is_function_bot(source: str) -> bool:
    return "\ndef move(" in "\n" + source


class _FunctionBot:
    def __init__(self, source: str, game: str) -> None:
        self.budget = StepBudget(LIMIT)
        self.client = get_game(game).wire.FunctionClient()
        namespace: dict = {"__name__": "__main__"}
        self.budget.run(exec, _code(source, self.budget), namespace)
        self.load_steps = self.budget.steps_used
        self.move = namespace["move"]

    def turn(self, message: dict) -> tuple[str, int]:
        view = self.client.view(message)
        answer = answer_text(self.budget.run(self.move, view))
        return answer, self.budget.steps_used


def play_atomas(source: str, seed: int, moves: int) -> dict:
    """One Atomas game: the steps of each move (a script runs afresh every move)."""
    spec = get_game("atomas")
    state = spec.new_game(spec.settings(max_moves=moves), seed, 1)
    random.seed(seed)
    function = _is_function_bot(source)
    bot = _FunctionBot(source, "atomas") if function else None
    budget = StepBudget(LIMIT)
    code = None if function else _code(source, budget)
    steps, load = [], bot.load_steps if bot else 0
    while not state.is_terminal():
        message = spec.wire.observation(state, 0, [])
        if bot:
            answer, used = bot.turn(message)
        else:
            out, lines = _Output(), deque(spec.wire.message_lines(message))
            namespace = {"__name__": "__main__", "input": lambda prompt="", queue=lines: queue.popleft(),
                         "print": out.print}
            budget.run(exec, code, namespace)
            answer, used = out.lines[-1], budget.steps_used
        steps.append(used)
        try:
            action = spec.wire.parse_answer(answer, state)
            state.apply_action(action)
        except AnswerError:  # refused: read, or by the rules
            state.apply_action(state.default_action())
    return {"load": load, "steps": steps, "score": state.returns()[0]}


class _Flit:
    """A two-seat Flit game; seat 0 may be a streaming script driven by its own input()."""

    def __init__(self, seed: int, turns: int) -> None:
        self.spec = get_game("flit")
        self.state = self.spec.new_game(self.spec.settings(max_turns=turns), seed)
        # per seat: each turn's changed squares since the seat was last told
        self.pending = [[[list(c) for c in self.state.start_changes]] for _ in range(2)]

    def apply(self, answer: str) -> None:
        try:
            move = self.spec.wire.parse_answer(answer, self.state)
            if self.state.check_move(move) is None:
                move = self.state.default_action()
        except AnswerError:  # refused: read, or by the rules
            move = self.state.default_action()
        changes = self.state.apply_action(move)
        for seat in range(2):
            self.pending[seat].append([list(c) for c in changes])

    def message(self, seat: int) -> dict:
        changes, self.pending[seat] = self.pending[seat], []
        return self.spec.wire.observation(self.state, seat, changes)


def play_flit(sources: list[str], seed: int, turns: int) -> dict:
    """One Flit game between two bots: the steps of each turn, per seat."""
    game = _Flit(seed, turns)
    random.seed(seed)
    steps: list[list[int]] = [[], []]
    if all(_is_function_bot(s) for s in sources):
        bots = [_FunctionBot(s, "flit") for s in sources]
        for seat, bot in enumerate(bots):
            bot.client.start(game.spec.wire.start_message(game.state, seat))
        game.pending = [[], []]
        while not game.state.is_terminal():
            seat = game.state.current_player()
            answer, used = bots[seat].turn(game.message(seat))
            steps[seat].append(used)
            game.apply(answer)
        return {"steps": steps, "result": list(game.state.returns())}
    # seat 0 is a streaming script, seat 1 a function bot; the script pulls the game along.
    script, opponent = sources
    other = _FunctionBot(opponent, "flit")
    other.client.start(game.spec.wire.start_message(game.state, 1))
    game.pending[1] = []
    budget, out = StepBudget(LIMIT), _Output()
    setup = game.spec.wire.start_message(game.state, 0)
    lines = deque(game.spec.wire.message_lines({**setup, "changes": []}))
    game.pending[0] = [[list(c) for c in game.state.start_changes]]
    asked = False

    def input_(prompt: str = "") -> str:
        nonlocal asked
        if asked:  # the turn is over: it asks for more input
            steps[0].append(budget.steps_used)
            if budget.over:
                raise BudgetExceeded(budget.limit, budget.steps_used)
            game.apply(out.lines[-1] if out.lines else "")
            out.lines.clear()
            asked = False
        while not lines:
            if game.state.is_terminal():
                raise EOFError("EOF when reading a line")
            seat = game.state.current_player()
            if seat == 1:
                answer, used = other.turn(game.message(1))
                steps[1].append(used)
                game.apply(answer)
            else:
                lines.extend(game.spec.wire.message_lines(game.message(0)))
        line = lines.popleft()
        if line == "M":
            asked = True
            budget.start_turn()
        return line

    namespace = {"__name__": "__main__", "input": input_, "print": out.print}
    try:
        exec(_code(script, budget), namespace)  # noqa: S102 - the bot under test
    except EOFError:
        pass
    return {"steps": steps, "result": list(game.state.returns())}


def readme_bots(readme: str) -> dict[str, str]:
    """The four complete Python bots of docs/bots.md (Atomas and Flit: a function and a script bot)."""
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    atomas_function, atomas_script, flit_function, flit_script = blocks[:4]
    assert "def move(view)" in atomas_function and "input().partition" in atomas_script
    assert "view.pieces(5)" in flit_function and "while True" in flit_script
    return {"atomas/function": atomas_function, "atomas/script": atomas_script,
            "flit/function": flit_function, "flit/script": flit_script}


def flit_messages(seed: int, turns: int) -> dict:
    """What seat 0 is told in a Flit game of random valid moves: fixed inputs for counting.

    The moves are drawn from a sorted list, so this game is the same in every runtime.
    """
    game = _Flit(seed, turns)
    random.seed(seed)
    start = game.spec.wire.start_message(game.state, 0)
    game.pending[0] = []
    turns_told: list[dict] = []
    while not game.state.is_terminal():
        seat = game.state.current_player()
        message = game.message(seat)
        if seat == 0:
            turns_told.append(message)
        moves = sorted(game.state.legal_actions())
        move = random.choice(moves) if moves else game.state.default_action()
        game.apply(" ".join(map(str, move)))
    return {"start": start, "turns": turns_told}


def count_flit(source: str, told: dict) -> list[int]:
    """The steps of each turn of a bot told ``told`` (from flit_messages), its answers unused."""
    random.seed(len(told["turns"]))
    if _is_function_bot(source):
        bot = _FunctionBot(source, "flit")
        bot.client.start(told["start"])
        return [bot.turn(message)[1] for message in told["turns"]]
    wire = get_game("flit").wire
    budget, steps = StepBudget(LIMIT), []
    lines = deque(wire.message_lines(told["start"]))
    for message in told["turns"]:
        lines.extend(wire.message_lines(message))
    asked = False

    def input_(prompt: str = "") -> str:
        nonlocal asked
        if asked:
            steps.append(budget.steps_used)
            asked = False
        if not lines:
            raise EOFError("EOF when reading a line")
        line = lines.popleft()
        if line == "M":
            asked = True
            budget.start_turn()
        return line

    namespace = {"__name__": "__main__", "input": input_, "print": _Output().print}
    try:
        exec(_code(source, budget), namespace)  # noqa: S102 - the bot under test
    except EOFError:
        pass
    return steps
