// The controller Worker: its own Pyodide runs web/main.py with the engine, and it owns
// one Worker per bot (each with its own Pyodide), plus warm spares so that stopping a
// bot never waits for a Pyodide start. The page talks to it with the messages in
// docs/architecture.md; main.py reaches the bots through the `arena_bridge` module below.
import { loadPyodide } from "pyodide";
import { Channel, newChannelBuffer } from "./sync_channel.js";
import { useCompiledModule } from "./shared_wasm.js";
import { loadSnapshot, storeSnapshot } from "./snapshot_cache.js";

const WARM_BOTS = 3; // two bots for a match plus one spare for a bot that must be stopped
const INTERRUPT_GRACE_MS = 500; // after an interrupt, how long before terminate()
const LOAD_LIMIT_MS = 20_000; // reloading a bot's code into a spare
const MAX_REPLY_CHARS = 1 << 20;
const isolated = self.crossOriginIsolated === true;

let indexURL = null;
let wasmModule = null; // Pyodide's WebAssembly, compiled once and shared with every bot Worker
let snapshot = null; // the controller's Python memory with the engine imported, for the bots
// What a bot host imports: in the snapshot, so a bot Worker need not import it again.
const PRELOAD = "import json, random\nimport engine.bots.host, engine.wire.atomas, engine.wire.flit";
let pyodide = null;
let controller = null;
const warm = []; // BotWorkers starting or ready, not yet given to a bot
let slots = []; // the bots of the current run
let scriptBots = null; // whether long-running script bots can run (not in "push" mode)
let queuedRuns = [];
let verifyReplayPy = null; // main.py's verify_replay, once Python is ready
let queuedVerifies = []; // replay files sent before Python was ready
let resolvePageInit = null;
// The page's first message: what it knows (the digest of the stored Python snapshot).
const pageInit = new Promise((resolve) => { resolvePageInit = resolve; });

function status(stage, message, progress, extra = {}) {
  self.postMessage({ type: "status", stage, message, progress, ...extra });
}

// ---- bot workers -------------------------------------------------------------------
let internalId = 0; // ids of requests the controller makes itself (negative)

class BotWorker {
  constructor() {
    this.worker = new Worker(new URL("bot_worker.js", import.meta.url), { type: "module" });
    this.interrupt = isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    // Cross-origin isolated: requests and replies go through shared memory (sync mode).
    const channels = isolated ? { request: newChannelBuffer(), reply: newChannelBuffer() } : null;
    this.requests = channels && new Channel(channels.request);
    this.replies = channels && new Channel(channels.reply);
    this.mode = null; // "sync", "jspi" or "push", as the bot Worker reports it
    this.pending = null; // {id, resolve} in the message modes
    this.dead = false;
    this.isReady = false;
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => {
        const data = event.data;
        if (!data || typeof data !== "object") return;
        if (data.type === "ready" && !this.isReady) {
          this.isReady = true;
          this.mode = ["sync", "jspi", "push"].includes(data.mode) ? data.mode : "push";
          this.readyMs = Number(data.ms) || null; // its own clock: how long its start-up took
          if (scriptBots === null) scriptBots = this.mode !== "push";
          resolve(this);
          postPool();
        } else if (data.type === "failed" && !this.isReady) {
          reject(new Error(String(data.message).slice(0, 500)));
        } else if (data.type === "reply" && this.mode !== "sync") {
          this.onReply(data);
        } else if (data.type === "failed") {
          this.kill();
        }
      };
      this.worker.onerror = (event) => {
        event.preventDefault?.();
        if (!this.isReady) reject(new Error(event.message || "the bot worker failed to start"));
        this.kill();
      };
    });
    this.worker.postMessage({
      type: "init", indexURL, interruptBuffer: this.interrupt, wasmModule, channels, snapshot,
    });
  }

  // Only a reply to the request that is pending counts: anything else is ignored.
  onReply(data) {
    const pending = this.pending;
    if (!pending || data.id !== pending.id || typeof data.json !== "string") return;
    if (data.json.length > MAX_REPLY_CHARS) return;
    this.pending = null;
    pending.resolve(data.json);
  }

  // Message modes: a Promise of the reply text (null if the Worker was killed).
  request(id, json) {
    this.clearInterrupt();
    return new Promise((resolve) => {
      this.pending = { id, resolve };
      this.worker.postMessage({ type: "req", id, json });
    });
  }

  // Sync mode: post a request; `awaitReply` blocks for it.
  post(id, json) {
    this.clearInterrupt();
    this.requests.write(id, json);
  }

  // An interrupt meant for the previous request (its reply raced it) must not hit this one.
  clearInterrupt() {
    if (this.interrupt) this.interrupt[0] = 0;
  }

  // Block until the reply to `id` is in, or `deadline` (performance.now() time) passes;
  // returns the reply text or null.
  awaitReply(id, deadline) {
    const replies = this.replies;
    for (;;) {
      const seq = replies.seq;
      if (seq === id) return replies.read();
      const left = deadline - performance.now();
      if (left <= 0 || this.dead) return null;
      Atomics.wait(replies.header, 0, seq, left);
    }
  }

  kill() {
    if (this.dead) return;
    this.dead = true;
    this.worker.terminate();
    const pending = this.pending;
    this.pending = null;
    if (pending) pending.resolve(null);
  }
}

