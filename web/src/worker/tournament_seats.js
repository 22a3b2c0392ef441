// Tournaments (docs/architecture.md "Tournaments in the page"): main.py plays several matches
// at once. Each match's seats are Slots handed out per entry: a Worker that ran an entry's code
// is kept for that entry's next match (its code is loaded afresh by the match, never another
// entry's), and the Workers of other entries are stopped to make room, so that at most `cap`
// bot Workers live besides the warm spares.

import { ChannelOverflow } from "../sync_channel.js";
import { MAX_REPLY_CHARS } from "../reply_text.js";
import { INTERRUPT_GRACE_MS, LOAD_LIMIT_MS, Slot, WARM_BOTS, askAsync, postPool, refillWarm, release,
  retireIfUsed, takeWarm, warm } from "./bot_pool.js";
import { STOPPED, ctl, stopRequested, untilStopped } from "./state.js";
import { checkedReply, malformed, replyText, withId } from "./replies.js";

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
  const heap = heaps.length ? Math.max(...heaps) : ctl.snapshot ? ctl.snapshot.byteLength : 64 * 2 ** 20;
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
    if (!ctl.activeRun || ctl.activeRun.stopped || stopRequested()) return STOPPED;
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
  const id = --ctl.internalId;
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

export const tournamentBridge = {
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


// The page stopped the tournament: every Worker it used is stopped.
export function closeSeats() {
  if (tournamentSeats) tournamentSeats.close();
}
