// The page's challenge: a title, a description and a field of up to 32 entries, one
// challenge per game, kept in localStorage under "challenge:field:<game>". Its game, preset,
// settings, games, seed and secret are the page's settings form (app.js binds them with
// bindSettings), so currentChallenge() is always the challenge file the page shows
// (docs/architecture.md "Challenge file"). This module only keeps and edits the field; it
// checks nothing a challenge file's reader must check: the engine (engine/contest/challenge.py, in
// the controller Worker) validates imported files and links.

import * as store from "./storage.js";
import { FORMAT, MAX_DESCRIPTION_CHARS, MAX_ENTRIES, MAX_NAME_CHARS, MAX_TITLE_CHARS, blank, copyField, entryJson,
  makeEntry, normaliseField, questionOf, sameField, titleOf, uniqueName, versionOf } from "./challenge_field.js";

export { FORMAT, MAX_DESCRIPTION_CHARS, MAX_ENTRIES, MAX_NAME_CHARS, MAX_TITLE_CHARS, VERSION }
  from "./challenge_field.js";

const MAX_KEPT = 8; // challenges kept aside per game (a link or a file replaced them)

const saver = store.makeSaver(250);
const listeners = new Set();
const fields = {}; // game -> {title, description, entries: [...], open}
// {get() -> {game, preset, settings, games, seed, secret}, set(challenge), bots(game) -> [{name, code}],
//  examples(game) -> {name: code}}
let settingsSource = null;
let removed = null; // the last deleted entry, for undo: {game, entry, index}

// The match seats' bots as they were stored when the page loaded (before this visit seeded
// any examples): a visitor's own code, which becomes the first entries of a game's field.
const botsAtLoad = new Map();
try {
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    const m = key && key.startsWith(store.PREFIX) ? /^bots:(\w+)$/.exec(key.slice(store.PREFIX.length)) : null;
    if (m) botsAtLoad.set(m[1], store.load(`bots:${m[1]}`, null));
  }
} catch {
  // storage blocked: nothing to take over
}

window.addEventListener("pagehide", () => saver.flush());
// Another tab saved a field: it shows here, unless this tab has edits not saved yet; then
// this tab's are saved and the other tab's field is kept aside (restoreKept swaps them).
window.addEventListener("storage", (ev) => {
  const m = ev.key && ev.key.startsWith(store.PREFIX)
    ? /^challenge:field:(\w+)$/.exec(ev.key.slice(store.PREFIX.length)) : null;
  if (!m || ev.newValue === null || !fields[m[1]]) return;
  let theirs;
  try { theirs = normaliseField(JSON.parse(ev.newValue)); } catch { return; }
  const game = m[1];
  if (sameField(theirs, fields[game])) return;
  if (saver.pending(`challenge:field:${game}`)) {
    keepAside(game, theirs, "tab");
    saver.flush();
  } else {
    theirs.open = fields[game].open !== null && theirs.entries.some((e) => e.id === fields[game].open)
      ? fields[game].open : null;
    fields[game] = theirs;
  }
  notify({ type: "replace", reason: "tab" });
});
document.addEventListener("visibilitychange", () => { if (document.hidden) saver.flush(); });

// An author's game's module source by the game's name (null: a built-in game); app.js binds
// the game editor's (web/src/game_editor.js) loaded module.
let gameModuleSource = () => null;
export function bindGameModule(source) { gameModuleSource = source; }

// ---- the contract (ISSUE9_CONTRACT.md) -------------------------------------------------------

// The challenge the page shows, as a challenge file's object. Entries switched off carry
// "enabled": false (engine/contest/challenge.py leaves them out of the tournament).
export function currentChallenge() {
  const s = pageSettings();
  const f = fieldOf(s.game);
  const out = { format: FORMAT, version: versionOf(f), title: titleOf(f, s.game), description: f.description,
    game: s.game };
  const gameModule = gameModuleSource(s.game);
  if (typeof gameModule === "string") out.game_module = gameModule; // an author's game travels with it
  if (s.preset) out.preset = s.preset;
  out.settings = { ...s.settings };
  out.games = s.games;
  out.seed = s.seed;
  if (s.secret) out.secret = s.secret;
  if (f.question) out.question = { ...f.question };
  out.entries = f.entries.map(entryJson);
  return out;
}

