// The controller Worker: its own Pyodide runs web/main.py with the engine, and it owns
// one Worker per bot (each with its own Pyodide), plus warm spares so that stopping a
// bot never waits for a Pyodide start. The page talks to it with the messages in
// docs/architecture.md; main.py reaches the bots through the `arena_bridge` module below.
import { loadPyodide } from "pyodide";
import { Channel, ChannelOverflow, newChannelBuffer } from "./sync_channel.js";
import { MAX_REPLY_CHARS, MAX_REPLY_NESTING, nestingDepth } from "./reply_text.js";
import { answerFetches, useCompiledModule } from "./shared_wasm.js";
import { SNAPSHOT_TO_COME, restoringSparse, sparseSnapshot } from "./sparse_snapshot.js";
import { startModuleWorker } from "./embedded_worker.js";
import PRELOAD from "../preload.py";

// Bot Workers kept started and waiting: the two a match needs. A spare for a bot that must be
// stopped mid-run costs a Pyodide's memory for as long as the page is open, and its start
// from the snapshot takes a fraction of a second when it is needed: it is not kept.
const WARM_BOTS = 2;

const INTERRUPT_GRACE_MS = 500; // after an interrupt, how long before terminate()
const LOAD_LIMIT_MS = 20_000; // reloading a bot's code into a spare
const MAX_MESSAGES_PER_REQUEST = 64; // a bot Worker that posts more is flooding: stopped
const WAIT_SLICE_MS = 20; // sync mode: how often a blocked controller looks at the stop flag
const REPLY_FIELDS = ["answer", "error", "line", "stdout", "stderr", "over_budget", "seal"];
const isolated = self.crossOriginIsolated === true;

let indexURL = null;
let botFiles = null; // what a bot Worker's Pyodide loads: it may not fetch (its CSP)
let lockFile = null;
// Stop: the page's flag in shared memory (cross-origin isolated), which a controller
// blocked in Atomics.wait still sees, and the run's stop promise for the message modes.
let stopFlag = null;
let activeRun = null; // the run going on (a RunStop)
let wasmModule = null; // Pyodide's WebAssembly, compiled once and shared with every bot Worker
// The Python memory every bot Worker starts from (web/preload.py imported; sparse_snapshot.js
// format): the build's (config.json), or this Worker's own where the site has none. Each bot
// Worker gets a copy of its own, never shared memory: a bot that could write to the snapshot
// could change the Python of every bot Worker started after it.
let snapshot = null;
let snapshotMemoryBytes = 0; // of the build's snapshot, while it is on its way
let resolveBotInit = null;
// When a bot Worker may be sent its init message: bot Workers are created at once and fetch
// their script meanwhile, and set up their Python while the snapshot is on its way.
const botInit = new Promise((resolve) => { resolveBotInit = resolve; });
let resolveSnapshot = null;
const snapshotKnown = new Promise((resolve) => { resolveSnapshot = resolve; });
let pyodide = null;
let controller = null;
const warm = []; // BotWorkers starting or ready, not yet given to a bot
let slots = []; // the bots of the current run
let scriptBots = null; // whether long-running script bots can run (not in "push" mode)
let queuedRuns = [];
let verifyReplayPy = null; // main.py's verify_replay, once Python is ready
let checkChallengePy = null; // main.py's check_challenge, once Python is ready
let queuedChallengeChecks = [];
let runTournamentPy = null; // main.py's run_tournament and tournament_replay
let tournamentReplayPy = null;
let queuedVerifies = []; // replay files sent before Python was ready
let resolvePageInit = null;
// The page's first message (its stop flag; the site's files inside a Stack Snippet).
const pageInit = new Promise((resolve) => { resolvePageInit = resolve; });
// The build's snapshot as boot.js downloaded it (an ArrayBuffer), or null.
let resolveSnapshotFromBoot = null;
const snapshotFromBoot = new Promise((resolve) => { resolveSnapshotFromBoot = resolve; });

function status(stage, message, progress, extra = {}) {
  self.postMessage({ type: "status", stage, message, progress, ...extra });
}

// ---- the site's own files: fetched beside this script, or, when the page runs inside a Stack
// Snippet (engine/contest/snippet.py), given by the page in its init message (`siteFiles`: Blobs,
// unpacked from the project's wheel; this Worker's own URL is a blob: URL, no base for them).
let siteFiles = null;

async function siteFetch(name, options = {}) {
  await pageInit;
  if (siteFiles && siteFiles[name] instanceof Blob) return new Response(siteFiles[name]);
  return fetch(new URL(name, self.location.href), options);
}

function newBotWorker() {
  if (siteFiles && siteFiles["bot_worker.js"] instanceof Blob) return startModuleWorker(siteFiles["bot_worker.js"]);
  return new Worker(new URL("bot_worker.js", import.meta.url), { type: "module" });
}

// ---- bot workers -------------------------------------------------------------------
let internalId = 0; // ids of requests the controller makes itself (negative)

class BotWorker {
  // converter: python2.zip's bytes, for a conversion Worker (see convertPython2) instead of a bot's
  constructor({ converter = null } = {}) {
    this.worker = newBotWorker();
    this.converter = converter !== null;
    this.interrupt = isolated && !converter ? new Uint8Array(new SharedArrayBuffer(1)) : null;
    // Cross-origin isolated: requests and replies go through shared memory (sync mode).
    const channels = isolated && !converter ? { request: newChannelBuffer(), reply: newChannelBuffer() } : null;
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
          // its start-up's steps, for scripts/bench_web (numbers only: it is a Worker's word)
          this.startup = data.startup && typeof data.startup === "object" ? {
            timeOrigin: Number(data.startup.timeOrigin) || 0,
            marks: Object.fromEntries(Object.entries(data.startup.marks || {}).slice(0, 16)
              .map(([k, v]) => [String(k).slice(0, 40), Number(v) || 0])),
          } : null;
          this.heapBytes = Number(data.heap) || 0; // its Python heap, before any bot code ran
          if (scriptBots === null && !this.converter) scriptBots = this.mode !== "push";
          resolve(this);
          postPool();
        } else if (data.type === "failed" && !this.isReady) {
          reject(new Error(String(data.message).slice(0, 500)));
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
    botInit.then(() => {
      if (this.dead) return;
      const init = { type: "init", indexURL, interruptBuffer: this.interrupt, wasmModule, channels,
        files: converter ? { ...botFiles, "python2.zip": converter } : botFiles, lockFile,
        converter: converter ? { memoryBytes: CONVERT_MEMORY_BYTES } : null };
      if (!snapshot && snapshotMemoryBytes) {
        this.worker.postMessage({ ...init, memoryBytes: snapshotMemoryBytes });
        snapshotKnown.then((bytes) => { if (!this.dead) this.worker.postMessage({ type: "snapshot", snapshot: bytes }); });
      } else {
        this.worker.postMessage({ ...init, snapshot });
      }
    });
  }

