// The snippet preview's frame (snippet_preview.html, in an iframe the page sandboxes as the Q&A
// site does: "allow-scripts allow-forms allow-modals", an opaque origin). It takes the exported
// snippet's markdown from the page that framed it, reads its blocks as the site does
// (engine/contest/snippet.py parse_snippet), points the boot script's wheel and Pyodide at this
// site's own copies (the text the author posts keeps the package index's and the CDN's; the
// pinned SHA-256 stays and is checked against this site's wheel), and runs it: the snippet's
// HTML as the body, its CSS in the head, its JavaScript as a script after them.

const say = (text) => {
  const node = document.getElementById("koth-boot");
  if (node) node.textContent = text;
};
let started = false;

// {js, html, css} of the first snippet in the markdown: each block's lines un-indented.
function snippetBlocks(markdown) {
  const begin = markdown.indexOf("<!-- begin snippet:");
  const end = markdown.indexOf("<!-- end snippet -->");
  if (begin < 0 || end < begin) throw new Error("no snippet: the begin and end lines are missing");
  const blocks = {};
  for (const m of markdown.slice(begin, end).matchAll(/<!-- language: lang-(\w+) -->\n\n((?:(?: {4}.*)?\n)+)/g)) {
    blocks[m[1]] = `${m[2].replace(/\n+$/, "").split("\n").map((line) => line.slice(4)).join("\n")}\n`;
  }
  return blocks;
}

// The boot script with its config's wheel and Pyodide replaced (absolute URLs: the snippet's
// Workers run from blob: URLs, no base to resolve against).
function localized(js, wheel, pyodide) {
  const found = /const K = (\{.*?\});\n/.exec(js);
  if (!found) throw new Error("the snippet has no KotH Arena configuration");
  const config = JSON.parse(found[1]);
  const local = { ...config, wheel, pyodide };
  const text = JSON.stringify(local).replace(/<\//g, "<\\/");
  return js.slice(0, found.index) + `const K = ${text};\n` + js.slice(found.index + found[0].length);
}

// Tells the page framing the preview when the snippet became ready (its "arena-ready" mark,
// on this frame's clock: from the frame's navigation), so the author sees how long a reader
// of the post waits (and scripts/bench_snippet.py reads it without reaching into the frame).
function reportReady() {
  if (typeof PerformanceObserver !== "function") return;
  const observer = new PerformanceObserver((list) => {
    const mark = list.getEntries().find((entry) => entry.name === "arena-ready");
    if (!mark) return;
    observer.disconnect();
    window.parent.postMessage({ type: "snippet-preview-started", ms: mark.startTime }, "*");
  });
  observer.observe({ type: "mark", buffered: true });
}

function run({ markdown, wheel, pyodide }) {
  const blocks = snippetBlocks(markdown);
  if (!blocks.js) throw new Error("the snippet has no JavaScript");
  const js = localized(blocks.js, new URL(wheel, location.href).href, new URL(pyodide, location.href).href);
  const style = document.createElement("style");
  style.textContent = blocks.css || "";
  document.head.append(style);
  document.body.innerHTML = blocks.html || "";
  const script = document.createElement("script");
  script.src = URL.createObjectURL(new Blob([js], { type: "text/javascript" }));
  document.body.append(script);
}

if (window.parent !== window) {
  window.addEventListener("message", (event) => {
    const data = event.data;
    if (event.source !== window.parent || started || !data || data.type !== "snippet-preview") return;
    started = true; // one snippet per frame: the page makes a new frame for another
    try {
      if (typeof data.markdown !== "string" || data.markdown.length > 100_000) throw new Error("no snippet");
      reportReady();
      run({ markdown: data.markdown, wheel: String(data.wheel), pyodide: String(data.pyodide) });
    } catch (err) {
      say(`The preview could not start: ${err && err.message || err}`);
    }
  });
  window.parent.postMessage({ type: "snippet-preview-ready" }, "*");
}
