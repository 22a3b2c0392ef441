// The bot pool: warm bot Workers started ahead (a match needs two), and the slots of the run
// going on. A slot whose Worker has to be stopped takes a spare, given the bot's code again
// before it is asked anything; a run's Workers ran untrusted code and are never reused.

import { BotWorker, botEvents } from "./bot_handle.js";
import { STOPPED, ctl, untilStopped } from "./state.js";
import { carriesKey, replyText, withId } from "./replies.js";

// Bot Workers kept started and waiting: the two a match needs. A spare for a bot that must be
// stopped mid-run costs a Pyodide's memory for as long as the page is open, and its start
// from the snapshot takes a fraction of a second when it is needed: it is not kept.
export const WARM_BOTS = 2;
export const INTERRUPT_GRACE_MS = 500; // after an interrupt, how long before terminate()
export const LOAD_LIMIT_MS = 20_000; // reloading a bot's code into a spare

export const warm = []; // BotWorkers starting or ready, not yet given to a bot
let slots = []; // the bots of the current run

// How many bot Workers wait ready (the page shows nothing; scripts/bench_web waits on it).
export function postPool() {
  self.postMessage({ type: "pool", ready: warm.filter((bot) => bot.isReady && !bot.dead).length });
}

export function refillWarm(target = WARM_BOTS) {
  while (warm.length < target) {
    const bot = new BotWorker();
    bot.ready.catch(() => {});
    warm.push(bot);
  }
}

// Bot Workers are replaced between runs, not during one: a Pyodide starting up would
// take the CPU from the match. A run that needs more than the warm ones starts one.
export async function takeWarm() {
  const bot = takeWarmNow();
  if (bot) return bot;
  if (!warm.length) refillWarm(1);
  const started = await warm.shift().ready;
  if (started.mode === "sync") started.worker.postMessage({ type: "serve" });
  return started;
}

// A warm bot that is ready now, or null: what a blocked controller can use at once.
export function takeWarmNow() {
  const index = warm.findIndex((bot) => bot.isReady && !bot.dead);
  if (index < 0) return null;
  const bot = warm.splice(index, 1)[0];
  if (bot.mode === "sync") bot.worker.postMessage({ type: "serve" });
  postPool();
  return bot;
}

// A bot of the current run: if its Worker has to be stopped, a spare takes its place and
// is given the same code before it is asked anything.
export class Slot {
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
      const id = --ctl.internalId;
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
    const id = --ctl.internalId;
    if (this.bot.post(id, withId(this.loadJson, id))) {
      this.bot.awaitReply(id, performance.now() + LOAD_LIMIT_MS);
    }
  }
}

// Under a step budget a load carries the key its Worker's host seals its verdicts with
// (engine/bots/budget_seal.py). Only a Worker no bot code has run in may be given one: a bot
// that ran there before (the same entry, an earlier game) could have rewritten the host to
// read it. So a used Worker is stopped, and a fresh one takes its place for the load.
export function retireIfUsed(slot, json) {
  if (!slot.bot || slot.bot.dead || !slot.bot.used || !carriesKey(json)) return;
  slot.bot.kill();
  slot.loadJson = null; // the fresh Worker gets this load only, not the last one again
}

// Ask a bot; returns the reply (see replyText) at once in sync mode (the controller blocks
// meanwhile), or a Promise of it in the message modes.
export function ask(slotIndex, id, op, json, waitMs) {
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

export function askSync(bot, id, json, waitMs) {
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

export async function askAsync(slot, id, json, waitMs) {
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
export async function stopBot(bot, reply) {
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

export async function prepare(count) {
  release();
  slots = Array.from({ length: count }, () => new Slot());
  await untilStopped(Promise.all(slots.map((slot) => slot.worker())));
}

// A run's bot Workers ran untrusted code: they are never reused for another run.
export function release() {
  for (const slot of slots) if (slot.bot) slot.bot.kill();
  slots = [];
  refillWarm();
  postPool();
}

// The page stopped the run: its bots' Workers are stopped at once.
export function killRunBots() {
  for (const slot of slots) if (slot.bot) slot.bot.kill();
}

botEvents.ready = postPool;
