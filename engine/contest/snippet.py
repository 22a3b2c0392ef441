"""A challenge as a Stack Snippet: the block of post markdown an author pastes into the question.

A post holds at most 30,000 characters, so the snippet carries only the challenge (its file
format, deflate-raw compressed and base64url-encoded: the page's challenge-link format, so the
page opens it with the same code and the engine checks it the same way) and a small boot
script. The boot script (``BOOT_JS``) runs in the snippet's sandboxed iframe (an opaque origin:
no storage to rely on, no SharedArrayBuffer): it downloads the project's wheel (version pinned,
and its SHA-256: the page and scripts/export_snippet.py pin the wheel they were built with),
takes the page's files out of it (``engine/site/``: written by ``scripts/site_wheel.py`` in
the site build), puts the page's body and style in place and starts the page's own
app from blob URLs, with Pyodide from its public CDN and the wheel itself as the engine the
Workers unpack. The app (``kothEmbed`` in app.js) then opens the challenge like a challenge
link, fetches the question's answers as the page's import does, and shows the field, the
leaderboard and the viewer.

Standard library only: the page's controller (Pyodide) and ``scripts/export_snippet.py`` use it.
"""
from __future__ import annotations

import base64
import json
import re
import zlib
from dataclasses import dataclass

from engine.contest.challenge import challenge_json, load_challenge
from engine.contest.stackexchange import QuestionRef

MAX_POST_CHARS = 30_000  # a Stack Exchange post's limit: the whole snippet must fit in it
PROJECT = "koth-arena"
BEGIN = "<!-- begin snippet: js hide: false console: true babel: false -->"
END = "<!-- end snippet -->"
BOOT_MESSAGE = "Loading KotH Arena (Python in your browser: about 15 MB the first time)…"


class SnippetError(ValueError):
    """Options that make no snippet (a bad URL, a bad hash)."""


class SnippetTooBig(SnippetError):
    def __init__(self, size: int) -> None:
        self.size = size
        super().__init__(f"the snippet is {size:,} characters: a post holds at most {MAX_POST_CHARS:,}; "
                         "shorten the entries' code or the description, or leave entries out (the "
                         "question's answers are fetched by the snippet itself)")


def pypi_wheel_url(version: str) -> str:
    """The package index's stable address of the project's wheel for one version (PyPI
    redirects /packages/{python tag}/{first letter}/{project}/{file} to the file)."""
    return f"https://files.pythonhosted.org/packages/py3/k/{PROJECT}/koth_arena-{version}-py3-none-any.whl"


def pyodide_cdn_url(version: str) -> str:
    return f"https://cdn.jsdelivr.net/npm/pyodide@{version}/"


@dataclass(frozen=True)
class SnippetOptions:
    version: str  # the wheel's version (pinned)
    pyodide_version: str  # the Pyodide the wheel's page was built for (package-lock.json)
    wheel_url: str | None = None  # None: the package index's URL of `version`
    wheel_sha256: str | None = None  # checked by the snippet when given
    pyodide_url: str | None = None  # None: jsDelivr's copy of the npm package
    question: QuestionRef | None = None  # whose answers join the field

    def checked(self) -> SnippetOptions:
        for what, url in (("the wheel URL", self.wheel_url), ("the Pyodide URL", self.pyodide_url)):
            if url is not None and not re.fullmatch(r"https://[^\s\"'<>\\]+", url):
                raise SnippetError(f"{what} must be an https:// URL, got {url!r}")
        if self.wheel_sha256 is not None and not re.fullmatch(r"[0-9a-f]{64}", self.wheel_sha256):
            raise SnippetError("the wheel's SHA-256 must be 64 lowercase hexadecimal digits")
        if not re.fullmatch(r"[0-9A-Za-z.+-]{1,40}", self.version):
            raise SnippetError(f"bad version {self.version!r}")
        if not re.fullmatch(r"[0-9A-Za-z.+-]{1,40}", self.pyodide_version):
            raise SnippetError(f"bad Pyodide version {self.pyodide_version!r}")
        return self


def pack_challenge(text: str) -> str:
    """A challenge file's text -> the page's link data: its JSON (as the engine writes it,
    compact), deflate-raw, base64url without padding."""
    compact = json.dumps(json.loads(challenge_json(load_challenge(text))), ensure_ascii=False,
                         separators=(",", ":"))
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(compact.encode("utf-8")) + packer.flush()
    return base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def unpack_challenge(data: str) -> str:
    padded = data + "=" * (-len(data) % 4)
    return zlib.decompress(base64.urlsafe_b64decode(padded), -15).decode("utf-8")


def export_snippet(challenge_text: str, options: SnippetOptions) -> str:
    """The snippet's markdown for a challenge file's text (checked by the engine: a
    ChallengeError names the bad field), or SnippetTooBig with its size."""
    options.checked()
    config = {
        "version": options.version,
        "wheel": options.wheel_url or pypi_wheel_url(options.version),
        "sha256": options.wheel_sha256,
        "pyodide": options.pyodide_url or pyodide_cdn_url(options.pyodide_version),
        "question": options.question.question_id if options.question else None,
        "site": options.question.site if options.question else None,
        "challenge": pack_challenge(challenge_text),
    }
    # JSON inside a <script> (the snippet's js block): nothing in it may close the element.
    config_js = json.dumps(config, separators=(",", ":")).replace("</", "<\\/")
    js = BOOT_JS.replace("/*CONFIG*/null", config_js)
    html = f'<p id="koth-boot" role="status">{BOOT_MESSAGE}</p>'
    markdown = "\n".join([
        BEGIN, "", "<!-- language: lang-js -->", "", _indent(js), "",
        "<!-- language: lang-html -->", "", _indent(html), "", END, "",
    ])
    if len(markdown) > MAX_POST_CHARS:
        raise SnippetTooBig(len(markdown))
    return markdown


