// KotH Arena page: settings, bot panels, the controller worker, the viewer, results.
// No Python runs on this thread: everything goes through controller_worker.js.

import { createEditor } from "./editor.js";
import { BotConsole } from "./console.js";
import { Viewer } from "./viewer.js";
import { checkReplaySize, checkReplayText, seriesFromDocument, GAMES } from "./replay.js";
import { renderResults } from "./results.js";
import * as store from "./storage.js";

const PRESETS = {
  flit: [{ value: "trial", label: "trial (2 bots, 16×16, 1,024 turns, 100 ms)", bots: 2, time_limit_ms: 100 }],
  // 1 s: a posted answer runs as a process per move, as the original controller ran it.
  atomas: [{ value: "standard", label: "standard (1,000 ms a move)", bots: null, time_limit_ms: 1000 }],
};
const MAX_PANELS = 2;
const DEFAULT_SETTINGS = {
  game: "flit", preset: "trial", seed: 1, games: 10, time_limit_ms: 100, max_moves: 2000, atomas_bots: 2,
};
const LIMITS = {
  seed: [0, 4294967295], games: [1, 1000], time_limit_ms: [1, 60000], max_moves: [1, 1000000],
};
const FIELD_LABELS = { seed: "Seed", games: "Games", time_limit_ms: "Time limit (ms)", max_moves: "Max moves" };

const $ = (id) => document.getElementById(id);
const els = {
  status: $("status"), statusText: $("status-text"), statusError: $("status-error"), progress: $("progress"),
  form: $("settings-form"), game: $("game"), preset: $("preset"), seed: $("seed"), randomSeed: $("random-seed"),
  games: $("games"), timeLimit: $("time-limit"), maxMoves: $("max-moves"), maxMovesField: $("max-moves-field"),
  run: $("run"), stop: $("stop"), openReplay: $("open-replay"), replayFile: $("replay-file"), share: $("share"),
  shareBox: $("share-box"), shareUrl: $("share-url"),
  addBot: $("add-bot"), removeBot: $("remove-bot"), botCount: $("bot-count-controls"), panels: $("bot-panels"),
  results: $("results"),
  notice: $("notice"), noticeText: $("notice-text"), noticeRestore: $("notice-restore"),
  noticeDiscard: $("notice-discard"), noticeClose: $("notice-close"),
  saveWarning: $("save-warning"), saveWarningText: $("save-warning-text"),
  downloadBots: $("download-bots"), retrySave: $("retry-save"),
};

// ---- state ----------------------------------------------------------------------------
const saver = store.makeSaver(250);
let settings = { ...DEFAULT_SETTINGS, ...(store.load("settings", {}) || {}) };
if (!GAMES.includes(settings.game)) settings.game = DEFAULT_SETTINGS.game;
const botsByGame = {};
for (const g of GAMES) botsByGame[g] = normaliseBots(store.load(`bots:${g}`, null));
let examples = { flit: {}, atomas: {} };
let ready = false;
let runCounter = Number(store.load("run-counter", 0)) || 0;
let run = null; // {id, game, names, records: [], summary}
let switching = false;
let poolReady = 0; // bot Workers started and waiting (scripts/bench_web waits for them)
let lastTiming = null; // per bot: round-trip median/p95 of the last run (scripts/bench_web)

function normaliseBots(list) {
  const out = [];
  for (let i = 0; i < MAX_PANELS; i++) {
    const b = Array.isArray(list) ? list[i] : null;
    out.push({
      name: b && typeof b.name === "string" ? b.name : `Bot ${i + 1}`,
      code: b && typeof b.code === "string" ? b.code : "",
    });
  }
  return out;
}

function botCount(game = settings.game) {
  const p = presetOf(game, settings.preset);
  if (p && p.bots) return p.bots;
  return Math.max(1, Math.min(MAX_PANELS, Number(settings.atomas_bots) || 2));
}

function presetOf(game, value) {
  return PRESETS[game].find((p) => p.value === value) || PRESETS[game][0];
}

