"""The trusted first process of a per-turn bot's sandbox: it lays out the bot's kept files,
runs the bot, and hands the files back to the controller as a byte stream.

A per-turn bot (aBOTcalypse's protocol) keeps files in its working directory from turn to
turn. The folder never lives on the host where the bot can reach it: the controller holds
it as an archive (``engine.bots.kept``), and each turn this program, started by bubblewrap
inside the bot's sandbox, unpacks it into the sandbox's own size-limited ``/tmp/bot``
(a fresh tmpfs, so nothing there was left by the bot), runs the bot, kills whatever the
bot left running, and then streams the folder back: regular files and folders only, each
opened relative to its folder's handle with ``O_NOFOLLOW``, so a link, fifo, socket or
device the bot made is dropped and never followed. It stops at the disk quota and the
entry limit. When the controller is root it packs as the bot's own uid, so it can read
nothing the bot could not.

The controller trusts none of this stream (in a user namespace the bot runs as this
program's uid): it checks every record against the same limits (``engine.bots.kept``).

Report stream (``REPORT_FD``): ``S`` once the folder is laid out (the bot's clock starts),
``X`` and the bot's exit status (4 bytes, signed) when it exits, then the archive.

Archive: ``MAGIC``, then records: ``d`` + path (a folder), ``f``/``x`` + path + size (8
bytes) + the bytes (a file; ``x`` executable), and last ``.`` + the count of entries
dropped (4 bytes), or ``!`` + ``q``/``n`` when the quota or the entry limit was passed.
A path is 2 bytes of length and a relative path (at most ``MAX_PATH`` bytes, ``MAX_DEPTH``
folders deep) whose folders come before it.

Standard library only, started with ``python -I -S``: it imports nothing from the engine.
Usage: ``keeper.py ARCHIVE_FD REPORT_FD QUOTA_BYTES MAX_ENTRIES BOT_UID SKIP... -- ARGV``
(``BOT_UID`` -1 when not root; ``SKIP``: top-level names not to keep, the program files).
"""

from __future__ import annotations

import os
import stat
import struct
import sys
import time

MAGIC = b"KOTH-KEPT-1\n"
WORKDIR = "/tmp/bot"
MAX_PATH = 4096  # bytes in a kept path
MAX_DEPTH = 64  # folders in a kept path
CHUNK = 1 << 16
FOLDER, FILE, PROGRAM, END, OVER = b"d", b"f", b"x", b".", b"!"
OVER_QUOTA, OVER_ENTRIES = b"q", b"n"
SET_UP, EXITED = b"S", b"X"
LENGTH, SIZE = struct.Struct(">H"), struct.Struct(">Q")  # of a path, of a file
COUNT, STATUS = struct.Struct(">I"), struct.Struct(">i")  # entries dropped, the bot's exit status
KILL = 9
KILL_WAIT_S = 10.0
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OPEN_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def empty_archive() -> bytes:
    return MAGIC + END + COUNT.pack(0)


