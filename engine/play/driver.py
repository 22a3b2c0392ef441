"""One game's conversation with its bots, as a generator both controllers step through.

``game_steps`` yields ``Call``s (start or end a bot; send its ``BotAnswer`` back), ``Calls``
(one turn's questions to every seat asked; send a ``dict`` of ``TurnReply`` by seat back),
and ``BotEvent``s (output and faults to show; send nothing back), and returns the
replay record. The page's controller (``web/main.py``) answers calls with ``await``s on
Workers. The native controller (``engine.play.match``) answers them with plain function calls,
and hands the turns' questions in as ``ask`` (a function called here, no step yielded per
turn): a turn is most of a game, and a generator's round trip most of what a turn costs
beside the rules and the bot.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from engine.bots.answer import BotAnswer, TurnReply
from engine.core.outcome import Fault
from engine.core.randomness import bot_seed
from engine.core.spec import GameSpec
from engine.play.session import GameSession, Reply, TurnResult


@dataclass(frozen=True)
class GamePlan:
    """One game of a series: its number, its seed and who sits where."""

    game_number: int  # 0-based index of the game (the seed) in the series
    seed: int
    bot_index: tuple[int, ...]  # seat -> index of the bot in the series' bot list


@dataclass(slots=True)
class Call:
    bot: int  # index in the series' bot list
    op: str  # "start", "turn" or "end"
    message: dict
    seat: int
    seed: int | None = None  # start: the seed of the bot's ``random`` for the game


@dataclass(slots=True)
class Calls:
    """One turn's questions, one ``Call`` per seat asked; the controller sends back a
    ``dict[int, TurnReply]`` keyed by seat (it may ask the bots in parallel)."""

    calls: list[Call]


@dataclass
class BotEvent:
    bot: int
    stream: str  # "stdout", "stderr", "fault" or "error"
    text: str
    line: int | None = None
    game: int | None = None  # a fault's game: 0-based, in its series (None: before any game)
    turn: int | None = None  # a fault's turn: 1-based, as the viewer counts (0: the game's start)

    def where(self, game: int | None = None) -> str:
        """Where a fault happened, for people: "game 3, turn 14" (``game``, 0-based, overrides
        the series' own number: a tournament's match index). The line is the text's own."""
        number = self.game if game is None else game
        parts = [] if number is None else [f"game {number + 1}"]
        if self.turn is not None:
            parts.append("at the start" if self.turn == 0 else f"turn {self.turn}")
        return ", ".join(parts)


@dataclass(slots=True)
class TurnPlayed:
    """Yielded after each turn, so a live viewer can follow the game."""

    turn: dict
    result: TurnResult


@dataclass
class GameStarted:
    """Yielded first: the record as it starts (header and start position, no turns)."""

    record: dict


Step = GameStarted | Call | Calls | BotEvent | TurnPlayed


def _output(bot: int, answer: BotAnswer, turn: int | None = None, game: int | None = None,
            ) -> list[BotEvent]:
    """A reply's output as console events; ``turn``: the turn it was printed for (0: the
    start), so a console line can take the viewer there."""
    events = []
    if answer.stdout:
        events.append(BotEvent(bot, "stdout", answer.stdout, None, game, turn))
    if answer.stderr:
        events.append(BotEvent(bot, "stderr", answer.stderr, None, game, turn))
    return events


def fault_event(bot: int, fault: Fault, frozen: bool = False, game: int | None = None,
                turn: int | None = None) -> BotEvent:
    suffix = " (the bot is now frozen)" if frozen else ""
    return BotEvent(bot, "fault", f"{fault.kind.value}: {fault.message}{suffix}", fault.line, game, turn)


Ask = Callable[[int, dict], TurnReply]  # (bot, message) -> its reply to a turn


