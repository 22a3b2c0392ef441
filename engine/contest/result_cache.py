"""Finished games kept on disk, so a re-run plays only the games it has not seen.

A tournament's game is decided by what sits at its table and how it is played: the seated
entries by value (name, kind, code or command, language, limits: a built command entry's run
line names its build folder, itself named by the hash of its code and build), the game (an
author's game by its module's source), preset and settings, seed, secret, step budget, the
sandbox and memory limit, and the engine's own source (``__version__`` does not change when
the engine does). ``game_key`` hashes all of that (a command entry's also hashes the files its
command line names: a ``cmd:`` bot's script, a built program); the result is one small JSON
file named by the key, written atomically (a temporary file, then ``os.replace``) as the game
ends, so a run stopped at any moment loses no finished game and leaves no half-written one.

Files read back are untrusted (another user may share the folder, a disk may be full): a file
over ``MAX_RESULT_BYTES``, nesting deeper than ``MAX_DEPTH``, or not of the shape written
(scores and faults, one per seat, integers) is ignored with a warning and its game replayed.
Games whose author's game failed are not kept (a failing game may be a slow machine's): they
are played again. With ``--replays``, a game's replay is kept beside its result and copied
into the replay folder on a hit; a result without its replay is played again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.contest.match_job import MatchJob, MatchResult
from engine.core.kept_files import parse_kept, read_no_follow, write_atomically
from engine.core.outcome import unique_winner
from engine.core.replay_limits import MAX_DOCUMENT_CHARS, MAX_SCORE

FORMAT = 1  # of a result file; a new one makes every old file a miss
MAX_RESULT_BYTES = 64 * 1024  # a result file: a table's scores and faults are far smaller
MAX_DEPTH = 3
MAX_FAULTS = 10**9

_engine_hash: str | None = None


def engine_hash() -> str:
    """The hash of the engine's source (``engine/**/*.py``, sorted by path), once a process."""
    global _engine_hash
    if _engine_hash is None:
        root = Path(__file__).resolve().parents[1]  # engine/
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        _engine_hash = digest.hexdigest()
    return _engine_hash


@functools.lru_cache(maxsize=1024)
def command_files_hash(command: str) -> str:
    """The hash of the regular files a command line names (``./bot.sh``, ``bot.jar``, a built
    program's path): editing one of them is a new entry. Files it reads without naming them
    are not seen (``--no-cache`` then)."""
    digest = hashlib.sha256()
    try:
        words = shlex.split(command)
    except ValueError:
        words = []
    for word in words:
        path = Path(word)
        try:
            if not path.is_file():
                continue
            with path.open("rb") as file:
                digest.update(word.encode("utf-8", "surrogatepass") + b"\0")
                digest.update(hashlib.file_digest(file, "sha256").digest())
        except OSError:
            continue
    return digest.hexdigest()


def game_key(job: MatchJob) -> str:
    """The hash of everything that decides the job's game (not its place in the plan)."""
    from engine.bots.entries import COMMAND

    entries = [[e.name, e.kind, hashlib.sha256(e.text.encode("utf-8", "surrogatepass")).hexdigest(),
                e.language, None if e.limits is None else repr(e.limits),
                command_files_hash(e.text) if e.kind == COMMAND else None] for e in job.entries]
    module = (None if job.game_module is None
              else hashlib.sha256(job.game_module.encode("utf-8", "surrogatepass")).hexdigest())
    decided = {"format": FORMAT, "engine": engine_hash(), "game": job.game, "module": module,
               "preset": job.preset, "settings": sorted((k, repr(v)) for k, v in job.overrides.items()),
               "seed": job.match.seed, "secret": job.secret, "budget": job.budget,
               "sandboxed": job.sandboxed, "memory_mb": job.memory_mb, "seats": entries}
    return hashlib.sha256(json.dumps(decided, sort_keys=True).encode("utf-8")).hexdigest()


def default_results() -> Path:
    """``$XDG_CACHE_HOME/koth-arena/results`` (``~/.cache`` without it)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "koth-arena" / "results"


def _warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


@dataclass
class ResultCache:
    """The results folder, and what this run took from it and played (``hits``, ``played``)."""

    folder: Path
    warn: Callable[[str], None] = _warn
    hits: int = 0
    played: int = 0
    keys: dict[int, str] = field(default_factory=dict)  # by match index, this run's lookups

    def _paths(self, key: str) -> tuple[Path, Path]:
        return self.folder / f"{key}.json", self.folder / f"{key}.replay.json"

    def lookup(self, job: MatchJob) -> MatchResult | None:
        """The job's result from the cache (its replay copied where the job wants it), or None."""
        key = game_key(job)
        self.keys[job.match.index] = key
        path, replay = self._paths(key)
        found = self._read(path, len(job.entries))
        if found is None:
            return None
        if job.replay_path is not None and not self._copy_replay(replay, Path(job.replay_path)):
            return None
        scores, faults = found
        self.hits += 1
        return MatchResult(job.match.index, job.match.seed, job.match.table, scores, faults,
                           unique_winner(scores) if len(scores) > 1 else None)

    def store(self, job: MatchJob, result: MatchResult) -> None:
        """Keep a finished game (and its replay, if it wrote one); a failed game is not kept."""
        self.played += 1
        if result.error is not None:
            return
        key = self.keys.get(job.match.index) or game_key(job)
        path, replay = self._paths(key)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            if job.replay_path is not None:
                source = Path(job.replay_path)
                if not source.is_file():
                    return
                write_atomically(replay, lambda out: _copy_into(source, out))
            text = json.dumps({"format": FORMAT, "scores": list(result.scores),
                               "faults": list(result.faults)})
            write_atomically(path, lambda out: out.write(text.encode("utf-8")))
        except OSError as exc:
            self.warn(f"cannot keep a result in {self.folder}: {exc.strerror or exc}")

    def _read(self, path: Path, seats: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        try:
            data = read_no_follow(path, MAX_RESULT_BYTES)
        except FileNotFoundError:
            return None
        except OSError as exc:
            self.warn(f"cannot read the cached result {path.name}: {exc.strerror or exc}; playing the game")
            return None
        found = _parse(data, seats)
        if isinstance(found, str):
            self.warn(f"the cached result {path.name} is ignored ({found}); playing the game")
            return None
        return found

    def _copy_replay(self, source: Path, target: Path) -> bool:
        try:
            if not source.is_file() or source.is_symlink() or source.stat().st_size > MAX_DOCUMENT_CHARS * 4:
                return False
            shutil.copyfile(source, target, follow_symlinks=False)
        except OSError:
            return False
        return True


def _copy_into(source: Path, out) -> None:
    with source.open("rb") as file:
        shutil.copyfileobj(file, out)


def _parse(data: bytes, seats: int) -> tuple[tuple[int, ...], tuple[int, ...]] | str:
    """A result file's scores and faults, or why it is not one."""
    value = parse_kept(data, MAX_RESULT_BYTES, MAX_DEPTH, FORMAT)
    if isinstance(value, str):
        return value
    scores, faults = value.get("scores"), value.get("faults")
    if not (_ints(scores, seats, -MAX_SCORE, MAX_SCORE) and _ints(faults, seats, 0, MAX_FAULTS)):
        return "not a result for this table"
    return tuple(scores), tuple(faults)


def _ints(value: object, count: int, low: int, high: int) -> bool:
    return (isinstance(value, list) and len(value) == count
            and all(type(v) is int and low <= v <= high for v in value))
