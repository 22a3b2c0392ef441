"""Bots as the native controller reaches them: in-process, hosted, or a command.

- ``InProcessBot``: trusted code (the built-in examples) run in the controller's process;
  the fast path the benchmarks measure.
- ``HostedBot``: a user's Python file in a bot host subprocess (``engine.bots.host``):
  isolated, and stopped when it runs past the hard limit.
- ``CommandBot``: any program, spoken to over stdin/stdout in the game's text protocol.
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

from engine.bots.code import FUNCTION, BotLoadError, load_code
from engine.bots.runners import BotAnswer, FunctionRunner, OneShotScriptRunner
from engine.driver import TurnReply
from engine.games import get_game

ENGINE_ROOT = Path(__file__).resolve().parents[2]


def hard_limit_ms(time_limit_ms: int) -> int:
    """How long to wait before a silent bot is stopped: 10x the limit, at least 2 s."""
    return max(2000, 10 * time_limit_ms)


class InProcessBot:
    """Trusted Python source run in this process (built-in example bots)."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.runner = None

    def load(self, game: str) -> BotAnswer:
        try:
            bot = load_code(self.source)
        except BotLoadError as exc:
            return BotAnswer(error=exc.message, line=exc.line)
        self.runner = FunctionRunner(game, bot) if bot.kind == FUNCTION else OneShotScriptRunner(game, bot)
        return BotAnswer()

    def start(self, seat: int, message: dict) -> BotAnswer:
        return self.runner.start(message)

    def turn(self, message: dict, time_limit_ms: int) -> TurnReply:
        began = time.perf_counter()
        result = self.runner.turn(message)
        return TurnReply(result, (time.perf_counter() - began) * 1000.0)

    def end(self) -> BotAnswer:
        return self.runner.end()

    def close(self) -> None:
        pass


class _LineReader:
    """Reads a pipe's lines on a thread so the controller can wait with a deadline."""

    def __init__(self, stream) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream) -> None:
        for line in stream:
            self.lines.put(line)
        self.lines.put(None)

    def get(self, timeout_s: float) -> str | None:
        """The next line; None at EOF (and every time after); raises queue.Empty after ``timeout_s``."""
        line = self.lines.get(timeout=timeout_s)
        if line is None:
            self.lines.put(None)  # EOF is sticky: a later read must not wait for the hard limit
        return line


class HostedBot:
    """A user's Python bot (function or script) in a bot host subprocess."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source
        self.process: subprocess.Popen | None = None
        self.next_id = 0
        self.game = ""
        self.time_limit_ms = 100
        self.load_error: BotAnswer | None = None

    def _spawn(self) -> BotAnswer:
        env = dict(os.environ, PYTHONPATH=str(ENGINE_ROOT), PYTHONIOENCODING="utf-8")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "engine.bots.host"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, bufsize=1)
        self.reader = _LineReader(self.process.stdout)
        reply, _, _ = self._call({"op": "load", "game": self.game, "code": self.source}, 10_000)
        if reply is None or not reply.get("ok"):
            error = reply.get("error") if reply else "the bot host did not start"
            return BotAnswer(error=error, line=reply.get("line") if reply else None)
        return BotAnswer()

    def _call(self, request: dict, wait_ms: float) -> tuple[dict | None, float, bool]:
        """Send a request; (reply or None, elapsed ms, whether it answered in time)."""
        self.next_id += 1
        request["id"] = self.next_id
        began = time.perf_counter()
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return None, 0.0, True
        deadline = began + wait_ms / 1000.0
        while True:
            try:
                line = self.reader.get(max(0.0, deadline - time.perf_counter()))
            except queue.Empty:
                self.kill()
                return None, (time.perf_counter() - began) * 1000.0, False
            elapsed = (time.perf_counter() - began) * 1000.0
            if line is None:
                return None, elapsed, True
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            if isinstance(reply, dict) and reply.get("id") == self.next_id:
                return reply, elapsed, True

    def load(self, game: str) -> BotAnswer:
        self.game = game
        self.load_error = None
        result = self._spawn()
        if result.error:
            self.load_error = result
        return result

    def start(self, seat: int, message: dict) -> BotAnswer:
        if self.load_error:
            return self.load_error
        if self.process is None or self.process.poll() is not None:
            result = self._spawn()
            if result.error:
                return result
        reply, _, _ = self._call({"op": "start", "message": message}, 10_000)
        if reply is None:
            return BotAnswer(error="the bot host stopped while starting")
        return _answer(reply)

    def turn(self, message: dict, time_limit_ms: int) -> TurnReply:
        if self.process is None or self.process.poll() is not None:
            return TurnReply(BotAnswer(error="the bot's process is not running"), 0.0)
        reply, elapsed, answered = self._call({"op": "turn", "message": message},
                                              hard_limit_ms(time_limit_ms))
        if not answered:
            return TurnReply(BotAnswer(), elapsed, no_answer=True)
        if reply is None:
            return TurnReply(BotAnswer(error="the bot's process ended"), elapsed)
        return TurnReply(_answer(reply), elapsed)

    def end(self) -> BotAnswer:
        if self.process is None or self.process.poll() is not None:
            return BotAnswer()
        reply, _, answered = self._call({"op": "end"}, 2000)
        return _answer(reply) if reply else BotAnswer()

    def kill(self) -> None:
        _kill(self.process)

    def close(self) -> None:
        _finish(self.process)


def _kill(process: subprocess.Popen | None) -> None:
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


def _finish(process: subprocess.Popen | None) -> None:
    """Close the program's stdin (its EOF) and give it a second to exit, then kill it."""
    if process is None:
        return
    try:
        process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=1)
    except subprocess.TimeoutExpired:
        _kill(process)


