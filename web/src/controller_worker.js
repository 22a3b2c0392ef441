// The controller Worker: its own Pyodide runs web/main.py with the engine, and it owns
// one Worker per bot (each with its own Pyodide), plus warm spares so that stopping a
// bot never waits for a Pyodide start. The page talks to it with the messages in
// docs/architecture.md; main.py reaches the bots through the `arena_bridge` module below.
import { loadPyodide } from "pyodide";

const WARM_BOTS = 3; // two bots for a match plus one spare for a bot that must be stopped
const INTERRUPT_GRACE_MS = 500; // after an interrupt, how long before terminate()
const MAX_REPLY_CHARS = 1 << 20;
const isolated = self.crossOriginIsolated === true;

let indexURL = null;
let wasmModule = null; // Pyodide's WebAssembly, compiled once and shared with every bot Worker
let pyodide = null;
let controller = null;
const warm = []; // promises of ready BotWorkers
let slots = []; // the bots of the current run
let jspi = null;
let queuedRuns = [];

function status(stage, message, progress, extra = {}) {
  self.postMessage({ type: "status", stage, message, progress, ...extra });
}

// ---- bot workers -------------------------------------------------------------------
class BotWorker {
  constructor() {
    this.worker = new Worker(new URL("bot_worker.js", import.meta.url), { type: "module" });
    this.interrupt = isolated ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    this.pending = null; // {id, resolve}
    this.dead = false;
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (event) => {
        const data = event.data;
        if (!data || typeof data !== "object") return;
        if (data.type === "ready" && !this.isReady) {
          this.isReady = true;
          if (jspi === null) jspi = data.jspi === true;
          resolve(this);
        } else if (data.type === "failed" && !this.isReady) {
          reject(new Error(String(data.message).slice(0, 500)));
        } else if (data.type === "reply") {
          this.onReply(data);
        }
      };
      this.worker.onerror = (event) => {
        event.preventDefault?.();
        if (!this.isReady) reject(new Error(event.message || "the bot worker failed to start"));
        this.kill();
      };
    });
    this.worker.postMessage({ type: "init", indexURL, interruptBuffer: this.interrupt, wasmModule });
  }

  // Only a reply to the request that is pending counts: anything else is ignored.
  onReply(data) {
    const pending = this.pending;
    if (!pending || data.id !== pending.id || typeof data.json !== "string") return;
    if (data.json.length > MAX_REPLY_CHARS) return;
    this.pending = null;
    pending.resolve(data.json);
  }

  request(id, json) {
    return new Promise((resolve) => {
      this.pending = { id, resolve };
      this.worker.postMessage({ type: "req", id, json });
    });
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

function refillWarm(target = WARM_BOTS) {
  while (warm.length < target) {
    const bot = new BotWorker();
    const ready = bot.ready;
    ready.catch(() => {});
    warm.push(ready);
  }
}

async function takeWarm() {
  refillWarm();
  const bot = await warm.shift();
  refillWarm();
  return bot;
}

// A bot of the current run: if its Worker has to be stopped, a spare takes its place and
// is given the same code before it is asked anything.
class Slot {
  constructor() {
    this.bot = null;
    this.loadJson = null;
  }

  async worker() {
    if (this.bot && !this.bot.dead) return this.bot;
    this.bot = await takeWarm();
    if (this.loadJson) await this.bot.request(-1, this.loadJson.replace(/"id": \d+/, '"id": -1'));
    return this.bot;
  }
}

let interrupted = 0;

async function ask(slotIndex, id, op, json, waitMs) {
  const slot = slots[slotIndex];
  const bot = await slot.worker();
  if (op === "load") slot.loadJson = json;
  const began = performance.now();
  let timer = null;
  const reply = bot.request(id, json);
  const outcome = await Promise.race([
    reply.then((text) => ({ text })),
    new Promise((resolve) => { timer = setTimeout(() => resolve(null), waitMs); }),
  ]);
  clearTimeout(timer);
  const elapsed = performance.now() - began;
  if (outcome && outcome.text !== null) return { json: outcome.text, elapsed, noAnswer: false };
  if (outcome === null) await stopBot(bot, reply);
  return { json: null, elapsed, noAnswer: true };
}

// A bot that did not answer within the hard limit: interrupt its Python where the page
// is cross-origin isolated, and terminate its Worker if that does not bring it back.
async function stopBot(bot, reply) {
  if (bot.interrupt) {
    bot.interrupt[0] = 2; // SIGINT: Python raises KeyboardInterrupt in the bot's code
    interrupted += 1;
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
  try {
    wasmModule = await WebAssembly.compileStreaming(fetch(indexURL + "pyodide.asm.wasm"));
    const compiled = wasmModule;
    WebAssembly.instantiateStreaming = async (source, imports) => ({
      module: compiled, instance: await WebAssembly.instantiate(compiled, imports),
    });
  } catch (err) {
    wasmModule = null; // each Worker compiles its own copy, as Pyodide does by default
  }
  refillWarm(2);
  pyodide = await loadPyodide({ indexURL });
  status("loading", "Loading the engine…", 0.4);
  const [zip, mainSource] = await Promise.all([
    fetch(new URL("engine.zip", self.location.href)).then((r) => r.arrayBuffer()),
    fetch(new URL("main.py", self.location.href)).then((r) => r.text()),
  ]);
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide" });
  pyodide.registerJsModule("arena_bridge", bridge);
  pyodide.runPython("import sys; sys.path.insert(0, '/home/pyodide')");
  pyodide.FS.writeFile("/home/pyodide/arena_main.py", mainSource);
  const main = pyodide.pyimport("arena_main");
  controller = main.controller;
  const examples = JSON.parse(main.examples_json());
  status("loading", "Starting the bots' Python…", 0.6);
  let done = 0;
  const first = warm.slice(0, 2);
  first.forEach((p) => p.then(() => {
    done += 1;
    status("loading", `Starting the bots' Python… (${done}/2)`, 0.6 + 0.2 * done);
  }));
  await Promise.all(first);
  refillWarm(); // the spare starts once the first two no longer compete for the CPU
  status("ready", jspi ? "Ready." : "Ready. This browser lacks JSPI: script bots that read input() "
    + "cannot run in Flit; function bots work.", 1, { examples, jspi, isolated });
  const runs = queuedRuns;
  queuedRuns = [];
  runs.forEach(startRun);
}

function startRun(data) {
  controller.run(JSON.stringify(data)).catch((err) => {
    self.postMessage({ type: "error", run: data.run, message: String(err) });
  });
}

self.onmessage = (event) => {
  const data = event.data;
  if (!data || typeof data !== "object") return;
  if (data.type === "run") {
    if (controller) startRun(data);
    else queuedRuns.push(data);
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
