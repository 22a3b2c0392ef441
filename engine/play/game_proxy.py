"""The controller's side of an author's game: a state and a wire that ask the game's process.

The game's code runs in a process of its own in the bot sandbox (``engine.authored.game_host``; in the
page a Worker), so the session plays a ``ProxyState`` whose every answer comes from there,
checked here (the process may be anything but the engine's host). Each turn costs one round
trip when one seat acts (the answer is parsed and applied in one request), one more per seat
when several act; the seats' next observations and the turn's record come back with it.

A game that breaks (raises, answers wrongly, runs past its time limit, dies) ends the game
with a ``GameCodeError``: one line naming the method and the line in the author's file. A game
that goes over a limit of ``engine.core.replay_limits`` (its turns, the nesting and the size of what
it records, the size of its scores) ends it with a ``GameLimitError``: so whatever it recorded
opens again, and the controller's memory stays bounded however long the game would go on.
``load_game`` starts a process, has it read and check the module, and builds the spec.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any, Protocol

from engine.authored.authored_spec import GameInfoError, check_info, spec_from_info
from engine.authored.game_host import CALL_LIMIT_S, MAX_PROBLEM_CHARS
from engine.authored.game_module import is_argv
from engine.authored.picture import PictureError, check_picture
from engine.bots.pipes import Deadline, LineChannel, LineTooLong, write_all
from engine.bots.sandbox import Sandbox, SandboxError, Unsandboxed, kill_group
from engine.core.errors import AnswerError, GameCodeError, GameLimitError
from engine.core.json_depth import nesting_depth
from engine.core.marks import mark_cells_of
from engine.core.outcome import Outcome, unique_winner
from engine.core.replay_limits import (
    MAX_GAME_RECORD_CHARS,
    MAX_GAME_TURNS,
    MAX_RECORD_DEPTH,
    MAX_REPLY_BYTES,
    MAX_REPLY_DEPTH,
    MAX_SCORE,
    is_score,
)
from engine.core.spec import GameSpec

LOAD_WAIT_S = 120.0  # reading the module and its check game: many calls
CALL_WAIT_S = CALL_LIMIT_S + 3.0  # the host stops a call at its limit; past this it is killed
MAX_OUTPUT_CHARS = 4_000


class Channel(Protocol):
    """Requests to a game host, wherever it runs; ``call`` raises ``GameCodeError``."""

    def call(self, request: dict, wait_s: float) -> dict: ...
    def close(self) -> None: ...


class RefusedAnswer(AnswerError):
    """The game refused a bot's answer (``InvalidAnswer``); the message is the game's."""

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        self.answer, self.reason = None, message


def depth_over_limit(text: str) -> int:
    """How deep a reply nests when that is over ``MAX_REPLY_DEPTH``, else 0 (told by counting
    its brackets when there are too few to nest that deep: most replies)."""
    if text.count("[") + text.count("{") <= MAX_REPLY_DEPTH:
        return 0
    depth = nesting_depth(text)
    return depth if depth > MAX_REPLY_DEPTH else 0


def reply_too_deep(op: str, depth: int) -> GameLimitError:
    """The error of a reply nested deeper than ``MAX_REPLY_DEPTH``: a record in it would nest
    deeper than a replay may hold it."""
    return GameLimitError(f"the game's reply to '{op}' nests {depth} deep; a reply nests at most "
                          f"{MAX_REPLY_DEPTH} deep (a record in it {MAX_RECORD_DEPTH}), so that its replay "
                          "can be read")


def _reply(data: object, request: dict) -> dict:
    """A reply from the game's process, checked: an ``error`` becomes a ``GameCodeError``."""
    if not isinstance(data, dict) or data.get("id") != request.get("id"):
        raise GameCodeError(f"the game's process sent a malformed reply to {request.get('op')}")
    error = data.get("error")
    if error is not None:
        line = data.get("line")
        raise GameCodeError(str(error)[:2_000], line if type(line) is int else None)
    return data


