// Replay files: verified by the engine in the controller Worker, never trusted. The file
// waiting to be checked or being checked is {id, name, text, sent}; opening another file
// replaces it; the viewer and the results keep what they showed until a file passes.

import { checkReplaySize, checkReplayText, seriesFromDocument } from "../replay.js";

export function createReplayCheck(app) {
  const { store } = app;
  let pending = null;
  let checks = 0;

  async function openFile(file) {
    let text;
    try {
      checkReplaySize(file.size);
      text = await file.text();
    } catch (e) {
      app.status.error(`Could not open replay ${file.name}: ${e.message}.`);
      return;
    }
    openText(text, file.name);
  }

  function openText(text, name = "replay") {
    try {
      checkReplayText(text);
    } catch (e) {
      app.status.error(`Could not open replay ${name}: ${e.message}.`);
      return false;
    }
    app.status.clearError();
    checks += 1;
    pending = { id: checks, name, text, sent: false };
    send();
    return true;
  }

  // Sends the pending file to the engine once Python is ready and no run is going (a check
  // is Python work in the controller Worker: it must not delay a running match's bots).
  function send() {
    const c = pending;
    if (!c || c.sent) return;
    if (!app.controller.alive() || !store.ready || store.run) {
      app.status.set(waitNote());
      return;
    }
    c.sent = true;
    app.status.set(`Checking ${c.name}: re-running every game through the rules…`);
    app.status.progress(null, "Checking the replay");
    app.controller.send({ type: "verify", id: c.id, text: c.text });
  }

  // What the status line adds while a file waits for Python or for the run to end.
  function waitNote() {
    const c = pending;
    if (!c || c.sent) return "";
    return !app.controller.alive() || !store.ready ? `${c.name} is checked by the engine as soon as Python is ready…`
      : `${c.name} is checked by the engine when this run ends (or press Stop).`;
  }

  function onVerified(m) {
    const c = pending;
    if (!c || m.id !== c.id) return; // a file replaced by a later one
    pending = null;
    app.status.progress(1, "Checking the replay");
    let series;
    try {
      if (typeof m.error === "string") throw new Error(m.error);
      series = seriesFromDocument(m.document, store.gameNames());
    } catch (e) {
      app.status.error(`Could not open replay ${c.name}: ${e.message}.`);
      app.status.set("The board and the results still show what they showed before.");
      return;
    }
    app.status.clearError();
    if (store.run) store.run.viewing = false; // the live run keeps going; the viewer shows the file
    app.board.showSeries(series, c.name);
    app.board.showResults(series.bots, series.summary, `replay ${c.name}`);
    const n = series.records.length;
    app.status.set(`Opened ${c.name}: ${series.title}, ${n} record${n === 1 ? "" : "s"}, `
      + "every game re-run through the rules and the results recomputed.");
  }

  // A new controller Worker is ready: a file the one before was checking is not sent again
  // (it may be what broke that Worker).
  function onReady() {
    if (pending && pending.sent) {
      app.status.error(`Could not open replay ${pending.name}: Python stopped while checking it.`);
      pending = null;
    }
    send();
  }

  return { openFile, openText, send, waitNote, onVerified, onReady };
}
