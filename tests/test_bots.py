"""Bot kinds and their faults, end to end through ``run_series``.

Function and script bots run in a bot host subprocess (``HostedBot``), command bots are
small sh/awk programs written to tmp_path (``CommandBot``). Every match must finish, and
every fault must be in the record with the bot's own error text.
"""

from __future__ import annotations

import shutil
import time

import pytest

from engine.bots.native import CommandBot, HostedBot, InProcessBot
from engine.bots.sandbox import Sandbox
from engine.core.timing import hard_limit_ms
from engine.games.registry import get_game
from engine.play.match import run_series
from engine.play.replay import replay_record

ATOMAS = get_game("atomas")
FLIT = get_game("flit")
FAST = 20_000  # for bots meant to answer in time: far above a move's cost on a loaded machine
SHORT = 50  # for time-outs; the hard limit is then max(2 s, 10x) = 2 s
SLACK_S = 20  # a match's own cost (sandbox and Python start-ups) beside a hard limit, when busy

# A quick valid Flit opponent: the first valid move, or a pass.
FLIT_FIRST = "def move(view):\n    moves = view.moves()\n    return moves[0] if moves else '0 0 0 0'\n"
ATOMAS_ZERO = "def move(view):\n    return '0 n' if view.atom == '-' else 0\n"
SANDBOX = Sandbox()  # every bot process here runs as the CLI runs it: sandboxed


def hosted_bot(name: str, source: str) -> HostedBot:
    return HostedBot(name, source, SANDBOX)


def command_bot(name: str, command: str) -> CommandBot:
    return CommandBot(name, command, SANDBOX)


def run(spec, bots, games=1, seed=1, **overrides):
    events = []
    settings = spec.settings(**overrides)
    began = time.perf_counter()
    result = run_series(spec, settings, bots, seed, games, on_event=events.append)
    elapsed = time.perf_counter() - began
    for record in result.document["records"]:
        assert record["result"] is not None, "every game must finish"
        replay_record(record)  # and be reproducible from its record
    return result.document, events, elapsed


def seat_turns(record, bot=0):
    seat = record["bot_index"].index(bot)
    return [t for t in record["turns"] if t["seats"][0] == seat]


def kinds(turns):
    return [t["faults"][0]["kind"] if t["faults"][0] else None for t in turns]


def texts(events, stream, bot=0):
    return "".join(e.text for e in events if e.stream == stream and e.bot == bot)


def hosted_atomas(source, **overrides):
    overrides.setdefault("time_limit_ms", FAST)
    overrides.setdefault("max_moves", 60)
    document, events, elapsed = run(ATOMAS, [hosted_bot("bot", source)], **overrides)
    return document["records"][0], events, document, elapsed


def flit_vs_first(bot, **overrides):
    overrides.setdefault("time_limit_ms", FAST)
    overrides.setdefault("max_turns", 60)
    document, events, elapsed = run(FLIT, [bot, InProcessBot("first", FLIT_FIRST)], **overrides)
    return document["records"][0], events, document, elapsed


def assert_atomas_frozen_after(record, n_faults, kind):
    turns = record["turns"]
    assert kinds(turns[-n_faults:]) == [kind] * n_faults
    assert record["result"]["termination"] == "frozen"
    # the game ends with the score it has
    last = turns[-1]["score"] if turns else record["start"]["score"]
    assert record["result"]["scores"] == [last]


# -- Atomas, function bots in a bot host ---------------------------------------------------------
def test_atomas_good_function_bot_has_no_faults():
    record, events, document, _ = hosted_atomas(ATOMAS_ZERO)
    assert kinds(record["turns"]) == [None] * len(record["turns"])
    assert record["result"]["termination"] in ("ring_full", "max_moves")
    assert document["summary"]["games"][0]["faults"] == [0]


