// An author's game (engine/play/page_game.py): its game host in a bot Worker of its own, with
// everything withheld from bots withheld from it; it lives while the game is loaded (a run's
// bot Workers are replaced after it, this one is not: no bot ever reaches it).

import { INTERRUPT_GRACE_MS, Slot, refillWarm } from "./bot_pool.js";
import { STOPPED, untilStopped } from "./state.js";
import { replyText } from "./replies.js";

const gameSlot = new Slot();
const MAX_GAME_REPLY_CHARS = 1 << 20;

// The game's reply as Python gets it: {game: TEXT} (the game host's own JSON reply, bounded
// here and parsed by Python after a nesting check) or {error}.
export function checkedGameReply(json) {
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

export function askGame(id, json, waitMs, isLoad) {
  if (isLoad) gameSlot.loadJson = json; // a replacement Worker is given the game first
  const bot = gameSlot.botNow();
  if (bot && bot.mode === "sync") return askGameSync(bot, id, json, waitMs);
  return askGameAsync(id, json, waitMs);
}

export function askGameSync(bot, id, json, waitMs) {
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

export async function askGameAsync(id, json, waitMs) {
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

export async function gameWorker() {
  const bot = await gameSlot.worker();
  refillWarm();
  return bot !== STOPPED;
}