  // Message modes: a Promise of the checked reply (see checkedReply; null if the Worker
  // was killed). Each request has a MessageChannel of its own: only its port is listened
  // to, only a message with its id is the reply, and the port is closed after it, so a
  // bot's messages can never queue ahead of another bot's reply.
  request(id, json, check = checkedReply) {
    this.used = true; // bot code may run in it from now on
    this.clearInterrupt();
    const { port1, port2 } = new MessageChannel();
    return new Promise((resolve) => {
      let messages = 0;
      const finish = (reply) => {
        port1.onmessage = null;
        port1.close();
        if (this.pending && this.pending.id === id) this.pending = null;
        resolve(reply);
      };
      this.pending = { id, resolve: finish };
      port1.onmessage = (event) => {
        messages += 1;
        if (messages > MAX_MESSAGES_PER_REQUEST) {
          finish(malformed(`its Worker posted more than ${MAX_MESSAGES_PER_REQUEST} messages `
            + "for one request and was stopped"));
          this.kill();
          return;
        }
        const data = event.data;
        if (!data || typeof data !== "object" || data.id !== id) return;
        finish(check(data.json));
      };
      this.worker.postMessage({ type: "req", id, json, port: port2 }, [port2]);
    });
  }

  // Sync mode: post a request; `awaitReply` blocks for it. False if it did not fit.
  post(id, json) {
    this.used = true;
    this.clearInterrupt();
    try {
      this.requests.write(id, json);
      return true;
    } catch (err) {
      if (err instanceof ChannelOverflow) return false;
      throw err;
    }
  }

  // An interrupt meant for the previous request (its reply raced it) must not hit this one.
  clearInterrupt() {
    if (this.interrupt) this.interrupt[0] = 0;
  }

