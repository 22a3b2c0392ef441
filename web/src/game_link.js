// One-game links ("#g=..."): "look at game 7" as a link that opens that game in the viewer.
//
// A game's record is long (a trial Flit game is about 18,500 characters deflated, a full one
// 690,000; its moves alone 4,700), so the link carries what the engine needs to play the game
// again instead: the game, its preset and settings, the seated bots' code in seat order, the
// seed, the secret, the step budget, and the scores it gave (to check the replay against).
// That is a share link's content plus a few dozen characters. The recipient's page plays that
// one game with the engine (a run of its own: the visitor's bots, settings and field are not
// touched) and says whether it came out as the link says; under a step budget it does on
// every machine, under a wall-clock limit a time-out may differ, and the page says so.
// It may carry a turn to open the board at (`turn`, from 1: the turn on show when it was made).
// The link is untrusted: packed like a challenge link (web/src/challenge_link.js: deflate-raw,
// base64url, 16 MB unpacked at most) and every field checked here before anything runs.

import { packChallenge, unpackChallenge, LinkError } from "./challenge_link.js";

export const GAME_LINK_PREFIX = "g=";
export const MAX_LINK_BOTS = 64; // engine/play/replay.py MAX_BOTS
const MAX_CODE_CHARS = 256 * 1024; // engine/contest/challenge.py MAX_CODE_BYTES (characters here)
const MAX_NAME_CHARS = 100;
const MAX_SECRET_CHARS = 256;
const MAX_LABEL_CHARS = 200;
const MAX_SEED = 2 ** 53 - 1;
const MAX_TURN = 2_000_000; // engine/play/replay.py MAX_TOTAL_TURNS

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isCount = (v, lo = 0) => Number.isSafeInteger(v) && v >= lo;

// The link's data for the game of `record` (a finished record: game, seed, secret, settings,
// bots) given how it was played: `context` = {preset, budget, bots: {name: {code, language}}}.
// Returns the link's data (after "#g=") or throws LinkError naming what is missing.
export async function gameLinkData(record, context, label, turn = null) {
  const body = gameLinkBody(record, context, label, turn);
  return packChallenge(body);
}

export function gameLinkBody(record, context, label, turn = null) {
  if (!isObj(record) || !Array.isArray(record.bots) || !isObj(record.result)) {
    throw new LinkError("the game has not finished");
  }
  if (!context || !isObj(context.bots)) {
    throw new LinkError("the bots' code is not in this page (a replay file holds moves, not code)");
  }
  const bots = record.bots.map((name) => {
    const entry = Object.hasOwn(context.bots, name) ? context.bots[name] : null;
    if (!entry || typeof entry.code !== "string") throw new LinkError(`the code of ${name} is not in this page`);
    return { name, code: entry.code, ...(entry.language === "python2" ? { language: "python2" } : {}) };
  });
  const fields = context.fields || Object.keys(record.settings || {});
  const settings = {};
  for (const key of fields) if (Number.isSafeInteger(record.settings?.[key])) settings[key] = record.settings[key];
  return {
    v: 1, game: record.game, preset: context.preset ?? null, settings, seed: record.seed,
    secret: typeof record.secret === "string" ? record.secret : null, budget: context.budget ?? null,
    bots, scores: Array.isArray(record.result.scores) ? record.result.scores : null,
    label: String(label || "").slice(0, MAX_LABEL_CHARS),
    ...(isCount(turn, 1) && turn <= MAX_TURN ? { turn } : {}),
  };
}

// The link's data back to a checked game: {game, preset, settings, seed, secret, budget,
// bots, scores, label}; LinkError with a one-line reason when it is damaged or hostile.
// `specs`: the page's game specs ({name, title, presets, fields: [{key, label, min, max}]}).
export async function readGameLink(data, specs) {
  const text = await unpackChallenge(data);
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LinkError("its data is not JSON");
  }
  return checkGameLink(body, specs);
}