def test_atomas_invalid_answers_freeze_after_five():
    record, events, document, _ = hosted_atomas("def move(view):\n    return 'banana'\n")
    assert len(record["turns"]) == 5
    assert_atomas_frozen_after(record, 5, "invalid")
    assert all("banana" in t["faults"][0]["message"] for t in record["turns"])
    assert all(t["answers"][0] == "banana" for t in record["turns"])
    assert document["summary"]["games"][0]["faults"] == [5]
    assert "now frozen" in [e for e in events if e.stream == "fault"][-1].text


def test_atomas_out_of_range_answer_is_invalid_and_played_as_default():
    record, _, _, _ = hosted_atomas("def move(view):\n    return (99, True) if view.atom == '-' else 99\n")
    assert_atomas_frozen_after(record, 5, "invalid")
    assert "out of range" in record["turns"][0]["faults"][0]["message"]


def test_atomas_four_faults_in_a_row_do_not_freeze():
    source = (
        "count = 0\n"
        "def move(view):\n"
        "    global count\n"
        "    count += 1\n"
        "    if count % 5:\n"
        "        return 'nope'\n"
        "    return '0 n' if view.atom == '-' else 0\n"
    )
    record, _, document, _ = hosted_atomas(source, max_moves=30)
    assert record["result"]["termination"] in ("max_moves", "ring_full")
    assert kinds(record["turns"][:5]) == ["invalid"] * 4 + [None]
    assert document["summary"]["games"][0]["faults"][0] == kinds(record["turns"]).count("invalid")


def test_atomas_exceptions_freeze_with_the_bots_error_and_line():
    source = "def helper():\n    return {}['x']\n\ndef move(view):\n    return helper()\n"
    record, events, _, _ = hosted_atomas(source)
    assert len(record["turns"]) == 5
    assert_atomas_frozen_after(record, 5, "error")
    fault = record["turns"][0]["faults"][0]
    assert fault["message"].startswith("KeyError: 'x'")
    assert fault["line"] == 2
    assert "line 2 in helper" in fault["message"]
    assert "engine" not in fault["message"]  # the bot's lines, not the engine's
    assert [e.line for e in events if e.stream == "fault"] == [2] * 5


def test_atomas_freeze_keeps_the_score_earned_before():
    source = (
        "count = 0\n"
        "def move(view):\n"
        "    global count\n"
        "    count += 1\n"
        "    if count > 12:\n"
        "        raise RuntimeError('tired')\n"
        "    board = view.board\n"
        "    if view.atom == '-':\n"
        "        return '0 y'\n"
        "    return 0\n"
    )
    record, _, _, _ = hosted_atomas(source, max_moves=100)
    turns = record["turns"]
    assert len(turns) == 17
    assert kinds(turns[:12]) == [None] * 12
    assert_atomas_frozen_after(record, 5, "error")
    assert "RuntimeError: tired" in turns[-1]["faults"][0]["message"]


def test_atomas_slow_answers_time_out():
    source = ("import time\ndef move(view):\n"
              "    time.sleep(0.15)\n    return '0 n' if view.atom == '-' else 0\n")
    record, events, _, _ = hosted_atomas(source, time_limit_ms=SHORT)
    assert len(record["turns"]) == 5
    assert_atomas_frozen_after(record, 5, "timeout")
    assert "50 ms limit" in record["turns"][0]["faults"][0]["message"]
    assert record["turns"][0]["answers"][0] is not None  # the late answer is kept in the record


def test_atomas_infinite_loop_is_stopped_and_frozen():
    source = "def move(view):\n    while True:\n        pass\n"
    record, events, _, elapsed = hosted_atomas(source, time_limit_ms=SHORT)
    assert kinds(record["turns"]) == ["timeout"]
    assert "hard limit" in record["turns"][0]["faults"][0]["message"]
    assert record["result"]["termination"] == "frozen"
    assert hard_limit_ms(SHORT) / 1000 <= elapsed < hard_limit_ms(SHORT) / 1000 + SLACK_S


