// "Export as Stack Snippet": the challenge on show as the block of post markdown an author
// pastes into the question (issue 9, item 6). The engine writes it (controller Worker:
// "snippet-export" -> main.py export_snippet -> engine/contest/snippet.py) and refuses one over a
// post's 30,000 characters with its size; this dialog asks for the question whose answers
// join the field, and optionally where the snippet gets the wheel, and shows the result. The
// snippet pins the SHA-256 of this site's wheel by default (config.json's `wheel`, written by
// scripts/build.py), and Preview runs it in a frame sandboxed as the Q&A site's is
// (snippet_preview.html, web/src/snippet_frame.js) with this site's wheel and Pyodide.

const PREVIEW_SANDBOX = "allow-scripts allow-forms allow-modals"; // the Q&A site's snippet frame

export class SnippetExportDialog {
  // send(message): to the controller Worker; challenge(): the challenge file's object on show;
  // ready(): whether Python is ready.
  constructor({ send, challenge, ready }) {
    const $ = (id) => document.getElementById(id);
    this.els = {
      open: $("snippet-export-open"), dialog: $("snippet-export"), form: $("snippet-export-form"),
      question: $("snippet-question"), site: $("snippet-site"), wheelUrl: $("snippet-wheel-url"),
      sha256: $("snippet-sha256"), export: $("snippet-export-run"), error: $("snippet-error"),
      status: $("snippet-status"), output: $("snippet-output"), markdown: $("snippet-markdown"),
      copy: $("snippet-copy"), close: $("snippet-close"), preview: $("snippet-preview"),
      previewNote: $("snippet-preview-note"), previewBox: $("snippet-preview-box"),
    };
    this.send = send;
    this.challenge = challenge;
    this.ready = ready;
    this.pending = null; // {id, resolve}
    this.nextId = 0;
    this.site = null; // config.json: the wheel this site was built with, its Pyodide
    this.frame = null; // the preview's iframe
    this.previewed = ""; // the markdown the preview runs
    this.previewNoteText = ""; // what the preview's note says before the snippet is ready
    const { els } = this;
    els.open.addEventListener("click", () => {
      els.dialog.showModal();
      els.question.focus();
      this.siteConfig().then((site) => {
        if (site && site.wheel && !els.sha256.value) els.sha256.value = site.wheel.sha256;
      });
    });
    els.preview.addEventListener("click", () => this.preview());
    window.addEventListener("message", (event) => this.onFrameMessage(event));
    els.form.addEventListener("submit", (e) => { e.preventDefault(); this.exportNow(); });
    els.copy.addEventListener("click", () => this.copy());
    els.close.addEventListener("click", () => els.dialog.close());
    els.dialog.addEventListener("close", () => { this.closePreview(); els.open.focus(); });
  }

  // This site's config.json (fetched once): {wheel: {file, version, sha256}, pyodideIndexURL}.
  async siteConfig() {
    if (!this.site) {
      this.site = fetch("config.json").then((r) => (r.ok ? r.json() : null)).catch(() => null);
    }
    const site = await this.site;
    const wheel = site && site.wheel;
    const ok = wheel && typeof wheel.file === "string" && /^[0-9a-f]{64}$/.test(String(wheel.sha256));
    return ok ? site : null;
  }

  onMessage(m) {
    if (!m || m.type !== "snippet-exported") return false;
    if (this.pending && this.pending.id === m.id) {
      const { resolve } = this.pending;
      this.pending = null;
      resolve(m);
    }
    return true;
  }

  showError(text) {
    this.els.error.textContent = text || "";
    this.els.error.hidden = !text;
  }

