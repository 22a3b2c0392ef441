// The run loop: a match series (main.py's controller.run) or a tournament (run_tournament)
// at a time, each the run going on (ctl.activeRun, a RunStop) until it ends; runs asked for
// before Python is ready wait in a queue; Stop ends the run and its bots' Workers at once.

import { RunStop, ctl } from "./state.js";
import { killRunBots } from "./bot_pool.js";
import { closeSeats } from "./tournament_seats.js";

let queuedRuns = [];
let runTournamentPy = null; // main.py's run_tournament, once Python is ready

// Plays `play()` as the run `id`: an exception is the run's "error" message.
function play(id, work) {
  const run = new RunStop(id);
  ctl.activeRun = run;
  // A Python 2 bot's code is converted in the conversion Worker, when main.py loads it.
  Promise.resolve().then(work).catch((err) => {
    self.postMessage({ type: "error", run: id, message: String(err) });
  }).finally(() => {
    if (ctl.activeRun === run) ctl.activeRun = null;
  });
}

function startRun(data) {
  play(data.run, () => ctl.controller.run(JSON.stringify(data)));
}

function startTournament(data) {
  play(data.run, () => runTournamentPy(JSON.stringify(data)));
}

// {type: "run"} or {type: "tournament"}: started now, or once Python is ready.
export function requestRun(data) {
  if (!ctl.controller) queuedRuns.push(data);
  else if (data.type === "tournament") startTournament(data);
  else startRun(data);
}

// main.py is imported: tournaments can start.
export function bindPython(main) {
  runTournamentPy = main.run_tournament;
}

// Python is ready: the runs asked for meanwhile start.
export function pythonReady() {
  const runs = queuedRuns;
  queuedRuns = [];
  runs.forEach((r) => (r.type === "tournament" ? startTournament(r) : startRun(r)));
}

// {type: "stop", run}: the run stops, its bots' Workers with it.
export function stopRun(data) {
  if (ctl.controller) ctl.controller.stop(data.run);
  queuedRuns = queuedRuns.filter((r) => r.run !== data.run);
  if (ctl.activeRun && ctl.activeRun.id === data.run) {
    ctl.activeRun.stop();
    killRunBots();
    closeSeats();
  }
}
