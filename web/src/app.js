// KotH Arena page: settings, bot panels, the controller worker, the viewer, results.
// No Python runs on this thread: everything goes through controller_worker.js. The page
// knows no game: the game menu, presets, fields, bot counts, examples and rules links are
// built from the engine's game specs (the controller's ready status sends them; a copy is
// kept in localStorage so a returning visitor's form is there before Python is).

import { createEditor } from "./editor.js";
import { collapseHelpOnPhones, showModeHelp } from "./help_text.js";
import { readRepeat, recipientNote, rememberRunSecret, repeatFields } from "./share_repeat.js";
import { BotConsole } from "./console.js";
import { Viewer } from "./viewer.js";
import { checkReplaySize, checkReplayText, seriesFromDocument } from "./replay.js";
import { renderResults } from "./results.js";
import { loadRenderer } from "./renderers.js";
import * as store from "./storage.js";
import * as challengeModel from "./challenge_model.js";
import { ImportDialog, StackExchangeImport } from "./se_import.js";
import { startModuleWorker } from "./embedded_worker.js";
import { SnippetExportDialog } from "./snippet_export.js";
import { ChallengePanel } from "./challenge_panel.js";
import { LINK_PREFIX } from "./challenge_link.js";

import { DEFAULT_TOURNAMENT_BUDGET, TournamentView } from "./tournament.js";
import { Python2Panel, languageField, languageOf, onPython2Message } from "./python2.js";
import { GameEditor } from "./game_editor.js";
import { ReplayFiles, bindDrop } from "./replay_files.js";
import { TournamentFiles } from "./tournament_files.js";
import { GAME_LINK_PREFIX, LinkContexts, gameLinkData, readGameLink, runRequest, verdict } from "./game_link.js";

const MAX_PANELS = 8; // no game takes more bots than this (the spec's max_bots)
const ENTRY_OPTION = "entry:"; // a seat's example menu value for an entry of the challenge
const DEFAULT_SETTINGS = { game: null, preset: null, seed: 1, games: 10, perGame: {}, mode: "match",
  parallel: null, budget: null };
const LIMITS = { seed: [0, 4294967295], games: [1, 1000] };
const FIELD_LABELS = { seed: "Seed", games: "Games" };

const $ = (id) => document.getElementById(id);
const els = {
  status: $("status"), statusText: $("status-text"), statusError: $("status-error"), progress: $("progress"),
  form: $("settings-form"), game: $("game"), preset: $("preset"), seed: $("seed"), randomSeed: $("random-seed"),
  games: $("games"), gameFields: $("game-fields"), rules: $("rules-link"), gameSummary: $("game-summary"),
  run: $("run"), stop: $("stop"), openReplay: $("open-replay"), replayFile: $("replay-file"), share: $("share"),
  shareBox: $("share-box"), shareUrl: $("share-url"),
  addBot: $("add-bot"), removeBot: $("remove-bot"), botCount: $("bot-count-controls"), panels: $("bot-panels"),
  botLimits: $("bot-limits"), seatViews: $("seat-views"),
  results: $("results"),
  notice: $("notice"), noticeText: $("notice-text"), noticeRestore: $("notice-restore"),
  noticeDiscard: $("notice-discard"), noticeClose: $("notice-close"),
  saveWarning: $("save-warning"), saveWarningText: $("save-warning-text"),
  downloadBots: $("download-bots"), retrySave: $("retry-save"),
};
collapseHelpOnPhones(document.getElementById("how-it-works"));

// ---- the games (the engine's specs) ------------------------------------------------------
let specs = validSpecs(store.load("games", null)); // the cached copy until Python sends its own
function validSpecs(list) {
  if (!Array.isArray(list)) return [];
  return list.filter((g) => g && typeof g.name === "string" && Array.isArray(g.presets) && g.presets.length
    && Array.isArray(g.fields) && typeof g.renderer === "string");
}
const gameNames = () => specs.map((g) => g.name);
const specOf = (game) => specs.find((g) => g.name === game) || null;
function presetOf(game, name) {
  const spec = specOf(game);
  if (!spec) return null;
  return spec.presets.find((p) => p.name === name) || spec.presets.find((p) => p.name === spec.default_preset)
    || spec.presets[0];
}
// [min, max] bots the preset allows (within the game's and the page's limits).
function botBounds(game, preset) {
  const spec = specOf(game);
  const p = presetOf(game, preset);
  if (!spec || !p) return [1, 2];
  const [lo, hi] = Array.isArray(p.bots) ? p.bots : [spec.min_bots, spec.max_bots];
  return [Math.max(1, lo), Math.min(MAX_PANELS, hi)];
}

// ---- state ----------------------------------------------------------------------------
const saver = store.makeSaver(250);
let settings = migrateSettings({ ...DEFAULT_SETTINGS, ...(store.load("settings", {}) || {}) });
const botsByGame = {}; // game -> [{name, code}] x MAX_PANELS, loaded from storage when first shown
let ready = false;
let runCounter = Number(store.load("run-counter", 0)) || 0;
let run = null; // {id, game, names, records: [], summary}
let switching = false;
let poolReady = 0; // bot Workers started and waiting (scripts/bench_web waits for them)
let lastTiming = null; // per bot: round-trip median/p95 of the last run (scripts/bench_web)
let hashPending = false; // a shared link waiting for the games to be known

// Settings saved before the page was built from the specs kept one time limit, one max
// moves and one bot count for all games: they become the saved game's own.
function migrateSettings(s) {
  if (!s.perGame || typeof s.perGame !== "object" || Array.isArray(s.perGame)) s.perGame = {};
  if (typeof s.game === "string" && !s.perGame[s.game]) {
    const fields = {};
    for (const k of ["time_limit_ms", "max_moves"]) if (Number.isInteger(s[k])) fields[k] = s[k];
    s.perGame[s.game] = { preset: typeof s.preset === "string" ? s.preset : null, fields,
      count: Number.isInteger(s.atomas_bots) ? s.atomas_bots : null };
  }
  for (const k of ["time_limit_ms", "max_moves", "atomas_bots"]) delete s[k];
  return s;
}

// This game's saved choices: {preset, fields: {key: value}, count}.
function gameSettings(game = settings.game) {
  const key = game ?? "";
  if (!settings.perGame[key]) settings.perGame[key] = { preset: null, fields: {}, count: null };
  const g = settings.perGame[key];
  if (!g.fields || typeof g.fields !== "object") g.fields = {};
  return g;
}

function normaliseBots(list) {
  const out = [];
  for (let i = 0; i < MAX_PANELS; i++) {
    const b = Array.isArray(list) ? list[i] : null;
    out.push({
      name: b && typeof b.name === "string" ? b.name : `Bot ${i + 1}`,
      code: b && typeof b.code === "string" ? b.code : "",
      ...languageField(b), // {language: "python2"}: a Python 2 answer (absent: Python 3, as before)
    });
  }
  return out;
}

function botsOf(game) {
  const key = game ?? "";
  if (!botsByGame[key]) botsByGame[key] = normaliseBots(game ? store.load(`bots:${game}`, null) : null);
  return botsByGame[key];
}

// How many bots the current game plays with: the saved count, within the preset's bounds
// (in Tournament mode: the entries, 2 to MAX_PANELS whatever a game seats).
function botCount(game = settings.game) {
  const g = gameSettings(game);
  if (tournamentMode()) return Math.max(2, Math.min(MAX_PANELS, Number(g.entries) || Number(g.count) || 2));
  if (!specOf(game)) return Math.max(2, Math.min(MAX_PANELS, Number(g.count) || 2));
  const [lo, hi] = botBounds(game, g.preset);
  const p = presetOf(game, g.preset);
  const usual = p.settings && Number.isInteger(p.settings.players) ? p.settings.players : 2;
  return Math.max(lo, Math.min(hi, Number(g.count) || usual));
}

function saveSettings() { saver.schedule("settings", () => settings); challengeModel.settingsChanged(); }
function saveBots(game) { if (game) saver.schedule(`bots:${game}`, () => botsOf(game)); }
window.addEventListener("pagehide", () => saver.flush());
window.addEventListener("beforeunload", () => saver.flush());
document.addEventListener("visibilitychange", () => { if (document.hidden) saver.flush(); });

// ---- saving that fails: a warning that stays until a save works again ---------------------
const failedSaves = new Map(); // key -> the error of its last save
const WATCHED_SAVES = /^(settings|bots:|previous-bots:|challenge:(field|kept|yours):)/; // what the visitor would lose
store.onSave((key, ok, error) => {
  if (!WATCHED_SAVES.test(key)) return;
  if (ok) failedSaves.delete(key); else failedSaves.set(key, error);
  showSaveWarning();
});

