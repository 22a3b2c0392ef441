// The controller Worker: its own Pyodide runs web/main.py with the engine, and it owns
// one Worker per bot (each with its own Pyodide), plus warm spares so that stopping a
// bot never waits for a Pyodide start. The page talks to it with the messages in
// docs/architecture.md (worker/messages.js); main.py reaches the bots through the
// `arena_bridge` module below. Its parts, in web/src/worker/: state.js (what the modules
// share), startup.js, messages.js, run_loop.js, bot_pool.js and bot_handle.js (the bots'
// Workers), replies.js (their replies checked), tournament_seats.js, game_slot.js (an
// author's game) and python2_convert.js.

import { ctl, status, stopRequested } from "./worker/state.js";
import { prepare, release, ask, refillWarm, warm } from "./worker/bot_pool.js";
import { askGame, gameWorker } from "./worker/game_slot.js";
import { tournamentBridge } from "./worker/tournament_seats.js";
import { conversionStats, convertPython2 } from "./worker/python2_convert.js";
import { bindPython, onMessage, pythonReady } from "./worker/messages.js";
import { start } from "./worker/startup.js";

const bridge = {
  post: (json) => self.postMessage(JSON.parse(json)),
  ask,
  askGame,
  gameWorker,
  convertPython2,
  prepare,
  release: async () => release(),
  now: () => performance.now(),
  stopRequested: () => stopRequested(),
  ...tournamentBridge,
};

self.onmessage = (event) => onMessage(event.data);

// A handle for tests and debugging (like the page's window.kothArena): only code running
// in this Worker (and the browser's devtools) can reach it; bots run in other Workers.
// startBots(n) starts n more bot Workers now (scripts/bench_web measures their memory).
self.kothController = {
  runPython: (code) => ctl.pyodide.runPython(code),
  // Python 2 conversions started in the conversion Worker, and those under way now
  python2Conversions: () => conversionStats(),
  startBots: (n) => refillWarm(warm.length + Math.max(0, Math.min(16, Number(n) || 0))),
};

start(bridge, bindPython, pythonReady).catch((err) => {
  status("error", `Could not start Python: ${err}`, 0);
  self.postMessage({ type: "error", run: null, message: `Could not start Python: ${err}` });
});