def _answer(reply: dict) -> BotAnswer:
    return BotAnswer(reply.get("answer"), reply.get("error"), reply.get("line"),
                     str(reply.get("stdout") or ""), str(reply.get("stderr") or ""))


class CommandBot:
    """Any program speaking the text protocol: one process per game for Flit, one per move
    for Atomas (as the original controller ran its bots)."""

    def __init__(self, name: str, command: str) -> None:
        self.name = name
        self.command = command
        self.argv = shlex.split(command)
        self.process: subprocess.Popen | None = None
        self.stderr_parts: list[str] = []

    def load(self, game: str) -> BotAnswer:
        self.game = game
        self.wire = get_game(game).wire
        self.streaming = game == "flit"
        if not self.argv:
            return BotAnswer(error="empty command")
        return BotAnswer()

    def _popen(self) -> subprocess.Popen:
        return subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, bufsize=1)

    def start(self, seat: int, message: dict) -> BotAnswer:
        if not self.streaming:
            return BotAnswer()
        try:
            self.process = self._popen()
        except OSError as exc:
            return BotAnswer(error=f"cannot start {self.command!r}: {exc}")
        self.reader = _LineReader(self.process.stdout)
        self.stderr_parts = []
        threading.Thread(target=self._drain_stderr, args=(self.process.stderr,), daemon=True).start()
        return self._write(self.wire.message_lines(message)) or BotAnswer()

    def _drain_stderr(self, stream) -> None:
        for line in stream:
            self.stderr_parts.append(line)

    def _take_stderr(self) -> str:
        parts, self.stderr_parts = self.stderr_parts, []
        return "".join(parts)

    def _write(self, lines: list[str]) -> BotAnswer | None:
        try:
            self.process.stdin.write("".join(line + "\n" for line in lines))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return BotAnswer(error=f"the program exited (code {self.process.poll()})")
        return None

    def turn(self, message: dict, time_limit_ms: int) -> TurnReply:
        wait_s = hard_limit_ms(time_limit_ms) / 1000.0
        lines = self.wire.message_lines(message)
        began = time.perf_counter()
        if not self.streaming:
            try:
                done = subprocess.run(self.argv, input="".join(x + "\n" for x in lines),
                                      capture_output=True, text=True, timeout=wait_s)
            except subprocess.TimeoutExpired:
                return TurnReply(BotAnswer(), (time.perf_counter() - began) * 1000.0, no_answer=True)
            except OSError as exc:
                return TurnReply(BotAnswer(error=f"cannot start {self.command!r}: {exc}"), 0.0)
            elapsed = (time.perf_counter() - began) * 1000.0
            printed = [x for x in done.stdout.splitlines() if x.strip()]
            answer = printed.pop().strip() if printed else None
            error = None
            if done.returncode != 0 and answer is None:
                error = f"the program exited with code {done.returncode}"
            return TurnReply(BotAnswer(answer, error, None, "\n".join(printed), done.stderr), elapsed)
        if self.process is None:
            return TurnReply(BotAnswer(error="the program is not running"), 0.0)
        failed = self._write(lines)
        if failed:
            return TurnReply(failed, 0.0)
        try:
            line = self.reader.get(wait_s)
        except queue.Empty:
            self.kill()
            return TurnReply(BotAnswer(stderr=self._take_stderr()),
                             (time.perf_counter() - began) * 1000.0, no_answer=True)
        elapsed = (time.perf_counter() - began) * 1000.0
        if line is None:
            code = self.process.poll()
            return TurnReply(BotAnswer(error=f"the program exited (code {code})",
                                       stderr=self._take_stderr()), elapsed)
        return TurnReply(BotAnswer(line.strip(), stderr=self._take_stderr()), elapsed)

    def end(self) -> BotAnswer:
        _finish(self.process)
        self.process = None
        return BotAnswer(stderr=self._take_stderr())

    def kill(self) -> None:
        _kill(self.process)

    def close(self) -> None:
        self.end()
