"""A replay's turn re-fed to a bot: what it was sent at turn T, and whether it answers as recorded.

A record holds every answer, so the rules alone rebuild what each seat was told: a bot's input
at a turn is derived (the session's ``wire.observation``, then the wire's ``message_lines`` and
``message_argv``: the bytes a script bot reads), never stored. ``reproduce`` plays a verified
record through the same ``game_steps`` a match plays, every seat answering as recorded, and asks
one bot (if given) at each turn its seat was asked, up to T, with that turn's message; the game
follows the record whatever the bot answers, so each of its answers is compared with the
recorded one. The bot starts with the record's seat, seed (its ``random`` seeded as in the
match) and settings, under the record's step budget (``budget``; none in older files).
Turn numbers count from 1, as the viewer's and the replay checker's do; seats from 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.bots.answer import BotAnswer, OutputBudget, TurnReply
from engine.core.outcome import FaultKind
from engine.core.spec import GameSpec
from engine.games.registry import get_game
from engine.play.driver import Call, Calls, GamePlan, GameStarted, game_steps
from engine.play.match import Bot
from engine.play.replay_bundle import verify_any
from engine.play.session import MAX_ANSWER_CHARS

FROZEN, ERROR, TIMEOUT = FaultKind.FROZEN.value, FaultKind.ERROR.value, FaultKind.TIMEOUT.value


class ReproduceError(ValueError):
    """A record, turn or seat that cannot be re-fed: one line for the user."""


@dataclass(frozen=True)
class SeatInput:
    """What one seat was sent at the turn: the lines on its stdin, and for a script run
    afresh each turn with the message as arguments (``per_turn``), its argv after ``bot.py``."""

    seat: int
    name: str
    lines: tuple[str, ...]
    argv: tuple[str, ...] | None = None

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


@dataclass(frozen=True)
class Answer:
    """One turn's answer as the session judges it: the text (cut as recorded) and the fault
    that is the bot's own doing (``error``, ``timeout``) or None."""

    answer: str | None
    fault: str | None = None

    def show(self) -> str:
        text = "no answer" if self.answer is None else repr(self.answer)
        return text if self.fault is None else f"{text} ({'raised' if self.fault == ERROR else 'time-out'})"


@dataclass(frozen=True)
class Compared:
    turn: int
    recorded: Answer
    now: Answer

    @property
    def agrees(self) -> bool:
        return self.recorded == self.now


@dataclass
class Reproduction:
    """The inputs at the turn (one per seat shown), and with a bot: each of its answers up
    to the turn beside the recorded one, its answer and printed output at the turn."""

    turn: int
    inputs: list[SeatInput] = field(default_factory=list)
    compared: list[Compared] = field(default_factory=list)
    output: str = ""
    error: str | None = None  # what the bot raised at the turn (its message)
    start_difference: str | None = None

    @property
    def first_difference(self) -> Compared | None:
        return next((c for c in self.compared if not c.agrees), None)

    def to_json(self) -> dict:
        """``{turn, inputs: [{seat, name, lines, argv}]}``, and with a bot ``answer``,
        ``recorded``, ``output``, ``compared`` (turns) and ``first_difference`` (a turn or None)."""
        out: dict = {"turn": self.turn, "inputs": [
            {"seat": i.seat, "name": i.name, "lines": list(i.lines),
             "argv": None if i.argv is None else list(i.argv)} for i in self.inputs]}
        if self.compared:
            last, first = self.compared[-1], self.first_difference
            out.update(answer=vars(last.now), recorded=vars(last.recorded), output=self.output,
                       error=self.error, start_difference=self.start_difference,
                       compared=len(self.compared), first_difference=first.turn if first else None)
        return out


# -- which record, turn and seats --------------------------------------------------------------
def pick_record(document: dict, number: int) -> dict:
    """Record ``number`` (from 1) of a verified series."""
    records = document["records"]
    if not 1 <= number <= len(records):
        raise ReproduceError(f"record {number} is not in the file: it holds records 1 to {len(records)}")
    return records[number - 1]


def asked_seats(record: dict, turn: int) -> list[int]:
    """The seats asked at ``turn`` (from 1): those that acted, but frozen ones."""
    turns = record["turns"]
    if not 1 <= turn <= len(turns):
        raise ReproduceError(f"turn {turn} is not in the record: it has turns 1 to {len(turns)}"
                             if turns else "the record has no turns")
    played = turns[turn - 1]
    return [seat for seat, fault in zip(played["seats"], played["faults"], strict=True)
            if not fault or fault.get("kind") != FROZEN]