def test_atomas_syntax_error_freezes_from_the_start():
    source = "def move(view):\n    return 0\n\ndef broken(:\n    pass\n"
    record, events, document, _ = hosted_atomas(source, games=2)
    assert record["turns"] == []
    assert record["start_faults"] == [1]
    assert record["result"] == {"termination": "frozen", "scores": [0], "winner": 0}
    errors = [e for e in events if e.stream == "error"]
    assert len(errors) == 1 and errors[0].line == 4 and "SyntaxError" in errors[0].text
    assert "line 4" in errors[0].text
    assert all(e.line == 4 for e in events if e.stream == "fault")
    assert [g["faults"] for g in document["summary"]["games"]] == [[1], [1]]


def test_atomas_error_while_loading_module_freezes_from_the_start():
    record, events, _, _ = hosted_atomas("x = 1\nundefined_name + 1\ndef move(view):\n    return 0\n")
    assert record["turns"] == [] and record["result"]["termination"] == "frozen"
    assert record["start_faults"] == [1]
    fault = [e for e in events if e.stream == "fault"][0]
    assert "NameError" in fault.text and fault.line == 2


def test_atomas_output_is_captured():
    source = (
        "import sys\n"
        "def move(view):\n"
        "    print('thinking about', view.atom)\n"
        "    print('warning', file=sys.stderr)\n"
        "    return '0 n' if view.atom == '-' else 0\n"
    )
    record, events, _, _ = hosted_atomas(source, max_moves=5)
    assert kinds(record["turns"]) == [None] * 5
    assert texts(events, "stdout").count("thinking about") == 5
    assert texts(events, "stderr").count("warning") == 5


# -- Atomas, script bots in a bot host -----------------------------------------------------------------
@pytest.mark.parametrize("read", ["input()", "raw_input()", "sys.stdin.readline()", "next(iter(sys.stdin))"])
def test_atomas_script_bots_read_their_line(read):
    source = (
        "import sys\n"
        f"line = {read}\n"
        "atom, _, items = line.strip().partition('/')\n"
        "print('debug', atom)\n"
        "print('0 n' if atom == '-' else 0)\n"
    )
    record, events, _, _ = hosted_atomas(source, max_moves=20)
    assert kinds(record["turns"]) == [None] * len(record["turns"])
    assert len(record["turns"]) == 20 or record["result"]["termination"] == "ring_full"
    assert texts(events, "stdout").count("debug") == len(record["turns"])  # not the answer


def test_atomas_script_exception_has_its_line():
    source = "line = input()\n\nraise ValueError('no idea')\n"
    record, _, _, _ = hosted_atomas(source)
    assert_atomas_frozen_after(record, 5, "error")
    assert record["turns"][0]["faults"][0]["line"] == 3
    assert "ValueError: no idea" in record["turns"][0]["faults"][0]["message"]


def test_atomas_script_printing_nothing_is_invalid():
    record, _, _, _ = hosted_atomas("input()\n")
    assert_atomas_frozen_after(record, 5, "invalid")
    assert record["turns"][0]["faults"][0]["message"] == "no answer"


def test_atomas_script_reading_past_its_line_raises_eof():
    record, _, _, _ = hosted_atomas("input()\ninput()\nprint(0)\n")
    assert_atomas_frozen_after(record, 5, "error")
    assert "EOFError" in record["turns"][0]["faults"][0]["message"]


def test_atomas_builtin_script_example_runs():

    record, _, _, _ = hosted_atomas(get_game("atomas").example_source("script"), max_moves=30)
    assert kinds(record["turns"]) == [None] * len(record["turns"])


# -- Flit, hosted function and script bots ----------------------------------------------------------
def test_flit_invalid_moves_do_not_count_toward_freezing():
    record, events, document, _ = flit_vs_first(hosted_bot("bad", "def move(view):\n    return 'banana'\n"))
    mine = seat_turns(record)
    assert len(mine) == 30
    assert kinds(mine) == ["invalid"] * 30  # never frozen
    assert all(t["move"] is None for t in mine)  # played as passes
    assert record["result"]["scores"][0] == 2
    assert document["summary"]["games"][0]["faults"] == [30, 0]


def test_flit_illegal_move_is_invalid_with_the_reason():
    source = "def move(view):\n    return (0, 0, 1, 1) if view[0, 0] != view.me else (5, 5, 6, 6)\n"
    record, _, _, _ = flit_vs_first(hosted_bot("bad", source))
    fault = seat_turns(record)[0]["faults"][0]
    assert fault["kind"] == "invalid" and "colour 1" in fault["message"]