  // Block until the reply to `id` is in, or `deadline` (performance.now() time) passes,
  // or the page asks to stop; returns the checked reply (checkedReply), null, or STOPPED.
  // Waits in slices, so a stop is seen within one.
  awaitReply(id, deadline, check = checkedReply) {
    const replies = this.replies;
    for (;;) {
      const seq = replies.seq;
      if (seq === id) {
        try {
          return check(replies.read());
        } catch (err) {
          if (!(err instanceof ChannelOverflow)) throw err;
          return malformed(`the reply is ${err.size.toLocaleString("en")} bytes, `
            + `more than ${MAX_REPLY_CHARS.toLocaleString("en")}`);
        }
      }
      if (stopRequested()) return STOPPED;
      const left = deadline - performance.now();
      if (left <= 0 || this.dead) return null;
      Atomics.wait(replies.header, 0, seq, Math.min(left, WAIT_SLICE_MS));
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

const STOPPED = Symbol("stopped");

function stopRequested() {
  return stopFlag !== null && activeRun !== null && Atomics.load(stopFlag, 0) === activeRun.id;
}

// A bot Worker's reply is untrusted text: it is parsed here, in JavaScript (its length and
// nesting measured in one pass, then JSON.parse), and Python gets a flat object that this
// function writes itself: only the reply's fields, each a string, number, boolean or null
// as sent, or an empty [] / {} standing for a list or object (engine/bots/reply.py says
// which type was wrong). Nothing the bot wrote is ever parsed by Python.
function checkedReply(json) {
  if (typeof json !== "string") return malformed(`the reply is ${typeName(json)}, not JSON text`);
  if (json.length > MAX_REPLY_CHARS) {
    return malformed(`the reply is ${json.length.toLocaleString("en")} characters, `
      + `more than ${MAX_REPLY_CHARS.toLocaleString("en")}`);
  }
  const depth = nestingDepth(json); // before JSON.parse builds it
  if (depth > MAX_REPLY_NESTING) {
    return malformed(`the reply nests ${depth} levels deep (at most ${MAX_REPLY_NESTING})`);
  }
  let data;
  try {
    data = JSON.parse(json);
  } catch (err) {
    return malformed(`the reply is not JSON (${String(err && err.message).slice(0, 200)})`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) return JSON.stringify(shallow(data));
  const flat = {};
  for (const field of REPLY_FIELDS) if (Object.hasOwn(data, field)) flat[field] = shallow(data[field]);
  return JSON.stringify(flat);
}

function shallow(value) {
  if (Array.isArray(value)) return [];
  if (value !== null && typeof value === "object") return {};
  return value;
}

function typeName(value) {
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

function malformed(problem) {
  return JSON.stringify({ error: `the bot sent a malformed reply: ${problem}` });
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
    const taking = takeWarm();
    const bot = await untilStopped(taking);
    if (bot === STOPPED) {
      taking.then((late) => late.kill(), () => {}); // it was the run's: never reused
      return STOPPED;
    }
    this.bot = bot;
    if (this.bot.mode === "sync") {
      this.reloadSync();
    } else if (this.loadJson) {
      const id = --internalId;
      let timer = null;
      const loaded = await untilStopped(Promise.race([
        this.bot.request(id, withId(this.loadJson, id)),
        new Promise((resolve) => { timer = setTimeout(() => resolve(null), LOAD_LIMIT_MS); }),
      ]));
      clearTimeout(timer);
      if (loaded === null) this.bot.kill(); // its code would not load again: it stays silent
    }
    return this.bot;
  }

  // A replacement Worker gets the bot's code before it is asked anything.
  reloadSync() {
    if (!this.loadJson) return;
    const id = --internalId;
    if (this.bot.post(id, withId(this.loadJson, id))) {
      this.bot.awaitReply(id, performance.now() + LOAD_LIMIT_MS);
    }
  }
}

// Under a step budget a load carries the key its Worker's host seals its verdicts with
// (engine/bots/budget_seal.py). Only a Worker no bot code has run in may be given one: a bot
// that ran there before (the same entry, an earlier game) could have rewritten the host to
// read it. So a used Worker is stopped, and a fresh one takes its place for the load.
function retireIfUsed(slot, json) {
  if (!slot.bot || slot.bot.dead || !slot.bot.used || !carriesKey(json)) return;
  slot.bot.kill();
  slot.loadJson = null; // the fresh Worker gets this load only, not the last one again
}

function carriesKey(json) {
  try {
    const request = JSON.parse(json);
    return request !== null && typeof request === "object" && Object.hasOwn(request, "key");
  } catch (err) {
    return false;
  }
}

function withId(json, id) {
  const request = JSON.parse(json);
  request.id = id;
  return JSON.stringify(request);
}

// A run and its Stop. What waits for a bot in the message modes waits for either.
class RunStop {
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
function untilStopped(promise) {
  const run = activeRun;
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

// Ask a bot; returns the reply (see replyText) at once in sync mode (the controller blocks
// meanwhile), or a Promise of it in the message modes.
function ask(slotIndex, id, op, json, waitMs) {
  const slot = slots[slotIndex];
  if (op === "load") {
    retireIfUsed(slot, json);
    slot.loadJson = null; // a replacement Worker taken now gets this load once, below
  }
  const bot = slot.botNow();
  if (op === "load") slot.loadJson = json;
  if (bot && bot.mode === "sync") return askSync(bot, id, json, waitMs);
  return askAsync(slot, id, json, waitMs);
}

// The reply as one string "ELAPSED_MS;STATE;CHECKED" (STATE 1: answered, CHECKED is the
// flat JSON checkedReply wrote; 0: silent; 2: the page stopped the run): a string crosses
// into Python as a plain str, where an object would cost a proxy per move.
function replyText(elapsed, checked) {
  if (checked === STOPPED) return `${elapsed};2;`;
  return checked === null ? `${elapsed};0;` : `${elapsed};1;${checked}`;
}

function askSync(bot, id, json, waitMs) {
  const began = performance.now();
  if (!bot.post(id, json)) {
    return replyText(0, JSON.stringify({ error: "the request is too big for the channel to the bot" }));
  }
  const reply = bot.awaitReply(id, began + waitMs);
  const elapsed = performance.now() - began;
  if (reply === STOPPED) {
    bot.kill(); // busy with a request the run no longer needs
  } else if (reply === null && !bot.dead) {
    // Silent past the hard limit: interrupt its Python, then terminate its Worker.
    bot.interrupt[0] = 2; // SIGINT: Python raises KeyboardInterrupt in the bot's code
    if (bot.awaitReply(id, performance.now() + INTERRUPT_GRACE_MS) === null) bot.kill();
  }
  return replyText(elapsed, reply);
}

async function askAsync(slot, id, json, waitMs) {
  const bot = await slot.worker();
  if (bot === STOPPED) return replyText(0, STOPPED);
  // A replacement that had to start first (none was ready) may serve through shared memory:
  // it reads no request messages, and would be taken for silent.
  if (bot.mode === "sync") return askSync(bot, id, json, waitMs);
  const began = performance.now();
  let timer = null;
  const reply = bot.request(id, json);
  const outcome = await untilStopped(Promise.race([
    reply.then((checked) => ({ checked })),
    new Promise((resolve) => { timer = setTimeout(() => resolve(null), waitMs); }),
  ]));
  clearTimeout(timer);
  const elapsed = performance.now() - began;
  if (outcome === STOPPED) {
    bot.kill();
    return replyText(elapsed, STOPPED);
  }
  if (outcome && outcome.checked !== null) return replyText(elapsed, outcome.checked);
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
  await untilStopped(Promise.all(slots.map((slot) => slot.worker())));
}

// A run's bot Workers ran untrusted code: they are never reused for another run.
function release() {
  for (const slot of slots) if (slot.bot) slot.bot.kill();
  slots = [];
  refillWarm();
  postPool();
}

// ---- an author's game (engine/play/page_game.py): its game host in a bot Worker of its own, with
// everything withheld from bots withheld from it; it lives while the game is loaded (a run's
// bot Workers are replaced after it, this one is not: no bot ever reaches it).
const gameSlot = new Slot();
const MAX_GAME_REPLY_CHARS = 1 << 20;

// The game's reply as Python gets it: {game: TEXT} (the game host's own JSON reply, bounded
// here and parsed by Python after a nesting check) or {error}.
function checkedGameReply(json) {
  if (typeof json !== "string" || json.length > MAX_GAME_REPLY_CHARS) {
    return JSON.stringify({ error: "the game's reply is not text of at most 1 MiB" });
  }
  let data;
  try {
    data = JSON.parse(json);
  } catch (err) {
    return JSON.stringify({ error: "the game's reply is not JSON" });
  }
  const text = data !== null && typeof data === "object" && typeof data.game === "string" ? data.game : null;
  return JSON.stringify(text === null ? { error: "the game's Worker sent a malformed reply" } : { game: text });
}

function askGame(id, json, waitMs, isLoad) {
  if (isLoad) gameSlot.loadJson = json; // a replacement Worker is given the game first
  const bot = gameSlot.botNow();
  if (bot && bot.mode === "sync") return askGameSync(bot, id, json, waitMs);
  return askGameAsync(id, json, waitMs);
}

function askGameSync(bot, id, json, waitMs) {
  const began = performance.now();
  if (!bot.post(id, json)) return replyText(0, JSON.stringify({ error: "the request is too big for the game's Worker" }));
  let reply = bot.awaitReply(id, began + waitMs, checkedGameReply);
  if (reply === STOPPED) {
    bot.kill();
  } else if (reply === null && !bot.dead) {
    bot.interrupt[0] = 2; // KeyboardInterrupt in the game's code: its host replies with the line
    reply = bot.awaitReply(id, performance.now() + INTERRUPT_GRACE_MS, checkedGameReply);
    if (reply === null || reply === STOPPED) bot.kill();
  }
  return replyText(performance.now() - began, reply);
}

async function askGameAsync(id, json, waitMs) {
  const bot = await gameSlot.worker();
  if (bot === STOPPED) return replyText(0, STOPPED);
  const began = performance.now();
  let timer = null;
  const reply = bot.request(id, json, checkedGameReply);
  const outcome = await untilStopped(Promise.race([
    reply.then((checked) => ({ checked })),
    new Promise((resolve) => { timer = setTimeout(() => resolve(null), waitMs); }),
  ]));
  clearTimeout(timer);
  const elapsed = performance.now() - began;
  if (outcome && outcome !== STOPPED && outcome.checked !== null) return replyText(elapsed, outcome.checked);
  bot.kill();
  return replyText(elapsed, outcome === STOPPED ? STOPPED : null);
}

async function gameWorker() {
  const bot = await gameSlot.worker();
  refillWarm();
  return bot !== STOPPED;
}

let loadGamePy = null; // main.py's load_game, once Python is ready

async function loadGame(data) {
  let reply;
  try {
    const out = JSON.parse(await loadGamePy(typeof data.source === "string" ? data.source : ""));
    reply = typeof out.error === "string"
      ? { type: "game_loaded", id: data.id, error: out.error, line: Number.isInteger(out.line) ? out.line : null }
      : { type: "game_loaded", id: data.id, spec: out.spec };
  } catch (err) {
    reply = { type: "game_loaded", id: data.id, error: `the engine failed while loading the game (${String(err).slice(0, 300)})` };
  }
  self.postMessage(reply);
}

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
};

// ---- tournaments (docs/architecture.md "Tournaments in the page") ----------------------
// main.py plays several matches at once. Each match's seats are Slots handed out per entry:
// a Worker that ran an entry's code is kept for that entry's next match (its code is loaded
// afresh by the match, never another entry's), and the Workers of other entries are stopped
// to make room, so that at most `cap` bot Workers live besides the warm spares.
const MEMORY_SHARE = 0.25; // of the device's memory (navigator.deviceMemory) bot Workers may use
const DEFAULT_DEVICE_GB = 4; // where the browser does not say (deviceMemory is capped at 8)
const WORKER_OVERHEAD_MB = 30; // a bot Worker's memory besides its Python heap's size: each
// further bot Worker measured 47–57 MB (PSS, scripts/bench_web --only startup) with a 30 MB
// heap, half of whose pages (those the snapshot has empty) are never written
const MAX_PARALLEL = 16;
const TOURNAMENT_WAIT_SLICE_MS = 50; // how often a wait for a bot looks at Stop
let tournamentSeats = null;

// A bot Worker's memory: its Python heap as it reported when ready (before any bot code ran),
// or the snapshot it starts from, plus the rest of the Worker.
function botWorkerMb() {
  const heaps = warm.concat(tournamentSeats ? tournamentSeats.bots() : [])
    .map((bot) => bot.heapBytes || 0).filter((n) => n > 0);
  const heap = heaps.length ? Math.max(...heaps) : snapshot ? snapshot.byteLength : 64 * 2 ** 20;
  return heap / 2 ** 20 + WORKER_OVERHEAD_MB;
}

// How many matches at once: the number asked for, or one pair of bot Workers per core but
// one (the controller's), fewer when the device's memory is short.
function tournamentPlan(seats, entries, asked) {
  const cores = Math.max(1, (Number(navigator.hardwareConcurrency) || 2) - 1);
  const deviceGb = Number(navigator.deviceMemory) || DEFAULT_DEVICE_GB;
  const workerMb = botWorkerMb();
  const budgetMb = deviceGb * 1024 * MEMORY_SHARE;
  const spares = Math.min(WARM_BOTS, seats);
  const byMemory = Math.max(1, Math.floor((budgetMb / workerMb - spares) / seats));
  const fixed = Number.isInteger(asked) && asked >= 1;
  const parallel = fixed ? Math.min(asked, MAX_PARALLEL) : Math.min(cores, byMemory, MAX_PARALLEL);
  // Besides the matches' own, one idle Worker per entry is kept while the memory allows it, so
  // that an entry's next match need not start one.
  const cap = Math.max(seats * parallel, Math.min(seats * parallel + entries,
    Math.floor(budgetMb / workerMb) - spares));
  return { parallel, fixed, cores, byMemory, seats, cap, spares,
    workerMb: Math.round(workerMb), budgetMb: Math.round(budgetMb), deviceGb };
}

class TournamentSeats {
  constructor(plan) {
    this.cap = plan.cap;
    this.spares = plan.spares;
    this.idle = new Map(); // entry -> [Slot], its Workers not in a match now
    this.idleOrder = []; // [entry, Slot], least recently used first
    this.groups = new Map(); // group id -> {entries, slots}
    this.nextGroup = 0;
    this.started = 0; // bot Workers taken from the warm ones (each a snapshot start)
    this.peakWorkers = 0;
  }

  bots() {
    const out = [];
    for (const g of this.groups.values()) for (const s of g.slots) if (s.bot && !s.bot.dead) out.push(s.bot);
    for (const [, s] of this.idleOrder) if (s.bot && !s.bot.dead) out.push(s.bot);
    return out;
  }

  take(entries) {
    const slots = entries.map((entry) => this.slotFor(entry));
    this.nextGroup += 1;
    this.groups.set(this.nextGroup, { entries, slots });
    return this.nextGroup;
  }

  slotFor(entry) {
    const list = this.idle.get(entry) || [];
    while (list.length) {
      const slot = list.pop();
      this.idleOrder = this.idleOrder.filter(([, s]) => s !== slot);
      if (slot.bot && !slot.bot.dead) return slot;
    }
    const inUse = [...this.groups.values()].reduce((n, g) => n + g.slots.length, 0);
    while (inUse + 1 + this.idleOrder.length > this.cap && this.idleOrder.length) {
      const [oldEntry, oldest] = this.idleOrder.shift();
      const rest = (this.idle.get(oldEntry) || []).filter((s) => s !== oldest);
      this.idle.set(oldEntry, rest);
      if (oldest.bot) oldest.bot.kill();
    }
    this.started += 1;
    return new Slot();
  }

  free(id) {
    const group = this.groups.get(id);
    if (!group) return;
    this.groups.delete(id);
    group.slots.forEach((slot, i) => {
      if (!slot.bot || slot.bot.dead) return;
      const entry = group.entries[i];
      if (!this.idle.has(entry)) this.idle.set(entry, []);
      this.idle.get(entry).push(slot);
      this.idleOrder.push([entry, slot]);
    });
  }

  // Every Worker the tournament used ran untrusted code: none is ever reused after it.
  close() {
    for (const bot of this.bots()) bot.kill();
    for (const g of this.groups.values()) for (const s of g.slots) if (s.bot) s.bot.kill();
    this.groups.clear();
    this.idle.clear();
    this.idleOrder = [];
  }

  count() {
    const live = this.bots().length + warm.filter((bot) => !bot.dead).length;
    this.peakWorkers = Math.max(this.peakWorkers, live);
    return live;
  }
}

// A sync-mode bot's reply, awaited without blocking this Worker (other matches go on):
// Atomics.waitAsync on the reply mailbox, in slices so that Stop is seen.
async function awaitReplyAsync(bot, id, deadline) {
  const replies = bot.replies;
  for (;;) {
    const seq = replies.seq;
    if (seq === id) {
      try {
        return checkedReply(replies.read());
      } catch (err) {
        if (!(err instanceof ChannelOverflow)) throw err;
        return malformed(`the reply is ${err.size.toLocaleString("en")} bytes, `
          + `more than ${MAX_REPLY_CHARS.toLocaleString("en")}`);
      }
    }
    if (!activeRun || activeRun.stopped || stopRequested()) return STOPPED;
    const left = deadline - performance.now();
    if (left <= 0 || bot.dead) return null;
    const slice = Math.min(left, TOURNAMENT_WAIT_SLICE_MS);
    if (typeof Atomics.waitAsync === "function") {
      const waiting = Atomics.waitAsync(replies.header, 0, seq, slice);
      if (waiting.async) await waiting.value;
    } else {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
}

// A seat's bot Worker: its own, or a warm one; a replacement (its Worker was stopped) gets
// the entry's code before it is asked anything. Never blocks: other matches go on.
async function seatWorker(slot) {
  if (slot.bot && !slot.bot.dead) return slot.bot;
  const taking = takeWarm();
  const bot = await untilStopped(taking);
  if (bot === STOPPED) {
    taking.then((late) => late.kill(), () => {});
    return STOPPED;
  }
  slot.bot = bot;
  if (!slot.loadJson) return bot;
  const id = --internalId;
  const json = withId(slot.loadJson, id);
  let loaded = null;
  if (bot.mode === "sync") {
    if (bot.post(id, json)) loaded = await awaitReplyAsync(bot, id, performance.now() + LOAD_LIMIT_MS);
  } else {
    let timer = null;
    loaded = await untilStopped(Promise.race([
      bot.request(id, json),
      new Promise((resolve) => { timer = setTimeout(() => resolve(null), LOAD_LIMIT_MS); }),
    ]));
    clearTimeout(timer);
  }
  if (loaded === STOPPED) return STOPPED;
  if (loaded === null) bot.kill(); // its code would not load again: it stays silent
  return bot;
}

// When every spare now starting is ready (or has failed), at most LOAD_LIMIT_MS from now.
function sparesStarted() {
  const starting = warm.filter((bot) => !bot.isReady && !bot.dead).map((bot) => bot.ready.catch(() => null));
  if (!starting.length) return Promise.resolve(null);
  let timer = null;
  return Promise.race([
    Promise.all(starting),
    new Promise((resolve) => { timer = setTimeout(resolve, LOAD_LIMIT_MS); }),
  ]).finally(() => clearTimeout(timer));
}

// One question to a seat of a match (main.py's tournamentAsk): always a Promise of the reply
// text (replyText), whatever mode the bot Worker is in.
async function askSeat(groupId, seat, id, op, json, waitMs) {
  const group = tournamentSeats && tournamentSeats.groups.get(groupId);
  if (!group) return replyText(0, STOPPED);
  const slot = group.slots[seat];
  if (op === "load") retireIfUsed(slot, json);
  const fresh = !slot.bot || slot.bot.dead;
  const bot = await seatWorker(slot);
  if (fresh) {
    refillWarm(tournamentSeats.spares); // the next match's Workers start meanwhile
    tournamentSeats.count();
  }
  if (bot === STOPPED) return replyText(0, STOPPED);
  if (op === "load") slot.loadJson = json;
  // Start-up is never charged to a move: a move is timed once no spare is starting (a
  // starting Worker takes the CPU from the bots), and the wait is not counted.
  if (op === "turn" && await untilStopped(sparesStarted()) === STOPPED) return replyText(0, STOPPED);
  if (bot.mode !== "sync") return askAsync(slot, id, json, waitMs);
  const began = performance.now();
  if (!bot.post(id, json)) {
    return replyText(0, JSON.stringify({ error: "the request is too big for the channel to the bot" }));
  }
  const reply = await awaitReplyAsync(bot, id, began + waitMs);
  const elapsed = performance.now() - began;
  if (reply === STOPPED) {
    bot.kill();
  } else if (reply === null && !bot.dead) {
    bot.interrupt[0] = 2; // as askSync: interrupt its Python, then terminate its Worker
    if (await awaitReplyAsync(bot, id, performance.now() + INTERRUPT_GRACE_MS) === null) bot.kill();
  }
  return replyText(elapsed, reply);
}

const tournamentBridge = {
  tournamentBegin: (seats, entries, askedJson) => {
    release();
    const plan = tournamentPlan(Number(seats), Number(entries), JSON.parse(askedJson));
    tournamentSeats = new TournamentSeats(plan);
    refillWarm(plan.spares);
    return JSON.stringify(plan);
  },
  tournamentSeats: async (entriesJson) => tournamentSeats.take(JSON.parse(entriesJson)),
  tournamentAsk: (group, seat, id, op, json, waitMs) => askSeat(group, seat, id, op, json, waitMs),
  tournamentFree: (group) => { if (tournamentSeats) tournamentSeats.free(group); },
  tournamentWorkers: () => JSON.stringify(tournamentSeats
    ? { live: tournamentSeats.count(), peak: tournamentSeats.peakWorkers, started: tournamentSeats.started,
      workerMb: Math.round(botWorkerMb()) }
    : null),
  tournamentEnd: () => {
    if (tournamentSeats) tournamentSeats.close();
    tournamentSeats = null;
    refillWarm();
    postPool();
  },
};

Object.assign(bridge, tournamentBridge);

function startTournament(data) {
  const run = new RunStop(data.run);
  activeRun = run;
  const entries = data.challenge && Array.isArray(data.challenge.entries) ? data.challenge.entries : [];
  // A Python 2 entry's code is converted in the conversion Worker, when main.py loads it.
  Promise.resolve().then(() => runTournamentPy(JSON.stringify(data))).catch((err) => {
    self.postMessage({ type: "error", run: data.run, message: String(err) });
  }).finally(() => {
    if (activeRun === run) activeRun = null;
  });
}

// The latest tournament as Markdown or as one replay file (main.py tournament_file).
let tournamentFilePy = null;
function tournamentFile(data) {
  let reply;
  try {
    reply = JSON.parse(tournamentFilePy(Number(data.run), String(data.what), String(data.date ?? "")));
  } catch (err) {
    reply = { error: `the engine failed (${String(err).slice(0, 300)})` };
  }
  self.postMessage({ type: "tournament-file", run: data.run, what: data.what, ...reply });
}

function tournamentReplay(data) {
  let reply;
  try {
    reply = JSON.parse(tournamentReplayPy(Number(data.run), Number(data.index)));
  } catch (err) {
    reply = { error: `the game could not be read (${String(err).slice(0, 300)})` };
  }
  self.postMessage({ type: "tournament-replay", run: data.run, index: data.index, ...reply });
}

// ---- start-up ------------------------------------------------------------------------
// Each step's end, in this Worker's clock (performance.now(); timeOrigin converts it to the
// page's): the page keeps them with its "arena-ready" mark and scripts/bench_web prints them.
const startup = { timeOrigin: performance.timeOrigin, marks: {}, bots: [] };
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
  const { snapshotFromPage } = await pageInit;
  if (snapshotFromPage) {
    // boot.js downloads it on a thread of its own (snapshot_fetch.js), with its integrity
    const bytes = await snapshotFromBoot;
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
  await pageInit;
  if (siteFiles && siteFiles["config.json"] instanceof Blob) return JSON.parse(await siteFiles["config.json"].text());
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

async function start() {
  status("loading", "Loading Python (Pyodide)…", 0.05);
  const config = await siteConfig();
  indexURL = new URL(config.pyodideIndexURL, self.location.href).href;
  mark("config");
  // Earlier versions cached a snapshot of their own: the build's replaces it.
  if (self.caches) self.caches.delete("koth-arena-python").catch(() => {});
  // Every fetch at once, the longest first (a browser opens at most 6 connections to a host
  // that speaks HTTP/1.1); the bot Workers are created now and load their script meanwhile.
  const entry = builtSnapshotEntry(config.snapshot);
  const built = fetchBuiltSnapshot(entry);
  // The bots get it as soon as it is here and checked; should it not restore in this Worker
  // after all, they are replaced (below).
  built.then((bytes) => { if (bytes) resolveSnapshot(bytes); });
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
  wasmModule = await compiling;
  if (wasmModule) useCompiledModule(wasmModule);
  const [stdlibBytes, lockJson, zip, mainSource] = await Promise.all([stdlib, lock, engineZip, mainText]);
  // A bot Worker may fetch nothing (its Content-Security-Policy): it gets these bytes.
  botFiles = { "python_stdlib.zip": stdlibBytes, "engine.zip": zip };
  lockFile = lockJson;
  answerFetches({ "python_stdlib.zip": stdlibBytes });
  // The bots set up their Python now, beside this Worker's; the snapshot follows.
  if (entry) {
    snapshotMemoryBytes = entry.memoryBytes;
    resolveBotInit();
  }
  const createModule = await glue;
  const options = { indexURL, lockFileContents: lockJson, createPyodideModule: createModule };
  if (entry) {
    const bytes = built.then((b) => b || Promise.reject(new Error("no snapshot")));
    bytes.catch(() => {}); // awaited in the restore below; a failure is handled there
    try {
      pyodide = await loadPyodide({ ...options, _loadSnapshot: SNAPSHOT_TO_COME,
        createPyodideModule: restoringSparse(createModule, bytes, entry.memoryBytes) });
      pyodide._api.config._loadSnapshot = null;
      snapshot = await built;
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
      snapshot = sparseSnapshot(pyodide.makeMemorySnapshot()).bytes;
    } catch (err) {
      snapshot = null; // each bot Worker starts Pyodide from scratch instead
    }
    mark("snapshot made");
    snapshotMemoryBytes = 0;
    // The bots started for the build's snapshot wait for it, or got one that does not restore.
    warm.splice(0).forEach((bot) => bot.kill());
    resolveBotInit();
    refillWarm();
  }
  resolveSnapshot(snapshot);
  pyodide.runPython("import random\nrandom.seed()"); // a snapshot copies the generator's state
  mark("engine unpacked");
  // A fatal error leaves this Pyodide unusable: the page replaces this Worker.
  pyodide._api.on_fatal = (err) => {
    self.postMessage({ type: "fatal", run: activeRun ? activeRun.id : null, message: String(err).slice(0, 300) });
  };
  pyodide.registerJsModule("arena_bridge", bridge);
  // arena_main is in the snapshot, imported against a stand-in bridge (web/preload.py)
  pyodide.runPython("import arena_bridge, arena_main\narena_main.arena_bridge = arena_bridge");
  const main = pyodide.pyimport("arena_main");
  mark("controller imported");
  controller = main.controller;
  verifyReplayPy = main.verify_replay;
  checkChallengePy = main.check_challenge;
  runTournamentPy = main.run_tournament;
  tournamentReplayPy = main.tournament_replay;
  tournamentFilePy = main.tournament_file;
  loadGamePy = main.load_game;
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
  status("ready", scriptBots ? "Ready." : "Ready. This browser lacks JavaScript Promise Integration "
    + "(JSPI): script bots that read input() through a whole game (stream mode) cannot run; "
    + "function bots work.", 1,
  { games, jspi: scriptBots, isolated, startup });
  const runs = queuedRuns;
  queuedRuns = [];
  runs.forEach((r) => (r.type === "tournament" ? startTournament(r) : startRun(r)));
  const verifies = queuedVerifies;
  queuedVerifies = [];
  verifies.forEach(verifyReplay);
  stackExchangeReady(main);
  const checks = queuedChallengeChecks;
  queuedChallengeChecks = [];
  checks.forEach(checkChallenge);
}

// A challenge file or link the page opened (issue 9): the engine checks it (main.py
// check_challenge) and the page gets the challenge as the file format writes it, or the
// reader's one-line message.
function checkChallenge(data) {
  let reply;
  try {
    const out = JSON.parse(checkChallengePy(typeof data.text === "string" ? data.text : ""));
    reply = typeof out.error === "string"
      ? { type: "challenge-checked", id: data.id, error: out.error }
      : { type: "challenge-checked", id: data.id, challenge: out.challenge };
  } catch (err) {
    reply = { type: "challenge-checked", id: data.id,
      error: `the engine failed while checking it (${String(err).slice(0, 300)})` };
  }
  self.postMessage(reply);
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
  const run = new RunStop(data.run);
  activeRun = run;
  // A Python 2 bot's code is converted in the conversion Worker, when main.py loads it.
  Promise.resolve().then(() => controller.run(JSON.stringify(data))).catch((err) => {
    self.postMessage({ type: "error", run: data.run, message: String(err) });
  }).finally(() => {
    if (activeRun === run) activeRun = null;
  });
}

// ---- entries from a Stack Exchange question (web/src/se_import.js fetches the answers; the
// engine reads them: main.py se_question and se_parse, engine/contest/stackexchange.py) ----------
let stackExchangePy = null;
let queuedStackExchange = [];

function stackExchangeReady(main) {
  stackExchangePy = { question: main.se_question, parse: main.se_parse, snippet: main.export_snippet };
  const queued = queuedStackExchange;
  queuedStackExchange = [];
  queued.forEach(stackExchangeRequest);
}

function stackExchangeRequest(data) {
  if (!stackExchangePy) {
    queuedStackExchange.push(data);
    return;
  }
  if (data.type === "snippet-export") {
    exportSnippet(data);
    return;
  }
  let out;
  try {
    out = data.type === "se-question"
      ? JSON.parse(stackExchangePy.question(String(data.text ?? ""), String(data.site ?? "")))
      : JSON.parse(stackExchangePy.parse(JSON.stringify(Array.isArray(data.items) ? data.items : []),
        String(data.site ?? "")));
  } catch (err) {
    out = { error: `the engine failed while reading the answers (${String(err).slice(0, 300)})` };
  }
  self.postMessage({ ...out, type: data.type === "se-question" ? "se-question" : "se-parsed", id: data.id });
}

// The challenge as a Stack Snippet (main.py export_snippet, engine/contest/snippet.py): the Pyodide
// pinned is this one's.
function exportSnippet(data) {
  let out;
  try {
    const options = { ...(data.options && typeof data.options === "object" ? data.options : {}),
      pyodideVersion: pyodide.version };
    out = JSON.parse(stackExchangePy.snippet(String(data.challenge ?? ""), JSON.stringify(options)));
  } catch (err) {
    out = { error: `the engine failed while exporting (${String(err).slice(0, 300)})` };
  }
  self.postMessage({ ...out, type: "snippet-exported", id: data.id });
}

self.onmessage = (event) => {
  const data = event.data;
  if (!data || typeof data !== "object") return;
  if (data.type === "se-question" || data.type === "se-parse" || data.type === "snippet-export") {
    stackExchangeRequest(data);
    return;
  }
  if (data.type === "init") {
    if (data.stopFlag instanceof Int32Array && data.stopFlag.buffer instanceof SharedArrayBuffer) {
      stopFlag = data.stopFlag;
    }
    if (data.siteFiles && typeof data.siteFiles === "object") siteFiles = data.siteFiles;
    resolvePageInit({ snapshotFromPage: data.snapshotFromPage === true });
  } else if (data.type === "snapshot") {
    resolveSnapshotFromBoot(data.bytes instanceof ArrayBuffer ? data.bytes : null);
  } else if (data.type === "run") {
    if (controller) startRun(data);
    else queuedRuns.push(data);
  } else if (data.type === "tournament") {
    if (controller) startTournament(data);
    else queuedRuns.push(data);
  } else if (data.type === "tournament-replay") {
    if (tournamentReplayPy) tournamentReplay(data);
  } else if (data.type === "tournament-file") {
    if (tournamentFilePy) tournamentFile(data);
    else self.postMessage({ type: "tournament-file", run: data.run, what: data.what, error: "Python is not ready" });
  } else if (data.type === "python2") {
    python2Request(data);
  } else if (data.type === "load_game") {
    if (loadGamePy && !activeRun) loadGame(data);
    else self.postMessage({ type: "game_loaded", id: data.id, error: "Python is busy: load the game when the run ends" });
  } else if (data.type === "verify") {
    if (verifyReplayPy) verifyReplay(data);
    else queuedVerifies.push(data);
  } else if (data.type === "challenge-check") {
    if (checkChallengePy) checkChallenge(data);
    else queuedChallengeChecks.push(data);
  } else if (data.type === "stop") {
    if (controller) controller.stop(data.run);
    queuedRuns = queuedRuns.filter((r) => r.run !== data.run);
    if (activeRun && activeRun.id === data.run) {
      activeRun.stop();
      for (const slot of slots) if (slot.bot) slot.bot.kill();
      if (tournamentSeats) tournamentSeats.close();
    }
  }
};

// ---- Python 2 answers -------------------------------------------------------------------
// fissix (python2.zip, built by scripts/build.py) never runs in this Worker: it is quadratic on
// some texts (8,000 u'' literals in one expression took 17.5 s). Each new source is converted
// in a conversion Worker: a bot Worker started with python2.zip, running
// engine/bots/python2_convert.py, its WebAssembly memory capped (bot_worker.js capMemory),
// terminated when a conversion runs past CONVERT_LIMIT_MS. main.py awaits convertPython2 with
// this Worker's event loop free, and keeps each outcome (engine/bots/python2.py's cache).
const CONVERT_LIMIT_MS = 10_000; // as engine/bots/python2_convert.py CPU_LIMIT_S
const CONVERT_MEMORY_BYTES = 512 * 2 ** 20; // as MEMORY_LIMIT_BYTES there
const CONVERT_IDLE_MS = 30_000; // an idle conversion Worker is stopped (its memory freed) after this
const MAX_CONVERSION_CHARS = 2 << 20; // a reply, as MAX_REPLY_BYTES there
let python2Zip = null; // a promise of python2.zip's bytes
let converterWorker = null;
let converterIdle = null;
let conversionIds = 0;
let conversions = Promise.resolve(); // one at a time
const converting = new Map(); // source -> its conversion under way (a tournament's matches share it)

function python2ZipBytes() {
  if (!python2Zip) {
    python2Zip = siteFetch("python2.zip").then((response) => {
      if (!response.ok) throw new Error(`python2.zip: HTTP ${response.status}`);
      return response.arrayBuffer();
    });
    python2Zip.catch(() => { python2Zip = null; }); // a later request tries again
  }
  return python2Zip;
}

// The conversion of `source` as main.py reads it (JSON text): the conversion Worker's reply
// (checkedConversion); {over_time_s} when it ran past its limit; {stopped: why} when its Worker
// failed; {cancelled: true} when the page stopped the run meanwhile.
function convertPython2(source) {
  const text = String(source);
  if (converting.has(text)) return converting.get(text);
  const next = conversions.then(() => convertNow(text));
  conversions = next.catch(() => {});
  converting.set(text, next);
  next.finally(() => converting.delete(text)).catch(() => {});
  return next;
}

async function convertNow(source) {
  clearTimeout(converterIdle);
  let worker = null;
  try {
    if (!converterWorker || converterWorker.dead) {
      converterWorker = new BotWorker({ converter: await python2ZipBytes() });
      converterWorker.ready.catch(() => {});
    }
    worker = converterWorker;
    if (await untilStopped(worker.ready) === STOPPED) return JSON.stringify({ cancelled: true });
  } catch (err) {
    if (worker) worker.kill();
    return JSON.stringify({ stopped: `the Python 2 converter did not start (${String(err).slice(0, 300)})` });
  }
  const id = ++conversionIds;
  let timer = null;
  const outcome = await untilStopped(Promise.race([
    worker.request(id, JSON.stringify({ source }), checkedConversion).then((checked) => ({ checked })),
    new Promise((resolve) => { timer = setTimeout(() => resolve(null), CONVERT_LIMIT_MS); }),
  ]));
  clearTimeout(timer);
  if (outcome && outcome !== STOPPED && outcome.checked !== null) {
    converterIdle = setTimeout(() => worker.kill(), CONVERT_IDLE_MS);
    return outcome.checked;
  }
  worker.kill();
  if (outcome === STOPPED) return JSON.stringify({ cancelled: true });
  if (outcome === null) return JSON.stringify({ over_time_s: CONVERT_LIMIT_MS / 1000 });
  return JSON.stringify({ stopped: "its Worker stopped (over its memory limit, or it failed)" });
}

// The conversion Worker's reply, untrusted text: bounded, parsed here, and rebuilt flat
// ({converted, lines, true_division} or {error, line}); main.py checks the rest.
function checkedConversion(json) {
  const unreadable = JSON.stringify({ error: "its Python 2 conversion's result was not readable", line: null });
  if (typeof json !== "string" || json.length > MAX_CONVERSION_CHARS) {
    return JSON.stringify({ error: "its Python 2 conversion's result is too long", line: null });
  }
  let data;
  try {
    data = JSON.parse(json);
  } catch (err) {
    return unreadable;
  }
  if (data === null || typeof data !== "object") return unreadable;
  if (typeof data.error === "string") {
    return JSON.stringify({ error: data.error.slice(0, 2000), line: Number.isInteger(data.line) ? data.line : null });
  }
  if (typeof data.converted !== "string" || !Array.isArray(data.lines) || !data.lines.every(Number.isInteger)
      || typeof data.true_division !== "boolean") return unreadable;
  return JSON.stringify({ converted: data.converted, lines: data.lines, true_division: data.true_division });
}

let python2Queue = Promise.resolve();

// {type: "python2", id, code, convert} -> {type: "python2", id, reason, converted?, diff?,
// error?, line?}: main.py's python2_view, one request at a time, after Python is ready.
function python2Request(data) {
  python2Queue = python2Queue.then(async () => {
    while (!controller) await new Promise((resolve) => setTimeout(resolve, 100));
    let reply;
    try {
      const code = typeof data.code === "string" ? data.code : "";
      reply = JSON.parse(await pyodide.pyimport("arena_main").python2_view(code, data.convert === true));
    } catch (err) {
      reply = { reason: null, error: `the Python 2 check failed (${String(err).slice(0, 300)})` };
    }
    self.postMessage({ type: "python2", id: data.id, ...reply });
  });
}

// A handle for tests and debugging (like the page's window.kothArena): only code running
// in this Worker (and the browser's devtools) can reach it; bots run in other Workers.
// startBots(n) starts n more bot Workers now (scripts/bench_web measures their memory).
self.kothController = {
  runPython: (code) => pyodide.runPython(code),
  // Python 2 conversions started in the conversion Worker, and those under way now
  python2Conversions: () => ({ started: conversionIds, underWay: converting.size }),
  startBots: (n) => refillWarm(warm.length + Math.max(0, Math.min(16, Number(n) || 0))),
};

start().catch((err) => {
  status("error", `Could not start Python: ${err}`, 0);
  self.postMessage({ type: "error", run: null, message: `Could not start Python: ${err}` });
});
