"""Hostile Stack Exchange answers: each is read in time linear in its size, and one answer
that cannot become an entry is a problem with its reason while the others import.

The attack: an answer whose header is ``"(" * N + ", x"`` made the header's language
pattern backtrack (120 KB took 53 s; the page's import gave up at 60 s with no answer).
``html.parser`` had its own quadratic inputs (80 KB of ``<!--`` took 6 s on CPython 3.11)
and raised on a numeric reference of 5,000 digits, which ended the whole import. Time
bounds are 10x or more what these take (measured on 2 cores: 1 MB of ``"("`` header
well under 0.01 s; the slowest 1 MB body below, 1.5 s at load 5 and 4.2 s at load 10).
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from engine.contest import answer_html, stackexchange
from engine.contest.answer_header import name_and_language
from engine.contest.stackexchange import AnswerProblem, ImportedEntry, entries_from_answers, entry_from_answer

DATA = Path(__file__).resolve().parents[1] / "data" / "se"
MB = 1_000_000
CODE = "<pre class='lang-py'><code>def move(view):\n    return 0\n</code></pre>"


def recorded_items() -> list:
    return [item for name in ("answers_page1.json", "answers_page2.json")
            for item in json.loads((DATA / name).read_text())["items"]]


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def answer(body: str, answer_id: int = 1) -> dict:
    return {"answer_id": answer_id, "body": body, "owner": {"display_name": "Mallory"}}


def fill(unit: str, size: int, prefix: str = "", suffix: str = "") -> str:
    return prefix + unit * ((size - len(prefix) - len(suffix)) // len(unit)) + suffix


# Headers that made a pattern backtrack, or would make a naive rewrite quadratic.
HOSTILE_HEADERS = {
    "open parens, comma": lambda n: "(" * n + ", x",
    "open parens only": lambda n: "(" * n,
    "open parens, close at the end": lambda n: "x " + "(" * n + ")",
    "open-paren words": lambda n: "(x" * (n // 2) + ", Python 3",
    "python and dashes": lambda n: "python" + " -" * (n // 2) + " 2",
    "python and versions": lambda n: "python 3" + ".1" * (n // 2) + "x",
    "separators": lambda n: " - " * (n // 3) + "Java 11",
    "commas": lambda n: "a, " * (n // 3),
    "closing parens": lambda n: "x (" + ")" * n,
    "java and spaces": lambda n: "java" + " " * n + "x",
}


@pytest.mark.parametrize("size", [120_000, MB])
@pytest.mark.parametrize("kind", sorted(HOSTILE_HEADERS))
def test_a_hostile_header_is_read_in_linear_time(kind, size):
    header = HOSTILE_HEADERS[kind](size)
    # The header alone, whatever its length (the body reader cuts headers: see below).
    (name, _), seconds = timed(name_and_language, header)
    assert seconds < 2, f"{kind}: {len(header):,} characters took {seconds:.1f} s"
    assert name
    # And as an answer (within the body limit): named after its header, cut to a name's length.
    body = f"<h1>{HOSTILE_HEADERS[kind](min(size, stackexchange.MAX_BODY_CHARS - 200))}</h1>{CODE}"
    result, seconds = timed(entry_from_answer, answer(body))
    assert seconds < 2, f"{kind}: a {len(body):,}-character answer took {seconds:.1f} s"
    assert isinstance(result, (ImportedEntry, AnswerProblem)) and 0 < len(result.name) <= 100


def test_the_reported_header_is_an_entry_named_after_it():
    result = entry_from_answer(answer(f"<h1>{'(' * 120_000}, x</h1>{CODE}"))
    assert isinstance(result, ImportedEntry)
    assert result.name == "(" * 100 and result.language == "python3"  # the code block's hint


# Bodies that cost html.parser quadratic time, or raised in it, or are the reader's own worst
# cases (a Python step per few characters); each about 1 MB, just under the body limit.
SLOW_BODY_SECONDS = 30
HOSTILE_BODIES = {
    "comments that never close": lambda n: fill("<!--", n),
    "tags that never close": lambda n: fill("<a", n),
    "declarations": lambda n: fill("<!", n) + "<h1>x</h1>" + CODE,
    "processing instructions": lambda n: fill("<?", n),
    "CDATA openings": lambda n: fill("<![CDATA[", n),
    "end-tag openings": lambda n: fill("</", n),
    "lone less-thans": lambda n: fill("<", n),
    "empty tags": lambda n: fill("<a>", n),
    "headers in headers": lambda n: fill("<h1>", n),
    "breaks in code": lambda n: fill("<br>", n, "<h1>x</h1><pre><code>", "</code></pre>"),
    "attributes": lambda n: fill("b ", n, "<pre ", "><code>x</code></pre>"),
    "quoted attributes": lambda n: fill("a='b' ", n, "<pre ", "><code>x</code></pre>"),
    "a quote that never closes": lambda n: fill("x", n, "<pre class='"),
    "ampersands": lambda n: fill("&", n, "<pre><code>"),
    "named-looking references": lambda n: fill("&x", n, "<pre><code>"),
    "long named-looking references": lambda n: fill("&" + "x" * 40, n, "<pre><code>"),
    "numeric references": lambda n: fill("&#1", n, "<pre><code>"),
    "ampersands in a header": lambda n: fill("&", n, "<h1>"),
    "a 1 MB numeric reference": lambda n: fill("1", n, "<h1>&#", ";</h1>" + CODE),
    "a 1 MB hex reference of zeros": lambda n: fill("0", n, "<h1>&#x", "41;</h1>" + CODE),
    "references in code": lambda n: fill("&lt;", n, "<pre><code>", "</code></pre>"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_BODIES))
def test_a_hostile_body_is_read_in_linear_time(kind):
    body = HOSTILE_BODIES[kind](stackexchange.MAX_BODY_CHARS - 1_000)
    assert len(body) <= stackexchange.MAX_BODY_CHARS
    result, seconds = timed(entry_from_answer, answer(body))
    assert seconds < SLOW_BODY_SECONDS, f"{kind}: {len(body):,} characters took {seconds:.1f} s"
    assert isinstance(result, (ImportedEntry, AnswerProblem))


def test_references_too_long_for_an_int_decode_to_the_replacement_character():
    # html.unescape raises ValueError past 4,300 digits: that ended the whole import.
    code = f"<pre><code>x = '&#{'1' * 5_000};' + '&#x{'0' * 5_000}41;'</code></pre>"
    result = entry_from_answer(answer(f"<h1>Bot &#{'1' * 900}; two</h1>{code}"))
    assert isinstance(result, ImportedEntry) and result.name == "Bot \ufffd two"
    assert result.code == "x = '\ufffd' + 'A'\n"
    # A header is cut before its references are decoded (at 1,000 characters as written).
    result = entry_from_answer(answer(f"<h1>&#x{'0' * 900}42;, Python 3</h1>{CODE}"))
    assert (result.name, result.language) == ("B", "python3")
    result = entry_from_answer(answer(f"<h1>&#x{'0' * 5_000}41;, Python 3</h1>{CODE}"))
    assert isinstance(result, ImportedEntry) and result.name == "\ufffd"  # "&#x000…" is U+0000


def test_a_hostile_display_name_is_cut_and_read():
    item = answer(f"<h1>Bot</h1>{CODE}")
    for display_name, author in (("&#" + "9" * 10_000 + ";" + "x" * MB, "\ufffd"),
                                 ("&#99999999;" + "x" * MB, "\ufffd" + "x" * 99)):
        item["owner"] = {"display_name": display_name}
        result, seconds = timed(entry_from_answer, item)
        assert seconds < 2 and isinstance(result, ImportedEntry)
        assert result.author == author


def hostile_page() -> tuple[list, list]:
    """The recorded answers with hostile ones between them; the recorded ones' results alone."""
    items = recorded_items()
    hostile = [
        answer(f"<h1>{'(' * 120_000}, x</h1>{CODE}", 900_001),
        answer(f"<h1>{'(' * MB}, x</h1>{CODE}", 900_002),  # over the body limit: too big
        answer(fill("<!--", 900_000), 900_003),
        answer(f"<h1>&#{'1' * 5_000};</h1>{CODE}", 900_004),
        answer(fill("x<br>", 600_000, "<h1>Breaks</h1><pre><code>", "</code></pre>"), 900_005),
    ]
    page = items[:2] + hostile[:3] + items[2:4] + hostile[3:] + items[4:]
    return page, items


