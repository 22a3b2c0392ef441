"""The entries a tournament gets from a question's answers and from a challenge's command
entries: Python answers as the page imports them, other languages built and run as
``--commands`` says, and every answer that cannot play listed with its reason.

Each answer goes through the page's own reader (``engine.contest.stackexchange.entries_from_answers``),
so an answer is the same entry here as in the page's import. An answer the page leaves out
because it is not Python (``native-only``) becomes a command entry when ``--commands`` names
its language (or its id): its code, read by the same parser, is built once per revision
(``engine.contest.build_cache``) and run as a command bot with the command's limits. A language
with no command is skipped, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.bots.entries import COMMAND, PYTHON, Entry
from engine.bots.sandbox import Sandbox, Unsandboxed
from engine.contest.answer_html import read_answer
from engine.contest.build_cache import BuildError, build
from engine.contest.challenge import MAX_CODE_BYTES, ChallengeEntry
from engine.contest.command_entries import Commands
from engine.contest.stackexchange import MAX_BODY_CHARS, AnswerProblem, ImportedEntry, entries_from_answers

NO_COMMAND = "no-command"
BUILD_FAILED = "build-failed"


@dataclass(frozen=True)
class About:
    """Where an entry comes from, for the Markdown and the results site: its author, its
    answer's address, and the code as posted (a command entry's ``Entry`` holds only its
    run line)."""

    author: str | None = None
    link: str | None = None
    code: str | None = None
    language: str | None = None


@dataclass
class Field:
    """Entries to add to the tournament, and the answers (or command entries) left out;
    ``about[i]`` is ``entries[i]``'s origin."""

    entries: list[Entry] = field(default_factory=list)
    skipped: list[AnswerProblem] = field(default_factory=list)
    about: list[About] = field(default_factory=list)


@dataclass
class Builder:
    """Builds command entries: the commands, the cache folder, and the sandbox (made on the
    first build, so a field without command entries never probes it)."""

    commands: Commands
    cache: Path
    sandbox: Callable[[], Sandbox | Unsandboxed]
    progress: Callable[[str], None] = lambda name: None  # told each entry's name before its build

    def entry(self, name: str, code: str, language: str | None, answer_id: int | None = None,
              author: str | None = None, link: str | None = None) -> Entry | AnswerProblem:
        command = self.commands.find(language, answer_id)
        if command is None:
            given = self.commands.by_language or self.commands.by_answer
            reason = (f"written in {language}: the commands file has no entry for it" if given
                      else f"written in {language}: give --commands FILE to build and run it")
            return AnswerProblem(NO_COMMAND, reason + " (no language is guessed)", name, author, link,
                                 answer_id, language)
        self.progress(name)
        try:
            built = build(code, language, command, self.cache, self.sandbox())
        except BuildError as exc:
            return AnswerProblem(BUILD_FAILED, str(exc)[:1000], name, author, link, answer_id, language)
        return Entry(name, COMMAND, built.run_command(command), limits=command.limits)


def answers_field(items: list[Any], site: str, builder: Builder) -> Field:
    """The question's answer items (every page's) -> entries and skipped answers, in order."""
    imported, problems = entries_from_answers(items, site)
    by_id = {item["answer_id"]: item for item in items
             if isinstance(item, dict) and isinstance(item.get("answer_id"), int)}
    out = Field()
    for entry in imported:
        if entry.answer_id is not None and entry.answer_id in builder.commands.by_answer:
            _add(out, builder.entry(entry.name, entry.code, entry.language, entry.answer_id, entry.author,
                                    entry.link), About(entry.author, entry.link, entry.code, entry.language))
        else:
            out.entries.append(Entry(entry.name, PYTHON, entry.code, entry.language))
            out.about.append(About(entry.author, entry.link, entry.code, entry.language))
    for problem in problems:
        if problem.kind != "native-only":
            out.skipped.append(problem)
            continue
        code = _code(by_id.get(problem.answer_id))
        if isinstance(code, str):
            _add(out, builder.entry(problem.name or f"answer {problem.answer_id}", code, problem.language,
                                    problem.answer_id, problem.author, problem.link),
                 About(problem.author, problem.link, code, problem.language))
        else:
            out.skipped.append(AnswerProblem(code[0], code[1], problem.name, problem.author, problem.link,
                                             problem.answer_id, problem.language))
    return out


def command_entries_field(entries: list[ChallengeEntry], builder: Builder) -> Field:
    """A challenge file's command entries (switched on) -> entries and skipped ones."""
    out = Field()
    for entry in entries:
        _add(out, builder.entry(entry.name, entry.code, entry.language, None, entry.author, entry.link),
             About(entry.author, entry.link, entry.code, entry.language))
    return out


def _add(out: Field, result: Entry | AnswerProblem | ImportedEntry, about: About) -> None:
    if isinstance(result, AnswerProblem):
        out.skipped.append(result)
    else:
        out.entries.append(result)
        out.about.append(about)


def _code(item: Any) -> str | tuple[str, str]:
    """A native answer's code, read as the page reads a Python one; (kind, reason) if none."""
    body = item.get("body") if isinstance(item, dict) else None
    if not isinstance(body, str) or len(body) > MAX_BODY_CHARS:
        return "malformed", "the answer's body could not be read"
    code = read_answer(body).code
    if code is None or not code.strip():
        return "no-code", "the answer has no code block"
    code = code if code.endswith("\n") else code + "\n"
    size = len(code.encode("utf-8"))
    if size > MAX_CODE_BYTES:
        return "too-big", f"its code is {size:,} bytes, more than the {MAX_CODE_BYTES:,} bytes a bot may have"
    return code
