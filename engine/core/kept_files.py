"""Small JSON files the engine keeps between runs (the tournament's result cache, the last
standings) and reads back as untrusted: another local user, a full disk or a crash may have
changed them. One reader and one writer, so every kept file gets the same bounds:

- read without following a link, no further than the file's byte limit;
- parsed only after its nesting is measured in linear time, and only a JSON object of the
  expected ``format`` is handed back (anything else is a reason, never an exception);
- written to a temporary file in the same folder, then moved into place with ``os.replace``,
  so a kill leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from engine.core.json_depth import nesting_depth


def read_no_follow(path: Path, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``path`` (one more than allowed shows that it is too big);
    ``OSError`` (``FileNotFoundError`` when absent) if it cannot be read or is a link."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as file:
        return file.read(limit + 1)


def parse_kept(data: bytes, limit: int, depth: int, file_format: int) -> dict | str:
    """The object a kept file holds, or why it is not one of this format."""
    if len(data) > limit:
        return f"over {limit:,} bytes"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    if nesting_depth(text) > depth:
        return "nested too deep"
    try:
        value = json.loads(text)
    except ValueError:
        return "not JSON"
    if not isinstance(value, dict) or value.get("format") != file_format:
        return "not of this format"
    return value


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """Write ``path`` through ``write(file)`` into a temporary file beside it, then move it
    into place; the temporary file never outlives a failure."""
    fd, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            write(out)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