def test_flit_exceptions_freeze_and_the_bot_passes():
    record, events, document, _ = flit_vs_first(
        hosted_bot("raiser", "def move(view):\n    raise ValueError('boom')\n"))
    mine = seat_turns(record)
    assert kinds(mine) == ["error"] * 5 + ["frozen"] * (len(mine) - 5)
    fault = mine[0]["faults"][0]
    assert fault["message"].startswith("ValueError: boom") and fault["line"] == 2
    assert all(t["move"] is None for t in mine)
    assert record["result"]["termination"] == "max_turns"  # the other bot keeps playing
    assert any(t["move"] for t in seat_turns(record, 1))
    assert document["summary"]["games"][0]["faults"] == [5, 0]  # frozen turns are not faults


def test_flit_slow_bot_times_out_then_freezes():
    source = "import time\ndef move(view):\n    time.sleep(0.15)\n    return '0 0 0 0'\n"
    record, _, _, _ = flit_vs_first(hosted_bot("slow", source), time_limit_ms=SHORT)
    mine = seat_turns(record)
    assert kinds(mine)[:6] == ["timeout"] * 5 + ["frozen"]


def test_flit_script_infinite_loop_is_stopped_and_frozen():
    source = "input()\nwhile True:\n    if input() == 'M':\n        while True:\n            pass\n"
    record, _, document, elapsed = flit_vs_first(hosted_bot("loop", source), time_limit_ms=SHORT, games=2)
    for record in document["records"]:
        mine = seat_turns(record)
        assert kinds(mine) == ["timeout"] + ["frozen"] * (len(mine) - 1)
    assert elapsed < 2 * (hard_limit_ms(SHORT) / 1000) + SLACK_S  # stopped at the hard limit, twice


def test_flit_syntax_error_freezes_from_the_start():
    source = "import random\n\ndef move(view)\n    return '0 0 0 0'\n"
    record, events, _, _ = flit_vs_first(hosted_bot("broken", source))
    mine = seat_turns(record)
    assert kinds(mine) == ["frozen"] * len(mine)
    assert record["start_faults"] == [1, 0]
    error = [e for e in events if e.stream == "error"][0]
    assert error.line == 3 and "SyntaxError" in error.text


def test_flit_function_bot_keeps_the_board():
    source = (
        "import random\n"
        "def move(view):\n"
        "    moves = view.moves()\n"
        "    assert len(view.pieces()) >= 2 and view.size == 16 and view.me == 1\n"
        "    return random.choice(moves) if moves else '0 0 0 0'\n"
    )
    record, _, _, _ = flit_vs_first(hosted_bot("rand", source), max_turns=200)
    mine = seat_turns(record)
    assert kinds(mine) == [None] * len(mine)
    assert sum(t["move"] is not None for t in mine) > len(mine) // 2


@pytest.mark.parametrize("style", ["input", "readline", "iterate"])
def test_flit_script_bots_stream_lines(style):
    read = {"input": "input()", "readline": "sys.stdin.readline().strip()", "iterate": None}[style]
    if read:
        loop = f"while True:\n    line = {read}\n"
    else:
        loop = "for line in sys.stdin:\n    line = line.strip()\n"
    source = (
        "import sys\n"
        "setup = sys.stdin.readline().split()\n"
        "assert setup[0] == 'S'\n"
        "size, me = int(setup[1]), int(setup[3])\n"
        "board = {}\n"
        + loop +
        "    if line != 'M':\n"
        "        x, y, c = map(int, line.split())\n"
        "        board[x, y] = c\n"
        "        continue\n"
        "    mine = [p for p, c in board.items() if c == me]\n"
        "    print('pieces', len(mine), file=sys.stderr)\n"
        "    answer = '0 0 0 0'\n"
        "    for (x, y) in mine:\n"
        "        for d in (((x + 1) % size, y), (x, (y + 1) % size)):\n"
        "            other = [p for p in mine if p != (x, y)]\n"
        "            if board.get(d, 0) == 0 and other:\n"
        "                answer = '%d %d %d %d' % (other[0] + d)\n"
        "    print(answer)\n"
    )
    record, events, _, _ = flit_vs_first(hosted_bot("script", source), max_turns=40)
    mine = seat_turns(record)
    assert kinds(mine) == [None] * 20
    assert any(t["move"] for t in mine)
    assert texts(events, "stderr").count("pieces") == 20