function saveSettings() { saver.schedule("settings", () => settings); }
function saveBots(game) { saver.schedule(`bots:${game}`, () => botsByGame[game]); }
window.addEventListener("pagehide", () => saver.flush());
window.addEventListener("beforeunload", () => saver.flush());
document.addEventListener("visibilitychange", () => { if (document.hidden) saver.flush(); });

// ---- saving that fails: a warning that stays until a save works again ---------------------
const failedSaves = new Map(); // key -> the error of its last save
const WATCHED_SAVES = /^(settings|bots:|previous-bots:)/; // what the visitor would lose
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
  const text = botsByGame[g].slice(0, botCount(g))
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
  for (const g of GAMES) store.save(`bots:${g}`, botsByGame[g]);
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
  return a.length === b.length && a.every((x, i) => x.name === b[i].name && x.code === b[i].code);
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
  const shown = botsByGame[g].map((b) => ({ ...b }));
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
  if (!m || !GAMES.includes(m[1]) || ev.newValue === null) return;
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
const panels = [];
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
  const editor = createEditor(root.querySelector(".editor"), {
    label: `Bot ${n} code`,
    onChange: (text) => {
      if (switching) return;
      botsByGame[settings.game][i].code = text;
      saveBots(settings.game);
    },
  });
  const panel = { root, name, ex, editor, console: new BotConsole(con) };
  name.addEventListener("input", () => {
    botsByGame[settings.game][i].name = name.value;
    saveBots(settings.game);
  });
  ex.addEventListener("change", () => {
    const src = (examples[settings.game] || {})[ex.value];
    if (typeof src !== "string") return;
    loadExample(i, ex.value, src);
  });
  clearBtn.addEventListener("click", () => panel.console.clear());
  return panel;
}

function isDefaultName(name) {
  const g = settings.game;
  return !name.trim() || /^Bot \d+$/.test(name.trim()) || Object.hasOwn(examples[g] || {}, name.trim());
}

function loadExample(i, exName, src) {
  const g = settings.game;
  const p = panels[i];
  p.editor.value = src; // onChange saves the code
  botsByGame[g][i].code = src;
  if (isDefaultName(p.name.value)) {
    p.name.value = exName;
    botsByGame[g][i].name = exName;
  }
  saveBots(g);
}

function fillExampleSelects() {
  const names = Object.keys(examples[settings.game] || {});
  panels.forEach((p, i) => {
    const opts = [];
    const first = document.createElement("option");
    first.value = "";
    first.textContent = ready ? (names.length ? "Choose an example…" : "No examples") : "Examples load with Python…";
    opts.push(first);
    for (const n of names) {
      const o = document.createElement("option");
      o.value = n;
      o.textContent = n;
      opts.push(o);
    }
    p.ex.replaceChildren(...opts);
    p.ex.value = "";
    p.ex.disabled = !names.length;
  });
}

// After examples arrive: a bot with no code gets an example (bot i gets example i).
function seedEmptyBots() {
  for (const g of GAMES) {
    const names = Object.keys(examples[g] || {});
    if (!names.length) continue;
    botsByGame[g].forEach((b, i) => {
      if (b.code.trim()) return;
      const exName = names[i % names.length];
      b.code = examples[g][exName];
      if (isDefaultNameFor(g, b.name)) b.name = exName;
      saveBots(g);
    });
  }
  showBots();
}
function isDefaultNameFor(g, name) {
  return !name.trim() || /^Bot \d+$/.test(name.trim()) || Object.hasOwn(examples[g] || {}, name.trim());
}

function showBots() {
  const g = settings.game;
  const count = botCount(g);
  switching = true;
  try {
    panels.forEach((p, i) => {
      p.root.hidden = i >= count;
      const b = botsByGame[g][i];
      if (p.name.value !== b.name) p.name.value = b.name;
      if (p.editor.value !== b.code) p.editor.value = b.code;
    });
  } finally {
    switching = false;
  }
  const fixed = !!presetOf(g, settings.preset).bots;
  els.botCount.hidden = fixed;
  els.addBot.disabled = count >= MAX_PANELS;
  els.removeBot.disabled = count <= 1;
}

