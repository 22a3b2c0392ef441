// The controller Worker's start-up: the site's config, Pyodide (restored from the build's
// snapshot when this browser can use it, else booted and snapshotted here for the bots), the
// engine and web/main.py, and the first two bot Workers; then the page is told it is ready.

import { loadPyodide } from "pyodide";
import { PYTHON_ENV } from "../python_env.js";
import { answerFetches, useCompiledModule } from "../shared_wasm.js";
import { SNAPSHOT_TO_COME, restoringSparse, sparseSnapshot } from "../sparse_snapshot.js";
import PRELOAD from "../../preload.py";
import { botInit, ctl, isolated, pageInit, siteFetch, snapshotFromBoot, snapshotKnown, status } from "./state.js";
import { refillWarm, warm } from "./bot_pool.js";

// Each step's end, in this Worker's clock (performance.now(); timeOrigin converts it to the
// page's): the page keeps them with its "arena-ready" mark and scripts/bench_web prints them.
export const startup = { timeOrigin: performance.timeOrigin, marks: {}, bots: [] };
mark("script");

function mark(name) {
  startup.marks[name] = performance.now();
}

async function fetchBytes(response) {
  if (!response.ok) throw new Error(`${response.url}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

// The build's snapshot (config.json "snapshot": {file, integrity, bytes, memoryBytes}),
// checked by its SHA-256 (Subresource Integrity: the browser refuses a body that does not
// match), or null. Read whole: the network stack assembles it, not this thread, which is
// setting up Python meanwhile.
async function fetchBuiltSnapshot(entry) {
  if (!entry) return null;
  const { snapshotFromPage } = await pageInit.promise;
  if (snapshotFromPage) {
    // boot.js downloads it on a thread of its own (snapshot_fetch.js), with its integrity
    const bytes = await snapshotFromBoot.promise;
    mark("snapshot fetched");
    return bytes instanceof ArrayBuffer && bytes.byteLength === entry.bytes ? new Uint8Array(bytes) : null;
  }
  try {
    mark("snapshot requested");
    const response = await siteFetch(entry.file, { integrity: entry.integrity });
    if (!response.ok) return null;
    const bytes = new Uint8Array(await response.arrayBuffer());
    mark("snapshot fetched");
    return bytes;
  } catch (err) {
    return null; // Python boots the ordinary way and makes its own snapshot
  }
}

// The site's config.json, as scripts/build.py wrote it into this script (SITE_CONFIG, one
// fetch less before any other can start), or the one the page gives (a Stack Snippet).
async function siteConfig() {
  await pageInit.promise;
  const files = ctl.siteFiles;
  if (files && files["config.json"] instanceof Blob) return JSON.parse(await files["config.json"].text());
  // eslint-disable-next-line no-undef
  if (typeof SITE_CONFIG === "object" && SITE_CONFIG) return SITE_CONFIG;
  return (await siteFetch("config.json")).json();
}

// The build's snapshot entry if it is one this Worker can use: Pyodide records in it whether
// WebAssembly could switch stacks (JSPI) where it was made, and a browser that differs boots
// Python instead.
function builtSnapshotEntry(entry) {
  const jspi = "Suspending" in WebAssembly || "Suspender" in WebAssembly;
  const ok = entry && typeof entry.file === "string" && typeof entry.integrity === "string"
    && Number.isInteger(entry.memoryBytes) && entry.memoryBytes > 0 && entry.jspi === jspi;
  return ok ? entry : null;
}

// Earlier versions cached a snapshot of their own: the build's replaces it. Firefox throws
// (NS_ERROR_FAILURE) on merely reading `caches` in an opaque origin (a Stack Snippet's frame).
function forgetOldSnapshotCache() {
  try {
    if (self.caches) self.caches.delete("koth-arena-python").catch(() => {});
  } catch (err) {
    // no Cache Storage here: nothing to forget
  }
}

// What the page says when ready, by the mode the bot Workers serve in (bot_worker.js).
const READY_TEXT = {
  sync: "Ready.",
  jspi: "Ready.",
  relay: "Ready. Bots serve through this page's service worker (relay mode): a script bot's "
    + "input() blocks there.",
  push: "Ready. Bot Workers here can block neither on shared memory, nor through JavaScript "
    + "Promise Integration (JSPI), nor through a service worker (push mode): a script bot pauses "
    + "at each input() in its main program; one that reads input anywhere else is run again from "
    + "its start for each move (same games, more slowly).",
};

// bridge: the arena_bridge module main.py imports; onPython(main): main.py is imported (its
// functions are bound before the page is told it is ready); onReady(main): after that.
export async function start(bridge, onPython, onReady) {
  status("loading", "Loading Python (Pyodide)…", 0.05);
  const config = await siteConfig();
  const indexURL = new URL(config.pyodideIndexURL, self.location.href).href;
  ctl.indexURL = indexURL;
  mark("config");
  forgetOldSnapshotCache();
  // Every fetch at once, the longest first (a browser opens at most 6 connections to a host
  // that speaks HTTP/1.1); the bot Workers are created now and load their script meanwhile.
  const entry = builtSnapshotEntry(config.snapshot);
  const built = fetchBuiltSnapshot(entry);
  // The bots get it as soon as it is here and checked; should it not restore in this Worker
  // after all, they are replaced (below).
  built.then((bytes) => { if (bytes) snapshotKnown.resolve(bytes); });
  refillWarm();
  const compiling = WebAssembly.compileStreaming(fetch(indexURL + "pyodide.asm.wasm"))
    .then((module) => { mark("wasm compiled"); return module; }, () => null);
  const glue = import(/* @vite-ignore */ indexURL + "pyodide.asm.mjs").then((m) => {
    mark("glue loaded");
    return m.default;
  });
  const stdlib = fetch(indexURL + "python_stdlib.zip").then(fetchBytes)
    .then((bytes) => { mark("stdlib fetched"); return bytes; });
  const lock = fetch(indexURL + "pyodide-lock.json").then((r) => r.json());
  const engineZip = siteFetch("engine.zip").then(fetchBytes);
  const mainText = siteFetch("main.py").then((r) => r.text());

  // Each Worker compiling its own copy is the fallback, as Pyodide does by default.
  ctl.wasmModule = await compiling;
  if (ctl.wasmModule) useCompiledModule(ctl.wasmModule);
  const [stdlibBytes, lockJson, zip, mainSource] = await Promise.all([stdlib, lock, engineZip, mainText]);
  // A bot Worker may fetch nothing (its Content-Security-Policy): it gets these bytes.
  ctl.botFiles = { "python_stdlib.zip": stdlibBytes, "engine.zip": zip };
  ctl.lockFile = lockJson;
  answerFetches({ "python_stdlib.zip": stdlibBytes });
  // The bots set up their Python now, beside this Worker's; the snapshot follows.
  if (entry) {
    ctl.snapshotMemoryBytes = entry.memoryBytes;
    botInit.resolve();
  }
  const createModule = await glue;
  const options = { indexURL, lockFileContents: lockJson, createPyodideModule: createModule, env: { ...PYTHON_ENV } };
  let pyodide = null;
  if (entry) {
    const bytes = built.then((b) => b || Promise.reject(new Error("no snapshot")));
    bytes.catch(() => {}); // awaited in the restore below; a failure is handled there
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: SNAPSHOT_TO_COME,
        createPyodideModule: restoringSparse(createModule, bytes, entry.memoryBytes) });
      pyodide._api.config._loadSnapshot = null;
      ctl.snapshot = await built;
    } catch (err) {
      pyodide = null; // e.g. a snapshot of another Pyodide (a build with --pyodide-cdn)
    }
  }
  startup.fromSnapshot = pyodide !== null;
  if (!pyodide) pyodide = await loadPyodide({ ...options, _makeSnapshot: true });
  mark("python");
  status("loading", "Loading the engine…", 0.4);
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide" });
  pyodide.FS.writeFile("/home/pyodide/arena_main.py", mainSource);
  if (!startup.fromSnapshot) {
    pyodide.runPython(PRELOAD);
    try {
      // The bots start from a copy of this interpreter's memory, engine imported: in a
      // fraction of a Pyodide start. Taken before any JavaScript is wired into it.
      ctl.snapshot = sparseSnapshot(pyodide.makeMemorySnapshot()).bytes;
    } catch (err) {
      ctl.snapshot = null; // each bot Worker starts Pyodide from scratch instead
    }
    mark("snapshot made");
    ctl.snapshotMemoryBytes = 0;
    // The bots started for the build's snapshot wait for it, or got one that does not restore.
    warm.splice(0).forEach((bot) => bot.kill());
    botInit.resolve();
    refillWarm();
  }
  ctl.pyodide = pyodide;
  snapshotKnown.resolve(ctl.snapshot);
  pyodide.runPython("import random\nrandom.seed()"); // a snapshot copies the generator's state
  mark("engine unpacked");
  // A fatal error leaves this Pyodide unusable: the page replaces this Worker.
  pyodide._api.on_fatal = (err) => {
    self.postMessage({ type: "fatal", run: ctl.activeRun ? ctl.activeRun.id : null, message: String(err).slice(0, 300) });
  };
  pyodide.registerJsModule("arena_bridge", bridge);
  // arena_main is in the snapshot, imported against a stand-in bridge (web/preload.py)
  pyodide.runPython("import arena_bridge, arena_main\narena_main.arena_bridge = arena_bridge");
  const main = pyodide.pyimport("arena_main");
  mark("controller imported");
  onPython(main);
  const games = JSON.parse(main.games_json());
  mark("engine");
  status("loading", "Starting the bots' Python…", 0.6);
  let done = 0;
  const first = warm.slice(0, 2).map((bot) => bot.ready);
  first.forEach((p) => p.then(() => {
    done += 1;
    status("loading", `Starting the bots' Python… (${done}/2)`, 0.6 + 0.2 * done);
  }));
  const bots = await Promise.all(first);
  mark("bots");
  startup.bots = bots.map((bot) => bot.startup);
  status("ready", READY_TEXT[ctl.botsMode] || READY_TEXT.push, 1,
    { games, isolated, startup, botsMode: ctl.botsMode });
  onReady(main);
}
