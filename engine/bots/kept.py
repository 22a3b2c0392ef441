"""A per-turn bot's kept folder, held by the controller where the bot cannot aim at it.

A per-turn bot (aBOTcalypse's protocol) runs afresh every turn and may keep files in its
working directory for the whole game. The folder is not a host directory bound into the
sandbox (a bot could leave a link there for the controller to write through, and fill the
host's disk past any limit): the controller keeps it as an archive in an unnamed temporary
file (``KeptFolder``), no larger than the bot's disk quota plus the records' headers. Each
turn the sandbox's first process, ``engine.bots.keeper``, lays it out in the sandbox's own
size-limited tmpfs, runs the bot, and streams the folder back; ``run_turn`` reads that
stream as hostile input (``ArchiveReader``: every path checked, the quota and the entry
limit counted as it comes, nothing held in memory but one record's header) into a new
temporary file, which becomes the folder only when it is complete and within the limits.
Otherwise the folder stays as it was before the turn, and the reason is the bot's fault.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.bots import keeper as k
from engine.bots.pipes import CHUNK, BoundedBytes, Deadline, Finished, write_all
from engine.bots.sandbox import Jail, KeeperFds, kill_group

SET_UP_WAIT_S = 10.0  # for the sandbox to start and lay the folder out (not the bot's time)
PACK_WAIT_S = 20.0  # after the bot's deadline, for its folder to come back
UNCHANGED = "the folder is left as it was before this turn"


class KeptError(Exception):
    """The folder that came back is not kept; the message says why (the bot's fault)."""


def over_quota(quota: int) -> str:
    return f"kept files over the {quota >> 20:,} MB disk quota ({UNCHANGED})"


def over_entries(limit: int) -> str:
    return f"more than {limit:,} kept files and folders (links and the like count too; {UNCHANGED})"


class ArchiveReader:
    """Checks an archive as it arrives and copies it to ``sink`` (a file descriptor)."""

    def __init__(self, sink: int, quota: int, max_entries: int) -> None:
        self.sink = sink
        self.quota, self.max_entries = quota, max_entries
        self.buffer = bytearray()
        self.data_left = 0  # bytes of the current file still to come
        self.magic = False
        self.done = False
        self.dropped = 0
        self.size = 0
        self.entries = 0
        self.folders = {b""}
        self.paths: set[bytes] = set()

    def feed(self, data: bytes) -> None:
        if self.done:
            if data:
                raise KeptError(f"bytes after the end of the kept folder ({UNCHANGED})")
            return
        self.buffer += data
        while not self.done:
            if self.data_left:
                take = min(self.data_left, len(self.buffer))
                if not take:
                    return
                self._write(self.buffer[:take])
                del self.buffer[:take]
                self.data_left -= take
            elif not self._record():
                return

    def _write(self, data: bytes | bytearray) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.sink, view):]

    def _record(self) -> bool:
        """Take one record's header from the buffer; False if it is not all there yet."""
        buffer = self.buffer
        if not self.magic:
            if len(buffer) < len(k.MAGIC):
                return False
            if buffer[:len(k.MAGIC)] != k.MAGIC:
                raise KeptError(f"the kept folder came back unreadable ({UNCHANGED})")
            self.magic = True
            self._write(k.MAGIC)
            del buffer[:len(k.MAGIC)]
            return True
        if not buffer:
            return False
        kind = bytes(buffer[:1])
        if kind == k.OVER:
            if len(buffer) < 2:
                return False
            reason = bytes(buffer[1:2])
            raise KeptError(over_entries(self.max_entries) if reason == k.OVER_ENTRIES
                            else over_quota(self.quota) if reason == k.OVER_QUOTA
                            else f"the kept folder came back unreadable ({UNCHANGED})")
        if kind == k.END:
            if len(buffer) < 1 + k.COUNT.size:
                return False
            self.dropped = k.COUNT.unpack_from(buffer, 1)[0]
            self._write(k.empty_archive()[len(k.MAGIC):])  # the next turn needs no count
            del buffer[:1 + k.COUNT.size]
            self.done = True
            if buffer:
                raise KeptError(f"bytes after the end of the kept folder ({UNCHANGED})")
            return False
        if kind not in (k.FOLDER, k.FILE, k.PROGRAM):
            raise KeptError(f"the kept folder came back unreadable ({UNCHANGED})")
        if len(buffer) < 1 + k.LENGTH.size:
            return False
        length = k.LENGTH.unpack_from(buffer, 1)[0]
        end = 1 + k.LENGTH.size + length
        header_end = end + (k.SIZE.size if kind != k.FOLDER else 0)
        if len(buffer) < header_end:
            return False
        path = bytes(buffer[1 + k.LENGTH.size:end])
        parent = path.rpartition(b"/")[0]
        if not k.path_ok(path) or path in self.paths or parent not in self.folders:
            raise KeptError(f"the kept folder came back unreadable ({UNCHANGED})")
        self.entries += 1
        if self.entries > self.max_entries:
            raise KeptError(over_entries(self.max_entries))
        self.paths.add(path)
        if kind == k.FOLDER:
            self.folders.add(path)
        else:
            self.data_left = k.SIZE.unpack_from(buffer, end)[0]
            self.size += self.data_left
            if self.size > self.quota:
                raise KeptError(over_quota(self.quota))
        self._write(buffer[:header_end])
        del buffer[:header_end]
        return True


