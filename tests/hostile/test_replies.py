"""Deep or huge replies forged on a native bot's reply channel: each is that bot's fault,
named, found within its time limit, and the match goes on.

A Python bot's host answers the controller with one JSON line per request on its stdout
(engine/bots/reply.py reads it: at most 1 MiB, nesting measured in linear time before
``json.loads``, at most 20 levels); the bot's code can write to that pipe itself, for the
pending request's id, before its host does. Each attack runs ``python -m engine match``
end to end at a 1,000 ms time limit; the bounds are 10x or more what a run takes here.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# The attacker: the pending request's id from the host's frames, then PAYLOAD(id) on the reply pipe.
from test_native_attacks import FORGE

ROOT = Path(__file__).resolve().parents[2]
MATCH_LIMIT_S = 120  # measured: each match below takes 3-10 s on 2 busy cores

MIB = 1 << 20
ATTACKS = {
    # 1 MiB of brackets, closed: a recursive parser would need half a million frames
    "deep brackets": ("lambda rid: b'[' * 500_000 + b']' * 500_000 + b'\\n'", "nests 500000 levels deep"),
    "deep objects": ("lambda rid: b'{\"a\":' * 100_000 + b'1' + b'}' * 100_000 + b'\\n'",
                     "nests 100000 levels deep"),
    # a reply with the right id whose output field nests: refused before it is parsed
    "deep field": ("lambda rid: b'{\"id\": %d, \"answer\": \"0\", \"stdout\": ' % rid"
                   " + b'[' * 300_000 + b']' * 300_000 + b'}\\n'", "nests 300001 levels deep"),
    "just too deep": ("lambda rid: b'{\"id\": %d, \"answer\": ' % rid + b'[' * 20 + b']' * 20 + b'}\\n'",
                      "nests 21 levels deep (at most 20)"),
    # brackets hidden in strings do not count; this one is flat, and its answer the wrong type
    "brackets in strings": ("lambda rid: b'{\"id\": %d, \"stdout\": \"' % rid + b'[' * 900_000"
                            " + b'\", \"answer\": 7}\\n'", "'answer' is a number, not a string"),
    # just under the line's bound: half a million numbers, parsed, then the wrong shape
    "huge list": ("lambda rid: b'[' + b'0,' * 500_000 + b'0]\\n'", "expected an object, got a list"),
    # over it, with no newline for a while: dropped as it comes, never parsed
    "huge line": ("lambda rid: b'[' * (8 * (1 << 20)) + b'\\n'", "a line longer than 1,048,576 bytes"),
}


def match(tmp_path: Path, *args) -> tuple[dict, float]:
    """``python -m engine match ARGS --json --log`` (its output, its wall time in seconds)."""
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "engine", "match", *map(str, args), "--secret",
                           "attack-tests", "--json", "--log"], cwd=ROOT, capture_output=True,
                          timeout=MATCH_LIMIT_S * 2)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return json.loads(done.stdout), time.monotonic() - began


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_deep_or_huge_reply_is_the_senders_fault_on_time(tmp_path, attack):
    payload, message = ATTACKS[attack]
    attacker = tmp_path / "attacker.py"
    attacker.write_text(f"PAYLOAD = {payload}\n" + textwrap.dedent(FORGE), encoding="utf-8")
    out, seconds = match(tmp_path, "atomas", attacker, "builtin:greedy", "--seed", 3,
                         "--max-moves", 30,
                         "--time-limit", 20_000)  # far above a move's cost: no time-out on a busy machine
    assert seconds < MATCH_LIMIT_S, f"the match took {seconds:.0f} s"
    faults = [e["text"] for e in out["log"] if e["stream"] == "fault" and e["bot"] == 0]
    assert faults and message in faults[0], faults
    game = out["games"][0]
    assert game["faults"][1] == 0 and game["scores"][1] > 0  # the other bot played on
    if "line longer" in message:  # a bot that floods its pipe is stopped: it plays no more
        assert "not running" in faults[-1], faults
    else:  # the reader survived: every later move was played
        assert all(message in f for f in faults), faults
        assert game["faults"][0] == 2 and game["scores"][0] > 0, game