  async exportNow() {
    const { els } = this;
    if (!this.ready()) {
      this.showError("Python is still starting: the engine writes the snippet. Try again in a moment.");
      return;
    }
    this.showError("");
    els.output.hidden = true;
    els.export.disabled = true;
    els.preview.disabled = true;
    this.closePreview();
    const site = await this.siteConfig();
    const sha256 = els.sha256.value.trim() || (site ? site.wheel.sha256 : "");
    els.status.textContent = "Writing the snippet…";
    const id = `snippet-${++this.nextId}`;
    const reply = await new Promise((resolve) => {
      const timer = setTimeout(() => this.onMessage({ type: "snippet-exported", id, error: "Python did not answer" }),
        60_000);
      this.pending = { id, resolve: (m) => { clearTimeout(timer); resolve(m); } };
      this.send({ type: "snippet-export", id, challenge: JSON.stringify(this.challenge()), options: {
        question: els.question.value.trim(), site: els.site.value.trim() || "codegolf",
        wheelUrl: els.wheelUrl.value.trim(), sha256,
      } });
    });
    els.export.disabled = false;
    if (typeof reply.error === "string") {
      this.showError(`Cannot export: ${reply.error}.`);
      els.status.textContent = "";
      return;
    }
    els.markdown.value = reply.markdown;
    els.output.hidden = false;
    els.preview.disabled = !site;
    const pinned = sha256 ? `, SHA-256 ${sha256.slice(0, 12)}…` : "";
    els.status.textContent = `Snippet ready: ${reply.size.toLocaleString("en")} of the post's `
      + `${reply.limit.toLocaleString("en")} characters. It loads KotH Arena ${reply.version} (its wheel${pinned}) `
      + "and Pyodide when run: publish that wheel first (docs/page.md: \"Stack Snippets\"). Preview runs it here.";
  }

  async copy() {
    const { els } = this;
    try {
      await navigator.clipboard.writeText(els.markdown.value);
      els.status.textContent = "Copied: paste it into the question's body.";
    } catch {
      els.markdown.focus();
      els.markdown.select();
      els.status.textContent = "Copy the selected text (Ctrl+C) and paste it into the question's body.";
    }
  }

  // The snippet in a frame sandboxed as the Q&A site's (an opaque origin), with this site's
  // wheel and Pyodide: the frame changes only those two URLs in the copy it runs.
  async preview() {
    const { els } = this;
    const site = await this.siteConfig();
    if (!site || !els.markdown.value) return;
    this.closePreview();
    this.previewed = els.markdown.value;
    const frame = document.createElement("iframe");
    frame.setAttribute("sandbox", PREVIEW_SANDBOX);
    frame.className = "snippet-preview-frame";
    frame.title = "Snippet preview";
    frame.src = "snippet_preview.html";
    this.frame = frame;
    this.wheelUrl = new URL(site.wheel.file, location.href).href;
    this.pyodideUrl = new URL(site.pyodideIndexURL || "./pyodide/", location.href).href;
    this.previewNoteText = "The preview runs this snippet in a frame sandboxed as the Q&A site's, "
      + `with this site's wheel (${site.wheel.file}, SHA-256 ${site.wheel.sha256.slice(0, 12)}…) and Pyodide `
      + "instead of the package index's and jsDelivr's; the text to post is unchanged. A pinned SHA-256 "
      + "other than this wheel's is refused, as it would be in the post.";
    els.previewNote.textContent = this.previewNoteText;
    els.previewNote.hidden = false;
    els.dialog.classList.add("previewing");
    els.previewBox.replaceChildren(frame);
  }

  onFrameMessage(event) {
    if (!this.frame || event.source !== this.frame.contentWindow || !event.data) return;
    if (event.data.type === "snippet-preview-started") {
      // From the frame, where the snippet runs: a number to show, nothing else is read.
      const ms = event.data.ms;
      if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || ms > 3_600_000) return;
      this.els.previewNote.textContent = `${this.previewNoteText} The snippet was ready `
        + `${(ms / 1000).toFixed(1)} s after its frame opened (a reader of the post also downloads `
        + "Pyodide and the wheel first).";
      return;
    }
    if (event.data.type !== "snippet-preview-ready") return;
    this.frame.contentWindow.postMessage({ type: "snippet-preview", markdown: this.previewed,
      wheel: this.wheelUrl, pyodide: this.pyodideUrl }, "*");
  }

  closePreview() {
    const { els } = this;
    this.frame = null;
    els.previewBox.replaceChildren();
    els.previewNote.hidden = true;
    els.dialog.classList.remove("previewing");
  }
}
