// Tournament mode (docs/architecture.md "Tournaments in the page"): the field is the
// challenge section's (web/src/challenge_model.js); the engine in the controller plans, plays
// and ranks; TournamentView (tournament.js) shows what it sends, TournamentFiles its files.

import * as challengeModel from "../challenge_model.js";
import { DEFAULT_TOURNAMENT_BUDGET, TournamentView } from "../tournament.js";
import { TournamentFiles } from "../tournament_files.js";
import { seriesFromDocument } from "../replay.js";
import { FIELD_LABELS, LIMITS } from "./store.js";
import { option } from "./bot_panels.js";
import { readInt } from "./settings_form.js";

const MAX_PARALLEL_CHOICE = 8;

export function createTournamentMode(app) {
  const { store, els } = app;
  const $ = (id) => document.getElementById(id);
  const send = (message) => { app.controller.send(message); };

  const view = new TournamentView({
    container: $("tournament"),
    send,
    begin: () => {
      if (!app.runs.canRun()) return null;
      store.saver.flush();
      const run = store.newRun({ kind: "tournament", game: store.settings.game, names: [], viewing: false });
      els.run.disabled = true;
      els.stop.disabled = false;
      $("tournament-section").hidden = false; // also when started from elsewhere (a trial view)
      return run.id;
    },
    end: (text) => {
      app.status.set(text);
      app.status.progress(1, "Tournament progress");
      app.runs.finish();
      app.replayCheck.send();
    },
    stop: () => app.runs.stop(),
    openReplay: (document, label) => {
      let series;
      try {
        series = seriesFromDocument(document, store.gameNames());
      } catch (e) {
        app.status.error(`Could not open ${label}: ${e.message}.`);
        return;
      }
      app.board.showSeries(series, label);
      app.status.set(`Showing tournament ${label}: ${series.bots.join(" vs ")}, `
        + `seed ${series.records[0] ? series.records[0].seed : "?"}.`);
      $("board-area").focus();
    },
    status: (text, fraction) => {
      app.status.set(text);
      app.status.progress(fraction, "Tournament progress");
    },
  });
  const files = new TournamentFiles({
    container: $("tournament-files"), send, view, status: (t) => app.status.set(t), error: (t) => app.status.error(t),
  });

  // A tournament's step budget. Empty: the default (the same results on every machine); 0: none
  // (the time limit decides).
  function readBudget() {
    const input = $("budget");
    if (input.value.trim() === "") return DEFAULT_TOURNAMENT_BUDGET;
    return readInt(input, "Step budget", 0, 1000000000) || null;
  }

  function start() {
    let budget;
    try {
      readInt(els.seed, FIELD_LABELS.seed, ...LIMITS.seed);
      readInt(els.games, FIELD_LABELS.games, ...LIMITS.games);
      app.form.readFields(store.settings.game);
      budget = readBudget();
    } catch (e) {
      app.status.error(`Cannot run: ${e.message}.`);
      return;
    }
    const challenge = challengeModel.currentChallenge();
    const empty = challenge.entries.find((e) => e.enabled !== false && !e.code.trim());
    if (empty) {
      app.status.error(`Cannot run: the entry ${empty.name} has no code.`);
      return;
    }
    app.status.clearError();
    app.panels.list.forEach((p) => p.console.clear());
    if (view.start(challenge, { parallel: store.settings.parallel ?? null, budget, focus: null }) !== null) {
      app.linkContexts.playedTournament(challenge, budget, store.specOf(challenge.game));
    }
  }

  function showField() {
    const field = $("tournament-field");
    if (!field || !store.tournamentMode()) return;
    const names = challengeModel.entries().filter((e) => e.enabled).map((e) => e.name);
    field.textContent = `The field: the challenge's ${names.length} playing entr${names.length === 1 ? "y" : "ies"}`
      + `${names.length ? ` (${names.join(", ")})` : ""}; edit them in the Challenge section.`;
  }

  function showMode() {
    const t = store.tournamentMode();
    $("mode-match").checked = !t;
    $("mode-tournament").checked = t;
    for (const node of document.querySelectorAll(".tournament-only")) node.hidden = !t;
    for (const node of document.querySelectorAll(".match-only")) node.hidden = t;
    $("tournament-section").hidden = !t;
    $("results-section").hidden = t;
    $("challenge").hidden = !t; // the field of a tournament; a match plays the seats below
    document.body.classList.toggle("tournament-mode", t);
    app.panels.showBots();
  }

  // Tournament mode: the challenge is the field (a challenge link opens there).
  function showFieldMode() {
    if (store.tournamentMode()) return;
    setMode("tournament");
  }

  function setMode(mode) {
    store.settings.mode = mode;
    store.saveSettings();
    showMode();
  }

  function bind() {
    const parallel = $("parallel");
    parallel.replaceChildren(option("", "Automatic"),
      ...Array.from({ length: MAX_PARALLEL_CHOICE }, (_, i) => option(String(i + 1), String(i + 1))));
    parallel.value = Number.isInteger(store.settings.parallel) ? String(store.settings.parallel) : "";
    parallel.addEventListener("change", () => {
      store.settings.parallel = parallel.value ? Number(parallel.value) : null;
      store.saveSettings();
    });
    const budget = $("budget");
    budget.value = Number.isInteger(store.settings.budget) ? String(store.settings.budget) : "";
    budget.addEventListener("input", () => {
      const v = Number(budget.value);
      store.settings.budget = budget.value.trim() !== "" && Number.isInteger(v) && v >= 0 ? v : null;
      store.saveSettings();
    });
    for (const radio of document.querySelectorAll('input[name="mode"]')) {
      radio.addEventListener("change", () => {
        if (!radio.checked || store.run) return showMode();
        store.settings.mode = radio.value === "tournament" ? "tournament" : "match";
        store.saveSettings();
        store.seedEmptyBots();
        showMode();
        return undefined;
      });
    }
    els.panels.addEventListener("input", () => showField());
  }

  return { view, files, readBudget, start, showField, showMode, showFieldMode, setMode, bind };
}