// How many bot Workers wait ready (the page shows nothing; scripts/bench_web waits on it).
function postPool() {
  self.postMessage({ type: "pool", ready: warm.filter((bot) => bot.isReady && !bot.dead).length });
}

function refillWarm(target = WARM_BOTS) {
  while (warm.length < target) {
    const bot = new BotWorker();
    bot.ready.catch(() => {});
    warm.push(bot);
  }
}

// Bot Workers are replaced between runs, not during one: a Pyodide starting up would
// take the CPU from the match. A run that needs more than the warm ones starts one.
async function takeWarm() {
  const bot = takeWarmNow();
  if (bot) return bot;
  if (!warm.length) refillWarm(1);
  const started = await warm.shift().ready;
  if (started.mode === "sync") started.worker.postMessage({ type: "serve" });
  return started;
}

// A warm bot that is ready now, or null: what a blocked controller can use at once.
function takeWarmNow() {
  const index = warm.findIndex((bot) => bot.isReady && !bot.dead);
  if (index < 0) return null;
  const bot = warm.splice(index, 1)[0];
  if (bot.mode === "sync") bot.worker.postMessage({ type: "serve" });
  postPool();
  return bot;
}

// A bot of the current run: if its Worker has to be stopped, a spare takes its place and
// is given the same code before it is asked anything.
class Slot {
  constructor() {
    this.bot = null;
    this.loadJson = null;
  }

  // The bot to ask now, without waiting (sync mode): null when the message modes, or a
  // spare still starting, need the asynchronous path (worker()).
  botNow() {
    if (this.bot && !this.bot.dead) return this.bot;
    const spare = warm.find((bot) => bot.isReady && !bot.dead);
    if (!spare || spare.mode !== "sync") return null;
    this.bot = takeWarmNow();
    this.reloadSync();
    return this.bot;
  }

  async worker() {
    if (this.bot && !this.bot.dead) return this.bot;
    this.bot = await takeWarm();
    if (this.bot.mode === "sync") {
      this.reloadSync();
    } else if (this.loadJson) {
      const id = --internalId;
      await this.bot.request(id, withId(this.loadJson, id));
    }
    return this.bot;
  }

  // A replacement Worker gets the bot's code before it is asked anything.
  reloadSync() {
    if (!this.loadJson) return;
    const id = --internalId;
    this.bot.post(id, withId(this.loadJson, id));
    this.bot.awaitReply(id, performance.now() + LOAD_LIMIT_MS);
  }
}

function withId(json, id) {
  const request = JSON.parse(json);
  request.id = id;
  return JSON.stringify(request);
}

// Ask a bot; returns the reply (see replyText) at once in sync mode (the controller blocks
// meanwhile), or a Promise of it in the message modes.
function ask(slotIndex, id, op, json, waitMs) {
  const slot = slots[slotIndex];
  if (op === "load") slot.loadJson = json;
  const bot = slot.botNow();
  if (bot && bot.mode === "sync") return askSync(bot, id, json, waitMs);
  return askAsync(slot, id, json, waitMs);
}

