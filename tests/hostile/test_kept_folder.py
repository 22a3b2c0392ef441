"""Attacks on a per-turn bot's kept folder (issue 17), each run end to end as a user runs it.

An aBOTcalypse command bot runs afresh every turn and keeps files in its working folder for
the game. The attacks: leave links in that folder for the controller's next set-up to write
through (the program file, a data file named on the command line), fill the host's disk
through it, flood it with files. Each test runs ``python -m engine match ... --json --log``
with the controller's temporary folder in the test's own folder, so what the controller
keeps on the host for the bot can be measured; the attacker prints what it did, so a test
also shows that the attack ran. Last, the folder still lasts the game (``storage.txt``).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from engine.bots.keeper import MAGIC
from engine.bots.kept import ArchiveReader, KeptError
from engine.bots.sandbox import Limits, Sandbox, SandboxError

ROOT = Path(__file__).resolve().parents[2]
QUOTA = Limits().disk_mb << 20
MAX_ENTRIES = Limits().files
QUOTA_FAULT = f"kept files over the {Limits().disk_mb} MB disk quota"
ENTRIES_FAULT = f"more than {MAX_ENTRIES:,} kept files and folders"
# Per entry, what the controller stores beside the bytes: a kind, a path of up to 4 KiB, a size.
HEADERS = MAX_ENTRIES * (1 + 2 + 4096 + 8) + 64

try:
    Sandbox().probe()
except SandboxError as exc:  # scripts/test installs bubblewrap: this is a broken set-up
    pytest.fail(f"the sandbox cannot start here ({exc}); run scripts/test, which installs bubblewrap",
                pytrace=False)

RESTING = "print('rest')\n"  # the other player: a script bot that rests every turn


def bot_file(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def controller_tmp(tmp_path: Path) -> Path:
    path = tmp_path / "controller-tmp"
    path.mkdir(exist_ok=True)
    return path


def disk_use(folder: Path, pid: int) -> int:
    """Bytes on disk under ``folder``, plus the files the process ``pid`` holds open there
    that have no name any more (the controller's kept folders are such files)."""
    used = 0
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                used += os.lstat(os.path.join(top, name)).st_blocks * 512
            except OSError:
                pass
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return used
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith(str(folder)) and target.endswith("(deleted)"):
                used += os.stat(f"/proc/{pid}/fd/{fd}").st_blocks * 512
        except OSError:
            pass
    return used


def match(tmp_path: Path, *args, timeout: float = 300) -> tuple[dict, int]:
    """Run ``python -m engine match ARGS --json --log`` with its temporary folder in
    ``tmp_path``; (its output, the most disk it held there at any time, sampled)."""
    folder = controller_tmp(tmp_path)
    env = {**os.environ, "TMPDIR": str(folder)}
    with subprocess.Popen([sys.executable, "-m", "engine", "match", *map(str, args), "--secret", "kept-tests",
                           "--json", "--log"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        peak = 0
        give_up = time.monotonic() + timeout
        while process.poll() is None and time.monotonic() < give_up:
            peak = max(peak, disk_use(folder, process.pid))
            time.sleep(0.005)
        if process.poll() is None:
            process.kill()
        out, err = process.communicate()
    assert process.returncode == 0, err.decode(errors="replace")[-3000:]
    return json.loads(out), peak


def log_lines(out: dict, bot: int, stream: str) -> list[str]:
    return [line for e in out["log"] if e["bot"] == bot and e["stream"] == stream
            for line in e["text"].splitlines()]


def faults(out: dict, bot: int) -> list[str]:
    return [e["text"] for e in out["log"] if e["bot"] == bot and e["stream"] == "fault"]


def assert_played(out: dict) -> None:
    """The match ended normally, with a result for each game."""
    assert out["games"] and all(len(g["scores"]) == 2 for g in out["games"])


def test_links_left_in_the_kept_folder_are_never_written_through(tmp_path):
    secret = tmp_path / "secret"  # a root-only folder of the host's, outside the sandbox
    secret.mkdir(mode=0o700)
    target = secret / "target"
    target.write_text("ORIGINAL\n")
    os.chmod(target, 0o600)
    before = target.stat()
    missing = secret / "created"
    data = tmp_path / "data.txt"
    data.write_text("the bot's data\n")
    # bwrap set up the old bind under /oldroot: links through it reached the host's files
    attacker = bot_file(tmp_path, "bot.sh", f"""
        if [ -L bot.sh ]; then echo "program: still a link" >&2; else echo "program: fresh" >&2; fi
        if [ -L data.txt ]; then echo "data: still a link" >&2; else echo "data: $(cat data.txt)" >&2; fi
        rm -f bot.sh data.txt host
        ln -s /oldroot{target} bot.sh
        ln -s /oldroot{missing} data.txt
        ln -s /oldroot{secret} host
        ln -s {target} plain
        echo linked >&2
        echo rest
    """)
    resting = bot_file(tmp_path, "resting.py", RESTING)
    turns = 5
    out, _ = match(tmp_path, "abotcalypse", f"cmd:sh {attacker} {data}", resting, "--seed", 1,
                   "--max-turns", turns, "--time-limit", 5000)
    assert_played(out)
    assert target.read_text() == "ORIGINAL\n"
    after = target.stat()
    assert (after.st_mode, after.st_uid, after.st_mtime_ns) == \
        (before.st_mode, before.st_uid, before.st_mtime_ns)
    assert not missing.exists() and sorted(os.listdir(secret)) == ["target"]
    assert data.read_text() == "the bot's data\n"
    said = log_lines(out, 0, "stderr")
    assert said.count("linked") == turns  # the attack ran every turn
    assert said.count("program: fresh") == turns and said.count("data: the bot's data") == turns
    assert any("not kept: only regular files and folders" in line for line in said)
    assert not faults(out, 0)
    assert os.listdir(controller_tmp(tmp_path)) == []  # nothing left on the host after the game


def test_filling_the_kept_folder_is_bounded_by_the_quota_and_faulted(tmp_path):
    # Odd turns allocate 256 MiB, then write 8 MiB files until the disk is full; even turns
    # make a sparse file of 1 TiB. The old kept folder was a host folder: 1 GiB in 4 turns.
    attacker = bot_file(tmp_path, "fill.py", """
        import os, sys
        turn = len([n for n in os.listdir(".") if n.startswith("turn")]) + 1
        open(f"turn{turn}", "w").close()
        done = []
        if turn % 2:
            fd = os.open("big", os.O_WRONLY | os.O_CREAT)
            try:
                os.posix_fallocate(fd, 0, 256 << 20)
                done.append("fallocate 256 MiB: done")
            except OSError as exc:
                done.append(f"fallocate 256 MiB: {exc.strerror}")
            os.close(fd)
            os.unlink("big")
            written = 0
            try:
                for part in range(32):
                    with open(f"part{part}", "wb") as file:
                        for _ in range(8):
                            file.write(bytes(1 << 20))
                            file.flush()
                            written += 1
            except OSError as exc:
                done.append(f"wrote {written} MiB, then: {exc.strerror}")
            else:
                done.append(f"wrote {written} MiB")
        else:
            with open("sparse", "wb") as file:
                file.truncate(1 << 40)
            done.append("sparse 1 TiB")
        print("rest")
        print("FILL", turn, "; ".join(done), file=sys.stderr)
    """)
    resting = bot_file(tmp_path, "resting.py", RESTING)
    turns = 4
    out, peak = match(tmp_path, "abotcalypse", f"cmd:python3 {attacker}", resting, "--seed", 1,
                      "--max-turns", turns, "--time-limit", 10_000)
    assert_played(out)
    said = [line for line in log_lines(out, 0, "stderr") if line.startswith("FILL")]
    assert len(said) == turns
    for line in said[::2]:  # the sandbox's disk stopped the writes near the quota
        assert "fallocate 256 MiB: No space left on device" in line
        written = int(line.split("wrote ")[1].split(" MiB")[0])
        assert written <= (QUOTA >> 20) + 2, line
    found = faults(out, 0)
    assert len(found) == turns and all(QUOTA_FAULT in f for f in found), found
    # each turn started from the folder as it was before it (nothing kept: "turn1" each time)
    assert [line.split()[1] for line in said] == ["1"] * turns
    assert peak <= QUOTA + HEADERS, f"the controller held {peak >> 20} MiB on the host for the bot"
    assert os.listdir(controller_tmp(tmp_path)) == []


def test_a_flood_of_files_in_the_kept_folder_is_faulted_and_not_kept(tmp_path):
    # The first turn keeps 100 files and a chain of 100 folders; every later turn adds
    # 20,000 empty files, which are not kept: each turn sees the first turn's folder.
    attacker = bot_file(tmp_path, "flood.py", """
        import os, sys
        turn = len([n for n in os.listdir(".") if n.startswith("turn")]) + 1
        open(f"turn{turn}", "w").close()
        depth = 0
        while os.path.isdir("/".join(["d"] * (depth + 1))):
            depth += 1
        files = len(os.listdir("few")) if os.path.isdir("few") else 0
        print("rest")
        print("FLOOD", turn, "files", files, "depth", depth, file=sys.stderr)
        if turn == 1:
            os.mkdir("few")
            for n in range(100):
                open(f"few/{n}", "w").close()
            os.makedirs("/".join(["d"] * 100))
        else:
            os.mkdir("many")
            for n in range(20_000):
                open(f"many/{n}", "w").close()
    """)
    resting = bot_file(tmp_path, "resting.py", RESTING)
    began = time.monotonic()
    out, peak = match(tmp_path, "abotcalypse", f"cmd:python3 {attacker}", resting, "--seed", 1,
                      "--max-turns", 3, "--time-limit", 10_000)
    assert time.monotonic() - began < 120
    assert_played(out)
    said = [line.split() for line in log_lines(out, 0, "stderr") if line.startswith("FLOOD")]
    # turns 2 and 3 saw the first turn's files (the chain cut at 64 folders), not a flood
    assert [(s[1], s[3], s[5]) for s in said] == [("1", "0", "0"), ("2", "100", "64"), ("2", "100", "64")]
    found = faults(out, 0)
    assert len(found) == 2 and all(ENTRIES_FAULT in f for f in found), found
    assert peak <= QUOTA + HEADERS
    assert os.listdir(controller_tmp(tmp_path)) == []


def test_the_kept_folder_lasts_the_game(tmp_path):
    # storage.txt gains a line a turn; a folder, an executable and an odd name come back too.
    keeper = bot_file(tmp_path, "keeper.py", r"""
        import json, os, sys
        lines = open("storage.txt").read().splitlines() if os.path.exists("storage.txt") else []
        seen = {"lines": lines,
                "note": open("notes/deep/n.txt").read() if os.path.exists("notes/deep/n.txt") else None,
                "tool": os.access("tool.sh", os.X_OK),
                "odd": os.path.exists(b"\xff odd\nname")}
        print("rest")
        print("SEEN", json.dumps(seen), file=sys.stderr)
        with open("storage.txt", "a") as storage:
            storage.write(f"turn {len(lines) + 1}\n")
        os.makedirs("notes/deep", exist_ok=True)
        open("notes/deep/n.txt", "w").write(f"note {len(lines) + 1}")
        open("tool.sh", "w").write("echo hi\n")
        os.chmod("tool.sh", 0o755)
        open(b"\xff odd\nname", "w").close()
    """)
    resting = bot_file(tmp_path, "resting.py", RESTING)
    turns = 5
    out, _ = match(tmp_path, "abotcalypse", f"cmd:python3 {keeper}", resting, "--seed", 1,
                   "--max-turns", turns, "--time-limit", 20_000, "--games", 2)
    assert_played(out)
    seen = [json.loads(line[5:]) for line in log_lines(out, 0, "stderr") if line.startswith("SEEN ")]
    assert len(seen) == 2 * turns
    for game in (seen[:turns], seen[turns:]):  # a fresh folder each game
        for turn, view in enumerate(game, 1):
            assert view["lines"] == [f"turn {n}" for n in range(1, turn)]
            assert view["note"] == (f"note {turn - 1}" if turn > 1 else None)
            assert view["tool"] is (turn > 1) and view["odd"] is (turn > 1)
    assert not faults(out, 0)
    assert os.listdir(controller_tmp(tmp_path)) == []


def record(kind: bytes, path: bytes, data: bytes | None = None, size: int | None = None) -> bytes:
    head = kind + struct.pack(">H", len(path)) + path
    if data is None:
        return head
    return head + struct.pack(">Q", len(data) if size is None else size) + data


@pytest.mark.parametrize("stream, message", [
    (record(b"f", b"../evil", b"x"), "unreadable"),
    (record(b"f", b"/etc/passwd", b"x"), "unreadable"),
    (record(b"f", b"sub/file", b"x"), "unreadable"),  # its folder was not sent first
    (record(b"f", b"a", b"x") + record(b"f", b"a", b"y"), "unreadable"),
    (record(b"l", b"link"), "unreadable"),
    (record(b"f", b"huge", b"", size=1 << 62), QUOTA_FAULT),
    (b"".join(record(b"d", b"d%d" % n) for n in range(MAX_ENTRIES + 1)), ENTRIES_FAULT),
    (b"!q", QUOTA_FAULT),
    (b".\0\0\0\0trailing", "bytes after the end"),
])
def test_a_forged_archive_is_refused(tmp_path, stream, message):
    # Where the bot runs as the keeper's uid (a user namespace, the controller not root) it can
    # write its own stream to the keeper's report pipe: the controller checks every record.
    sink = os.open(tmp_path / "sink", os.O_RDWR | os.O_CREAT)
    reader = ArchiveReader(sink, QUOTA, MAX_ENTRIES)
    with pytest.raises(KeptError, match=message):
        for start in range(0, len(MAGIC + stream), 7):  # in pieces, as a pipe gives it
            reader.feed((MAGIC + stream)[start:start + 7])
    os.close(sink)
    assert os.path.getsize(tmp_path / "sink") <= len(MAGIC) + len(stream)
