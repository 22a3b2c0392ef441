"""Talking to a bot process through pipes without trusting what comes out of them.

Whatever a bot writes, the controller keeps a bounded amount of it: lines are read in
chunks and a line longer than its bound is reported (``LineTooLong``) and dropped, never
accumulated; captured output keeps a head and a tail and counts what was cut between.
Reads and writes wait with a deadline, so a bot that stops reading or writing cannot
block the controller.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import threading
import time
from dataclasses import dataclass

from engine.bots.answer import cut_marker

CHUNK = 1 << 16
KEEP_HEAD = 20_000  # bytes of a stream kept per move, from its start
KEEP_TAIL = 2_000  # and from its end (a script's answer is its last line)


class Deadline(Exception):
    """The deadline passed before the bot sent what was awaited."""


@dataclass(frozen=True)
class LineTooLong:
    """A line past the bound; ``size`` bytes of it were read and dropped so far."""

    size: int


class BoundedBytes:
    """Keeps the first ``head`` and last ``tail`` bytes written, and counts the rest."""

    def __init__(self, head: int = KEEP_HEAD, tail: int = KEEP_TAIL) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.cut = 0

    def add(self, data: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        if len(self.tail) > self.tail_limit:
            extra = len(self.tail) - self.tail_limit
            self.cut += extra
            del self.tail[:extra]

    def text(self) -> str:
        """What was kept, decoded (bad UTF-8 replaced), with the cut marked."""
        text = self.head.decode("utf-8", "replace")
        if self.cut:
            text += cut_marker(self.cut)
        return text + self.tail.decode("utf-8", "replace")

    def take(self) -> str:
        text = self.text()
        self.head, self.tail, self.cut = bytearray(), bytearray(), 0
        return text


class LineChannel:
    """Lines from a bot's stdout, each at most ``max_line`` bytes, read against a deadline."""

    def __init__(self, stream, max_line: int) -> None:
        self.stream = stream
        self.fd = stream.fileno()
        os.set_blocking(self.fd, False)
        self.max_line = max_line
        self.buffer = bytearray()
        self.skipping = False  # inside a line that was too long: drop up to its newline
        self.eof = False
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)

    def read_line(self, deadline: float) -> bytes | LineTooLong | None:
        """The next line (without its newline), ``LineTooLong``, or None at EOF.

        Raises ``Deadline`` when ``deadline`` (a ``time.perf_counter`` value) passes first.
        """
        while True:
            newline = self.buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self.buffer[:newline])
                del self.buffer[:newline + 1]
                return line
            if len(self.buffer) > self.max_line:
                size = len(self.buffer)
                self.buffer.clear()
                self.skipping = True
                return LineTooLong(size)
            if self.eof:
                if self.buffer:
                    line = bytes(self.buffer)
                    self.buffer.clear()
                    return line
                return None
            self._fill(deadline)

    def _fill(self, deadline: float) -> None:
        wait = deadline - time.perf_counter()
        if wait <= 0 or not self.selector.select(wait):
            raise Deadline()
        try:
            chunk = os.read(self.fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.eof = True
            return
        if self.skipping:
            newline = chunk.find(b"\n")
            if newline < 0:
                return
            self.skipping = False
            chunk = chunk[newline + 1:]
        self.buffer += chunk

    def close(self) -> None:
        self.selector.close()


class StreamDrain:
    """Reads a stream (a command bot's stderr) on a thread into a ``BoundedBytes``, so the
    bot never blocks on it and the controller never holds more than the bound."""

    def __init__(self, stream) -> None:
        self.kept = BoundedBytes()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self.thread.start()

    def _pump(self, stream) -> None:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, CHUNK)
            except OSError:
                break
            if not chunk:
                break
            with self.lock:
                self.kept.add(chunk)

    def take(self) -> str:
        with self.lock:
            return self.kept.take()

    def finish(self, timeout: float = 1.0) -> str:
        """What is left once the stream closed (or ``timeout`` passed)."""
        self.thread.join(timeout)
        return self.take()


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write everything to a pipe the bot may have stopped reading; raises ``Deadline``,
    or ``BrokenPipeError``/``OSError`` when the bot closed it."""
    os.set_blocking(fd, False)
    view = memoryview(data)
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_WRITE)
        while view:
            try:
                written = os.write(fd, view)
                view = view[written:]
                continue
            except BlockingIOError:
                pass
            wait = deadline - time.perf_counter()
            if wait <= 0 or not selector.select(wait):
                raise Deadline()


@dataclass
class Finished:
    """A one-shot process's kept output; ``timed_out`` if it was still running at the deadline."""

    stdout: BoundedBytes
    stderr: BoundedBytes
    returncode: int | None
    timed_out: bool


def collect(process, data: bytes, deadline: float) -> Finished:
    """Feed ``data`` to a one-shot process and keep its output until it ends or the deadline."""
    out, err = BoundedBytes(), BoundedBytes()
    timed_out = False
    try:
        write_all(process.stdin.fileno(), data, deadline)
    except Deadline:
        timed_out = True
    except OSError:
        pass  # it exited without reading: its output still counts
    try:
        process.stdin.close()
    except OSError:
        pass
    streams = {process.stdout.fileno(): out, process.stderr.fileno(): err}
    with selectors.DefaultSelector() as selector:
        for fd in streams:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        while streams and not timed_out:
            wait = deadline - time.perf_counter()
            ready = selector.select(wait) if wait > 0 else []
            if not ready:
                timed_out = True
                break
            for key, _ in ready:
                try:
                    chunk = os.read(key.fd, CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if chunk:
                    streams[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
                    del streams[key.fd]
    returncode = None
    if not timed_out:
        try:
            returncode = process.wait(max(0.0, deadline - time.perf_counter()))
        except subprocess.TimeoutExpired:
            timed_out = True
    return Finished(out, err, returncode, timed_out)
