// A finished tournament as files: its leaderboard as Markdown (Copy as Markdown, Download
// .md) and all its games as one replay file. The engine writes both in the controller
// Worker (web/main.py tournament_file): the Markdown is engine/contest/leaderboard_markdown.py's,
// the text `python -m engine tournament --markdown FILE` writes for the same challenge,
// seed, secret and step budget; the games are engine/play/replay_bundle.py's tournament file,
// which Open replay… and `python -m engine replay` read back.
//
// new TournamentFiles({container, send, view, status, error})
//   view: the TournamentView (its run, and whether that run has finished: view.result)

import { saveText, fileName } from "./replay_files.js";

export class TournamentFiles {
  constructor({ container, send, view, status, error }) {
    this.send = send;
    this.view = view;
    this.hooks = { status, error };
    this.pending = null; // {what, then(text)} of the request sent
    this.markdown = null; // {run, text}: the last Markdown the engine wrote
    const make = (id, text, what, then) => {
      const b = document.createElement("button");
      b.type = "button";
      b.id = id;
      b.textContent = text;
      b.addEventListener("click", () => this.ask(what, then));
      return b;
    };
    this.buttons = [
      make("markdown-copy", "Copy as Markdown", "markdown", (text) => this.copy(text)),
      make("markdown-download", "Download .md", "markdown", (text) => {
        saveText(fileName("leaderboard").replace(/\.json$/, ".md"), text, "text/markdown");
        this.hooks.status("Downloaded the leaderboard as Markdown.");
      }),
      make("tournament-download", "Download all games", "bundle", (text) => {
        saveText(fileName("tournament", this.view.result?.game || ""), text);
        this.hooks.status("Downloaded all the tournament's games as one replay file; Open replay… reads it back.");
      }),
    ];
    this.out = document.createElement("textarea");
    this.out.id = "markdown-out";
    this.out.readOnly = true;
    this.out.rows = 6;
    this.out.hidden = true;
    this.out.setAttribute("aria-label", "Leaderboard as Markdown");
    const row = document.createElement("div");
    row.className = "buttons tournament-files";
    row.append(...this.buttons);
    container.replaceChildren(row, this.out);
    this.refresh();
  }

  // Buttons work once the view's tournament has finished.
  refresh() {
    const done = this.view.run !== null && !this.view.running && !!this.view.result;
    for (const b of this.buttons) b.disabled = !done;
    if (!done) this.out.hidden = true;
  }

  ask(what, then) {
    if (this.view.run === null || !this.view.result) {
      this.hooks.error("No finished tournament is on show to save.");
      return;
    }
    this.pending = { what, then, run: this.view.run };
    this.send({ type: "tournament-file", run: this.view.run, what, date: new Date().toISOString().slice(0, 10) });
  }

  // A controller message: true when handled.
  onMessage(m) {
    if (m && (m.type === "tournament-done" || m.type === "tournament-progress" || m.type === "stopped")) {
      queueMicrotask(() => this.refresh());
      return false;
    }
    if (!m || m.type !== "tournament-file") return false;
    const p = this.pending;
    if (!p || p.run !== m.run || p.what !== m.what) return true;
    this.pending = null;
    if (typeof m.text !== "string") {
      this.hooks.error(`The tournament could not be saved: ${m.error || "no text"}.`);
      return true;
    }
    if (p.what === "markdown") this.markdown = { run: m.run, text: m.text };
    p.then(m.text);
    return true;
  }

  async copy(text) {
    this.out.value = text;
    this.out.hidden = false;
    try {
      await navigator.clipboard.writeText(text);
      this.hooks.status("The leaderboard is on the clipboard as Markdown: paste it into the question.");
    } catch {
      this.out.focus();
      this.out.select();
      this.hooks.status("The leaderboard as Markdown is in the box below it: copy it from there.");
    }
  }
}
