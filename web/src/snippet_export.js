// "Export as Stack Snippet": the challenge on show as the block of post markdown an author
// pastes into the question (issue 9, item 6). The engine writes it (controller Worker:
// "snippet-export" -> main.py export_snippet -> engine/contest/snippet.py) and refuses one over a
// post's 30,000 characters with its size; this dialog asks for the question whose answers
// join the field, and optionally where the snippet gets the wheel, and shows the result.

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
      copy: $("snippet-copy"), close: $("snippet-close"),
    };
    this.send = send;
    this.challenge = challenge;
    this.ready = ready;
    this.pending = null; // {id, resolve}
    this.nextId = 0;
    const { els } = this;
    els.open.addEventListener("click", () => { els.dialog.showModal(); els.question.focus(); });
    els.form.addEventListener("submit", (e) => { e.preventDefault(); this.exportNow(); });
    els.copy.addEventListener("click", () => this.copy());
    els.close.addEventListener("click", () => els.dialog.close());
    els.dialog.addEventListener("close", () => els.open.focus());
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
    els.status.textContent = "Writing the snippet…";
    const id = `snippet-${++this.nextId}`;
    const reply = await new Promise((resolve) => {
      const timer = setTimeout(() => this.onMessage({ type: "snippet-exported", id, error: "Python did not answer" }),
        60_000);
      this.pending = { id, resolve: (m) => { clearTimeout(timer); resolve(m); } };
      this.send({ type: "snippet-export", id, challenge: JSON.stringify(this.challenge()), options: {
        question: els.question.value.trim(), site: els.site.value.trim() || "codegolf",
        wheelUrl: els.wheelUrl.value.trim(), sha256: els.sha256.value.trim(),
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
    els.status.textContent = `Snippet ready: ${reply.size.toLocaleString("en")} of the post's `
      + `${reply.limit.toLocaleString("en")} characters. It loads KotH Arena ${reply.version} (its wheel) `
      + "and Pyodide when run: publish that wheel first (docs/page.md: \"Stack Snippets\").";
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
}