def test_flit_script_exception_freezes_with_its_line():
    source = "input()\nwhile True:\n    if input() == 'M':\n        1 / 0\n"
    record, _, _, _ = flit_vs_first(hosted_bot("div", source))
    mine = seat_turns(record)
    assert kinds(mine)[:6] == ["error"] * 5 + ["frozen"]
    assert "ZeroDivisionError" in mine[0]["faults"][0]["message"] and mine[0]["faults"][0]["line"] == 4


def test_flit_builtin_script_example_runs_hosted():

    record, _, _, _ = flit_vs_first(hosted_bot("script", get_game("flit").example_source("script")))
    assert kinds(seat_turns(record)) == [None] * 30


# -- command bots ----------------------------------------------------------------------------------------
def write_script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    path.chmod(0o755)
    return path


ATOMAS_SH = """#!/bin/sh
read line
atom=${line%%/*}
echo "atom $atom" >&2
if [ "$atom" = "-" ]; then echo "0 n"; else echo 0; fi
"""

def command_atomas(tmp_path, text, **overrides):
    path = write_script(tmp_path, "bot.sh", text)
    overrides.setdefault("time_limit_ms", FAST)
    overrides.setdefault("max_moves", 25)
    document, events, elapsed = run(ATOMAS, [command_bot("sh", f"sh {path}")], **overrides)
    return document["records"][0], events, elapsed


def test_atomas_command_bot_plays(tmp_path):
    record, events, _ = command_atomas(tmp_path, ATOMAS_SH)
    assert kinds(record["turns"]) == [None] * len(record["turns"])
    assert texts(events, "stderr").count("atom ") == len(record["turns"])


def test_atomas_command_bot_garbage_is_invalid(tmp_path):
    record, events, _ = command_atomas(tmp_path, "#!/bin/sh\nread line\necho 'hello world'\n")
    assert_atomas_frozen_after(record, 5, "invalid")
    assert "hello world" in record["turns"][0]["faults"][0]["message"]


def test_atomas_command_bot_crash_is_an_error(tmp_path):
    record, events, _ = command_atomas(tmp_path, "#!/bin/sh\necho oops >&2\nexit 3\n")
    assert_atomas_frozen_after(record, 5, "error")
    assert "code 3" in record["turns"][0]["faults"][0]["message"]
    assert "oops" in texts(events, "stderr")


def test_atomas_command_bot_slow_times_out(tmp_path):
    record, _, _ = command_atomas(tmp_path, "#!/bin/sh\nread line\nsleep 0.2\necho 0\n", time_limit_ms=SHORT)
    assert_atomas_frozen_after(record, 5, "timeout")


def test_atomas_command_bot_hang_is_stopped(tmp_path):
    record, _, elapsed = command_atomas(tmp_path, "#!/bin/sh\nwhile :; do :; done\n", time_limit_ms=SHORT)
    assert kinds(record["turns"]) == ["timeout"]
    assert record["result"]["termination"] == "frozen"
    assert elapsed < hard_limit_ms(SHORT) / 1000 + SLACK_S


def test_atomas_missing_command_is_an_error():
    document, events, _ = run(ATOMAS, [command_bot("nope", "/nonexistent/bot --x")], max_moves=20)
    record = document["records"][0]
    assert record["turns"] == [] and record["start_faults"] == [1]
    assert record["result"]["termination"] == "frozen" and record["result"]["scores"] == [0]
    assert "cannot start" in texts(events, "error") and "/nonexistent/bot not found" in texts(events, "error")


