// The challenge section of the page: the author's view (title, description, the entries
// panel with one editor open at a time, export/import of the challenge file, share links)
// and the trial-version view (the author's field shown, read-only, and one "Your bot" editor
// that plays against the whole field without changing it). The field lives in
// challenge_model.js; files and links are checked by the engine in the controller Worker
// (check(text) -> {challenge} | {error}); the tournament is TOURNEY's (runField).

import * as model from "./challenge_model.js";
import * as store from "./storage.js";
import { GameLoadPrompt } from "./challenge_game.js";
import { EntryListView } from "./challenge_entries_view.js";
import { TrialView } from "./challenge_trial.js";
import { ChallengeFiles } from "./challenge_files.js";

const $ = (id) => document.getElementById(id);

export class ChallengePanel {
  // deps: {createEditor, examples() -> {name: code}, check(text) -> Promise<{challenge}|{error}>,
  //        runField(challenge, focusName) -> bool (false: tournaments cannot run now),
  //        showField() (tournament mode: the challenge is the field),
  //        gameLoaded(game, source) -> bool (that author's game is loaded from that source),
  //        loadGame(source) -> Promise<{spec}|{error, line}> (the game editor's path),
  //        pageError(text), pageStatus(text)}
  constructor(deps) {
    this.deps = deps;
    this.els = {
      section: $("challenge"), status: $("challenge-status"),
      viewTrial: $("view-trial"), viewAuthor: $("view-author"), trial: $("challenge-trial"), author: $("challenge-author"),
      kept: $("challenge-kept"), keptText: $("challenge-kept-text"), restore: $("challenge-restore"),
      discard: $("challenge-discard"),
      title: $("challenge-title"), description: $("challenge-description"),
      exportBtn: $("export-challenge"), importBtn: $("import-challenge"), file: $("challenge-file"),
      share: $("share-challenge"), linkBox: $("challenge-link-box"), url: $("challenge-url"),
      warning: $("challenge-link-warning"), warningText: $("challenge-link-warning-text"),
      warningExport: $("challenge-link-export"),
      list: $("entry-list"), count: $("entry-count"), add: $("add-entry"), undo: $("undo-delete"),
      trialTitle: $("trial-title"), trialDescription: $("trial-description"), trialEntries: $("trial-entries"),
      yourName: $("your-bot-name"), yourEditorHost: $("your-bot-editor"), runField: $("run-against-field"),
      trialRank: $("trial-rank"),
    };
    this.body = null; // the open entry's {id, el, editor, nameInput, ...}
    this.yourEditor = null;
    this.game = model.currentGame();
    this.view = store.load("challenge:view", "author") === "trial" ? "trial" : "author";
    this.yourRun = null; // {name} of the last "Run my bot against the field"
    this.gamePrompt = new GameLoadPrompt(this.els.status);
    this.bind();
    model.subscribe((change) => this.onChange(change || {}));
    this.renderAll();
  }

  // ---- wiring ------------------------------------------------------------------------------
  bind() {
    const e = this.els;
    e.viewTrial.addEventListener("click", () => this.setView("trial"));
    e.viewAuthor.addEventListener("click", () => this.setView("author"));
    e.title.addEventListener("input", () => model.setDetails({ title: e.title.value }));
    e.description.addEventListener("input", () => model.setDetails({ description: e.description.value }));
    e.add.addEventListener("click", () => this.addEntry());
    e.undo.addEventListener("click", () => {
      const id = model.undoDelete();
      if (id !== null) {
        this.say(`${model.entry(id).name} is back.`);
        this.focusLater(`[data-id="${id}"] .entry-open`);
      }
    });
    e.exportBtn.addEventListener("click", () => this.exportFile());
    e.warningExport.addEventListener("click", () => this.exportFile());
    e.importBtn.addEventListener("click", () => e.file.click());
    e.file.addEventListener("change", async () => {
      const f = e.file.files && e.file.files[0];
      e.file.value = "";
      if (f) await this.importFile(f);
    });
    e.share.addEventListener("click", () => this.shareLink());
    e.restore.addEventListener("click", () => {
      if (model.restoreKept()) this.say("Your previous challenge is back; the one it replaced is kept.");
      e.restore.focus();
    });
    e.discard.addEventListener("click", () => {
      model.discardKept();
      this.showKept();
      e.add.focus();
    });
    // Drag-and-drop of a challenge file anywhere on the section.
    e.section.addEventListener("dragover", (ev) => {
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      ev.dataTransfer.dropEffect = "copy";
      e.section.classList.add("dropping");
    });
    e.section.addEventListener("dragleave", (ev) => {
      if (!e.section.contains(ev.relatedTarget)) e.section.classList.remove("dropping");
    });
    e.section.addEventListener("drop", (ev) => {
      e.section.classList.remove("dropping");
      if (!hasFiles(ev)) return;
      ev.preventDefault();
      const f = ev.dataTransfer.files[0];
      if (f) this.importFile(f);
    });
    e.yourName.addEventListener("input", () => this.saveYourBot());
    e.runField.addEventListener("click", () => this.runYourBot());
  }