def test_hostile_answers_among_others_leave_the_others_importing():
    page, items = hostile_page()
    want_entries, want_problems = entries_from_answers(items)
    (entries, problems), seconds = timed(entries_from_answers, page)
    assert seconds < 30, f"{len(page)} answers took {seconds:.1f} s"
    assert [e for e in entries if e.answer_id < 900_000] == want_entries
    assert [p for p in problems if (p.answer_id or 0) < 900_000] == want_problems
    by_id = {r.answer_id: r for r in entries + problems}
    assert by_id[900_001].name == "(" * 100
    too_big = by_id[900_002]
    assert isinstance(too_big, AnswerProblem) and too_big.kind == "too-big"
    assert "more than 1,000,000" in too_big.reason
    assert by_id[900_003].kind == "no-code" and by_id[900_003].reason == "the answer has no code block"
    assert by_id[900_004].name == "\ufffd"
    assert by_id[900_005].code.count("x\n") > 100_000


def test_an_answer_that_fails_to_read_is_its_problem_and_the_rest_import(monkeypatch):
    items = recorded_items()
    want_entries, want_problems = entries_from_answers(items)
    real = answer_html.read_answer

    def failing(body: str):
        if "poison" in body:
            raise MemoryError("the reader ran out of memory")
        return real(body)

    monkeypatch.setattr(stackexchange, "read_answer", failing)
    page = items[:3] + [answer("<h1>poison</h1>", 900_009)] + items[3:]
    entries, problems = entries_from_answers(page)
    assert entries == want_entries
    bad = [p for p in problems if p.answer_id == 900_009]
    assert [p.kind for p in bad] == ["malformed"]
    assert bad[0].reason == "the answer could not be read (MemoryError: the reader ran out of memory)"
    assert [p for p in problems if p.answer_id != 900_009] == want_problems