def game_steps(spec: GameSpec, settings: Any, plan: GamePlan, bot_names: list[str],
               load_errors: list[BotAnswer | None], secret: str | None = None,
               ask: Ask | None = None, budget: int | None = None) -> Generator[Step, Any, dict]:
    """Play one game (``bot_names`` and ``load_errors`` in series order).

    ``secret`` goes into the random draws with the seed (``engine.core.randomness``).
    ``ask``: a controller that answers turns synchronously asks its bots through it, seat
    by seat, instead of answering ``Calls``; it then gets no ``TurnPlayed`` either.
    ``budget``: the run's steps a move (None: time alone), kept in the record.
    """
    seats = plan.bot_index
    session = GameSession(spec, settings, plan.seed, [bot_names[b] for b in seats], list(seats),
                          secret=secret, budget=budget)
    yield GameStarted(session.record)
    for seat, bot in enumerate(seats):
        message = session.start_message(seat)
        result = load_errors[bot]
        if result is None:
            result = yield Call(bot, "start", message, seat, bot_seed(spec.name, plan.seed, secret, seat))
            if result.stdout or result.stderr:
                session.debug.printed(0, seat, result.stdout, result.stderr)
            yield from _output(bot, result, 0, plan.game_number)
        if result.error:
            fault = session.fail_to_start(seat, result.error, result.line)
            if load_errors[bot] is None:  # a load error was reported once, when it happened
                yield fault_event(bot, fault, True, plan.game_number, 0)
    if ask is not None:
        return (yield from _asked_turns(session, seats, ask, load_errors, plan.game_number))
    while (requests := session.next_requests()) is not None:
        if len(requests) == 1:  # the common case, made quick
            request = requests[0]
            seat, bot = request.seat, seats[request.seat]
            replies = yield Calls([Call(bot, "turn", request.message, seat)])
            reply = replies.get(seat) if type(replies) is dict else None
            if reply is None:
                played = session.submit({})
            else:
                answer = reply.result
                if answer.stdout or answer.stderr:
                    yield from _output(bot, answer, len(session.record["turns"]) + 1, plan.game_number)
                played = session.submit({seat: Reply(answer.answer, answer.error, answer.line,
                                                     reply.elapsed_ms, reply.no_answer,
                                                     answer.over_budget, reply.steps_counted,
                                                     answer.stdout, answer.stderr)})
            if played.faults:
                turn = len(session.record["turns"])
                for seat, fault in played.faults.items():
                    yield fault_event(seats[seat], fault, seat in played.frozen_now, plan.game_number, turn)
            yield TurnPlayed(played.turn, played)
            continue
        calls = [Call(seats[r.seat], "turn", r.message, r.seat) for r in requests]
        replies: dict[int, TurnReply] = yield Calls(calls)
        answers = {}
        for request in requests:
            reply = replies.get(request.seat) if isinstance(replies, dict) else None
            if reply is None:
                continue
            answer = reply.result
            if answer.stdout or answer.stderr:
                yield from _output(seats[request.seat], answer, len(session.record["turns"]) + 1,
                                   plan.game_number)
            answers[request.seat] = Reply(answer.answer, answer.error, answer.line, reply.elapsed_ms,
                                          reply.no_answer, answer.over_budget, reply.steps_counted,
                                          answer.stdout, answer.stderr)
        played = session.submit(answers)
        if played.faults:
            turn = len(session.record["turns"])
            for seat, fault in played.faults.items():
                yield fault_event(seats[seat], fault, seat in played.frozen_now, plan.game_number, turn)
        yield TurnPlayed(played.turn, played)
    yield from _end(session, seats, load_errors)
    return session.record


def _asked_turns(session: GameSession, seats: tuple[int, ...], ask: Ask,
                 load_errors: list[BotAnswer | None], game: int) -> Generator[Step, Any, dict]:
    """The turns of ``game_steps`` when the controller gave ``ask``: the same calls, in the
    same order, with the same replies and events, but no step yielded for a quiet turn
    (the session plays those itself, ``GameSession.play_quiet``)."""
    play_quiet, next_requests, submit = session.play_quiet, session.next_requests, session.submit
    while True:
        held = play_quiet(ask, seats)  # (seat, reply) of a turn that needs more, or None
        if held is not None:
            asked: Any = (held,)
        else:
            requests = next_requests()
            if requests is None:
                break
            asked = ((r.seat, ask(seats[r.seat], r.message)) for r in requests)  # asked in order
        replies = {}
        for seat, reply in asked:
            bot = seats[seat]
            answer = reply.result
            if answer.stdout or answer.stderr:
                yield from _output(bot, answer, len(session.record["turns"]) + 1, game)
            replies[seat] = Reply(answer.answer, answer.error, answer.line, reply.elapsed_ms,
                                  reply.no_answer, answer.over_budget, reply.steps_counted,
                                  answer.stdout, answer.stderr)
        played = submit(replies)
        if played.faults:
            turn = len(session.record["turns"])
            for seat, fault in played.faults.items():
                yield fault_event(seats[seat], fault, seat in played.frozen_now, game, turn)
    yield from _end(session, seats, load_errors)
    return session.record


def _end(session: GameSession, seats: tuple[int, ...], load_errors: list[BotAnswer | None],
         ) -> Generator[Step, Any, None]:
    """The game is over: each bot that loaded is told so, and its last output shown."""
    for seat, bot in enumerate(seats):
        if load_errors[bot] is None:
            result = yield Call(bot, "end", {}, seat)
            yield from _output(bot, result)