// Adds entries ({name, author?, code, language?, link?, enabled?}) at the end of the field;
// returns how many were added. Names are made unique ("name (2)"); past 32 entries, or
// without code, an entry is not added: subscribers get {type: "added", added, skipped:
// [{name, reason}]} so the page can say which and why.
export function addEntries(list) {
  const f = fieldOf(currentGame(), true);
  const skipped = [];
  let added = 0;
  for (const item of Array.isArray(list) ? list : []) {
    const name = item && typeof item.name === "string" ? item.name : "";
    if (!item || typeof item.code !== "string" || !item.code.trim()) {
      skipped.push({ name: name || "unnamed", reason: "it has no code" });
      continue;
    }
    if (f.entries.length >= MAX_ENTRIES) {
      skipped.push({ name: name || "unnamed", reason: `the field is full (${MAX_ENTRIES} entries)` });
      continue;
    }
    f.entries.push(makeEntry(f, item));
    added += 1;
  }
  if (added || skipped.length) changed(currentGame(), { type: "added", added, skipped });
  return added;
}

// fn(change) after any change (change: {type, ...}; most callers just re-read).
export function subscribe(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// ---- the page's settings ---------------------------------------------------------------------

// app.js: get() gives {game, preset, settings, games, seed, secret} as the form holds them;
// set(c) puts a challenge's into the form; bots(game) the match's bots on show.
export function bindSettings(source) {
  settingsSource = source;
}

function pageSettings() {
  if (settingsSource) return settingsSource.get();
  const s = store.load("settings", {}) || {};
  const game = typeof s.game === "string" ? s.game : null;
  const g = s.perGame && game && s.perGame[game] ? s.perGame[game] : {};
  return { game, preset: typeof g.preset === "string" ? g.preset : null, settings: { ...(g.fields || {}) },
    games: Number.isInteger(s.games) ? s.games : 10, seed: Number.isInteger(s.seed) ? s.seed : 1,
    secret: store.load("secret", "") || null };
}

export function currentGame() { return pageSettings().game; }

// Another module changed the settings the challenge takes from the form.
export function settingsChanged() { notify({ type: "settings" }); }

// ---- the field ------------------------------------------------------------------------------

export function entries(game = currentGame()) { return fieldOf(game).entries; }
export function entry(id, game = currentGame()) { return fieldOf(game).entries.find((e) => e.id === id) || null; }
export function openId(game = currentGame()) { return fieldOf(game).open; }
export function details(game = currentGame()) {
  const f = fieldOf(game);
  return { title: titleOf(f, game), description: f.description };
}

export function setDetails(patch) {
  const g = currentGame();
  const f = fieldOf(g, true);
  if (typeof patch.title === "string") f.title = patch.title.slice(0, MAX_TITLE_CHARS);
  if (typeof patch.description === "string") f.description = patch.description.slice(0, MAX_DESCRIPTION_CHARS);
  changed(g, { type: "details" });
}

// A new entry (code: a starting example); returns its id, or null when the field is full.
export function addEntry(code = "", name = "Entry") {
  const g = currentGame();
  const f = fieldOf(g, true);
  if (f.entries.length >= MAX_ENTRIES) return null;
  const e = makeEntry(f, { name, code });
  f.entries.push(e);
  f.open = e.id;
  changed(g, { type: "add", id: e.id });
  return e.id;
}

export function duplicateEntry(id) {
  const g = currentGame();
  const f = fieldOf(g);
  const i = f.entries.findIndex((e) => e.id === id);
  if (i < 0 || f.entries.length >= MAX_ENTRIES) return null;
  const copy = makeEntry(f, { ...entryJson(f.entries[i]), name: `${f.entries[i].name} copy` });
  f.entries.splice(i + 1, 0, copy);
  f.open = copy.id;
  changed(g, { type: "add", id: copy.id });
  return copy.id;
}

// Renames an entry; returns null, or why the name cannot be taken.
export function renameEntry(id, name) {
  const g = currentGame();
  const f = fieldOf(g);
  const e = f.entries.find((x) => x.id === id);
  if (!e) return "no such entry";
  const clean = String(name).trim();
  if (!clean) return "a name cannot be empty";
  if (clean.length > MAX_NAME_CHARS) return `a name is at most ${MAX_NAME_CHARS} characters`;
  if ([...clean].some((c) => c < " " || c === "\u007f")) return "a name is printable text";
  if (f.entries.some((x) => x !== e && x.name === clean)) return `another entry is named “${clean}”`;
  if (e.name !== clean) {
    e.name = clean;
    changed(g, { type: "rename", id });
  }
  return null;
}

// Sets author, link, code or language of an entry (strings; empty: not given).
export function editEntry(id, patch) {
  const g = currentGame();
  const e = entry(id, g);
  if (!e) return;
  for (const key of ["author", "link", "language"]) {
    if (typeof patch[key] === "string") e[key] = patch[key].trim() ? patch[key] : null;
  }
  if (typeof patch.code === "string") e.code = patch.code;
  changed(g, { type: "edit", id });
}

export function setEnabled(id, enabled) {
  const g = currentGame();
  const e = entry(id, g);
  if (!e || e.enabled === Boolean(enabled)) return;
  e.enabled = Boolean(enabled);
  changed(g, { type: "enabled", id });
}

// Deletes an entry; undoDelete() puts the last one deleted back where it was.
export function deleteEntry(id) {
  const g = currentGame();
  const f = fieldOf(g);
  const i = f.entries.findIndex((e) => e.id === id);
  if (i < 0) return null;
  const [e] = f.entries.splice(i, 1);
  removed = { game: g, entry: e, index: i };
  if (f.open === id) f.open = null;
  changed(g, { type: "delete", id, name: e.name });
  return e.name;
}

export function canUndoDelete() {
  return Boolean(removed && removed.game === currentGame() && fieldOf(removed.game).entries.length < MAX_ENTRIES);
}

export function undoDelete() {
  if (!canUndoDelete()) return null;
  const { game, entry: e, index } = removed;
  const f = fieldOf(game);
  removed = null;
  if (f.entries.some((x) => x.name === e.name)) e.name = uniqueName(f, e.name);
  if (f.entries.some((x) => x.id === e.id)) e.id = f.entries.reduce((m, x) => Math.max(m, x.id), 0) + 1;
  f.entries.splice(Math.min(index, f.entries.length), 0, e);
  f.open = e.id;
  changed(game, { type: "undo", id: e.id });
  return e.id;
}

// Moves an entry by delta places (-1 up, +1 down); returns whether it moved.
export function moveEntry(id, delta) {
  const g = currentGame();
  const f = fieldOf(g);
  const i = f.entries.findIndex((e) => e.id === id);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= f.entries.length) return false;
  const [e] = f.entries.splice(i, 1);
  f.entries.splice(j, 0, e);
  changed(g, { type: "move", id });
  return true;
}

