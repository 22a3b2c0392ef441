"""A bot's name and language from a Stack Exchange answer's header, in linear time.

Headers are written by hand: "Python 2, Edgebot", "Edgebot - Python", "Corner Camper
(Python 3)", "C++, Crusher", or only a name. They used to be read with regular expressions,
one of which (``\\s*\\(.*\\)$``) backtracked: a header of ``"(" * N + ", x"`` cost quadratic
time (120 KB took 53 s and stalled the page's import). Everything here is a bounded number of
forward passes (``str`` methods, comparisons), so a header costs time in proportion to its
length, whatever it holds. Standard library only (Pyodide).
"""
from __future__ import annotations

# Language names as headers write them, other than Python's -> kept as written (the page
# cannot run them; the native controller can).
OTHER_LANGUAGES = frozenset((
    "java", "javascript", "js", "node", "node.js", "nodejs", "typescript", "c", "c++", "cpp", "c#",
    "csharp", "f#", "go", "golang", "rust", "ruby", "perl", "php", "lua", "haskell", "scala",
    "kotlin", "swift", "r", "julia", "bash", "sh", "shell", "zsh", "powershell", "ocaml", "clojure",
    "lisp", "common lisp", "racket", "scheme", "erlang", "elixir", "dart", "d", "nim", "crystal",
    "fortran", "pascal", "delphi", "groovy", "coffeescript", "matlab", "octave", "vb.net",
    "visual basic", "objective-c", "zig", "prolog", "smalltalk", "tcl", "awk", "sed", "apl", "j",
    "k", "befunge", "brainfuck", "cjam", "pyth", "05ab1e", "jelly", "golfscript", "assembly",
))
# Languages written with a version number after them ("Java 11", "C++17", "node.js 18").
_VERSIONED = ("java", "c++", "c", "nodejs", "node.js")
_PYTHON_NAMES = ("cpython", "python", "pypy")
_SHORT_PYTHON = {"py": "python3", "py3": "python3", "py2": "python2"}
_SEPARATORS = (",", " - ", " – ", " — ", ":", "|")


def name_and_language(header: str) -> tuple[str, str | None]:
    """An answer header -> (bot name, language: "python3"/"python2", another language's name
    as written, or None when the header names none)."""
    header = header.strip().strip("#*_ ").strip()
    parenthesised = _parenthesised(header)  # "Corner Camper (Python 3)"
    if parenthesised:
        name, inside = parenthesised
        language, known = language_of(inside)
        if known:
            return name, language
    for sep in _SEPARATORS:
        if sep not in header:
            continue
        first, rest = (p.strip() for p in header.split(sep, 1))
        language, known = language_of(first)
        if known and rest:
            return rest, language
        head, last = (p.strip() for p in header.rsplit(sep, 1))
        language, known = language_of(last)
        if known and head:
            return head, language
    language, known = language_of(header)
    return header, (language if known else None)


def language_of(text: str) -> tuple[str | None, bool]:
    """(challenge language, or the name as written for another language; is it a language)."""
    word = " ".join(text.lower().split())
    word = _without_parenthesis(word)  # "Python 3 (PyPy)" -> "python 3"
    python = _python_version(word)
    if python is not None:
        return python, True
    if word in OTHER_LANGUAGES or any(_is_versioned(word, name) for name in _VERSIONED):
        return text.strip(), True
    return None, False


def _parenthesised(header: str) -> tuple[str, str] | None:
    """"NAME (WORDS)" -> (NAME, WORDS): the header ends with a parenthesis that holds no other
    parenthesis, after a non-empty name."""
    if not header.endswith(")"):
        return None
    opening = header.rfind("(", 0, len(header) - 1)
    inside = header[opening + 1:-1]
    name = header[:opening].strip()
    if opening < 0 or not inside or ")" in inside or not name:
        return None
    return name, inside


def _without_parenthesis(word: str) -> str:
    """A trailing "(...)" removed, from the first "(" on, with the space before it."""
    if not word.endswith(")"):
        return word
    opening = word.find("(")
    if opening < 0 or opening == len(word) - 1:
        return word
    return word[:opening].rstrip()


def _python_version(word: str) -> str | None:
    """"python", "python 3.11", "pypy3", "cpython-2.7", "py2" ... -> "python3"/"python2"."""
    if word in _SHORT_PYTHON:
        return _SHORT_PYTHON[word]
    rest = next((word[len(name):] for name in _PYTHON_NAMES if word.startswith(name)), None)
    if rest is None:
        return None
    if not rest:
        return "python3"
    rest = rest.lstrip()
    if rest.startswith("-"):
        rest = rest[1:].lstrip()
    if rest[:1] not in ("2", "3") or not _is_dotted_numbers(rest[1:]):
        return None
    return "python2" if rest[0] == "2" else "python3"


def _is_dotted_numbers(text: str) -> bool:
    """"" or ".7" or ".11.2": a dot before each number."""
    if not text:
        return True
    parts = text.split(".")
    return parts[0] == "" and all(part.isdecimal() for part in parts[1:])


def _is_versioned(word: str, name: str) -> bool:
    """"java 11", "c++17": the language's name, then a number."""
    if not word.startswith(name):
        return False
    number = word[len(name):].lstrip()
    return number.isdecimal()