function showSaveWarning() {
  if (!failedSaves.size) {
    els.saveWarning.hidden = true;
    return;
  }
  const error = [...failedSaves.values()].pop();
  const why = error && error.name === "QuotaExceededError" ? "its storage is full"
    : `it refused to store them${error && error.name ? ` (${error.name})` : ""}`;
  els.saveWarningText.textContent = `Your bots' code is not being saved: ${why}. Edits made now are lost `
    + "when you reload or close this page. To keep them, download the code (or copy it from the editors).";
  els.saveWarning.hidden = false;
}

function downloadBots() {
  const g = settings.game;
  const text = botsOf(g).slice(0, botCount(g))
    .map((b, i) => `# ---- Bot ${i + 1}: ${b.name} (${g}) ----\n${panels[i] ? panels[i].editor.value : b.code}\n`)
    .join("\n");
  const url = URL.createObjectURL(new Blob([text], { type: "text/x-python" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `koth-arena-${g}-bots.py`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function retrySaving() {
  for (const g of Object.keys(botsByGame)) if (g) store.save(`bots:${g}`, botsByGame[g]);
  store.save("settings", settings);
  if (!failedSaves.size) setStatus("Saved: your code is kept in this browser again.");
}

// ---- bots kept aside: a shared link (or another tab) never silently replaces stored code --
// Per game, in localStorage, a short stack of {bots, reason}; the notice offers the newest.
// Restoring swaps it with the bots on show, which are kept in its place (under the opposite
// reason), so nothing is lost whichever button is pressed.
const MAX_KEPT = 8;
const KEPT = {
  link: { text: "The bots you had before opening a shared link are kept.", button: "Restore my previous bots",
    back: "Your previous bots are back.", swap: "shared" },
  shared: { text: "The shared link's bots are kept.", button: "Use the shared bots",
    back: "The shared bots are back.", swap: "link" },
  tab: { text: "The version another tab saved at the same time is kept.", button: "Use the other tab's version",
    back: "Now showing the other tab's version.", swap: "own" },
  own: { text: "This tab's earlier version is kept.", button: "Use this tab's version again",
    back: "This tab's version is back.", swap: "tab" },
};

function keptStack(game) {
  const stack = store.load(`previous-bots:${game}`, null);
  if (!Array.isArray(stack)) return [];
  return stack.filter((k) => k && Array.isArray(k.bots)).map((k) => ({
    bots: normaliseBots(k.bots), reason: Object.hasOwn(KEPT, k.reason) ? k.reason : "link",
  }));
}

// The newest kept version of a game's bots, or null.
function keptBots(game) {
  const stack = keptStack(game);
  return stack.length ? stack[stack.length - 1] : null;
}

function keepBots(game, bots, reason, replaceNewest = false) {
  const stack = keptStack(game);
  if (replaceNewest) stack.pop();
  stack.push({ bots: bots.map((b) => ({ ...b })), reason });
  store.save(`previous-bots:${game}`, stack.slice(-MAX_KEPT));
}

function sameBots(a, b) {
  return a.length === b.length && a.every((x, i) => x.name === b[i].name && x.code === b[i].code
    && languageOf(x) === languageOf(b[i]));
}

let noticeLead = ""; // what just happened (a link opened, bots restored), shown before the offer

function showNotice(lead = noticeLead) {
  noticeLead = lead;
  const kept = keptBots(settings.game);
  const parts = [];
  if (lead) parts.push(lead);
  if (kept) parts.push(KEPT[kept.reason].text);
  const more = keptStack(settings.game).length - 1;
  if (more > 0) parts.push(`(${more} older kept version${more === 1 ? "" : "s"} behind it.)`);
  els.noticeText.textContent = parts.join(" ");
  els.noticeRestore.hidden = els.noticeDiscard.hidden = !kept;
  if (kept) els.noticeRestore.textContent = KEPT[kept.reason].button;
  els.notice.hidden = !parts.length;
}

function restoreKeptBots() {
  const g = settings.game;
  const kept = keptBots(g);
  if (!kept) return;
  saver.flush();
  const shown = botsOf(g).map((b) => ({ ...b }));
  botsByGame[g] = kept.bots;
  keepBots(g, shown, KEPT[kept.reason].swap, true);
  store.save(`bots:${g}`, botsByGame[g]);
  showBots();
  showNotice(KEPT[kept.reason].back);
  els.noticeRestore.focus();
}

function discardKeptBots() {
  const g = settings.game;
  const stack = keptStack(g);
  stack.pop();
  if (stack.length) store.save(`previous-bots:${g}`, stack); else store.remove(`previous-bots:${g}`);
  showNotice("");
  if (stack.length) els.noticeRestore.focus(); else els.run.focus();
}

// ---- other tabs: their saved bots show here, unless this tab has edits not saved yet ------
window.addEventListener("storage", (ev) => {
  const m = ev.key && ev.key.startsWith(store.PREFIX) ? /^bots:(\w+)$/.exec(ev.key.slice(store.PREFIX.length)) : null;
  if (!m || !botsByGame[m[1]] || ev.newValue === null) return;
  const g = m[1];
  let theirs;
  try { theirs = normaliseBots(JSON.parse(ev.newValue)); } catch { return; }
  if (sameBots(theirs, botsByGame[g])) return;
  if (saver.pending(`bots:${g}`)) {
    // Both tabs edited at once: this tab's edits are saved, the other tab's version is kept.
    keepBots(g, theirs, "tab");
    saver.flush();
    if (g === settings.game) showNotice("These bots were also edited in another tab: this tab's version is saved.");
    return;
  }
  botsByGame[g] = theirs;
  if (g === settings.game) showBots();
});

// ---- status line ------------------------------------------------------------------------
function setStatus(text) { els.statusText.textContent = text; }
function setError(text) { els.statusError.textContent = text ? `${text} ` : ""; }
function clearError() { els.statusError.textContent = ""; }
function setProgress(value, label) {
  if (value === null) els.progress.removeAttribute("value");
  else els.progress.value = Math.max(0, Math.min(1, value));
  if (label) els.progress.setAttribute("aria-label", label);
}

// ---- bot panels --------------------------------------------------------------------------
// Made when first needed (an editor costs time at start-up): as many as the game plays with.
const panels = [];
function ensurePanels(count) {
  while (panels.length < Math.min(count, MAX_PANELS)) panels.push(makePanel(panels.length));
}

function makePanel(i) {
  const frag = $("bot-panel-template").content.cloneNode(true);
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
  const b = botsOf(settings.game)[i];
  name.value = b.name;
  const editor = createEditor(root.querySelector(".editor"), {
    label: `Bot ${n} code`,
    doc: b.code,
    onChange: (text) => {
      if (switching) return;
      botsOf(settings.game)[i].code = text;
      if (pasted !== null) renameAfterPaste(i, text, pasted);
      pasted = null;
      saveBots(settings.game);
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
  panel.python2 = python2Panel(root, i, editor);
  name.addEventListener("input", () => {
    botsOf(settings.game)[i].name = name.value;
    saveBots(settings.game);
    showExampleChoice(panel);
  });
  ex.addEventListener("change", () => {
    if (ex.value.startsWith(ENTRY_OPTION)) {
      const entry = challengeModel.entry(Number(ex.value.slice(ENTRY_OPTION.length)));
      if (entry) loadSeatEntry(i, entry);
      return;
    }
    const src = examplesOf(settings.game)[ex.value];
    if (typeof src !== "string") return;
    loadExample(i, ex.value, src);
  });
  clearBtn.addEventListener("click", () => panel.console.clear());
  fillExampleSelect(panel);
  return panel;
}

// The panel's language choice and Python 2 view (web/src/python2.js).
function python2Panel(root, i, editor) {
  return new Python2Panel({
    root,
    n: i + 1,
    getCode: () => editor.value,
    getLanguage: () => languageOf(botsOf(settings.game)[i]),
    setLanguage: (language) => {
      const bot = botsOf(settings.game)[i];
      delete bot.language;
      Object.assign(bot, languageField({ language }));
      saveBots(settings.game);
    },
    send: (message) => {
      if (!worker) return false;
      worker.postMessage(message);
      return true;
    },
  });
}

function examplesOf(game) {
  const spec = specOf(game);
  return spec && spec.examples && typeof spec.examples === "object" ? spec.examples : {};
}

function isDefaultName(game, name) {
  return !name.trim() || /^Bot \d+$/.test(name.trim()) || Object.hasOwn(examplesOf(game), name.trim());
}

// Code pasted over an example's (the paste is most of the new code) is another bot: a name
// that was the example's becomes "Bot N", so results do not credit the example for it. A
// name the visitor typed (not a default one) is theirs and stays.
function renameAfterPaste(i, text, pasted) {
  const g = settings.game;
  const p = panels[i];
  const name = p ? p.name.value.trim() : "";
  if (!p || !Object.hasOwn(examplesOf(g), name) || text === examplesOf(g)[name]) return;
  if (pasted.trim().length * 2 < text.trim().length) return; // a small paste edits the example
  p.name.value = `Bot ${i + 1}`;
  botsOf(g)[i].name = p.name.value;
}

// What the seat's Example menu shows: the example its code is, "NAME (edited)" for an
// example's name over changed code, "Own code" for anything else.
function showExampleChoice(p) {
  const g = settings.game;
  const examples = examplesOf(g);
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
  const g = settings.game;
  const p = panels[i];
  p.editor.value = src; // onChange saves the code
  botsOf(g)[i].code = src;
  delete botsOf(g)[i].language; // the examples are Python 3
  p.python2.show();
  if (isDefaultName(g, p.name.value)) {
    p.name.value = exName;
    botsOf(g)[i].name = exName;
  }
  saveBots(g);
  showExampleChoice(p);
}

function fillExampleSelect(p) {
  const names = Object.keys(examplesOf(settings.game));
  const first = document.createElement("option");
  first.value = "";
  first.textContent = names.length ? "Examples…" : (ready ? "No examples" : "Examples load with Python…");
  const opts = [first, ...names.map((n) => {
    const o = document.createElement("option");
    o.value = n;
    o.textContent = n;
    return o;
  })];
  const field = challengeModel.entries().filter((e) => !e.code.startsWith("builtin:"));
  if (field.length) {
    const group = document.createElement("optgroup");
    group.label = "Challenge entries";
    group.append(...field.map((e) => option(`${ENTRY_OPTION}${e.id}`, e.name)));
    opts.push(group);
  }
  p.ex.replaceChildren(...opts);
  p.ex.value = "";
  p.ex.disabled = !names.length && !field.length;
  showExampleChoice(p);
}

// Bots with no code get an example (bot i gets example i), in the game on show.
function seedEmptyBots(g = settings.game) {
  const examples = examplesOf(g);
  const names = Object.keys(examples);
  if (!g || !names.length) return;
  botsOf(g).forEach((b, i) => {
    if (b.code.trim()) return;
    const exName = names[i % names.length];
    b.code = examples[exName];
    if (isDefaultName(g, b.name)) b.name = exName;
    saveBots(g);
  });
}

function showBots() {
  const g = settings.game;
  const count = botCount(g);
  ensurePanels(count);
  switching = true;
  try {
    panels.forEach((p, i) => {
      p.root.hidden = i >= count;
      const b = botsOf(g)[i];
      if (p.name.value !== b.name) p.name.value = b.name;
      if (p.editor.value !== b.code) p.editor.value = b.code;
      showExampleChoice(p);
      if (i < count) p.python2.show();
    });
  } finally {
    switching = false;
  }
  const [lo, hi] = panelBounds(g);
  els.botCount.hidden = lo === hi;
  els.addBot.disabled = count >= hi;
  els.removeBot.disabled = count <= lo;
  els.botLimits.textContent = !specOf(g) ? "" : tournamentMode() ? `A tournament's field here has ${lo} to ${hi} entries.`
    : lo === hi ? `This preset plays with ${lo} bots.` : `This preset plays with ${lo} to ${hi} bots.`;
  showTournamentField();
}

// ---- settings -----------------------------------------------------------------------------
function option(value, text) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

function fillGames() {
  if (!specs.length) {
    els.game.replaceChildren(option("", "Games load with Python…"));
    els.game.disabled = true;
    return;
  }
  els.game.replaceChildren(...specs.map((g) => option(g.name, String(g.title || g.name))));
  els.game.disabled = false;
  els.game.value = settings.game;
}

function fillPresets() {
  const g = settings.game;
  const spec = specOf(g);
  if (!spec) {
    els.preset.replaceChildren();
    els.preset.disabled = true;
    return;
  }
  els.preset.disabled = false;
  els.preset.replaceChildren(...spec.presets.map((p) => option(p.name, String(p.label || p.name))));
  const gs = gameSettings(g);
  gs.preset = presetOf(g, gs.preset).name;
  els.preset.value = gs.preset;
}

// The game's editable settings, as its spec lists them (label, bounds, help).
const fieldInputs = new Map(); // key -> input
function fillFields() {
  const g = settings.game;
  const spec = specOf(g);
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
    input.value = String(fieldValue(g, f.key));
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
        gameSettings(g).fields[f.key] = v;
        saveSettings();
      }
    });
    fieldInputs.set(f.key, input);
    nodes.push(wrap);
  }
  els.gameFields.replaceChildren(...nodes);
}

// A field's value: the visitor's, else the preset's.
function fieldValue(game, key) {
  const gs = gameSettings(game);
  if (Number.isFinite(gs.fields[key])) return gs.fields[key];
  const p = presetOf(game, gs.preset);
  const v = p && p.settings ? p.settings[key] : undefined;
  return Number.isFinite(v) ? v : "";
}

function showGameInfo() {
  const spec = specOf(settings.game);
  const doc = spec && typeof spec.rules_doc === "string" && /^[\w./-]+\.md$/.test(spec.rules_doc)
    && !spec.rules_doc.includes("..") ? spec.rules_doc.replace(/\.md$/, ".html") : null;
  els.rules.hidden = !doc;
  if (doc) {
    els.rules.href = doc;
    els.rules.textContent = `${spec.title || spec.name} rules for bot authors`;
  }
  els.gameSummary.textContent = spec && spec.summary ? String(spec.summary) : "";
  showModeHelp(document.getElementById("mode-help"), spec, spec && presetOf(settings.game, gameSettings(settings.game).preset));
}

function showSettings() {
  fillGames();
  fillPresets();
  fillFields();
  showGameInfo();
  els.seed.value = String(settings.seed);
  els.games.value = String(settings.games);
  panels.forEach(fillExampleSelect);
  showBots();
  challengeModel.settingsChanged(); // a new field starts with the bots now on show
}

function readInt(input, label, lo, hi) {
  const raw = input.value.trim();
  if (!/^-?\d+$/.test(raw)) throw new Error(`${label} must be a whole number`);
  const v = Number(raw);
  if (v < lo || v > hi) throw new Error(`${label} must be between ${lo} and ${hi}`);
  return v;
}

// The game's settings as the form holds them, each within its spec's bounds (or throws).
function readFields(game) {
  const out = {};
  for (const f of specOf(game).fields) {
    const input = fieldInputs.get(f.key);
    if (input) out[f.key] = readInt(input, String(f.label || f.key), f.min, f.max);
  }
  return out;
}

function selectGame(name) {
  if (!specOf(name)) return;
  saver.flush();
  settings.game = name;
  // The game's own bots before anything reads them: a new field starts with them, and the
  // editors still show the game before until showBots (issue 18: Flit's code in an Atomas field).
  seedEmptyBots(name);
  saveSettings();
  if (!run) tournamentView.clear();
  showSettings();
  showNotice("");
}

function bindSettings() {
  els.game.addEventListener("change", () => selectGame(els.game.value));
  els.preset.addEventListener("change", () => {
    const g = settings.game;
    const gs = gameSettings(g);
    gs.preset = presetOf(g, els.preset.value).name;
    gs.fields = {}; // a preset sets its own values
    saveSettings();
    fillFields();
    showBots();
    showGameInfo(); // the help follows the preset's seat count
  });
  const numeric = [[els.seed, "seed"], [els.games, "games"]];
  for (const [input, key] of numeric) {
    input.addEventListener("input", () => {
      const v = Number(input.value);
      if (input.value.trim() !== "" && Number.isFinite(v)) {
        settings[key] = v;
        saveSettings();
      }
    });
  }
  els.randomSeed.addEventListener("click", () => {
    const a = new Uint32Array(1);
    crypto.getRandomValues(a);
    settings.seed = a[0] % 1000000000;
    els.seed.value = String(settings.seed);
    saveSettings();
  });
  els.addBot.addEventListener("click", () => {
    const gs = gameSettings();
    const key = tournamentMode() ? "entries" : "count";
    gs[key] = Math.min(panelBounds(settings.game)[1], botCount() + 1);
    saveSettings();
    seedEmptyBots();
    showBots();
    panels[gs[key] - 1].name.focus();
  });
  els.removeBot.addEventListener("click", () => {
    const gs = gameSettings();
    const key = tournamentMode() ? "entries" : "count";
    gs[key] = Math.max(panelBounds(settings.game)[0], botCount() - 1);
    saveSettings();
    showBots();
    (els.removeBot.disabled ? els.addBot : els.removeBot).focus();
  });
}

// The games arrived (from Python, or the cached copy): the form is built from them.
function useSpecs(list) {
  specs = list;
  if (!specOf(settings.game)) {
    const pending = botsByGame[""];
    settings.game = specs.length ? specs[0].name : null;
    // what a first-time visitor typed before the games were known goes to the first game
    if (settings.game && pending && pending.some((b) => b.code.trim())) {
      botsByGame[settings.game] = pending;
      saveBots(settings.game);
    }
    delete botsByGame[""];
    seedEmptyBots();
    saveSettings();
  }
  seedEmptyBots();
  showSettings();
}

// ---- share links ------------------------------------------------------------------------------
function shareObject() {
  const g = settings.game;
  const n = botCount();
  const fields = {};
  for (const [key, input] of fieldInputs) if (input.value.trim() !== "") fields[key] = Number(input.value);
  return {
    v: 1,
    settings: { game: g, preset: gameSettings(g).preset, seed: settings.seed, games: settings.games, ...fields },
    bots: botsOf(g).slice(0, n).map((b) => ({ name: b.name, code: b.code, ...languageField(b) })),
    ...(gameEditor.loadedSource(g) ? { game_module: gameEditor.loadedSource(g) } : {}), // an author's game
  };
}

// A share link of an author's game carries its module: the visitor presses Load this game
// (a stranger's code, shown first) and the link is applied once the game is known.
function sharedGameModule(h) {
  let obj;
  try {
    obj = store.decodeShare(h);
  } catch {
    return null; // applyHash says what is wrong with it
  }
  if (!obj || typeof obj.game_module !== "string" || typeof obj.settings?.game !== "string") return null;
  if (gameEditor.loadedSource(obj.settings.game) === obj.game_module) return null;
  return JSON.stringify({ game: obj.settings.game, game_module: obj.game_module });
}

// The run's bots and settings as a key: a link repeats the secret a run of the same drew.
function runKey() {
  return JSON.stringify([shareObject(), settings.budget ?? null]);
}

async function shareLink() {
  saver.flush();
  const obj = shareObject();
  const repeat = repeatFields({ key: runKey(), secretField: secretInput.value, budget: settings.budget ?? null,
    include: $("share-secret").checked });
  const url = `${location.origin}${location.pathname}${location.search}#${store.encodeShare({ ...obj, ...repeat.fields })}`;
  els.shareUrl.value = url;
  els.shareBox.hidden = false;
  $("share-note").textContent = repeat.note;
  clearError();
  try {
    await navigator.clipboard.writeText(url);
    setStatus("Share link copied to the clipboard.");
  } catch {
    els.shareUrl.focus();
    els.shareUrl.select();
    setStatus("Share link ready: copy it from the Share link URL box.");
  }
}

// Applies a hash like "#<base64url JSON>"; returns true when it applied one. Numbers out of
// the game's bounds (its spec's) are refused with a message (never clamped); the bots on
// show before are kept aside (one click to restore), and the notice shows what the link set.
function applyHash() {
  let h = location.hash.replace(/^#/, "");
  if (!h) return false;
  if (h.startsWith(GAME_LINK_PREFIX)) { // one game, played again (game_link.js)
    if (!specs.length) hashPending = true;
    else openGameLink(h.slice(GAME_LINK_PREFIX.length));
    return true;
  }
  if (h.startsWith(LINK_PREFIX)) { // a whole challenge (challenge_panel.js); older links below
    challengePanel.openLink(h.slice(LINK_PREFIX.length));
    return true;
  }
  if (!specs.length) {
    hashPending = true; // applied once the games are known
    return true;
  }
  hashPending = false;
  if (h.startsWith("s=")) h = h.slice(2);
  const carried = sharedGameModule(h);
  if (carried) {
    challengePanel.loadCarriedGame(carried, "the shared link").then((loaded) => {
      if (!loaded) return;
      settings.mode = "match"; // the prompt is shown with the challenge; the link is a match's
      saveSettings();
      showMode();
      applyHash();
    });
    return true;
  }
  let parsed;
  let fields;
  let repeat;
  try {
    const obj = store.decodeShare(h);
    parsed = store.checkShare(obj, gameNames(), MAX_PANELS);
    repeat = readRepeat(obj);
    const g = parsed.settings.game;
    const spec = specOf(g);
    const name = parsed.settings.preset;
    if (name !== undefined && !spec.presets.some((p) => p.name === name)) {
      throw new Error(`${spec.title} has no preset ${JSON.stringify(name.slice(0, 40))}`);
    }
    const preset = presetOf(g, name);
    const [lo, hi] = botBounds(g, preset.name);
    if (parsed.bots.length < lo || parsed.bots.length > hi) {
      throw new Error(`the ${spec.title} ${preset.name} preset plays with ${lo === hi ? lo : `${lo} to ${hi}`} bots, `
        + `the link has ${parsed.bots.length}`);
    }
    fields = {};
    const bounded = [["seed", FIELD_LABELS.seed, ...LIMITS.seed], ["games", FIELD_LABELS.games, ...LIMITS.games],
      ...spec.fields.map((f) => [f.key, String(f.label || f.key), f.min, f.max])];
    for (const [k, label, min, max] of bounded) {
      if (!Object.hasOwn(parsed.settings, k)) continue;
      const v = parsed.settings[k];
      if (!Number.isInteger(v)) throw new Error(`its ${label} is not a whole number`);
      if (v < min || v > max) throw new Error(`its ${label} is ${v}; the page allows ${min} to ${max}`);
      if (k !== "seed" && k !== "games") fields[k] = v;
    }
  } catch (e) {
    setError(`Could not apply the shared link: ${e.message}. Nothing was changed.`);
    return false;
  }
  const s = parsed.settings;
  const g = s.game;
  saver.flush();
  const before = botsOf(g).map((b) => ({ ...b }));
  const after = before.map((b) => ({ ...b }));
  parsed.bots.forEach((b, i) => { after[i] = { name: b.name, code: b.code, ...languageField(b) }; });
  // The visitor's own code is kept; bots an earlier link put there, unedited, are not.
  // Nor are the examples the page seeded (a first visit has nothing of its own to keep).
  const shipped = new Set(Object.values(examplesOf(g)));
  const own = before.some((b) => b.code.trim() && !shipped.has(b.code))
    && !sameBots(before, normaliseBots(store.load(`shared-bots:${g}`, [])));
  if (own && !sameBots(before, after)) keepBots(g, before, "link");
  settings.game = g;
  const gs = gameSettings(g);
  gs.preset = presetOf(g, s.preset).name;
  gs.fields = fields;
  gs.count = parsed.bots.length;
  for (const k of ["seed", "games"]) if (k in s) settings[k] = s[k];
  if (repeat.secret) {
    secretInput.value = repeat.secret;
    store.save("secret", repeat.secret);
  }
  if (repeat.budget) {
    settings.budget = repeat.budget;
    $("budget").value = String(repeat.budget);
  }
  botsByGame[g] = after;
  store.save(`shared-bots:${g}`, after);
  saveSettings();
  saveBots(g);
  saver.flush();
  history.replaceState(null, "", location.pathname + location.search);
  clearError();
  showSettings();
  showNotice(`Opened a shared challenge: ${describeSettings(parsed.bots)}. ${recipientNote(repeat)} `
    + "Nothing runs until you press Run.");
  setStatus("Applied the settings and bots from the shared link.");
  return true;
}

// "TITLE PRESET, seed 5, 10 games, Time limit (ms) 100, bots: a, b" for the notice.
function describeSettings(bots) {
  const g = settings.game;
  const spec = specOf(g);
  const parts = [`${spec.title} ${gameSettings(g).preset}`, `seed ${settings.seed}`,
    `${settings.games} game${settings.games === 1 ? "" : "s"}`];
  for (const f of spec.fields) parts.push(`${f.label} ${fieldValue(g, f.key)}`);
  parts.push(`bots: ${bots.map((b) => b.name || "unnamed").join(", ")}`);
  return parts.join(", ");
}

// ---- viewer and results ------------------------------------------------------------------------
const viewer = new Viewer({
  canvas: $("board"), area: $("board-area"), legend: $("legend"), info: $("frame-info"),
  play: $("btn-play"), back: $("btn-back"), fwd: $("btn-fwd"), start: $("btn-start"), end: $("btn-end"),
  speed: $("speed"), speedOut: $("speed-out"), scrub: $("scrub"), record: $("record"),
});
const savedSpeed = Number(store.load("speed", 30));
if (savedSpeed >= 1 && savedSpeed <= 500) {
  $("speed").value = String(savedSpeed);
  $("speed").dispatchEvent(new Event("input"));
}
$("speed").addEventListener("input", () => saver.schedule("speed", () => Number($("speed").value)));

function showResults(names, summary, note) {
  renderResults(els.results, names, summary, note);
}

// ---- each bot's own view, on demand (games whose renderer has seatView) -------------------
const openViews = new Set(); // seats whose view is shown
let viewSeats = ""; // the seats the toggles were built for
viewer.onFrame = (frame, names) => {
  const renderer = viewer.renderer;
  if (!frame || !renderer || typeof renderer.seatView !== "function") {
    if (viewSeats) { els.seatViews.replaceChildren(); viewSeats = ""; openViews.clear(); }
    els.seatViews.hidden = true;
    return;
  }
  els.seatViews.hidden = false;
  const key = names.join("\u0000");
  if (key !== viewSeats) {
    viewSeats = key;
    const heading = document.createElement("h3");
    heading.textContent = "Bots' own views";
    const buttons = document.createElement("div");
    buttons.className = "view-buttons";
    buttons.setAttribute("role", "group");
    buttons.setAttribute("aria-label", "Show a bot's own view");
    names.forEach((nm, seat) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "seat-view-toggle";
      b.dataset.seat = String(seat);
      b.textContent = `View of ${seat + 1} ${nm}`;
      b.setAttribute("aria-pressed", openViews.has(seat) ? "true" : "false");
      b.addEventListener("click", () => {
        if (openViews.has(seat)) openViews.delete(seat); else openViews.add(seat);
        b.setAttribute("aria-pressed", openViews.has(seat) ? "true" : "false");
        viewer.onFrame(viewer.currentFrame(), names);
      });
      buttons.append(b);
    });
    const list = document.createElement("div");
    list.className = "seat-view-list";
    els.seatViews.replaceChildren(heading, buttons, list);
  }
  const list = els.seatViews.querySelector(".seat-view-list");
  const shown = [...openViews].filter((seat) => seat < names.length).sort((a, b) => a - b).map((seat) => {
    const fig = document.createElement("figure");
    fig.className = "seat-view";
    const cap = document.createElement("figcaption");
    const text = renderer.seatView(frame, seat);
    cap.textContent = `${seat + 1} ${names[seat]}: what it sees after turn ${frame.turn}`;
    const pre = document.createElement("pre");
    pre.textContent = text === null ? "Not playing any more: a dead bot sees nothing." : text;
    pre.setAttribute("tabindex", "0");
    pre.setAttribute("aria-label", `View of ${names[seat]}`);
    fig.append(cap, pre);
    return fig;
  });
  list.replaceChildren(...shown);
};

// ---- replay files: verified by the engine in the controller Worker, never trusted -------------
// The file waiting to be checked or being checked: {id, name, text, sent}. Opening another
// file replaces it; the viewer and the results keep what they showed until a file passes.
let replayCheck = null;
let replayChecks = 0;

async function openReplayFile(file) {
  let text;
  try {
    checkReplaySize(file.size);
    text = await file.text();
  } catch (e) {
    setError(`Could not open replay ${file.name}: ${e.message}.`);
    return;
  }
  openReplayText(text, file.name);
}

function openReplayText(text, name = "replay") {
  try {
    checkReplayText(text);
  } catch (e) {
    setError(`Could not open replay ${name}: ${e.message}.`);
    return false;
  }
  clearError();
  replayChecks += 1;
  replayCheck = { id: replayChecks, name, text, sent: false };
  sendReplayCheck();
  return true;
}

// Sends the pending file to the engine once Python is ready and no run is going (a check
// is Python work in the controller Worker: it must not delay a running match's bots).
function sendReplayCheck() {
  const c = replayCheck;
  if (!c || c.sent) return;
  if (!worker || !ready || run) {
    setStatus(replayWaitNote());
    return;
  }
  c.sent = true;
  setStatus(`Checking ${c.name}: re-running every game through the rules…`);
  setProgress(null, "Checking the replay");
  worker.postMessage({ type: "verify", id: c.id, text: c.text });
}

// What the status line adds while a file waits for Python or for the run to end.
function replayWaitNote() {
  const c = replayCheck;
  if (!c || c.sent) return "";
  return !worker || !ready ? `${c.name} is checked by the engine as soon as Python is ready…`
    : `${c.name} is checked by the engine when this run ends (or press Stop).`;
}

function onVerified(m) {
  const c = replayCheck;
  if (!c || m.id !== c.id) return; // a file replaced by a later one
  replayCheck = null;
  setProgress(1, "Checking the replay");
  let series;
  try {
    if (typeof m.error === "string") throw new Error(m.error);
    series = seriesFromDocument(m.document, gameNames());
  } catch (e) {
    setError(`Could not open replay ${c.name}: ${e.message}.`);
    setStatus("The board and the results still show what they showed before.");
    return;
  }
  clearError();
  if (run) run.viewing = false; // the live run keeps going; the viewer shows the file
  const spec = specOf(series.game);
  series.title = spec.title || spec.name;
  viewer.load({ ...series, renderer: spec.renderer }).catch((e) => setError(`The board cannot show ${c.name}: ${e.message}.`));
  showResults(series.bots, series.summary, `replay ${c.name}`);
  const n = series.records.length;
  setStatus(`Opened ${c.name}: ${series.title}, ${n} record${n === 1 ? "" : "s"}, `
    + "every game re-run through the rules and the results recomputed.");
}

viewer.onDrawError = (message) => setError(`The board could not draw a frame: ${message}.`);

// ---- controller worker ------------------------------------------------------------------------
let worker = null;
// Stop: the controller may be blocked waiting for a bot (shared-memory mode), where it
// cannot read messages: it looks at this flag (the run to stop) between short waits.
// The controller Worker web/src/boot.js started while this bundle loaded, if it did.
let booted = window.kothBoot && typeof window.kothBoot.take === "function" ? window.kothBoot.take() : null;
const stopFlag = booted ? booted.stopFlag
  : self.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
// How long a Stop may go unanswered before the controller Worker is taken for stuck and
// replaced (it answers within a wait slice when it is healthy).
const STOP_GRACE_MS = 1500;
let stopTimer = null;
let workerStarts = 0; // controller Workers started (a replaced one counts again)
// Leaving the page: stop Python at once rather than leave it to the browser's teardown.
window.addEventListener("pagehide", () => { if (worker) worker.terminate(); });

function startWorker() {
  let started;
  const early = booted && !embed ? booted.early : [];
  try {
    if (booted && !embed) started = booted.worker;
    else if (embed) started = startModuleWorker(embed.files["controller_worker.js"]);
    else started = new Worker("controller_worker.js", { type: "module" });
  } catch (e) {
    setError(`Could not start the Python worker: ${e.message}.`);
    failChallengeChecks("Python could not start");
    setStatus("Replays can still be opened.");
    return;
  }
  worker = started;
  workerStarts += 1;
  sendWaitingChallengeChecks();
  // Messages from a Worker that was replaced are dropped.
  started.addEventListener("message", (ev) => { if (worker === started) onMessage(ev.data); });
  if (started !== booted?.worker) {
    started.postMessage({ type: "init", stopFlag, siteFiles: embed ? embed.files : null });
  }
  booted = null; // a replacement Worker is started here
  store.remove("python-snapshot"); // what earlier versions kept of a snapshot they cached
  const onError = (ev) => {
    ev.preventDefault();
    if (worker !== started) return;
    const msg = ev.message || "the worker script failed to load";
    if (ready) {
      replaceWorker(`The Python worker failed (${msg})`);
      return;
    }
    setError(`Python worker error: ${msg}.`);
    failChallengeChecks("Python could not start");
    if (run) finishRun();
    setStatus("Replays can still be opened.");
  };
  started.addEventListener("error", onError);
  started.addEventListener("messageerror", () => setError("Python worker sent an unreadable message."));
  // what the Worker boot.js started said before this script listened
  for (const ev of early) {
    if (ev.type === "error") onError(ev);
    else if (worker === started) onMessage(ev.data);
  }
}

// The controller Worker is stuck or its Python is broken: end the run, start a new one.
function replaceWorker(reason) {
  failChallengeChecks(`${reason}; try again`);
  gameEditor.onLost();
  if (worker) worker.terminate();
  worker = null;
  ready = false;
  const stopped = run;
  if (run) {
    if (run.viewing) showResults(run.names, run.summary, "stopped");
    finishRun();
  }
  els.run.disabled = true;
  setError(`${reason}: ${stopped ? "the run was ended and " : ""}Python was restarted.`);
  setStatus("Restarting Python…");
  startWorker();
}

function onMessage(m) {
  if (!m || typeof m !== "object") return;
  if (stackExchange.onMessage(m) || snippetExport.onMessage(m)) return undefined;
  if (m.type === "status") return onStatus(m);
  if (m.type === "verified") return onVerified(m);
  if (m.type === "challenge-checked") return onChallengeChecked(m);
  if (onPython2Message(m)) return undefined;
  if (m.type === "game_loaded") return gameEditor.onLoaded(m);
  if (m.type === "fatal") {
    replaceWorker(`Python in the controller failed (${String(m.message ?? "fatal error").slice(0, 200)})`);
    return undefined;
  }
  if (m.type === "pool") {
    poolReady = Number(m.ready) || 0;
    return undefined;
  }
  if (m.type === "tournament-done" && m.run === tournamentView.run) {
    challengePanel.markProblems(m.problems);
    challengePanel.showRank(m.rows);
  }
  if (tournamentFiles.onMessage(m)) return undefined;
  if (tournamentView.onMessage(m)) return undefined;
  if (!run || m.run !== run.id) return; // stale or unknown run
  switch (m.type) {
    case "record_start": {
      const rec = { ...m.record, turns: [] };
      run.records[m.index] = rec;
      if (run.viewing) viewer.recordStart(m.index, rec);
      break;
    }
    case "turns": {
      const rec = run.records[m.index];
      if (rec && Array.isArray(m.turns)) for (const t of m.turns) rec.turns.push(t);
      if (run.viewing) viewer.addTurns(m.index, m.turns);
      break;
    }
    case "record_end": {
      const rec = run.records[m.index];
      if (rec) rec.result = m.result;
      if (run.viewing) viewer.recordEnd(m.index, m.result);
      break;
    }
    case "console": {
      const p = run.link ? null : panels[m.bot]; // a linked game's bots are not the panels'
      if (p) p.console.write(m.stream || "stdout", m.text, m.line ?? null);
      if (p && Number.isInteger(m.line) && (m.stream === "fault" || m.stream === "error")) {
        p.editor.markFault(m.line, m.where || m.stream);
      }
      break;
    }
    case "summary": {
      if (m.summary && Array.isArray(m.summary.games)) {
        run.summary = m.summary; // the engine's summary of the games finished so far
        if (run.viewing) showResults(run.names, m.summary, "running");
        const done = m.summary.games.length;
        setProgress(done / run.games, "Series progress");
        setStatus(`Running: ${done} of ${run.games} game${run.games === 1 ? "" : "s"} finished… ${replayWaitNote()}`
          .trim());
      }
      break;
    }
    case "progress": {
      const total = Number(m.total) || 0;
      setProgress(total ? m.done / total : 0, "Series progress");
      setStatus(`Running: ${m.done} of ${total} game${total === 1 ? "" : "s"} finished… ${replayWaitNote()}`.trim());
      break;
    }
    case "done": {
      lastTiming = Array.isArray(m.timing) ? { bots: m.timing, wall_ms: m.wall_ms, awaited_ms: m.awaited_ms } : null;
      const s = m.series && Array.isArray(m.series.games) ? m.series : { games: [], mean_scores: [], wins: [] };
      run.summary = s;
      const secretNote = typeof m.secret === "string" ? `secret ${m.secret}` : "";
      rememberRunSecret(run.key, m.secret);
      if (run.viewing) showResults(run.names, s, secretNote);
      setProgress(1, "Series progress");
      setStatus(`Finished: ${describeSummary(run.names, s)}${secretNote ? ` Run with ${secretNote}.` : ""}`);
      if (run.link) linkedGameDone(run.link, s);
      finishRun();
      break;
    }
    case "stopped": {
      setStatus("Stopped.");
      if (run.viewing) showResults(run.names, run.summary, "stopped");
      finishRun();
      break;
    }
    case "error": {
      setError(`Run failed: ${m.message ?? "unknown error"}`);
      setStatus("");
      finishRun();
      break;
    }
    default:
      break;
  }
  if (!run) sendReplayCheck(); // a replay file opened during the run is checked now
  if (!run && linkedGame) playLinkedGame();
}

// The engine's summary in a line: wins, or mean scores best first (its ranking).
function describeSummary(names, s) {
  const n = (s.games || []).length;
  const parts = names.map((nm, i) => {
    if (s.scoring !== "mean_score") {
      const w = s.wins ? s.wins[i] : 0;
      return `${nm} ${w} win${w === 1 ? "" : "s"}`;
    }
    const mean = s.mean_scores && typeof s.mean_scores[i] === "number" ? s.mean_scores[i].toFixed(1) : "—";
    return `${nm} mean ${mean}`;
  });
  const order = Array.isArray(s.ranking) && s.scoring === "mean_score" && s.ranking.length === names.length
    ? s.ranking.filter((i) => Number.isInteger(i) && i >= 0 && i < names.length) : [...names.keys()];
  return `${n} game${n === 1 ? "" : "s"}; ${order.map((i) => parts[i]).join(", ")}.`;
}

function onStatus(m) {
  const p = typeof m.progress === "number" ? m.progress : null;
  if (m.stage === "ready") {
    if (!ready) performance.mark("arena-ready", { detail: m.startup || null });
    ready = true;
    const sent = validSpecs(m.games);
    if (sent.length) {
      store.save("games", sent); // the next visit builds its form before Python is ready
      useSpecs(sent);
    }
    gameEditor.onReady(); // an author's game loaded before is loaded again
    if (hashPending) applyHash();
    if (embed) startEmbedded();
    panels.slice(0, botCount()).forEach((panel) => panel.python2.check()); // a replaced Worker lost earlier ones
    let text = m.message || "Python is ready.";
    if (m.isolated === false) text += " (Not cross-origin isolated: a bot stuck in a loop is stopped by restarting its Worker.)";
    if (!run) {
      setStatus(text);
      setProgress(1, "Loading progress");
    }
    if (!run) els.run.disabled = !specs.length;
    if (replayCheck && replayCheck.sent) {
      // It was being checked by a controller Worker that has been replaced since: it is not
      // sent again (it may be what broke that Worker).
      setError(`Could not open replay ${replayCheck.name}: Python stopped while checking it.`);
      replayCheck = null;
    }
    sendReplayCheck();
    playLinkedGame();
  } else {
    if (!run) {
      setStatus(`${m.message || "Loading Python…"} ${replayWaitNote()}`.trim());
      setProgress(p, "Loading progress");
    }
  }
}

async function startRun() {
  if (!worker || !ready || run || !specOf(settings.game)) return;
  if (tournamentMode()) {
    startTournament();
    return;
  }
  const g = settings.game;
  const spec = specOf(g);
  let seed, games, values;
  try {
    seed = readInt(els.seed, FIELD_LABELS.seed, ...LIMITS.seed);
    games = readInt(els.games, FIELD_LABELS.games, ...LIMITS.games);
    values = readFields(g);
  } catch (e) {
    setError(`Cannot run: ${e.message}.`);
    return;
  }
  const n = botCount(g);
  const bots = botsOf(g).slice(0, n).map((b, i) => ({
    name: b.name.trim() || `Bot ${i + 1}`,
    code: panels[i].editor.value,
    language: languageOf(b), // python2: the controller converts it (engine/bots/python2.py)
  }));
  const empty = bots.findIndex((b) => !b.code.trim());
  if (empty >= 0) {
    setError(`Cannot run: Bot ${empty + 1} has no code.`);
    return;
  }
  clearError();
  saver.flush();
  runCounter += 1;
  store.save("run-counter", runCounter);
  run = { id: runCounter, game: g, games, names: bots.map((b) => b.name), records: [], summary: null, viewing: true };
  els.run.disabled = true;
  els.stop.disabled = false;
  gameEditor.setBusy(true);
  const starting = run;
  let renderer;
  try {
    renderer = await loadRenderer(spec.renderer);
  } catch (e) {
    setError(`Cannot run: the board for ${spec.title} did not load (${e.message}).`);
    finishRun();
    return;
  }
  if (run !== starting) return;
  panels.forEach((p) => { p.console.clear(); p.editor.clearFaults(); });
  viewer.beginLive(renderer, run.names);
  showResults(run.names, { games: [], mean_scores: [], wins: [], scoring: spec.scoring }, "running");
  setProgress(0, "Series progress");
  setStatus(`Running ${games} game${games === 1 ? "" : "s"} of ${spec.title}…`);
  run.key = runKey(); // a share link made after it repeats the secret it drew
  linkContexts.played(g, gameSettings(g).preset, settings.budget ?? null, spec.fields, bots, 40);
  worker.postMessage({
    type: "run", run: run.id, game: g, preset: gameSettings(g).preset, settings: values, seed, games, bots,
    secret: secretInput.value || null, // empty: the controller draws one and reports it with "done"
    budget: settings.budget || null, // steps per move (none or 0: the time limit decides)
  });
}

function stopRun() {
  if (!run || !worker) return;
  if (stopFlag) Atomics.store(stopFlag, 0, run.id);
  worker.postMessage({ type: "stop", run: run.id });
  setStatus("Stopping…");
  els.stop.disabled = true;
  const stopping = run;
  clearTimeout(stopTimer);
  stopTimer = setTimeout(() => {
    if (run === stopping) replaceWorker("The Python worker did not answer Stop");
  }, STOP_GRACE_MS);
}

function finishRun() {
  clearTimeout(stopTimer);
  stopTimer = null;
  if (run && run.kind === "tournament") {
    tournamentView.ended();
    challengePanel.runEnded();
  }
  if (run) viewer.endLive();
  run = null;
  els.run.disabled = !ready;
  els.stop.disabled = true;
  gameEditor.setBusy(false);
}

// ---- the run's secret (kept like the settings; a challenge's file and link carry it, a match's
// share link never does) ---------------------------------------------------------------------------
const secretInput = $("secret");
secretInput.value = String(store.load("secret", "") || "");
secretInput.addEventListener("input", () => store.save("secret", secretInput.value));

// ---- the challenge's settings are the form's (web/src/challenge_model.js) ---------------------
challengeModel.bindSettings({
  get() {
    const g = settings.game;
    const fields = {};
    for (const [k, v] of Object.entries(gameSettings(g).fields)) if (Number.isInteger(v)) fields[k] = v;
    return { game: g, preset: specOf(g) ? presetOf(g, gameSettings(g).preset).name : gameSettings(g).preset,
      settings: fields, games: settings.games, seed: settings.seed, secret: secretInput.value || null };
  },
  // The match's bots on show (a new field starts with them).
  bots(game) {
    if (!specOf(game)) return [];
    // botsOf, never the editors: during a switch they still hold the game before's code.
    return botsOf(game).slice(0, botCount(game)).map((b, i) => ({ name: b.name.trim() || `Bot ${i + 1}`, code: b.code }));
  },
  examples: (game) => examplesOf(game),
  // A challenge the engine checked: its game, preset, settings, games and seed fill the form.
  set(c) {
    if (!specOf(c.game)) return;
    saver.flush();
    settings.game = c.game;
    const gs = gameSettings(c.game);
    gs.preset = presetOf(c.game, c.preset || null).name;
    gs.fields = { ...(c.settings || {}) };
    if (Number.isInteger(c.games)) settings.games = Math.min(LIMITS.games[1], Math.max(LIMITS.games[0], c.games));
    if (Number.isInteger(c.seed)) settings.seed = c.seed;
    secretInput.value = typeof c.secret === "string" ? c.secret : "";
    store.save("secret", secretInput.value);
    saveSettings();
    seedEmptyBots(c.game);
    showSettings();
  },
});

// ---- entries from a Stack Exchange question (web/src/se_import.js) ----------------------------
const stackExchange = new StackExchangeImport({ send: (m) => { if (worker) worker.postMessage(m); } });
const stackExchangeDialog = new ImportDialog({
  importer: stackExchange, ready: () => ready && worker !== null,
  addEntries: (list) => challengeModel.addEntries(list),
});
const snippetExport = new SnippetExportDialog({
  send: (m) => { if (worker) worker.postMessage(m); }, ready: () => ready && worker !== null,
  challenge: () => { challengeModel.flush(); return challengeModel.currentChallenge(); },
});

// ---- the challenge section (challenge_panel.js): checks by the engine, tournaments by TOURNEY --
const challengeChecks = new Map(); // id -> resolve
let challengeCheckIds = 0;

// The engine's verdict on a challenge's text (controller Worker, main.py check_challenge).
function checkChallenge(text) {
  return new Promise((resolve) => {
    challengeCheckIds += 1;
    challengeChecks.set(challengeCheckIds, resolve);
    const message = { type: "challenge-check", id: challengeCheckIds, text };
    if (worker) worker.postMessage(message);
    else challengeChecksWaiting.push(message); // sent when the controller Worker starts
  });
}
const challengeChecksWaiting = [];
function sendWaitingChallengeChecks() {
  if (worker) for (const message of challengeChecksWaiting.splice(0)) worker.postMessage(message);
}

function onChallengeChecked(m) {
  const resolve = challengeChecks.get(m.id);
  if (!resolve) return;
  challengeChecks.delete(m.id);
  resolve(typeof m.error === "string" ? { error: m.error } : { challenge: m.challenge });
}

function failChallengeChecks(why) {
  for (const resolve of challengeChecks.values()) resolve({ error: why });
  challengeChecks.clear();
  challengeChecksWaiting.length = 0;
}

// A seat of the match plays an entry of the field: its code and name.
function loadSeatEntry(i, entry) {
  const g = settings.game;
  panels[i].editor.value = entry.code;
  botsOf(g)[i].code = entry.code;
  const name = entry.name.slice(0, store.MAX_NAME_CHARS);
  panels[i].name.value = name;
  botsOf(g)[i].name = name;
  saveBots(g);
  showExampleChoice(panels[i]);
}

// "Run my bot against the field": a tournament of the field and the visitor's bot, in
// TournamentView (tournament.js), with the page's parallel matches and step budget.
function runField(challenge, focus) {
  let budget;
  try {
    budget = readBudget();
  } catch (e) {
    challengePanel.fail(`Cannot run: ${e.message}.`);
    return false;
  }
  if (!worker || !ready || run) {
    challengePanel.fail(run ? "Cannot run now: a run is going (press Stop first)." : "Cannot run yet: Python is starting.");
    return false;
  }
  showField();
  clearError();
  return tournamentView.start(challenge, { parallel: settings.parallel ?? null, budget, focus }) !== null;
}

// Tournament mode: the challenge is the field (a challenge link opens there).
function showField() {
  if (tournamentMode()) return;
  settings.mode = "tournament";
  saveSettings();
  showMode();
}

const challengePanel = new ChallengePanel({
  createEditor,
  examples: () => examplesOf(settings.game),
  check: checkChallenge,
  runField,
  showField: () => showField(),
  pageError: (text) => (text ? setError(text) : clearError()),
  // a challenge's own game (web/src/challenge_game.js): loaded as the game editor loads one
  gameLoaded: (game, source) => gameEditor.loadedSource(game) === source,
  loadGame: (source) => gameEditor.loadSource(source),
});
challengeModel.subscribe((change) => {
  if (change && (change.type === "edit" || change.type === "details" || change.type === "open")) return;
  panels.forEach(fillExampleSelect); // the seats' menus list the field's entries
  showTournamentField();
});
// ---- tournament mode (docs/architecture.md "Tournaments in the page") -------------------------
// The field is currentChallenge(): until the page has a challenge of its own
// (web/src/challenge_model.js), the bot panels are the entries. The engine in the controller
// plans, plays and ranks; TournamentView shows what it sends.
const MAX_PARALLEL_CHOICE = 8;
function tournamentMode() { return settings.mode === "tournament"; }

// [min, max] panels: the preset's seats in a match, the entries of a tournament.
function panelBounds(game) {
  return tournamentMode() ? [2, MAX_PANELS] : botBounds(game, gameSettings(game).preset);
}

// The challenge the page shows, in the challenge file's format (docs/architecture.md): the
// challenge section's field (web/src/challenge_model.js) with the form's settings.
function currentChallenge() {
  return challengeModel.currentChallenge();
}

const tournamentView = new TournamentView({
  container: $("tournament"),
  send: (message) => { if (worker) worker.postMessage(message); },
  begin: () => {
    if (!worker || !ready || run) return null;
    saver.flush();
    runCounter += 1;
    store.save("run-counter", runCounter);
    run = { id: runCounter, kind: "tournament", game: settings.game, names: [], records: [], summary: null, viewing: false };
    els.run.disabled = true;
    els.stop.disabled = false;
    $("tournament-section").hidden = false; // also when started from elsewhere (a trial view)
    return run.id;
  },
  end: (text) => {
    setStatus(text);
    setProgress(1, "Tournament progress");
    finishRun();
    sendReplayCheck();
  },
  stop: () => stopRun(),
  openReplay: (document, label) => {
    let series;
    try {
      series = seriesFromDocument(document, gameNames());
    } catch (e) {
      setError(`Could not open ${label}: ${e.message}.`);
      return;
    }
    const spec = specOf(series.game);
    series.title = spec.title || spec.name;
    viewer.load({ ...series, renderer: spec.renderer }).catch((e) => setError(`The board cannot show ${label}: ${e.message}.`));
    setStatus(`Showing tournament ${label}: ${series.bots.join(" vs ")}, seed ${series.records[0] ? series.records[0].seed : "?"}.`);
    $("board-area").focus();
  },
  status: (text, fraction) => {
    setStatus(text);
    setProgress(fraction, "Tournament progress");
  },
});

// ---- the page inside a Stack Snippet (engine/contest/snippet.py's boot script sets kothEmbed) ----------
// The snippet carries the challenge (the link format) and the question whose answers join the
// field; everything else came from the wheel. Opened once Python is ready: the challenge as a
// challenge link (checked by the engine, trial view), then the answers (se_import.js).
const embed = globalThis.kothEmbed && typeof globalThis.kothEmbed === "object" ? globalThis.kothEmbed : null;
let embedStarted = false;
let embedDone = false; // the snippet's challenge and answers are in (tests wait for it)

async function startEmbedded() {
  if (embedStarted) return;
  embedStarted = true;
  document.body.classList.add("embedded");
  // No link can lead back into a snippet's sandboxed frame, its storage lasts the visit, and
  // the site's sandbox allows no downloads.
  for (const id of ["share", "share-challenge", "snippet-export-open", "export-challenge"]) {
    if ($(id)) $(id).hidden = true;
  }
  const taken = await challengePanel.openLink(String(embed.challenge || ""));
  if (taken && Number.isInteger(embed.question)) {
    const site = typeof embed.site === "string" && embed.site ? embed.site : "codegolf";
    const result = await stackExchange.run(String(embed.question), site, { onStatus: setStatus });
    const added = result.entries.length ? challengeModel.addEntries(result.entries.map(
      ({ name, author, code, language, link }) => ({ name, author, code, language, link }))) : 0;
    const left = result.problems.map((p) => `${p.name || `answer ${p.answer_id}`} (${p.kind === "native-only"
      ? "native only" : p.reason})`);
    setStatus(`${added} answer${added === 1 ? "" : "s"} of the question joined the field`
      + `${left.length ? `; not added: ${left.join(", ")}` : ""}. Press Run to play.`);
    if (result.error) setError(`Some answers could not be read: ${result.error}.`);
  }
  // The snippet shows the field's leaderboard: tournament mode, one Run away.
  if (!tournamentMode() && !run) {
    settings.mode = "tournament";
    saveSettings();
    showMode();
    showTournamentField();
  }
  embedDone = true;
}

function startTournament() {
  let budget;
  try {
    readInt(els.seed, FIELD_LABELS.seed, ...LIMITS.seed);
    readInt(els.games, FIELD_LABELS.games, ...LIMITS.games);
    readFields(settings.game);
    budget = readBudget();
  } catch (e) {
    setError(`Cannot run: ${e.message}.`);
    return;
  }
  const challenge = currentChallenge();
  const empty = challenge.entries.find((e) => e.enabled !== false && !e.code.trim());
  if (empty) {
    setError(`Cannot run: the entry ${empty.name} has no code.`);
    return;
  }
  clearError();
  panels.forEach((p) => p.console.clear());
  if (tournamentView.start(challenge, { parallel: settings.parallel ?? null, budget, focus: null }) !== null) {
    linkContexts.playedTournament(challenge, budget, specOf(challenge.game));
  }
}

// A tournament's step budget. Empty: the default (the same results on every machine); 0: none
// (the time limit decides).
function readBudget() {
  const input = $("budget");
  if (input.value.trim() === "") return DEFAULT_TOURNAMENT_BUDGET;
  return readInt(input, "Step budget", 0, 1000000000) || null;
}

function showTournamentField() {
  const field = $("tournament-field");
  if (!field || !tournamentMode()) return;
  const names = challengeModel.entries().filter((e) => e.enabled).map((e) => e.name);
  field.textContent = `The field: the challenge's ${names.length} playing entr${names.length === 1 ? "y" : "ies"}`
    + `${names.length ? ` (${names.join(", ")})` : ""}; edit them in the Challenge section.`;
}

function showMode() {
  const t = tournamentMode();
  $("mode-match").checked = !t;
  $("mode-tournament").checked = t;
  for (const node of document.querySelectorAll(".tournament-only")) node.hidden = !t;
  for (const node of document.querySelectorAll(".match-only")) node.hidden = t;
  $("tournament-section").hidden = !t;
  $("results-section").hidden = t;
  $("challenge").hidden = !t; // the field of a tournament; a match plays the seats below
  document.body.classList.toggle("tournament-mode", t);
  showBots();
}

function bindTournament() {
  const parallel = $("parallel");
  parallel.replaceChildren(option("", "Automatic"),
    ...Array.from({ length: MAX_PARALLEL_CHOICE }, (_, i) => option(String(i + 1), String(i + 1))));
  parallel.value = Number.isInteger(settings.parallel) ? String(settings.parallel) : "";
  parallel.addEventListener("change", () => {
    settings.parallel = parallel.value ? Number(parallel.value) : null;
    saveSettings();
  });
  const budget = $("budget");
  budget.value = Number.isInteger(settings.budget) ? String(settings.budget) : "";
  budget.addEventListener("input", () => {
    const v = Number(budget.value);
    settings.budget = budget.value.trim() !== "" && Number.isInteger(v) && v >= 0 ? v : null;
    saveSettings();
  });
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => {
      if (!radio.checked || run) return showMode();
      settings.mode = radio.value === "tournament" ? "tournament" : "match";
      saveSettings();
      seedEmptyBots();
      showMode();
    });
  }
  els.panels.addEventListener("input", () => showTournamentField());
}

// ---- an author's own game (web/src/game_editor.js): loaded, it joins the game menu ---------------
const gameEditor = new GameEditor($("game-editor-section"), {
  send: (message) => {
    if (!worker || !ready || run) return false;
    worker.postMessage(message);
    return true;
  },
  onLoaded: (spec) => {
    specs = [...specs.filter((g) => !g.authored && g.name !== spec.name), spec]; // one author's game at a time
    useSpecs(specs);
    selectGame(spec.name);
  },
});
challengeModel.bindGameModule((game) => gameEditor.loadedSource(game)); // its module travels with the challenge

// ---- replay files, one-game links, the leaderboard as Markdown (replay_files.js, game_link.js,
// tournament_files.js) -----------------------------------------------------------------------------
const linkContexts = new LinkContexts();
const replayFiles = new ReplayFiles({
  container: $("replay-files"), viewer, linkContext: (record) => linkContexts.find(record),
  status: setStatus, error: setError,
});
const tournamentFiles = new TournamentFiles({
  container: $("tournament-files"), send: (message) => { if (worker) worker.postMessage(message); },
  view: tournamentView, status: setStatus, error: setError,
});
bindDrop(document.body, (file) => openReplayFile(file), setError);
let linkedGame = null; // a game link waiting for Python, or for the run on show to end

async function openGameLink(data) {
  let game;
  try {
    game = await readGameLink(data, specs);
  } catch (e) {
    setError(`This game link cannot be opened: ${e.message}. Nothing on the page was changed.`);
    return;
  }
  linkedGame = game;
  playLinkedGame();
}

// Plays the linked game again as a run of its own: the visitor's bots and settings stay.
async function playLinkedGame() {
  const game = linkedGame;
  if (!game) return;
  if (!worker || !ready || run) {
    setStatus(`${game.label || "The linked game"} is played as soon as ${run ? "this run ends" : "Python is ready"}…`);
    return;
  }
  linkedGame = null;
  const spec = specOf(game.game);
  clearError();
  runCounter += 1;
  store.save("run-counter", runCounter);
  run = { id: runCounter, game: game.game, games: 1, names: game.bots.map((b) => b.name), records: [],
    summary: null, viewing: true, link: game };
  els.run.disabled = true;
  els.stop.disabled = false;
  const starting = run;
  let renderer;
  try {
    renderer = await loadRenderer(spec.renderer);
  } catch (e) {
    setError(`Cannot show the linked game: the board for ${spec.title} did not load (${e.message}).`);
    finishRun();
    return;
  }
  if (run !== starting) return;
  viewer.beginLive(renderer, run.names);
  showResults(run.names, { games: [], mean_scores: [], wins: [], scoring: spec.scoring }, "running");
  setStatus(`Playing ${game.label || "the linked game"} again from the link: ${run.names.join(" vs ")}, seed ${game.seed}…`);
  linkContexts.played(game.game, game.preset, game.budget, spec.fields, game.bots, 40);
  worker.postMessage(runRequest(game, run.id));
}

function linkedGameDone(game, summary) {
  const first = summary.games && summary.games[0];
  const [same, text] = verdict(game, first ? first.scores : null);
  if (same) setStatus(text);
  else setError(text);
}

// ---- wiring -----------------------------------------------------------------------------------
bindTournament();
if (specs.length) useSpecs(specs);
bindSettings();
showSettings();
showMode();
showResults([], null);

els.form.addEventListener("submit", (e) => { e.preventDefault(); startRun(); });
els.stop.addEventListener("click", stopRun);
els.share.addEventListener("click", shareLink);
els.openReplay.addEventListener("click", () => els.replayFile.click());
els.replayFile.addEventListener("change", async () => {
  const f = els.replayFile.files && els.replayFile.files[0];
  if (f) await openReplayFile(f);
  els.replayFile.value = "";
});
els.noticeRestore.addEventListener("click", restoreKeptBots);
els.noticeDiscard.addEventListener("click", discardKeptBots);
els.noticeClose.addEventListener("click", () => { els.notice.hidden = true; els.run.focus(); });
els.downloadBots.addEventListener("click", downloadBots);
els.retrySave.addEventListener("click", retrySaving);
window.addEventListener("hashchange", () => applyHash());
if (!applyHash()) showNotice("");
performance.mark("editor-ready"); // the editors exist and take input (scripts/bench_web)
startWorker();

// A small handle for tests and debugging.
window.kothArena = {
  viewer,
  panels,
  getCode: (i) => panels[i].editor.value,
  setCode: (i, text) => { panels[i].editor.value = text; },
  getSettings: () => JSON.parse(JSON.stringify(settings)),
  openReplayText,
  get ready() { return ready; },
  get run() { return run ? run.id : null; },
  get runsStarted() { return runCounter; },
  get lastTiming() { return lastTiming; },
  get poolReady() { return poolReady; },
  get workerStarts() { return workerStarts; },
  challenge: challengeModel,
  stackExchangeDialog,
  get embedded() { return embed ? { done: embedDone } : null; },
  challengePanel,
  tournament: tournamentView,
  replayFiles,
  tournamentFiles,
  gameLinkData, // scripts/link_sizes
  currentChallenge,
  gameEditor,
};
