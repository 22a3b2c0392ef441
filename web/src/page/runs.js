// Runs of matches: Run and Stop, what the controller sends of the run on show (records,
// turns, consoles, summaries), and one game played again from a game link. Each run is the
// store's run object made for it (store.newRun), dropped when it ends.

import { loadRenderer } from "../renderers.js";
import { rememberRunSecret } from "../share_repeat.js";
import { readGameLink, runRequest, verdict } from "../game_link.js";
import { FIELD_LABELS, LIMITS } from "./store.js";
import { readInt } from "./settings_form.js";

// How long a Stop may go unanswered before the controller Worker is taken for stuck and
// replaced (it answers within a wait slice when it is healthy). In the message modes (a page
// that is not isolated) Stop is a message: a controller busy in Python (a run starting, its
// bots' code checked) reads it only when that work is done. Firefox 153's plain page, at a load
// of about 20 on 2 cores and with no driver attached, read it up to 1.8 s late (20 Stops); the
// 1.5 s this was replaced a healthy controller, and the run's Python had to boot again.
const STOP_GRACE_MS = 5000;

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

export function createRuns(app) {
  const { store, els } = app;
  let stopTimer = null;
  let linkedGame = null; // a game link waiting for Python, or for the run on show to end
  const canRun = () => app.controller.alive() && store.ready && !store.run;

  // What the controller sends of the run on show.
  function onMessage(m) {
    const run = store.run;
    if (!run || m.run !== run.id) return; // stale or unknown run
    const viewer = app.board.viewer;
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
        if (rec) {
          rec.result = m.result;
          if (m.debug && typeof m.debug === "object") rec.debug = m.debug; // each bot's output and times
        }
        if (run.viewing) {
          if (rec && viewer.tracks[m.index]) viewer.tracks[m.index].record.debug = rec.debug;
          viewer.recordEnd(m.index, m.result);
        }
        break;
      }
      case "console": {
        const p = run.link ? null : app.panels.list[m.bot]; // a linked game's bots are not the panels'
        // a line printed or faulted at a turn takes the viewer there (board.jumpTo)
        const at = run.viewing && Number.isInteger(m.index) && Number.isInteger(m.turn) ? [m.index, m.turn] : null;
        if (p) p.console.write(m.stream || "stdout", m.text, m.line ?? null, at);
        if (p && Number.isInteger(m.line) && (m.stream === "fault" || m.stream === "error")) {
          p.editor.markFault(m.line, m.where || m.stream);
        }
        break;
      }
      case "summary": {
        if (m.summary && Array.isArray(m.summary.games)) {
          run.summary = m.summary; // the engine's summary of the games finished so far
          if (run.viewing) app.board.showResults(run.names, m.summary, "running");
          const done = m.summary.games.length;
          app.status.progress(done / run.games, "Series progress");
          app.status.set((`Running: ${done} of ${run.games} game${run.games === 1 ? "" : "s"} finished… `
            + `${app.replayCheck.waitNote()}`).trim());
        }
        break;
      }
      case "progress": {
        const total = Number(m.total) || 0;
        app.status.progress(total ? m.done / total : 0, "Series progress");
        app.status.set((`Running: ${m.done} of ${total} game${total === 1 ? "" : "s"} finished… `
          + `${app.replayCheck.waitNote()}`).trim());
        break;
      }
      case "done": {
        store.lastTiming = Array.isArray(m.timing) ? { bots: m.timing, wall_ms: m.wall_ms, awaited_ms: m.awaited_ms } : null;
        const s = m.series && Array.isArray(m.series.games) ? m.series : { games: [], mean_scores: [], wins: [] };
        run.summary = s;
        const secretNote = typeof m.secret === "string" ? `secret ${m.secret}` : "";
        rememberRunSecret(run.key, m.secret);
        if (run.viewing) {
          app.board.showResults(run.names, s, secretNote);
          app.board.showTiming(run.names, m.timing);
        }
        app.status.progress(1, "Series progress");
        app.status.set(`Finished: ${describeSummary(run.names, s)}${secretNote ? ` Run with ${secretNote}.` : ""}`);
        if (run.link) linkedGameDone(run.link, s);
        finish();
        break;
      }
      case "stopped": {
        app.status.set("Stopped.");
        if (run.viewing) app.board.showResults(run.names, run.summary, "stopped");
        finish();
        break;
      }
      case "error": {
        app.status.error(`Run failed: ${m.message ?? "unknown error"}`);
        app.status.set("");
        finish();
        break;
      }
      default:
        break;
    }
    app.faultPause.seen(m, run);
    if (!store.run) app.replayCheck.send(); // a replay file opened during the run is checked now
    if (!store.run && linkedGame) playLinkedGame();
  }

  // The run's board: its renderer loaded, or false (the run ended) when it does not load.
  async function beginBoard(run, spec, failure) {
    let renderer;
    try {
      renderer = await loadRenderer(spec.renderer);
    } catch (e) {
      app.status.error(`${failure}: the board for ${spec.title} did not load (${e.message}).`);
      finish();
      return false;
    }
    if (store.run !== run) return false;
    return renderer;
  }

  // A match of the form's settings and the editors' bots; `repeat` (a run's request): its
  // seed, games, settings, secret and step budget instead of the form's (fault_pause.js).
  async function start(repeat = null) {
    if (!canRun() || !store.specOf(store.settings.game)) return;
    if (store.tournamentMode()) {
      app.tournament.start();
      return;
    }
    const g = store.settings.game;
    const spec = store.specOf(g);
    let seed, games, values;
    try {
      seed = repeat ? repeat.seed : readInt(els.seed, FIELD_LABELS.seed, ...LIMITS.seed);
      games = repeat ? repeat.games : readInt(els.games, FIELD_LABELS.games, ...LIMITS.games);
      values = repeat ? repeat.settings : app.form.readFields(g);
    } catch (e) {
      app.status.error(`Cannot run: ${e.message}.`);
      return;
    }
    const bots = app.panels.runBots(store.botCount(g));
    const empty = bots.findIndex((b) => !b.code.trim());
    if (empty >= 0) {
      app.status.error(`Cannot run: Bot ${empty + 1} has no code.`);
      return;
    }
    app.status.clearError();
    store.saver.flush();
    const run = store.newRun({ game: g, games, names: bots.map((b) => b.name), viewing: true });
    els.run.disabled = true;
    els.stop.disabled = false;
    app.gameEditor.setBusy(true);
    const renderer = await beginBoard(run, spec, "Cannot run");
    if (!renderer) return;
    app.panels.list.forEach((p) => { p.console.clear(); p.editor.clearFaults(); });
    app.board.viewer.beginLive(renderer, run.names);
    app.board.showResults(run.names, { games: [], mean_scores: [], wins: [], scoring: spec.scoring }, "running");
    app.status.progress(0, "Series progress");
    app.status.set(`Running ${games} game${games === 1 ? "" : "s"} of ${spec.title}…`);
    run.key = app.links.runKey(); // a share link made after it repeats the secret it drew
    const preset = repeat ? repeat.preset : store.gameSettings(g).preset;
    const budget = repeat ? repeat.budget : store.settings.budget || null; // none or 0: the time limit decides
    app.linkContexts.played(g, preset, repeat ? budget : store.settings.budget ?? null, spec.fields, bots, 40);
    run.request = {
      type: "run", run: run.id, game: g, preset, settings: values, seed, games, bots,
      secret: repeat ? repeat.secret : app.links.secret() || null, // empty: drawn by the controller, sent with "done"
      budget, // steps per move
    };
    app.controller.send(run.request);
  }

  function stop() {
    const run = store.run;
    if (!run || !app.controller.alive()) return;
    if (app.controller.stopFlag) Atomics.store(app.controller.stopFlag, 0, run.id);
    app.controller.send({ type: "stop", run: run.id });
    app.status.set("Stopping…");
    els.stop.disabled = true;
    clearTimeout(stopTimer);
    stopTimer = setTimeout(() => {
      if (store.run === run) app.controller.replace("The Python worker did not answer Stop");
    }, STOP_GRACE_MS);
  }

  function finish() {
    clearTimeout(stopTimer);
    stopTimer = null;
    const run = store.run;
    if (run && run.kind === "tournament") {
      app.tournament.view.ended();
      app.challenge.panel.runEnded();
    }
    if (run) app.board.viewer.endLive();
    store.endRun();
    els.run.disabled = !store.ready;
    els.stop.disabled = true;
    app.gameEditor.setBusy(false);
    if (run) app.faultPause.ended(run);
  }

  async function openGameLink(data) {
    let game;
    try {
      game = await readGameLink(data, store.specs);
    } catch (e) {
      app.status.error(`This game link cannot be opened: ${e.message}. Nothing on the page was changed.`);
      return;
    }
    linkedGame = game;
    playLinkedGame();
  }

  // Plays the linked game again as a run of its own: the visitor's bots and settings stay.
  async function playLinkedGame() {
    const game = linkedGame;
    if (!game) return;
    if (!canRun()) {
      app.status.set(`${game.label || "The linked game"} is played as soon as `
        + `${store.run ? "this run ends" : "Python is ready"}…`);
      return;
    }
    linkedGame = null;
    const spec = store.specOf(game.game);
    app.status.clearError();
    const run = store.newRun({ game: game.game, games: 1, names: game.bots.map((b) => b.name), viewing: true,
      link: game });
    els.run.disabled = true;
    els.stop.disabled = false;
    const renderer = await beginBoard(run, spec, "Cannot show the linked game");
    if (!renderer) return;
    app.board.viewer.beginLive(renderer, run.names);
    app.board.showResults(run.names, { games: [], mean_scores: [], wins: [], scoring: spec.scoring }, "running");
    app.status.set(`Playing ${game.label || "the linked game"} again from the link: ${run.names.join(" vs ")}, `
      + `seed ${game.seed}…`);
    app.linkContexts.played(game.game, game.preset, game.budget, spec.fields, game.bots, 40);
    app.controller.send(runRequest(game, run.id));
  }

  function linkedGameDone(game, summary) {
    const first = summary.games && summary.games[0];
    const [same, text] = verdict(game, first ? first.scores : null);
    if (same) app.status.set(text);
    else app.status.error(text);
    if (Number.isInteger(game.turn)) app.board.jumpTo(0, game.turn); // the turn the link was made at
  }

  els.form.addEventListener("submit", (e) => { e.preventDefault(); start(); });
  els.stop.addEventListener("click", stop);
  return { onMessage, start, stop, finish, canRun, openGameLink, playLinkedGame };
}
