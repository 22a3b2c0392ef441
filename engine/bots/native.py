"""Bots as the native controller reaches them: in-process, hosted, or a command.

- ``InProcessBot``: trusted code (the built-in examples) run in the controller's process;
  the fast path the benchmarks measure.
- ``HostedBot``: a user's Python file in a bot host process (``engine.bots.host``) in the
  sandbox (``engine.bots.sandbox``), restarted for every game, stopped when it runs past
  the hard limit. Its replies go through the one reply checker (``engine.bots.reply``).
- ``CommandBot``: any program, in the sandbox, spoken to over stdin/stdout in the game's
  text protocol, its output read in bounded chunks (``engine.bots.pipes``).

At the end of every game a bot's sandbox is killed as a whole, so nothing it started
lives on into the next game.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from time import perf_counter

from engine.bots.answer import BotAnswer, TurnReply, cap_text
from engine.bots.budget_seal import SealCheck
from engine.bots.code import FUNCTION, BotLoadError, load_code
from engine.bots.kept import KeptFolder, run_turn
from engine.bots.pipes import (
    KEEP_HEAD,
    Deadline,
    Finished,
    LineChannel,
    LineTooLong,
    StreamDrain,
    collect,
    write_all,
)
from engine.bots.python2 import PYTHON2, PYTHON3, convert
from engine.bots.reply import MALFORMED, MAX_REPLY_BYTES, ReplyError, answer_from_reply, decode_reply_line
from engine.bots.runners import FunctionRunner, OneShotScriptRunner, script_answer
from engine.bots.sandbox import ENGINE_ROOT, Jail, Sandbox, Unsandboxed, kill_group
from engine.core.randomness import turn_seed
from engine.core.timing import hard_limit_ms
from engine.games.registry import get_game

__all__ = ["ENGINE_ROOT", "CommandBot", "HostedBot", "InProcessBot", "hard_limit_ms"]

MAX_COMMAND_LINE = 1 << 16  # bytes in one line a command bot prints (an answer is short)
START_WAIT_MS = 10_000  # for a bot host to start and load its code
# Bots' Python iterates sets and dicts of strings alike from run to run (hash randomisation
# off), so a bot's seeded game repeats exactly.
HASH_SEED_ENV = {"PYTHONHASHSEED": "0"}
FRESH_EVERY_TURN = ("per_move", "per_turn")  # script modes that start the bot afresh each turn


class InProcessBot:
    """Trusted Python source run in this process (built-in example bots; tests' Python 2
    answers, converted here)."""

    def __init__(self, name: str, source: str, budget: int | None = None, language: str = PYTHON3) -> None:
        self.name = name
        self.source = source
        self.budget = budget  # steps per turn (None: not counted)
        self.language = language
        self.runner = None

    def load(self, game: str) -> BotAnswer:
        try:
            if self.language == PYTHON2:
                conversion = convert(self.source)
                bot = load_code(conversion.converted, conversion.lines, conversion.true_division)
            else:
                bot = load_code(self.source)
        except BotLoadError as exc:
            return BotAnswer(error=exc.message, line=exc.line)
        if bot.kind == FUNCTION:
            self.runner = FunctionRunner(game, bot, self.budget)
        else:  # a trusted script example: afresh each turn, even in a streaming game
            mode = get_game(game).script_mode
            self.runner = OneShotScriptRunner(game, bot, "per_move" if mode == "stream" else mode,
                                              self.budget)
        return BotAnswer()

    def start(self, seat: int, message: dict, seed: int | None = None) -> BotAnswer:
        return self.runner.start(message, seed)

    def turn(self, message: dict, time_limit_ms: int) -> TurnReply:
        began = perf_counter()
        result = self.runner.turn(message)
        return TurnReply(result, (perf_counter() - began) * 1000.0, False, self.budget is not None)

    def end(self) -> BotAnswer:
        return self.runner.end()

    def close(self) -> None:
        pass



class HostedBot:
    """A user's Python bot (function or script) in a bot host process in the sandbox."""

    def __init__(self, name: str, source: str, sandbox: Sandbox | Unsandboxed | None = None,
                 budget: int | None = None, language: str = PYTHON3) -> None:
        self.name = name
        self.source = source
        self.language = language  # PYTHON2: converted here (cached), the host gets Python 3
        self.budget = budget  # steps per turn, counted in the host (None: not counted)
        # the host's verdicts, sealed with a key of this controller's (engine.bots.budget_seal)
        self.seals = SealCheck(budget) if budget is not None else None
        self.sandbox = sandbox if sandbox is not None else Unsandboxed()
        self.jail: Jail = self.sandbox.jail()
        self.process: subprocess.Popen | None = None
        self.channel: LineChannel | None = None
        self.next_id = 0
        self.game = ""
        self.load_error: BotAnswer | None = None
        self.start_seed: int | None = None
        self.turns = 0

    def _running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _spawn(self) -> BotAnswer:
        self.kill()
        env = {"PYTHONPATH": self.sandbox.engine_root, "PYTHONIOENCODING": "utf-8", **HASH_SEED_ENV}
        try:
            self.process = self.jail.popen([self.sandbox.python, "-s", "-B", "-m", "engine.bots.host"],
                                           env=env, stderr=subprocess.DEVNULL)
        except OSError as exc:
            return BotAnswer(error=f"the bot host did not start: {exc}")
        self.channel = LineChannel(self.process.stdout, MAX_REPLY_BYTES)
        request = {"op": "load", "game": self.game, "code": self.source}
        if self.language == PYTHON2:
            try:
                request.update(convert(self.source).to_json())
            except BotLoadError as exc:
                return BotAnswer(error=exc.message, line=exc.line)
        game_module = get_game(self.game).game_module
        if game_module is not None:  # an author's game: its bot-side code runs here, with the bot
            request["game_module"] = game_module
        if self.seals is not None:
            request["budget"] = self.budget
            request["key"] = self.seals.new_key()  # a new process: a new key, a counter from 0
        reply, _, answered = self._call(request, START_WAIT_MS)
        if not answered:
            return BotAnswer(error="the bot host did not load the code in time")
        if reply.error:
            return reply
        return BotAnswer()

    def _call(self, request: dict, wait_ms: float) -> tuple[BotAnswer, float, bool]:
        """Send a request; (its checked reply, elapsed ms, whether it answered in time).

        The clock runs from the request to its reply, measured here: nothing another bot
        does can stall it (they cannot reach this process).
        """
        self.next_id += 1
        request["id"] = self.next_id
        sealed = self.seals is not None and request["op"] in ("start", "turn")
        if sealed:
            request["nonce"] = self.seals.new_nonce()
        began = time.perf_counter()
        deadline = began + wait_ms / 1000.0
        try:
            write_all(self.process.stdin.fileno(), (json.dumps(request) + "\n").encode("utf-8"), deadline)
        except Deadline:
            self.kill()
            return BotAnswer(), (time.perf_counter() - began) * 1000.0, False
        except (OSError, ValueError):
            return BotAnswer(error="the bot's process ended"), 0.0, True
        while True:
            try:
                line = self.channel.read_line(deadline)
            except Deadline:
                self.kill()
                return BotAnswer(), (time.perf_counter() - began) * 1000.0, False
            elapsed = (time.perf_counter() - began) * 1000.0
            if line is None:
                return BotAnswer(error="the bot's process ended"), elapsed, True
            if isinstance(line, LineTooLong):
                self.kill()  # its channel is out of step for good
                return BotAnswer(error=f"{MALFORMED}: a line longer than {MAX_REPLY_BYTES:,} bytes "
                                       "(the bot was stopped)"), elapsed, True
            try:
                data = decode_reply_line(line)
            except ReplyError as exc:
                return BotAnswer(error=f"{MALFORMED}: {exc}"), elapsed, True
            if isinstance(data, dict) and data.get("id") != self.next_id and "id" in data:
                continue  # a late reply to an earlier request
            answer = answer_from_reply(data)
            if answer.error is None and request["op"] in ("load", "start") and data.get("ok") is not True:
                answer.error = f"{MALFORMED}: no 'ok' in the reply to {request['op']}"
            if sealed:  # an answer needs the host's sealed verdict, within the budget
                answer = self.seals.judge(answer, data.get("seal") if isinstance(data, dict) else None)
            return answer, elapsed, True

    def load(self, game: str) -> BotAnswer:
        self.game = game
        self.load_error = None
        result = self._spawn()
        if result.error:
            self.load_error = result
            self.kill()
        return result

    def start(self, seat: int, message: dict, seed: int | None = None) -> BotAnswer:
        if self.load_error:
            return self.load_error
        if not self._running():
            result = self._spawn()
            if result.error:
                return result
        self.start_seed, self.turns = seed, 0
        request = {"op": "start", "message": message}
        if seed is not None:
            request["seed"] = seed
        reply, _, answered = self._call(request, START_WAIT_MS)
        if not answered:
            return BotAnswer(error="the bot did not start in time")
        return reply

    def turn(self, message: dict, time_limit_ms: int) -> TurnReply:
        if not self._running():
            return TurnReply(BotAnswer(error="the bot's process is not running"), 0.0)
        request = {"op": "turn", "message": message}
        self.turns += 1
        if self.start_seed is not None and get_game(self.game).script_mode in FRESH_EVERY_TURN:
            request["seed"] = turn_seed(self.start_seed, self.turns)  # for a script run afresh
        reply, elapsed, answered = self._call(request, hard_limit_ms(time_limit_ms, self.budget is not None))
        if not answered:
            return TurnReply(BotAnswer(), elapsed, no_answer=True)
        return TurnReply(reply, elapsed, steps_counted=self.budget is not None)

    def end(self) -> BotAnswer:
        """The game is over: collect the bot's last output, then kill its whole sandbox."""
        result = BotAnswer()
        if self._running():
            reply, _, answered = self._call({"op": "end"}, 2000)
            if answered and not reply.error:
                result = reply
        self.kill()
        return result

    def kill(self) -> None:
        kill_group(self.process)
        if self.process is not None:
            for stream in (self.process.stdin, self.process.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        self.process = None

    def close(self) -> None:
        self.kill()


def _finish(process: subprocess.Popen | None) -> None:
    """Close the program's stdin (its EOF), give it a second to exit, then kill its group."""
    if process is None:
        return
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=1)
    except subprocess.TimeoutExpired:
        pass
    kill_group(process)
    try:
        process.stdout.close()
    except OSError:
        pass