class ProcessChannel:
    """The game host as a sandboxed process (``python -m engine.authored.game_host``), JSON lines."""

    def __init__(self, sandbox: Sandbox | Unsandboxed, on_output: Any = None) -> None:
        self.sandbox = sandbox
        self.on_output = on_output
        self.process: subprocess.Popen | None = None
        self.lines: LineChannel | None = None
        self.next_id = 0

    def start(self) -> None:
        self.close()
        env = {"PYTHONPATH": self.sandbox.engine_root, "PYTHONIOENCODING": "utf-8", "PYTHONHASHSEED": "0"}
        try:
            self.process = self.sandbox.jail().popen(
                [self.sandbox.python, "-s", "-B", "-m", "engine.authored.game_host"], env=env,
                stderr=subprocess.DEVNULL)
        except OSError as exc:
            raise GameCodeError(f"the game's process did not start: {exc}") from None
        self.lines = LineChannel(self.process.stdout, MAX_REPLY_BYTES)

    def call(self, request: dict, wait_s: float) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.close()  # a tournament's next game starts another (engine.play.game_proxy.game_for_worker)
            raise GameCodeError("the game's process is not running")
        self.next_id += 1
        request = {**request, "id": self.next_id}
        deadline = time.perf_counter() + wait_s
        op = request["op"]
        try:
            write_all(self.process.stdin.fileno(), (json.dumps(request) + "\n").encode("utf-8"), deadline)
            line = self.lines.read_line(deadline)
        except Deadline:
            self.close()
            raise GameCodeError(f"the game did not answer '{op}' within {wait_s:g} s (an endless loop in "
                                "code the time limit cannot stop?); its process was stopped") from None
        except OSError:
            line = None
        if line is None:
            self.close()
            raise GameCodeError(f"the game's process ended during '{op}' (out of memory, or it exited)")
        if isinstance(line, LineTooLong):
            self.close()
            raise GameCodeError(f"the game's reply to '{op}' is over {MAX_REPLY_BYTES:,} bytes")
        try:
            text = line.decode("utf-8")
            depth = depth_over_limit(text)
            data = json.loads(text) if not depth else None
        except ValueError:
            self.close()
            raise GameCodeError(f"the game's process sent a reply to '{op}' that is not JSON") from None
        if depth:
            self.close()
            raise reply_too_deep(op, depth)
        if isinstance(data, dict) and isinstance(data.get("output"), str) and self.on_output:
            self.on_output(data["output"][:MAX_OUTPUT_CHARS])
        return _reply(data, request)

    def close(self) -> None:
        if self.process is not None:
            kill_group(self.process)
            for stream in (self.process.stdin, self.process.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            self.process = None


class Undecided:
    """An action the game's process keeps: a seat's answer to parse and apply in one request,
    an answer parsed there, or the seat's default action."""

    __slots__ = ("request",)

    def __init__(self, request: dict) -> None:
        self.request = request

    def __repr__(self) -> str:
        return f"Undecided({self.request})"


DEFAULT = Undecided({"default": True})
PARSED = Undecided({"parsed": True})


class ProxyState:
    """The session's game state; the game itself lives in the game's process."""

    def __init__(self, game: AuthoredGame, settings: Any, seed: int, players: int,
                 secret: str | None) -> None:
        self.game = game
        self.settings = settings
        self.seed = seed
        self.num_players = players
        self.fault_limit = game.info["fault_limit"]
        self.invalid_is_fault = game.info["invalid_is_fault"]
        self.outcome: Outcome | None = None
        self.frozen: set[int] = set()
        self.max_turns = game.info.get("max_turns", MAX_GAME_TURNS)
        self.turns = 0
        self.recorded = 0  # characters of JSON the game has recorded so far
        values = settings.to_json()
        reply = game.call({"op": "new", "settings": values, "players": players, "seed": seed,
                           "secret": secret})
        start, messages = reply.get("start"), reply.get("messages")
        if not isinstance(messages, list) or len(messages) != players:
            raise GameCodeError("the game's process sent no start message for every seat")
        self.start_messages = messages
        self.start_record = self._record(start, "record_start", picture_required=True)
        self.last_record: dict = {}
        self._status(reply)

    # -- what the session asks ---------------------------------------------------------
    def acting_seats(self) -> tuple[int, ...]:
        return self.acting

    def is_terminal(self) -> bool:
        return self.outcome is not None

    def default_action(self, seat: int = 0) -> Undecided:
        return DEFAULT

    def apply_actions(self, actions: dict[int, Any]) -> None:
        if self.outcome is not None:
            raise GameCodeError("a turn was played after the game ended")
        wanted = {str(seat): (a if isinstance(a, Undecided) else DEFAULT).request
                  for seat, a in actions.items()}
        reply = self.game.call({"op": "apply", "actions": wanted})
        if "invalid" in reply:
            raise RefusedAnswer(_invalid(reply["invalid"]))
        self.last_record = self._record(reply.get("record"), "record_turn")
        self._status(reply)
        self.turns += 1
        if self.outcome is None and self.turns >= self.max_turns:
            whose = "its MAX_TURNS" if self.max_turns < MAX_GAME_TURNS else "the engine's limit for a game"
            raise GameLimitError(f"the game did not end within {self.max_turns:,} turns ({whose})")
        return None  # the changes stay in the game's process, which tells each seat what changed

    def freeze(self, seat: int) -> None:
        self.frozen.add(seat)
        if self.outcome is None:
            self._status(self.game.call({"op": "freeze", "seat": seat}))

    def copy(self) -> TrialState:
        """For the replay checker: a copy on which one seat's answer is tried, never kept."""
        return TrialState(self)

    def returns(self) -> tuple:
        return self.outcome.scores if self.outcome is not None else ()

    def parse(self, text: str, seat: int) -> Undecided:
        if len(self.acting) == 1:
            return Undecided({"answer": text})  # parsed and applied in one request
        reply = self.game.call({"op": "parse", "seat": seat, "text": text})
        if "invalid" in reply:
            raise RefusedAnswer(_invalid(reply["invalid"]))
        return PARSED if seat in self.acting else DEFAULT

    def observation(self, seat: int) -> Any:
        message = self.observations.pop(seat, None)
        if message is None:
            message = self.game.call({"op": "observe", "seat": seat}).get("message")
        return message

    def _record(self, record: object, method: str, picture_required: bool = False) -> dict:
        """A record from the game, checked: its picture, and its size (all of the game's records
        together) within what a replay holds. Its nesting is the reply's, checked by the channel
        (``MAX_REPLY_DEPTH``: a record nests at most ``MAX_RECORD_DEPTH``)."""
        if not isinstance(record, dict) or set(record) & {"seats", "answers", "faults"}:
            raise GameCodeError(f"the game's {method} is not a record")
        if "picture" in record or picture_required:
            try:
                check_picture(record.get("picture"))
            except PictureError as exc:
                raise GameCodeError(f"draw returned a picture that is not one: {exc}") from None
        try:
            text = json.dumps(record, allow_nan=False)
        except (ValueError, RecursionError):
            raise GameCodeError(f"the game's {method} is not JSON (NaN or infinity)") from None
        self.recorded += len(text)
        if self.recorded > MAX_GAME_RECORD_CHARS:
            raise GameLimitError(f"the game recorded over {MAX_GAME_RECORD_CHARS // 2**20} MiB by turn "
                                 f"{self.turns + 1} ({method}, pictures included): a replay would be too big "
                                 "to read")
        return record

    def _status(self, reply: dict) -> None:
        over, acting = reply.get("over"), reply.get("acting")
        if over is not None:
            scores = reply.get("scores")
            if not isinstance(over, str) or not 0 < len(over) <= 100 or not isinstance(scores, list) \
                    or len(scores) != self.num_players:
                raise GameCodeError("the game's process ended the game without a reason and a score per seat")
            if not all(is_score(s) for s in scores):
                raise GameLimitError(f"the game's scores {_show(scores)} are not numbers of at most "
                                     f"{MAX_SCORE:.0e} in size (finite, not true or false)")
            self.acting, self.observations = (), {}
            self.outcome = Outcome(over, tuple(scores), unique_winner(scores))
            return
        if not isinstance(acting, list) or not acting or not all(
                type(s) is int and 0 <= s < self.num_players for s in acting) \
                or len(set(acting)) != len(acting):  # set() after the types: a list is unhashable
            raise GameCodeError("the game's process named no acting seats, or seats that do not exist")
        self.acting = tuple(acting)
        observations = reply.get("observations", {})
        if not isinstance(observations, dict):
            raise GameCodeError("the game's process sent malformed observations")
        seats = {str(seat): seat for seat in self.acting}  # not int(k): "9" * 5000 or "²" raise
        self.observations = {seats[k]: v for k, v in observations.items() if k in seats and v is not None}


class TrialState:
    """A copy of the game for one trial move (``ProxyState.copy``): the game's process plays it
    on a copy of its state, so the game goes on untouched."""

    def __init__(self, state: ProxyState) -> None:
        self.state = state

    def apply_actions(self, actions: dict[int, Any]) -> None:
        wanted = {str(seat): a.request for seat, a in actions.items() if isinstance(a, Undecided)}
        if len(wanted) != 1 or "answer" not in next(iter(wanted.values())):
            return None  # several seats: every parsed answer is taken
        reply = self.state.game.call({"op": "trial", "actions": wanted})
        if "invalid" in reply:
            raise RefusedAnswer(_invalid(reply["invalid"]))
        return None


def _invalid(message: object) -> str:
    return message[:500] if isinstance(message, str) else "the game refused the answer"


def _show(value: object) -> str:
    """A short text of a value from the game's process (a huge int shown by its size)."""
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value[:4]) + (", ...]" if len(value) > 4 else "]")
    if type(value) is int and not -10**20 < value < 10**20:
        return f"an int of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class ProxyWire:
    """The wire of an author's game on the controller's side: every call reaches its process."""

    def __init__(self, game: AuthoredGame) -> None:
        self.game = game

    def start_message(self, state: ProxyState, seat: int) -> Any:
        return state.start_messages[seat]

    def observation(self, state: ProxyState, seat: int, changes: list) -> Any:
        return state.observation(seat)

    def parse_answer(self, text: str, state: ProxyState, seat: int = 0) -> Undecided:
        return state.parse(text, seat)

    def message_lines(self, message: Any) -> list[str]:
        lines = self.game.call({"op": "lines", "message": message}).get("lines")
        if not isinstance(lines, list) or not all(isinstance(x, str) and "\n" not in x for x in lines):
            raise GameCodeError("the game's lines are not a list of strings")
        return lines

    def message_argv(self, message: Any) -> list[str]:
        """The message's command-line arguments (the game's ``argv``), for a per-turn script."""
        if not self.game.info["argv"]:
            return []
        args = self.game.call({"op": "argv", "message": message}).get("argv")
        if not isinstance(args, list) or not is_argv(args):
            raise GameCodeError("the game's argv is not a list of strings without NUL, within its limits")
        return args

    def answer_text(self, value: Any) -> str:
        return str(value)

    def mark_cells(self, state: ProxyState, seat: int, where: tuple[int, ...]) -> tuple[int, ...] | None:
        """The game's cells of a seat's mark (its ``mark_cells``), checked; None drops the mark."""
        if not self.game.info["marks"]:
            return None
        try:
            cells = self.game.call({"op": "mark", "seat": seat, "where": list(where)}).get("cells")
        except GameCodeError:
            return None  # the mark is dropped; the game's next call says what is wrong
        return mark_cells_of(cells)

    def record_start(self, state: ProxyState) -> dict:
        return state.start_record

    def record_turn(self, state: ProxyState, messages: dict, actions: dict, changes: Any) -> dict:
        return state.last_record

    def replay_check(self, turn: dict, state: ProxyState, changes: Any) -> str | None:
        """The game's own check of a replayed turn (its ``replay_check``), after the engine's."""
        if not self.game.info["replay_check"]:
            return None
        problem = self.game.call({"op": "check", "turn": turn}).get("problem")
        if problem is None:
            return None
        if not isinstance(problem, str) or not problem:
            return "the game's check failed"
        return problem[:MAX_PROBLEM_CHARS]


