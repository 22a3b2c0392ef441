"""``python -m engine tournament --question``: a question's answers read from a local server
shaped like the Stack Exchange API (gzip, pages, backoff, quota, errors), built when they
are not Python (``--commands``), and played with the challenge file's fixed entries; every
answer that cannot play is listed with its reason."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from se_api_server import DATA, ROOT, FakeAPI, sandbox_or_skip, tournament_cli

from engine.bots.sandbox import Unsandboxed
from engine.contest.build_cache import BuildError, build
from engine.contest.challenge import ChallengeError, challenge_json, load_challenge
from engine.contest.command_entries import CommandsError, parse_commands
from engine.contest.se_fetch import FetchError, fetch_answers
from engine.contest.stackexchange import MAX_BODY_CHARS, QuestionRef

QUESTION = 900001
HAS_GCC = shutil.which("gcc") is not None

CHALLENGE = {
    "format": "koth-arena-challenge", "version": 2, "title": "Flit, from the question",
    "description": "The examples and the answers.", "game": "flit", "preset": "trial",
    "settings": {"time_limit_ms": 5000}, "games": 2, "seed": 3, "secret": "Q",
    "question": {"site": "codegolf", "id": QUESTION},
    "entries": [{"name": "greedy", "code": "builtin:greedy"}],
}


class QuestionAPI(FakeAPI):
    """``/2.3/questions/{id}/answers`` from the recorded pages, gzipped like the real API.
    ``mode``: "" (the pages), "huge" (a hostile answer of more than 1 MB on page 2), "quota"
    (page 1 spends the quota), "throttle" (an error object, HTTP 400), "bomb" (a gzip body
    that inflates past the size cap)."""

    def __init__(self) -> None:
        self.mode = ""
        super().__init__(self.pages)

    def pages(self, path: str, query: dict) -> tuple[int, bytes]:
        if self.mode == "throttle":
            return 400, (DATA / "error_throttle.json").read_bytes()
        if self.mode == "bomb":
            return 200, b'{"items": [' + b" " * (9 << 20) + b"]}"
        if path != f"/2.3/questions/{QUESTION}/answers" or query.get("filter") != "withbody":
            return 404, b'{"error_id": 404, "error_name": "no_method", "error_message": "no such method"}'
        data = json.loads((DATA / f"q{QUESTION}_page{query.get('page', '1')}.json").read_text())
        if self.mode == "quota":
            data["quota_remaining"] = 0
        if self.mode == "huge" and query.get("page") == "2":
            data["items"].append({"answer_id": 900199, "owner": {"display_name": "Huge"},
                                  "body": "<h1>Python 3, Huge</h1><pre><code>" + "#" * MAX_BODY_CHARS})
        return 200, json.dumps(data).encode("utf-8")


@pytest.fixture
def api():
    server = QuestionAPI()
    yield server
    server.close()


# -- the API --------------------------------------------------------------------------------------

def test_pages_are_followed_with_the_backoff_honoured(api):
    waits: list[float] = []
    got = fetch_answers(QuestionRef("codegolf", QUESTION), api.url, sleep=waits.append)
    assert [i["answer_id"] for i in got.items] == [900101, 900102, 900103, 900104, 900105, 900106, 900107]
    assert [r["page"] for r in api.requests] == ["1", "2"]
    assert all(r["site"] == "codegolf" and r["pagesize"] == "100" for r in api.requests)
    assert waits == [1.0]  # page 1 said "backoff": 1, so the sleeper waited before page 2
    assert got.quota_remaining == 119 and got.note is None


@pytest.mark.parametrize("mode,message", [
    ("quota", "daily quota for this address is used up after page 1"),
    ("throttle", "refuses more requests from this address (throttle_violation: too many requests"),
    ("bomb", "more than 8 MB for one page of answers (ungzipped)"),
])
def test_api_refusals_are_one_line(api, mode, message):
    api.mode = mode
    with pytest.raises(FetchError) as caught:
        fetch_answers(QuestionRef("codegolf", QUESTION), api.url, sleep=lambda s: None)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert len(api.requests) == 1  # nothing asked after a refusal


def test_the_server_down_is_one_line_and_exit_2(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps({**CHALLENGE, "question": None}))  # the question from the command line
    done = tournament_cli("--challenge", path, "--question", "https://codegolf.stackexchange.com/q/900001",
                          "--se-api", f"http://127.0.0.1:{port}", "--json", timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: could not reach 127.0.0.1: ")
    assert "use --se-api or check your connection" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# -- the challenge file and the commands file --------------------------------------------------

def test_question_and_command_entries_round_trip_as_version_2():
    data = {**CHALLENGE, "entries": [*CHALLENGE["entries"],
                                     {"name": "sitter", "code": "int main(){}\n", "language": "C"}]}
    challenge = load_challenge(json.dumps(data))
    assert challenge.question.site == "codegolf" and challenge.question.id == QUESTION
    assert json.loads(challenge_json(challenge)) == data
    assert [e.name for e in challenge.tournament_entries()] == ["greedy"]  # C needs --commands
    assert [e.name for e in challenge.command_entries()] == ["sitter"]
    plain = {**CHALLENGE, "version": 1, "entries": CHALLENGE["entries"]}
    del plain["question"]
    assert json.loads(challenge_json(load_challenge(json.dumps(plain))))["version"] == 1  # as before
    with pytest.raises(ChallengeError, match="question needs version 2"):
        load_challenge(json.dumps({**CHALLENGE, "version": 1}))
    with pytest.raises(ChallengeError, match="question.site must be a Stack Exchange site name"):
        load_challenge(json.dumps({**CHALLENGE, "question": {"site": "../x", "id": 1}}))


def test_commands_match_languages_as_answers_write_them():
    commands = parse_commands({"C": {"run": "{dir}/bot"}, "C ++": {"run": "{dir}/b", "memory_mb": 4096},
                               "JavaScript": {"run": "node {file}"}, "900105": {"run": "bf {file}"}})
    assert commands.find("c").key == "C"
    assert commands.find("c++17").key == "C ++" and commands.find("C++").limits.memory_mb == 4096
    assert commands.find("JavaScript (Node.js)").key == "JavaScript"
    assert commands.find("Brainfuck", 900105).key == "900105"
    assert commands.find("Brainfuck") is None and commands.find("Cobol") is None  # never guessed
    for bad, message in [({"C": {"build": "x"}}, "'run' is missing"),
                         ({"C": {"run": "x", "file": "../bot.c"}}, "plain file name"),
                         ({"C": {"run": "x", "memory_mb": 0}}, "memory_mb must be a whole number"),
                         ({"C": {"run": "x"}, " c ": {"run": "y"}}, "given twice")]:
        with pytest.raises(CommandsError, match=message):
            parse_commands(bad)


@pytest.mark.skipif(not HAS_GCC, reason="gcc is not installed")
def test_a_build_runs_sandboxed_once_per_revision(tmp_path):
    sandbox = sandbox_or_skip()
    command = parse_commands({"C": {"build": "gcc -O2 -o {dir}/bot {file} && echo hi > /tmp/outside",
                                    "run": "{dir}/bot"}}).find("C")
    code = '#include <stdio.h>\nint main(void) { puts("0 0 0 0"); return 0; }\n'
    first = build(code, "C", command, tmp_path, sandbox)
    assert not first.cached and (first.folder / "bot").is_file() and (first.folder / "bot.c").is_file()
    assert subprocess.run([first.folder / "bot"], capture_output=True, text=True).stdout == "0 0 0 0\n"
    assert not Path("/tmp/outside").exists() or Path("/tmp/outside").read_text() != "hi\n"
    assert build(code, "C", command, tmp_path, sandbox) == type(first)(first.folder, first.source, True)
    edited = build(code.replace("0 0 0 0", "1 1 1 1"), "C", command, tmp_path, sandbox)
    assert not edited.cached and edited.folder != first.folder
    with pytest.raises(BuildError) as caught:
        build("int main(void) { this is not C; }\n", "C", command, tmp_path, sandbox)
    assert "the build failed (exit status 1): " in str(caught.value) and "error" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.folder.name, edited.folder.name])


def test_without_the_sandbox_a_build_runs_in_its_cache_folder(tmp_path):
    command = parse_commands({"sh": {"build": "cp {file} {dir}/run.sh && false", "run": "sh {dir}/run.sh"},
                              "sh2": {"build": "cp {file} {dir}/run.sh", "run": "sh {dir}/run.sh"}})
    with pytest.raises(BuildError, match="exit status 1"):
        build("echo 0 0 0 0\n", "sh", command.find("sh"), tmp_path, Unsandboxed())
    built = build("echo 0 0 0 0\n", "sh", command.find("sh2"), tmp_path, Unsandboxed())
    assert (built.folder / "run.sh").read_text() == "echo 0 0 0 0\n"
    assert built.run_command(command.find("sh2")) == f"sh {built.folder}/run.sh"


def test_a_build_is_held_to_its_disk_quota(tmp_path):
    sandbox = sandbox_or_skip()
    command = parse_commands({"sh": {"build": "head -c 3000000 /dev/zero > {dir}/big", "run": "sh {file}",
                                     "tmp_mb": 2}}).find("sh")
    with pytest.raises(BuildError, match="over the 2 MB disk quota|No space left"):
        build("echo 0 0 0 0\n", "sh", command, tmp_path, sandbox)
    assert list(tmp_path.iterdir()) == []  # nothing of it kept


# -- end to end -------------------------------------------------------------------------------------

def test_a_question_plays_with_the_challenges_examples(api, tmp_path):
    sandbox_or_skip()
    api.mode = "huge"
    path = tmp_path / "challenge.json"
    path.write_text(json.dumps(CHALLENGE))
    commands = {"bash": {"run": "sh {file}"}}
    if HAS_GCC:
        commands["C"] = {"build": "gcc -O2 -o {dir}/bot {file}", "run": "{dir}/bot", "memory_mb": 2048}
    (tmp_path / "cmds.json").write_text(json.dumps(commands))
    done = tournament_cli("--challenge", path, "--se-api", api.url, "--commands", tmp_path / "cmds.json",
                          "--cache", tmp_path / "cache", "--budget", 1_000_000, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    played = ["greedy", "Mover", "Edgebot", *(["Sitter"] if HAS_GCC else []), "Shy"]
    assert sorted(out["entries"]) == sorted(played)
    assert {row["name"] for row in out["standings"]} == set(played)
    skipped = {s["name"]: s for s in out["skipped"]}
    assert skipped["Loop"]["kind"] == "no-command" and "Brainfuck" in skipped["Loop"]["reason"]
    assert skipped["Unclosed"]["kind"] == "no-code"
    assert skipped[None]["kind"] == "too-big" and skipped[None]["answer_id"] == 900199
    if HAS_GCC:
        assert skipped["Broken"]["kind"] == "build-failed" and "error" in skipped["Broken"]["reason"]
    else:
        assert skipped["Sitter"]["kind"] == "no-command"
    assert done.stderr.count(" skipped:\n") == 1 and "Loop (https://" in done.stderr
    faults = {row["name"]: row["faults"] for row in out["standings"]}
    assert faults["Shy"] == 0 and faults.get("Sitter", 0) == 0  # the built programs played cleanly


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_page_keeps_the_question_and_command_entries():
    """The page's model (web/src/challenge_model.js) keeps ``question`` and a C entry through an
    import and an export, writes version 2 then (and 1 without them), and the engine reads it."""
    data = {**CHALLENGE, "entries": [*CHALLENGE["entries"],
                                     {"name": "sitter", "code": "int main(){}\n", "language": "C"}]}
    script = ROOT / "tests" / "challenge_question_roundtrip.mjs"
    done = subprocess.run(["node", script], input=json.dumps(data), capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["exported"]["question"] == {"site": "codegolf", "id": QUESTION}
    assert out["exported"]["version"] == 2 and out["exported"]["entries"][-1]["language"] == "C"
    assert json.loads(challenge_json(load_challenge(json.dumps(out["exported"])))) == out["exported"]
    assert out["plain"]["version"] == 1 and "question" not in out["plain"]
    load_challenge(json.dumps(out["plain"]))
