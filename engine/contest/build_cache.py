"""Building an answer's program in the sandbox, once per code and build command (a cache).

A command entry's code (C, Java...) is built by its ``--commands`` build line inside a
bubblewrap sandbox like a bot's (``engine.bots.sandbox``): no network, a read-only system,
a private size-limited ``/tmp`` whose ``bot`` folder holds the code as ``{file}`` and is
``{dir}``, and the command's limits (memory, processes, build time). What the build leaves
in that folder comes back through the per-turn bots' kept-folder stream
(``engine.bots.kept``: regular files and folders only, every path checked, the ``tmp_mb``
quota and a count of names enforced as it arrives) and is laid out in a fresh folder of the
cache, named by the hash of everything that decides the build (the code, its file name, the
build command and its limits). A build that fails is not cached: its reason is the
compiler's first lines. ``--no-sandbox`` builds in the cache folder directly (trusted code).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine.bots import keeper
from engine.bots.kept import UNCHANGED, KeptFolder, run_turn
from engine.bots.pipes import collect
from engine.bots.sandbox import WORKDIR, Sandbox, Unsandboxed, kill_group
from engine.contest.command_entries import Command

MAX_BUILD_FILES = 10_000  # names a build may leave
FIRST_LINES = 6  # of the compiler's messages, in a failed build's reason
_DONE = ".koth-build.json"  # written last: a folder without it is no build


class BuildError(Exception):
    """The build failed: the message (the compiler's first lines) is the entry's skip reason."""


@dataclass(frozen=True)
class Built:
    folder: Path  # {dir}
    source: Path  # {file}
    cached: bool  # found in the cache, not built now

    def run_command(self, command: Command) -> str:
        return _fill(command.run, str(self.folder), str(self.source), quote=True)


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/koth-arena/builds`` (``~/.cache`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "koth-arena" / "builds"


def build_key(code: str, language: str | None, command: Command) -> str:
    decided = [code, command.file_name(language), command.build, command.memory_mb, command.tmp_mb,
               command.processes, command.build_seconds]
    return hashlib.sha256(json.dumps(decided).encode("utf-8")).hexdigest()[:40]


def build(code: str, language: str | None, command: Command, cache: Path,
          sandbox: Sandbox | Unsandboxed) -> Built:
    """The answer's program, built now or found in ``cache``; ``BuildError`` when it fails."""
    file_name = command.file_name(language)
    folder = cache / build_key(code, language, command)
    if (folder / _DONE).is_file():
        return Built(folder, folder / file_name, True)
    try:
        cache.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".building-", dir=cache))
    except OSError as exc:
        raise BuildError(f"cannot make the build folder in {cache}: {exc.strerror or exc}") from None
    try:
        if command.build is not None:
            if sandbox.sandboxed:
                _build_sandboxed(code, file_name, command, staging, sandbox)
            else:
                (staging / file_name).write_text(code, encoding="utf-8")
                _build_here(command, staging, file_name)
        _write(staging / file_name, code.encode("utf-8"))
        _write(staging / _DONE, json.dumps({"build": command.build, "file": file_name}).encode())
        try:
            staging.rename(folder)
        except OSError:  # built at the same time by another run: theirs is as good
            if not (folder / _DONE).is_file():
                raise
        else:
            staging = None
    except OSError as exc:
        raise BuildError(f"the build could not be stored in {cache}: {exc.strerror or exc}") from None
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return Built(folder, folder / file_name, False)


def _build_sandboxed(code: str, file_name: str, command: Command, staging: Path, sandbox: Sandbox) -> None:
    limits = command.limits
    jail = Sandbox(limits, sandbox.bwrap).jail()
    argv = ["sh", "-c", _fill(command.build or "", WORKDIR, f"{WORKDIR}/{file_name}", quote=False)]
    folder = KeptFolder(limits.disk_mb << 20, MAX_BUILD_FILES)
    try:
        turn = run_turn(jail, argv, {file_name: (code.encode("utf-8"), False)}, {}, folder, b"",
                        float(command.build_seconds))
        messages = (turn.finished.stderr.text() + "\n" + turn.finished.stdout.text()).strip()
        if turn.finished.timed_out:
            raise BuildError(f"the build took longer than {command.build_seconds} s{_first_lines(messages)}")
        if turn.error is not None:
            raise BuildError(f"the build's files were not kept: {turn.error.replace(f' ({UNCHANGED})', '')}")
        if turn.finished.returncode != 0:
            raise BuildError(f"the build failed (exit status {turn.finished.returncode})"
                             f"{_first_lines(messages)}")
        root = os.open(staging, os.O_RDONLY | os.O_DIRECTORY)
        source = folder.source()
        try:
            keeper.unpack(source, root)  # checked by run_turn as it came; staging is fresh
        finally:
            os.close(source)
            os.close(root)
    finally:
        folder.close()


def _build_here(command: Command, staging: Path, file_name: str) -> None:
    """``--no-sandbox``: the build runs in the cache folder with the limits only."""
    argv = ["sh", "-c", _fill(command.build or "", str(staging), str(staging / file_name), quote=True)]
    jail = Unsandboxed(command.limits).jail()
    process = jail.popen(argv, keep_dir=str(staging))
    try:
        done = collect(process, b"", time.perf_counter() + command.build_seconds)
    finally:
        kill_group(process)
    messages = (done.stderr.text() + "\n" + done.stdout.text()).strip()
    if done.timed_out:
        raise BuildError(f"the build took longer than {command.build_seconds} s{_first_lines(messages)}")
    if done.returncode != 0:
        raise BuildError(f"the build failed (exit status {done.returncode}){_first_lines(messages)}")


def _fill(template: str, folder: str, source: str, quote: bool) -> str:
    q = shlex.quote if quote else (lambda s: s)
    return template.replace("{dir}", q(folder)).replace("{file}", q(source))


def _first_lines(messages: str) -> str:
    lines = [" ".join(line.split())[:200] for line in messages.splitlines() if line.strip()]
    return (": " + " | ".join(lines[:FIRST_LINES])) if lines else ""


def _write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    try:
        keeper.write_all(fd, data)
    finally:
        os.close(fd)
