// The bot panels: one per seat (or tournament entry), each a name, an example menu, a code
// editor, a console and the Python 2 view. They show the store's bots of the game on show and
// write edits through to it. Made when first needed (an editor costs time at start-up).

import { createEditor } from "../editor.js";
import { BotConsole } from "../console.js";
import { Python2Panel, languageField, languageOf } from "../python2.js";
import * as storage from "../storage.js";
import * as challengeModel from "../challenge_model.js";
import { MAX_PANELS } from "./store.js";
import { VERSION_OPTION, earlierVersions } from "./earlier_versions.js";

const ENTRY_OPTION = "entry:"; // a seat's example menu value for an entry of the challenge

export function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

export function createBotPanels(app) {
  const { store, els } = app;
  const panels = [];
  const game = () => store.settings.game;

  function ensurePanels(count) {
    while (panels.length < Math.min(count, MAX_PANELS)) panels.push(makePanel(panels.length));
  }

  function makePanel(i) {
    const frag = document.getElementById("bot-panel-template").content.cloneNode(true);
    const root = frag.querySelector(".bot-panel");
    const n = i + 1;
    const id = `bot${n}`;
    root.id = `${id}-panel`;
    root.setAttribute("aria-labelledby", `${id}-title`);
    const title = root.querySelector(".bot-title");
    title.id = `${id}-title`;
    title.textContent = `Bot ${n}`;
    const name = root.querySelector(".bot-name");
    name.id = `${id}-name`;
    const nameLabel = root.querySelector(".name-label");
    nameLabel.htmlFor = name.id;
    nameLabel.textContent = `Bot ${n} name`;
    const ex = root.querySelector(".bot-example");
    ex.id = `${id}-example`;
    const exLabel = root.querySelector(".example-label");
    exLabel.htmlFor = ex.id;
    exLabel.textContent = `Bot ${n} example`;
    const con = root.querySelector(".console");
    con.id = `${id}-console`;
    con.setAttribute("aria-label", `Bot ${n} console`);
    root.querySelector(".console-title").textContent = `Bot ${n} console`;
    const clearBtn = root.querySelector(".clear-console");
    clearBtn.setAttribute("aria-label", `Clear console of Bot ${n}`);
    els.panels.append(root);
    const b = store.botsOf(game())[i];
    name.value = b.name;
    const editor = createEditor(root.querySelector(".editor"), {
      label: `Bot ${n} code`,
      doc: b.code,
      onChange: (text) => {
        if (store.switching) return;
        store.botsOf(game())[i].code = text;
        if (pasted !== null) renameAfterPaste(i, text, pasted);
        pasted = null;
        store.saveBots(game());
        panels[i]?.python2.codeChanged();
        if (panels[i]) showExampleChoice(panels[i]);
      },
    });
    // The text of a paste into this editor, until the change it makes (renameAfterPaste).
    let pasted = null;
    root.querySelector(".editor").addEventListener("paste", (ev) => {
      pasted = ev.clipboardData ? ev.clipboardData.getData("text/plain") : null;
      setTimeout(() => { pasted = null; }, 0); // the editor inserts it in this event, or not at all
    }, true);
    const panel = { root, name, ex, editor, console: new BotConsole(con) };
    panel.console.onJump = (record, turn) => app.board.jumpTo(record, turn);
    panel.python2 = python2Panel(root, i, editor);
    name.addEventListener("input", () => {
      store.botsOf(game())[i].name = name.value;
      store.saveBots(game());
      showExampleChoice(panel);
    });
    ex.addEventListener("change", () => {
      if (ex.value.startsWith(ENTRY_OPTION)) {
        const entry = challengeModel.entry(Number(ex.value.slice(ENTRY_OPTION.length)));
        if (entry) loadSeatEntry(i, entry);
        return;
      }
      if (ex.value.startsWith(VERSION_OPTION)) {
        const version = panel.versions.find((v) => v.value === ex.value);
        if (version) loadSeatEntry(i, { name: version.label, code: version.code, language: version.language });
        return;
      }
      const src = store.examplesOf(game())[ex.value];
      if (typeof src !== "string") return;
      loadExample(i, ex.value, src);
    });
    clearBtn.addEventListener("click", () => panel.console.clear());
    ex.addEventListener("focus", () => fillExampleSelect(panel)); // the kept versions may have changed
    fillExampleSelect(panel);
    return panel;
  }

  // The panel's language choice and Python 2 view (web/src/python2.js).
  function python2Panel(root, i, editor) {
    return new Python2Panel({
      root,
      n: i + 1,
      getCode: () => editor.value,
      getLanguage: () => languageOf(store.botsOf(game())[i]),
      setLanguage: (language) => {
        const bot = store.botsOf(game())[i];
        delete bot.language;
        Object.assign(bot, languageField({ language }));
        store.saveBots(game());
      },
      send: (message) => app.controller.send(message),
    });
  }

  // Code pasted over an example's (the paste is most of the new code) is another bot: a name
  // that was the example's becomes "Bot N", so results do not credit the example for it. A
  // name the visitor typed (not a default one) is theirs and stays.
  function renameAfterPaste(i, text, pasted) {
    const g = game();
    const p = panels[i];
    const name = p ? p.name.value.trim() : "";
    const examples = store.examplesOf(g);
    if (!p || !Object.hasOwn(examples, name) || text === examples[name]) return;
    if (pasted.trim().length * 2 < text.trim().length) return; // a small paste edits the example
    p.name.value = `Bot ${i + 1}`;
    store.botsOf(g)[i].name = p.name.value;
  }

  // What the seat's Example menu shows: the example its code is, "NAME (edited)" for an
  // example's name over changed code, "Own code" for anything else.
  function showExampleChoice(p) {
    const examples = store.examplesOf(game());
    const first = p.ex.querySelector("option[value='']");
    if (!first || !Object.keys(examples).length) return;
    const code = p.editor.value;
    const same = Object.keys(examples).find((k) => examples[k] === code);
    const name = p.name.value.trim();
    if (same) {
      first.textContent = "Examples…";
      p.ex.value = same;
      return;
    }
    first.textContent = !code.trim() ? "Examples…" : Object.hasOwn(examples, name) ? `${name} (edited)` : "Own code";
    p.ex.value = "";
  }

  function loadExample(i, exName, src) {
    const g = game();
    const p = panels[i];
    p.editor.value = src; // onChange saves the code
    store.botsOf(g)[i].code = src;
    delete store.botsOf(g)[i].language; // the examples are Python 3
    p.python2.show();
    if (store.isDefaultName(g, p.name.value)) {
      p.name.value = exName;
      store.botsOf(g)[i].name = exName;
    }
    store.saveBots(g);
    showExampleChoice(p);
  }

  // A seat of the match plays an entry of the field (or an earlier version): its code and name.
  function loadSeatEntry(i, entry) {
    const g = game();
    panels[i].editor.value = entry.code;
    store.botsOf(g)[i].code = entry.code;
    if (entry.language) {
      delete store.botsOf(g)[i].language;
      Object.assign(store.botsOf(g)[i], languageField(entry));
      panels[i].python2.show();
    }
    const name = entry.name.slice(0, storage.MAX_NAME_CHARS);
    panels[i].name.value = name;
    store.botsOf(g)[i].name = name;
    store.saveBots(g);
    showExampleChoice(panels[i]);
  }

  function fillExampleSelect(p) {
    const names = Object.keys(store.examplesOf(game()));
    const first = document.createElement("option");
    first.value = "";
    first.textContent = names.length ? "Examples…" : (store.ready ? "No examples" : "Examples load with Python…");
    const opts = [first, ...names.map((n) => option(n, n))];
    const field = challengeModel.entries().filter((e) => !e.code.startsWith("builtin:"));
    if (field.length) {
      const group = document.createElement("optgroup");
      group.label = "Challenge entries";
      group.append(...field.map((e) => option(`${ENTRY_OPTION}${e.id}`, e.name)));
      opts.push(group);
    }
    p.versions = earlierVersions(game(), store.botsOf(game()));
    if (p.versions.length) {
      const group = document.createElement("optgroup");
      group.label = "Earlier versions (play against one)";
      group.append(...p.versions.map((v) => option(v.value, v.label)));
      opts.push(group);
    }
    p.ex.replaceChildren(...opts);
    p.ex.value = "";
    p.ex.disabled = !names.length && !field.length && !p.versions.length;
    showExampleChoice(p);
  }

  function showBots() {
    const g = game();
    const count = store.botCount(g);
    ensurePanels(count);
    store.switching = true;
    try {
      panels.forEach((p, i) => {
        p.root.hidden = i >= count;
        const b = store.botsOf(g)[i];
        if (p.name.value !== b.name) p.name.value = b.name;
        if (p.editor.value !== b.code) p.editor.value = b.code;
        showExampleChoice(p);
        if (i < count) p.python2.show();
      });
    } finally {
      store.switching = false;
    }
    const [lo, hi] = store.panelBounds(g);
    els.botCount.hidden = lo === hi;
    els.addBot.disabled = count >= hi;
    els.removeBot.disabled = count <= lo;
    els.botLimits.textContent = !store.specOf(g) ? ""
      : store.tournamentMode() ? `A tournament's field here has ${lo} to ${hi} entries.`
        : lo === hi ? `This preset plays with ${lo} bots.` : `This preset plays with ${lo} to ${hi} bots.`;
    app.tournament.showField();
  }

  return {
    list: panels,
    showBots,
    fillExampleSelects: () => panels.forEach(fillExampleSelect),
    // The seats' bots as a run plays them (the editors' code).
    runBots(count) {
      return store.botsOf(game()).slice(0, count).map((b, i) => ({
        name: b.name.trim() || `Bot ${i + 1}`,
        code: panels[i].editor.value,
        language: languageOf(b), // python2: the controller converts it (engine/bots/python2.py)
      }));
    },
  };
}
