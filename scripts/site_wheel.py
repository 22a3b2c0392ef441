"""The project's wheel, written byte for byte the same from the same sources (for Stack Snippets).

A Stack Snippet pins the wheel's SHA-256, so the wheel the page's preview runs, the one an
author's export pins and the one published on the package index must be one file: the site
build (scripts/build.py) writes it beside the page and puts its name and SHA-256 in
config.json, and scripts/build_wheel.py copies that file out for upload. A wheel is a zip
file with a dist-info folder (PEP 427); this writes it with the standard library alone, its
entries sorted, each dated 1980-01-01 with fixed permissions, so nothing of the machine or
the hour gets in (setuptools through `python -m build` took 14 s and an index per build, and
dated every entry). Holds the `engine` package (its Python files, examples included) and,
under engine/site/, the page's files given by the caller.
"""
from __future__ import annotations

import base64
import hashlib
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE_PACKAGE_DIR = "engine/site"  # where the page's files go inside the wheel
EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest date a zip entry can hold


def wheel_name(version: str) -> str:
    return f"koth_arena-{version}-py3-none-any.whl"


def metadata(project: dict, version: str, readme: str) -> str:
    """Core metadata 2.1 from pyproject.toml's [project] table."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project.get('description', '')}",
             f"Requires-Python: {project.get('requires-python', '>=3')}"]
    lines += [f"Requires-Dist: {req}" for req in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {req}; extra == "{extra}"' for req in reqs]
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + readme


def engine_files(root: Path = ROOT) -> dict[str, bytes]:
    """engine/**/*.py, as setuptools' package finder and package data take them."""
    files = {}
    for path in sorted((root / "engine").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if "__pycache__" in path.parts or rel.startswith(SITE_PACKAGE_DIR + "/"):
            continue
        files[rel] = path.read_bytes()
    return files


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(site_files: dict[str, bytes], out_dir: Path, version: str, root: Path = ROOT) -> Path:
    """The wheel of `version` in out_dir: engine/ from `root` and `site_files` (name -> bytes)
    under engine/site/. The same inputs always give the same bytes."""
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    readme = (root / "README.md").read_text(encoding="utf-8")
    info = f"koth_arena-{version}.dist-info"
    files = engine_files(root)
    files.update({f"{SITE_PACKAGE_DIR}/{name}": data for name, data in sorted(site_files.items())})
    files[f"{info}/METADATA"] = metadata(pyproject["project"], version, readme).encode("utf-8")
    files[f"{info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: koth-arena site_wheel.py\n"
                              b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    files[f"{info}/top_level.txt"] = b"engine\n"
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode("utf-8")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / wheel_name(version)
    with zipfile.ZipFile(target, "w") as z:
        for name, data in files.items():  # RECORD last, as wheel installers expect
            entry = zipfile.ZipInfo(name, date_time=EPOCH)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            z.writestr(entry, data, compresslevel=9)
    return target


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
