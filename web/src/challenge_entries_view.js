// The challenge panel's author view of the field: the entries list, the one entry open
// with its editor, name, author and language, and adding, moving and deleting entries. Its
// methods are the ChallengePanel's (challenge_panel.js mixes them in).

import * as model from "./challenge_model.js";

export class EntryListView {
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
}

// ---- small helpers ---------------------------------------------------------------------------

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

export function summary(entry) {
  const lines = entry.code ? entry.code.split("\n").filter((l) => l.trim()).length : 0;
  const parts = [];
  if (entry.author) parts.push(`by ${entry.author}`);
  if (entry.language === "python2") parts.push("Python 2");
  parts.push(entry.code.startsWith("builtin:") ? `built-in ${entry.code.slice(8)}` : `${lines} line${lines === 1 ? "" : "s"}`);
  if (!entry.enabled) parts.push("off");
  return parts.join(" · ");
}
