"""Entries from a Stack Exchange question's answers (engine/contest/stackexchange.py), read from
recorded API responses (tests/data/se/: two pages of /2.3/questions/{id}/answers with
filter=withbody, as the API sends them, and a throttle error)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.contest.challenge import LANGUAGES, load_challenge
from engine.contest.stackexchange import (
    AnswerProblem,
    ImportedEntry,
    QuestionRefError,
    entries_from_answers,
    entry_from_answer,
    parse_question_ref,
)

DATA = Path(__file__).parent / "data" / "se"


def recorded(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def all_items() -> list:
    return recorded("answers_page1.json")["items"] + recorded("answers_page2.json")["items"]


def test_question_from_number_or_url():
    assert parse_question_ref("262108").question_id == 262108
    assert parse_question_ref(" 262108 ").site == "codegolf"
    ref = parse_question_ref("https://codegolf.stackexchange.com/questions/262108/flit-koth")
    assert (ref.site, ref.question_id) == ("codegolf", 262108)
    assert parse_question_ref("codegolf.stackexchange.com/q/262108").question_id == 262108
    assert parse_question_ref("https://stackoverflow.com/questions/11/x").site == "stackoverflow"
    assert parse_question_ref("5", site="Puzzling").site == "puzzling"
    url = parse_question_ref("262108").answers_url(page=2)
    assert url.startswith("https://api.stackexchange.com/2.3/questions/262108/answers?site=codegolf")
    assert "filter=withbody" in url and "page=2" in url and "pagesize=100" in url


@pytest.mark.parametrize("text", ["", "abc", "https://example.org/questions/5", "https://codegolf.stackexchange.com/users/5",
                                  "https://codegolf.stackexchange.com/questions/x", "0"])
def test_not_a_question(text):
    with pytest.raises(QuestionRefError):
        parse_question_ref(text)


def test_bad_site_name():
    with pytest.raises(QuestionRefError, match="not a Stack Exchange site name"):
        parse_question_ref("5", site="code golf")


def test_recorded_answers_become_entries_and_problems():
    entries, problems = entries_from_answers(all_items())
    names = ["Greedy Gus", "Corner Camper", "Passer"]
    assert [e.name for e in entries] == ["Edgebot", *names]
    assert [e.language for e in entries] == ["python2"] + ["python3"] * 3
    assert [e.author for e in entries][-3:] == ["Ann O'Nym", "Cam Per", "user262131"]
    assert entries[-3].link == "https://codegolf.stackexchange.com/a/262113"
    kinds = [(p.kind, p.name) for p in problems]
    assert kinds == [("native-only", "Rook"), ("no-code", "Talker")]
    rook, talker = problems[-2:]
    assert rook.language == "Java" and "Python answers only" in rook.reason
    assert talker.reason == "the answer has no code block"
    edge = entries[0]
    assert (edge.language, edge.author) == ("python2", "Jörg Hülsermann")
    assert edge.link == "https://codegolf.stackexchange.com/a/262110"


def test_code_is_the_first_block_with_entities_decoded():
    edge_item = dict(all_items()[0])
    edge_item["body"] = edge_item["body"].replace("Python 2, Edgebot", "Python 3, Edgebot")
    edge = entry_from_answer(edge_item).code
    assert 'if line != "M":' in edge and "d[0] < size and d[1] >= 0" in edge
    assert "'x == 0 or y == 0' & keep" in edge and "&amp;" not in edge and "&lt;" not in edge
    gus = entry_from_answer(all_items()[1]).code
    assert gus.startswith("def move(view):\n") and "$ python -m engine" not in gus  # not the 2nd block
    compile(gus, "gus.py", "exec")


def test_entries_are_valid_challenge_entries():
    entries, _ = entries_from_answers(all_items())
    challenge = {"format": "koth-arena-challenge", "version": 1, "title": "From the question",
                 "description": "", "game": "flit", "settings": {}, "games": 2, "seed": 1,
                 "entries": [e.to_json() for e in entries if e.language == "python3"]}
    loaded = load_challenge(json.dumps(challenge))
    assert [e.name for e in loaded.entries] == ["Greedy Gus", "Corner Camper", "Passer"]
    assert loaded.entries[0].link == "https://codegolf.stackexchange.com/a/262113"


@pytest.mark.parametrize("header, name, language", [
    ("Python 2, Edgebot", "Edgebot", "python2"),
    ("Python 2.7, Edge Bot", "Edge Bot", "python2"),
    ("Edgebot, Python 3", "Edgebot", "python3"),
    ("Edgebot - Python", "Edgebot", "python3"),
    ("Corner Camper (Python 3)", "Corner Camper", "python3"),
    ("C++, Crusher", "Crusher", "C++"),
    ("Crusher, Java 11", "Crusher", "Java 11"),
    ("The Bot, the Myth", "The Bot, the Myth", "python3"),  # no language: the code block's hint
])
def test_header_forms(header, name, language):
    body = f"<h1>{header}</h1><pre class='lang-py'><code>def move(view):\n    return 0\n</code></pre>"
    result = entry_from_answer({"answer_id": 7, "body": body, "owner": {"display_name": "x"}})
    assert (result.name, result.language) == (name, language)
    assert isinstance(result, ImportedEntry) == (language in LANGUAGES)


def test_no_header_named_after_the_author():
    result = entry_from_answer({"answer_id": 9, "body": "<p>Mine:</p><pre><code>print(0)</code></pre>",
                                "owner": {"display_name": "Zed"}})
    assert isinstance(result, ImportedEntry)
    assert (result.name, result.code, result.language) == ("Zed's bot", "print(0)\n", "python3")


@pytest.mark.parametrize("item, kind", [
    ("not an object", "malformed"),
    ({"answer_id": 1, "owner": {"display_name": "a"}}, "malformed"),  # default filter: no body
    ({"answer_id": 1, "body": "<h1>Empty</h1><pre><code>   \n</code></pre>"}, "no-code"),
    ({"answer_id": 1, "body": "<h1>Big</h1><pre><code>" + "x" * (300 * 1024) + "</code></pre>"}, "too-big"),
])
def test_bad_answers_are_problems_not_failures(item, kind):
    result = entry_from_answer(item)
    assert isinstance(result, AnswerProblem) and result.kind == kind


def test_items_must_be_a_list():
    with pytest.raises(ValueError):
        entries_from_answers({"items": []})


def test_recorded_responses_have_the_api_shape():
    names = ("answers_page1.json", "answers_page2.json", "error_throttle.json")
    page1, page2, error = (recorded(n) for n in names)
    assert page1["has_more"] is True and page2["has_more"] is False and page1["backoff"] == 1
    assert page1["quota_remaining"] > page2["quota_remaining"]
    assert error["error_name"] == "throttle_violation" and isinstance(error["error_id"], int)