def test_answers_past_the_time_limit_are_listed_not_read():
    items = recorded_items()
    entries, problems = entries_from_answers(items, time_limit=0)
    assert entries == []
    assert [p.kind for p in problems] == ["out-of-time"] * len(items)
    assert problems[0].reason == "not read: reading the answers before it took the import's 0 s"
    assert [p.answer_id for p in problems] == [i["answer_id"] for i in items]
    assert stackexchange.TIME_LIMIT_S <= 30  # inside the page's 60 s wait (web/src/se_import.js)


def test_the_page_reads_a_hostile_page_of_answers(monkeypatch):
    """web/main.py's se_parse, as the controller Worker calls it: the recorded entries come
    back beside the hostile answers' problems, never one error for the whole import."""
    import importlib.util
    import sys
    import types

    monkeypatch.setitem(sys.modules, "arena_bridge", types.ModuleType("arena_bridge"))  # not called here
    spec = importlib.util.spec_from_file_location(
        "koth_web_main_for_answer_tests", Path(__file__).resolve().parents[2] / "web" / "main.py")
    main = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(main)
    page, items = hostile_page()
    out, seconds = timed(main.se_parse, json.dumps(page), "codegolf")
    assert seconds < 30
    reply = json.loads(out)
    assert "error" not in reply
    names = [e["name"] for e in reply["entries"]]
    assert ["Edgebot", "Greedy Gus", "Corner Camper", "Passer"] == [n for n in names if n[0] != "("
                                                                     and n not in ("\ufffd", "Breaks")]
    assert {"too-big", "no-code", "native-only"} <= {p["kind"] for p in reply["problems"]}
