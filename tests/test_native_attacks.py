"""Attacks on the native controller by its bots, each run end to end as a user runs it.

Every test is an attack from issue 6 ("Why"): the hostile bot runs its attack, the match
(``python -m engine match ... --json``) ends normally with a result, and the target — the
controller, the other bot, its file, the replay file, the next game's clock — is untouched.
The attackers print what they did, so a test also shows that the attack really ran.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from peak_rss import CONTROLLER

from engine.bots.sandbox import Sandbox, SandboxError
from engine.play.replay import load_document, replay_record

ROOT = Path(__file__).resolve().parents[1]
RSS_BOUND_MB = 300  # the controller's own peak memory while a bot floods it

try:
    Sandbox().probe()
except SandboxError as exc:  # scripts/test installs bubblewrap: this is a broken set-up
    pytest.fail(f"the sandbox cannot start here ({exc}); run scripts/test, which installs bubblewrap",
                pytrace=False)




# Where a test counts faults, a move's time must not depend on the machine's load (these
# attackers scan /proc and pipes): a limit far above what a move needs on a busy machine.
ROOMY_MS = 20_000


def match(tmp_path: Path, *args, timeout: float = 180) -> tuple[dict, float]:
    """Run ``python -m engine match ARGS --json --log``; (its output, its peak RSS in MB).

    The secret is fixed so that each attack plays the same games every time."""
    rss_file = tmp_path / "controller_rss"
    done = subprocess.run([sys.executable, "-c", CONTROLLER, str(rss_file), "match", *map(str, args),
                           "--secret", "attack-tests", "--json", "--log"],
                          cwd=ROOT, capture_output=True, timeout=timeout)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return json.loads(done.stdout), int(rss_file.read_text()) / 1024


def bot_file(tmp_path: Path, name: str, *parts: str) -> Path:
    """A bot's file from parts of source, each dedented."""
    path = tmp_path / name
    path.write_text("".join(textwrap.dedent(p) for p in parts), encoding="utf-8")
    return path


def log_text(out: dict, bot: int, stream: str | None = None) -> str:
    return "".join(e["text"] for e in out["log"] if e["bot"] == bot and stream in (None, e["stream"]))


def host_processes_with(marker: str) -> list[int]:
    """Host pids whose command line holds ``marker`` (leftovers of a bot)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


FLIT_FIRST = """
def move(view):
    moves = view.moves()
    return moves[0] if moves else "0 0 0 0"
"""
ATOMAS_ZERO = """
def move(view):
    return "0 n" if view.atom == "-" else 0
"""
# Every process the bot can see, and its own helper to reach into them.
# Every process the bot can see whose command line is the engine's (the controller, the
# other bot's host): only those, so a broken sandbox could never hit the rest of the machine.
SCAN = """
import os, signal, sys
def others():
    me, found = os.getpid(), []
    for p in os.listdir("/proc"):
        try:
            if p.isdigit() and int(p) != me and b"engine" in open(f"/proc/{p}/cmdline", "rb").read():
                found.append(int(p))
        except OSError:
            pass
    return found
