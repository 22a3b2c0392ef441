// The challenge section's wiring: the challenge model's settings are the form's (web/src/
// challenge_model.js), the engine checks a challenge's text (controller Worker, main.py
// check_challenge), the panel (challenge_panel.js) runs the field as a tournament, and
// entries come from a Stack Exchange question (se_import.js) or leave as a Stack Snippet.

import { createEditor } from "../editor.js";
import * as challengeModel from "../challenge_model.js";
import { ChallengePanel } from "../challenge_panel.js";
import { ImportDialog, StackExchangeImport } from "../se_import.js";
import { SnippetExportDialog } from "../snippet_export.js";
import { LIMITS } from "./store.js";

export function createChallenge(app) {
  const { store } = app;
  const send = (m) => { app.controller.send(m); };
  const ready = () => store.ready && app.controller.alive();

  challengeModel.bindSettings({
    get() {
      const g = store.settings.game;
      const fields = {};
      for (const [k, v] of Object.entries(store.gameSettings(g).fields)) if (Number.isInteger(v)) fields[k] = v;
      return { game: g, preset: store.specOf(g) ? store.presetOf(g, store.gameSettings(g).preset).name
        : store.gameSettings(g).preset,
      settings: fields, games: store.settings.games, seed: store.settings.seed, secret: app.links.secret() || null };
    },
    // The match's bots on show (a new field starts with them).
    bots(game) {
      if (!store.specOf(game)) return [];
      // the store, never the editors: during a switch they still hold the game before's code.
      return store.botsOf(game).slice(0, store.botCount(game))
        .map((b, i) => ({ name: b.name.trim() || `Bot ${i + 1}`, code: b.code }));
    },
    examples: (game) => store.examplesOf(game),
    // A challenge the engine checked: its game, preset, settings, games and seed fill the form.
    set(c) {
      if (!store.specOf(c.game)) return;
      store.saver.flush();
      store.settings.game = c.game;
      const gs = store.gameSettings(c.game);
      gs.preset = store.presetOf(c.game, c.preset || null).name;
      gs.fields = { ...(c.settings || {}) };
      if (Number.isInteger(c.games)) store.settings.games = Math.min(LIMITS.games[1], Math.max(LIMITS.games[0], c.games));
      if (Number.isInteger(c.seed)) store.settings.seed = c.seed;
      app.links.setSecret(typeof c.secret === "string" ? c.secret : "");
      store.saveSettings();
      store.seedEmptyBots(c.game);
      app.form.showSettings();
    },
  });

  const stackExchange = new StackExchangeImport({ send });
  const stackExchangeDialog = new ImportDialog({
    importer: stackExchange, ready, addEntries: (list) => challengeModel.addEntries(list),
  });
  const snippetExport = new SnippetExportDialog({
    send, ready, challenge: () => { challengeModel.flush(); return challengeModel.currentChallenge(); },
  });

  // ---- the engine's verdict on a challenge's text -----------------------------------------
  const checks = new Map(); // id -> resolve
  const waiting = []; // sent when the controller Worker starts
  let checkIds = 0;
  function check(text) {
    return new Promise((resolve) => {
      checkIds += 1;
      checks.set(checkIds, resolve);
      const message = { type: "challenge-check", id: checkIds, text };
      if (!app.controller.send(message)) waiting.push(message);
    });
  }
  function sendWaitingChecks() {
    if (app.controller.alive()) for (const message of waiting.splice(0)) app.controller.send(message);
  }
  function onChecked(m) {
    const resolve = checks.get(m.id);
    if (!resolve) return;
    checks.delete(m.id);
    resolve(typeof m.error === "string" ? { error: m.error } : { challenge: m.challenge });
  }
  function failChecks(why) {
    for (const resolve of checks.values()) resolve({ error: why });
    checks.clear();
    waiting.length = 0;
  }

  // "Run my bot against the field": a tournament of the field and the visitor's bot, in
  // TournamentView (tournament.js), with the page's parallel matches and step budget.
  function runField(challenge, focus) {
    let budget;
    try {
      budget = app.tournament.readBudget();
    } catch (e) {
      panel.fail(`Cannot run: ${e.message}.`);
      return false;
    }
    if (!app.runs.canRun()) {
      panel.fail(store.run ? "Cannot run now: a run is going (press Stop first)." : "Cannot run yet: Python is starting.");
      return false;
    }
    app.tournament.showFieldMode();
    app.status.clearError();
    return app.tournament.view.start(challenge, { parallel: store.settings.parallel ?? null, budget, focus }) !== null;
  }

  const panel = new ChallengePanel({
    createEditor,
    examples: () => store.examplesOf(store.settings.game),
    check,
    runField,
    showField: () => app.tournament.showFieldMode(),
    pageError: (text) => (text ? app.status.error(text) : app.status.clearError()),
    // a challenge's own game (web/src/challenge_game.js): loaded as the game editor loads one
    gameLoaded: (game, source) => app.gameEditor.loadedSource(game) === source,
    loadGame: (source) => app.gameEditor.loadSource(source),
  });
  challengeModel.subscribe((change) => {
    if (change && (change.type === "edit" || change.type === "details" || change.type === "open")) return;
    app.panels.fillExampleSelects(); // the seats' menus list the field's entries
    app.tournament.showField();
  });

  return { panel, stackExchange, stackExchangeDialog, snippetExport, check, onChecked, failChecks,
    sendWaitingChecks };
}
