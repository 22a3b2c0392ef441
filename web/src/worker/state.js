// The controller Worker's shared state: what its start-up learns (the site's files, the
// Pyodide runtime, the snapshot bot Workers start from), the page's stop flag and the run
// going on. One object (`ctl`), so that each module of the Worker reads the current value.

import { startModuleWorker } from "../embedded_worker.js";
import { canShareMemory } from "../shared_memory.js";

export const isolated = canShareMemory();
export const STOPPED = Symbol("stopped");

export const ctl = {
  indexURL: null,
  botFiles: null, // what a bot Worker's Pyodide loads: it may not fetch (its CSP)
  lockFile: null,
  // Stop: the page's flag in shared memory (cross-origin isolated), which a controller
  // blocked in Atomics.wait still sees, and the run's stop promise for the message modes.
  stopFlag: null,
  activeRun: null, // the run going on (a RunStop)
  wasmModule: null, // Pyodide's WebAssembly, compiled once and shared with every bot Worker
  // The Python memory every bot Worker starts from (web/preload.py imported; sparse_snapshot.js
  // format): the build's (config.json), or this Worker's own where the site has none. Each bot
  // Worker gets a copy of its own, never shared memory: a bot that could write to the snapshot
  // could change the Python of every bot Worker started after it.
  snapshot: null,
  snapshotMemoryBytes: 0, // of the build's snapshot, while it is on its way
  force: null, // the bots' mode the page asked for: "relay", "push" or null (the best there is)
  relay: false, // whether the page's service worker relays bots' requests (web/bot_relay_sw.js)
  botsMode: null, // the mode the first bot Worker reported
  pyodide: null,
  controller: null, // main.py's controller, once Python is ready
  // The site's own files: fetched beside this script, or, when the page runs inside a Stack
  // Snippet (engine/contest/snippet.py), given by the page in its init message (`siteFiles`: Blobs,
  // unpacked from the project's wheel; this Worker's own URL is a blob: URL, no base for them).
  siteFiles: null,
  internalId: 0, // ids of requests the controller makes itself (negative)
};

function deferred() {
  let resolve = null;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}
// When a bot Worker may be sent its init message: bot Workers are created at once and fetch
// their script meanwhile, and set up their Python while the snapshot is on its way.
export const botInit = deferred();
export const snapshotKnown = deferred();
// The page's first message (its stop flag; the site's files inside a Stack Snippet).
export const pageInit = deferred();
// The build's snapshot as boot.js downloaded it (an ArrayBuffer), or null.
export const snapshotFromBoot = deferred();

export function status(stage, message, progress, extra = {}) {
  self.postMessage({ type: "status", stage, message, progress, ...extra });
}

export async function siteFetch(name, options = {}) {
  await pageInit.promise;
  if (ctl.siteFiles && ctl.siteFiles[name] instanceof Blob) return new Response(ctl.siteFiles[name]);
  return fetch(new URL(name, self.location.href), options);
}

export function newBotWorker() {
  if (ctl.siteFiles && ctl.siteFiles["bot_worker.js"] instanceof Blob) {
    return startModuleWorker(ctl.siteFiles["bot_worker.js"]);
  }
  return new Worker(new URL("bot_worker.js", import.meta.url), { type: "module" });
}

export function stopRequested() {
  return ctl.stopFlag !== null && ctl.activeRun !== null && Atomics.load(ctl.stopFlag, 0) === ctl.activeRun.id;
}

// A run and its Stop. What waits for a bot in the message modes waits for either.
export class RunStop {
  constructor(id) {
    this.id = id;
    this.stopped = false;
    this.waiting = new Set(); // resolvers of the promises untilStopped() handed out
  }

  stop() {
    this.stopped = true;
    for (const resolve of this.waiting) resolve(STOPPED);
    this.waiting.clear();
  }
}

// `promise`'s value, or STOPPED as soon as the page stops the run. (Not Promise.race with
// one long-lived promise: that would keep a reaction per call until the run ends.)
export function untilStopped(promise) {
  const run = ctl.activeRun;
  if (!run) return promise;
  if (run.stopped) return Promise.resolve(STOPPED);
  return new Promise((resolve, reject) => {
    run.waiting.add(resolve);
    promise.then((value) => {
      run.waiting.delete(resolve);
      resolve(value);
    }, (err) => {
      run.waiting.delete(resolve);
      reject(err);
    });
  });
}