// ---- settings -----------------------------------------------------------------------------
function fillPresets() {
  const g = settings.game;
  els.preset.replaceChildren(...PRESETS[g].map((p) => {
    const o = document.createElement("option");
    o.value = p.value;
    o.textContent = p.label;
    return o;
  }));
  settings.preset = presetOf(g, settings.preset).value;
  els.preset.value = settings.preset;
}

function showSettings() {
  els.game.value = settings.game;
  fillPresets();
  els.seed.value = String(settings.seed);
  els.games.value = String(settings.games);
  els.timeLimit.value = String(settings.time_limit_ms);
  els.maxMoves.value = String(settings.max_moves);
  els.maxMovesField.hidden = settings.game !== "atomas";
  fillExampleSelects();
  showBots();
}

function readInt(input, key) {
  const raw = input.value.trim();
  const [lo, hi] = LIMITS[key];
  if (!/^-?\d+$/.test(raw)) throw new Error(`${FIELD_LABELS[key]} must be a whole number`);
  const v = Number(raw);
  if (v < lo || v > hi) throw new Error(`${FIELD_LABELS[key]} must be between ${lo} and ${hi}`);
  return v;
}

function bindSettings() {
  els.game.addEventListener("change", () => {
    saver.flush();
    settings.game = GAMES.includes(els.game.value) ? els.game.value : "flit";
    settings.preset = PRESETS[settings.game][0].value;
    settings.time_limit_ms = PRESETS[settings.game][0].time_limit_ms;
    saveSettings();
    showSettings();
    showNotice("");
  });
  els.preset.addEventListener("change", () => {
    settings.preset = presetOf(settings.game, els.preset.value).value;
    const p = presetOf(settings.game, settings.preset);
    settings.time_limit_ms = p.time_limit_ms;
    els.timeLimit.value = String(p.time_limit_ms);
    saveSettings();
    showBots();
  });
  const numeric = [[els.seed, "seed"], [els.games, "games"], [els.timeLimit, "time_limit_ms"], [els.maxMoves, "max_moves"]];
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
    settings.atomas_bots = Math.min(MAX_PANELS, botCount() + 1);
    saveSettings();
    showBots();
    panels[settings.atomas_bots - 1].name.focus();
  });
  els.removeBot.addEventListener("click", () => {
    settings.atomas_bots = Math.max(1, botCount() - 1);
    saveSettings();
    showBots();
    els.addBot.focus();
  });
}

// ---- share links ------------------------------------------------------------------------------
function shareObject() {
  const n = botCount();
  return {
    v: 1,
    settings: {
      game: settings.game, preset: settings.preset, seed: settings.seed, games: settings.games,
      time_limit_ms: settings.time_limit_ms, max_moves: settings.max_moves,
    },
    bots: botsByGame[settings.game].slice(0, n).map((b) => ({ name: b.name, code: b.code })),
  };
}