class KeptFolder:
    """One bot's kept folder for one game: an archive in an unnamed temporary file."""

    def __init__(self, quota: int, max_entries: int) -> None:
        self.quota, self.max_entries = quota, max_entries
        self.store = tempfile.TemporaryFile(prefix="koth-kept-")
        self.store.write(k.empty_archive())
        self.store.flush()

    def source(self) -> int:
        """A new read-only descriptor of the folder, at its start, for one turn's keeper."""
        return os.open(f"/proc/self/fd/{self.store.fileno()}", os.O_RDONLY | os.O_CLOEXEC)

    def replace(self, new) -> None:
        self.store.close()
        self.store = new

    def close(self) -> None:
        self.store.close()


@dataclass
class KeptTurn:
    """A turn's run with the kept folder: the bot's output, its time, and what became of
    the folder (``error``: not kept, the bot's fault; ``dropped``: entries left out)."""

    finished: Finished
    elapsed_ms: float
    error: str | None = None
    dropped: int = 0


def run_turn(jail: Jail, argv: Sequence[str], files: Mapping[str, tuple[bytes, bool]],
             env: Mapping[str, str], folder: KeptFolder, data: bytes, wait_s: float) -> KeptTurn:
    """Run one turn of a per-turn bot in the sandbox with its kept folder: ``data`` on its
    stdin, ``wait_s`` for it to exit; the folder is replaced by what comes back if that is
    whole and within the limits."""
    new = tempfile.TemporaryFile(prefix="koth-kept-")
    process: subprocess.Popen | None = None
    passed: list[int] = []  # the keeper's ends: closed here once it has them
    report = -1
    try:
        passed.append(folder.source())
        report, report_in = os.pipe()
        passed.append(report_in)
        process = jail.popen(argv, files, env, keeper=KeeperFds(passed[0], report_in, folder.quota,
                                                                 folder.max_entries))
        _close(passed)  # so the report's end is seen when the keeper's end is
        turn = _follow(process, report, data, wait_s, ArchiveReader(new.fileno(), folder.quota,
                                                                    folder.max_entries))
        if turn.error is None and not turn.finished.timed_out:
            folder.replace(new)
            new = None
        return turn
    finally:
        _close(passed)
        if report >= 0:
            os.close(report)
        if new is not None:
            new.close()
        if process is not None:
            kill_group(process)
            for stream in (process.stdin, process.stdout, process.stderr):
                try:
                    stream.close()
                except OSError:
                    pass


def _close(fds: list[int]) -> None:
    while fds:
        os.close(fds.pop())


def _wait_for_set_up(report: int) -> bool:
    with selectors.DefaultSelector() as selector:
        selector.register(report, selectors.EVENT_READ)
        if not selector.select(SET_UP_WAIT_S):
            return False
    try:
        return os.read(report, 1) == k.SET_UP
    except OSError:
        return False