// Opens one entry's editor (null: none); the others are summarised.
export function openEntry(id) {
  const g = currentGame();
  const f = fieldOf(g);
  const next = id !== null && f.entries.some((e) => e.id === id) ? id : null;
  if (f.open === next) return;
  f.open = next;
  changed(g, { type: "open", id: next });
}

// ---- a whole challenge from a file or a link ----------------------------------------------------

// Replaces the field with a challenge the engine has checked (its object, file format). The
// field on show is kept aside (restoreKept() swaps it back) unless it is the same or empty.
// The challenge's game, preset, settings, games and seed go to the form. Returns what was
// skipped past the page's cap (the engine allows more entries than the page).
export function replaceChallenge(challenge, reason = "file") {
  const g = challenge.game;
  const before = fieldOf(g);
  const f = blank();
  f.title = String(challenge.title || "").slice(0, MAX_TITLE_CHARS);
  f.description = String(challenge.description || "").slice(0, MAX_DESCRIPTION_CHARS);
  f.question = questionOf(challenge.question);
  const list = Array.isArray(challenge.entries) ? challenge.entries : [];
  for (const item of list.slice(0, MAX_ENTRIES)) f.entries.push(makeEntry(f, item));
  f.open = null;
  if (visitorsOwn(g, before) && !sameField(before, f)) keepAside(g, before, reason);
  fields[g] = f;
  if (settingsSource) settingsSource.set(challenge);
  store.save(`challenge:field:${g}`, f);
  changed(g, { type: "replace", reason });
  return Math.max(0, list.length - MAX_ENTRIES);
}

