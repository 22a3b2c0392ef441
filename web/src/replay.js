// Replay files: the checks made before a file goes to the engine (size, nesting), the
// shape check of the document the engine verified, and per-record frames computed by the
// game's renderer (web/src/games/<renderer>.js), with a frame kept every 64 turns so
// scrubbing is instant. The page computes no result here: results come from the engine's
// summary.

const SNAP = 64;

// What the page sends to the engine for checking. The engine has its own caps on bots,
// records and turns (engine/play/replay.py); these two protect the controller's Python from
// a file it could not even parse: a huge one, or one nested deeper than any replay is.
export const MAX_REPLAY_BYTES = 64 * 1024 * 1024; // engine/core/replay_limits.py: MAX_DOCUMENT_CHARS
export const MAX_NESTING = 32; // engine/core/replay_limits.py: MAX_DEPTH

export class ReplayFileError extends Error {}

function fail(msg) { throw new ReplayFileError(msg); }
function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

export function formatBytes(n) {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} kB`;
  return `${n} bytes`;
}

// Size of a file before it is read: refused at once when too big.
export function checkReplaySize(bytes) {
  if (bytes > MAX_REPLAY_BYTES) {
    fail(`the file is ${formatBytes(bytes)}; the page opens replays up to ${formatBytes(MAX_REPLAY_BYTES)}`);
  }
}

// One linear pass over the text: brackets outside strings may nest at most MAX_NESTING deep.
export function checkReplayText(text) {
  checkReplaySize(text.length);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      if (++depth > MAX_NESTING) fail(`the file nests deeper than ${MAX_NESTING} levels; no replay does`);
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
}

// The shape every record has, whatever the game (the renderer checks its own fields and
// draws only known values).
function checkRecord(rec, where) {
  if (!isObj(rec)) fail(`${where} is not an object`);
  if (!Array.isArray(rec.bots) || rec.bots.length < 1) fail(`${where} has no "bots"`);
  if (!isObj(rec.start)) fail(`${where} has no "start"`);
  if (!Array.isArray(rec.turns)) fail(`${where} has no "turns"`);
  rec.turns.forEach((t, i) => { if (!isObj(t)) fail(`${where} turn ${i + 1} is not an object`); });
}

// The document the engine verified (a series, its summary recomputed by the engine) in
// the viewer's shape: {game, bots: [names], records, summary}. `games` are the names the
// engine knows. Throws ReplayFileError.
export function seriesFromDocument(doc, games) {
  if (!isObj(doc)) fail("the engine returned no document");
  if (!games.includes(doc.game)) fail(`unknown game ${JSON.stringify(doc.game)}`);
  if (!Array.isArray(doc.bots) || doc.bots.length < 1) fail('missing "bots"');
  if (!Array.isArray(doc.records) || doc.records.length === 0) fail("the series has no records");
  if (!isObj(doc.summary) || !Array.isArray(doc.summary.games)) fail("the engine returned no summary");
  doc.records.forEach((r, i) => checkRecord(r, `record ${i + 1}`));
  return { game: doc.game, bots: doc.bots.map(String), records: doc.records, summary: doc.summary };
}

// --- frames --------------------------------------------------------------------------

// A turn record in schema version 2's shape ({seats, answers, faults, ...game fields});
// version 1's one-seat turns ({seat, answer, fault, ...}) are converted as the engine's
// reader converts them.
export function turnV2(t) {
  if (!isObj(t)) return { seats: [], answers: [], faults: [] };
  if (Array.isArray(t.seats)) {
    return { ...t, answers: Array.isArray(t.answers) ? t.answers : [], faults: Array.isArray(t.faults) ? t.faults : [] };
  }
  const { seat, answer, fault, ...rest } = t;
  return { ...rest, seats: Number.isInteger(seat) ? [seat] : [], answers: [answer ?? null], faults: [fault ?? null] };
}

// A Track holds one record and computes its frames with the game's renderer (its
// initialFrame and applyTurn). Frame t = the position after t turns, with {turn, total,
// last (the turn record that led to it), next (the turn after it)} added; a frame is kept
// every SNAP turns so scrubbing is instant.
export class Track {
  constructor(renderer, record) {
    this.renderer = renderer;
    this.record = record;
    this.turns = Array.isArray(record.turns) ? record.turns.map(turnV2) : [];
    this.result = record.result || null;
    const start = renderer.initialFrame(record);
    this.snaps = [start]; // snaps[k] = frame after k*SNAP turns
    this.tip = start; // frame after tipTurn turns
    this.tipTurn = 0;
    this.advanceSnaps();
  }

  get length() { return this.turns.length; }

  addTurns(turns) {
    for (const t of turns) this.turns.push(turnV2(t));
    this.advanceSnaps();
  }

  advanceSnaps() {
    while (this.tipTurn < this.turns.length) {
      this.tip = this.renderer.applyTurn(this.tip, this.turns[this.tipTurn]);
      this.tipTurn++;
      if (this.tipTurn % SNAP === 0) this.snaps.push(this.tip);
    }
  }

  frame(t) {
    t = Math.max(0, Math.min(t, this.turns.length));
    const k = Math.min(Math.floor(t / SNAP), this.snaps.length - 1);
    let state = this.snaps[k];
    for (let i = k * SNAP; i < t; i++) state = this.renderer.applyTurn(state, this.turns[i]);
    return {
      ...state, turn: t, total: this.turns.length,
      last: t > 0 ? this.turns[t - 1] : null, next: t < this.turns.length ? this.turns[t] : null,
    };
  }
}