"""


# -- reaching the other bot and the controller ------------------------------------------------------
def test_writing_passes_into_the_opponents_reply_pipe(tmp_path):
    attacker = bot_file(tmp_path, "attacker.py", SCAN, """
    hits = 0
    def move(view):
        global hits
        for pid in others():
            for fd in (1, 0):
                try:
                    with open(f"/proc/{pid}/fd/{fd}", "w") as pipe:
                        for rid in range(1, 2000):
                            pipe.write('{"id": %d, "answer": "0 0 0 0", "error": null, "line": null, '
                                       '"stdout": "", "stderr": ""}\\n' % rid)
                    hits += 1
                except OSError:
                    pass
        print(f"pipes written: {hits}; pids seen: {others()}")
        return "0 0 0 0"
    """)
    victim = bot_file(tmp_path, "victim.py", FLIT_FIRST)
    replay = tmp_path / "replay.json"
    out, _ = match(tmp_path, "flit", attacker, victim, "--seed", 3, "--preset", "trial",
                   "--time-limit", ROOMY_MS, "--replay", replay)
    assert "pipes written: 0" in log_text(out, 0, "stdout")  # it ran, and found no pipe
    assert out["games"][0]["faults"] == [0, 0]
    # the victim's own moves were played: it moved every turn, never the forged pass
    record = json.loads(replay.read_text())["records"][0]
    victim_seat = record["bot_index"].index(1)
    victim_turns = [t for t in record["turns"] if t["seats"][0] == victim_seat]
    assert victim_turns and all(t["move"] is not None for t in victim_turns)


def append_attacker(tmp_path: Path, victim: Path, confine: Path | None = None) -> Path:
    """The attacker: it appends to every .py file named on a visible process's command line.
    ``confine``: it writes only under that folder (the unsandboxed control must never reach
    another program's files on this machine), and names the others it saw."""
    return bot_file(tmp_path, "attacker.py", SCAN, f"""
    VICTIM = {str(victim)!r}  # even knowing the path
    CONFINE = {str(confine) + "/" if confine else ""!r}
    def attack():
        report = []
        for pid in others() + [os.getppid()]:
            try:
                argv = open(f"/proc/{{pid}}/cmdline", "rb").read().split(b"\\0")
            except OSError:
                continue
            report += [a.decode() for a in argv if a.endswith(b".py")]
        for path in set(report) | {{VICTIM}}:
            if CONFINE and not os.path.realpath(path).startswith(CONFINE):
                report.append("seen " + path)
                continue
            try:
                with open(path, "a") as f:
                    f.write("\\nraise SystemExit('owned')\\n")
                report.append("WROTE " + path)
            except OSError as exc:
                report.append(f"refused: {{exc.strerror}}")
        return report
    print("attack:", attack())
    def move(view):
        return "0 n" if view.atom == "-" else 0
    """)


def test_appending_to_the_opponents_file_named_on_the_controllers_command_line(tmp_path):
    victim = bot_file(tmp_path, "victim.py", ATOMAS_ZERO)
    before = hashlib.sha256(victim.read_bytes()).hexdigest()
    attacker = append_attacker(tmp_path, victim)
    out, _ = match(tmp_path, "atomas", attacker, victim, "--seed", 1, "--games", 2, "--max-moves", 20)
    log = log_text(out, 0, "stdout")
    assert "attack:" in log and "refused" in log and "WROTE" not in log
    assert str(victim) not in log  # its path is nowhere the attacker can read
    assert hashlib.sha256(victim.read_bytes()).hexdigest() == before
    assert [g["faults"] for g in out["games"]] == [[0, 0], [0, 0]]


def test_the_append_attack_is_real_without_the_sandbox(tmp_path):
    """The control: with --no-sandbox the same attacker does reach the file."""
    victim = bot_file(tmp_path, "victim.py", ATOMAS_ZERO)
    attacker = append_attacker(tmp_path, victim, confine=tmp_path.resolve())
    out, _ = match(tmp_path, "atomas", attacker, "--seed", 1, "--max-moves", 5, "--no-sandbox")
    assert f"WROTE {victim}" in log_text(out, 0, "stdout")
    assert "owned" in victim.read_text()


def test_reading_the_opponents_source_from_process_memory(tmp_path):
    secret = "opponent-secret-" + os.urandom(6).hex()
    victim = bot_file(tmp_path, "victim.py", f"SECRET = {secret!r}\n" + FLIT_FIRST)
    attacker = bot_file(tmp_path, "attacker.py", SCAN, f"""
    WANTED = {secret[:9]!r} + {secret[9:]!r}  # built at run time: not in this file's text as one
    def look():
        read = found = 0
        for pid in others():
            try:
                maps = open(f"/proc/{{pid}}/maps").read().splitlines()
                with open(f"/proc/{{pid}}/mem", "rb", 0) as mem:
                    for region in maps:
                        start, end = (int(x, 16) for x in region.split()[0].split("-"))
                        try:
                            mem.seek(start)
                            chunk = mem.read(min(end - start, 1 << 24))
                        except OSError:
                            continue
                        read += len(chunk)
                        found += WANTED.encode() in chunk
            except OSError:
                pass
        return read, found
    def move(view):
        read, found = look()
        print(f"bytes read from other processes: {{read}}; leaks: {{found}}")
        moves = view.moves()
        return moves[0] if moves else "0 0 0 0"
    """)
    out, _ = match(tmp_path, "flit", victim, attacker, "--seed", 2, "--time-limit", ROOMY_MS)
    log = log_text(out, 1, "stdout")
    assert "bytes read from other processes: 0; leaks: 0" in log
    assert "leaks: 1" not in log and secret not in log
    assert out["games"][0]["faults"] == [0, 0]


def test_signalling_the_controller_does_not_stop_the_match(tmp_path):
    attacker = bot_file(tmp_path, "attacker.py", SCAN, """
    def move(view):
        sent = []
        for pid in others() + [os.getppid()]:
            for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
                try:
                    os.kill(pid, sig)
                    sent.append((pid, sig.name))
                except OSError:
                    pass
        print("signals delivered:", sent)
        return "0 n" if view.atom == "-" else 0
    """)
    out, _ = match(tmp_path, "atomas", attacker, "builtin:greedy", "--seed", 4, "--max-moves", 30)
    assert "signals delivered:" in log_text(out, 0, "stdout")
    assert out["games"][0]["faults"] == [0, 0]
    assert out["games"][0]["scores"][1] > 0  # the other bot played its game in full


def test_a_bots_leftover_process_cannot_stall_the_next_game(tmp_path):
    marker = "koth-stall-" + os.urandom(4).hex()
    attacker = bot_file(tmp_path, "attacker.py", SCAN, f"""
    started = False
    def move(view):
        global started
        if not started:  # a daemon that SIGSTOPs all but its own bot for 1.5 s at a time
            started = True
            host = os.getpid()
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    script = ("while :; do for p in /proc/[0-9]*; do p=${{p#/proc/}}; "
                              "[ $p = $$ ] || [ $p = 1 ] || [ $p = $0 ] || "
                              "! grep -q engine /proc/$p/cmdline 2>/dev/null || kill -STOP $p; done; "
                              "sleep 1.5; for p in /proc/[0-9]*; do kill -CONT ${{p#/proc/}}; done; done")
                    os.execvp("sh", ["sh", "-c", script + " # " + {marker!r}, str(host)])
                os._exit(0)
            os.wait()
        return "0 n" if view.atom == "-" else 0
    """)
    victim = bot_file(tmp_path, "victim.py", ATOMAS_ZERO)
    # Atomas plays the attacker's game on a seed, then the victim's: the daemon is left over.
    out, _ = match(tmp_path, "atomas", attacker, victim, "--seed", 1, "--games", 2, "--max-moves", 40,
                   "--time-limit", ROOMY_MS)
    assert [g["faults"][1] for g in out["games"]] == [0, 0]  # no time-out it did not cause
    assert host_processes_with(marker) == []


def forger(tmp_path: Path, replay: Path, marker: str) -> Path:
    return bot_file(tmp_path, "attacker.py", f"""
    import os
    REPLAY = {str(replay)!r}
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # waits for the match to end, then forges a 999-0 summary
            script = "sleep 2; echo '{{\\"summary\\": {{\\"wins\\": [999, 0]}}}}' > " + REPLAY
            os.execvp("sh", ["sh", "-c", script + " # " + {marker!r}])
        os._exit(0)
    os.wait()
    def move(view):
        return "0 n" if view.atom == "-" else 0
    """)


def test_a_forked_process_cannot_rewrite_the_replay_after_the_match(tmp_path):
    marker = "koth-replay-" + os.urandom(4).hex()
    replay = tmp_path / "series.json"
    out, _ = match(tmp_path, "atomas", forger(tmp_path, replay, marker), "builtin:random", "--seed", 2,
                   "--max-moves", 10, "--replay", replay)
    written = replay.read_bytes()
    time.sleep(3)  # longer than the forger waits: had it survived, it would have written by now
    assert host_processes_with(marker) == []
    assert replay.read_bytes() == written
    document = load_document(written.decode())
    assert document["summary"]["games"] == out["games"]
    for record in document["records"]:
        assert list(replay_record(record).returns()) == record["result"]["scores"]


def test_the_replay_forger_is_real_without_the_sandbox(tmp_path):
    """The control: with --no-sandbox the forger outlives the match and rewrites the file."""
    marker = "koth-replay-" + os.urandom(4).hex()
    replay = tmp_path / "series.json"
    match(tmp_path, "atomas", forger(tmp_path, replay, marker), "--seed", 2, "--max-moves", 10,
          "--replay", replay, "--no-sandbox")
    deadline = time.monotonic() + 10
    while b"999" not in replay.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert json.loads(replay.read_text())["summary"]["wins"] == [999, 0]


# -- garbage on the reply channel ---------------------------------------------------------------------
FORGE = """
import os, sys
sent = 0
def request_id():
    frame = sys._getframe()
    while frame:  # the host's pending request, found on the call stack
        request = frame.f_locals.get("request")
        if isinstance(request, dict) and "id" in request:
            return request["id"]
        frame = frame.f_back
def move(view):
    global sent
    if sent < 2:
        sent += 1
        os.write(1, PAYLOAD(request_id()))
    return "0 n" if view.atom == "-" else 0
"""


@pytest.mark.parametrize("payload, message", [
    ('lambda rid: b\'{"id": %d, "answer": 7}\\n\' % rid', "'answer' is a number, not a string"),
    ("lambda rid: b'[' * 200_000 + b'\\n'", "nests 200000 levels deep"),
    ('lambda rid: b\'{"id": %d, "answer": "\\xff\\xfe"}\\n\' % rid', "not valid UTF-8"),
    ('lambda rid: b\'{"id": %d, "line": true, "answer": "0"}\\n\' % rid', "'line' is a boolean"),
    ("lambda rid: b'[1, 2]\\n'", "expected an object, got a list"),
], ids=["number-answer", "200k-brackets", "invalid-utf8", "bool-line", "list"])
def test_a_malformed_reply_on_the_channel_is_a_fault_and_the_game_goes_on(tmp_path, payload, message):
    attacker = bot_file(tmp_path, "attacker.py", f"PAYLOAD = {payload}\n", FORGE)
    out, _ = match(tmp_path, "atomas", attacker, "--seed", 3, "--max-moves", 30)
    faults = [e["text"] for e in out["log"] if e["stream"] == "fault"]
    assert len(faults) == 2 and all(message in f for f in faults), faults
    assert out["games"][0]["faults"] == [2]  # the reader survived: every later move was played
    assert out["games"][0]["scores"][0] > 0


def test_a_600_mb_reply_line_without_newline_does_not_grow_the_controller(tmp_path):
    attacker = bot_file(tmp_path, "attacker.py", """
    import os
    def move(view):
        chunk = b"x" * (1 << 20)
        for _ in range(600):  # 600 MB, no newline
            os.write(1, chunk)
        return 0
    """)
    out, rss_mb = match(tmp_path, "atomas", attacker, "builtin:greedy", "--seed", 1, "--max-moves", 20)
    faults = [e["text"] for e in out["log"] if e["stream"] == "fault" and e["bot"] == 0]
    assert "a line longer than 1,048,576 bytes (the bot was stopped)" in faults[0]
    assert out["games"][0]["scores"][1] > 0 and out["games"][0]["faults"][1] == 0
    assert rss_mb < RSS_BOUND_MB


def test_a_600_mb_line_from_a_command_bot_does_not_grow_the_controller(tmp_path):
    script = bot_file(tmp_path, "flood.sh", """\
        read setup
        head -c 629145600 /dev/zero | tr '\\0' x
        while read line; do [ "$line" = M ] && echo "0 0 0 0"; done
    """)
    out, rss_mb = match(tmp_path, "flit", f"cmd:sh {script}", "builtin:greedy", "--seed", 5,
                        "--time-limit", 1000)
    faults = [e["text"] for e in out["log"] if e["stream"] == "fault" and e["bot"] == 0]
    assert "longer than 65,536 bytes" in faults[0]
    assert out["games"][0]["winner"] == 1
    assert rss_mb < RSS_BOUND_MB


@pytest.mark.parametrize("game, extra", [("atomas", ["--max-moves", 5]), ("flit", [])])
def test_20_mb_of_stderr_a_move_is_drained_with_a_cap(tmp_path, game, extra):
    if game == "atomas":  # a process per move
        script = bot_file(tmp_path, "noisy.sh", """\
            read line
            head -c 20000000 /dev/zero | tr '\\0' e >&2
            case "$line" in -/*) echo "0 y" ;; *) echo 0 ;; esac
        """)
        bots = [f"cmd:sh {script}"]
    else:
        script = bot_file(tmp_path, "noisy.sh", """\
            read setup
            n=0
            while read line; do
              if [ "$line" = M ]; then
                n=$((n + 1)); [ $n -le 5 ] && head -c 20000000 /dev/zero | tr '\\0' e >&2
                echo "0 0 0 0"
              fi
            done
        """)
        bots = [f"cmd:sh {script}", "builtin:random"]
    out, rss_mb = match(tmp_path, game, *bots, "--seed", 1, "--time-limit", 5000, *extra)
    stderr = log_text(out, 0, "stderr")
    assert "characters cut ...]" in stderr
    assert len(stderr) < 1_000_000  # 100 MB printed, a bounded log kept
    assert out["games"][0]["faults"][0] == 0
    assert rss_mb < RSS_BOUND_MB


def test_a_5_mb_exception_every_move_keeps_the_replay_small(tmp_path):
    attacker = bot_file(tmp_path, "attacker.py", """
    calls = 0
    def move(view):
        global calls
        calls += 1
        if calls % 4 == 1:  # never five in a row, so it is never frozen
            raise ValueError("x" * 5_000_000)
        return "0 0 0 0"
    """)
    replay = tmp_path / "replay.json"
    out, rss_mb = match(tmp_path, "flit", attacker, "builtin:greedy", "--seed", 1, "--replay", replay,
                        "--time-limit", ROOMY_MS)
    document = load_document(replay.read_text())
    record = document["records"][0]
    mine = [t for t in record["turns"] if t["seats"][0] == record["bot_index"].index(0)]
    messages = [t["faults"][0]["message"] for t in mine if t["faults"][0]]
    assert len(messages) == 128 and all(m.startswith("ValueError: xxx") for m in messages)
    assert all("characters cut ...]" in m for m in messages)  # 640 MB of exception text raised
    assert replay.stat().st_size < 1_000_000
    assert rss_mb < RSS_BOUND_MB


def test_a_memory_bomb_is_stopped_by_the_memory_limit(tmp_path):
    bomb = bot_file(tmp_path, "bomb.py", """
    import sys
    sys.setrecursionlimit(10**9)
    def dig(n):
        block = [n] * 10_000  # 80 kB a frame
        return dig(n + 1) + len(block)
    def move(view):
        return dig(0)
    """)
    hog = bot_file(tmp_path, "hog.py", """
    def move(view):
        hoard = []
        while True:
            hoard.append(bytearray(1 << 24))
    """)
    out, _ = match(tmp_path, "atomas", bomb, hog, "builtin:greedy", "--seed", 1, "--max-moves", 30,
                   "--memory-limit", 200)
    for bot in (0, 1):
        faults = [e["text"] for e in out["log"] if e["stream"] == "fault" and e["bot"] == bot]
        assert len(faults) == 5 and "frozen" in faults[-1]
        assert all(f.startswith("error: ") for f in faults), faults
    # The hog's allocations fail; the recursion bomb ends in a MemoryError or, when the limit
    # is met inside the interpreter's own bookkeeping, a SystemError that kills its process:
    # either way the limit stopped it and the match went on.
    hog_faults = [e["text"] for e in out["log"] if e["stream"] == "fault" and e["bot"] == 1]
    assert all("MemoryError" in f for f in hog_faults), hog_faults
    bomb_first = next(e["text"] for e in out["log"] if e["stream"] == "fault" and e["bot"] == 0)
    assert "MemoryError" in bomb_first or "SystemError" in bomb_first, bomb_first
    assert out["games"][0]["faults"][2] == 0 and out["games"][0]["scores"][2] > 0