export function keptChallenge(game = currentGame()) {
  const stack = keptStack(game);
  return stack.length ? stack[stack.length - 1] : null;
}

// Swaps the newest kept challenge with the one on show (so neither is lost).
export function restoreKept() {
  const g = currentGame();
  const stack = keptStack(g);
  const kept = stack.pop();
  if (!kept) return false;
  const shown = fieldOf(g);
  stack.push({ field: copyField(shown), settings: pageSettings(),
    reason: kept.reason === "restored" ? "file" : "restored" });
  store.save(`challenge:kept:${g}`, stack);
  fields[g] = normaliseField(kept.field);
  store.save(`challenge:field:${g}`, fields[g]);
  // the form as it was with that field (same game): its settings, seed and secret
  if (settingsSource && kept.settings && kept.settings.game === g) settingsSource.set(kept.settings);
  changed(g, { type: "replace", reason: "restored" });
  return true;
}

export function discardKept() {
  const g = currentGame();
  const stack = keptStack(g);
  stack.pop();
  if (stack.length) store.save(`challenge:kept:${g}`, stack); else store.remove(`challenge:kept:${g}`);
  notify({ type: "kept" });
}

function keptStack(game) {
  const stack = game ? store.load(`challenge:kept:${game}`, null) : null;
  return Array.isArray(stack) ? stack.filter((k) => k && k.field && typeof k.field === "object") : [];
}

function keepAside(game, field, reason) {
  const stack = keptStack(game);
  stack.push({ field: copyField(field), settings: pageSettings(), reason });
  store.save(`challenge:kept:${game}`, stack.slice(-MAX_KEPT));
}

// ---- inside ---------------------------------------------------------------------------------

// Whether a field holds something of the visitor's: a title, a description, or an entry
// whose code is not one of the game's examples as shipped. A first visit's field (the
// examples the page seeded) is not, and "nothing of yours was lost" would mislead.
function visitorsOwn(game, f) {
  if (!f.entries.length) return false;
  if (f.title.trim() || f.description.trim()) return true;
  const examples = settingsSource && settingsSource.examples ? settingsSource.examples(game) : null;
  const shipped = new Set(Object.values(examples || {}));
  return f.entries.some((e) => !shipped.has(e.code));
}

// The stored field of a game. A game without one starts with the match's bots (the visitor's
// saved code, or the examples on show), so nothing a visitor had is missing from the field; a
// field with nothing in it yet is only kept once something changes it (keep: a mutation).
function fieldOf(game, keep = false) {
  const key = game ?? "";
  if (fields[key]) return fields[key];
  const stored = game ? store.load(`challenge:field:${game}`, null) : null;
  const f = stored ? normaliseField(stored) : migrateBots(game);
  if (stored || f.entries.length || keep) fields[key] = f;
  if (!stored && f.entries.length && game) store.save(`challenge:field:${game}`, f);
  return f;
}

function migrateBots(game) {
  const f = blank();
  if (!game) return f;
  let bots = settingsSource && settingsSource.bots ? settingsSource.bots(game) : null;
  if (!bots || !bots.some((b) => b && typeof b.code === "string" && b.code.trim())) {
    const saved = botsAtLoad.get(game);
    const s = store.load("settings", {}) || {};
    const count = s.perGame && s.perGame[game] && Number.isInteger(s.perGame[game].count) ? s.perGame[game].count : 2;
    bots = Array.isArray(saved) ? saved.slice(0, Math.max(1, count)) : [];
  }
  for (const b of bots) {
    if (!b || typeof b.code !== "string" || !b.code.trim() || typeof b.name !== "string") continue;
    if (f.entries.some((e) => e.code === b.code)) continue;
    f.entries.push(makeEntry(f, { name: b.name.trim() || "Entry", code: b.code }));
  }
  return f;
}

function changed(game, change) {
  if (game) saver.schedule(`challenge:field:${game}`, () => fieldOf(game));
  notify(change);
}

function notify(change) {
  for (const fn of listeners) {
    try { fn(change); } catch (e) { console.error(e); }
  }
}

// Writes pending changes now (before a reload, a share, an export).
export function flush() { saver.flush(); }