// The reply as one string "ELAPSED_MS;ANSWERED;JSON" (ANSWERED 1 or 0): a string crosses
// into Python as a plain str, where an object would cost a proxy per move.
function replyText(elapsed, json) {
  return json === null ? `${elapsed};0;` : `${elapsed};1;${json}`;
}

function askSync(bot, id, json, waitMs) {
  const began = performance.now();
  bot.post(id, json);
  const text = bot.awaitReply(id, began + waitMs);
  const elapsed = performance.now() - began;
  if (text === null && !bot.dead) {
    // Silent past the hard limit: interrupt its Python, then terminate its Worker.
    bot.interrupt[0] = 2; // SIGINT: Python raises KeyboardInterrupt in the bot's code
    if (bot.awaitReply(id, performance.now() + INTERRUPT_GRACE_MS) === null) bot.kill();
    return replyText(elapsed, null);
  }
  return replyText(elapsed, text);
}

async function askAsync(slot, id, json, waitMs) {
  const bot = await slot.worker();
  const began = performance.now();
  let timer = null;
  const reply = bot.request(id, json);
  const outcome = await Promise.race([
    reply.then((text) => ({ text })),
    new Promise((resolve) => { timer = setTimeout(() => resolve(null), waitMs); }),
  ]);
  clearTimeout(timer);
  const elapsed = performance.now() - began;
  if (outcome && outcome.text !== null) return replyText(elapsed, outcome.text);
  if (outcome === null) await stopBot(bot, reply);
  return replyText(elapsed, null);
}

// A bot that did not answer within the hard limit: interrupt its Python where the page
// is cross-origin isolated, and terminate its Worker if that does not bring it back.
async function stopBot(bot, reply) {
  if (bot.interrupt) {
    bot.interrupt[0] = 2;
    const back = await Promise.race([
      reply.then(() => true),
      new Promise((resolve) => setTimeout(() => resolve(false), INTERRUPT_GRACE_MS)),
    ]);
    if (back && !bot.dead) return;
  }
  bot.kill();
}

async function prepare(count) {
  release();
  slots = Array.from({ length: count }, () => new Slot());
  await Promise.all(slots.map((slot) => slot.worker()));
}

// A run's bot Workers ran untrusted code: they are never reused for another run.
function release() {
  for (const slot of slots) if (slot.bot) slot.bot.kill();
  slots = [];
  refillWarm();
  postPool();
}

const bridge = {
  post: (json) => self.postMessage(JSON.parse(json)),
  ask,
  prepare,
  release: async () => release(),
  now: () => performance.now(),
};