def _command_files(argv: list[str]) -> tuple[list[str], dict[str, tuple[bytes, bool]]]:
    """The command line as the sandbox sees it, and the files to copy into its working dir.

    Every argument that names an existing file (the program itself when it is given as a
    path) is copied in and named by its base name; nothing else of the host is visible.
    """
    files: dict[str, tuple[bytes, bool]] = {}
    seen: dict[str, str] = {}
    result = []
    for index, arg in enumerate(argv):
        path = Path(arg)
        is_program = index == 0
        if (not is_program or "/" in arg) and path.is_file():
            real = str(path.resolve())
            name = seen.get(real)
            if name is None:
                name = path.name
                while name in files:
                    name = f"{len(files)}-{path.name}"
                files[name] = (path.read_bytes(), os.access(path, os.X_OK))
                seen[real] = name
            result.append(f"./{name}" if is_program else name)
        else:
            result.append(arg)
    return result, files


class CommandBot:
    """Any program speaking the text protocol, run as the game's ``script_mode`` says (as
    the original controllers ran their bots): ``stream``, one process per game reading
    lines as they come; ``per_move``, a process per move reading stdin, its last line the
    answer; ``per_turn``, a process per turn with the view as its last argument and on
    stdin, in a private working directory kept for the game, its first line the answer."""

    def __init__(self, name: str, command: str, sandbox: Sandbox | Unsandboxed | None = None) -> None:
        self.name = name
        self.command = command
        self.argv = shlex.split(command)
        self.sandbox = sandbox if sandbox is not None else Unsandboxed()
        self.jail: Jail = self.sandbox.jail()
        self.process: subprocess.Popen | None = None
        self.channel: LineChannel | None = None
        self.stderr: StreamDrain | None = None
        self.keep_dir: str | None = None  # per_turn, unsandboxed: the bot's directory this game
        self.kept: KeptFolder | None = None  # per_turn, in the sandbox: its kept folder this game
        self.start_seed: int | None = None  # KOTH_SEED: the game's, or each turn's from it
        self.turns = 0

    def load(self, game: str) -> BotAnswer:
        self.game = game
        spec = get_game(game)
        self.wire = spec.wire
        self.mode = spec.script_mode
        self.streaming = self.mode == "stream"
        if not self.argv:
            return BotAnswer(error="empty command")
        program = self.argv[0]
        search = self.sandbox.path if self.sandbox.sandboxed else None
        if not (os.path.isfile(program) if "/" in program else shutil.which(program, path=search)):
            return BotAnswer(error=f"cannot start {self.command!r}: {program} not found")
        self.files: dict[str, tuple[bytes, bool]] = {}
        self.run_argv = self.argv
        if self.sandbox.sandboxed:
            try:
                self.run_argv, self.files = _command_files(self.argv)
            except OSError as exc:
                return BotAnswer(error=f"cannot read the bot's files: {exc}")
        return BotAnswer()

    def _popen(self, extra_argv: list[str] | None = None, seed: int | None = None) -> subprocess.Popen:
        env = dict(HASH_SEED_ENV)
        if seed is not None:
            env["KOTH_SEED"] = str(seed)
        return self.jail.popen([*self.run_argv, *(extra_argv or [])], files=self.files,
                               env=env, keep_dir=self.keep_dir)

    def start(self, seat: int, message: dict, seed: int | None = None) -> BotAnswer:
        self.start_seed, self.turns = seed, 0
        if self.mode == "per_turn":
            self._remove_keep_dir()
            try:
                if self.sandbox.sandboxed:
                    limits = self.sandbox.limits
                    self.kept = KeptFolder(limits.disk_mb << 20, limits.files)
                else:
                    self.keep_dir = self.jail.private_dir()
            except OSError as exc:
                return BotAnswer(error=f"cannot make the bot's directory: {exc}")
        if not self.streaming:
            return BotAnswer()
        try:
            self.process = self._popen(seed=seed)
        except OSError as exc:
            return BotAnswer(error=f"cannot start {self.command!r}: {exc}")
        self.channel = LineChannel(self.process.stdout, MAX_COMMAND_LINE)
        self.stderr = StreamDrain(self.process.stderr)
        return self._write(self.wire.message_lines(message), time.perf_counter() + 10) or BotAnswer()

    def _take_stderr(self) -> str:
        return self.stderr.take() if self.stderr is not None else ""

    def _write(self, lines: list[str], deadline: float) -> BotAnswer | None:
        data = "".join(line + "\n" for line in lines).encode("utf-8")
        try:
            write_all(self.process.stdin.fileno(), data, deadline)
        except Deadline:
            return BotAnswer(error="the program did not read its input in time")
        except (OSError, ValueError):
            return BotAnswer(error=f"the program exited (code {self.process.poll()})")
        return None

    def _remove_keep_dir(self) -> None:
        if self.keep_dir is not None:
            shutil.rmtree(self.keep_dir, ignore_errors=True)
            self.keep_dir = None
        if self.kept is not None:
            self.kept.close()
            self.kept = None

    def _run_once(self, lines: list[str], wait_s: float, argv: list[str]) -> TurnReply:
        """A fresh process for the turn; ``script_answer`` reads its answer."""
        began = time.perf_counter()
        self.turns += 1
        seed = None if self.start_seed is None else turn_seed(self.start_seed, self.turns)
        data = "".join(x + "\n" for x in lines).encode("utf-8")
        kept_error, dropped = None, 0
        if self.kept is not None:
            env = dict(HASH_SEED_ENV)
            if seed is not None:
                env["KOTH_SEED"] = str(seed)
            try:
                turn = run_turn(self.jail, [*self.run_argv, *argv], self.files, env, self.kept, data, wait_s)
            except OSError as exc:
                return TurnReply(BotAnswer(error=f"cannot start {self.command!r}: {exc}"), 0.0)
            done, elapsed, kept_error, dropped = turn.finished, turn.elapsed_ms, turn.error, turn.dropped
        else:
            try:
                process = self._popen(argv, seed)
            except OSError as exc:
                return TurnReply(BotAnswer(error=f"cannot start {self.command!r}: {exc}"), 0.0)
            try:
                done = collect(process, data, began + wait_s)
            finally:
                kill_group(process)
                for stream in (process.stdin, process.stdout, process.stderr):
                    try:
                        stream.close()
                    except OSError:
                        pass
            elapsed = (time.perf_counter() - began) * 1000.0
        return self._turn_reply(done, elapsed, kept_error, dropped)

    def _turn_reply(self, done: Finished, elapsed: float, kept_error: str | None, dropped: int) -> TurnReply:
        stderr = done.stderr.text()
        if dropped:
            stderr += (f"\n[koth] {dropped:,} entries of the working folder not kept: only regular "
                       "files and folders are (links, fifos, sockets and devices are dropped)\n")
        if done.timed_out:
            return TurnReply(BotAnswer(stderr=stderr), elapsed, no_answer=True)
        answer, printed = script_answer(done.stdout.text().splitlines(), self.mode)
        error = None
        if done.returncode != 0 and answer is None:
            error = f"the program exited with code {done.returncode}"
            last = (stderr.strip().splitlines() or [""])[-1]
            if done.returncode in (126, 127) or last.startswith("bwrap:"):
                error = f"cannot start {self.command!r} (exit code {done.returncode}): {last}"
        if kept_error is not None:
            error = kept_error
        return TurnReply(BotAnswer(answer, error, None, "\n".join(printed), stderr), elapsed)

    def turn(self, message: dict, time_limit_ms: int) -> TurnReply:
        wait_s = hard_limit_ms(time_limit_ms) / 1000.0
        lines = self.wire.message_lines(message)
        if not self.streaming:
            return self._run_once(lines, wait_s, self.wire.message_argv(message))
        if self.process is None:
            return TurnReply(BotAnswer(error="the program is not running"), 0.0)
        began = time.perf_counter()
        deadline = began + wait_s
        failed = self._write(lines, deadline)
        if failed:
            return TurnReply(failed, 0.0)
        text = None
        while text is None:  # blank lines are no answer: read on to the first that is not
            try:
                line = self.channel.read_line(deadline)
            except Deadline:
                self.kill()
                return TurnReply(BotAnswer(stderr=self._take_stderr()),
                                 (time.perf_counter() - began) * 1000.0, no_answer=True)
            elapsed = (time.perf_counter() - began) * 1000.0
            if line is None:
                code = self.process.poll()
                return TurnReply(BotAnswer(error=f"the program exited (code {code})",
                                           stderr=self._take_stderr()), elapsed)
            if isinstance(line, LineTooLong):
                return TurnReply(BotAnswer(error=f"the program printed a line longer than "
                                                 f"{MAX_COMMAND_LINE:,} bytes", stderr=self._take_stderr()),
                                 elapsed)
            text, _ = script_answer([line.decode("utf-8", "replace")], self.mode)
        return TurnReply(BotAnswer(cap_text(text, KEEP_HEAD), stderr=self._take_stderr()), elapsed)

    def end(self) -> BotAnswer:
        self._remove_keep_dir()
        _finish(self.process)
        stderr = self.stderr.finish() if self.stderr is not None else ""
        self._close_streams()
        return BotAnswer(stderr=stderr)

    def _close_streams(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        if self.process is not None:
            try:
                self.process.stderr.close()
            except OSError:
                pass
        self.process = None
        self.stderr = None

    def kill(self) -> None:
        kill_group(self.process)

    def close(self) -> None:
        self._remove_keep_dir()
        if self.process is not None:
            self.end()