class AuthoredGame:
    """An author's game reached through a channel: its checked description and spec."""

    def __init__(self, source: str, channel: Channel, wait_s: float = CALL_WAIT_S,
                 load_wait_s: float = LOAD_WAIT_S) -> None:
        self.source = source
        self.channel = channel
        self.wait_s = wait_s
        reply = channel.call({"op": "load", "source": source}, load_wait_s)
        try:
            self.info = check_info(reply.get("info"))
        except GameInfoError as exc:
            raise GameCodeError(f"the game's process described the game wrongly: {exc}") from None
        self.spec: GameSpec = spec_from_info(self.info, source, ProxyWire(self), self.new_game)

    def call(self, request: dict) -> dict:
        return self.channel.call(request, self.wait_s)

    def new_game(self, settings: Any, seed: int, players: int | None = None,
                 secret: str | None = None) -> ProxyState:
        fixed = self.info["players"][0] if not self.info["players_setting"] else None
        players = players if players is not None else fixed or settings.players
        if fixed is None and not self.spec.side_by_side and players != settings.players:
            settings = self.spec.settings_type(**{**settings.to_json(), "players": players})
        return ProxyState(self, settings, seed, players, secret)

    def close(self) -> None:
        self.channel.close()
        if _loaded.get(self.source) is self:
            del _loaded[self.source]