def path_ok(path: bytes) -> bool:
    """A relative path of plain names, no longer than ``MAX_PATH``."""
    if not 0 < len(path) <= MAX_PATH or b"\0" in path or path.count(b"/") >= MAX_DEPTH:
        return False
    return all(part not in (b"", b".", b"..") for part in path.split(b"/"))


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_exact(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left:
        chunk = os.read(fd, min(left, CHUNK))
        if not chunk:
            raise EOFError("the archive ends early")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def unpack(source: int, root: int) -> None:
    """Lay out the controller's archive (already checked) in the fresh folder ``root``."""
    if read_exact(source, len(MAGIC)) != MAGIC:
        raise ValueError("not a kept-files archive")
    while True:
        kind = read_exact(source, 1)
        if kind in (END, OVER):
            return
        path = read_exact(source, LENGTH.unpack(read_exact(source, 2))[0])
        if not path_ok(path):
            raise ValueError("a bad path in the archive")
        if kind == FOLDER:
            try:
                os.mkdir(path, 0o755, dir_fd=root)
            except FileExistsError:
                pass  # a program file of the same name is there: it wins
            continue
        size = SIZE.unpack(read_exact(source, 8))[0]
        try:
            fd = os.open(path, NEW_FILE, 0o755 if kind == PROGRAM else 0o644, dir_fd=root)
        except OSError:
            fd = None  # a program file of the same name: it wins, the kept copy is skipped
        while size:
            chunk = read_exact(source, min(size, CHUNK))
            size -= len(chunk)
            if fd is not None:
                write_all(fd, chunk)
        if fd is not None:
            os.close(fd)


class Packer:
    """Streams a folder as an archive: regular files and folders only, never through a link."""

    def __init__(self, out: int, quota: int, max_entries: int) -> None:
        self.out = out
        self.room = quota
        self.entries_left = max_entries
        self.dropped = 0

    def pack(self, root: int, skip: set[bytes]) -> None:
        write_all(self.out, MAGIC)
        reason = self._folder(root, b"", skip)
        write_all(self.out, OVER + reason if reason else END + COUNT.pack(self.dropped))

    def _folder(self, folder: int, prefix: bytes, skip: set[bytes]) -> bytes | None:
        try:
            entries = os.scandir(folder)
        except OSError:
            self.dropped += 1
            return None
        with entries:
            for entry in entries:  # as they come: a flood is stopped at the limit, not listed
                name = os.fsencode(entry.name)
                if name in skip:
                    continue
                self.entries_left -= 1  # every name counts, kept or not
                if self.entries_left < 0:
                    return OVER_ENTRIES
                reason = self._name(folder, name, prefix + name)
                if reason:
                    return reason
        return None

    def _name(self, folder: int, name: bytes, path: bytes) -> bytes | None:
        if not path_ok(path):  # too long or too deep
            self.dropped += 1
            return None
        try:
            mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise IsADirectoryError(name)  # a link, fifo, socket or device: not opened
            fd = os.open(name, OPEN_FILE, dir_fd=folder)
        except OSError:  # not a file or folder, or unreadable to the bot itself
            self.dropped += 1
            return None
        try:
            return self._entry(fd, path)
        finally:
            os.close(fd)

    def _entry(self, fd: int, path: bytes) -> bytes | None:
        info = os.fstat(fd)
        if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
            self.dropped += 1  # swapped since the check above (cannot happen: the bot is gone)
            return None
        header = LENGTH.pack(len(path)) + path
        if stat.S_ISDIR(info.st_mode):
            write_all(self.out, FOLDER + header)
            return self._folder(fd, path + b"/", set())
        size = info.st_size  # a sparse file counts at its full size
        self.room -= size
        if self.room < 0:
            return OVER_QUOTA
        kind = PROGRAM if info.st_mode & stat.S_IXUSR else FILE
        write_all(self.out, kind + header + SIZE.pack(size))
        left = size
        while left:
            chunk = os.read(fd, min(left, CHUNK))
            if not chunk:  # cannot shrink (every process of the bot is gone); kept exact anyway
                chunk = bytes(min(left, CHUNK))
            write_all(self.out, chunk)
            left -= len(chunk)
        return None


def kill_the_rest() -> None:
    """Kill every process left in the sandbox but this one (and bubblewrap's init), and wait
    until none is running, so nothing changes the folder while it is packed."""
    me = os.getpid()
    give_up = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < give_up:
        try:
            os.kill(-1, KILL)
        except OSError:
            pass
        running = False
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) not in (1, me):
                try:
                    with open(f"/proc/{name}/stat", "rb") as file:
                        state = file.read().rsplit(b")", 1)[1].split()[0]
                except (OSError, IndexError):
                    continue
                running = running or state not in (b"Z", b"X")
        if not running:
            return
        time.sleep(0.002)
    raise SystemExit("the bot's processes could not be killed")


def run_bot(argv: list[str]) -> int:
    """Start the bot on this process's stdin/stdout/stderr, then let go of them, and wait."""
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    null = os.open("/dev/null", os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)  # the controller sees the bot's output end when the bot's does
    os.close(null)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def main(args: list[str]) -> int:
    split = args.index("--")
    archive, report, quota, max_entries, uid = (int(x) for x in args[:5])
    skip = {os.fsencode(name) for name in args[5:split]}
    argv = args[split + 1:]
    as_root = os.geteuid() == 0 and uid >= 0
    root = os.open(WORKDIR, OPEN_DIR)
    if as_root:
        os.setegid(uid)
        os.seteuid(uid)  # the kept files are the bot's own
    unpack(archive, root)
    os.close(archive)
    if as_root:
        os.seteuid(0)
        os.setegid(0)
    os.set_inheritable(report, False)
    write_all(report, SET_UP)
    code = run_bot(argv)
    write_all(report, EXITED + STATUS.pack(code))
    kill_the_rest()
    if as_root:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    Packer(report, quota, max_entries).pack(root, skip)
    os.close(report)
    return code


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]) & 0xFF)
    except BrokenPipeError:  # the controller stopped reading: the folder was over a limit
        sys.exit(1)