export function checkGameLink(body, specs) {
  if (!isObj(body) || body.v !== 1) throw new LinkError("it is not a game link this page reads (v 1)");
  body = { ...body, preset: body.preset ?? null, secret: body.secret ?? null, budget: body.budget ?? null };
  const spec = specs.find((s) => s.name === body.game);
  if (!spec) throw new LinkError(`it is a game of ${JSON.stringify(String(body.game).slice(0, 40))}, which this page does not have`);
  if (body.preset !== null && (typeof body.preset !== "string"
    || !(spec.presets || []).some((p) => p.name === body.preset))) {
    throw new LinkError(`${spec.title} has no preset ${JSON.stringify(String(body.preset).slice(0, 40))}`);
  }
  if (!isObj(body.settings)) throw new LinkError("its settings are not an object");
  const fields = new Map((spec.fields || []).map((f) => [f.key, f]));
  const settings = {};
  for (const [key, value] of Object.entries(body.settings)) {
    const field = fields.get(key);
    if (!field) continue; // the players setting and the like: the bots decide them
    if (!isCount(value) || value < field.min || value > field.max) {
      throw new LinkError(`its ${field.label || key} is not a whole number from ${field.min} to ${field.max}`);
    }
    settings[key] = value;
  }
  if (!isCount(body.seed) || body.seed > MAX_SEED) throw new LinkError("its seed is not a whole number");
  if (body.secret !== null && (typeof body.secret !== "string" || !body.secret || body.secret.length > MAX_SECRET_CHARS)) {
    throw new LinkError("its secret is not text");
  }
  if (body.budget !== null && (!isCount(body.budget, 1) || body.budget > 1e9)) {
    throw new LinkError("its step budget is not a whole number from 1 to 1,000,000,000");
  }
  if (!Array.isArray(body.bots) || body.bots.length < 1 || body.bots.length > MAX_LINK_BOTS) {
    throw new LinkError(`it seats no bots or more than ${MAX_LINK_BOTS}`);
  }
  const bots = body.bots.map((b, i) => {
    if (!isObj(b) || typeof b.name !== "string" || !b.name || b.name.length > MAX_NAME_CHARS
      || typeof b.code !== "string" || !b.code.trim() || b.code.length > MAX_CODE_CHARS) {
      throw new LinkError(`its bot ${i + 1} is not a name and code (at most ${MAX_CODE_CHARS / 1024} KB)`);
    }
    return { name: b.name, code: b.code, language: b.language === "python2" ? "python2" : "" };
  });
  const scores = Array.isArray(body.scores) && body.scores.length <= MAX_LINK_BOTS
    && body.scores.every((s) => typeof s === "number" && Number.isFinite(s)) ? body.scores : null;
  const label = typeof body.label === "string" ? body.label.slice(0, MAX_LABEL_CHARS) : "";
  const turn = body.turn ?? null;
  if (turn !== null && (!isCount(turn, 1) || turn > MAX_TURN)) {
    throw new LinkError(`its turn is not a whole number from 1 to ${MAX_TURN.toLocaleString("en")}`);
  }
  return { game: spec.name, title: spec.title || spec.name, preset: body.preset, settings, seed: body.seed,
    secret: body.secret, budget: body.budget, bots, scores, label, turn };
}

// The run request that plays the linked game (web/main.py Controller.run): one game, the
// bots in their seats.
export function runRequest(game, run) {
  return { type: "run", run, game: game.game, preset: game.preset, settings: game.settings, seed: game.seed,
    games: 1, bots: game.bots, secret: game.secret, budget: game.budget };
}

// What the page says once the linked game is played again: [ok, text].
export function verdict(game, scores) {
  const said = Array.isArray(game.scores) ? game.scores.join("–") : null;
  const got = Array.isArray(scores) ? scores.join("–") : "no scores";
  const what = `${game.label || "The linked game"} (${game.bots.map((b) => b.name).join(" vs ")}, seed ${game.seed})`;
  if (said === null) return [true, `${what} played again: scores ${got}.`];
  if (said === got) return [true, `${what} played again: scores ${got}, as the link says.`];
  const why = game.budget === null
    ? " The game was played under a wall-clock time limit, where a slower or faster machine can change a time-out."
    : "";
  return [false, `${what} played again gave ${got}, but the link says ${said}.${why}`];
}

// The bots' code of the runs played in this page, for their games' links: the last match
// run's and the last tournament's (context = {game, preset, budget, fields, bots: {name: {code,
// language}}}). A record's link uses the newest context of its game that has all its bots.
export class LinkContexts {
  constructor() { this.contexts = []; }

  // A match run (or a linked game) with `bots` [{name, code, language}]; main.py cuts names
  // to `nameChars` in the records it writes.
  played(game, preset, budget, fields, bots, nameChars = Infinity) {
    const byName = {};
    bots.forEach((b, i) => {
      const name = String(b.name || `Bot ${i + 1}`).slice(0, nameChars);
      byName[name] = { code: String(b.code), language: b.language === "python2" ? "python2" : "" };
    });
    this.keep({ game, preset: preset ?? null, budget: budget ?? null, fields: (fields || []).map((f) => f.key),
      bots: byName });
  }

  // A tournament of `challenge` (the challenge file's object): its playing entries under the
  // names the engine gives them (engine/bots/entries.py unique_names: "greedy", "greedy#2"...).
  playedTournament(challenge, budget, spec) {
    const seen = new Map();
    const bots = [];
    for (const e of challenge.entries || []) {
      if (e.enabled === false) continue;
      const count = (seen.get(e.name) || 0) + 1;
      seen.set(e.name, count);
      bots.push({ name: count === 1 ? e.name : `${e.name}#${count}`, code: e.code, language: e.language });
    }
    this.played(challenge.game, challenge.preset ?? null, budget, spec ? spec.fields : [], bots);
  }

  keep(context) {
    this.contexts = [context, ...this.contexts].slice(0, 4);
  }

  find(record) {
    if (!record || !Array.isArray(record.bots)) return null;
    return this.contexts.find((c) => c.game === record.game
      && record.bots.every((n) => Object.hasOwn(c.bots, n))) || null;
  }
}