_loaded: dict[str, AuthoredGame] = {}  # by source: the games this process has started


def load_game(source: str, sandbox: Sandbox | Unsandboxed, on_output: Any = None) -> AuthoredGame:
    """Start the game's process in ``sandbox``, read and check the module there."""
    channel = ProcessChannel(sandbox, on_output)
    channel.start()
    try:
        game = AuthoredGame(source, channel)
    except GameCodeError:
        channel.close()
        raise
    _loaded[source] = game
    return game


def game_for_worker(source: str, sandboxed: bool, memory_mb: int) -> GameSpec:
    """A tournament worker's spec of an author's game: the one this process loaded, else the
    module loaded (and registered, for the bots) now; it lives as long as the process."""
    from engine.games.registry import register

    game = _loaded.get(source)
    if game is None or game.channel.process is None:
        game = load_game(source, game_sandbox(not sandboxed, memory_mb))
    register(game.spec)
    return game.spec


def read_game_file(path: Path) -> str:
    """The module's source; ``OSError``/``UnicodeDecodeError`` (with the path) for a bad file."""
    return path.read_text(encoding="utf-8-sig")


def game_sandbox(no_sandbox: bool, memory_mb: int) -> Sandbox | Unsandboxed:
    """The sandbox the game's process runs in (``SandboxError`` when it cannot start)."""
    from engine.bots.sandbox import Limits

    limits = Limits(memory_mb=memory_mb)
    if no_sandbox:
        return Unsandboxed(limits)
    sandbox = Sandbox(limits)
    sandbox.probe()
    return sandbox


__all__ = ["AuthoredGame", "GameCodeError", "ProcessChannel", "ProxyState", "SandboxError", "load_game"]