def _indent(code: str) -> str:
    return "\n".join(f"    {line}" if line.strip() else "" for line in code.strip("\n").split("\n"))


_BLOCK = re.compile(r"<!-- language: lang-(\w+) -->\n\n((?:(?: {4}.*)?\n)+)")


def parse_snippet(markdown: str) -> dict[str, str]:
    """A snippet's markdown -> {"js": ..., "html": ..., "css": ...} (the code of each block),
    as the site reads it: the text between the begin and end lines, each block's lines
    un-indented by four spaces. ValueError if it is not one snippet."""
    begin, end = markdown.find("<!-- begin snippet:"), markdown.find(END)
    if begin < 0 or end < begin:
        raise ValueError("no snippet: the begin and end lines are missing")
    header = markdown[begin:markdown.index("\n", begin)]
    if header != BEGIN:
        raise ValueError(f"unexpected snippet options: {header}")
    blocks: dict[str, str] = {}
    for match in _BLOCK.finditer(markdown[begin:end]):
        lines = match.group(2).rstrip("\n").split("\n")
        blocks[match.group(1)] = "\n".join(line[4:] for line in lines) + "\n"
    return blocks


def snippet_document(markdown: str) -> str:
    """The document a snippet's iframe shows: its CSS in the head, its HTML in the body, its
    JavaScript in a script at the end of the body (as Stack Snippets assemble it)."""
    blocks = parse_snippet(markdown)
    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
            f"<style>{blocks.get('css', '')}</style></head>\n<body>\n{blocks.get('html', '')}\n"
            f"<script>\n{blocks.get('js', '')}</script>\n</body></html>\n")


# The boot script. Kept short (it counts against the post's 30,000 characters) and plain
# (a classic script: babel is off). It unzips the wheel itself (the central directory, then
# DecompressionStream("deflate-raw")): no micropip, no Pyodide on this thread.
BOOT_JS = r"""
// KotH Arena in a Stack Snippet: the page itself, from its pinned wheel; only the challenge is here.
(async () => {
  const K = /*CONFIG*/null;
  const say = (t) => {
    const s = document.getElementById("koth-boot") || document.getElementById("status-text");
    if (s) s.textContent = t;
  };
  try {
    const got = await fetch(K.wheel).catch((e) => {
      throw new Error(`could not download ${K.wheel} (${e.message})`);
    });
    if (!got.ok) throw new Error(`${K.wheel} answered HTTP ${got.status}`);
    const wheel = new Uint8Array(await got.arrayBuffer());
    if (K.sha256) {
      const d = new Uint8Array(await crypto.subtle.digest("SHA-256", wheel));
      const hex = Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
      if (hex !== K.sha256) throw new Error(`the wheel's SHA-256 is ${hex}, not the pinned ${K.sha256}`);
    }
    const inflate = async (b) => new Uint8Array(await new Response(new Blob([b]).stream()
      .pipeThrough(new DecompressionStream("deflate-raw"))).arrayBuffer());
    const v = new DataView(wheel.buffer);
    let e = wheel.length - 22;
    while (e >= 0 && v.getUint32(e, true) !== 0x06054b50) e--;
    if (e < 0) throw new Error("the wheel is not a zip file");
    const files = {};
    for (let n = v.getUint16(e + 10, true), p = v.getUint32(e + 16, true); n > 0; n--) {
      const method = v.getUint16(p + 10, true), size = v.getUint32(p + 20, true);
      const at = v.getUint32(p + 42, true);
      const nameLength = v.getUint16(p + 28, true);
      const name = new TextDecoder().decode(wheel.subarray(p + 46, p + 46 + nameLength));
      p += 46 + nameLength + v.getUint16(p + 30, true) + v.getUint16(p + 32, true);
      if (!name.startsWith("engine/site/")) continue;
      const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
      const data = wheel.subarray(start, start + size);
      files[name.slice(12)] = method === 8 ? await inflate(data) : data;
    }
    for (const f of ["index.html", "style.css", "app.js", "controller_worker.js", "bot_worker.js",
      "main.py"]) {
      if (!files[f]) throw new Error(`the wheel has no engine/site/${f}`);
    }
    const text = (f) => new TextDecoder().decode(files[f]);
    const blob = (data, type) => new Blob([data], { type });
    const page = new DOMParser().parseFromString(text("index.html"), "text/html");
    const style = document.createElement("style");
    style.textContent = text("style.css");
    document.head.append(style);
    document.body.replaceChildren(...page.body.childNodes);
    const site = {}; // every file of the page's site in the wheel, as the controller asks for it
    for (const f in files) site[f] = blob(files[f], f.endsWith(".js") ? "text/javascript" : "text/plain");
    site["engine.zip"] = blob(wheel, "application/zip");
    site["config.json"] = blob(JSON.stringify({ pyodideIndexURL: K.pyodide, buildId: null }), "text/json");
    globalThis.kothEmbed = { version: K.version, challenge: K.challenge, question: K.question, site: K.site,
      files: site };
    await import(URL.createObjectURL(blob(files["app.js"], "text/javascript")));
  } catch (err) {
    say(`KotH Arena could not start: ${err && err.message || err}`);
  }
})();
"""
