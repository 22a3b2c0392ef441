// Replay records: validation of opened files, and per-record frame computation
// (Flit boards rebuilt from `changes`, with a snapshot every 64 turns so scrubbing is instant).

export const GAMES = ["flit", "atomas"];
const SNAP = 64;

function fail(msg) { throw new Error(msg); }
function isObj(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }

function checkRecord(rec, where, game) {
  if (!isObj(rec)) fail(`${where} is not an object`);
  if (rec.schema_version !== undefined && rec.schema_version !== 1) {
    fail(`${where} has unsupported schema_version ${JSON.stringify(rec.schema_version)}`);
  }
  if (rec.game !== undefined && rec.game !== game) fail(`${where} is a ${rec.game} record`);
  if (!Array.isArray(rec.bots) || rec.bots.length < 1) fail(`${where} has no "bots"`);
  if (!isObj(rec.start)) fail(`${where} has no "start"`);
  if (!Array.isArray(rec.turns)) fail(`${where} has no "turns"`);
  if (game === "flit") {
    const size = rec.settings && rec.settings.size;
    if (!Number.isInteger(size) || size < 1 || size > 512) fail(`${where} has no valid settings.size`);
    if (!Array.isArray(rec.start.changes)) fail(`${where} has no start.changes`);
    const checkChanges = (ch, w) => {
      if (!Array.isArray(ch)) fail(`${w} has no "changes"`);
      for (const c of ch) {
        if (!Array.isArray(c) || c.length !== 3 || !c.every(Number.isInteger)) {
          fail(`${w} has a bad change ${JSON.stringify(c)}`);
        }
        if (c[0] < 0 || c[0] >= size || c[1] < 0 || c[1] >= size) {
          fail(`${w} has a change outside the board`);
        }
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

// Parses and validates the text of a replay file. Returns a normalised series:
// {game, bots: [names], records: [...], summary|null}. Throws Error with a clear message.
export function parseReplay(text) {
  let data;
  try { data = JSON.parse(text); } catch (e) { fail(`not valid JSON (${e.message})`); }
  if (!isObj(data)) fail("the file does not hold a JSON object");
  if (data.schema_version === undefined) fail('missing "schema_version"');
  if (data.schema_version !== 1) {
    fail(`unsupported schema_version ${JSON.stringify(data.schema_version)} (expected 1)`);
  }
  if (data.kind !== "series" && data.kind !== "game") {
    fail(`unknown kind ${JSON.stringify(data.kind)} (expected "series" or "game")`);
  }
  if (!GAMES.includes(data.game)) fail(`unknown game ${JSON.stringify(data.game)}`);
  const game = data.game;
  if (data.kind === "game") {
    checkRecord(data, "the game record", game);
    const bots = data.bots.map(String);
    const rec = { ...data, bot_index: Array.isArray(data.bot_index) ? data.bot_index : bots.map((_, i) => i) };
    return { game, bots, records: [rec], summary: null };
  }
  if (!Array.isArray(data.bots) || data.bots.length < 1) fail('missing "bots"');
  if (!Array.isArray(data.records)) fail('missing "records"');
  if (data.records.length === 0) fail("the series has no records");
  data.records.forEach((r, i) => checkRecord(r, `record ${i + 1}`, game));
  const summary = isObj(data.summary) && Array.isArray(data.summary.games) ? data.summary : null;
  return { game, bots: data.bots.map(String), records: data.records, summary };
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

// --- summaries -----------------------------------------------------------------------

function countFaults(rec, nBots) {
  const faults = new Array(nBots).fill(0);
  const idx = rec.bot_index || [];
  for (const t of rec.turns || []) {
    if (t && t.fault && t.fault.kind !== "frozen") {
      const b = idx[t.seat ?? 0] ?? t.seat ?? 0;
      if (b >= 0 && b < nBots) faults[b]++;
    }
  }
  return faults;
}

// Builds a summary in the engine's shape from finished records:
// {games: [{seed, scores, winner, faults}], mean_scores, wins}.
export function computeSummary(game, botNames, records) {
  const n = botNames.length;
  const games = [];
  if (game === "flit") {
    for (const rec of records) {
      if (!rec || !rec.result) continue;
      const idx = rec.bot_index || rec.bots.map((_, i) => i);
      const scores = new Array(n).fill(null);
      (rec.result.scores || []).forEach((s, seat) => { if (idx[seat] < n) scores[idx[seat]] = s; });
      const w = rec.result.winner;
      games.push({
        seed: rec.seed, scores, winner: w === null || w === undefined ? null : idx[w] ?? null,
        faults: countFaults(rec, n),
      });
    }
  } else {
    const bySeed = new Map();
    const order = [];
    for (const rec of records) {
      if (!rec || !rec.result) continue;
      const key = String(rec.seed);
      if (!bySeed.has(key)) {
        bySeed.set(key, { seed: rec.seed, scores: new Array(n).fill(null), faults: new Array(n).fill(0) });
        order.push(key);
      }
      const g = bySeed.get(key);
      const b = (rec.bot_index && rec.bot_index[0]) ?? 0;
      if (b < n) {
        const sc = rec.result.scores ? rec.result.scores[0] : rec.result.score;
        g.scores[b] = sc ?? null;
        const f = countFaults(rec, n);
        for (let i = 0; i < n; i++) g.faults[i] += f[i];
      }
    }
    for (const key of order) {
      const g = bySeed.get(key);
      let best = null, bestScore = -Infinity, tie = false;
      g.scores.forEach((s, i) => {
        if (s === null) return;
        if (s > bestScore) { bestScore = s; best = i; tie = false; } else if (s === bestScore) tie = true;
      });
      g.winner = n > 1 && !tie && g.scores.every((s) => s !== null) ? best : null;
      games.push(g);
    }
  }
  const mean_scores = [], wins = [];
  for (let i = 0; i < n; i++) {
    const ss = games.map((g) => g.scores[i]).filter((s) => s !== null && s !== undefined);
    mean_scores.push(ss.length ? ss.reduce((a, b) => a + b, 0) / ss.length : null);
    wins.push(games.filter((g) => g.winner === i).length);
  }
  return { games, mean_scores, wins };
}
