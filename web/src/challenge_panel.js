// The challenge section of the page: the author's view (title, description, the entries
// panel with one editor open at a time, export/import of the challenge file, share links)
// and the trial-version view (the author's field shown, read-only, and one "Your bot" editor
// that plays against the whole field without changing it). The field lives in
// challenge_model.js; files and links are checked by the engine in the controller Worker
// (check(text) -> {challenge} | {error}); the tournament is TOURNEY's (runField).

import * as model from "./challenge_model.js";
import { LinkError, LINK_PREFIX, limitsPassed, packChallenge, unpackChallenge } from "./challenge_link.js";
import * as store from "./storage.js";
import { carriedGame, GameLoadPrompt } from "./challenge_game.js";

const MAX_FILE_BYTES = 16 * 1024 * 1024; // a challenge of 32 entries of 256 KiB fits easily
const YOUR_BOT_DEFAULT = "Your bot";
// The first line of "Your bot" until the visitor writes their own: the editor starts as a
// marked copy of the game's first example (a bot that plays, to learn the game's API from),
// and Run refuses it unedited, since its rank would be the example's, not the visitor's.
const startLine = (example) => `# Your bot starts as a copy of the example "${example}": edit it, then run it against the field.\n`;

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

  renderList() {
    const list = model.entries();
    const open = model.openId();
    if (this.body && this.body.id !== open) this.closeBody();
    const items = list.map((entry, i) => this.entryItem(entry, i, list.length, entry.id === open));
    if (!items.length) {
      const empty = document.createElement("li");
      empty.className = "entry-empty";
      empty.textContent = "No entries yet: Add entry starts one from an example; or import a challenge file.";
      items.push(empty);
    }
    this.els.list.replaceChildren(...items);
    this.els.count.textContent = `${list.length} of ${model.MAX_ENTRIES} · ${list.filter((x) => x.enabled).length} playing`;
    this.els.add.disabled = list.length >= model.MAX_ENTRIES;
    this.els.undo.hidden = !model.canUndoDelete();
  }

  entryItem(entry, index, total, isOpen) {
    const li = document.createElement("li");
    li.className = `entry${entry.enabled ? "" : " off"}${isOpen ? " open" : ""}`;
    li.dataset.id = String(entry.id);
    const head = document.createElement("div");
    head.className = "entry-head";
    const on = document.createElement("input");
    on.type = "checkbox";
    on.className = "entry-on";
    on.checked = entry.enabled;
    on.setAttribute("aria-label", `${entry.name} plays`);
    on.addEventListener("change", () => {
      model.setEnabled(entry.id, on.checked);
      this.say(`${entry.name} ${on.checked ? "plays" : "does not play"} in the tournament.`);
      this.focusLater(`[data-id="${entry.id}"] .entry-on`);
    });
    const openBtn = button(entry.name, "entry-open");
    const caret = document.createElement("span");
    caret.className = "entry-caret";
    caret.setAttribute("aria-hidden", "true");
    caret.textContent = isOpen ? " ▾" : " ▸";
    openBtn.append(caret);
    openBtn.setAttribute("aria-expanded", String(isOpen));
    openBtn.setAttribute("aria-controls", `entry-body-${entry.id}`);
    openBtn.title = isOpen ? "Close the editor" : "Open in the editor";
    openBtn.addEventListener("click", () => {
      model.openEntry(isOpen ? null : entry.id);
      this.focusLater(`[data-id="${entry.id}"] .entry-open`);
    });
    const meta = document.createElement("span");
    meta.className = "entry-meta";
    meta.textContent = summary(entry);
    const tools = document.createElement("span");
    tools.className = "entry-tools";
    const up = button("↑", "entry-up", `Move ${entry.name} up`);
    up.disabled = index === 0;
    up.addEventListener("click", () => this.move(entry.id, -1, ".entry-up"));
    const down = button("↓", "entry-down", `Move ${entry.name} down`);
    down.disabled = index === total - 1;
    down.addEventListener("click", () => this.move(entry.id, 1, ".entry-down"));
    const dup = button("Duplicate", "entry-dup", `Duplicate ${entry.name}`);
    dup.disabled = total >= model.MAX_ENTRIES;
    dup.addEventListener("click", () => {
      const id = model.duplicateEntry(entry.id);
      if (id !== null) {
        this.say(`Added ${model.entry(id).name}.`);
        this.focusLater(`[data-id="${id}"] .entry-name`);
      }
    });
    const del = button("Delete", "entry-del", `Delete ${entry.name}`);
    del.addEventListener("click", () => {
      const name = model.deleteEntry(entry.id);
      if (name !== null) {
        this.say(`Deleted ${name}. Undo delete puts it back.`);
        this.focusLater("#undo-delete");
      }
    });
    tools.append(up, down, dup, del);
    head.append(on, openBtn, meta, tools);
    li.append(head);
    if (isOpen) li.append(this.openBody(entry));
    return li;
  }

  // The open entry's fields and its editor (kept across re-renders while it stays open).
  openBody(entry) {
    if (this.body && this.body.id === entry.id) {
      const b = this.body;
      if (document.activeElement !== b.name) b.name.value = entry.name;
      if (b.editor.value !== entry.code && !b.el.contains(document.activeElement)) b.editor.value = entry.code;
      b.editor.setLabel(`${entry.name} code`);
      return b.el;
    }
    this.closeBody();
    const el = document.createElement("div");
    el.className = "entry-body";
    el.id = `entry-body-${entry.id}`;
    const row = document.createElement("div");
    row.className = "entry-fields";
    const name = field(row, "Entry name", "entry-name", entry.id, entry.name, model.MAX_NAME_CHARS);
    const author = field(row, "Author", "entry-author", entry.id, entry.author || "", model.MAX_NAME_CHARS);
    const link = field(row, "Answer link", "entry-link", entry.id, entry.link || "", 2000, "url");
    const nameError = document.createElement("p");
    nameError.className = "entry-error";
    nameError.id = `entry-name-error-${entry.id}`;
    name.setAttribute("aria-describedby", nameError.id);
    name.addEventListener("change", () => {
      const why = model.renameEntry(entry.id, name.value);
      nameError.textContent = why ? `Not renamed: ${why}.` : "";
      name.setAttribute("aria-invalid", why ? "true" : "false");
      if (!why) this.focusLater(`[data-id="${entry.id}"] .entry-name`);
    });
    author.addEventListener("input", () => model.editEntry(entry.id, { author: author.value }));
    link.addEventListener("input", () => model.editEntry(entry.id, { link: link.value }));
    const language = languageSelect(row, entry);
    // Python 3 is the file's default: written as no language at all (docs/bots.md "Python 2 answers")
    language.addEventListener("change", () => model.editEntry(entry.id, {
      language: language.value === "python2" ? "python2" : "" }));
    const exWrap = document.createElement("div");
    exWrap.className = "field";
    const exLabel = document.createElement("label");
    exLabel.textContent = "Start from an example";
    exLabel.htmlFor = `entry-example-${entry.id}`;
    const ex = document.createElement("select");
    ex.id = exLabel.htmlFor;
    ex.className = "entry-example";
    const examples = this.deps.examples();
    ex.append(new Option(Object.keys(examples).length ? "Own code" : "No examples yet", ""));
    for (const n of Object.keys(examples)) ex.append(new Option(n, n));
    // The menu shows the example the code is (issue 18), "Own code" once it is not.
    const showExample = (code) => { ex.value = Object.keys(examples).find((n) => examples[n] === code) ?? ""; };
    showExample(entry.code);
    ex.addEventListener("change", () => {
      const chosen = ex.value;
      const code = examples[chosen];
      if (typeof code !== "string") return;
      this.body.editor.value = code; // onChange saves it
      const current = model.entry(entry.id);
      // A name that was an example's (or the default) follows the example chosen, when free.
      if (current && (Object.hasOwn(examples, current.name) || /^Entry( \d+)?$/.test(current.name))) {
        model.renameEntry(entry.id, chosen); // taken: the name stays (a field's names are unique)
      }
    });
    exWrap.append(exLabel, ex);
    row.append(exWrap);
    const host = document.createElement("div");
    host.className = "editor";
    el.append(row, nameError, host);
    const editor = this.deps.createEditor(host, {
      label: `${entry.name} code`, doc: entry.code,
      onChange: (text) => { model.editEntry(entry.id, { code: text }); showExample(text); },
    });
    this.body = { id: entry.id, el, editor, name };
    return el;
  }

  closeBody() {
    if (!this.body) return;
    this.body.editor.destroy();
    this.body = null;
  }

  renderSummary(id) {
    const entry = model.entry(id);
    const meta = this.els.list.querySelector(`[data-id="${id}"] .entry-meta`);
    if (entry && meta) meta.textContent = summary(entry);
  }

  renderTrial() {
    const d = model.details();
    const e = this.els;
    e.trialTitle.textContent = d.title;
    e.trialDescription.textContent = d.description;
    e.trialDescription.hidden = !d.description.trim();
    const items = model.entries().map((entry) => {
      const li = document.createElement("li");
      li.className = `trial-entry${entry.enabled ? "" : " off"}`;
      const head = document.createElement("span");
      head.className = "trial-entry-name";
      if (entry.link && /^https?:\/\//.test(entry.link)) {
        const a = document.createElement("a");
        a.href = entry.link;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        a.textContent = entry.name;
        head.append(a);
      } else {
        head.textContent = entry.name;
      }
      const meta = document.createElement("span");
      meta.className = "entry-meta";
      meta.textContent = summary(entry);
      const code = document.createElement("details");
      const sum = document.createElement("summary");
      sum.textContent = "Code";
      sum.setAttribute("aria-label", `Code of ${entry.name}`);
      const pre = document.createElement("pre");
      pre.textContent = entry.code; // shown, never run until Run
      pre.tabIndex = 0;
      pre.setAttribute("aria-label", `Code of ${entry.name}`);
      code.append(sum, pre);
      li.append(head, meta, code);
      return li;
    });
    e.trialEntries.replaceChildren(...items);
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

  // ---- entries -------------------------------------------------------------------------------
  addEntry() {
    const examples = this.deps.examples();
    const names = Object.keys(examples);
    const pick = names.length ? names[model.entries().length % names.length] : null;
    const id = model.addEntry(pick ? examples[pick] : "", pick || "Entry");
    if (id === null) {
      this.say(`The field is full: at most ${model.MAX_ENTRIES} entries.`);
      return;
    }
    this.say(`Added ${model.entry(id).name}.`);
    this.focusLater(`[data-id="${id}"] .entry-name`);
  }

  move(id, delta, selector) {
    if (!model.moveEntry(id, delta)) return;
    const list = model.entries();
    const i = list.findIndex((e) => e.id === id);
    this.say(`${list[i].name} is now number ${i + 1} of ${list.length}.`);
    // keep the focus on the same button, or on the other one at either end
    const other = selector === ".entry-up" ? ".entry-down" : ".entry-up";
    const atEnd = (delta < 0 && i === 0) || (delta > 0 && i === list.length - 1);
    this.focusLater(`[data-id="${id}"] ${atEnd ? other : selector}`);
  }

  // ---- files ---------------------------------------------------------------------------------
  async exportFile() {
    model.flush();
    const checked = await this.checked(JSON.stringify(model.currentChallenge()), "Cannot export the challenge");
    if (!checked) return;
    const text = `${JSON.stringify(checked, null, 2)}\n`;
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = `${slug(checked.title)}.challenge.json`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    this.say(`Exported ${a.download}: ${checked.entries.length} entries.`);
  }

  async importFile(file) {
    if (file.size > MAX_FILE_BYTES) {
      this.fail(`Could not import ${file.name}: it is ${file.size.toLocaleString("en")} bytes; a challenge file `
        + `is at most ${MAX_FILE_BYTES.toLocaleString("en")}. Nothing was changed.`);
      return;
    }
    let text;
    try {
      text = await file.text();
    } catch (e) {
      this.fail(`Could not read ${file.name}: ${e.message}. Nothing was changed.`);
      return;
    }
    await this.importText(text, file.name, "file");
  }

  // A challenge file's (or link's) text: checked by the engine, then it replaces the field on
  // show (which is kept aside). Returns whether it was taken.
  async importText(text, what, reason) {
    if (!(await this.loadCarriedGame(text, what))) return false;
    const c = await this.checked(text, `Could not open ${what}`, " Nothing was changed.");
    if (!c) return false;
    if (c.entries.length > model.MAX_ENTRIES) {
      this.fail(`Could not open ${what}: it has ${c.entries.length} entries; the page holds at most `
        + `${model.MAX_ENTRIES} (python -m engine tournament --challenge FILE plays any number). Nothing was changed.`);
      return false;
    }
    model.replaceChallenge(c, reason);
    this.deps.pageError("");
    const n = c.entries.length;
    this.say(`Opened “${c.title}”: ${n} entr${n === 1 ? "y" : "ies"} of ${c.game}. `
      + "Nothing runs until you press Run.");
    return true;
  }

  // A challenge on an author's game carries its module: loaded (after the visitor's press:
  // it is a stranger's code) before the engine checks the challenge. Whether to go on.
  async loadCarriedGame(text, what) {
    const carried = carriedGame(text);
    if (!carried || this.deps.gameLoaded(carried.game, carried.source)) return true;
    this.deps.showField();
    this.say(`${what[0].toUpperCase()}${what.slice(1)} plays its own game: press Load this game to open it.`);
    if (!(await this.gamePrompt.ask(carried, what))) {
      this.say(`Did not open ${what}: its game was not loaded. Nothing was changed.`);
      return false;
    }
    this.say(`Loading “${carried.game}” (its code runs in a Worker of its own)…`);
    let out;
    try {
      out = await this.deps.loadGame(carried.source);
    } catch (e) {
      out = { error: e.message };
    }
    if (!out || typeof out.error === "string" || !out.spec) {
      const line = out && Number.isInteger(out.line) ? ` (line ${out.line} of its game module)` : "";
      this.fail(`Could not open ${what}: its game did not load: ${out && out.error ? out.error : "no answer"}${line}. `
        + "Nothing was changed; ask its author for a working game module.");
      return false;
    }
    return true;
  }

  // The engine's verdict on a challenge's text: the checked challenge, or null (message shown).
  async checked(text, failLead, after = "") {
    this.say("Checking the challenge with the engine…");
    let out;
    try {
      out = await this.deps.check(text);
    } catch (e) {
      out = { error: e.message };
    }
    if (out && out.challenge) return out.challenge;
    this.fail(`${failLead}: ${out && out.error ? out.error : "the engine did not answer"}.${after}`);
    return null;
  }

  // ---- links ---------------------------------------------------------------------------------
  async shareLink() {
    model.flush();
    const c = await this.checked(JSON.stringify(model.currentChallenge()), "Cannot make a link");
    if (!c) return;
    const url = `${location.origin}${location.pathname}${location.search}#${LINK_PREFIX}${await packChallenge(c)}`;
    const e = this.els;
    e.url.value = url;
    e.linkBox.hidden = false;
    const passed = limitsPassed(url.length);
    e.warning.hidden = !passed.length;
    if (passed.length) {
      e.warningText.textContent = `This link is ${url.length.toLocaleString("en")} characters: longer than `
        + `${passed.map((l) => l.where).join("; ")}. Where it may be cut, share the challenge file instead.`;
    }
    let copied = false;
    try {
      await navigator.clipboard.writeText(url);
      copied = true;
    } catch {
      e.url.focus();
      e.url.select();
    }
    this.say(`${copied ? "Challenge link copied to the clipboard" : "Challenge link ready: copy it from the box"} `
      + `(${url.length.toLocaleString("en")} characters).${passed.length ? " It is long: see the warning." : ""}`);
  }

  // Opens "#c=DATA" (app.js hands it over). Returns a promise of whether it was taken.
  async openLink(data) {
    let text;
    try {
      text = await unpackChallenge(data);
    } catch (e) {
      const why = e instanceof LinkError ? e.message : String(e);
      this.fail(`Could not open the challenge link: ${why}. Ask for the link again, or for the challenge file. `
        + "Nothing was changed.");
      return false;
    }
    const taken = await this.importText(text, "the challenge link", "link");
    if (taken) {
      history.replaceState(null, "", location.pathname + location.search);
      this.deps.showField();
      this.view = "trial";
      store.save("challenge:view", "trial");
      this.renderView();
    }
    return taken;
  }

  // ---- the trial version: your bot against the field -------------------------------------------
  yourKey() { return `challenge:yours:${model.currentGame()}`; }

  ensureYourEditor() {
    const saved = store.load(this.yourKey(), null) || {};
    if (document.activeElement !== this.els.yourName) {
      this.els.yourName.value = typeof saved.name === "string" ? saved.name : YOUR_BOT_DEFAULT;
    }
    const [first, source] = Object.entries(this.deps.examples())[0] || [];
    const code = typeof saved.code === "string" ? saved.code : first ? startLine(first) + source : "";
    if (!this.yourEditor) {
      this.yourEditor = this.deps.createEditor(this.els.yourEditorHost, {
        label: "Your bot code", doc: code, onChange: () => this.saveYourBot(),
      });
      this.yourGame = model.currentGame();
    } else if (this.yourGame !== model.currentGame()) {
      this.yourGame = model.currentGame();
      this.yourEditor.value = code;
    }
  }

  saveYourBot() {
    if (!this.yourEditor) return;
    store.save(this.yourKey(), { name: this.els.yourName.value, code: this.yourEditor.value });
  }

  // The author's field with your bot added (a copy: the field itself is not changed).
  challengeWithYourBot() {
    const c = model.currentChallenge();
    const taken = new Set(c.entries.map((e) => e.name));
    let name = this.els.yourName.value.trim() || YOUR_BOT_DEFAULT;
    if (taken.has(name)) name = `${name} (you)`.slice(0, model.MAX_NAME_CHARS);
    c.entries = c.entries.filter((e) => e.enabled !== false).concat([{ name, code: this.yourEditor.value }]);
    return { challenge: c, name };
  }

  async runYourBot() {
    this.ensureYourEditor();
    if (!this.yourEditor.value.trim()) {
      this.fail("Your bot has no code yet: write a bot in the Your bot code editor.");
      return;
    }
    const copied = this.unedited(this.yourEditor.value);
    if (copied) {
      this.fail(`Your bot is still the example “${copied}” unedited: change its code first, so that the rank is `
        + `your bot's (to see ${copied} itself play, add it to the field in the Author's view).`);
      return;
    }
    const { challenge, name } = this.challengeWithYourBot();
    const c = await this.checked(JSON.stringify(challenge), "Cannot run your bot against the field");
    if (!c) return;
    this.say(""); // checked: the tournament's own status line takes over
    this.yourRun = { name };
    this.els.trialRank.textContent = `Running ${name} against ${c.entries.length - 1} entries…`;
    if (!this.deps.runField(c, name)) {
      this.els.trialRank.textContent = "";
      this.yourRun = null;
    }
  }

  // The example a code is, with or without the starting line (null: the visitor's own).
  unedited(code) {
    const examples = this.deps.examples();
    const body = code.replace(/^# Your bot starts as a copy of the example "[^"\n]*"[^\n]*\n/, "");
    return Object.keys(examples).find((k) => examples[k].trim() === body.trim()) || null;
  }

  // The page's run ended (finished, stopped or failed): no "Running…" left behind.
  runEnded() {
    if (!this.yourRun) return;
    this.els.trialRank.textContent = `${this.yourRun.name}'s run ended before its rank was known.`;
    this.yourRun = null;
  }

  // The engine's final leaderboard of a tournament (rows with place and name, ranked by the
  // engine): where your bot placed, when it was your bot's run.
  // A tournament's first fault per entry ({name: {line, game, turn}}), marked on its line in
  // the editor that shows that entry's code: the open entry's, or "Your bot" after its run.
  markProblems(problems) {
    if (!problems || typeof problems !== "object") return;
    const where = (p) => [Number.isInteger(p.game) ? `game ${p.game + 1}` : "",
      !Number.isInteger(p.turn) ? "" : p.turn === 0 ? "at the start" : `turn ${p.turn}`].filter(Boolean).join(", ");
    const open = this.body && model.entry(this.body.id);
    for (const [name, p] of Object.entries(problems)) {
      if (!p || !Number.isInteger(p.line)) continue;
      if (open && open.name === name) this.body.editor.markFault(p.line, where(p) || "loading the bot");
      if (this.yourRun && this.yourRun.name === name && this.yourEditor) {
        this.yourEditor.markFault(p.line, where(p) || "loading the bot");
      }
    }
  }

  showRank(rows) {
    if (!this.yourRun || !Array.isArray(rows)) return;
    const mine = rows.find((r) => r && r.name === this.yourRun.name);
    if (!mine) return;
    const tied = rows.filter((r) => r.place === mine.place).length > 1;
    this.els.trialRank.textContent = `${this.yourRun.name} would rank ${ordinal(mine.place)}${tied ? " (tied)" : ""} `
      + `of ${rows.length}. The author's field is unchanged.`;
    this.yourRun = null;
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

// ---- small helpers ---------------------------------------------------------------------------

function hasFiles(ev) {
  return ev.dataTransfer && Array.from(ev.dataTransfer.types || []).includes("Files");
}

function button(text, cls, label = null) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = cls;
  b.textContent = text;
  if (label) b.setAttribute("aria-label", label);
  return b;
}

function field(parent, labelText, cls, id, value, maxLength, type = "text") {
  const wrap = document.createElement("div");
  wrap.className = "field";
  const input = document.createElement("input");
  input.type = type;
  input.className = cls;
  input.id = `${cls}-${id}`;
  input.maxLength = maxLength;
  input.value = value;
  input.autocomplete = "off";
  input.spellcheck = false;
  const label = document.createElement("label");
  label.htmlFor = input.id;
  label.textContent = labelText;
  wrap.append(label, input);
  parent.append(wrap);
  return input;
}

// The entry's language: Python 3, or a Python 2 answer (converted on load by the engine).
function languageSelect(parent, entry) {
  const wrap = document.createElement("div");
  wrap.className = "field";
  const select = document.createElement("select");
  select.className = "entry-language";
  select.id = `entry-language-${entry.id}`;
  select.append(new Option("Python 3", "python3"), new Option("Python 2", "python2"));
  select.value = entry.language === "python2" ? "python2" : "python3";
  const label = document.createElement("label");
  label.htmlFor = select.id;
  label.textContent = "Language";
  wrap.append(label, select);
  parent.append(wrap);
  return select;
}

function summary(entry) {
  const lines = entry.code ? entry.code.split("\n").filter((l) => l.trim()).length : 0;
  const parts = [];
  if (entry.author) parts.push(`by ${entry.author}`);
  if (entry.language === "python2") parts.push("Python 2");
  parts.push(entry.code.startsWith("builtin:") ? `built-in ${entry.code.slice(8)}` : `${lines} line${lines === 1 ? "" : "s"}`);
  if (!entry.enabled) parts.push("off");
  return parts.join(" · ");
}

function slug(title) {
  return String(title || "challenge").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60)
    || "challenge";
}

function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${s}`;
}
