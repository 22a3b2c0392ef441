// The settings form: the game menu, its presets and fields (built from the engine's specs),
// seed, games and the bot count. It shows the store's settings and writes changes through.

import { showModeHelp } from "../help_text.js";
import * as challengeModel from "../challenge_model.js";
import { option } from "./bot_panels.js";

export function readInt(input, label, lo, hi) {
  const raw = input.value.trim();
  if (!/^-?\d+$/.test(raw)) throw new Error(`${label} must be a whole number`);
  const v = Number(raw);
  if (v < lo || v > hi) throw new Error(`${label} must be between ${lo} and ${hi}`);
  return v;
}

export function createSettingsForm(app) {
  const { store, els } = app;
  const fieldInputs = new Map(); // key -> input of the game's editable settings

  function fillGames() {
    if (!store.specs.length) {
      els.game.replaceChildren(option("", "Games load with Python…"));
      els.game.disabled = true;
      return;
    }
    els.game.replaceChildren(...store.specs.map((g) => option(g.name, String(g.title || g.name))));
    els.game.disabled = false;
    els.game.value = store.settings.game;
  }

  function fillPresets() {
    const g = store.settings.game;
    const spec = store.specOf(g);
    if (!spec) {
      els.preset.replaceChildren();
      els.preset.disabled = true;
      return;
    }
    els.preset.disabled = false;
    els.preset.replaceChildren(...spec.presets.map((p) => option(p.name, String(p.label || p.name))));
    const gs = store.gameSettings(g);
    gs.preset = store.presetOf(g, gs.preset).name;
    els.preset.value = gs.preset;
  }

  // The game's editable settings, as its spec lists them (label, bounds, help).
  function fillFields() {
    const g = store.settings.game;
    const spec = store.specOf(g);
    fieldInputs.clear();
    const nodes = [];
    for (const f of spec ? spec.fields : []) {
      if (typeof f.key !== "string" || !/^[a-z_][a-z0-9_]*$/.test(f.key)) continue;
      const wrap = document.createElement("div");
      wrap.className = "field";
      const id = `field-${f.key.replace(/_/g, "-")}`;
      const label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = String(f.label || f.key);
      const input = document.createElement("input");
      Object.assign(input, { id, name: f.key, type: "number", step: "1", inputMode: "numeric" });
      input.min = String(f.min);
      input.max = String(f.max);
      input.value = String(store.fieldValue(g, f.key));
      if (f.help) {
        input.title = String(f.help);
        const help = document.createElement("span");
        help.id = `${id}-help`;
        help.className = "visually-hidden";
        help.textContent = String(f.help);
        input.setAttribute("aria-describedby", help.id);
        wrap.append(label, input, help);
      } else {
        wrap.append(label, input);
      }
      input.addEventListener("input", () => {
        const v = Number(input.value);
        if (input.value.trim() !== "" && Number.isFinite(v)) {
          store.gameSettings(g).fields[f.key] = v;
          store.saveSettings();
        }
      });
      fieldInputs.set(f.key, input);
      nodes.push(wrap);
    }
    els.gameFields.replaceChildren(...nodes);
  }

  function showGameInfo() {
    const spec = store.specOf(store.settings.game);
    const doc = spec && typeof spec.rules_doc === "string" && /^[\w./-]+\.md$/.test(spec.rules_doc)
      && !spec.rules_doc.includes("..") ? spec.rules_doc.replace(/\.md$/, ".html") : null;
    els.rules.hidden = !doc;
    if (doc) {
      els.rules.href = doc;
      els.rules.textContent = `${spec.title || spec.name} rules for bot authors`;
    }
    els.gameSummary.textContent = spec && spec.summary ? String(spec.summary) : "";
    showModeHelp(document.getElementById("mode-help"), spec,
      spec && store.presetOf(store.settings.game, store.gameSettings(store.settings.game).preset));
  }

  function showSettings() {
    fillGames();
    fillPresets();
    fillFields();
    showGameInfo();
    els.seed.value = String(store.settings.seed);
    els.games.value = String(store.settings.games);
    app.panels.fillExampleSelects();
    app.panels.showBots();
    challengeModel.settingsChanged(); // a new field starts with the bots now on show
  }

  // The game's settings as the form holds them, each within its spec's bounds (or throws).
  function readFields(game) {
    const out = {};
    for (const f of store.specOf(game).fields) {
      const input = fieldInputs.get(f.key);
      if (input) out[f.key] = readInt(input, String(f.label || f.key), f.min, f.max);
    }
    return out;
  }

  function selectGame(name) {
    if (!store.specOf(name)) return;
    store.saver.flush();
    store.settings.game = name;
    // The game's own bots before anything reads them: a new field starts with them, and the
    // editors still show the game before until showBots (issue 18: Flit's code in an Atomas field).
    store.seedEmptyBots(name);
    store.saveSettings();
    if (!store.run) app.tournament.view.clear();
    showSettings();
    app.notice.show("");
  }

  // Adds or removes a seat (a match) or an entry (a tournament).
  function changeCount(delta) {
    const gs = store.gameSettings();
    const key = store.tournamentMode() ? "entries" : "count";
    const [lo, hi] = store.panelBounds(store.settings.game);
    gs[key] = Math.max(lo, Math.min(hi, store.botCount() + delta));
    store.saveSettings();
    return gs[key];
  }

  function bind() {
    els.game.addEventListener("change", () => selectGame(els.game.value));
    els.preset.addEventListener("change", () => {
      const g = store.settings.game;
      const gs = store.gameSettings(g);
      gs.preset = store.presetOf(g, els.preset.value).name;
      gs.fields = {}; // a preset sets its own values
      store.saveSettings();
      fillFields();
      app.panels.showBots();
      showGameInfo(); // the help follows the preset's seat count
    });
    for (const [input, key] of [[els.seed, "seed"], [els.games, "games"]]) {
      input.addEventListener("input", () => {
        const v = Number(input.value);
        if (input.value.trim() !== "" && Number.isFinite(v)) {
          store.settings[key] = v;
          store.saveSettings();
        }
      });
    }
    els.randomSeed.addEventListener("click", () => {
      const a = new Uint32Array(1);
      crypto.getRandomValues(a);
      store.settings.seed = a[0] % 1000000000;
      els.seed.value = String(store.settings.seed);
      store.saveSettings();
    });
    els.addBot.addEventListener("click", () => {
      const count = changeCount(+1);
      store.seedEmptyBots();
      app.panels.showBots();
      app.panels.list[count - 1].name.focus();
    });
    els.removeBot.addEventListener("click", () => {
      changeCount(-1);
      app.panels.showBots();
      (els.removeBot.disabled ? els.addBot : els.removeBot).focus();
    });
  }

  // The games arrived (from Python, or the cached copy): the form is built from them.
  function useSpecs(list) {
    store.specs = list;
    if (!store.specOf(store.settings.game)) {
      const pending = store.botsByGame[""];
      store.settings.game = store.specs.length ? store.specs[0].name : null;
      // what a first-time visitor typed before the games were known goes to the first game
      if (store.settings.game && pending && pending.some((b) => b.code.trim())) {
        store.botsByGame[store.settings.game] = pending;
        store.saveBots(store.settings.game);
      }
      delete store.botsByGame[""];
      store.seedEmptyBots();
      store.saveSettings();
    }
    store.seedEmptyBots();
    showSettings();
  }

  return { fieldInputs, fillFields, showSettings, readFields, selectGame, bind, useSpecs };
}