async function shareLink() {
  saver.flush();
  const url = `${location.origin}${location.pathname}${location.search}#${store.encodeShare(shareObject())}`;
  els.shareUrl.value = url;
  els.shareBox.hidden = false;
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
// the form's bounds are refused with a message (never clamped); the bots on show before
// are kept aside (one click to restore), and the notice shows what the link set.
function applyHash() {
  let h = location.hash.replace(/^#/, "");
  if (!h) return false;
  if (h.startsWith("s=")) h = h.slice(2);
  let parsed;
  try {
    const obj = store.decodeShare(h);
    parsed = store.checkShare(obj, GAMES);
    const g = parsed.settings.game;
    if (parsed.settings.preset !== undefined && !PRESETS[g].some((p) => p.value === parsed.settings.preset)) {
      throw new Error(`${g} has no preset ${JSON.stringify(parsed.settings.preset.slice(0, 40))}`);
    }
    const preset = presetOf(g, parsed.settings.preset);
    if (preset.bots && parsed.bots.length !== preset.bots) {
      throw new Error(`the ${g} ${preset.value} preset needs ${preset.bots} bots`);
    }
    if (!preset.bots && parsed.bots.length > MAX_PANELS) throw new Error(`at most ${MAX_PANELS} bots`);
    for (const k of ["seed", "games", "time_limit_ms", "max_moves"]) {
      if (!(k in parsed.settings)) continue;
      const v = parsed.settings[k];
      const [lo, hi] = LIMITS[k];
      if (!Number.isInteger(v)) throw new Error(`its ${FIELD_LABELS[k]} is not a whole number`);
      if (v < lo || v > hi) {
        throw new Error(`its ${FIELD_LABELS[k]} is ${v}; the page allows ${lo} to ${hi}`);
      }
    }
  } catch (e) {
    setError(`Could not apply the shared link: ${e.message}. Nothing was changed.`);
    return false;
  }
  const s = parsed.settings;
  const g = s.game;
  saver.flush();
  const before = botsByGame[g].map((b) => ({ ...b }));
  const after = before.map((b) => ({ ...b }));
  parsed.bots.forEach((b, i) => { after[i] = { name: b.name, code: b.code }; });
  // The visitor's own code is kept; bots an earlier link put there, unedited, are not.
  const own = before.some((b) => b.code.trim()) && !sameBots(before, store.load(`shared-bots:${g}`, []));
  if (own && !sameBots(before, after)) keepBots(g, before, "link");
  settings.game = g;
  settings.preset = presetOf(g, s.preset).value;
  settings.time_limit_ms = presetOf(g, settings.preset).time_limit_ms;
  for (const k of ["seed", "games", "time_limit_ms", "max_moves"]) if (k in s) settings[k] = s[k];
  if (!presetOf(g, settings.preset).bots) settings.atomas_bots = parsed.bots.length;
  botsByGame[g] = after;
  store.save(`shared-bots:${g}`, after);
  saveSettings();
  saveBots(g);
  saver.flush();
  history.replaceState(null, "", location.pathname + location.search);
  clearError();
  showSettings();
  showNotice(`Opened a shared challenge: ${describeSettings(parsed.bots)}. Nothing runs until you press Run.`);
  setStatus("Applied the settings and bots from the shared link.");
  return true;
}

// "Flit trial, seed 5, 10 games, time limit 100 ms, bots: a, b" for the notice.
function describeSettings(bots) {
  const g = settings.game;
  const parts = [`${g === "flit" ? "Flit" : "Atomas"} ${settings.preset}`, `seed ${settings.seed}`,
    `${settings.games} game${settings.games === 1 ? "" : "s"}`, `time limit ${settings.time_limit_ms} ms`];
  if (g === "atomas") parts.push(`at most ${settings.max_moves} moves`);
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

function showResults(game, names, summary, note) {
  renderResults(els.results, game, names, summary, note);
}

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
    series = seriesFromDocument(m.document);
  } catch (e) {
    setError(`Could not open replay ${c.name}: ${e.message}.`);
    setStatus("The board and the results still show what they showed before.");
    return;
  }
  clearError();
  if (run) run.viewing = false; // the live run keeps going; the viewer shows the file
  viewer.load(series);
  showResults(series.game, series.bots, series.summary, `replay ${c.name}`);
  const n = series.records.length;
  setStatus(`Opened ${c.name}: ${series.game === "flit" ? "Flit" : "Atomas"}, ${n} record${n === 1 ? "" : "s"}, `
    + "every game re-run through the rules and the results recomputed.");
}

viewer.onDrawError = (message) => setError(`The board could not draw a frame: ${message}.`);

// ---- controller worker ------------------------------------------------------------------------
let worker = null;
// Stop: the controller may be blocked waiting for a bot (shared-memory mode), where it
// cannot read messages: it looks at this flag (the run to stop) between short waits.
const stopFlag = self.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
// How long a Stop may go unanswered before the controller Worker is taken for stuck and
// replaced (it answers within a wait slice when it is healthy).
const STOP_GRACE_MS = 1500;
let stopTimer = null;
let workerStarts = 0; // controller Workers started (a replaced one counts again)
// Leaving the page: stop Python at once rather than leave it to the browser's teardown.
window.addEventListener("pagehide", () => { if (worker) worker.terminate(); });

function startWorker() {
  let started;
  try {
    started = new Worker("controller_worker.js", { type: "module" });
  } catch (e) {
    setError(`Could not start the Python worker: ${e.message}.`);
    setStatus("Replays can still be opened.");
    return;
  }
  worker = started;
  workerStarts += 1;
  // Messages from a Worker that was replaced are dropped.
  started.addEventListener("message", (ev) => { if (worker === started) onMessage(ev.data); });
  // The digest of the Python snapshot a previous visit stored: kept here, where no Worker
  // (and so no bot) can change it, so the controller can trust the cached copy.
  started.postMessage({ type: "init", snapshotDigest: store.load("python-snapshot", null), stopFlag });
  started.addEventListener("error", (ev) => {
    ev.preventDefault();
    if (worker !== started) return;
    const msg = ev.message || "the worker script failed to load";
    if (ready) {
      replaceWorker(`The Python worker failed (${msg})`);
      return;
    }
    setError(`Python worker error: ${msg}.`);
    if (run) finishRun();
    setStatus("Replays can still be opened.");
  });
  started.addEventListener("messageerror", () => setError("Python worker sent an unreadable message."));
}

// The controller Worker is stuck or its Python is broken: end the run, start a new one.
function replaceWorker(reason) {
  if (worker) worker.terminate();
  worker = null;
  ready = false;
  const stopped = run;
  if (run) {
    if (run.viewing) showResults(run.game, run.names, run.summary, "stopped");
    finishRun();
  }
  els.run.disabled = true;
  setError(`${reason}: ${stopped ? "the run was ended and " : ""}Python was restarted.`);
  setStatus("Restarting Python…");
  startWorker();
}

function onMessage(m) {
  if (!m || typeof m !== "object") return;
  if (m.type === "status") return onStatus(m);
  if (m.type === "verified") return onVerified(m);
  if (m.type === "fatal") {
    replaceWorker(`Python in the controller failed (${String(m.message ?? "fatal error").slice(0, 200)})`);
    return undefined;
  }
  if (m.type === "snapshot") {
    store.save("python-snapshot", { buildId: String(m.buildId), digest: String(m.digest) });
    return undefined;
  }
  if (m.type === "pool") {
    poolReady = Number(m.ready) || 0;
    return undefined;
  }
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
      const p = panels[m.bot];
      if (p) p.console.write(m.stream || "stdout", m.text, m.line ?? null);
      break;
    }
    case "progress": {
      const total = Number(m.total) || 0;
      if (m.summary && Array.isArray(m.summary.games)) {
        run.summary = m.summary; // the engine's summary of the games finished so far
        if (run.viewing) showResults(run.game, run.names, m.summary, "running");
      }
      setProgress(total ? m.done / total : 0, "Series progress");
      setStatus(`Running: ${m.done} of ${total} game${total === 1 ? "" : "s"} finished… ${replayWaitNote()}`.trim());
      break;
    }
    case "done": {
      lastTiming = Array.isArray(m.timing) ? { bots: m.timing, wall_ms: m.wall_ms, awaited_ms: m.awaited_ms } : null;
      const s = m.series && Array.isArray(m.series.games) ? m.series : { games: [], mean_scores: [], wins: [] };
      run.summary = s;
      const secretNote = typeof m.secret === "string" ? `secret ${m.secret}` : "";
      if (run.viewing) showResults(run.game, run.names, s, secretNote);
      setProgress(1, "Series progress");
      setStatus(`Finished: ${describeSummary(run.game, run.names, s)}${secretNote ? ` Run with ${secretNote}.` : ""}`);
      finishRun();
      break;
    }
    case "stopped": {
      setStatus("Stopped.");
      if (run.viewing) showResults(run.game, run.names, run.summary, "stopped");
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
}

function describeSummary(game, names, s) {
  const n = (s.games || []).length;
  const parts = names.map((nm, i) => {
    const w = s.wins ? s.wins[i] : 0;
    const mean = s.mean_scores && s.mean_scores[i] !== null && s.mean_scores[i] !== undefined
      ? Number(s.mean_scores[i]).toFixed(1) : "—";
    return game === "flit" ? `${nm} ${w} win${w === 1 ? "" : "s"}` : `${nm} mean ${mean}`;
  });
  return `${n} game${n === 1 ? "" : "s"}; ${parts.join(", ")}.`;
}

function onStatus(m) {
  const p = typeof m.progress === "number" ? m.progress : null;
  if (m.stage === "ready") {
    if (!ready) performance.mark("arena-ready", { detail: m.startup || null });
    ready = true;
    if (m.examples && typeof m.examples === "object") {
      examples = { flit: { ...(m.examples.flit || {}) }, atomas: { ...(m.examples.atomas || {}) } };
    }
    let text = m.message || "Python is ready.";
    if (m.isolated === false) text += " (Not cross-origin isolated: a bot stuck in a loop is stopped by restarting its Worker.)";
    if (!run) {
      setStatus(text);
      setProgress(1, "Loading progress");
    }
    fillExampleSelects();
    seedEmptyBots();
    if (!run) els.run.disabled = false;
    if (replayCheck && replayCheck.sent) {
      // It was being checked by a controller Worker that has been replaced since: it is not
      // sent again (it may be what broke that Worker).
      setError(`Could not open replay ${replayCheck.name}: Python stopped while checking it.`);
      replayCheck = null;
    }
    sendReplayCheck();
  } else {
    if (!run) {
      setStatus(`${m.message || "Loading Python…"} ${replayWaitNote()}`.trim());
      setProgress(p, "Loading progress");
    }
  }
}

function startRun() {
  if (!worker || !ready || run) return;
  let seed, games, time_limit_ms, max_moves;
  try {
    seed = readInt(els.seed, "seed");
    games = readInt(els.games, "games");
    time_limit_ms = readInt(els.timeLimit, "time_limit_ms");
    max_moves = settings.game === "atomas" ? readInt(els.maxMoves, "max_moves") : Number(settings.max_moves) || 2000;
  } catch (e) {
    setError(`Cannot run: ${e.message}.`);
    return;
  }
  const g = settings.game;
  const n = botCount(g);
  const bots = botsByGame[g].slice(0, n).map((b, i) => ({
    name: b.name.trim() || `Bot ${i + 1}`,
    code: panels[i].editor.value,
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
  run = { id: runCounter, game: g, names: bots.map((b) => b.name), records: [], summary: null, viewing: true };
  panels.forEach((p) => p.console.clear());
  viewer.beginLive(g, run.names);
  showResults(g, run.names, { games: [], mean_scores: [], wins: [] }, "running");
  els.run.disabled = true;
  els.stop.disabled = false;
  setProgress(0, "Series progress");
  setStatus(`Running ${games} game${games === 1 ? "" : "s"} of ${g === "flit" ? "Flit" : "Atomas"}…`);
  worker.postMessage({
    type: "run", run: run.id, game: g, preset: settings.preset, seed, games, time_limit_ms, max_moves, bots,
    secret: secretInput.value || null, // empty: the controller draws one and reports it with "done"
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
  if (run) viewer.endLive();
  run = null;
  els.run.disabled = !ready;
  els.stop.disabled = true;
}

// ---- the run's secret (kept like the settings; never put in share links) ----------------------
const secretInput = $("secret");
secretInput.value = String(store.load("secret", "") || "");
secretInput.addEventListener("input", () => store.save("secret", secretInput.value));

// ---- wiring -----------------------------------------------------------------------------------
for (let i = 0; i < MAX_PANELS; i++) panels.push(makePanel(i));
bindSettings();
showSettings();
showResults(settings.game, [], null);

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
  getSettings: () => ({ ...settings }),
  openReplayText,
  get ready() { return ready; },
  get run() { return run ? run.id : null; },
  get runsStarted() { return runCounter; },
  get lastTiming() { return lastTiming; },
  get poolReady() { return poolReady; },
  get workerStarts() { return workerStarts; },
};