  onChange(change) {
    const game = model.currentGame();
    if (game !== this.game) {
      this.game = game;
      this.closeBody();
      this.renderAll();
      return;
    }
    switch (change.type) {
      case "edit": this.renderSummary(change.id); break;
      case "details": this.renderTrial(); break;
      case "settings": this.renderList(); this.renderTrial(); break;
      case "added":
        this.renderAll();
        if (change.skipped && change.skipped.length) {
          this.say(`${change.added} added; not added: ${change.skipped.map((s) => `${s.name} (${s.reason})`).join(", ")}.`);
        }
        break;
      default: this.renderAll();
    }
  }

  setView(view) {
    this.view = view;
    store.save("challenge:view", view);
    this.renderView();
    (view === "trial" ? this.els.viewTrial : this.els.viewAuthor).focus();
  }

  // ---- rendering ---------------------------------------------------------------------------
  renderAll() {
    const d = model.details();
    const e = this.els;
    if (document.activeElement !== e.title) e.title.value = d.title;
    if (document.activeElement !== e.description) e.description.value = d.description;
    this.renderList();
    this.renderTrial();
    this.renderView();
    this.showKept();
  }

  renderView() {
    const trial = this.view === "trial";
    this.els.trial.hidden = !trial;
    this.els.author.hidden = trial;
    this.els.viewTrial.setAttribute("aria-pressed", String(trial));
    this.els.viewAuthor.setAttribute("aria-pressed", String(!trial));
    document.body.classList.toggle("trial-view", trial);
    if (trial) this.ensureYourEditor();
  }


  showKept() {
    const kept = model.keptChallenge();
    this.els.kept.hidden = !kept;
    if (!kept) return;
    const title = kept.field && kept.field.title ? ` “${kept.field.title}”` : "";
    const n = kept.field && Array.isArray(kept.field.entries) ? kept.field.entries.length : 0;
    const count = `${n} entr${n === 1 ? "y" : "ies"}`;
    this.els.keptText.textContent = kept.reason === "restored"
      ? `The challenge you restored over${title} (${count}) is kept too.`
      : kept.reason === "tab" ? `Another tab saved this field at the same time: its version${title} (${count}) is kept.`
        : `Your previous challenge${title} (${count}) is kept: nothing of yours was lost.`;
    this.els.restore.textContent = kept.reason === "restored" ? "Swap back" : "Restore my previous challenge";
  }

  // ---- messages ------------------------------------------------------------------------------
  say(text) {
    this.els.status.classList.remove("error");
    this.els.status.textContent = text;
  }

  fail(text) {
    this.els.status.classList.add("error");
    this.els.status.textContent = text;
    this.deps.pageError(text);
  }

  focusLater(selector) {
    requestAnimationFrame(() => {
      const el = selector.startsWith("#") ? document.querySelector(selector) : this.els.list.querySelector(selector);
      if (el && !el.disabled && !el.hidden) el.focus();
    });
  }
}

// The panel's parts (one module each) act on the one panel object.
for (const part of [EntryListView, TrialView, ChallengeFiles]) {
  for (const name of Object.getOwnPropertyNames(part.prototype)) {
    if (name !== "constructor") Object.defineProperty(ChallengePanel.prototype, name,
      Object.getOwnPropertyDescriptor(part.prototype, name));
  }
}

function hasFiles(ev) {
  return ev.dataTransfer && Array.from(ev.dataTransfer.types || []).includes("Files");
}
