// The page's side of the controller Worker (web/src/controller_worker.js): starting it (or
// taking the one web/src/boot.js started while this bundle loaded), replacing it when it is
// stuck or broken, sending it requests and handing each message to the view it is for.

import * as storage from "../storage.js";
import { startModuleWorker } from "../embedded_worker.js";
import { onPython2Message } from "../python2.js";
import { canShareMemory } from "../shared_memory.js";
import { startRelay } from "../bot_modes.js";
import { validSpecs } from "./store.js";

export function createController(app) {
  const { store, els } = app;
  let worker = null;
  let booted = window.kothBoot && typeof window.kothBoot.take === "function" ? window.kothBoot.take() : null;
  // Stop: the controller may be blocked waiting for a bot (shared-memory mode), where it
  // cannot read messages: it looks at this flag (the run to stop) between short waits.
  const stopFlag = booted ? booted.stopFlag
    : canShareMemory() ? new Int32Array(new SharedArrayBuffer(4)) : null;
  let starts = 0; // controller Workers started (a replaced one counts again)
  // Leaving the page: stop Python at once rather than leave it to the browser's teardown.
  window.addEventListener("pagehide", () => { if (worker) worker.terminate(); });

  // The bots' mode and relay (bot_modes.js): asked here when boot.js started no Worker.
  async function start() {
    const embed = app.embed.data;
    const bots = booted && !embed ? null : embed ? { force: null, relay: false } : await startRelay();
    let started;
    const early = booted && !embed ? booted.early : [];
    try {
      if (booted && !embed) started = booted.worker;
      else if (embed) started = startModuleWorker(embed.files["controller_worker.js"]);
      else started = new Worker("controller_worker.js", { type: "module" });
    } catch (e) {
      app.status.error(`Could not start the Python worker: ${e.message}.`);
      app.challenge.failChecks("Python could not start");
      app.status.set("Replays can still be opened.");
      return;
    }
    worker = started;
    starts += 1;
    app.challenge.sendWaitingChecks();
    // Messages from a Worker that was replaced are dropped.
    started.addEventListener("message", (ev) => { if (worker === started) onMessage(ev.data); });
    if (started !== booted?.worker) {
      started.postMessage({ type: "init", stopFlag, siteFiles: embed ? embed.files : null, bots });
    }
    booted = null; // a replacement Worker is started here
    storage.remove("python-snapshot"); // what earlier versions kept of a snapshot they cached
    const onError = (ev) => {
      ev.preventDefault();
      if (worker !== started) return;
      const msg = ev.message || "the worker script failed to load";
      if (store.ready) {
        replace(`The Python worker failed (${msg})`);
        return;
      }
      app.status.error(`Python worker error: ${msg}.`);
      app.challenge.failChecks("Python could not start");
      if (store.run) app.runs.finish();
      app.status.set("Replays can still be opened.");
    };
    started.addEventListener("error", onError);
    started.addEventListener("messageerror", () => app.status.error("Python worker sent an unreadable message."));
    // what the Worker boot.js started said before this script listened
    for (const ev of early) {
      if (ev.type === "error") onError(ev);
      else if (worker === started) onMessage(ev.data);
    }
  }

  // The controller Worker is stuck or its Python is broken: end the run, start a new one.
  function replace(reason) {
    app.challenge.failChecks(`${reason}; try again`);
    app.gameEditor.onLost();
    if (worker) worker.terminate();
    worker = null;
    store.ready = false;
    const stopped = store.run;
    if (stopped) {
      if (stopped.viewing) app.board.showResults(stopped.names, stopped.summary, "stopped");
      app.runs.finish();
    }
    els.run.disabled = true;
    app.status.error(`${reason}: ${stopped ? "the run was ended and " : ""}Python was restarted.`);
    app.status.set("Restarting Python…");
    start();
  }

  function onMessage(m) {
    if (!m || typeof m !== "object") return;
    if (app.challenge.stackExchange.onMessage(m) || app.challenge.snippetExport.onMessage(m)) return;
    if (m.type === "status") return onStatus(m);
    if (m.type === "verified") return app.replayCheck.onVerified(m);
    if (app.turnCopy.onMessage(m)) return;
    if (m.type === "challenge-checked") return app.challenge.onChecked(m);
    if (onPython2Message(m)) return;
    if (m.type === "game_loaded") return app.gameEditor.onLoaded(m);
    if (m.type === "fatal") {
      replace(`Python in the controller failed (${String(m.message ?? "fatal error").slice(0, 200)})`);
      return;
    }
    if (m.type === "pool") {
      store.poolReady = Number(m.ready) || 0;
      return;
    }
    if (m.type === "tournament-done" && m.run === app.tournament.view.run) {
      app.challenge.panel.markProblems(m.problems);
      app.challenge.panel.showRank(m.rows);
    }
    if (app.tournament.files.onMessage(m)) return;
    if (app.tournament.view.onMessage(m)) return;
    app.runs.onMessage(m);
  }

  function onStatus(m) {
    const p = typeof m.progress === "number" ? m.progress : null;
    if (m.stage !== "ready") {
      if (!store.run) {
        app.status.set(`${m.message || "Loading Python…"} ${app.replayCheck.waitNote()}`.trim());
        app.status.progress(p, "Loading progress");
      }
      return;
    }
    if (!store.ready) performance.mark("arena-ready", { detail: m.startup || null });
    store.ready = true;
    const sent = validSpecs(m.games);
    if (sent.length) {
      storage.save("games", sent); // the next visit builds its form before Python is ready
      app.form.useSpecs(sent);
    }
    app.gameEditor.onReady(); // an author's game loaded before is loaded again
    if (store.hashPending) app.links.applyHash();
    if (app.embed.data) app.embed.start();
    // a replaced Worker lost earlier checks
    app.panels.list.slice(0, store.botCount()).forEach((panel) => panel.python2.check());
    let text = m.message || "Python is ready.";
    if (m.isolated === false) {
      text += self.crossOriginIsolated ? " (Cross-origin isolated, but this browser shares no memory with Workers: "
        + "bots run as in a page that is not isolated, and a bot stuck in a loop is stopped by restarting its Worker.)"
        : " (Not cross-origin isolated: a bot stuck in a loop is stopped by restarting its Worker.)";
    }
    if (!store.run) {
      app.status.set(text);
      app.status.progress(1, "Loading progress");
      els.run.disabled = !store.specs.length;
    }
    app.replayCheck.onReady();
    app.runs.playLinkedGame();
  }

  return {
    start,
    replace,
    stopFlag,
    alive: () => worker !== null,
    get starts() { return starts; },
    // Posts a message to the controller Worker; false when there is none.
    send(message) {
      if (!worker) return false;
      worker.postMessage(message);
      return true;
    },
  };
}