class _Report:
    """The keeper's report as it arrives: the bot's exit status, then the archive."""

    def __init__(self, reader: ArchiveReader) -> None:
        self.reader = reader
        self.status = bytearray()
        self.returncode: int | None = None  # once the bot has exited
        self.error: str | None = None
        self.ended = False  # nothing more is read from it

    def take(self, chunk: bytes) -> None:
        if not chunk:
            self.ended = True
            if self.returncode is None:  # only the bot can end its keeper before it exits
                self.returncode, self.error = -1, f"the bot's sandbox ended before the bot did ({UNCHANGED})"
            return
        if self.returncode is not None:
            self.error = _feed(self.reader, chunk)
        else:
            self.status += chunk
            if len(self.status) < 1 + k.STATUS.size:
                return
            if self.status[:1] == k.EXITED:
                self.returncode = k.STATUS.unpack_from(self.status, 1)[0]
                self.error = _feed(self.reader, bytes(self.status[1 + k.STATUS.size:]))
            else:
                self.returncode, self.error = -1, f"the kept folder came back unreadable ({UNCHANGED})"
        self.ended = self.error is not None


def _follow(process: subprocess.Popen, report: int, data: bytes, wait_s: float,
            reader: ArchiveReader) -> KeptTurn:
    """The turn from the keeper's set-up on: the bot's clock, its output, the archive."""
    out, err = BoundedBytes(), BoundedBytes()
    if not _wait_for_set_up(report):
        kill_group(process)
        err.add(_read_some(process.stderr))
        last = (err.text().strip().splitlines() or ["no message"])[-1]
        return KeptTurn(Finished(out, err, None, False), 0.0,
                        f"the sandbox did not start, or could not lay out the kept files: {last}")
    began = time.perf_counter()
    deadline = began + wait_s
    try:
        write_all(process.stdin.fileno(), data, deadline)
    except Deadline:
        return KeptTurn(Finished(out, err, None, True), wait_s * 1000.0)
    except OSError:
        pass  # it exited without reading: its output still counts
    try:
        process.stdin.close()
    except OSError:
        pass
    streams = {process.stdout.fileno(): out, process.stderr.fileno(): err}
    state = _Report(reader)
    with selectors.DefaultSelector() as selector:
        for fd in [*streams, report]:
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ)
        while streams or state.returncode is None:  # until the bot has exited and its output ended
            wait = deadline - time.perf_counter()
            ready = selector.select(wait) if wait > 0 else []
            if not ready:
                elapsed = (time.perf_counter() - began) * 1000.0
                return KeptTurn(Finished(out, err, state.returncode, True), elapsed, state.error)
            for key, _ in ready:
                chunk = _read(key.fd)
                if chunk is None:
                    continue
                if key.fd == report:
                    state.take(chunk)
                    if state.ended:
                        selector.unregister(report)
                elif chunk:
                    streams[key.fd].add(chunk)
                else:
                    selector.unregister(key.fd)
                    del streams[key.fd]
        elapsed = (time.perf_counter() - began) * 1000.0
        error = state.error
        if error is None and not state.ended:
            error = _finish_archive(selector, report, reader, deadline + PACK_WAIT_S)
    if error is None and not reader.done:
        error = f"the kept folder did not come back whole ({UNCHANGED})"
    return KeptTurn(Finished(out, err, state.returncode, False), elapsed, error, reader.dropped)


def _finish_archive(selector: selectors.BaseSelector, report: int, reader: ArchiveReader,
                    deadline: float) -> str | None:
    """Read the rest of the archive (the bot has ended: ``report`` is all that is left in
    ``selector``); an error message, or None."""
    while True:
        wait = deadline - time.perf_counter()
        if wait <= 0 or not selector.select(wait):
            return f"the kept folder did not come back in time ({UNCHANGED})"
        chunk = _read(report)
        if chunk is None:
            continue
        if not chunk:
            return None
        error = _feed(reader, chunk)
        if error:
            return error


def _feed(reader: ArchiveReader, chunk: bytes) -> str | None:
    try:
        reader.feed(chunk)
    except KeptError as exc:
        return str(exc)
    except OSError as exc:  # the controller's own disk
        return f"the kept folder could not be stored: {exc.strerror} ({UNCHANGED})"
    return None


def _read(fd: int) -> bytes | None:
    try:
        return os.read(fd, CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _read_some(stream) -> bytes:
    """What the sandbox printed on stderr before it failed (bounded)."""
    try:
        os.set_blocking(stream.fileno(), False)
        return os.read(stream.fileno(), CHUNK) or b""
    except OSError:
        return b""