// ---- start-up ------------------------------------------------------------------------
async function start() {
  status("loading", "Loading Python (Pyodide)…", 0.05);
  const config = await (await fetch(new URL("config.json", self.location.href))).json();
  indexURL = new URL(config.pyodideIndexURL, self.location.href).href;
  const configured = performance.now();
  try {
    const wasmBytes = await (await fetch(indexURL + "pyodide.asm.wasm")).arrayBuffer();
    wasmModule = await WebAssembly.compile(wasmBytes);
    useCompiledModule(wasmModule);
  } catch (err) {
    wasmModule = null; // each Worker compiles its own copy, as Pyodide does by default
  }
  const startup = { configured, compiled: performance.now() };
  const files = Promise.all([
    fetch(new URL("engine.zip", self.location.href)).then((r) => r.arrayBuffer()),
    fetch(new URL("main.py", self.location.href)).then((r) => r.text()),
  ]);
  const { snapshotDigest } = await pageInit;
  const cached = await loadSnapshot(config.buildId, snapshotDigest);
  let fresh = false;
  if (cached) {
    try {
      pyodide = await loadPyodide({ indexURL, _loadSnapshot: cached });
      snapshot = cached;
    } catch (err) {
      pyodide = null;
    }
  }
  if (!pyodide) {
    pyodide = await loadPyodide({ indexURL, _makeSnapshot: true });
    fresh = true;
  }
  startup.python = performance.now();
  startup.fromSnapshot = !fresh;
  status("loading", "Loading the engine…", 0.4);
  const [zip, mainSource] = await files;
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide" });
  pyodide.runPython(`import sys\nif '/home/pyodide' not in sys.path: sys.path.insert(0, '/home/pyodide')\n${PRELOAD}`);
  if (fresh) {
    try {
      // The bots start from a copy of this interpreter's memory, engine imported: in a
      // fraction of a Pyodide start. Taken before any JavaScript is wired into it.
      snapshot = pyodide.makeMemorySnapshot();
    } catch (err) {
      snapshot = null; // each bot Worker starts Pyodide from scratch instead
    }
  }
  pyodide.runPython("import random\nrandom.seed()"); // a snapshot copies the generator's state
  startup.snapshot = performance.now();
  refillWarm(2);
  pyodide.registerJsModule("arena_bridge", bridge);
  pyodide.FS.writeFile("/home/pyodide/arena_main.py", mainSource);
  const main = pyodide.pyimport("arena_main");
  controller = main.controller;
  verifyReplayPy = main.verify_replay;
  const examples = JSON.parse(main.examples_json());
  startup.engine = performance.now();
  status("loading", "Starting the bots' Python…", 0.6);
  let done = 0;
  const first = warm.slice(0, 2).map((bot) => bot.ready);
  first.forEach((p) => p.then(() => {
    done += 1;
    status("loading", `Starting the bots' Python… (${done}/2)`, 0.6 + 0.2 * done);
  }));
  const bots = await Promise.all(first);
  startup.bots = performance.now();
  startup.botStarts = bots.map((bot) => bot.readyMs);
  refillWarm(); // the spare starts once the first two no longer compete for the CPU
  status("ready", scriptBots ? "Ready." : "Ready. This browser lacks JavaScript Promise Integration "
    + "(JSPI): script bots that read input() cannot run in Flit; function bots work.", 1,
  { examples, jspi: scriptBots, isolated, startup });
  if (fresh && snapshot) {
    storeSnapshot(config.buildId, snapshot).then((stored) => {
      if (stored) self.postMessage({ type: "snapshot", ...stored });
    });
  }
  const runs = queuedRuns;
  queuedRuns = [];
  runs.forEach(startRun);
  const verifies = queuedVerifies;
  queuedVerifies = [];
  verifies.forEach(verifyReplay);
}

// A replay file the page opened: the engine re-runs it (main.py verify_replay) and the
// page gets the verified document, or the first difference as the error.
function verifyReplay(data) {
  const id = data.id;
  let reply;
  try {
    const out = JSON.parse(verifyReplayPy(typeof data.text === "string" ? data.text : ""));
    reply = typeof out.error === "string"
      ? { type: "verified", id, error: out.error }
      : { type: "verified", id, document: out.document };
  } catch (err) {
    reply = { type: "verified", id, error: `the engine failed while checking the file (${String(err).slice(0, 300)})` };
  }
  self.postMessage(reply);
}

function startRun(data) {
  controller.run(JSON.stringify(data)).catch((err) => {
    self.postMessage({ type: "error", run: data.run, message: String(err) });
  });
}

self.onmessage = (event) => {
  const data = event.data;
  if (!data || typeof data !== "object") return;
  if (data.type === "init") {
    resolvePageInit({ snapshotDigest: data.snapshotDigest || null });
  } else if (data.type === "run") {
    if (controller) startRun(data);
    else queuedRuns.push(data);
  } else if (data.type === "verify") {
    if (verifyReplayPy) verifyReplay(data);
    else queuedVerifies.push(data);
  } else if (data.type === "stop") {
    if (controller) controller.stop(data.run);
    queuedRuns = queuedRuns.filter((r) => r.run !== data.run);
    for (const slot of slots) if (slot.bot) slot.bot.kill();
  }
};

start().catch((err) => {
  status("error", `Could not start Python: ${err}`, 0);
  self.postMessage({ type: "error", run: null, message: `Could not start Python: ${err}` });
});
