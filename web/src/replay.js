// Replay files: the checks made before a file goes to the engine (size, nesting), the
// shape check of the document the engine verified, and per-record frame computation
// (Flit boards rebuilt from `changes`, with a snapshot every 64 turns so scrubbing is
// instant). The page computes no result here: results come from the engine's summary.

export const GAMES = ["flit", "atomas"];
const SNAP = 64;

// What the page sends to the engine for checking. The engine has its own caps on bots,
// records and turns (engine/replay.py); these two protect the controller's Python from
// a file it could not even parse: a huge one, or one nested deeper than any replay is.
export const MAX_REPLAY_BYTES = 64 * 1024 * 1024; // engine/replay.py: MAX_DOCUMENT_CHARS
export const MAX_NESTING = 32; // engine/replay.py: MAX_DEPTH
export const FLIT_MAX_COLOUR = 5;

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

function checkRecord(rec, where, game) {
  if (!isObj(rec)) fail(`${where} is not an object`);
  if (!Array.isArray(rec.bots) || rec.bots.length < 1) fail(`${where} has no "bots"`);
  if (!isObj(rec.start)) fail(`${where} has no "start"`);
  if (!Array.isArray(rec.turns)) fail(`${where} has no "turns"`);
  if (game === "flit") {
    const size = rec.settings && rec.settings.size;
    if (!Number.isInteger(size) || size < 1 || size > 512) fail(`${where} has no valid settings.size`);
    const checkChanges = (ch, w) => {
      if (!Array.isArray(ch)) fail(`${w} has no "changes"`);
      for (const c of ch) {
        if (!Array.isArray(c) || c.length !== 3 || !c.every(Number.isInteger)) {
          fail(`${w} has a bad change ${JSON.stringify(c).slice(0, 80)}`);
        }
        if (c[0] < 0 || c[0] >= size || c[1] < 0 || c[1] >= size) fail(`${w} has a change outside the board`);
        if (c[2] < 0 || c[2] > FLIT_MAX_COLOUR) fail(`${w} has an unknown colour ${c[2]}`);
      }
    };
    checkChanges(rec.start.changes, `${where} start`);
    rec.turns.forEach((t, i) => {
      if (!isObj(t)) fail(`${where} turn ${i + 1} is not an object`);
      checkChanges(t.changes, `${where} turn ${i + 1}`);
    });
  } else {
    if (!Array.isArray(rec.start.board)) fail(`${where} has no start.board`);
    rec.turns.forEach((t, i) => {
      if (!isObj(t) || !Array.isArray(t.board)) fail(`${where} turn ${i + 1} has no "board"`);
    });
  }
}

// The document the engine verified (a series, its summary recomputed by the engine) in
// the viewer's shape: {game, bots: [names], records, summary}. Throws ReplayFileError.
export function seriesFromDocument(doc) {
  if (!isObj(doc)) fail("the engine returned no document");
  if (!GAMES.includes(doc.game)) fail(`unknown game ${JSON.stringify(doc.game)}`);
  if (!Array.isArray(doc.bots) || doc.bots.length < 1) fail('missing "bots"');
  if (!Array.isArray(doc.records) || doc.records.length === 0) fail("the series has no records");
  if (!isObj(doc.summary) || !Array.isArray(doc.summary.games)) fail("the engine returned no summary");
  doc.records.forEach((r, i) => checkRecord(r, `record ${i + 1}`, doc.game));
  return { game: doc.game, bots: doc.bots.map(String), records: doc.records, summary: doc.summary };
}

// --- frames --------------------------------------------------------------------------

// A Track holds one record and computes its frames. Frame t = the state after t turns.
export class Track {
  constructor(game, record) {
    this.game = game;
    this.record = record;
    this.turns = Array.isArray(record.turns) ? record.turns.slice() : [];
    this.result = record.result || null;
    if (game === "flit") {
      this.size = (record.settings && record.settings.size) || 16;
      this.players = (record.settings && record.settings.players) || record.bots.length;
      const start = new Uint8Array(this.size * this.size);
      for (const [x, y, c] of record.start.changes || []) start[y * this.size + x] = c;
      this.snaps = [start];      // snaps[k] = board after k*SNAP turns
      this.tip = start.slice();  // board after tipTurn turns
      this.tipTurn = 0;
      this.advanceSnaps();
    }
  }

  get length() { return this.turns.length; }

  addTurns(turns) {
    for (const t of turns) this.turns.push(t);
    if (this.game === "flit") this.advanceSnaps();
  }

  applyFlit(board, turn) {
    const n = this.size;
    for (const [x, y, c] of turn.changes || []) board[y * n + x] = c;
  }

  advanceSnaps() {
    while (this.tipTurn < this.turns.length) {
      this.applyFlit(this.tip, this.turns[this.tipTurn]);
      this.tipTurn++;
      if (this.tipTurn % SNAP === 0) this.snaps.push(this.tip.slice());
    }
  }

  // Frame description for renderers.
  frame(t) {
    t = Math.max(0, Math.min(t, this.turns.length));
    const last = t > 0 ? this.turns[t - 1] : null;
    if (this.game === "flit") {
      const k = Math.min(Math.floor(t / SNAP), this.snaps.length - 1);
      const board = this.snaps[k].slice();
      for (let i = k * SNAP; i < t; i++) this.applyFlit(board, this.turns[i]);
      const counts = new Array(6).fill(0);
      for (const c of board) counts[c]++;
      return { game: "flit", turn: t, total: this.turns.length, size: this.size, board, counts, last };
    }
    const board = last ? last.board : this.record.start.board;
    const score = last ? (last.score ?? 0) : (this.record.start.score ?? 0);
    const next = t < this.turns.length ? this.turns[t] : null;
    return {
      game: "atomas", turn: t, total: this.turns.length, board, score, last,
      atom: next ? next.atom : null,
    };
  }
}
