"""Bounded reading from a bot's pipes (engine/bots/pipes.py): what a flood leaves behind."""

from __future__ import annotations

import os
import subprocess
import threading
import time

import pytest

from engine.bots.pipes import BoundedBytes, Deadline, LineChannel, LineTooLong, collect


@pytest.fixture
def pipe():
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb", buffering=0)
    yield reader, write_fd
    reader.close()
    try:
        os.close(write_fd)
    except OSError:
        pass


def test_lines_come_back_whole_and_bad_utf8_is_just_bytes(pipe):
    reader, write_fd = pipe
    channel = LineChannel(reader, 100)
    os.write(write_fd, b"one\n\xff\xfe\ntw")
    deadline = time.perf_counter() + 5
    assert channel.read_line(deadline) == b"one"
    assert channel.read_line(deadline) == b"\xff\xfe"
    os.write(write_fd, b"o\n")
    assert channel.read_line(deadline) == b"two"


def test_a_line_past_the_bound_is_reported_and_the_rest_of_it_dropped(pipe):
    reader, write_fd = pipe

    def flood():  # 20 MB without a newline, then a short line
        for _ in range(20):
            os.write(write_fd, b"x" * (1 << 20))
        os.write(write_fd, b"\nafter\n")

    writer = threading.Thread(target=flood)
    writer.start()
    channel = LineChannel(reader, 1000)
    deadline = time.perf_counter() + 30
    first = channel.read_line(deadline)
    assert isinstance(first, LineTooLong) and first.size > 1000
    assert channel.read_line(deadline) == b"after"  # the flood's tail never reached a line
    assert len(channel.buffer) < 1 << 17
    writer.join()


def test_a_silent_pipe_raises_deadline_and_eof_is_none(pipe):
    reader, write_fd = pipe
    channel = LineChannel(reader, 100)
    with pytest.raises(Deadline):
        channel.read_line(time.perf_counter() + 0.05)
    os.write(write_fd, b"last words")
    os.close(write_fd)
    assert channel.read_line(time.perf_counter() + 5) == b"last words"
    assert channel.read_line(time.perf_counter() + 5) is None


def test_bounded_bytes_keeps_head_and_tail_and_counts_the_cut():
    kept = BoundedBytes(head=10, tail=5)
    for _ in range(1000):
        kept.add(b"abcdefghij")
    text = kept.take()
    assert text.startswith("abcdefghij") and text.endswith("fghij")
    assert "[... 9985 characters cut ...]" in text
    assert kept.take() == ""


def test_collect_keeps_a_bounded_part_of_a_flood_and_the_last_line():
    process = subprocess.Popen(["sh", "-c", "head -c 30000000 /dev/zero | tr '\\0' o; "
                                "head -c 30000000 /dev/zero | tr '\\0' e >&2; echo; echo answer"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    done = collect(process, b"input\n", time.perf_counter() + 60)
    assert not done.timed_out and done.returncode == 0
    out, err = done.stdout.text(), done.stderr.text()
    assert out.splitlines()[-1] == "answer" and len(out) < 30_000
    assert "characters cut" in err and len(err) < 30_000
