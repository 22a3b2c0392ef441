"""The challenge author's loop in one command: a question's answers fetched from a local
server shaped like the Stack Exchange API (pages, backoff, gzip), built, played, written as
Markdown with the changes since the last run and the skipped answers, and published as a
static results site whose links resolve and whose one-game links replay the game played.
After one answer is edited, one deleted and one posted, the same command plays only the
games that involve the changed ones and equals a run from zero."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
from se_api_server import DATA, FakeAPI, sandbox_or_skip, tournament_cli

from engine.bots.entries import PYTHON, Entry
from engine.contest.game_link import read_game_link
from engine.contest.results_site import CSP, MARKER, PageLink, PublishError, SiteInput, publish, text
from engine.contest.run_notes_markdown import changes_markdown, skipped_markdown
from engine.contest.stackexchange import AnswerProblem
from engine.contest.standings_changes import MAX_FILE_BYTES, Previous, StandingsStore, compare
from engine.contest.tournament import Match, MatchJob, play_match

QUESTION = 900002
HOSTILE = "Pipe | *star* [x](https://e.vil) <img src=x onerror=alert(1)> next line"
CHALLENGE = {
    "format": "koth-arena-challenge", "version": 2, "title": "Flit <b>from</b> | the question",
    "description": "The example and the answers.", "game": "flit", "preset": "trial",
    "settings": {"time_limit_ms": 10000}, "games": 2, "seed": 5, "secret": "Q",
    "question": {"site": "codegolf", "id": QUESTION},
    "entries": [{"name": "greedy", "code": "builtin:greedy"}],
}


class QuestionAPI(FakeAPI):
    """``/2.3/questions/900002/answers``: the pages before (``after`` False) or after an
    answer was edited, one deleted and one posted."""

    def __init__(self) -> None:
        self.after = False
        super().__init__(self.pages)

    def pages(self, path: str, query: dict) -> tuple[int, bytes]:
        name = f"q{QUESTION}{'_after' if self.after else ''}_page{query.get('page', '1')}.json"
        if path == f"/2.3/questions/{QUESTION}/answers" and (DATA / name).is_file():
            return 200, (DATA / name).read_bytes()
        return 404, b'{"error_id": 404, "error_name": "no_method"}'


@pytest.fixture
def api():
    server = QuestionAPI()
    yield server
    server.close()


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.metas: list[dict] = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if "href" in attrs:
            self.hrefs.append(attrs["href"])
        if tag == "meta":
            self.metas.append(attrs)
        if tag == "script" or any(k.startswith("on") for k in attrs):
            self.scripts += 1


def site_links(site: Path) -> dict[Path, Links]:
    out = {}
    for page in sorted(site.glob("*.html")) + sorted(site.glob("entries/*.html")):
        parsed = Links()
        parsed.feed(page.read_text(encoding="utf-8"))
        out[page] = parsed
    return out


def check_site(site: Path) -> list[str]:
    """Every relative link resolves to a file of the site, no page has a script, each has the
    CSP; the one-game links' fragments (relative to the site's own page copy)."""
    fragments = []
    for page, links in site_links(site).items():
        assert links.scripts == 0, page
        assert {"http-equiv": "Content-Security-Policy", "content": CSP} in links.metas, page
        for href in links.hrefs:
            if href.startswith("https://"):
                assert href.startswith("https://codegolf.stackexchange.com/"), href
                continue
            assert not href.startswith(("/", "http:", "javascript:", "data:")), href
            path, _, fragment = href.partition("#")
            target = (page.parent / unquote(path)).resolve()
            assert target.is_file() and target.is_relative_to(site.resolve()), (page, href)
            if fragment.startswith("g="):
                fragments.append(fragment)
    return fragments


def replayed_scores(body: dict) -> list[int]:
    """The linked game played again natively from the link alone."""
    entries = tuple(Entry(b["name"], PYTHON, b["code"], b.get("language", "python3")) for b in body["bots"])
    job = MatchJob(Match(0, body["seed"], tuple(range(len(entries)))), body["game"], body["preset"],
                   body["settings"], entries, body["secret"], True, 1024, None, body["budget"])
    return list(play_match(job).scores)


# -- the parts ------------------------------------------------------------------------------------

def test_changes_since_the_last_run_are_compared_by_name():
    previous = Previous({"a": 1, "b": 2, "c": 3, "gone one": 4}, "2026-11-26 10:00 UTC")
    changes = compare(previous, [("c", 1), ("a", 2), ("b", 3), ("newbie", 4)])
    assert changes.phrases() == ["new: newbie", "up 2: c", "down 1: a", "down 1: b", "gone: gone one"]
    assert compare(None, [("a", 1)]) is None
    unchanged = compare(previous, [("a", 1), ("b", 2), ("c", 3), ("gone one", 4)])
    assert unchanged.none and changes_markdown(unchanged) == ""  # a re-run posts the same text


def test_the_notes_escape_everything_from_answers():
    nasty = "a|b *c* [d](e) <img src=x>\nnext `code` _u_ #h"
    previous = Previous({nasty: 1}, "yesterday")
    notes = changes_markdown(compare(previous, [("x", 1), (nasty, 2)]))
    assert "- new: x" in notes
    assert "- down 1: a\\|b \\*c\\* \\[d\\]\\(e\\) &lt;img src=x&gt; next \\`code\\`" in notes
    problem = AnswerProblem("no-command", "written in <b>Cobol</b> | nope\n[x](y)", nasty, "**Mal** <i>",
                            "https://codegolf.stackexchange.com/a/1", 1, "Cobol")
    listed = skipped_markdown([problem, AnswerProblem("malformed", "bad", None, None, "javascript:x", 2)])
    line = listed.splitlines()[2]
    assert line.startswith("- [a\\|b \\*c\\* \\[d\\]\\(e\\) &lt;img src=x&gt; next")
    assert ("](https://codegolf.stackexchange.com/a/1) by \\*\\*Mal\\*\\* &lt;i&gt;: written in "
            "&lt;b&gt;Cobol") in line
    assert listed.splitlines()[3] == "- answer 2: bad"  # no link of a scheme but http(s)
    assert "<" not in listed


def test_html_text_is_inert_and_shows_hidden_characters():
    assert text('</td><script>x</script> "q" \'a\' & \u202e\x00\nz') == (
        "&lt;/td&gt;&lt;script&gt;x&lt;/script&gt; &quot;q&quot; &#x27;a&#x27; &amp; &lt;U+202E&gt;"
        "&lt;U+0000&gt; z")
    assert text("line\none", lines=True) == "line\none"
    assert text("x" * 300).endswith("x … (cut)") and len(text("x" * 300)) == 200 + len(" … (cut)")


def test_kept_standings_are_untrusted(tmp_path):
    warnings: list[str] = []
    store = StandingsStore(tmp_path, warnings.append)
    store.write("k", [("a", 1), ("b", 2)], "2026-11-27 10:00 UTC")
    assert store.read("k") == Previous({"a": 1, "b": 2}, "2026-11-27 10:00 UTC")
    for content, why in [(b"[" * 100_000, "nested too deep"), (b"{" + b" " * MAX_FILE_BYTES, "over "),
                         (b'{"format": 1, "date": "d", "places": [["a", 0]]}', "not a name and a number"),
                         (b'{"format": 1, "date": "d", "places": [["a", 1], ["a", 2]]}', "twice"),
                         (b"\xff", "not UTF-8")]:
        store.path("k").write_bytes(content)
        assert store.read("k") is None
        assert why in warnings[-1], warnings[-1]
    store.path("k").unlink()
    (tmp_path / "elsewhere.json").write_text('{"format": 1, "date": "d", "places": [["a", 1]]}')
    store.path("k").symlink_to(tmp_path / "elsewhere.json")
    assert store.read("k") is None and "cannot read" in warnings[-1]  # a link is not followed


def test_publish_refuses_other_folders_and_needs_the_page(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("mine")
    fake_page = tmp_path / "fake"
    fake_page.mkdir()
    (fake_page / "index.html").write_text("page")
    (fake_page / "app.js").write_text("")
    args = ["flit", "builtin:greedy", "builtin:random", "--games", "2", "--seed", "1", "--secret", "S",
            "--budget", "100000", "--no-cache"]
    empty = tmp_path / "empty"
    empty.mkdir()
    done = tournament_cli(*args, "--publish", tmp_path / "site", "--page-dir", empty, timeout=300)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "is not a built page" in done.stderr
    done = tournament_cli(*args, "--publish", tmp_path / "home", "--page-url", "https://example.org/arena/",
                          timeout=300)
    assert done.returncode == 2 and "holds other files" in done.stderr
    assert (tmp_path / "home" / "notes.txt").read_text() == "mine"  # never replaced
    done = tournament_cli(*args, "--publish", tmp_path / "site", "--page-url", "javascript:alert(1)",
                          timeout=300)
    assert done.returncode == 2 and "--page-url must be an http(s) address" in done.stderr
    done = tournament_cli(*args, "--page-url", "https://example.org/", timeout=300)
    assert done.returncode == 2 and "--page-url and --page-dir go with --publish DIR" in done.stderr


def test_an_interrupted_publish_leaves_the_previous_site(tmp_path, monkeypatch):
    from engine.contest.tournament import MatchResult, Tournament
    from engine.games.registry import get_game

    spec = get_game("flit")
    tournament = Tournament(spec, [Entry("a", "builtin", "greedy"), Entry("b", "builtin", "random")], 2, 1,
                            "S", 2, "trial", {}, budget=1000)
    tournament.record(MatchResult(0, 1, (0, 1), (3, 1), (0, 0), 0))
    tournament.record(MatchResult(1, 1, (1, 0), (2, 2), (0, 0), None))
    site = tmp_path / "site"
    publish(site, tournament, SiteInput(title="first"), PageLink(url="https://example.org/arena/"))
    assert "first" in (site / "index.html").read_text() and (site / MARKER).is_file()
    hrefs = [h for links in site_links(site).values() for h in links.hrefs]
    assert any(h.startswith("https://example.org/arena/#g=") for h in hrefs)

    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("engine.contest.results_site._swap", broken)
    with pytest.raises(KeyboardInterrupt):
        publish(site, tournament, SiteInput(title="second"), PageLink(url="https://example.org/arena/"))
    assert "first" in (site / "index.html").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no half site left beside it
    with pytest.raises(PublishError, match="not a folder"):
        publish(tmp_path / "site" / "index.html", tournament, SiteInput(), PageLink(url="https://x.org/"))


# -- end to end -------------------------------------------------------------------------------------

def test_from_a_question_to_a_results_site_and_again_after_an_edit(api, tmp_path):
    sandbox_or_skip()
    challenge = tmp_path / "challenge.json"
    challenge.write_text(json.dumps(CHALLENGE))
    (tmp_path / "cmds.json").write_text(json.dumps({"bash": {"run": "sh {file}"}}))
    page = tmp_path / "built-page"  # stands in for scripts/build.py's output
    page.mkdir()
    (page / "index.html").write_text("<!doctype html><title>the page</title>")
    (page / "app.js").write_text("")

    def run(cache: Path, name: str):
        done = tournament_cli("--challenge", challenge, "--se-api", api.url, "--commands",
                              tmp_path / "cmds.json", "--cache", cache, "--budget", 1_000_000, "--json",
                              "--markdown", tmp_path / f"{name}.md", "--publish", tmp_path / name / "site",
                              "--page-dir", page, timeout=1200)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout), done.stderr, (tmp_path / f"{name}.md").read_text(encoding="utf-8")

    first, stderr, markdown = run(tmp_path / "cache", "first")
    assert [r["page"] for r in api.requests] == ["1", "2"]  # paged, gzip, after page 1's backoff
    names = ["greedy", "Mover", "Edgebot", HOSTILE, "Shy"]
    assert sorted(first["entries"]) == sorted(names)
    assert "played 20 games, 0 from the cache" in stderr
    assert [s["name"] for s in first["skipped"]] == ["Loop"]
    assert "Changes since the last run" not in markdown  # nothing to compare with yet
    assert ("| [Pipe \\| \\*star\\* \\[x\\]\\(https\\://e.vil\\) &lt;img src=x onerror=alert\\(1\\)&gt; next "
            "line](https://codegolf.stackexchange.com/a/900205) | "
            "&lt;/td&gt;&lt;script&gt;alert\\(2\\)&lt;/script&gt; \\| \\*\\*Mal\\*\\* |") in markdown
    assert "- [Loop](https://codegolf.stackexchange.com/a/900204) by Eve: written in Brainfuck" in markdown
    assert "1 answer skipped:\n  Loop (https://codegolf.stackexchange.com/a/900204)" in stderr

    site = tmp_path / "first" / "site"
    fragments = check_site(site)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "<script" not in index.replace("&lt;script", "") and "alert(2)" in index
    assert 'href="page/index.html#c=' in index  # the trial version, in the site's own copy of the page
    by_name = {}
    for path in (site / "entries").glob("*.html"):
        title = re.search(r"<h1>(.*)</h1>", path.read_text(encoding="utf-8")).group(1)
        by_name[title] = path.read_text(encoding="utf-8")
    assert set(by_name) == {text(n) for n in names}
    hostile = by_name[text(HOSTILE)]
    assert "Its faults (" in hostile and "&lt;/code&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in hostile
    assert "no link: a command entry: the page runs Python only" in by_name["Shy"]
    assert "read setup" in by_name["Shy"]  # the answer's code, not the built program's path
    assert len(fragments) == 2 * 12  # the 12 games without Shy, listed on both their entries' pages

    # a one-game link is the game that was played: decoded, its body is the game, replayed natively
    bodies = [read_game_link(f) for f in fragments]
    body = next(b for b in bodies if any(bot.get("language") == "python2" for bot in b["bots"]))
    number = int(re.match(r"Game (\d+) of ", body["label"]).group(1))
    game = first["games"][number - 1]
    assert [b["name"] for b in body["bots"]] == game["seats"] and body["seed"] == game["seed"]
    assert body["scores"] == game["scores"] and body["secret"] == "Q" and body["budget"] == 1_000_000
    assert body["settings"] == {"time_limit_ms": 10000} and body["preset"] == "trial" and body["v"] == 1
    assert replayed_scores(body) == game["scores"]

    # one answer edited, one deleted (Shy), one posted (Newbie): only their games are played
    api.after = True
    second, stderr, markdown = run(tmp_path / "cache", "second")
    changed = {"Mover", "Newbie"}
    replayed = sum(1 for g in second["games"] if changed & set(g["seats"]))
    assert f"played {replayed} games, {len(second['games']) - replayed} from the cache" in stderr
    assert replayed == 14 and len(second["games"]) == 20
    assert "- new: Newbie" in markdown and "- gone: Shy" in markdown
    assert "Changes since the last run (" in (tmp_path / "second" / "site" / "index.html").read_text()
    check_site(tmp_path / "second" / "site")

    from_zero, _, _ = run(tmp_path / "fresh-cache", "zero")
    assert from_zero == second


def test_without_a_built_page_or_a_page_url_one_line_says_what_to_do(tmp_path, monkeypatch):
    import argparse

    from engine.bots.entries import UsageError
    from engine.cli import cli_publish

    monkeypatch.setattr(cli_publish, "ROOT", tmp_path)
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(publish=tmp_path / "site", page_url=None, page_dir=None, replays=None)
    with pytest.raises(UsageError) as caught:
        cli_publish.prepare(args)
    message = str(caught.value)
    assert "\n" not in message and "python3 scripts/build.py" in message and "--page-url URL" in message
    assert args.replays is None and not (tmp_path / "site").exists()  # nothing made before the refusal