def choose_seats(record: dict, turn: int, seat: int | None, bot_name: str | None) -> list[int]:
    """The seats to show at ``turn``: ``seat`` if given; else the seat named ``bot_name`` (a
    bot's); else the one seat asked, or without a bot every seat asked."""
    asked = asked_seats(record, turn)
    names = record["bots"]
    if seat is not None:
        if not 0 <= seat < len(names):
            raise ReproduceError(f"seat {seat} is not in the game: its seats are 0 to {len(names) - 1}")
        if seat not in asked:
            raise ReproduceError(f"seat {seat} ({names[seat]}) was not asked at turn {turn}; "
                                 f"{_seat_list(names, asked)} {'was' if len(asked) == 1 else 'were'}")
        return [seat]
    if not asked:
        raise ReproduceError(f"no seat was asked at turn {turn}: every seat that acted was frozen")
    named = [s for s in range(len(names)) if names[s] == bot_name]
    if len(named) == 1:  # the bot has a seat's name: that seat, if it was asked
        if named[0] not in asked:
            raise ReproduceError(f"seat {named[0]} ({bot_name}) was not asked at turn {turn}; "
                                 f"{_seat_list(names, asked)} {'was' if len(asked) == 1 else 'were'} "
                                 "(--seat S feeds the bot another seat's input)")
        return named
    if bot_name is None or len(asked) == 1:
        return asked
    raise ReproduceError(f"several seats were asked at turn {turn} ({_seat_list(names, asked)}): "
                         "say which with --seat S")


def _seat_list(names: Sequence[str], seats: Sequence[int]) -> str:
    return ", ".join(f"seat {s} ({names[s]})" for s in seats)


# -- re-playing ----------------------------------------------------------------------------------
def reproduce(spec: GameSpec, record: dict, turn: int, seats: Sequence[int],
              bot: Bot | None = None) -> Reproduction:
    """Re-play a verified record (``engine.play.replay``) up to ``turn``: the inputs of
    ``seats`` at it, and with ``bot`` (which sits in ``seats[0]``) its answers re-asked."""
    asked = asked_seats(record, turn)
    if not set(seats) <= set(asked):
        raise ReproduceError(f"seats {list(seats)} were not all asked at turn {turn}")
    bot_seat = seats[0] if bot is not None else None
    result = Reproduction(turn)
    try:
        if bot is not None:
            loaded = bot.load(spec.name)
            if loaded.error:
                raise ReproduceError(f"the bot {bot.name} did not load: {loaded.error.strip()}")
        _replay(spec, record, turn, set(seats), bot, bot_seat, result)
    finally:
        if bot is not None:
            bot.close()
    return result


def _replay(spec: GameSpec, record: dict, turn: int, shown: set[int], bot: Bot | None,
            bot_seat: int | None, result: Reproduction) -> None:
    settings = spec.settings_from_json(record["settings"])
    limit = settings.time_limit_ms
    names = list(record["bots"])
    turns, start_faults = record["turns"], record["start_faults"]
    steps = game_steps(spec, settings, GamePlan(0, record["seed"], tuple(range(len(names)))),
                       names, [None] * len(names), record.get("secret"), budget=record.get("budget"))
    output = OutputBudget()
    rebuilt: dict = {}
    value: Any = None
    try:
        while True:
            try:
                step = steps.send(value)
            except StopIteration:
                raise ReproduceError(f"the game ended before turn {turn}") from None
            value = None
            if isinstance(step, GameStarted):
                rebuilt = step.record
            elif isinstance(step, Call) and step.op == "start":
                value = _start(step, start_faults, bot, bot_seat, result)
            elif isinstance(step, Call):
                value = BotAnswer()
            elif isinstance(step, Calls):
                number = len(rebuilt["turns"]) + 1
                if number > 1:
                    _check_turn(rebuilt["turns"][-1], turns[number - 2], number - 1)
                recorded = turns[number - 1]
                value = {}
                for call in step.calls:
                    value[call.seat] = _recorded_reply(turns, number, call.seat, limit)
                    if number == turn and call.seat in shown:
                        result.inputs.append(_input(spec, names, call))
                    if call.seat == bot_seat:
                        _ask(bot, call, recorded, number, turn, limit, output, result)
                if number == turn:
                    return
    finally:
        steps.close()


