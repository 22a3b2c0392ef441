"""The Python 2 conversion in a process of its own, limited in time and memory.

fissix is quadratic on some texts (one expression of 8,000 ``u''`` literals, 32 KB, took
17.5 s; 64 KiB took 377 s: its bottom matcher rescans and its ``replace`` rebuilds every
sibling list a fixer touches), so an answer's conversion must not run in the controller.
Natively the controller runs ``python -m engine.bots.python2_convert``, which reads one
request (the source, as JSON) on stdin and writes one reply line on stdout, under
``RLIMIT_CPU`` and ``RLIMIT_AS`` and a wall-clock deadline; in the page a conversion Worker
answers each request with ``handle_request`` and the controller Worker stops it at its time
limit (``web/src/controller_worker.js``, ``web/src/bot_worker.js``). Either way the reply is
read back by ``conversion_from_reply``, which trusts nothing in it.

A conversion over a limit is the bot's own load error, with a message that says which limit.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

from engine.bots.code import BotLoadError
from engine.bots.pipes import Deadline, LineChannel, LineTooLong, write_all
from engine.bots.python2_fissix import MAX_SOURCE_BYTES, Conversion, convert_here

CPU_LIMIT_S = 10  # of the conversion process's CPU: a posted answer of 64 KiB takes about 2 s
# Wall clock, for a machine busy with other work (the CPU limit is what a hostile text meets).
WALL_LIMIT_S = 60
MEMORY_LIMIT_BYTES = 512 * 2**20  # address space; converting 64 KiB of code peaks near 60 MB
# A request: the source as JSON (ASCII: up to 6 bytes for each of the source's bytes). A reply:
# the converted text (fissix's output is at most a few times as long as its input) with the
# same escapes, and its line map.
MAX_REQUEST_BYTES = 6 * MAX_SOURCE_BYTES + 1024
MAX_REPLY_BYTES = 32 * MAX_SOURCE_BYTES


def over_time_message(seconds: int = CPU_LIMIT_S) -> str:
    return (f"its Python 2 conversion took over {seconds} s: fissix is slow on this code "
            "(convert it to Python 3 and choose Python 3)")


OVER_MEMORY = (f"its Python 2 conversion needed over {MEMORY_LIMIT_BYTES // 2**20} MiB: fissix "
               "cannot convert this code (convert it to Python 3 and choose Python 3)")


# ---- the conversion process ----------------------------------------------------------------

def reply_for(source: str) -> dict[str, Any]:
    """What the conversion process (or Worker) answers for one source."""
    try:
        conversion = convert_here(source)
    except BotLoadError as exc:
        return {"error": exc.message, "line": exc.line}
    except MemoryError:
        return {"error": OVER_MEMORY, "line": None}
    return {"converted": conversion.converted, "lines": list(conversion.lines),
            "true_division": conversion.true_division}


def limit_self() -> None:
    """The conversion process's limits, set before it reads the source."""
    import resource  # not in the page's Python, which runs reply_for in a Worker instead

    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT_S, CPU_LIMIT_S + 1))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def handle_request(request: str | bytes) -> str:
    """One request (``{"source": TEXT}``, JSON) answered: the reply's JSON text."""
    try:
        source = json.loads(request)["source"]
        reply = reply_for(source) if isinstance(source, str) else {"error": "no source", "line": None}
    except (ValueError, KeyError, TypeError, RecursionError):
        reply = {"error": "the conversion request was not readable", "line": None}
    except MemoryError:
        reply = {"error": OVER_MEMORY, "line": None}
    return json.dumps(reply)


def main() -> None:
    limit_self()
    sys.stdout.write(handle_request(sys.stdin.buffer.read(MAX_REQUEST_BYTES)) + "\n")
    sys.stdout.flush()


# ---- the controller's side -----------------------------------------------------------------

def convert_in_child(source: str) -> Conversion:
    """The answer converted in a limited process of its own (``BotLoadError`` when it does not
    convert, or goes over a limit). The controller only waits: it spends no CPU on it."""
    from engine.bots.sandbox import ENGINE_ROOT, kill_group

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ENGINE_ROOT), env.get("PYTHONPATH", "")) if p)
    request = json.dumps({"source": source}).encode("ascii")
    deadline = time.perf_counter() + WALL_LIMIT_S
    try:
        process = subprocess.Popen([sys.executable, "-B", "-m", "engine.bots.python2_convert"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=env, start_new_session=True)
    except OSError as exc:
        raise BotLoadError(f"the Python 2 converter did not start: {exc}", None) from None
    channel = LineChannel(process.stdout, MAX_REPLY_BYTES)
    try:
        try:
            write_all(process.stdin.fileno(), request, deadline)
            process.stdin.close()
        except (Deadline, OSError):
            pass  # it stopped reading: what it says (or not) tells why
        line = channel.read_line(deadline)
    except Deadline:
        line = Deadline()
    finally:
        channel.close()
        kill_group(process)
        process.stdin.close()
        process.stdout.close()
    if isinstance(line, Deadline):
        raise BotLoadError(over_time_message(WALL_LIMIT_S) + " (wall clock)", None)
    if isinstance(line, LineTooLong):
        raise BotLoadError("its Python 2 conversion's result is too long", None)
    if line is None:
        if process.returncode in (-signal.SIGXCPU, -signal.SIGKILL):  # its CPU limit: soft, hard
            raise BotLoadError(over_time_message(), None)
        raise BotLoadError(f"its Python 2 conversion failed (the converter exited with {process.returncode})",
                           None)
    try:
        reply = json.loads(line)
    except ValueError:
        raise BotLoadError("its Python 2 conversion's result was not readable", None) from None
    return conversion_from_reply(source, reply)


def conversion_from_reply(source: str, reply: Any) -> Conversion:
    """A conversion process's (or Worker's) reply checked: a ``Conversion``, or the
    ``BotLoadError`` it reports."""
    if not isinstance(reply, dict):
        raise BotLoadError("its Python 2 conversion's result was not readable", None)
    if "error" in reply:
        error, line = reply.get("error"), reply.get("line")
        message = error[:2000] if isinstance(error, str) else "its Python 2 conversion failed"
        return_line = line if type(line) is int and line > 0 else None
        raise BotLoadError(message, return_line)
    converted, lines, true_division = reply.get("converted"), reply.get("lines"), reply.get("true_division")
    if (not isinstance(converted, str) or not isinstance(lines, list) or type(true_division) is not bool
            or len(lines) != len(converted.splitlines())
            or not all(type(n) is int and n > 0 for n in lines)):
        raise BotLoadError("its Python 2 conversion's result was not readable", None)
    return Conversion(source, converted, tuple(lines), true_division)


if __name__ == "__main__":
    main()
