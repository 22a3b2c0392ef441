// The page's state, in one store every view reads from and writes through: the games (the
// engine's specs), the visitor's settings and bots per game, whether Python is ready, and the
// run on show. A run is one object created for the run (newRun) and dropped when it ends
// (endRun): nothing of one run, or one game, is left in module state for the next to find.

import * as storage from "../storage.js";
import * as challengeModel from "../challenge_model.js";
import { languageField } from "../python2.js";

export const MAX_PANELS = 8; // no game takes more bots than this (the spec's max_bots)
const DEFAULT_SETTINGS = { game: null, preset: null, seed: 1, games: 10, perGame: {}, mode: "match",
  parallel: null, budget: null };
export const LIMITS = { seed: [0, 4294967295], games: [1, 1000] };
export const FIELD_LABELS = { seed: "Seed", games: "Games" };

export function validSpecs(list) {
  if (!Array.isArray(list)) return [];
  return list.filter((g) => g && typeof g.name === "string" && Array.isArray(g.presets) && g.presets.length
    && Array.isArray(g.fields) && typeof g.renderer === "string");
}

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

export function normaliseBots(list) {
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

export class Store {
  constructor() {
    this.saver = storage.makeSaver(250);
    this.specs = validSpecs(storage.load("games", null)); // the cached copy until Python sends its own
    this.settings = migrateSettings({ ...DEFAULT_SETTINGS, ...(storage.load("settings", {}) || {}) });
    this.botsByGame = {}; // game -> [{name, code}] x MAX_PANELS, loaded from storage when first shown
    this.ready = false;
    this.runCounter = Number(storage.load("run-counter", 0)) || 0;
    this.run = null; // the run on show (newRun), or null
    this.switching = false; // the editors are being filled from the store (their changes are not edits)
    this.poolReady = 0; // bot Workers started and waiting (scripts/bench_web waits for them)
    this.lastTiming = null; // per bot: round-trip median/p95 of the last run (scripts/bench_web)
    this.hashPending = false; // a shared link waiting for the games to be known
  }

  // ---- the games -------------------------------------------------------------------------
  gameNames() { return this.specs.map((g) => g.name); }
  specOf(game) { return this.specs.find((g) => g.name === game) || null; }
  presetOf(game, name) {
    const spec = this.specOf(game);
    if (!spec) return null;
    return spec.presets.find((p) => p.name === name) || spec.presets.find((p) => p.name === spec.default_preset)
      || spec.presets[0];
  }
  // [min, max] bots the preset allows (within the game's and the page's limits).
  botBounds(game, preset) {
    const spec = this.specOf(game);
    const p = this.presetOf(game, preset);
    if (!spec || !p) return [1, 2];
    const [lo, hi] = Array.isArray(p.bots) ? p.bots : [spec.min_bots, spec.max_bots];
    return [Math.max(1, lo), Math.min(MAX_PANELS, hi)];
  }
  examplesOf(game) {
    const spec = this.specOf(game);
    return spec && spec.examples && typeof spec.examples === "object" ? spec.examples : {};
  }
  isDefaultName(game, name) {
    return !name.trim() || /^Bot \d+$/.test(name.trim()) || Object.hasOwn(this.examplesOf(game), name.trim());
  }

  // ---- settings --------------------------------------------------------------------------
  tournamentMode() { return this.settings.mode === "tournament"; }
  // This game's saved choices: {preset, fields: {key: value}, count}.
  gameSettings(game = this.settings.game) {
    const key = game ?? "";
    const all = this.settings.perGame;
    if (!all[key]) all[key] = { preset: null, fields: {}, count: null };
    const g = all[key];
    if (!g.fields || typeof g.fields !== "object") g.fields = {};
    return g;
  }
  // A field's value: the visitor's, else the preset's.
  fieldValue(game, key) {
    const gs = this.gameSettings(game);
    if (Number.isFinite(gs.fields[key])) return gs.fields[key];
    const p = this.presetOf(game, gs.preset);
    const v = p && p.settings ? p.settings[key] : undefined;
    return Number.isFinite(v) ? v : "";
  }
  // [min, max] panels: the preset's seats in a match, the entries of a tournament.
  panelBounds(game) {
    return this.tournamentMode() ? [2, MAX_PANELS] : this.botBounds(game, this.gameSettings(game).preset);
  }
  // How many bots the current game plays with: the saved count, within the preset's bounds
  // (in Tournament mode: the entries, 2 to MAX_PANELS whatever a game seats).
  botCount(game = this.settings.game) {
    const g = this.gameSettings(game);
    if (this.tournamentMode()) return Math.max(2, Math.min(MAX_PANELS, Number(g.entries) || Number(g.count) || 2));
    if (!this.specOf(game)) return Math.max(2, Math.min(MAX_PANELS, Number(g.count) || 2));
    const [lo, hi] = this.botBounds(game, g.preset);
    const p = this.presetOf(game, g.preset);
    const usual = p.settings && Number.isInteger(p.settings.players) ? p.settings.players : 2;
    return Math.max(lo, Math.min(hi, Number(g.count) || usual));
  }
  saveSettings() { this.saver.schedule("settings", () => this.settings); challengeModel.settingsChanged(); }

  // ---- bots --------------------------------------------------------------------------------
  botsOf(game) {
    const key = game ?? "";
    if (!this.botsByGame[key]) {
      this.botsByGame[key] = normaliseBots(game ? storage.load(`bots:${game}`, null) : null);
    }
    return this.botsByGame[key];
  }
  saveBots(game) { if (game) this.saver.schedule(`bots:${game}`, () => this.botsOf(game)); }
  // Bots with no code get an example (bot i gets example i), in the game on show.
  seedEmptyBots(g = this.settings.game) {
    const examples = this.examplesOf(g);
    const names = Object.keys(examples);
    if (!g || !names.length) return;
    this.botsOf(g).forEach((b, i) => {
      if (b.code.trim()) return;
      const exName = names[i % names.length];
      b.code = examples[exName];
      if (this.isDefaultName(g, b.name)) b.name = exName;
      this.saveBots(g);
    });
  }

  // ---- runs ----------------------------------------------------------------------------------
  // A new run object, the one on show: {id, kind, game, games, names, records, summary, viewing, ...}.
  newRun(fields) {
    this.runCounter += 1;
    storage.save("run-counter", this.runCounter);
    this.run = { id: this.runCounter, records: [], summary: null, ...fields };
    return this.run;
  }
  endRun() { this.run = null; }
}