def _input(spec: GameSpec, names: list[str], call: Call) -> SeatInput:
    wire = spec.wire
    argv = tuple(wire.message_argv(call.message)) if spec.script_mode == "per_turn" else None
    return SeatInput(call.seat, names[call.seat], tuple(wire.message_lines(call.message)), argv)


def _start(call: Call, start_faults: list[int], bot: Bot | None, bot_seat: int | None,
           result: Reproduction) -> BotAnswer:
    """Each seat starts as recorded; the bot's seat starts the bot too."""
    failed = start_faults[call.seat] == 1
    if call.seat == bot_seat and bot is not None:
        started = bot.start(call.seat, call.message, call.seed)
        if bool(started.error) != failed:
            result.start_difference = (f"the bot did not start: {started.error}" if started.error
                                       else "the bot started, but in the record it did not")
    return BotAnswer(error="did not start (as recorded)") if failed else BotAnswer()


def _recorded_reply(turns: list[dict], number: int, seat: int, limit: int) -> TurnReply:
    """The reply that makes the session play ``seat``'s part of turn ``number`` as recorded."""
    played = turns[number - 1]
    index = played["seats"].index(seat)
    answer, fault = played["answers"][index], played["faults"][index]
    kind = fault.get("kind") if fault else None
    if kind == ERROR:
        return TurnReply(BotAnswer(answer, fault["message"], fault.get("line")), 0.0)
    if kind == TIMEOUT:
        if _frozen_next(turns, number, seat):  # stopped at the hard limit: frozen at once
            return TurnReply(BotAnswer(answer), 0.0, no_answer=True)
        return TurnReply(BotAnswer(answer), limit + 1.0)
    return TurnReply(BotAnswer(answer), 0.0)  # good, or invalid: the rules judge it again


def _frozen_next(turns: list[dict], number: int, seat: int) -> bool:
    for later in turns[number:]:
        if seat in later["seats"]:
            fault = later["faults"][later["seats"].index(seat)]
            return bool(fault) and fault.get("kind") == FROZEN
    return False


def _check_turn(rebuilt: dict, recorded: dict, number: int) -> None:
    """The turn played again as recorded (seats, answers, fault kinds), or refuse."""
    def kinds(turn: dict) -> list:
        return [f.get("kind") if f else None for f in turn["faults"]]
    if rebuilt["seats"] != recorded["seats"] or rebuilt["answers"] != recorded["answers"] \
            or kinds(rebuilt) != kinds(recorded):
        raise ReproduceError(f"turn {number} of the record does not play again as recorded")


def _ask(bot: Bot | None, call: Call, recorded: dict, number: int, turn: int, limit: int,
         output: OutputBudget, result: Reproduction) -> None:
    reply = bot.turn(call.message, limit)
    answer = output.apply(reply.result)
    index = recorded["seats"].index(call.seat)
    fault = recorded["faults"][index]
    kind = fault.get("kind") if fault else None
    recorded_answer = Answer(recorded["answers"][index], kind if kind in (ERROR, TIMEOUT) else None)
    result.compared.append(Compared(number, recorded_answer, _judged(reply, limit)))
    if number == turn:
        result.output = "".join(part for part in (answer.stdout, answer.stderr) if part)
        result.error = answer.error


def _judged(reply: TurnReply, limit: int) -> Answer:
    """A reply as the session records it: the answer cut to the record's length, its fault."""
    found = reply.result.answer
    text = found[:MAX_ANSWER_CHARS] if isinstance(found, str) else None
    if reply.no_answer:
        return Answer(text, TIMEOUT)
    if reply.result.error:
        return Answer(text, TIMEOUT if reply.result.over_budget else ERROR)
    if reply.elapsed_ms > limit and not reply.steps_counted:
        return Answer(text, TIMEOUT)
    return Answer(text)


# -- the page: one game's inputs at a turn --------------------------------------------------------
def game_inputs(text: str, turn: int) -> dict:
    """The inputs of the seats asked at ``turn`` of the game in ``text`` (a replay file of one
    game, untrusted: verified first), as JSON-ready ``{turn, inputs: [{seat, name, lines,
    argv}]}``; raises ``ReplayError`` or ``ReproduceError`` (the page's "Copy the input")."""
    document = verify_any(text)
    if len(document["records"]) != 1:
        raise ReproduceError("one game at a time")
    record = document["records"][0]
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise ReproduceError("the turn is a whole number")
    seats = choose_seats(record, turn, None, None)
    return reproduce(get_game(document["game"]), record, turn, seats).to_json()