@pytest.mark.skipif(shutil.which("awk") is None, reason="needs awk")
def test_flit_awk_command_bot_plays(flit_awk_command):
    record, events, _, _ = flit_vs_first(command_bot("awk", flit_awk_command), max_turns=100)
    mine = seat_turns(record)
    assert kinds(mine) == [None] * 50
    assert sum(t["move"] is not None for t in mine) > 25
    assert texts(events, "stderr").count("turn done") == 50


def test_flit_command_bot_that_exits_is_frozen(tmp_path):
    path = write_script(tmp_path, "bot.sh", "#!/bin/sh\nread setup\necho bye >&2\n")
    record, events, _, elapsed = flit_vs_first(command_bot("quit", f"sh {path}"))
    mine = seat_turns(record)
    assert kinds(mine)[:6] == ["error"] * 5 + ["frozen"]
    assert elapsed < hard_limit_ms(FAST) / 1000  # a dead program is not waited for
    assert "exited" in mine[0]["faults"][0]["message"]
    assert "bye" in texts(events, "stderr")


def test_flit_command_bot_hang_is_stopped(tmp_path):
    path = write_script(tmp_path, "bot.sh", "#!/bin/sh\nwhile :; do :; done\n")
    bot = command_bot("hang", f"sh {path}")
    record, _, _, elapsed = flit_vs_first(bot, time_limit_ms=SHORT)
    mine = seat_turns(record)
    assert kinds(mine) == ["timeout"] + ["frozen"] * (len(mine) - 1)
    assert bot.process is None or bot.process.poll() is not None  # the program was stopped


def test_flit_missing_command_freezes_from_the_start():
    record, events, _, _ = flit_vs_first(command_bot("nope", "/nonexistent/flit-bot"))
    assert kinds(seat_turns(record)) == ["frozen"] * 30
    assert record["start_faults"] == [1, 0]
    assert "cannot start" in texts(events, "error")


# -- series bookkeeping with faulty bots -----------------------------------------------------------
def test_flit_series_rotates_seats_and_counts_wins(tmp_path):
    document, _, _ = run(FLIT, [InProcessBot("first", FLIT_FIRST),
                                hosted_bot("raiser", "def move(view):\n    raise ValueError\n")],
                         games=3, max_turns=40, time_limit_ms=FAST)
    assert [r["bot_index"] for r in document["records"]] == [[0, 1], [1, 0], [0, 1]]
    summary = document["summary"]
    assert [g["faults"] for g in summary["games"]] == [[0, 5]] * 3
    assert sum(summary["wins"]) == sum(g["winner"] is not None for g in summary["games"])


def test_flood_of_output_is_cut_and_the_answer_survives():
    """A script that prints megabytes before its answer: the answer counts, the output is cut."""
    from engine.bots.code import load_code
    from engine.bots.runners import OneShotScriptRunner

    code = load_code("input()\nfor _ in range(100000):\n    print('debug line')\nprint(0)\n")
    result = OneShotScriptRunner("atomas", code).turn({"atom": 1, "board": [1, 2]})
    assert result.answer == "0"
    assert result.error is None
    assert "characters cut" in result.stdout
    assert len(result.stdout) < 30_000


COUNTING = (
    "calls = 0\n"
    "def move(view):\n"
    "    global calls\n"
    "    calls += 1\n"
    "    print('call', calls)\n"
    "    return '0 n' if view.atom == '-' else 0\n"
)


@pytest.mark.parametrize("kind", [InProcessBot, HostedBot])
def test_function_bot_module_state_lasts_one_game(kind):
    """Module-level state carries from move to move, and starts afresh with each game."""
    document, events, _ = run(ATOMAS, [kind("counter", COUNTING)], games=3, time_limit_ms=FAST,
                              max_moves=40)
    printed = texts(events, "stdout").split()
    counts = [int(n) for word, n in zip(printed[::2], printed[1::2], strict=True) if word == "call"]
    moves = [len(r["turns"]) for r in document["records"]]
    assert counts == [n for game in moves for n in range(1, game + 1)]
    assert counts.count(1) == 3
