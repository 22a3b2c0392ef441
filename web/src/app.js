// KotH Arena page: the wiring of its views. No Python runs on this thread: everything goes
// through controller_worker.js (page/controller.js). The page knows no game: the game menu,
// presets, fields, bot counts, examples and rules links are built from the engine's game
// specs (the controller's ready status sends them; a copy is kept in localStorage so a
// returning visitor's form is there before Python is). Every view reads from and writes
// through one store (page/store.js); each view is a module of page/ given the `app` object,
// through which it reaches the others when it needs them.

import { collapseHelpOnPhones } from "./help_text.js";
import * as challengeModel from "./challenge_model.js";
import { GameEditor } from "./game_editor.js";
import { ReplayFiles, bindDrop } from "./replay_files.js";
import { LinkContexts, gameLinkData } from "./game_link.js";
import { Store } from "./page/store.js";
import { createStatusLine } from "./page/status_line.js";
import { bindSaving } from "./page/saving.js";
import { createNotice } from "./page/kept_bots.js";
import { createBotPanels } from "./page/bot_panels.js";
import { createSettingsForm } from "./page/settings_form.js";
import { createShareLinks } from "./page/share_links.js";
import { createBoard } from "./page/board.js";
import { createReplayCheck } from "./page/replay_check.js";
import { createController } from "./page/controller.js";
import { createRuns } from "./page/runs.js";
import { createFaultPause } from "./page/fault_pause.js";
import { createTournamentMode } from "./page/tournament_mode.js";
import { createChallenge } from "./page/challenge.js";
import { createEmbed } from "./page/embed.js";
import { createTurnCopy } from "./page/turn_copy.js";

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
collapseHelpOnPhones($("how-it-works"));

// Each view is made here, once; views reach each other through `app` when called.
const app = { store: new Store(), els };
app.status = createStatusLine(els);
bindSaving(app);
app.notice = createNotice(app);
app.board = createBoard(app);
app.replayCheck = createReplayCheck(app);
app.controller = createController(app);
app.panels = createBotPanels(app);
app.form = createSettingsForm(app);
app.links = createShareLinks(app);
app.linkContexts = new LinkContexts();
app.runs = createRuns(app);
app.faultPause = createFaultPause(app);
app.tournament = createTournamentMode(app);
app.challenge = createChallenge(app);
app.embed = createEmbed(app);

// ---- an author's own game (web/src/game_editor.js): loaded, it joins the game menu ---------------
app.gameEditor = new GameEditor($("game-editor-section"), {
  send: (message) => app.runs.canRun() && app.controller.send(message),
  onLoaded: (spec) => {
    // one author's game at a time
    app.form.useSpecs([...app.store.specs.filter((g) => !g.authored && g.name !== spec.name), spec]);
    app.form.selectGame(spec.name);
  },
});
challengeModel.bindGameModule((game) => app.gameEditor.loadedSource(game)); // its module travels with the challenge

// ---- replay files and one-game links (replay_files.js, game_link.js) ----------------------------
const replayFiles = new ReplayFiles({
  container: $("replay-files"), viewer: app.board.viewer, linkContext: (record) => app.linkContexts.find(record),
  status: (t) => app.status.set(t), error: (t) => app.status.error(t),
});
app.turnCopy = createTurnCopy(app); // under the replay files' buttons
bindDrop(document.body, (file) => app.replayCheck.openFile(file), (t) => app.status.error(t));
els.openReplay.addEventListener("click", () => els.replayFile.click());
els.replayFile.addEventListener("change", async () => {
  const f = els.replayFile.files && els.replayFile.files[0];
  if (f) await app.replayCheck.openFile(f);
  els.replayFile.value = "";
});

// ---- start -----------------------------------------------------------------------------------
app.tournament.bind();
if (app.store.specs.length) app.form.useSpecs(app.store.specs);
app.form.bind();
app.form.showSettings();
app.tournament.showMode();
app.board.showResults([], null);
if (!app.links.applyHash()) app.notice.show("");
performance.mark("editor-ready"); // the editors exist and take input (scripts/bench_web)
app.controller.start();

// A small handle for tests and debugging.
const { store } = app;
const panels = app.panels.list;
window.kothArena = {
  viewer: app.board.viewer,
  panels,
  getCode: (i) => panels[i].editor.value,
  setCode: (i, text) => { panels[i].editor.value = text; },
  getSettings: () => JSON.parse(JSON.stringify(store.settings)),
  openReplayText: (text, name) => app.replayCheck.openText(text, name),
  get ready() { return store.ready; },
  get run() { return store.run ? store.run.id : null; },
  get runsStarted() { return store.runCounter; },
  get lastTiming() { return store.lastTiming; },
  get poolReady() { return store.poolReady; },
  get workerStarts() { return app.controller.starts; },
  challenge: challengeModel,
  stackExchangeDialog: app.challenge.stackExchangeDialog,
  get embedded() { return app.embed.data ? { done: app.embed.done } : null; },
  challengePanel: app.challenge.panel,
  tournament: app.tournament.view,
  replayFiles,
  tournamentFiles: app.tournament.files,
  gameLinkData, // scripts/link_sizes
  currentChallenge: () => challengeModel.currentChallenge(),
  gameEditor: app.gameEditor,
};
