"""The one reply checker (engine/bots/reply.py), fed what a hostile bot host could send.

Every bad line must come back as a ``ReplyError`` (decoding) or a ``BotAnswer`` with a
clear error (checking), never as another exception or a huge value.
"""

from __future__ import annotations

import json

import pytest

from engine.bots.answer import BotAnswer, cap_text
from engine.bots.reply import (
    MALFORMED,
    MAX_ERROR_CHARS,
    MAX_NESTING,
    MAX_OUTPUT_CHARS,
    MAX_REPLY_BYTES,
    ReplyError,
    answer_from_reply,
    decode_reply_line,
)


# -- decode_reply_line ---------------------------------------------------------------------------
def test_a_good_line_decodes_as_bytes_and_as_text():
    reply = {"id": 3, "answer": "1 y", "error": None, "line": None, "stdout": "hé\n", "stderr": ""}
    line = json.dumps(reply, ensure_ascii=False)
    assert decode_reply_line(line.encode("utf-8")) == reply
    assert decode_reply_line(line) == reply
    assert decode_reply_line(line + "\n") == reply


@pytest.mark.parametrize("raw", [b"[" * 200_000, "[" * 200_000, b"{\"a\":" * 100_000])
def test_deep_nesting_is_refused_before_the_parser(raw):
    with pytest.raises(ReplyError, match="nests .* levels deep"):
        decode_reply_line(raw)


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"answer": "[" * 5000, "stdout": '"]{' * 100 + '\\"[[[['})
    assert decode_reply_line(text)["answer"] == "[" * 5000


def test_nesting_up_to_the_bound_is_accepted():
    text = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert decode_reply_line(text) is not None
    with pytest.raises(ReplyError):
        decode_reply_line("[" + text + "]")


def test_escaped_quotes_that_never_close_are_scanned_in_linear_time():
    # Each \" is an escaped quote: a naive "string or bracket" regex would restart at every one.
    raw = '"' + '\\"' * 200_000 + "[" * 100
    with pytest.raises(ReplyError, match="not JSON"):
        decode_reply_line(raw)


@pytest.mark.parametrize("raw, message", [
    (b"\xff\xfe{}", "not valid UTF-8 \\(byte 0\\)"),
    (b'{"answer": "\xc3"}', "not valid UTF-8 \\(byte 12\\)"),
    (b"not json", "not JSON"),
    (b"", "not JSON"),
    (b'{"answer": 1', "not JSON"),
    (b"1" * 5000, "not JSON"),  # past Python's int digit limit: a ValueError, caught
    (12, "not a line of text"),
])
def test_undecodable_lines_are_reply_errors(raw, message):
    with pytest.raises(ReplyError, match=message):
        decode_reply_line(raw)


def test_a_line_over_the_length_bound_is_refused_without_parsing():
    raw = b'{"answer": "' + b"x" * MAX_REPLY_BYTES + b'"}'
    with pytest.raises(ReplyError, match="longer than"):
        decode_reply_line(raw)


def test_reply_error_is_a_value_error():
    assert issubclass(ReplyError, ValueError)


# -- answer_from_reply ---------------------------------------------------------------------------
def test_a_good_reply_becomes_its_answer():
    got = answer_from_reply({"id": 1, "answer": "2", "error": None, "line": None,
                             "stdout": "out", "stderr": "err", "ok": True})
    assert got == BotAnswer("2", None, None, "out", "err")


def test_absent_fields_are_empty():
    assert answer_from_reply({}) == BotAnswer()
    assert answer_from_reply({"error": "boom", "line": 7}) == BotAnswer(None, "boom", 7)


@pytest.mark.parametrize("data, problem", [
    ([], "expected an object, got a list"),
    ("1", "expected an object, got a string"),
    (None, "expected an object, got null"),
    ({"answer": 3}, "'answer' is a number, not a string"),
    ({"answer": ["1"]}, "'answer' is a list, not a string"),
    ({"error": {"x": 1}}, "'error' is an object, not a string"),
    ({"stdout": 5}, "'stdout' is a number, not a string"),
    ({"stderr": False}, "'stderr' is a boolean, not a string"),
    ({"line": True}, "'line' is a boolean, not an integer"),
    ({"line": "3"}, "'line' is a string, not an integer"),
    ({"line": 2.5}, "'line' is a number, not an integer"),
    ({"line": -1}, "'line' is out of range"),
    ({"line": 10**30}, "'line' is out of range"),
])
def test_wrong_shapes_and_types_are_faults_with_a_clear_message(data, problem):
    got = answer_from_reply(data)
    assert got.answer is None and got.stdout == "" and got.stderr == ""
    assert got.error.startswith(MALFORMED + ": ")
    assert problem in got.error


def test_text_fields_are_capped_and_say_how_much_was_cut():
    huge = "e" * 5_000_000
    got = answer_from_reply({"error": huge, "stdout": "o" * 100_000 + "END", "answer": "1" * 50_000})
    assert len(got.error) < MAX_ERROR_CHARS + 100
    assert f"[... {5_000_000 - MAX_ERROR_CHARS} characters cut ...]" in got.error
    assert len(got.stdout) < MAX_OUTPUT_CHARS + 100 and got.stdout.endswith("END")
    assert "characters cut" in got.answer and len(got.answer) < 1_100


def test_lone_surrogates_become_printable():
    got = answer_from_reply(json.loads('{"stdout": "a\\ud800b", "answer": "\\udfff"}'))
    assert got.stdout == "a?b" and got.answer == "?"
    got.stdout.encode("utf-8")  # writable to any UTF-8 console or file


def test_an_honest_capture_passes_unchanged():
    from engine.bots.runners import Capture

    capture = Capture()
    capture.write("x" * 100_000 + "\nlast line\n")
    text = capture.take()
    assert "characters cut" in text
    assert answer_from_reply({"stdout": text}).stdout == text


def test_cap_text_keeps_short_text_and_both_ends_of_long_text():
    assert cap_text("abc", 3) == "abc"
    capped = cap_text("a" * 50 + "b" * 50, 20)
    assert capped.startswith("a" * 18) and capped.endswith("bb")
    assert "[... 80 characters cut ...]" in capped
